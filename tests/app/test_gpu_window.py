"""The window's GPU trace views on a machine without a GPU: the Timeline tab, hovering a bar
lighting the program in the grid, "Interpreter vs GPU" off with its reason, and the worker's
refusal of a GPU trace in one line — against a real worker (Triton interpreter).

The GPU trace drawn here is real: the instrumented build the GPU would run, run under the
interpreter (``serve_trace(..., device="cpu")``). Its schedule cannot be (no SMs or clocks on the
CPU), so the Timeline test input is an explicit synthetic ``Timeline`` (labelled as such).
The tests share one window and run in file order.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("PySide6.QtWidgets")
pytest.importorskip("pytestqt")

from PySide6.QtTest import QTest  # noqa: E402
from real_window import make_window, wait_ready, wait_until  # noqa: E402

from app.main_window import MainWindow  # noqa: E402
from kernels.data.gpu_trace import Timeline  # noqa: E402
from kernels.data.trace import TraceRequest  # noqa: E402
from kernels.engine.trace_router import serve_trace  # noqa: E402
from kernels.gpu_trace.compare import BackendComparison, OutputDiff  # noqa: E402

VALUES = {"N": 2000, "BLOCK_SIZE": 256}  # 8 programs


@pytest.fixture(scope="module")
def win(qapp, tmp_path_factory):
    w = make_window(tmp_path_factory.mktemp("gpu-window"), initial_kernel="vector_add")
    w.resize(1600, 1000)
    w.show()
    wait_ready(w)
    yield w
    w.close()


def synthetic_schedule() -> Timeline:
    """TEST INPUT, not a measurement: 8 programs on SMs 0, 1, 2 — SM 0 runs 0, 3, 6; SM 1 runs 1, 4, 7;
    SM 2 runs 2 and 5 — each 10 µs, one after another."""
    pid = np.arange(8)
    start = (pid // 3) * 10_000
    return Timeline(grid=(8, 1, 1), sm=(pid % 3).astype(np.int32), start_ns=start.astype(np.int64),
                    end_ns=(start + 9_000).astype(np.int64), n_sms=3, programs_per_sm=1, kernel="vector_add")


def gpu_result(**fields):
    """A real GPU-recorder answer (the instrumented build under the interpreter)."""
    req = TraceRequest("vector_add", dict(VALUES), backend="gpu", timeline=True, **fields)
    res = serve_trace(req, device="cpu")
    assert res.error is None, res.error
    return res


def deliver(win: MainWindow, res) -> None:
    """Hand ``res`` to the controller as the worker's answer to the latest trace, and wait until drawn."""
    win.controller.on_result(win.controller._latest.get("trace", 0), "trace", res)
    wait_until(lambda: win.grid.trace() is res.trace and not win.grid.is_loading(), 30, "the trace drawn")


def test_without_a_gpu_the_timeline_tab_says_why_and_compare_is_off(win):
    # breaks if a learner without a GPU meets an empty tab with no reason, or a compare that cannot work
    tab = win.gpu_views.timeline
    titles = [win.plot_tabs.tabText(i) for i in range(win.plot_tabs.count())]
    assert "Timeline" in titles
    assert win.session.gpu_available is False
    text = tab.placeholder.text()
    assert text.startswith("No timeline: this machine has no usable GPU") and win.session.gpu_reason in text
    act = win.gpu_views.compare.action
    assert not act.isEnabled() and "needs a CUDA GPU" in act.toolTip() and win.session.gpu_reason in act.toolTip()
    assert act in win.toolbar.actions()


def test_the_worker_refuses_a_gpu_trace_in_one_line(win):
    # breaks if the window's GPU trace crashes the worker or shows a traceback instead of the reason
    req = win.session.trace_request(dict(VALUES))
    req.backend, req.timeline = "gpu", True
    got = []
    win.worker.error.connect(lambda gen, kind, err: got.append(("error", err)))
    win.worker.result.connect(lambda gen, kind, res: got.append(("result", res)))
    win.worker.submit("trace", req)
    wait_until(lambda: got, 60, "the worker's answer")
    kind, res = got[0]
    assert kind == "result" and res.trace is None and res.timeline is None
    assert res.error.message.startswith("the GPU recorder needs a CUDA device") and "\n" not in res.error.message
    wait_until(lambda: not win._busy_kinds(), 30)
    assert "the GPU recorder needs a CUDA device" in win.banner.text()  # the controller said it too


def test_a_gpu_trace_shows_one_row_per_sm_and_a_bar_lights_its_program(win, qtbot):
    # breaks if the timeline shows the wrong SMs, or pointing at a bar does not light that program
    res = gpu_result()
    res.timeline = synthetic_schedule()  # TEST INPUT: the CPU has no schedule to record
    deliver(win, res)
    tab = win.gpu_views.timeline
    assert tab.stack.currentWidget() is tab.view
    assert tab.view.sm_rows() == [0, 1, 2]
    assert "measured 2.67" in tab.view.summary.text() and "formula 2.67" in tab.view.summary.text()
    win.plot_tabs.setCurrentWidget(tab.stack)
    qtbot.waitUntil(lambda: tab.view.isVisible())
    vb = tab.view.plot.getPlotItem().vb
    # program 4 ran on SM 1 from 10 to 19 µs: point at the middle of its bar
    scene = vb.mapViewToScene(pg_point(14.5, 1.0))
    pos = tab.view.plot.mapFromScene(scene)
    QTest.mouseMove(tab.view.plot.viewport(), pos)
    qtbot.waitUntil(lambda: win.grid.selected_program() == 4, timeout=5000)
    assert "program 4 on SM 1" in tab.view.hover.text()


def pg_point(x: float, y: float):
    from PySide6.QtCore import QPointF

    return QPointF(x, y)


def test_an_interpreter_trace_empties_the_timeline_with_its_reason(win):
    # breaks if a stale GPU schedule stays beside an interpreter trace of another launch
    res = serve_trace(TraceRequest("vector_add", dict(VALUES), workers=1))
    deliver(win, res)
    tab = win.gpu_views.timeline
    assert tab.stack.currentWidget() is tab.placeholder
    assert tab.placeholder.text().startswith("No timeline: this machine has no usable GPU")


def test_compare_marks_exactly_the_programs_whose_outputs_differ(win):
    # breaks if the tiles marked are not those that wrote the differing elements
    gpu = gpu_result()
    writer = gpu.trace.maps_of("out_ptr").writer
    interp = np.arange(2000, dtype=np.float64)
    on_gpu = interp.copy()
    on_gpu[[300, 1999]] += 1.0  # TEST INPUT: a deliberate difference, in programs 1 and 7
    res = BackendComparison(gpu.request, gpu.trace, None, gpu.info, outputs=[
        OutputDiff.of("out", interp, on_gpu, writer, 1e-6, 1e-6)], atol=1e-6, rtol=1e-6)
    res.request.compare = True
    deliver(win, res)
    cmp = win.gpu_views.compare
    wait_until(lambda: cmp.marked_on_screen() == [1, 7], 10, "the marks")
    assert "2 of 2,000 output elements differ" in win.banner.text()
    # another trace clears them
    deliver(win, gpu_result())
    wait_until(lambda: cmp.marked_on_screen() == [], 10, "the marks cleared")
