"""The run history: every run's configuration, metrics and check in a local SQLite file.

``History.open()`` opens (or creates) ``history.db`` in the data directory (see ``app.paths``).
A file that is not SQLite or fails ``PRAGMA integrity_check`` is moved aside to
``history.db.corrupt-<timestamp>`` (with its ``-wal``/``-shm`` companions), a fresh history is
started, and ``History.warning`` says so for the UI to show.

A lock is not damage: a database another process holds (another Tilescope, a backup tool) is
waited for (``lock_wait_s``), and if it stays locked it is left untouched — its runs are read
into memory as far as the lock allows, this session's runs are kept in memory, and the warning
says so. The same for a file that can be read but not written (a read-only folder or mount). A
healthy file is never moved. If the directory cannot be created the history lives in memory for
this session, with a warning.

Each ``add`` is one transaction (WAL journal): a crash or an exception leaves either the whole row
or nothing. ``add_many`` stores a batch (a sweep) all-or-nothing.

Non-finite floats (an ``inf`` max error where elements were never written) are stored as the
strings ``"inf"``, ``"-inf"``, ``"nan"`` so that the JSON columns and exports stay standard JSON.

No torch, no triton, no Qt: the GUI process uses this.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import sqlite3
import threading
import time
from collections.abc import Iterable, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from kernels.data.results import RunResult

from .paths import history_path

__all__ = ["CSV_COLUMNS", "History", "record_from_result"]

_SCHEMA_VERSION = 1
_SQLITE_MAGIC = b"SQLite format 3\x00"
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
    """The run history database. Thread-safe (one connection behind a lock)."""

    def __init__(self, conn: sqlite3.Connection, path: Path | None, warning: str | None = None) -> None:
        self._conn = conn
        self._lock = threading.RLock()
        #: the database file, or None when the history lives in memory
        self.path = path
        #: a message for the user when something went wrong opening the file, else None
        self.warning = warning

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
                reason = _damage(p)
                if reason is not None:
                    backup = _move_aside(p)
                    warning = (f"The run history {p} was damaged ({reason}). It was moved to {backup.name} "
                               "and a new, empty history was started.")
                return cls(_connect(p), p, warning)
            except sqlite3.OperationalError as e:
                if _is_lock(e) and time.monotonic() < deadline:
                    time.sleep(0.1)  # another process is writing: it lets go in a moment
                    continue
                return cls._read_only(p, e, lock_wait_s, warning)
            except (OSError, sqlite3.Error) as e:
                return cls._read_only(p, e, lock_wait_s, warning)

    @classmethod
    def _read_only(cls, p: Path, e: Exception, waited: float, warning: str | None) -> History:
        """The file is locked or cannot be written: leave it as it is, show the runs it holds
        (read into memory) and keep this session's there too."""
        conn, n = _memory_copy(p)
        if isinstance(e, sqlite3.OperationalError) and _is_lock(e):
            why = (f"is locked by another process (another Tilescope, or a backup tool?) and stayed locked "
                   f"for {waited:g} s")
        else:
            why = f"cannot be opened for writing ({type(e).__name__}: {e})"
        shown = (f"its {n} earlier run(s) are shown read-only" if n is not None
                 else "its runs cannot be read now either")
        msg = (f"The run history {p} {why}. It was left untouched: {shown}, and the runs of this session "
               "are kept in memory only. Close the other program and restart Tilescope to keep them.")
        return cls(conn, None, msg if warning is None else f"{warning} {msg}")

    @classmethod
    def in_memory(cls) -> History:
        return cls(_connect(":memory:"), None)

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> History:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writing --------------------------------------------------------------------------------
    def add(self, result: RunResult) -> int:
        """Store one run; returns its id. Atomic: the row is there whole, or not at all."""
        return self.add_many([result])[0]

    def add_many(self, results: Iterable[RunResult]) -> list[int]:
        """Store several runs (a sweep's points) in one transaction: all of them, or none."""
        ids: list[int] = []
        with self._lock, self._conn:  # BEGIN ... COMMIT, or ROLLBACK on any exception
            for r in results:
                rec = self._row(r)
                cur = self._conn.execute(_INSERT, rec)
                ids.append(int(cur.lastrowid))
        return ids

    def _row(self, r: RunResult) -> tuple:
        rec = record_from_result(r)
        return (
            rec["time"], rec["kernel"], rec["origin"], rec["backend"], rec["device"], _dump(rec["grid"]),
            _dump(rec["values"]), _dump(rec["metrics"]), _dump_opt(rec["check"]), _dump(rec["notes"]),
            _dump_opt(rec["error"]), rec["triton_version"], rec["torch_version"], rec["wall_s"],
        )

    def delete(self, ids: Sequence[int]) -> int:
        """Remove runs; returns how many were removed."""
        with self._lock, self._conn:
            cur = self._conn.executemany("DELETE FROM runs WHERE id = ?", [(int(i),) for i in ids])
            return cur.rowcount

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


def _connect(target: Path | str) -> sqlite3.Connection:
    # check_same_thread=False: the lock in History serializes use from the GUI and callback threads
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
    conn.execute("PRAGMA busy_timeout = 5000")  # later writes wait for another writer a while
    return conn


def _ensure_schema(conn: sqlite3.Connection) -> None:
    """The ``runs`` table and its index; columns an older file lacks are added."""
    cols = ", ".join(f"{name} {decl}" for name, decl in _COLUMNS)
    with conn:
        conn.execute(f"CREATE TABLE IF NOT EXISTS runs (id INTEGER PRIMARY KEY AUTOINCREMENT, {cols})")
        conn.execute("CREATE INDEX IF NOT EXISTS runs_kernel ON runs (kernel, id)")
        have = {r[1] for r in conn.execute("PRAGMA table_info(runs)")}
        for name, decl in _COLUMNS:  # an older file: add what is missing
            if name not in have:
                conn.execute(f"ALTER TABLE runs ADD COLUMN {name} {decl}")
        conn.execute(f"PRAGMA user_version = {_SCHEMA_VERSION}")


def _is_lock(e: sqlite3.Error) -> bool:
    """SQLITE_BUSY / SQLITE_LOCKED: another connection holds the file — not damage."""
    code = getattr(e, "sqlite_errorcode", None)
    return code in (5, 6) or "locked" in str(e).lower() or "busy" in str(e).lower()


def _memory_copy(p: Path) -> tuple[sqlite3.Connection, int | None]:
    """An in-memory history holding the runs of ``p`` read without writing or locking it (a
    read-only open, else an ``immutable`` one, which reads past another process's lock what was
    last checkpointed); (connection, runs read or None when none could be)."""
    mem = _connect(":memory:")
    if not p.exists():
        return mem, None
    for query in ("mode=ro", "immutable=1"):
        try:
            src = sqlite3.connect(f"{p.resolve().as_uri()}?{query}", uri=True, timeout=0.2)
            try:
                tables = {r[0] for r in src.execute("SELECT name FROM sqlite_master WHERE type='table'")}
                if "runs" not in tables:
                    return mem, 0
                have = [r[1] for r in src.execute("PRAGMA table_info(runs)")]
                cols = [c for c in ("id", *(name for name, _ in _COLUMNS)) if c in have]
                rows = src.execute(f"SELECT {', '.join(cols)} FROM runs ORDER BY id").fetchall()
            finally:
                src.close()
        except sqlite3.Error:
            continue
        with mem:
            mem.executemany(f"INSERT INTO runs ({', '.join(cols)}) VALUES ({', '.join('?' for _ in cols)})", rows)
        return mem, len(rows)
    return mem, None


def _damage(p: Path) -> str | None:
    """Why the file at p is not a usable database, or None (also for a missing or empty file)."""
    if not p.exists() or p.stat().st_size == 0:
        return None
    with open(p, "rb") as f:
        head = f.read(len(_SQLITE_MAGIC))
    if head != _SQLITE_MAGIC:
        return "not an SQLite database"
    try:
        # read-only: a check needs no write access (a read-only file is not damage either)
        conn = sqlite3.connect(f"{p.resolve().as_uri()}?mode=ro", uri=True, timeout=0.5)
        try:
            rows = conn.execute("PRAGMA integrity_check").fetchall()
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        finally:
            conn.close()
    except sqlite3.OperationalError as e:
        if _is_lock(e) or "unable to open" in str(e):
            raise  # locked, or not readable here: History.open decides, never moving it
        return f"SQLite: {e}"
    except sqlite3.DatabaseError as e:
        return f"SQLite: {e}"
    if not rows or rows[0][0] != "ok":
        return "integrity check failed: " + "; ".join(str(r[0]) for r in rows[:3])
    if tables and "runs" not in tables and not tables <= {"sqlite_sequence"}:
        return "it is an SQLite file but holds no run history"
    return None


def _move_aside(p: Path) -> Path:
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

