"""The main window, driven as a learner would: pick a kernel, type parameters, Run, Trace, Sweep,
hover the grid — against a real worker process running the Triton interpreter.

The tests of this module share one window (and so one worker start, ~3 s) and run in file order;
each says what the learner would see go wrong if it failed. The last test closes that window.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("PySide6.QtWidgets")
pytest.importorskip("pytestqt")

from PySide6.QtCore import QPointF, Qt  # noqa: E402
from PySide6.QtWidgets import QSlider  # noqa: E402
from real_window import make_window, pick, wait_ready, wait_until  # noqa: E402

from app.main_window import MainWindow  # noqa: E402
from kernels.data.results import ErrorInfo  # noqa: E402
from views.history_view import CompareDialog  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("torch", "triton")
# other test files of the same pytest run may import torch themselves; only what this module
# adds says something about the window
_HEAVY_BEFORE = {m for m in HEAVY if m in sys.modules}


def activate(win: MainWindow) -> None:
    """Window shortcuts (Ctrl+R…) only fire in the active window."""
    win.activateWindow()
    wait_until(win.isActiveWindow, 5, "the window to be active")


def wait_idle(win: MainWindow, timeout: float = 60.0) -> None:
    wait_until(lambda: not win._busy_kinds(), timeout, "the request to finish")


def click_action(qtbot, win: MainWindow, action) -> None:
    button = win.toolbar.widgetForAction(action)
    assert button is not None and button.isEnabled(), f"{action.text()} is not clickable"
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def type_into(qtbot, win: MainWindow, name: str, text: str) -> None:
    """Select the field's text and type over it."""
    editor = win.panel.editor(name)
    line = editor.lineEdit() if hasattr(editor, "lineEdit") else editor
    line.setFocus()
    line.selectAll()
    qtbot.keyClicks(line, text)


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("gui-home")


@pytest.fixture(scope="module")
def win(qapp, home):
    w = make_window(home)
    w.show()
    wait_ready(w)
    yield w
    w.close()


# ---------------------------------------------------------------------------------------------


@pytest.mark.timeout(900)
def test_window_is_up_before_the_worker_and_says_so(qapp, home):
    # The learner sees the window at once, with a "starting worker…" note and a disabled Run,
    # instead of a frozen screen while torch and triton load in the worker.
    # CPU time of the GUI thread, not the wall clock: on a loaded machine other processes take
    # the wall clock's seconds (1.52 s with two busy loops), while the window's own work is what
    # would grow if it waited for the worker
    t0 = time.thread_time()
    w = make_window(home / "early")
    w.show()
    shown = time.thread_time() - t0
    try:
        assert w.isVisible()
        assert not w.run_action.isEnabled()
        assert "starting worker" in w.stage_text()
        assert shown < 1.5, f"building and showing the window took {shown:.2f} s of CPU"
        wait_until(lambda: w.worker.pid is not None, 600, "the worker process to be spawned")
    finally:
        w.close()


def test_vector_add_run_trace_hover_and_invalid_block(qtbot, win):
    # the worker computes at a lower CPU priority, so on a machine with few cores a trace
    # running in it never keeps the window waiting for a time slice
    from app.qt_worker import WORKER_NICE

    own = os.getpriority(os.PRIO_PROCESS, 0)
    assert win.worker.worker_nice() == min(19, own + WORKER_NICE)
    pick(qtbot, win, "vector_add")
    win.panel.set_backend("interpreter")
    type_into(qtbot, win, "BLOCK_SIZE", "256")
    type_into(qtbot, win, "N", "1000")
    assert win.panel.values()["BLOCK_SIZE"] == 256 and win.panel.values()["N"] == 1000

    # Run with Ctrl+R: the correctness badge says PASS and the run lands in the plot and history
    activate(win)
    qtbot.keyClick(win.panel.editor("N"), Qt.Key.Key_R, Qt.KeyboardModifier.ControlModifier)
    wait_until(lambda: len(win.throughput.results()) == 1, 30, "the run's result")
    r = win.throughput.results()[0]
    assert r.error is None and r.values["N"] == 1000 and r.values["BLOCK_SIZE"] == 256
    assert win.correctness.badge.text() == "PASS"
    assert win.correctness.fields["mismatch"].text().startswith("0 of 1,000")
    assert win.history.count() == 1 and win.history_view.row_count() in (0, 1)
    wait_until(lambda: win.history_view.row_count() == 1, 5, "the history row")
    assert win.banner.level() != "error", win.banner.text()

    # Trace: 4 programs of 256 cover 1000 elements
    click_action(qtbot, win, win.trace_action)
    wait_until(lambda: win.grid.trace() is not None and not win.grid.is_loading(), 30, "the trace")
    assert win.grid_stack.currentWidget() is win.grid
    assert win.grid.trace().grid == (4, 1, 1) and win.grid.program_grid_shape() == (1, 4)
    assert "4 programs recorded" in win.trace_caption.text()

    # the mouse over program 1 lights exactly elements 256..511 of every tensor
    qtbot.wait(10)
    with qtbot.waitSignal(win.grid.programHovered, check_params_cb=lambda p: p == 1, timeout=3000):
        qtbot.mouseMove(win.grid.graphics_view().viewport(), win.grid.program_cell_pos(1))
    expected = np.zeros(1000, bool)
    expected[256:512] = True
    for name in ("x_ptr", "y_ptr", "out_ptr"):
        np.testing.assert_array_equal(win.grid.lit_elements(name), expected, err_msg=name)
    # ... and the source view marks the line of that program's first access
    line = win.source.marked_line()
    assert line is not None and "tl.load(x_ptr" in win.source.line_text(line)

    # the last program: 232 live lanes, 24 masked ones, drawn as grey padding past the end
    win.grid.hover_program(3)
    assert np.flatnonzero(win.grid.lit_elements("x_ptr")).tolist() == list(range(768, 1000))
    ev = win.grid.trace().events
    assert set(ev.n_masked[ev.program == 3].tolist()) == {24}
    for col in (232, 244, 255):
        c = win.grid.map_cell_color("x_ptr", 3, col)
        assert c.red() == c.green() == c.blue(), f"masked tail cell {col} is {c.name()}, not grey"
    win.grid.hover_program(None)

    # the error map names the program that wrote an element, and hovering it lights that program
    assert "written by program 1" in win.correctness.element_tooltip(300)
    corr = win.correctness
    fold = corr.error_image().shape[1]
    row, col = divmod(300, fold)
    scene_pt = corr.image.mapToScene(QPointF(col + 0.5, row + 0.5))
    view_pt = corr.map_view.mapFromScene(scene_pt)
    with qtbot.waitSignal(corr.elementHovered, check_params_cb=lambda o, f: f == 300, timeout=3000):
        qtbot.mouseMove(corr.map_view.viewport(), view_pt)
    assert win.grid.highlighted_programs()[1] != 0 and win.grid.highlighted_programs()[[0, 2, 3]].sum() == 0

    # BLOCK_SIZE 100 is not a power of two: the field is marked and Run is disabled
    type_into(qtbot, win, "BLOCK_SIZE", "100")
    assert win.panel.is_marked("BLOCK_SIZE") and "power of two" in win.panel.error_for("BLOCK_SIZE")
    assert not win.run_action.isEnabled() and not win.toolbar.widgetForAction(win.run_action).isEnabled()
    type_into(qtbot, win, "BLOCK_SIZE", "256")
    assert win.run_action.isEnabled() and not win.panel.is_marked("BLOCK_SIZE")
    # back at the traced values, the caption no longer calls the trace stale
    assert "parameters changed" not in win.trace_caption.text()


def test_sweep_dialog_fills_the_sweep_plot_one_point_per_value(qtbot, win):
    pick(qtbot, win, "vector_add")
    stages: list[str] = []
    win.worker.progress.connect(lambda *_: stages.append(win.stage_text()))
    click_action(qtbot, win, win.sweep_action)
    dlg = win.sweep_dialog
    assert dlg is not None and dlg.param_combo[0].currentText() == "BLOCK_SIZE"
    dlg.values_edit[0].selectAll()
    qtbot.keyClicks(dlg.values_edit[0], "64, 128, 256, 512, 1024")
    assert "5 points" in dlg.message.text()
    qtbot.mouseClick(dlg.ok_button(), Qt.MouseButton.LeftButton)
    wait_until(lambda: win.session.sweep is not None and win.session.sweep.finished, 60, "the sweep")
    assert win.plot_tabs.currentWidget() is win.sweep_view and win.sweep_view.mode() == "1d"
    y = win.sweep_view.curve_data()["y"]
    assert y.shape == (5,) and np.isfinite(y).all(), y
    assert any(s.startswith("sweep point ") for s in stages), stages[:5]
    # every point is a run in the history too
    wait_until(lambda: win.history.count() >= 6, 5, "the sweep's rows")


@pytest.mark.timeout(1800)  # its waits are deadlines of minutes (a worker restart on a loaded machine)
def test_worker_killed_mid_sweep_keeps_points_and_resumes(qtbot, win):
    # The worker dies (a segfault, the OOM killer): the points done are kept and the sweep can
    # be resumed from where it stopped, not from the start.
    killed: list[int] = []

    def kill_once(name, _args):
        # on the client's reader thread, as the first point arrives (a direct connection): a
        # loaded GUI thread handling the point seconds later let the worker finish every point
        # first, and no Resume was offered
        if name == "point" and not killed and win.worker.pid is not None:
            killed.append(win.worker.pid)
            os.kill(win.worker.pid, signal.SIGKILL)

    win.worker._sig_event.connect(kill_once, Qt.ConnectionType.DirectConnection)
    try:
        values = [2048, 1024, 512, 256, 128, 64, 32, 16]  # the slowest points (small blocks) after the kill
        assert win.start_sweep({"BLOCK_SIZE": values}) is not None
        # generous deadlines, not margins: on a loaded 2-core machine the fresh worker (torch and
        # triton imported again) may take a minute or more to start
        wait_until(lambda: win.banner.button("Resume sweep") is not None, 600, "the Resume offer")
    finally:
        win.worker._sig_event.disconnect(kill_once)
    s = win.session.sweep
    assert killed and 1 <= s.done < len(values)
    # the banner, the session and the plot agree on the points kept (the plot redraws on a timer:
    # wait for it, never for a fixed time)
    wait_until(lambda: f"after {s.done} of {len(values)} points" in win.banner.text()
               and int(np.isfinite(win.sweep_view.curve_data()["y"]).sum()) == s.done, 600,
               f"the banner and the plot to show the {s.done} points kept")
    done_before = [p.values["BLOCK_SIZE"] for p in s.points]

    ran: list[int] = []
    win.worker.point.connect(lambda _g, p: ran.append(p.values["BLOCK_SIZE"]))
    # a person clicks the button once it is on screen (under load the banner lays out late, and a
    # click on a widget not yet shown does nothing)
    wait_until(lambda: win.banner.button("Resume sweep").isVisible()
               and win.banner.button("Resume sweep").isEnabled(), 600, "the Resume button on screen")
    qtbot.mouseClick(win.banner.button("Resume sweep"), Qt.MouseButton.LeftButton)
    wait_until(lambda: s.finished, 600, "the resumed sweep")
    assert sorted(ran) == sorted(set(values) - set(done_before)), "a resumed sweep re-ran done points"
    assert np.isfinite(win.sweep_view.curve_data()["y"]).all()
    assert not win.banner.button("Resume sweep")


def test_matmul_loop_slider_moves_the_a_and_b_tiles(qtbot, win):
    pick(qtbot, win, "matmul")
    win.panel.set_values({"M": 64, "N": 64, "K": 64, "BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 32,
                          "dtype": "fp32"})
    assert win.panel.is_valid(), win.panel.errors()
    activate(win)
    qtbot.keyClick(win.panel.editor("M"), Qt.Key.Key_T, Qt.KeyboardModifier.ControlModifier)  # Trace
    wait_until(lambda: win.grid.trace() is not None and win.grid.trace().kernel == "matmul", 30, "the trace")
    assert win.grid.trace().grid == (4, 1, 1) and win.grid.loop_steps() == 2  # K / BLOCK_K

    win.grid.hover_program(0)
    assert win.grid.pin()
    slider = win.grid.findChild(QSlider)
    assert slider is not None and slider.isEnabled()
    slider.setFocus()
    tiles = []
    for _ in range(2):
        qtbot.keyClick(slider, Qt.Key.Key_Right)
        a, b = win.grid.lit_elements("a_ptr"), win.grid.lit_elements("b_ptr")
        tiles.append((np.flatnonzero(a.any(0)).tolist(), np.flatnonzero(a.any(1)).tolist(),
                      np.flatnonzero(b.any(1)).tolist(), np.flatnonzero(b.any(0)).tolist()))
    assert [win.grid.loop_step()] == [1]
    (a_cols0, a_rows0, b_rows0, b_cols0), (a_cols1, a_rows1, b_rows1, b_cols1) = tiles
    assert a_cols0 == list(range(0, 32)) and a_cols1 == list(range(32, 64)), "A's tile walks along K"
    assert b_rows0 == list(range(0, 32)) and b_rows1 == list(range(32, 64)), "B's tile walks down K"
    assert a_rows0 == a_rows1 == list(range(32)) and b_cols0 == b_cols1 == list(range(32))
    win.grid.unpin()


def test_the_programs_field_traces_a_window_and_huge_grids_get_one_offered(qtbot, win, monkeypatch, tmp_path):
    import app.trace_flow as trace_flow

    pick(qtbot, win, "vector_add")
    win.panel.set_backend("interpreter")
    win.panel.set_values({"BLOCK_SIZE": 256, "N": 1000})  # 4 programs
    wait_idle(win)
    edit = win.window_edit
    assert edit.placeholderText() == "all"

    # not a window: the field says so and Trace is off until it is fixed
    edit.setFocus()
    edit.clear()
    qtbot.keyClicks(edit, "first two")
    assert not win.trace_action.isEnabled() and "A:B" in edit.toolTip() and "⚠" in edit.toolTip()
    edit.clear()
    qtbot.keyClicks(edit, "0:2")
    assert win.trace_action.isEnabled() and "⚠" not in edit.toolTip()
    click_action(qtbot, win, win.trace_action)
    wait_until(lambda: win.grid.trace() is not None and win.grid.trace().window is not None
               and win.grid.trace().grid == (4, 1, 1), 30, "the windowed trace")
    tr = win.grid.trace()
    assert tr.window == "programs 0..1 of 4" and tr.programs.tolist() == [0, 1]
    assert "(programs 0..1 of 4)" in win.trace_caption.text()
    assert "2 of 4 programs (programs 0..1 of 4)" in win.statusBar().currentMessage()
    win.grid.hover_program(3)
    assert "not recorded" in win.grid.hover_text()
    win.grid.hover_program(None)

    # a grid the kernel's formula says is larger than the limit, before anything ran: a window is
    # applied at once, and said so
    monkeypatch.setattr(trace_flow, "TRACE_SUGGEST_PROGRAMS", 8)
    monkeypatch.setattr(trace_flow, "TRACE_SUGGESTED_WINDOW", 4)
    win.panel.set_values({"BLOCK_SIZE": 64, "N": 1056})  # 17 programs, never run
    edit.clear()
    wait_idle(win)
    click_action(qtbot, win, win.trace_action)
    assert edit.text() == "0:4" and win.banner.topic() == "trace_window"
    assert "17 programs" in win.banner.text() and win.banner.button("Trace all 17") is not None
    wait_until(lambda: win.grid.trace().window == "programs 0..3 of 17", 30, "the applied window")
    qtbot.mouseClick(win.banner.button("Trace all 17"), Qt.MouseButton.LeftButton)
    assert edit.text() == ""
    wait_until(lambda: win.grid.trace().n_programs == 17 and win.grid.trace().window is None, 30,
               "the trace of every program")
    assert win.banner.button("Trace programs 0:4 only") is None, "a window was offered after 'Trace all'"

    # a kernel whose grid only its launch knows (a launcher that computes it): the trace's own
    # progress reveals the grid, and a window is offered
    f = tmp_path / "gridless.py"
    f.write_text(textwrap.dedent(USER_KERNEL).replace("    BROKEN\n", "").replace("user_twice", "user_gridless"))
    win.picker.openFileRequested.emit(str(f))
    wait_until(lambda: win.session.kernel == "user_gridless" and not win._busy_kinds(), 30, "the user's kernel")
    assert win.session.info().grid_exprs == () and win.session.programs(win.panel.values()) is None
    win.panel.set_values({"BLOCK_SIZE": 32, "N": 1024})  # 32 programs
    click_action(qtbot, win, win.trace_action)
    assert edit.text() == "" and win.banner.topic() != "trace_window"  # nothing known yet
    wait_until(lambda: win.banner.button("Trace programs 0:4 only") is not None
               or (win.grid.trace() is not None and win.grid.trace().kernel == "user_gridless"
                   and not win._busy_kinds()), 30, "the offer")
    assert win.banner.button("Trace programs 0:4 only") is not None, "no window was offered"
    assert "all 32 programs" in win.banner.text()
    qtbot.mouseClick(win.banner.button("Trace programs 0:4 only"), Qt.MouseButton.LeftButton)
    wait_until(lambda: win.grid.trace() is not None and win.grid.trace().window == "programs 0..3 of 32", 30,
               "the offered window")
    edit.clear()
    wait_idle(win)


USER_KERNEL = '''
import torch
import triton
import triton.language as tl

from kernels.data.params import block, dtype_param, num_stages, num_warps, shape
from kernels.specs.spec import KernelSpec, register


@triton.jit
def twice_kernel(x_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    tl.store(out_ptr + offs, 2 * tl.load(x_ptr + offs, mask=mask), mask=mask)


def make_inputs(cfg, device, gen):
    x = torch.randn(cfg["N"], generator=gen).to(device)
    return {"x": x, "out": torch.empty_like(x)}


def launch(K, t, cfg):
    BROKEN
    grid = (triton.cdiv(cfg["N"], cfg["BLOCK_SIZE"]),)
    return K(twice_kernel)[grid](t["x"], t["out"], cfg["N"], BLOCK_SIZE=cfg["BLOCK_SIZE"])


register(KernelSpec(
    name="user_twice", title="Twice (user file)", summary="out = 2 x", kernels=(twice_kernel,),
    params=(block("BLOCK_SIZE", 128), num_warps(4), num_stages(3), shape("N", 500), dtype_param(("fp32",))),
    make_inputs=make_inputs, launch=launch,
    reference=lambda t, cfg: {"out": 2 * t["x"].double()},
    outputs=("out",), bytes_moved=lambda cfg: 8 * cfg["N"], flops=lambda cfg: cfg["N"],
))
'''


def test_errors_show_a_message_and_the_next_run_works(qtbot, win, tmp_path):
    # a file that does not exist: a message, not a crash
    missing = tmp_path / "no_such_kernels.py"
    win.picker.openFileRequested.emit(str(missing))
    wait_until(lambda: win.banner.topic() == "file", 30, "the load error")
    assert "Could not load" in win.banner.text() and "no_such_kernels.py" in win.banner.text()

    # a kernel whose launcher raises: the error is shown and the window keeps working
    f = tmp_path / "twice.py"
    f.write_text(textwrap.dedent(USER_KERNEL).replace("    BROKEN\n", "    raise RuntimeError('boom from the launcher')\n"))
    win.picker.openFileRequested.emit(str(f))
    wait_until(lambda: win.session.kernel == "user_twice", 30, "the user's kernel")
    assert not win.picker.file_changed()
    n_before = len(win.throughput.results())
    click_action(qtbot, win, win.run_action)
    wait_until(lambda: len(win.throughput.results()) == n_before + 1, 30, "the failed run")
    assert win.banner.level() == "error" and "boom from the launcher" in win.banner.text()
    assert win.run_action.isEnabled()

    # fixing the file lights Reload; reloading and running works
    time.sleep(0.01)
    f.write_text(textwrap.dedent(USER_KERNEL).replace("    BROKEN\n", ""))
    wait_until(win.picker.file_changed, 10, "Reload to light up after the file changed")
    assert "changed on disk" in win.picker.reload_button.text()
    qtbot.mouseClick(win.picker.reload_button, Qt.MouseButton.LeftButton)
    wait_until(lambda: not win.picker.file_changed() and not win._busy_kinds(), 30, "the reload")
    click_action(qtbot, win, win.run_action)
    wait_until(lambda: len(win.throughput.results()) == n_before + 2, 30, "the fixed run")
    r = win.throughput.results()[-1]
    assert r.error is None and r.check.passed and win.correctness.badge.text() == "PASS"
    assert win.banner.topic() != "run"

    # a validation error the worker reports names its field: the field is marked, the message shown
    win.controller.show_error(ErrorInfo("validation", "N=500 is too large for this device", field="N"), "run")
    assert win.panel.is_marked("N") and "too large" in win.panel.error_for("N")
    assert "validation: N=500 is too large" in win.banner.text()
    type_into(qtbot, win, "N", "600")  # the next edit revalidates and clears the mark
    assert not win.panel.is_marked("N")


def test_live_mode_reruns_once_after_a_burst_of_edits(qtbot, win):
    pick(qtbot, win, "vector_add")
    wait_idle(win)
    n = len(win.throughput.results())
    click_action(qtbot, win, win.live_action)
    assert win.live_action.isChecked()
    try:
        type_into(qtbot, win, "N", "2000")  # four valid values in a row: 2, 20, 200, 2000
        wait_until(lambda: len(win.throughput.results()) > n, 30, "the live run")
        qtbot.wait(600)  # a second debounce period: no further run may come
        wait_idle(win)
        runs = win.throughput.results()[n:]
        assert [r.values["N"] for r in runs] == [2000], "live mode ran superseded values"
    finally:
        click_action(qtbot, win, win.live_action)
    assert not win.live_action.isChecked()

    # a click on a point of the throughput plot shows that run's configuration and can load it
    first = win.throughput.results()[0]
    win.throughput.pointClicked.emit(0)
    assert "Run 1" in win.banner.text() and f"N={first.values['N']}" in win.banner.text()
    qtbot.mouseClick(win.banner.button("Load these values"), Qt.MouseButton.LeftButton)
    assert win.panel.values()["N"] == first.values["N"] and win.banner.topic() == ""


def test_history_and_settings_survive_a_restart_and_closing_mid_run_leaves_no_process(qtbot, win, home):
    pick(qtbot, win, "vector_add")
    win.panel.set_values({"BLOCK_SIZE": 128, "N": 3000})
    wait_idle(win)
    n_runs = win.history.count()
    assert n_runs >= 10
    old_pid = win.worker.pid
    win.close()
    assert win.worker.state == "stopped"
    wait_until(lambda: not _alive(old_pid), 10, "the worker to exit")

    w2 = make_window(home)
    try:
        w2.show()
        wait_until(lambda: len(w2.history_view.rows()) == n_runs, 5, "the history rows")
        assert not w2.run_action.isEnabled()  # listed before the worker is even up
        wait_ready(w2)
        assert w2.session.kernel == "vector_add" and w2.picker.current_name() == "vector_add"
        assert w2.panel.values()["BLOCK_SIZE"] == 128 and w2.panel.values()["N"] == 3000

        # the history panel puts a past run back, compares two, exports all
        hv = w2.history_view
        first, second = sorted(r["id"] for r in hv.rows())[:2]  # the first run, the first sweep point
        hv.select_ids([first])
        qtbot.mouseClick(hv.reload_button, Qt.MouseButton.LeftButton)
        assert w2.panel.values()["BLOCK_SIZE"] == 256 and w2.panel.values()["N"] == 1000
        hv.select_ids([first, second])
        qtbot.mouseClick(hv.compare_button, Qt.MouseButton.LeftButton)
        dlg = hv.findChild(CompareDialog)
        assert dlg is not None and dlg.isVisible() and "BLOCK_SIZE" in dlg.differing()
        dlg.close()
        csv_path = home / "runs.csv"
        assert w2.export_history(str(csv_path), "csv") == n_runs
        assert len(csv_path.read_text().strip().splitlines()) == n_runs + 1

        # a long trace (16384 programs): Esc cancels it and the worker stays
        w2.panel.set_values({"BLOCK_SIZE": 16, "N": 16 * 16384})
        w2.trace()
        wait_until(lambda: w2.stage_text().startswith("tracing"), 30, "the trace to start")
        pid = w2.worker.pid
        activate(w2)
        qtbot.keyClick(w2.panel.editor("N"), Qt.Key.Key_Escape)
        wait_until(lambda: not w2._busy_kinds(), 10, "the cancel")
        assert w2.grid.trace() is None and w2.banner.level() != "error" and w2.worker.pid == pid
        assert not w2.cancel_action.isEnabled()

        # again, and this time the window closes while it runs
        w2.trace()
        wait_until(lambda: w2.stage_text().startswith("tracing"), 30, "the trace to start")
        pid = w2.worker.pid
        assert pid is not None and _alive(pid)
    finally:
        w2.close()
    wait_until(lambda: not _alive(pid), 10, "the worker to be gone after close")
    assert w2.worker.state == "stopped"


def test_the_gui_process_never_imported_torch_or_triton():
    if not _HEAVY_BEFORE and not any(m in sys.modules for m in HEAVY):
        return  # the window's tests above ran in a process that stayed clean: that is the proof
    # torch is here (other test files of this run load it, some during their tests, after this
    # module was imported): repeat a run/trace/sweep cycle in a fresh process
    code = textwrap.dedent("""
        import sys, time
        from PySide6.QtWidgets import QApplication
        from PySide6.QtTest import QTest
        app = QApplication([])
        from app.main_window import MainWindow
        w = MainWindow()
        w.show()
        def wait(pred, t=60):
            end = time.monotonic() + t
            while not pred():
                assert time.monotonic() < end
                QTest.qWait(20)
        wait(w.run_action.isEnabled)
        w.panel.set_values({"BLOCK_SIZE": 256, "N": 1000})
        w.run(); w.trace(); w.start_sweep({"BLOCK_SIZE": [128, 256]})
        wait(lambda: w.session.sweep.finished and w.grid.trace() is not None and w.throughput.results())
        w.close()
        print(sorted(m for m in ("torch", "triton") if m in sys.modules), flush=True)
        import os
        os._exit(0)  # the answer is printed; Qt's teardown at exit is not what this test is about
    """)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen"}
    r = subprocess.run([sys.executable, "-X", "faulthandler", "-c", code], cwd=ROOT, env=env,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, f"rc {r.returncode}\nstdout: {r.stdout[-1000:]}\nstderr: {r.stderr[-3000:]}"
    assert r.stdout.strip().splitlines()[-1] == "[]", r.stdout


def _alive(pid: int | None) -> bool:
    if pid is None:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie counts as gone: its parent (the client) reaps it
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False
