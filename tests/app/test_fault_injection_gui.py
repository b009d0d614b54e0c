"""Fault injection in the window: hostile kernel files (``tests/app/hostile`` templates), a
number far past Python's 4300-digit limit typed into a field, and settings/history folders that
are locked, read-only, missing or cannot be created. Each time the window says what happened
(banner or field), stays up, the next valid Run works, and no process outlives it.

The worker-backed tests share one window (run timeout 3 s, so a hang ends quickly) and run in
file order; the last one closes it. The start-up tests build windows without a worker.

If these fail: a kernel file that never finishes importing leaves the window on "loading …"
with Cancel disabled, a paste of 5000 digits breaks the panel, a locked history is moved aside
as "damaged", a config folder that cannot be created stops the app with a traceback, settings
that cannot be saved are lost without a word, or a forked child outlives the window.
"""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from hostile import TAG_VAR, hold_lock, tagged, write

pytest.importorskip("PySide6.QtWidgets")

from PySide6.QtTest import QTest  # noqa: E402
from real_window import make_window, wait_ready, wait_until  # noqa: E402

from app import settings as settings_mod  # noqa: E402
from app.history import History  # noqa: E402
from app.main_window import MainWindow  # noqa: E402
from app.settings import Settings  # noqa: E402
from kernels.data.results import RunRequest, RunResult  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT_S = 3.0


@pytest.fixture(scope="module")
def tag():
    """Every process the window starts (its workers, what they fork) carries this in its environment."""
    value = uuid.uuid4().hex
    mp = pytest.MonkeyPatch()
    mp.setenv(TAG_VAR, value)
    yield value
    mp.undo()


@pytest.fixture(scope="module")
def win(qapp, tmp_path_factory, tag):
    home = tmp_path_factory.mktemp("fault-gui")
    w = make_window(home)
    w.settings.timeout_s = TIMEOUT_S
    w.worker.set_timeout(TIMEOUT_S)
    w.show()
    wait_ready(w)
    w.panel.set_backend("interpreter")
    yield w
    w.close()


def _vector_add_passes(win: MainWindow) -> None:
    wait_until(lambda: not win._busy_kinds() and win.controller.ready, 60, "the window to be idle")
    win.select_kernel("vector_add")
    win.panel.set_values({"N": 1000, "BLOCK_SIZE": 256, "dtype": "fp32"})
    assert win.run_action.isEnabled(), win.panel.errors()
    n = len(win.throughput.results())
    assert win.run() is not None
    wait_until(lambda: len(win.throughput.results()) == n + 1, 60, "the vector_add run")
    r = win.throughput.results()[-1]
    assert r.error is None and r.check.passed


# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["9" * 5000, "1" + "0" * 4400, "-" + "9" * 4301, "2**" + "9" * 4400,
                                  "1e" + "9" * 4400, "٩" * 5000])
def test_a_number_past_the_4300_digit_limit_is_a_field_error_and_run_works_after(win, text):
    win.select_kernel("vector_add")
    win.panel.set_values({"N": text})
    assert win.panel.is_marked("N") and not win.run_action.isEnabled()
    assert "too long" in win.panel.error_for("N") or "not an integer" in win.panel.error_for("N")
    assert win.run() is None  # refused in the window, nothing sent
    _vector_add_passes(win)


def test_a_file_whose_import_never_returns_can_be_cancelled_and_a_queued_run_then_starts(win, tmp_path):
    path = write(tmp_path, "spec", "hang")
    _vector_add_passes(win)
    # 1. the timeout: the load is stopped after 3 s and the run queued behind it runs
    n = len(win.throughput.results())
    win.open_kernel_file(str(path))
    wait_until(lambda: win.stage_text().startswith("loading"), 10, "loading …")
    assert win.cancel_action.isEnabled()
    assert win.run() is not None  # queued behind the load
    wait_until(lambda: win.banner.topic() == "file", 30, "the load's timeout")
    assert "did not finish within 3 s" in win.banner.text() and "spec_hang.py" in win.banner.text()
    wait_until(lambda: len(win.throughput.results()) == n + 1, 60, "the queued run")
    assert win.throughput.results()[-1].check.passed
    # 2. Cancel: the load stops at once, the window says so, Run works
    win.open_kernel_file(str(path))
    wait_until(lambda: win.stage_text().startswith("loading"), 10, "loading …")
    QTest.qWait(300)
    assert win.cancel_action.isEnabled()
    win.cancel()
    wait_until(lambda: win.banner.topic() == "file" and "cancelled" in win.banner.text(), 15, "the cancel")
    assert "spec_hang.py" in win.banner.text()
    _vector_add_passes(win)
    # the hung file is not loaded again into each fresh worker (no restart loop)
    restarts = win.worker.client.restarts
    QTest.qWait(1500)
    assert win.worker.client.restarts == restarts


def test_exporting_the_history_to_an_unwritable_place_is_a_message(win, tmp_path):
    _vector_add_passes(win)  # at least one run to export, whichever tests ran before
    blocker = tmp_path / "a_file"
    blocker.write_text("x")
    for fmt in ("csv", "json"):
        assert win.export_history(str(blocker / f"runs.{fmt}"), fmt) == 0
        assert win.banner.topic() == "export" and "Could not export the history" in win.banner.text()
    assert win.export_history(str(tmp_path / "runs.csv"), "csv") >= 1  # and a good place works


@pytest.mark.parametrize("kind", ["spec", "script"])
def test_a_file_that_exits_at_import_is_a_message_and_run_works(win, tmp_path, kind):
    path = write(tmp_path, kind, "exit")
    win.open_kernel_file(str(path))
    wait_until(lambda: win.banner.topic() == "file", 60, "the load error")
    text = win.banner.text()
    assert "Could not load the kernel file" in text and "exited with status 3" in text and path.name in text
    _vector_add_passes(win)


def test_a_file_that_forks_at_import_leaves_no_process_after_the_window_closes(win, tmp_path, tag):
    path = write(tmp_path, "spec", "fork_sleep", name="forking_add")
    win.open_kernel_file(str(path))
    wait_until(lambda: "forking_add" in win.session.infos and not win._busy_kinds(), 60, "the forking file")
    assert win.banner.topic() == "file" and "process(es)" in win.banner.text() and "stopped" in win.banner.text()
    win.select_kernel("forking_add")
    win.panel.set_values({"N": 1000, "BLOCK_SIZE": 128})
    n = len(win.throughput.results())
    win.run()
    wait_until(lambda: len(win.throughput.results()) == n + 1, 60, "its run")
    assert win.throughput.results()[-1].check.passed
    win.close()
    wait_until(lambda: not tagged(tag), 15, "every worker and forked child to end")


# ---------------------------------------------------------------------------------------------
# start-up: folders and files that are locked, read-only, missing or cannot be created


def _window_without_worker(qapp) -> MainWindow:
    w = MainWindow(autostart=False)
    w.show()
    QTest.qWait(50)
    return w


def test_config_and_data_folders_that_cannot_be_created_are_a_banner_not_a_traceback(qapp, tmp_path,
                                                                                     monkeypatch):
    blocker = tmp_path / "a_file"
    blocker.write_text("a file where a folder should be")
    monkeypatch.setenv("TILESCOPE_CONFIG_DIR", str(blocker / "config"))
    monkeypatch.setenv("TILESCOPE_DATA_DIR", str(blocker / "data"))
    w = _window_without_worker(qapp)
    try:
        text = w.banner.text()
        assert w.banner.topic() == "startup"
        assert "settings" in text and "cannot be saved" in text and str(blocker / "config") in text
        assert "run history" in text and "in memory" in text
        assert w.history.path is None
    finally:
        w.close()


def test_a_read_only_config_folder_is_said_in_the_window(qapp, tmp_path, monkeypatch):
    cfg = tmp_path / "config"
    cfg.mkdir()
    Settings(path=cfg / "settings.json").save()
    cfg.chmod(0o555)
    real = settings_mod.tempfile.mkstemp

    def refuse(*a, **k):  # root ignores the mode bits: refuse as the file system would
        if str(k.get("dir", "")).startswith(str(cfg)):
            raise PermissionError(13, "Permission denied", str(cfg))
        return real(*a, **k)

    monkeypatch.setattr(settings_mod.tempfile, "mkstemp", refuse)
    monkeypatch.setenv("TILESCOPE_CONFIG_DIR", str(cfg))
    try:
        w = _window_without_worker(qapp)
        try:
            assert "cannot be saved" in w.banner.text() and "Permission denied" in w.banner.text()
        finally:
            w.close()
        assert Settings.load(cfg / "settings.json").warning is None  # the file itself is fine
    finally:
        cfg.chmod(0o755)


def _history_with_runs(db: Path, n: int) -> None:
    h = History.open(db)
    for i in range(n):
        h.add(RunResult(RunRequest("vector_add"), "vector_add", {"i": i}, "interpreter", "CPU"))
    h.close()


def test_a_history_locked_by_another_process_is_not_called_damaged(qapp, tmp_path, monkeypatch):
    data = tmp_path / "data"
    data.mkdir()
    db = data / "history.db"
    _history_with_runs(db, 3)
    monkeypatch.setenv("TILESCOPE_DATA_DIR", str(data))
    locker = hold_lock(db, 30)
    try:
        w = _window_without_worker(qapp)
        try:
            text = w.banner.text()
            assert "locked" in text and "damaged" not in text, text
            assert not list(data.glob("history.db.corrupt-*"))  # never moved
        finally:
            w.close()
    finally:
        locker.kill()
        locker.wait()
    h = History.open(db)
    try:
        assert h.warning is None and h.count() == 3  # the earlier runs are all there
    finally:
        h.close()
