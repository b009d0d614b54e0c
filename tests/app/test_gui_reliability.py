"""Reliability as the learner sees it: the real main window (offscreen) with a real worker process,
fed damaged files, faulting kernels, impossible sizes, a kernel that never ends, a killed worker
and a close in the middle of a run. Each time: a message in the window, the window alive, and the
next Run working. The tests share one window, started from a damaged settings file and a damaged
history database, and run in file order; the last one closes it.

If these fail, the learner meets a frozen or vanished window, a silent failure, lost sweep
points, or worker processes left running after the window is gone.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import numpy as np
import psutil
import pytest
from PySide6.QtCore import Qt
from real_window import wait_ready, wait_until

from app.client import worker_processes
from app.main_window import MainWindow
from app.paths import history_path, settings_path
from app.settings import DEFAULT_TIMEOUT_S, Settings

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
FAULTY = str(FIXTURES / "faulty_kernels.py")
TIMEOUT_S = 3.0  # the run timeout the learner set (Run timeout…), short for the endless kernel


_workers = worker_processes


def _gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


@pytest.fixture(scope="module")
def damaged_home(tmp_path_factory):
    """A config and data folder whose settings file and history database are both damaged."""
    home = tmp_path_factory.mktemp("damaged-home")
    mp = pytest.MonkeyPatch()
    mp.setenv("TILESCOPE_CONFIG_DIR", str(home / "config"))
    mp.setenv("TILESCOPE_DATA_DIR", str(home / "data"))
    settings_path().write_text('{"timeout_s": 12, "last_kernel": "vector_a', encoding="utf-8")  # cut short
    history_path().write_bytes(b"SQLite format 3\x00" + os.urandom(4000))  # header, then noise
    yield home
    mp.undo()


@pytest.fixture(scope="module")
def win(qapp, damaged_home):
    # as app.main_window.main() starts: Settings.load(), the default history, then show
    settings = Settings.load()
    w = MainWindow(settings=settings)
    w.show()
    wait_ready(w)
    w.panel.set_backend("interpreter")
    yield w
    w.close()


def _run_and_wait(win: MainWindow, timeout: float = 60) -> None:
    n = len(win.throughput.results())
    banner_before = (win.banner.text(), win.banner.topic())
    assert win.run() is not None, "Run was refused"
    wait_until(lambda: len(win.throughput.results()) > n or (win.banner.text(), win.banner.topic()) != banner_before
               and not win._busy_kinds(), timeout, "the run's answer")
    wait_until(lambda: not win._busy_kinds(), timeout, "the window to be idle")


def _vector_add_passes(win: MainWindow) -> None:
    win.select_kernel("vector_add")
    win.panel.set_values({"N": 1000, "BLOCK_SIZE": 256, "dtype": "fp32"})
    n = len(win.throughput.results())
    win.run()
    wait_until(lambda: len(win.throughput.results()) == n + 1, 60, "the vector_add run")
    r = win.throughput.results()[-1]
    assert r.error is None and r.check.passed and win.correctness.badge.text() == "PASS"


# ---------------------------------------------------------------------------------------------


def test_damaged_settings_and_history_start_with_defaults_and_say_so(win, damaged_home):
    text = win.banner.text()
    assert win.banner.level() == "warning" and win.banner.topic() == "startup"
    assert "settings file" in text and "not valid JSON" in text and "default settings are used" in text
    assert "run history" in text and "was damaged" in text and "new, empty history" in text
    # the damaged files were kept for the learner, next to the fresh ones
    kept_settings = list((damaged_home / "config").glob("settings.json.corrupt-*"))
    kept_history = list((damaged_home / "data").glob("history.db.corrupt-*"))
    assert len(kept_settings) == 1 and kept_settings[0].read_text().startswith('{"timeout_s": 12')
    assert len(kept_history) == 1 and kept_history[0].read_bytes().startswith(b"SQLite format 3")
    assert win.settings.timeout_s == DEFAULT_TIMEOUT_S and win.history.count() == 0
    # ... and the app works: a run passes and lands in the fresh history
    _vector_add_passes(win)
    wait_until(lambda: win.history.count() == 1, 5, "the run in the new history")


def test_a_broken_kernel_file_is_a_message_and_run_still_works(win):
    for path, words in ((FIXTURES / "unparsable" / "syntax_error.py", "syntax_error.py:9: syntax error"),
                        (FIXTURES / "registers_nothing.py", "registers no kernels"),
                        (FIXTURES / "missing_import.py", "'triton_kernels_that_do_not_exist'")):
        win.open_kernel_file(str(path))
        wait_until(lambda: win.banner.topic() == "file", 30, f"the load error of {path.name}")
        assert win.banner.level() == "error" and "Could not load the kernel file" in win.banner.text()
        assert words in win.banner.text()
        wait_until(lambda: not win._busy_kinds(), 10)
        assert win.run_action.isEnabled()
    _vector_add_passes(win)


def test_an_out_of_bounds_kernel_is_stopped_and_explained_and_the_worker_lives(win):
    win.open_kernel_file(FAULTY)
    wait_until(lambda: "oob_store" in win.session.infos and not win._busy_kinds(), 30, "the faulty kernels")
    pid = win.worker.pid
    win.select_kernel("oob_store")
    win.panel.set_values({"N": 1000, "BLOCK_SIZE": 256})
    _run_and_wait(win)
    text = win.banner.text()
    assert win.banner.level() == "error" and text.startswith("out_of_bounds: out-of-bounds store in oob_store_kernel")
    assert "program 0 (0, 0, 0)" in text and "256 of 256 active lanes" in text and "Trace this run" in text
    assert win.worker.pid == pid and win.run_action.isEnabled()  # no crash, no restart
    # a kernel that raises inside: the program and the line are named
    win.select_kernel("shape_mismatch")
    _run_and_wait(win)
    assert "interpreter:" in win.banner.text() and "ValueError" in win.banner.text()
    _vector_add_passes(win)


def test_a_size_too_large_for_memory_marks_the_field(win):
    # the panel's own checks pass (each value is in range); the worker's memory plan refuses it
    win.select_kernel("attention")
    win.panel.set_values({"BATCH": 65536, "HEADS": 4096, "N_CTX": 1 << 20, "HEAD_DIM": 128, "dtype": "fp16"})
    assert win.panel.is_valid(), win.panel.errors()
    _run_and_wait(win)
    assert win.panel.is_marked("N_CTX") and "too large for host memory" in win.panel.error_for("N_CTX")
    assert "too large for host memory" in win.banner.text()
    win.panel.set_values({"BATCH": 1, "HEADS": 1, "N_CTX": 64, "HEAD_DIM": 16, "dtype": "fp32"})
    assert not win.panel.is_marked("N_CTX")  # the next edit clears the mark
    _vector_add_passes(win)


def test_a_kernel_that_never_ends_is_killed_after_the_timeout_the_user_set(win):
    win.settings.timeout_s = TIMEOUT_S
    win.worker.set_timeout(TIMEOUT_S)  # what "Run timeout…" does
    pid = win.worker.pid
    win.select_kernel("endless")
    t0 = time.monotonic()
    win.run()
    wait_until(lambda: win.banner.topic() == "run" and "timeout" in win.banner.text(), 30, "the timeout")
    took = time.monotonic() - t0
    assert TIMEOUT_S <= took < TIMEOUT_S + 10, took
    assert f"did not finish within {TIMEOUT_S:g} s" in win.banner.text()
    # the window follows the restart: "worker: restarting", then ready again with Run enabled
    wait_until(lambda: win.state_label.text() == "worker: ready" and win.stage_text() == "ready"
               and win.run_action.isEnabled(), 60, "the window to show the fresh worker")
    assert win.worker.pid != pid and _gone(pid)
    assert "endless" in win.session.infos  # the user's file came back with the fresh worker
    win.worker.set_timeout(DEFAULT_TIMEOUT_S)
    win.settings.timeout_s = DEFAULT_TIMEOUT_S
    _vector_add_passes(win)


@pytest.mark.timeout(1800)  # its waits are deadlines of minutes (a worker restart on a loaded machine)
def test_worker_killed_mid_sweep_the_window_says_so_keeps_points_and_resumes(qtbot, win):
    win.select_kernel("vector_add")
    win.panel.set_values({"N": 8192, "dtype": "fp32"})
    states: list[str] = []
    win.worker.stateChanged.connect(states.append)
    killed: list[int] = []
    seen: list[int] = []

    def kill_on_second(name, _args):
        # on the client's reader thread as the second point arrives (a direct connection): on a
        # loaded machine the GUI thread handled it late, and the worker had finished a third
        if name == "point" and not killed:
            seen.append(1)
            if len(seen) == 2 and win.worker.pid is not None:
                killed.append(win.worker.pid)
                os.kill(win.worker.pid, signal.SIGKILL)

    win.worker._sig_event.connect(kill_on_second, Qt.ConnectionType.DirectConnection)
    values = [2048, 1024, 512, 256, 128, 64, 32, 16]  # the slowest points (small blocks) after the kill
    runs_before = win.history.count()
    try:
        assert win.start_sweep({"BLOCK_SIZE": values}) is not None
        wait_until(lambda: win.banner.button("Resume sweep") is not None, 600, "the Resume offer")
    finally:
        win.worker._sig_event.disconnect(kill_on_second)
    s = win.session.sweep
    # a point the worker sent just before the kill may still arrive: the window keeps every one
    # it got, and says so consistently
    assert killed and 2 <= s.done < len(values), s.done
    assert "SIGKILL" in win.banner.text()
    # the status bar follows the worker: crashed, then restarting (the error may arrive first)
    wait_until(lambda: "crashed" in states and "restarting" in states, 600, "the crash and restart states")
    done = s.done
    assert f"The {done} finished points are kept; {len(values) - done} remain." in win.banner.text()
    wait_until(lambda: int(np.isfinite(win.sweep_view.curve_data()["y"]).sum()) == done, 600, "the points plotted")
    wait_until(lambda: win.history.count() == runs_before + done, 600, "the points in the history")
    wait_until(lambda: win.state_label.text() == "worker: ready", 600, "the restarted worker")
    assert win.worker.pid != killed[0] and _gone(killed[0])

    ran: list[int] = []

    def record(_g, p):
        ran.append(p.values["BLOCK_SIZE"])

    win.worker.point.connect(record)
    try:
        qtbot.mouseClick(win.banner.button("Resume sweep"), Qt.MouseButton.LeftButton)
        wait_until(lambda: s.finished, 600, "the resumed sweep")
    finally:
        win.worker.point.disconnect(record)
    assert sorted(ran) == sorted(set(values) - {p.values["BLOCK_SIZE"] for p in s.points[:done]})
    assert np.isfinite(win.sweep_view.curve_data()["y"]).all() and s.done == len(values)


def test_closing_the_window_during_a_run_leaves_no_process_behind(win):
    win.select_kernel("vector_add")
    win.panel.set_values({"N": 1 << 22, "BLOCK_SIZE": 1024})  # 4096 interpreted programs: seconds
    win.run()
    wait_until(lambda: win.stage_text().startswith("running"), 30, "the run to be running")
    assert len(_workers()) == 1  # exactly one worker while the window is up
    win.close()
    assert win.worker.state == "stopped"
    wait_until(lambda: not _workers(), 10, "every worker process to be gone")
