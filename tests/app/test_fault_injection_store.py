"""Fault injection on the files Tilescope keeps: the settings and the run history, locked by
another process, read-only, missing, corrupt, or in a folder that cannot be created. No Qt, no
worker.

Each case: ``Settings.load()`` / ``History.open()`` never raise, ``.warning`` says what happened
in one sentence, a healthy file is never moved or changed, and what can still be done works
(a run is stored, the settings are used).

If these fail: a history another Tilescope holds is moved aside as "damaged" and the learner's
earlier runs vanish, or a folder that cannot be created stops the app with a traceback.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from hostile import hold_lock

from app import paths
from app.history import History
from app.settings import Settings
from kernels.data.results import RunRequest, RunResult


def _result(i: int) -> RunResult:
    return RunResult(RunRequest("vector_add"), "vector_add", {"i": i}, "interpreter", "CPU")


def _history_with_runs(db: Path, n: int) -> None:
    h = History.open(db)
    for i in range(n):
        h.add(_result(i))
    h.close()


# ---------------------------------------------------------------------------------------------
# the history


def test_a_locked_history_is_waited_for_then_said_locked_and_never_moved(tmp_path):
    db = tmp_path / "history.db"
    _history_with_runs(db, 3)
    before = db.read_bytes()
    locker = hold_lock(db, 60)
    try:
        t0 = time.monotonic()
        h = History.open(db, lock_wait_s=1.0)
        took = time.monotonic() - t0
        try:
            assert h.warning is not None and "locked" in h.warning and "damaged" not in h.warning
            assert "left untouched" in h.warning
            assert 0.9 <= took < 10
            h.add(_result(99))  # this session's runs still go somewhere
            assert any(r["values"].get("i") == 99 for r in h.list())
        finally:
            h.close()
    finally:
        locker.kill()
        locker.wait()
    assert not list(tmp_path.glob("history.db.corrupt-*")) and db.read_bytes()[:100] == before[:100]
    h = History.open(db)
    try:  # the run made while it was locked is kept (it waited in the journal), not lost
        assert h.warning is None and h.count() == 4
    finally:
        h.close()


def test_a_history_locked_briefly_opens_normally(tmp_path):
    db = tmp_path / "history.db"
    _history_with_runs(db, 2)
    locker = hold_lock(db, 0.7)
    try:
        h = History.open(db, lock_wait_s=10.0)
        try:
            assert h.warning is None and h.path == db and h.count() == 2
        finally:
            h.close()
    finally:
        locker.wait()


def test_a_history_being_written_by_another_process_is_readable_at_once(tmp_path):
    # a writer's lock (not exclusive) leaves the file readable: the history opens with its runs
    db = tmp_path / "history.db"
    _history_with_runs(db, 4)
    locker = hold_lock(db, 30, mode="immediate")
    try:
        h = History.open(db, lock_wait_s=0.5)
        try:
            assert h.count() == 4
            h.add(_result(5))
        finally:
            h.close()
    finally:
        locker.kill()
        locker.wait()


def test_a_read_only_history_shows_its_runs_and_keeps_new_ones_in_memory(tmp_path, monkeypatch):
    db = tmp_path / "history.db"
    _history_with_runs(db, 3)
    before = db.read_bytes()
    import app.history as history_mod

    real = history_mod._connect

    def read_only_file(target, *a, **k):  # what a read-only file system answers (even root)
        if str(target) == str(db):
            raise history_mod.sqlite3.OperationalError("attempt to write a readonly database")
        return real(target, *a, **k)

    monkeypatch.setattr(history_mod, "_connect", read_only_file)
    h = History.open(db)
    try:
        assert h.warning is not None and "read" in h.warning and "in memory" in h.warning
        assert h.count() == 3  # the earlier runs are shown
        h.add(_result(7))
        assert h.count() == 4
    finally:
        h.close()
    assert db.read_bytes() == before and not list(tmp_path.glob("history.db.corrupt-*"))


def test_a_history_folder_that_cannot_be_created_keeps_runs_in_memory(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    monkeypatch.setenv("TILESCOPE_DATA_DIR", str(blocker / "data"))
    h = History.open()
    try:
        assert h.path is None and "in memory" in h.warning and str(blocker / "data") in h.warning
        h.add(_result(1))
        assert h.count() == 1
    finally:
        h.close()


@pytest.mark.parametrize("content", [b"", b"SQLite format 3\x00" + b"\x00" * 50, b"\x00" * 4096,
                                     b"not a database at all\n" * 10])
def test_a_corrupt_or_empty_history_is_replaced_and_kept_aside(tmp_path, content):
    db = tmp_path / "history.db"
    db.write_bytes(content)
    h = History.open(db)
    try:
        h.add(_result(1))
        assert h.count() == 1
        if content:
            assert h.warning and "damaged" in h.warning
            assert [p.read_bytes() for p in tmp_path.glob("history.db.corrupt-*")] == [content]
    finally:
        h.close()


# ---------------------------------------------------------------------------------------------
# the settings


def test_settings_in_a_folder_that_cannot_be_created_load_defaults_and_say_saving_fails(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    monkeypatch.setenv("TILESCOPE_CONFIG_DIR", str(blocker / "config"))
    s = Settings.load()  # was: NotADirectoryError from mkdir at start-up
    assert s.warning is None and s.timeout_s > 0
    problem = s.save_problem()
    assert problem and "cannot be saved" in problem and str(blocker / "config") in problem
    with pytest.raises(OSError):
        s.save()


def test_settings_that_cannot_be_saved_keep_the_old_file(tmp_path, monkeypatch):
    p = tmp_path / "settings.json"
    Settings(path=p, timeout_s=42).save()
    before = p.read_bytes()
    import app.settings as settings_mod

    def full(*_a, **_k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(settings_mod.os, "fsync", full)
    s = Settings.load(p)
    s.timeout_s = 7
    with pytest.raises(OSError):
        s.save()
    assert p.read_bytes() == before and not [q for q in tmp_path.iterdir() if q.name != "settings.json"]


@pytest.mark.parametrize("text", ["", "{", "[]", "null", '{"timeout_s": "NaN"}', '{"timeout_s": 1e999}',
                                  '{"values": {"vector_add": 5}}', '{"backend": "tpu"}', "\x00\x01",
                                  '{"timeout_s": -1, "live": "yes"}'])
def test_corrupt_settings_fall_back_to_defaults_field_by_field(tmp_path, text):
    p = tmp_path / "settings.json"
    p.write_text(text)
    s = Settings.load(p)
    assert s.timeout_s > 0 and s.backend in ("auto", "gpu", "interpreter") and isinstance(s.values, dict)
    if text.strip():
        assert s.warning


def test_paths_never_create_folders_when_asked_not_to(tmp_path, monkeypatch):
    monkeypatch.setenv("TILESCOPE_CONFIG_DIR", str(tmp_path / "c"))
    monkeypatch.setenv("TILESCOPE_DATA_DIR", str(tmp_path / "d"))
    assert paths.settings_path(create_dir=False) == tmp_path / "c" / "settings.json"
    assert paths.history_path(create_dir=False) == tmp_path / "d" / "history.db"
    assert not (tmp_path / "c").exists() and not (tmp_path / "d").exists()


def test_missing_settings_and_history_start_fresh_without_a_word(tmp_path, monkeypatch):
    monkeypatch.setenv("TILESCOPE_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("TILESCOPE_DATA_DIR", str(tmp_path / "data"))
    s = Settings.load()
    assert s.warning is None and s.save_problem() is None and s.values == {}
    h = History.open()
    try:
        assert h.warning is None and h.count() == 0 and h.path == tmp_path / "data" / "history.db"
        h.add(_result(1))
    finally:
        h.close()
    s.save()
    assert Settings.load().warning is None and History.open().count() == 1
