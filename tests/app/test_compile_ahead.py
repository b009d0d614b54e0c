"""Compile ahead in the window (issue #16): a burst of parameter edits on the GPU backend sends one
``precompile`` of the config Run would send, after the edits settle; nothing on the interpreter;
its failure never reaches the banner.

What breaks if these fail: each keystroke queues a compile in the worker (the one Run needs is
late), the interpreter backend asks the worker to compile for a GPU it does not use, or a config
that does not compile ahead shows an error before the user even pressed Run.
"""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from test_controller import FakeView, FakeWorker  # noqa: E402

from app.controller import Controller  # noqa: E402
from app.history import History  # noqa: E402
from app.session import Session  # noqa: E402
from app.settings import Settings  # noqa: E402
from app.window.compile_ahead import DEBOUNCE_MS, CompileAhead  # noqa: E402
from kernels.data.results import ErrorInfo  # noqa: E402
from views.demo_results import vector_add_info  # noqa: E402


@pytest.fixture
def gpu_setup(qapp, tmp_path):
    view, worker = FakeView(), FakeWorker()
    c = Controller(view, worker, Session(), Settings.load(tmp_path / "settings.json"), History.in_memory())
    view.follow(c.events)
    c.on_hello({"backends": {"gpu_available": True}, "infos": [vector_add_info()], "versions": {}})
    view.chosen_backend = "gpu"
    return c, view, worker, CompileAhead(c)


def _precompiles(worker: FakeWorker) -> list:
    return [payload for _, kind, payload in worker.sent if kind == "precompile"]


def test_a_burst_of_edits_sends_one_precompile_of_the_last_values(gpu_setup, qtbot):
    c, view, worker, ahead = gpu_setup
    # typed one after another, faster than the debounce: no turn of the event loop between the
    # edits (a wait of a quarter debounce between them became more than a debounce on a loaded
    # machine, and a precompile went out mid-burst)
    for block in (128, 256, 512, 1024):
        view.values.update(N=5000, BLOCK_SIZE=block)
        ahead.edited()
    assert _precompiles(worker) == []  # still typing
    qtbot.waitUntil(lambda: len(_precompiles(worker)) == 1, timeout=120_000)
    qtbot.wait(2 * DEBOUNCE_MS)
    (sent,) = _precompiles(worker)
    req = sent["request"]
    assert sent["target"] is None  # the worker's own GPU
    assert req == c.session.run_request(view.param_values(), "gpu")  # what Run would send
    assert req.values["BLOCK_SIZE"] == 1024 and req.values["N"] == 5000 and req.backend == "gpu"
    # the same values again: nothing new to compile
    ahead.edited()
    qtbot.wait(2 * DEBOUNCE_MS)
    assert len(_precompiles(worker)) == 1
    # another num_warps-like change: one more
    view.values.update(BLOCK_SIZE=256)
    ahead.edited()
    qtbot.waitUntil(lambda: len(_precompiles(worker)) == 2, timeout=120_000)
    assert _precompiles(worker)[1]["request"].values["BLOCK_SIZE"] == 256


def test_nothing_is_sent_on_the_interpreter_or_while_the_values_are_invalid(gpu_setup, qtbot):
    c, view, worker, ahead = gpu_setup
    view.chosen_backend = "interpreter"
    view.values.update(BLOCK_SIZE=512)
    ahead.edited()
    qtbot.wait(2 * DEBOUNCE_MS)
    assert ahead.send() is None and _precompiles(worker) == []
    view.chosen_backend = "gpu"
    view.valid = False
    ahead.edited()
    qtbot.wait(2 * DEBOUNCE_MS)
    assert _precompiles(worker) == []
    # switching to the GPU backend with valid values compiles what is shown
    view.valid = True
    ahead.edited("gpu")
    qtbot.waitUntil(lambda: len(_precompiles(worker)) == 1, timeout=120_000)


def test_a_gpu_less_worker_gets_no_precompile(qapp, tmp_path, qtbot):
    view, worker = FakeView(), FakeWorker()
    c = Controller(view, worker, Session(), Settings.load(tmp_path / "settings.json"), History.in_memory())
    view.follow(c.events)
    c.on_hello({"backends": {"gpu_available": False}, "infos": [vector_add_info()], "versions": {}})
    view.chosen_backend = "gpu"
    ahead = CompileAhead(c)
    ahead.edited()
    qtbot.wait(2 * DEBOUNCE_MS)
    assert _precompiles(worker) == []


def test_a_failed_precompile_stays_out_of_the_banner(gpu_setup, qtbot):
    c, view, worker, ahead = gpu_setup
    view.values.update(BLOCK_SIZE=512)
    gen = ahead.send()
    assert gen is not None
    worker.answered(gen)
    c.on_error(gen, "precompile", ErrorInfo("worker", "the worker restarted"))
    assert view.banner is None
    c.on_result(gen, "precompile", {"status": "queued"})
    assert view.banner is None and view.stage[0] == "ready"
