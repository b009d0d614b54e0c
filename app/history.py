"""The run history: every run's configuration, metrics and check in a local SQLite file.

``History.open()`` opens (or creates) ``history.db`` in the data directory (see ``app.paths``).
A file that is not SQLite or fails ``PRAGMA quick_check`` is moved aside to
``history.db.corrupt-<timestamp>`` (with its ``-wal``/``-shm`` companions), a fresh history is
started, and ``History.warning`` says so for the UI to show.

Reads never touch the file: at open its runs are read into an in-memory database, and every
new run goes there first (``add`` returns at once, never waiting on the disk or a lock). A
writer thread puts new runs into the file; a run it cannot put there now (another process holds
the lock, the disk is full, the file is read-only) stays queued in memory and in a journal beside
the database when the disk allows, ``save_problem()`` says so for a banner, and it is written as
soon as the file takes it — or at the next start, from the journal, if Tilescope was closed or
killed first (``app.history_store``). Each run has a ``uid``: none is written twice.

A lock is not damage: a database another process holds is waited for (``lock_wait_s``), then
left untouched; its runs are read as far as can be (a copy made by a child process, write-ahead
log included) and the warning says so. A healthy file is never moved. If the directory cannot be
created the history lives in memory for this session, with a warning.

The writer puts each batch in one transaction (WAL journal); ``add_many`` stores a batch (a
sweep) all-or-nothing.

Non-finite floats (an ``inf`` max error where elements were never written) are stored as the
strings ``"inf"``, ``"-inf"``, ``"nan"`` so that the JSON columns and exports stay standard JSON.

No torch, no triton, no Qt: the GUI process uses this.
"""

from __future__ import annotations

import atexit
import csv
import io
import json
import math
import os
import shutil
import sqlite3
import sys
import threading
import time
import uuid
import weakref
from collections.abc import Iterable, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from kernels.data.results import RunResult

from . import history_store as store
from .paths import history_path

__all__ = ["CSV_COLUMNS", "History", "record_from_result"]

_SCHEMA_VERSION = 1
#: how long ``History.open`` waits for a database another process has locked
LOCK_WAIT_S = 2.0

_COLUMNS = (
    ("time", "REAL NOT NULL"),  # seconds since the epoch (UTC)
    ("kernel", "TEXT NOT NULL"),
    ("origin", "TEXT NOT NULL DEFAULT 'catalog'"),
    ("backend", "TEXT NOT NULL DEFAULT ''"),
    ("device", "TEXT NOT NULL DEFAULT ''"),
    ("grid", "TEXT NOT NULL DEFAULT '[]'"),  # JSON list
    ("vals", "TEXT NOT NULL DEFAULT '{}'"),  # JSON: parameter values ("values" is an SQL keyword)
    ("metrics", "TEXT NOT NULL DEFAULT '{}'"),  # JSON
    ("chk", "TEXT"),  # JSON or NULL ("check" is an SQL keyword)
    ("notes", "TEXT NOT NULL DEFAULT '[]'"),  # JSON list of strings
    ("error", "TEXT"),  # JSON {kind, message, field} or NULL
    ("triton_version", "TEXT NOT NULL DEFAULT ''"),
    ("torch_version", "TEXT NOT NULL DEFAULT ''"),
    ("wall_s", "REAL NOT NULL DEFAULT 0"),
)

#: columns of ``export_csv``, in order: nested values are flattened with a prefix
CSV_COLUMNS = (
    "id", "time", "kernel", "origin", "backend", "device", "grid", "values",
    "ms", "p20_ms", "p80_ms", "gbps", "tflops", "torch_ms", "ratio_vs_torch", "timing",
    "passed", "max_abs_err", "rel_err", "n_mismatch", "n_unwritten", "n_elements",
    "notes", "error", "triton_version", "torch_version",
)


# ---------------------------------------------------------------------------------------------
# turning a RunResult into plain JSON


def _plain(x: Any) -> Any:
    """JSON-safe copy: numpy scalars/arrays to Python, non-finite floats to strings, tuples to lists."""
    if x is None or isinstance(x, (bool, str)):
        return x
    if isinstance(x, int):
        return int(x)
    if isinstance(x, float):
        if math.isfinite(x):
            return x
        return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")
    if isinstance(x, dict):
        return {str(k): _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple, set, frozenset)):
        return [_plain(v) for v in x]
    item = getattr(x, "item", None)  # numpy scalar (and 0-d array)
    if callable(item) and getattr(x, "ndim", 0) == 0:
        try:
            return _plain(item())
        except (TypeError, ValueError):
            pass
    tolist = getattr(x, "tolist", None)
    if callable(tolist):
        return _plain(tolist())
    return str(x)  # a dtype object, a path: readable beats failing the whole row


def _metrics(r: RunResult) -> dict[str, Any]:
    m: dict[str, Any] = {}
    t = r.timing
    if t is not None:
        m.update(ms=t.median_ms, p20_ms=t.p20_ms, p80_ms=t.p80_ms, n_reps=t.n_reps, timing=t.method,
                 is_interpreter=t.is_interpreter)
    mm = r.metrics
    if mm is not None:
        m.update(bytes_moved=mm.bytes_moved, flops=mm.flops, gbps=mm.gbps, tflops=mm.tflops,
                 torch_gbps=mm.torch_gbps, torch_tflops=mm.torch_tflops, ratio_vs_torch=mm.ratio_vs_torch,
                 pct_peak_bw=mm.pct_peak_bw, pct_peak_flops=mm.pct_peak_flops)
        if mm.torch_timing is not None:
            m["torch_ms"] = mm.torch_timing.median_ms
        m["peak_source"] = getattr(mm, "peak_source", "") or None
    c = getattr(r, "clocks", None)  # the GPU's clocks while timed (kernels.run.timing), or why unknown
    if c is not None:
        m["clocks"] = {k: getattr(c, k) for k in ("source", "sm_mhz", "sm_max_mhz", "mem_mhz", "temp_c", "power_w",
                                                   "reasons", "warm_s", "steady", "throttled", "note")}
    return {k: v for k, v in m.items() if v is not None}


def _check(r: RunResult) -> dict[str, Any] | None:
    c = r.check
    if c is None:
        return None
    d = dict(passed=c.passed, output=c.output, dtype=c.dtype, max_abs_err=c.max_abs_err, rel_err=c.rel_err,
             atol=c.atol, rtol=c.rtol, n_elements=c.n_elements, n_mismatch=c.n_mismatch,
             n_unwritten=c.n_unwritten, n_nan=c.n_nan, n_inf=c.n_inf, reason=c.reason)
    if c.others:
        d["others"] = [dict(output=o.output, passed=o.passed, max_abs_err=o.max_abs_err, rel_err=o.rel_err,
                            n_mismatch=o.n_mismatch, n_unwritten=o.n_unwritten) for o in c.others]
    return d


def record_from_result(r: RunResult, when: float | None = None) -> dict[str, Any]:
    """The history row for a result, as plain JSON-ready values (keys as ``History.get`` returns)."""
    origin = "catalog"
    req = getattr(r, "request", None)
    if req is not None and getattr(req, "user_file", None):
        origin = str(req.user_file)
    err = None
    if r.error is not None:
        err = dict(kind=r.error.kind, message=r.error.message, field=r.error.field)
    return _plain(dict(
        time=time.time() if when is None else when, kernel=r.kernel, origin=origin, backend=r.backend,
        device=r.device, grid=list(r.grid), values=dict(r.values), metrics=_metrics(r), check=_check(r),
        notes=list(r.notes), error=err, triton_version=r.triton_version, torch_version=r.torch_version,
        wall_s=r.wall_s,
    ))


def _iso(t: float) -> str:
    return datetime.fromtimestamp(t, tz=timezone.utc).astimezone().isoformat(timespec="seconds")


# ---------------------------------------------------------------------------------------------


class History:
    """The run history. Thread-safe: every read is served from memory; the file is written by a
    background thread (``app.history_store.Writer``), so neither ever waits on the disk or on
    another process's lock."""

    def __init__(self, conn: sqlite3.Connection, path: Path | None, warning: str | None = None,
                 file_conn: sqlite3.Connection | None = None) -> None:
        self._conn = conn  # the in-memory database every read and every new run goes to first
        self._lock = threading.RLock()
        self._saved = threading.Condition(self._lock)
        #: the database file, or None when the history lives in memory only
        self.path = path
        #: a message for the user when something went wrong opening the file, else None
        self.warning = warning
        self._pending: dict[str, dict[str, Any]] = {}  # uid -> row, not yet in the file
        self._deletes: list[tuple[str, Any]] = []
        self._unjournalled: set[str] = set()  # pending runs the journal did not take (disk full)
        self._problem: str | None = None  # why the pending runs are not in the file yet
        self._error: BaseException | None = None  # the error that said so
        self._closed = False
        self._journal = store.Journal(path) if path is not None else None
        self._writer: store.Writer | None = None
        if path is not None:
            store.hold(path)
            self._writer = store.Writer(lambda: _connect(path, busy_ms=250), self._take, _write_batch,
                                        self._written, conn=file_conn)
            self._writer.start()
            ref = weakref.ref(self)
            atexit.register(lambda: (h := ref()) is not None and not h._closed and h.flush(2.0))

    # -- opening --------------------------------------------------------------------------------
    @classmethod
    def open(cls, path: str | os.PathLike[str] | None = None, lock_wait_s: float = LOCK_WAIT_S) -> History:
        """Open (or create) the history; never raises for a damaged, locked or unwritable file."""
        p = Path(path) if path is not None else history_path(create_dir=False)
        try:
            p.parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            return cls(_connect(":memory:"), None,
                       f"The run history cannot be kept in {p.parent} ({e.strerror or e}); "
                       "runs of this session are kept in memory only.")
        deadline = time.monotonic() + max(0.0, lock_wait_s)
        warning = None
        while True:
            try:
                reason = store.damage(p)
                if reason is not None:
                    backup = store.move_aside(p)
                    warning = (f"The run history {p} was damaged ({reason}). It was moved to {backup.name} "
                               "and a new, empty history was started.")
                file_conn = _connect(p, busy_ms=250)
                mem = _memory_of(file_conn)
                break
            except sqlite3.OperationalError as e:
                if store.is_lock(e) and time.monotonic() < deadline:
                    time.sleep(0.1)  # another process is writing: it lets go in a moment
                    continue
                return cls._unwritable(p, e, lock_wait_s, warning)
            except (OSError, sqlite3.Error) as e:
                return cls._unwritable(p, e, lock_wait_s, warning)
        h = cls(mem, p, warning, file_conn=file_conn)
        h._replay_journals()
        return h

    @classmethod
    def _unwritable(cls, p: Path, e: Exception, waited: float, warning: str | None) -> History:
        """The file is locked or cannot be written now: leave it as it is, show the runs it holds
        (read into memory) and queue this session's runs for when it can be written."""
        mem, n = _memory_copy(p, locked=store.is_lock(e))
        if store.is_lock(e):
            why = (f"is locked by another process (another Tilescope, or a backup tool?) and stayed locked "
                   f"for {waited:g} s")
        else:
            why = f"cannot be opened for writing ({type(e).__name__}: {e})"
        shown = (f"its {n} earlier run(s) were read and are shown" if n is not None
                 else "its runs cannot be read now either")
        msg = (f"The run history {p} {why}. It was left untouched: {shown}; the runs of this session are kept "
               "in memory (and in a journal beside it when the disk allows) and written to it once it can "
               "be written.")
        h = cls(mem, p, msg if warning is None else f"{warning} {msg}")
        h._problem, h._error = store.describe(e, p), e
        h._replay_journals()
        return h

    def _replay_journals(self) -> None:
        """Runs an earlier session queued and could not write (closed while the file was locked,
        killed): queue them again, each once."""
        if self.path is None:
            return
        recs, files = store.read_journals(self.path)
        if not recs and not files:
            return
        with self._lock:
            have = {r[0] for r in self._conn.execute("SELECT uid FROM runs WHERE uid IS NOT NULL")}
            fresh = [r for r in recs if r["uid"] not in have]
            fresh = list({r["uid"]: r for r in fresh}.values())
            if fresh:
                self._insert_memory(fresh)
        if fresh and not self._journal.append(fresh):
            return  # the disk is full: keep the old journals until these are written
        for q in files:
            q.unlink(missing_ok=True)
        if fresh and self._writer is not None:
            self._writer.nudge()

    @classmethod
    def in_memory(cls) -> History:
        return cls(_connect(":memory:"), None)

    def close(self, timeout_s: float = 10.0) -> None:
        """Write what is queued (waiting up to ``timeout_s`` for a locked or full file), then
        close. Runs still queued stay in the journal and are written at the next start."""
        if self._closed:
            return
        self._closed = True
        if self._writer is not None:
            self.flush(timeout_s)
            self._writer.stop()
            self._writer.join(timeout_s)
            store.hold(self.path, -1)
        with self._lock:
            left = len(self._pending)
            lost = len(self._unjournalled)
            if self._journal is not None:
                if not left:
                    self._journal.rewrite([])
                self._journal.release()
            self._conn.close()
        if lost:
            print(f"tilescope: {lost} run(s) could not be saved: {self._problem}", file=sys.stderr)

    def __enter__(self) -> History:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writing --------------------------------------------------------------------------------
    def add(self, result: RunResult) -> int:
        """Store one run; returns its id. Atomic: the row is there whole, or not at all."""
        return self.add_many([result])[0]

    def add_many(self, results: Iterable[RunResult]) -> list[int]:
        """Store several runs (a sweep's points) in one transaction: all of them, or none. Never
        waits for the file: the runs are in memory (and in the journal) when this returns, and
        the writer thread puts them in the file."""
        rows = [self._row(r) for r in results]
        with self._lock:
            ids = self._insert_memory(rows)
        if self._journal is not None:
            if not self._journal.append(rows):
                with self._lock:
                    self._unjournalled.update(r["uid"] for r in rows)
            self._writer.nudge()
        return ids

    def _insert_memory(self, rows: list[dict[str, Any]]) -> list[int]:
        ids: list[int] = []
        with self._lock, self._conn:  # BEGIN ... COMMIT, or ROLLBACK on any exception
            for row in rows:
                cols = list(row)
                cur = self._conn.execute(
                    f"INSERT INTO runs ({', '.join(cols)}) VALUES ({', '.join('?' for _ in cols)})",
                    [row[c] for c in cols])
                ids.append(int(cur.lastrowid))
        if self.path is not None:
            for row in rows:
                self._pending[row["uid"]] = row
        return ids

    def _row(self, r: RunResult) -> dict[str, Any]:
        rec = record_from_result(r)
        row: dict[str, Any] = {"uid": uuid.uuid4().hex}
        for name, _ in _COLUMNS:
            key = _JSON_KEYS.get(name, name)
            v = rec.get(key)
            if name in _JSON_KEYS:
                v = _dump_opt(v) if name in _NULLABLE_JSON else _dump(v if v is not None else _EMPTY[name])
            row[name] = v
        return row

    def delete(self, ids: Sequence[int]) -> int:
        """Remove runs; returns how many were removed."""
        with self._lock:
            ops = []
            for i in ids:
                got = self._conn.execute("SELECT uid FROM runs WHERE id = ?", (int(i),)).fetchone()
                if got is None:
                    continue
                if got[0] is not None:  # the writer may hold it in a batch now: delete it there too
                    self._pending.pop(got[0], None)
                    self._unjournalled.discard(got[0])
                ops.append(("uid", got[0]) if got[0] is not None else ("id", int(i)))  # older files: no uid
            with self._conn:
                cur = self._conn.executemany("DELETE FROM runs WHERE id = ?", [(int(i),) for i in ids])
            if self.path is not None:
                self._deletes.extend(ops)
        if ops and self._writer is not None:
            self._writer.nudge()
        return cur.rowcount

    # -- the queue of the writer thread -------------------------------------------------------
    def _take(self) -> tuple[list[dict[str, Any]], list[tuple[str, Any]]] | None:
        with self._lock:
            if not self._pending and not self._deletes:
                return None
            return list(self._pending.values()), list(self._deletes)

    def _written(self, batch: tuple[list[dict[str, Any]], list[tuple[str, Any]]], error: BaseException | None) -> None:
        rows, deletes = batch
        with self._lock:
            if error is not None:
                self._problem, self._error = store.describe(error, self.path), error
                missing = [r for r in rows if r["uid"] in self._unjournalled]
                if missing and self._journal.append(missing):  # the disk may have room again
                    self._unjournalled.difference_update(r["uid"] for r in missing)
                return
            for r in rows:
                self._pending.pop(r["uid"], None)
                self._unjournalled.discard(r["uid"])
            del self._deletes[:len(deletes)]
            self._problem = self._error = None
            if self._journal.rewrite(list(self._pending.values())):
                self._unjournalled.clear()
            self._saved.notify_all()

    def flush(self, timeout_s: float = 10.0) -> bool:
        """Wait until every queued run is in the file (True), or ``timeout_s`` passed (False)."""
        if self._writer is None:
            return True
        deadline = time.monotonic() + timeout_s
        with self._lock:
            while self._pending or self._deletes:
                left = deadline - time.monotonic()
                if left <= 0 or not self._writer.is_alive():
                    return False
                self._writer.nudge()
                self._saved.wait(min(left, 0.5))
        return True

    def pending(self) -> int:
        """How many runs are not in the file yet (queued: written when it can be)."""
        with self._lock:
            return len(self._pending)

    def save_state(self) -> dict[str, Any] | None:
        """While runs wait because the file cannot be written: ``n`` (runs waiting), ``reason``
        ("locked", "full" or "other"), ``detail`` (the error), ``memory_only`` (some are in no
        journal: lost if the process ends first); None when nothing waits for that."""
        with self._lock:
            n, error, bare = len(self._pending), self._error, bool(self._unjournalled)
        if not n or error is None:
            return None
        reason = "locked" if store.is_lock(error) else "full" if store.is_full(error, self.path) else "other"
        return dict(n=n, reason=reason, detail=f"{type(error).__name__}: {error}", memory_only=bare)

    def save_problem(self) -> str | None:
        """A banner's sentence while runs wait because the file cannot be written, else None."""
        with self._lock:
            n, problem, bare = len(self._pending), self._problem, len(self._unjournalled)
        if not n or problem is None:
            return None
        where = ("in memory only — they are lost if Tilescope is closed before they are saved"
                 if bare else "in memory and in a journal beside the history")
        return (f"{n} run(s) are not saved yet: {problem}. They are kept {where}, and written as soon as "
                "the file can be written.")

    # -- reading --------------------------------------------------------------------------------
    def list(self, limit: int = 100, kernel: str | None = None) -> list[dict[str, Any]]:
        """Newest first. Each dict: id, time (epoch s), when (local ISO), kernel, origin, backend,
        device, grid, values, metrics, check (or None), notes, error (or None), versions, wall_s."""
        sql = "SELECT * FROM runs"
        args: list[Any] = []
        if kernel is not None:
            sql += " WHERE kernel = ?"
            args.append(kernel)
        sql += " ORDER BY id DESC"
        if limit is not None and limit >= 0:
            sql += " LIMIT ?"
            args.append(int(limit))
        with self._lock:
            rows = self._conn.execute(sql, args).fetchall()
        return [_to_dict(row) for row in rows]

    def get(self, id: int) -> dict[str, Any] | None:
        with self._lock:
            row = self._conn.execute("SELECT * FROM runs WHERE id = ?", (int(id),)).fetchone()
        return None if row is None else _to_dict(row)

    def count(self) -> int:
        with self._lock:
            return int(self._conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0])

    def kernels(self) -> list[str]:
        with self._lock:
            return [r[0] for r in self._conn.execute("SELECT DISTINCT kernel FROM runs ORDER BY kernel")]

    def _select(self, ids: Sequence[int] | None) -> list[dict[str, Any]]:
        if ids is None:
            with self._lock:
                rows = self._conn.execute("SELECT * FROM runs ORDER BY id").fetchall()
            return [_to_dict(r) for r in rows]
        out = []
        for i in ids:
            d = self.get(i)
            if d is not None:
                out.append(d)
        return out

    # -- export ---------------------------------------------------------------------------------
    def export_json(self, path: str | os.PathLike[str], ids: Sequence[int] | None = None) -> int:
        """Write the runs (all, oldest first, or ``ids`` in that order) as a JSON list; returns the count."""
        rows = self._select(ids)
        _atomic_write(Path(path), json.dumps(rows, indent=1, allow_nan=False) + "\n")
        return len(rows)

    def export_csv(self, path: str | os.PathLike[str], ids: Sequence[int] | None = None) -> int:
        """Write the runs as CSV (columns ``CSV_COLUMNS``; values as ``k=v;k=v``); returns the count."""
        rows = self._select(ids)
        buf = io.StringIO()
        w = csv.writer(buf)
        w.writerow(CSV_COLUMNS)
        for d in rows:
            m, c, e = d["metrics"], d["check"] or {}, d["error"] or {}
            flat = dict(
                id=d["id"], time=d["when"], kernel=d["kernel"], origin=d["origin"], backend=d["backend"],
                device=d["device"], grid="x".join(str(g) for g in d["grid"]),
                values=";".join(f"{k}={v}" for k, v in d["values"].items()),
                ms=m.get("ms"), p20_ms=m.get("p20_ms"), p80_ms=m.get("p80_ms"), gbps=m.get("gbps"),
                tflops=m.get("tflops"), torch_ms=m.get("torch_ms"), ratio_vs_torch=m.get("ratio_vs_torch"),
                timing=m.get("timing"), passed=c.get("passed"), max_abs_err=c.get("max_abs_err"),
                rel_err=c.get("rel_err"), n_mismatch=c.get("n_mismatch"), n_unwritten=c.get("n_unwritten"),
                n_elements=c.get("n_elements"), notes=" | ".join(d["notes"]),
                error=f"{e['kind']}: {e['message']}" if e else "",
                triton_version=d["triton_version"], torch_version=d["torch_version"],
            )
            w.writerow(["" if flat[k] is None else flat[k] for k in CSV_COLUMNS])
        _atomic_write(Path(path), buf.getvalue())
        return len(rows)


# ---------------------------------------------------------------------------------------------
# helpers

_INSERT = (
    f"INSERT INTO runs ({', '.join(name for name, _ in _COLUMNS)}) "
    f"VALUES ({', '.join('?' for _ in _COLUMNS)})"
)


_JSON_KEYS = {"grid": "grid", "vals": "values", "metrics": "metrics", "chk": "check", "notes": "notes",
              "error": "error"}
_NULLABLE_JSON = {"chk", "error"}
_EMPTY: dict[str, Any] = {"grid": [], "vals": {}, "metrics": {}, "notes": []}


def _dump(x: Any) -> str:
    return json.dumps(x, allow_nan=False, separators=(",", ":"))


def _dump_opt(x: Any) -> str | None:
    return None if x is None else _dump(x)


def _to_dict(row: sqlite3.Row) -> dict[str, Any]:
    d = dict(row)
    return dict(
        id=d["id"], time=d["time"], when=_iso(d["time"]), kernel=d["kernel"], origin=d["origin"],
        backend=d["backend"], device=d["device"], grid=json.loads(d["grid"]), values=json.loads(d["vals"]),
        metrics=json.loads(d["metrics"]), check=json.loads(d["chk"]) if d["chk"] else None,
        notes=json.loads(d["notes"]), error=json.loads(d["error"]) if d["error"] else None,
        triton_version=d["triton_version"], torch_version=d["torch_version"], wall_s=d["wall_s"],
    )


def _connect(target: Path | str, busy_ms: int = 5000) -> sqlite3.Connection:
    # check_same_thread=False: made by History.open, then used by the writer thread alone
    conn = sqlite3.connect(str(target), timeout=1.0, check_same_thread=False)
    conn.row_factory = sqlite3.Row
    try:
        if target != ":memory:":
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")  # with WAL: durable up to the last checkpoint
        _ensure_schema(conn)
    except BaseException:
        conn.close()
        raise
    conn.execute(f"PRAGMA busy_timeout = {int(busy_ms)}")
    return conn


def _ensure_schema(conn: sqlite3.Connection) -> None:
    """The ``runs`` table and its indexes; columns an older file lacks are added."""
    cols = ", ".join(f"{name} {decl}" for name, decl in _COLUMNS)
    with conn:
        conn.execute(f"CREATE TABLE IF NOT EXISTS runs (id INTEGER PRIMARY KEY AUTOINCREMENT, {cols}, uid TEXT)")
        have = {r[1] for r in conn.execute("PRAGMA table_info(runs)")}
        for name, decl in (*_COLUMNS, ("uid", "TEXT")):  # an older file: add what is missing
            if name not in have:
                conn.execute(f"ALTER TABLE runs ADD COLUMN {name} {decl}")
        conn.execute("CREATE INDEX IF NOT EXISTS runs_kernel ON runs (kernel, id)")
        conn.execute("CREATE UNIQUE INDEX IF NOT EXISTS runs_uid ON runs (uid)")
        if conn.execute("PRAGMA user_version").fetchone()[0] != _SCHEMA_VERSION:
            conn.execute(f"PRAGMA user_version = {_SCHEMA_VERSION}")


def _write_batch(conn: sqlite3.Connection, batch: tuple[list[dict[str, Any]], list[tuple[str, Any]]]) -> None:
    """The writer thread's transaction: new runs (each once: a run already there by its uid is
    skipped) and deletions."""
    rows, deletes = batch
    with conn:
        for row in rows:
            cols = list(row)
            conn.execute(f"INSERT OR IGNORE INTO runs ({', '.join(cols)}) VALUES ({', '.join('?' for _ in cols)})",
                         [row[c] for c in cols])
        for key, value in deletes:
            conn.execute(f"DELETE FROM runs WHERE {'uid' if key == 'uid' else 'id'} = ?", (value,))


def _memory_of(src: sqlite3.Connection) -> sqlite3.Connection:
    """An in-memory copy of the database ``src`` (schema, ids, uids): SQLite's backup copies its
    pages, several times faster than reading and inserting the rows (docs/benchmarks/soak.md,
    "A large history")."""
    mem = sqlite3.connect(":memory:", check_same_thread=False)
    try:
        src.backup(mem)
        mem.row_factory = sqlite3.Row
        _ensure_schema(mem)
    except BaseException:
        mem.close()
        raise
    return mem


def _copy_rows(src: sqlite3.Connection, mem: sqlite3.Connection) -> int:
    """Every run of ``src`` into the in-memory ``mem`` (ids and uids kept); returns how many."""
    tables = {r[0] for r in src.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if "runs" not in tables:
        return 0
    have = [r[1] for r in src.execute("PRAGMA table_info(runs)")]
    cols = [c for c in ("id", *(name for name, _ in _COLUMNS), "uid") if c in have]
    rows = src.execute(f"SELECT {', '.join(cols)} FROM runs ORDER BY id").fetchall()
    with mem:
        mem.executemany(f"INSERT INTO runs ({', '.join(cols)}) VALUES ({', '.join('?' for _ in cols)})", rows)
    return len(rows)


def _memory_copy(p: Path, locked: bool) -> tuple[sqlite3.Connection, int | None]:
    """An in-memory history holding the runs of ``p`` read without writing or locking it: a
    read-only open (a file that cannot be written); a copy of the file and its write-ahead log
    made by a child process (a locked file: another process's exclusive lock stops even readers,
    a read-only open may see the file without its log, and an ``immutable`` read misses the runs
    still in the log); else an ``immutable`` read. (connection,
    runs read or None when none could be)."""
    mem = _connect(":memory:")
    if not p.exists():
        return mem, None
    sources: list[tuple[str, str]] = [] if locked else [(p.resolve().as_uri(), "mode=ro")]
    copy = store.copy_locked(p) if locked and p.stat().st_size else None
    if copy is not None:
        sources.append((copy.as_uri(), "mode=rw"))
    sources.append((p.resolve().as_uri(), "immutable=1"))
    try:
        for uri, query in sources:
            try:
                src = sqlite3.connect(f"{uri}?{query}", uri=True, timeout=0.2)
                try:
                    n = _copy_rows(src, mem)
                finally:
                    src.close()
            except sqlite3.Error:
                continue
            return mem, n
        return mem, None
    finally:
        if copy is not None:
            shutil.rmtree(copy.parent, ignore_errors=True)

def _atomic_write(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        with open(tmp, "w", encoding="utf-8", newline="") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()

