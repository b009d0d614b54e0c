"""Reliability below the window: the worker process, its client, the CLI and the history file,
against faulting kernels, bad input, a kernel that never ends, a killed worker and a killed writer.
No Qt; runs on Triton 3.9 and 3.6 (the GPU host has no Qt, and uses exactly these layers).

If these fail: an out-of-bounds kernel kills the worker instead of answering, an endless kernel
hangs the app or the command line, a killed sweep loses its points or starts over, a result too
large for the pipe turns into an unreadable error, or a crash mid-write corrupts the history.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import psutil
import pytest

import kernels.engine  # noqa: F401  (the in-process CLI tests run the engine: torch loads here)
from app import worker as worker_mod
from app.cli import main as cli_main
from app.client import WorkerClient, WorkerError
from app.history import History
from app.protocol import Reply, read_frame
from kernels.data.results import CheckResult, RunRequest, RunResult, SweepRequest
from kernels.data.trace import TraceRequest

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
FAULTY = str(FIXTURES / "faulty_kernels.py")


def _vadd(n: int = 1000, block: int = 256) -> RunRequest:
    return RunRequest("vector_add", {"N": n, "BLOCK_SIZE": block}, backend="interpreter", torch_baseline=False)


def _gone(pid: int, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
                return True
        except psutil.NoSuchProcess:
            return True
        time.sleep(0.02)
    return False


@pytest.fixture(scope="module")
def client():
    """One worker for the tests that keep it alive (a start costs seconds: torch + triton)."""
    c = WorkerClient(default_timeout_s=120)
    assert c.wait_ready(120), c.stderr_tail()
    c.call("load_file", FAULTY, timeout=60)
    yield c
    c.close()


# ---------------------------------------------------------------------------------------------
# the worker answers; it does not die


def test_out_of_bounds_on_the_interpreter_is_an_answer_not_a_dead_worker(client):
    # before the access guard, this store went to a wild address and the worker died of SIGSEGV
    pid, restarts = client.pid, client.restarts
    for kernel, op in (("oob_store", "store"), ("oob_load", "load")):
        r = client.call("run", RunRequest(kernel, {"N": 1000, "BLOCK_SIZE": 256}, backend="interpreter",
                                          user_file=FAULTY))
        assert r.error is not None and r.error.kind == "out_of_bounds", r.error
        assert f"out-of-bounds {op}" in r.error.message and "program 0" in r.error.message
    assert client.pid == pid and client.restarts == restarts
    assert client.call("run", _vadd()).ok


def test_bad_input_through_the_worker_names_the_field_and_the_worker_stays(client):
    pid = client.pid
    r = client.call("run", RunRequest("vector_add", {"BLOCK_SIZE": 100}, backend="interpreter"))
    assert r.error.kind == "validation" and r.error.field == "BLOCK_SIZE" and "power of two" in r.error.message
    r = client.call("run", RunRequest("vector_add", {"num_warps": 3}, backend="interpreter"))
    assert r.error.kind == "validation" and r.error.field == "num_warps"
    with pytest.raises(WorkerError) as ei:
        client.call("load_file", str(FIXTURES / "unparsable" / "syntax_error.py"))
    assert ei.value.info.kind == "user_file" and "syntax_error.py:9: syntax error" in ei.value.info.message
    r = client.call("run", RunRequest("x", {}, backend="interpreter", user_file=str(FIXTURES / "missing_import.py")))
    assert r.error.kind == "user_file" and "'triton_kernels_that_do_not_exist'" in r.error.message
    r = client.call("run", RunRequest("shape_mismatch", {"N": 1000}, backend="interpreter", user_file=FAULTY))
    assert r.error.kind == "interpreter" and "ValueError" in r.error.message
    assert client.pid == pid
    assert client.call("run", _vadd()).ok


def test_a_trace_too_large_for_the_pipe_is_refused_at_once(client):
    t0 = time.monotonic()
    res = client.call("trace", TraceRequest("vector_add", {"N": 1 << 30, "BLOCK_SIZE": 1024}, window="0:4"))
    assert res.trace is None and res.error.kind == "validation" and res.error.field == "N"
    assert "too large to trace" in res.error.message
    assert time.monotonic() - t0 < 10  # refused from the plan: nothing of 4 GiB was built


def test_a_reply_too_large_for_a_frame_becomes_a_readable_error(monkeypatch):
    # the H200 produced an 8 GB error map; whatever else may grow, the reply says what and why
    monkeypatch.setattr(worker_mod, "MAX_FRAME", 1000)
    r_fd, w_fd = os.pipe()
    try:
        srv = worker_mod.Server(None, w_fd)
        big = CheckResult(True, "out", "fp32", 0.0, 0.0, 1e-4, 1e-4, 4000, 0, 0, 0, 0,
                          error_map=np.zeros(4000, np.float32))
        res = RunResult(RunRequest("vector_add"), "vector_add", {}, "interpreter", "", check=big)
        assert srv.send(Reply(7, 3, "result", res))
        with os.fdopen(r_fd, "rb", closefd=False) as f:
            msg = read_frame(f)
    finally:
        os.close(r_fd)
        os.close(w_fd)
    assert msg.kind == "error" and msg.id == 7 and msg.generation == 3
    err = msg.payload
    assert err.kind == "validation" and "cannot be sent to the app" in err.message
    assert "RunResult.check.error_map" in err.message and "15.6 KiB" in err.message


# ---------------------------------------------------------------------------------------------
# a kernel that never ends, a killed worker


def test_endless_kernel_is_killed_after_the_users_timeout_and_the_next_run_works():
    with WorkerClient(default_timeout_s=120) as c:
        assert c.wait_ready(120)
        c.call("load_file", FAULTY, timeout=60)
        pid = c.pid
        t0 = time.monotonic()
        with pytest.raises(WorkerError) as ei:
            c.call("run", RunRequest("endless", {"N": 1000}, backend="interpreter", user_file=FAULTY, timeout_s=2.0))
        took = time.monotonic() - t0
        assert ei.value.info.kind == "timeout" and "did not finish within 2 s" in ei.value.info.message
        assert 2.0 <= took < 10, took
        assert _gone(pid), "the endless worker is still running"
        assert c.wait_ready(120) and c.pid != pid and c.restarts == 1
        # the fresh worker loaded the user's file again: its kernels run without a reload
        r = c.call("run", RunRequest("no_mask", {"N": 1024, "BLOCK_SIZE": 256}, backend="interpreter",
                                     user_file=FAULTY))
        assert r.ok, r.error


def test_sigkill_mid_sweep_keeps_the_points_and_resume_runs_only_the_rest():
    points: list = []
    killed: list[int] = []

    def on_point(_gen, point):
        points.append(point)
        if len(points) == 2 and not killed:
            killed.append(c.pid)
            os.kill(c.pid, signal.SIGKILL)

    values = [16, 32, 64, 128, 256, 512, 1024, 2048]
    req = SweepRequest("vector_add", {"N": 8192}, {"BLOCK_SIZE": values}, backend="interpreter",
                       torch_baseline=False)
    errors: list = []
    with WorkerClient(default_timeout_s=120, on_point=on_point, on_error=lambda g, e: errors.append(e)) as c:
        assert c.wait_ready(120)
        c.submit("sweep", req)
        deadline = time.monotonic() + 120
        while not errors and time.monotonic() < deadline:
            time.sleep(0.02)
        assert errors and errors[0].kind == "worker" and "SIGKILL" in errors[0].message
        assert _gone(killed[0])
        done = [p.values for p in points]
        assert 2 <= len(done) < len(values)
        assert c.wait_ready(120) and c.pid != killed[0]
        # resume: the points done are skipped, the rest run in the fresh worker
        rest = c.call("sweep", SweepRequest(req.kernel, req.base, req.axes, backend="interpreter",
                                            torch_baseline=False, skip=done))
        assert rest.error is None
        ran = [p.values["BLOCK_SIZE"] for p in rest.points]
        assert sorted(ran) == sorted(set(values) - {d["BLOCK_SIZE"] for d in done})
        assert all(p.result.ok for p in rest.points)


# ---------------------------------------------------------------------------------------------
# the command line: exit status and one error line


def _cli(argv: list[str], capsys) -> tuple[int, list[str], str]:
    code = cli_main(argv)
    cap = capsys.readouterr()
    return code, [ln for ln in cap.err.splitlines() if ln.strip()], cap.out


def test_cli_out_of_bounds_kernel_exits_1_with_one_error_line(capsys):
    code, err, _ = _cli(["run", "oob_store", "-f", FAULTY, "-b", "interpreter", "--no-torch"], capsys)
    assert code == 1 and len(err) == 1 and err[0].startswith("error: out-of-bounds store in oob_store_kernel")


@pytest.mark.parametrize("path, words", [
    ("unparsable/syntax_error.py", "syntax_error.py:9: syntax error"),
    ("unparsable/not_utf8.py", "not UTF-8"),
    ("registers_nothing.py", "registers no kernels"),
    ("raises_on_import.py", "KeyError"),
])
def test_cli_broken_kernel_file_exits_2_with_one_error_line(path, words, capsys):
    code, err, out = _cli(["run", "anything", "-f", str(FIXTURES / path), "-b", "interpreter"], capsys)
    assert code == 2 and len(err) == 1 and err[0].startswith("error: ") and words in err[0]
    assert out == ""


def test_cli_timeout_ends_an_endless_kernel(capsys):
    code, err, _ = _cli(["run", "endless", "-f", FAULTY, "-b", "interpreter", "--timeout", "2"], capsys)
    assert code == 1 and len(err) == 1 and "did not finish within 2 s" in err[0]
    code, err, _ = _cli(["run", "vector_add", "-b", "interpreter", "--timeout", "0"], capsys)
    assert code == 2 and err == ["error: --timeout must be a positive number of seconds, got 0"]


# ---------------------------------------------------------------------------------------------
# the history survives a writer killed mid-write

_WRITER = textwrap.dedent('''
    import sys
    from app.history import History
    from kernels.data.results import RunRequest, RunResult
    h = History.open(sys.argv[1])
    i = 0
    while True:
        r = RunResult(RunRequest("vector_add"), "vector_add", {"i": i, "pad": "x" * 2000}, "interpreter", "CPU",
                      grid=(i,), notes=[f"note {i}-{j}" for j in range(50)])
        h.add(r)
        i += 1
        if i == 20:
            print("writing", flush=True)
''')


def test_history_rows_are_whole_after_the_writer_is_killed_mid_write(tmp_path):
    db = tmp_path / "history.db"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    for _ in range(3):  # three kills at different moments
        p = subprocess.Popen([sys.executable, "-c", _WRITER, str(db)], stdout=subprocess.PIPE, env=env, text=True)
        assert p.stdout.readline().strip() == "writing"
        time.sleep(0.05 + 0.1 * np.random.default_rng().random())
        p.send_signal(signal.SIGKILL)
        p.wait(timeout=10)
        p.stdout.close()
    conn = sqlite3.connect(str(db))
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        conn.close()
    h = History.open(db)
    try:
        assert h.warning is None
        rows = h.list(limit=100000)
        assert len(rows) >= 60
        for row in rows:  # every row whole: all its columns, all 50 notes, the padding intact
            i = row["values"]["i"]
            assert row["grid"] == [i] and row["values"]["pad"] == "x" * 2000
            assert row["notes"] == [f"note {i}-{j}" for j in range(50)]
    finally:
        h.close()
