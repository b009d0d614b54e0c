"""The file side of the run history: checking, copying and journalling ``history.db``.

``app.history.History`` keeps every run in an in-memory SQLite database (reads never touch the
disk, so a locked file or a slow disk never stalls the window) and hands new runs to a
``Writer`` thread that puts them in the file. A run the writer cannot put there now (another
process holds the lock, the disk is full, the file is read-only) stays queued in memory and in a
``Journal`` beside the database (``history.db.pending-<pid>-<n>``, one JSON object per line), and
is written when the file takes it; a journal whose process died is replayed at the next start.
Each run carries a ``uid``, so a run written just before a kill is never written twice.

Nothing here opens the database file with ``open()``: closing any descriptor of a file drops
every POSIX lock this process holds on it, including those of a live SQLite connection in the
same process, and another process could then write over it (the file was left "not a
database"). Only SQLite (which shares descriptors between its connections) touches the file; a
locked file is copied by a child process, whose descriptors are its own.

No torch, no triton, no Qt.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["Journal", "Writer", "copy_locked", "damage", "describe", "hold", "is_full", "is_lock", "move_aside",
           "read_journals"]


def is_lock(e: BaseException) -> bool:
    """SQLITE_BUSY / SQLITE_LOCKED: another connection holds the file — not damage."""
    code = getattr(e, "sqlite_errorcode", None)
    return code in (5, 6) or "locked" in str(e).lower() or "busy" in str(e).lower()


def is_full(e: BaseException, p: Path | None = None) -> bool:
    """The disk (or the process's file-size limit) has no room. SQLite reports a write the
    file-size limit refused as a plain "disk I/O error": then the free space and the limit decide."""
    import errno
    import resource

    if isinstance(e, OSError) and e.errno in (errno.ENOSPC, errno.EFBIG, errno.EDQUOT):
        return True
    code = getattr(e, "sqlite_errorcode", None)
    if code == 13 or "full" in str(e).lower():
        return True
    if p is None or not isinstance(e, sqlite3.Error) or "i/o error" not in str(e).lower():
        return False
    try:
        st = os.statvfs(p.parent)
        if st.f_bavail * st.f_frsize < (64 << 20):
            return True
        return resource.getrlimit(resource.RLIMIT_FSIZE)[0] != resource.RLIM_INFINITY
    except (OSError, ValueError):
        return False


def describe(e: BaseException, p: Path) -> str:
    """Why ``p`` cannot be written now, in the words of the banner."""
    if is_lock(e):
        return f"the history file {p} is locked by another process (another Tilescope, or a backup tool?)"
    if is_full(e, p):
        return f"the disk holding {p.parent} is full (or a file-size limit was reached)"
    return f"the history file {p} cannot be written ({type(e).__name__}: {e})"


_live: dict[str, int] = {}  # database files this process has History connections to
_live_journals: set[Path] = set()  # journals of this process's open Histories
_live_lock = threading.Lock()


def hold(p: Path, n: int = 1) -> None:
    """A History of this process uses ``p`` (``n=-1``: no longer)."""
    key = str(p.resolve())
    with _live_lock:
        _live[key] = _live.get(key, 0) + n
        if _live[key] <= 0:
            del _live[key]


def _header(p: Path) -> bytes | None:
    """The file's first 16 bytes, or None where reading them is not safe: a descriptor of the
    file closed while this process has a live SQLite connection to it drops that connection's
    locks (SQLite then tells the damage itself)."""
    with _live_lock:
        if str(p.resolve()) in _live:
            return None
    with open(p, "rb") as f:
        return f.read(16)


def damage(p: Path) -> str | None:
    """Why the file at p is not a usable database, or None (also for a missing or empty file).
    Raises ``sqlite3.OperationalError`` for a locked or unreadable file (not damage)."""
    if not p.exists() or p.stat().st_size == 0:
        return None
    head = _header(p)
    if head is not None and head != b"SQLite format 3\x00":
        return "not an SQLite database"
    try:
        # read-only: a check needs no write access (a read-only file is not damage either)
        conn = sqlite3.connect(f"{p.resolve().as_uri()}?mode=ro", uri=True, timeout=0.5)
        try:
            # every page and b-tree read back (not the index-to-table cross-check of
            # integrity_check: a quarter of its time, on the GUI thread at start-up)
            rows = conn.execute("PRAGMA quick_check").fetchall()
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        finally:
            conn.close()
    except sqlite3.OperationalError as e:
        if is_lock(e) or "unable to open" in str(e):
            raise  # locked, or not readable here: History.open decides, never moving it
        return f"SQLite: {e}"
    except sqlite3.DatabaseError as e:
        msg = str(e)
        return "not an SQLite database" if "not a database" in msg else f"SQLite: {msg}"
    if not rows or rows[0][0] != "ok":
        return "integrity check failed: " + "; ".join(str(r[0]) for r in rows[:3])
    if tables and "runs" not in tables and not tables <= {"sqlite_sequence"}:
        return "it is an SQLite file but holds no run history"
    return None


def move_aside(p: Path) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    backup = p.with_name(f"{p.name}.corrupt-{stamp}")
    k = 1
    while backup.exists():
        backup = p.with_name(f"{p.name}.corrupt-{stamp}-{k}")
        k += 1
    os.replace(p, backup)
    # a stale write-ahead log left next to a new database would be replayed into it
    for suffix in ("-wal", "-shm", "-journal"):
        side = p.with_name(p.name + suffix)
        if side.exists():
            os.replace(side, backup.with_name(backup.name + suffix))
    return backup


_COPY = """
import shutil, sys
src, dst = sys.argv[1], sys.argv[2]
shutil.copyfile(src, dst)
try:
    shutil.copyfile(src + "-wal", dst + "-wal")
except FileNotFoundError:
    pass
"""


def copy_locked(p: Path, timeout_s: float = 60.0) -> Path | None:
    """A copy of ``p`` and its write-ahead log in a new temporary folder, made by a child process
    (this process never opens the file itself: see the module's note); None if it failed. The
    copy is opened normally, so the runs still in the log (a session killed before it
    checkpointed) are read too — an ``immutable`` read of the file alone misses them."""
    folder = Path(tempfile.mkdtemp(prefix="tilescope-history-"))
    dst = folder / "history.db"
    try:
        subprocess.run([sys.executable, "-c", _COPY, str(p), str(dst)], check=True, timeout=timeout_s,
                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return None
    return dst


# ---------------------------------------------------------------------------------------------
# the journal


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


_SEQ = iter(range(1, 1 << 62))


class Journal:
    """Runs not yet in the database, one JSON object per line, in a file owned by this process.

    Each append is one ``write`` that starts with a newline, so a line cut by a full disk or a
    kill never glues onto the next one; unreadable lines are skipped when read."""

    def __init__(self, db: Path) -> None:
        self.path = db.with_name(f"{db.name}.pending-{os.getpid()}-{next(_SEQ)}")
        self._lock = threading.Lock()
        with _live_lock:
            _live_journals.add(self.path)

    def release(self) -> None:
        """Its History closed: a later History of this process may replay what is left."""
        with _live_lock:
            _live_journals.discard(self.path)

    def append(self, recs: list[dict[str, Any]]) -> bool:
        """Add ``recs``; False when the disk did not take them (they stay in memory only)."""
        data = "".join("\n" + json.dumps(r, allow_nan=False, separators=(",", ":")) for r in recs).encode()
        with self._lock:
            try:
                fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
                try:
                    n = os.write(fd, data)
                finally:
                    os.close(fd)
            except OSError:
                return False
            return n == len(data)

    def rewrite(self, recs: list[dict[str, Any]]) -> bool:
        """Keep exactly ``recs`` (the runs still pending); removes the file when none are."""
        with self._lock:
            try:
                if not recs:
                    self.path.unlink(missing_ok=True)
                    return True
                tmp = self.path.with_name(self.path.name + ".tmp")
                with open(tmp, "w", encoding="utf-8") as f:
                    for r in recs:
                        f.write("\n" + json.dumps(r, allow_nan=False, separators=(",", ":")))
                os.replace(tmp, self.path)
                return True
            except OSError:
                return False


def read_journals(db: Path) -> tuple[list[dict[str, Any]], list[Path]]:
    """The runs in journals beside ``db`` left by processes that are gone (a crash, a kill, a
    close with the file still locked), oldest file first; and those files, to remove once the
    runs are safe again."""
    recs: list[dict[str, Any]] = []
    files: list[Path] = []
    try:
        found = sorted(db.parent.glob(f"{db.name}.pending-*"), key=lambda q: q.stat().st_mtime)
    except OSError:
        return recs, files
    for q in found:
        bits = q.name[len(db.name) + len(".pending-"):].split("-")
        try:
            pid = int(bits[0])
        except (ValueError, IndexError):
            continue
        with _live_lock:
            ours_live = q in _live_journals
        if q.name.endswith(".tmp") or ours_live or (pid != os.getpid() and _pid_alive(pid)):
            continue  # a live History's queue is its own
        try:
            text = q.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for line in text.split("\n"):
            try:
                r = json.loads(line) if line.strip() else None
            except ValueError:
                continue  # a line cut by a kill or a full disk
            if isinstance(r, dict) and isinstance(r.get("uid"), str):
                recs.append(r)
        files.append(q)
    return recs, files


# ---------------------------------------------------------------------------------------------
# the writer thread


class Writer(threading.Thread):
    """Puts queued runs into the database file, retrying while it is locked, full or read-only.

    ``take()`` gives the batch to write (a list of row dicts with ``uid``, and deletions);
    ``write(conn, batch)`` writes it in one transaction; ``done(batch, error)`` is told how it
    went. ``connect()`` opens the file (again after a failure)."""

    def __init__(self, connect: Callable[[], sqlite3.Connection], take: Callable[[], Any],
                 write: Callable[[sqlite3.Connection, Any], None],
                 done: Callable[[Any, BaseException | None], None], conn: sqlite3.Connection | None = None) -> None:
        super().__init__(name="tilescope-history-writer", daemon=True)
        self._connect, self._take, self._write, self._done = connect, take, write, done
        self._conn = conn
        self._wake = threading.Event()
        self._stopping = False
        self._retry_s = 0.0

    def nudge(self) -> None:
        self._wake.set()

    def stop(self) -> None:
        self._stopping = True
        self._wake.set()

    def run(self) -> None:
        while True:
            self._wake.wait(self._retry_s or None)
            self._wake.clear()
            if self._stopping:
                break
            self.write_once()
        if self._conn is not None:
            try:
                self._conn.close()
            except sqlite3.Error:
                pass
            self._conn = None

    def write_once(self) -> bool:
        """One attempt at the queue; True when it is empty afterwards."""
        batch = self._take()
        if not batch:
            self._retry_s = 0.0
            return True
        try:
            if self._conn is None:
                self._conn = self._connect()
            self._write(self._conn, batch)
        except (sqlite3.Error, OSError) as e:
            if not is_lock(e) and self._conn is not None:
                try:  # a full disk or an I/O error: start from a fresh connection next time
                    self._conn.close()
                except sqlite3.Error:
                    pass
                self._conn = None
            self._retry_s = min(2.0, max(0.1, self._retry_s * 2))
            self._done(batch, e)
            return False
        self._retry_s = 0.0
        self._done(batch, None)
        self._wake.set()  # more may have come while this batch was written
        return False
