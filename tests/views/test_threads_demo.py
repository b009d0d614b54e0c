"""The Threads view's demo layouts (``views.threads_view.demo``, what ``python -m
views.threads_view`` and the drawing tests use) are the layouts Triton really compiles: the blocked
layout's definition in the demo against the layout engine's thread map of catalog kernels
compiled for sm_90 on this CPU (this module imports the engine).

What breaks if this fails: the preview and the view tests draw a layout no compiled kernel has."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("triton")

from kernels.layout.service import layout_spec  # noqa: E402
from kernels.sources.lookup import get_spec  # noqa: E402
from views.threads_view.demo import blocked_map  # noqa: E402


@pytest.mark.parametrize("warps", [2, 4, 8])
def test_the_demo_blocked_map_is_vector_adds_compiled_load(warps):
    res = layout_spec(get_spec("vector_add", None), {"num_warps": warps}, "sm_90", coalescing=False)
    load = next(a for a in res.accesses if a.op == "load")
    assert load.layout.params["size_per_thread"] == [4] and load.layout.params["warps_per_cta"] == [warps]
    np.testing.assert_array_equal(load.threads.element_of, blocked_map((1024,), [4], [32], [warps], [0]).element_of)


def test_the_demo_blocked_map_is_a_2d_compiled_load():
    # matmul's A tile, 64 x 32 fp16, loaded as 8-element (128-bit) vectors along K
    res = layout_spec(get_spec("matmul", None), {}, "sm_90", coalescing=False)
    a = next(x for x in res.accesses if x.op in ("load", "async_copy") and x.shape == (64, 32))
    p = a.layout.params
    assert (p["size_per_thread"], p["threads_per_warp"], p["warps_per_cta"], p["order"]) == (
        [1, 8], [8, 4], [4, 1], [1, 0])
    np.testing.assert_array_equal(a.threads.element_of, blocked_map((64, 32), [1, 8], [8, 4], [4, 1], [1, 0]).element_of)
