"""The run history: if these fail, runs vanish from the history panel or exports lie."""

from __future__ import annotations

import csv
import json
import math
import os
import sqlite3

import pytest

from app import history as history_mod
from app.history import CSV_COLUMNS, History
from kernels.data.results import CheckResult, ErrorInfo, Metrics, RunRequest, RunResult, Timing


@pytest.fixture(autouse=True)
def _user_dirs(tmp_path, monkeypatch):
    """Never touch the user's real history."""
    monkeypatch.setenv("TILESCOPE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("TILESCOPE_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("TILESCOPE_CACHE_DIR", str(tmp_path / "cache"))


def _result(kernel: str = "vector_add", n: int = 4096, ms: float = 0.5, passed: bool = True,
            error: ErrorInfo | None = None, user_file: str | None = None) -> RunResult:
    check = CheckResult(passed, "out", "fp32", 0.0 if passed else math.inf, 0.0, 1e-4, 1e-4, n, 0 if passed else 7,
                        0 if passed else 7, 0, 0)
    return RunResult(
        request=RunRequest(kernel, {"N": n}, user_file=user_file), kernel=kernel,
        values={"N": n, "BLOCK_SIZE": 1024, "dtype": "fp32"}, backend="interpreter",
        device="CPU (Triton interpreter)", grid=(n // 1024,), check=None if error else check,
        timing=None if error else Timing("interpreter wall clock", ms, ms * 0.9, ms * 1.2, 5, True),
        metrics=None if error else Metrics(bytes_moved=12 * n, flops=n, gbps=12 * n / (ms * 1e6),
                                           torch_timing=Timing("wall", 0.1, 0.1, 0.1, 5), ratio_vs_torch=0.2),
        notes=["num_warps has no effect under the interpreter"], error=error, triton_version="3.9.0",
        torch_version="2.13.0",
    )


def test_add_list_get_round_trip():
    h = History.open()
    assert h.warning is None and h.path.name == "history.db"
    assert str(h.path).startswith(os.environ["TILESCOPE_DATA_DIR"])
    a = h.add(_result(n=4096, ms=0.5))
    b = h.add(_result("vector_mul", n=8192, ms=1.0, passed=False))
    c = h.add(_result(error=ErrorInfo("compile", "compile error: bad", field="BLOCK_SIZE")))
    rows = h.list()
    assert [r["id"] for r in rows] == [c, b, a]  # newest first
    assert [r["id"] for r in h.list(kernel="vector_mul")] == [b]
    assert len(h.list(limit=2)) == 2
    first = h.get(a)
    assert first["values"] == {"N": 4096, "BLOCK_SIZE": 1024, "dtype": "fp32"}
    assert first["metrics"]["ms"] == 0.5 and first["metrics"]["torch_ms"] == 0.1
    assert first["metrics"]["gbps"] == pytest.approx(12 * 4096 / 0.5e6)
    assert first["check"]["passed"] is True and first["grid"] == [4]
    assert first["backend"] == "interpreter" and first["origin"] == "catalog"
    failed = h.get(b)["check"]
    assert failed["passed"] is False and failed["max_abs_err"] == "inf" and failed["n_unwritten"] == 7
    err = h.get(c)
    assert err["error"] == {"kind": "compile", "message": "compile error: bad", "field": "BLOCK_SIZE"}
    assert err["check"] is None and err["metrics"] == {}
    assert h.get(9999) is None
    assert h.count() == 3 and h.kernels() == ["vector_add", "vector_mul"]
    h.close()
    # it persists
    with History.open() as again:
        assert [r["id"] for r in again.list()] == [c, b, a]


def test_user_file_origin_is_kept():
    with History.open() as h:
        i = h.add(_result("my_add", user_file="/home/me/my_add.py"))
        assert h.get(i)["origin"] == "/home/me/my_add.py"


def test_export_csv_and_json(tmp_path):
    with History.open() as h:
        a = h.add(_result(n=4096, ms=0.5))
        b = h.add(_result("vector_mul", n=8192, ms=2.0, passed=False))
        h.add(_result(error=ErrorInfo("timeout", "run did not finish within 1 s")))
        assert h.export_csv(tmp_path / "all.csv") == 3
        assert h.export_json(tmp_path / "two.json", ids=[b, a]) == 2
    with open(tmp_path / "all.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == list(CSV_COLUMNS)
    assert [r["kernel"] for r in rows] == ["vector_add", "vector_mul", "vector_add"]  # oldest first
    assert float(rows[0]["ms"]) == 0.5 and rows[0]["passed"] == "True"
    assert rows[0]["values"] == "N=4096;BLOCK_SIZE=1024;dtype=fp32"
    assert rows[1]["passed"] == "False" and rows[1]["max_abs_err"] == "inf"
    assert rows[2]["error"] == "timeout: run did not finish within 1 s" and rows[2]["ms"] == ""
    data = json.loads((tmp_path / "two.json").read_text())  # standard JSON: no NaN/Infinity
    assert [d["id"] for d in data] == [b, a]
    assert data[0]["metrics"]["ms"] == 2.0 and data[1]["values"]["N"] == 4096
    assert not list(tmp_path.glob(".*tmp*"))  # the atomic writes left no temp files


def test_exception_inside_a_transaction_leaves_no_partial_rows(monkeypatch):
    """A sweep saved as a batch: a failure at the 3rd point stores none of it, not 2 of 5."""
    with History.open() as h:
        h.add(_result(n=1024))
        real_row = History._row
        calls = []

        def failing_row(self, r):
            calls.append(r)
            if len(calls) == 3:
                raise RuntimeError("disk went away")
            return real_row(self, r)

        monkeypatch.setattr(History, "_row", failing_row)
        with pytest.raises(RuntimeError, match="disk went away"):
            h.add_many([_result(n=2048 * k) for k in range(1, 6)])
        assert len(calls) == 3  # two rows were inserted inside the transaction before the failure
        monkeypatch.setattr(History, "_row", real_row)
        assert h.count() == 1
        # and the database is still usable afterwards
        ids = h.add_many([_result(n=2048), _result(n=4096)])
        assert h.count() == 3 and [h.get(i)["values"]["N"] for i in ids] == [2048, 4096]
        # a second connection (another process reading) sees the same committed rows only, once
        # the writer thread has put them in the file
        assert h.flush(300)
        other = sqlite3.connect(h.path)
        assert other.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 3
        assert other.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        other.close()


def test_not_a_database_is_moved_aside(tmp_path):
    db = tmp_path / "data" / "history.db"
    db.parent.mkdir(parents=True)
    db.write_bytes(b"this is not sqlite at all" * 100)
    (db.parent / "history.db-wal").write_bytes(b"stale log")
    h = History.open()
    assert h.warning and "damaged" in h.warning and "not an SQLite database" in h.warning
    backups = sorted(db.parent.glob("history.db.corrupt-*"))
    assert [p.name for p in backups if not p.name.endswith("-wal")] == [backups[0].name]
    assert backups[0].read_bytes().startswith(b"this is not sqlite")
    assert backups[0].name in h.warning
    assert any(p.name.endswith("-wal") for p in backups)  # the stale log went with it
    i = h.add(_result())
    assert h.get(i)["kernel"] == "vector_add" and h.count() == 1
    h.close()
    with History.open() as again:  # the fresh file is healthy: no second warning
        assert again.warning is None and again.count() == 1


def test_damaged_pages_fail_the_integrity_check(tmp_path):
    db = tmp_path / "data" / "history.db"
    with History.open() as h:
        h.add_many([_result(n=1024 * k) for k in range(1, 300)])
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    raw = bytearray(db.read_bytes())
    assert len(raw) > 8192
    raw[4096 + 8: 4096 + 600] = os.urandom(592)  # scribble over the second page, keep the header
    db.write_bytes(bytes(raw))
    h = History.open()
    assert h.warning is not None and "damaged" in h.warning
    assert "integrity check failed" in h.warning or "SQLite:" in h.warning, h.warning
    assert list(db.parent.glob("history.db.corrupt-*"))
    assert h.count() == 0
    h.add(_result())
    assert h.count() == 1
    h.close()


def test_unwritable_directory_falls_back_to_memory(tmp_path, monkeypatch):
    blocker = tmp_path / "file-not-dir"
    blocker.write_text("x")
    h = History.open(blocker / "history.db")
    assert h.path is None and "memory only" in h.warning
    i = h.add(_result())
    assert h.get(i)["kernel"] == "vector_add"


def test_numpy_values_are_stored_as_plain_numbers():
    np = pytest.importorskip("numpy")
    r = _result()
    r.values = {"N": np.int64(4096), "scale": np.float32(0.5), "nan": float("nan")}
    with History.open() as h:
        got = h.get(h.add(r))["values"]
    assert got == {"N": 4096, "scale": 0.5, "nan": "nan"}
    assert history_mod.record_from_result(r)["values"]["N"] == 4096
