"""SweepView under the interpreter (issue 22): no star for a launch option that cannot change
anything there; with a block size beside it, the star goes to a block size at one num_warps."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest

from kernels.data.results import SweepPoint, Timing
from views.demo_results import demo_run_result
from views.sweep_view import SweepView


@pytest.fixture
def view(on_screen):
    return on_screen(SweepView(), 640, 420)


def _pt(ms, **vals):
    r = demo_run_result(vals, backend="interpreter")
    r.timing = Timing("interpreter wall clock", ms, ms, ms, 1, is_interpreter=True)
    return SweepPoint(dict(vals), r)


def test_num_warps_alone_on_the_interpreter_gets_no_star(view):
    axes = {"num_warps": [1, 2, 4, 8]}
    for w, ms in zip((1, 2, 4, 8), (25.8, 50.1, 30.0, 27.0), strict=True):
        view.add_point(_pt(ms, num_warps=w), axes)
    view.flush()
    assert view.best_index() is None and not view.best_text.isVisible()


def test_block_sizes_ranked_at_the_first_num_warps_only(view):
    axes = {"BLOCK_SIZE": [128, 256], "num_warps": [1, 4]}
    times = {(128, 1): 9.0, (256, 1): 6.0, (128, 4): 3.0, (256, 4): 7.0}  # the 3.0 is noise of num_warps=4
    for (b, w), ms in times.items():
        view.add_point(_pt(ms, BLOCK_SIZE=b, num_warps=w), axes)
    view.flush()
    assert view.best_index() == (1, 0)  # BLOCK_SIZE=256 at num_warps=1, not the 3.0 ms at num_warps=4
