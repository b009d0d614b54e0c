"""Fault injection on the worker process: SIGKILL and SIGSTOP at random moments of a run, a sweep
and a trace, and user files that hang, exit or raise through the client the window uses. No Qt.

Each case: the request ends with a clear error (or its result, when the signal came after it),
the points a sweep finished are kept, the next valid request works in a fresh worker, and no
process is left behind. The moments are random but seeded (``FAULT_SEED`` to replay one).

If these fail: a stopped worker hangs the app forever, a killed one loses the finished points,
or a file that hangs or exits on import makes the client restart the worker in a loop.
"""

from __future__ import annotations

import os
import random
import signal
import threading
import time

import psutil
import pytest
from hostile import alive, poll, write

from app.client import WorkerClient, WorkerError
from kernels.data.results import RunRequest, SweepRequest
from kernels.data.trace import TraceRequest

SEED = int(os.environ.get("FAULT_SEED", "20261123"))
TIMEOUT_S = 4.0


def _gone(pid: int, timeout: float = 10.0) -> bool:
    return poll(lambda: not alive(pid), timeout, f"process {pid} to end")


def _vadd(n: int = 1000, block: int = 256, **kw) -> RunRequest:
    return RunRequest("vector_add", {"N": n, "BLOCK_SIZE": block}, backend="interpreter", torch_baseline=False, **kw)


@pytest.fixture(scope="module")
def client():
    c = WorkerClient(default_timeout_s=TIMEOUT_S)
    assert c.wait_ready(120), c.stderr_tail()
    yield c
    pid = c.pid
    c.close()
    assert pid is None or _gone(pid)


def _requests() -> list[tuple[str, object]]:
    return [
        ("run", _vadd(1 << 16, 64)),  # 1024 interpreted programs: a second or two
        ("sweep", SweepRequest("vector_add", {"N": 1 << 14}, {"BLOCK_SIZE": [16, 32, 64, 128, 256]},
                               backend="interpreter", torch_baseline=False)),
        ("trace", TraceRequest("vector_add", {"N": 1 << 15, "BLOCK_SIZE": 32}, workers=1)),
    ]


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGSTOP], ids=["SIGKILL", "SIGSTOP"])
@pytest.mark.parametrize("index", [0, 1, 2], ids=["run", "sweep", "trace"])
def test_a_signal_at_a_random_moment_is_a_clear_error_and_the_next_request_works(client, index, sig):
    kind, req = _requests()[index]
    rng = random.Random(f"{SEED}-{kind}-{int(sig)}")
    assert client.wait_ready(120)
    pid = client.pid
    points: list = []
    delay = rng.uniform(0.05, 1.2)
    timer = threading.Timer(delay, os.kill, (pid, sig))
    timer.start()
    try:
        try:
            result = client.call(kind, req, on_point=points.append)
            error = None
        except WorkerError as e:
            result, error = None, e.info
    finally:
        timer.join()
    what = f"{kind} {sig.name} after {delay:.2f} s"
    if error is None:  # the signal came after the answer: the worker is replaced all the same
        assert result is not None, what
    elif sig == signal.SIGKILL:
        assert error.kind == "worker" and "killed by SIGKILL" in error.message, (what, error)
    else:  # a stopped worker never answers: the timeout ends it
        assert error.kind == "timeout" and f"within {TIMEOUT_S:g} s" in error.message, (what, error)
    assert all(p.result.ok for p in points), what  # the finished points came back whole
    assert client.wait_ready(120), what
    if error is not None:
        assert client.pid != pid and _gone(pid), what
    elif sig == signal.SIGSTOP:  # it landed on the idle worker after the answer: let it go on
        os.kill(pid, signal.SIGCONT)
    else:  # killed while idle: the client notices (its reader sees the pipe close) and restarts
        deadline = time.monotonic() + 60
        while (client.pid in (pid, None) or client.state != "ready") and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _gone(pid) and client.pid != pid, what
    assert client.call("run", _vadd(), timeout=60).ok, what


def test_a_file_that_hangs_at_import_times_out_and_is_not_reloaded_in_a_loop(client, tmp_path):
    path = write(tmp_path, "spec", "hang")
    with pytest.raises(WorkerError) as ei:
        client.call("load_file", str(path))
    assert ei.value.info.kind == "timeout"
    assert f"Loading {path.name} did not finish within {TIMEOUT_S:g} s" in ei.value.info.message
    assert client.wait_ready(120)
    restarts = client.restarts
    time.sleep(1.0)
    assert client.restarts == restarts and client.call("run", _vadd()).ok


def test_a_loaded_file_edited_to_exit_is_dropped_after_one_restart(client, tmp_path):
    path = write(tmp_path, "spec", "good", name="edited_later")
    client.call("load_file", str(path))
    assert client.call("run", RunRequest("edited_later", {"N": 1000}, backend="interpreter",
                                         user_file=str(path), torch_baseline=False)).ok
    write(tmp_path, "spec", "exit", name="edited_later", filename=path.name)
    os.utime(path, (time.time() + 5, time.time() + 5))
    with pytest.raises(WorkerError) as ei:
        client.call("load_file", str(path))
    assert ei.value.info.kind == "worker" and "exited with status 3" in ei.value.info.message
    assert path.name in ei.value.info.message
    assert client.wait_ready(120)
    restarts = client.restarts
    time.sleep(1.5)  # the fresh worker must not load the file again (and die, and again…)
    assert client.restarts == restarts and client.call("run", _vadd()).ok


def test_a_kernel_that_raises_after_two_launches_fails_that_run_only(client, tmp_path):
    path = write(tmp_path, "spec", "raise_after_2", name="tired_add")
    client.call("load_file", str(path))
    req = RunRequest("tired_add", {"N": 1000}, backend="interpreter", user_file=str(path),
                     torch_baseline=False, bench=False)
    outcomes = [client.call("run", req) for _ in range(3)]
    assert outcomes[0].ok
    bad = next(r for r in outcomes if r.error is not None)
    assert "hostile: launch" in bad.error.message and "refused" in bad.error.message
    assert client.call("run", _vadd()).ok


def test_a_file_that_forks_at_import_answers_once_and_its_child_is_ended(client, tmp_path):
    path = write(tmp_path, "spec", "fork_sleep", name="forked_add")
    pid = client.pid
    loaded = client.call("load_file", str(path), timeout=60)
    assert [i.name for i in loaded["loaded"]] == ["forked_add"]
    assert any("process" in n for n in loaded.get("notes", ())), loaded.get("notes")
    children = [p for p in psutil.Process(pid).children() if p.status() != psutil.STATUS_ZOMBIE]
    assert not children, children  # the sleeping child was stopped at once
    r = client.call("run", RunRequest("forked_add", {"N": 1000}, backend="interpreter", user_file=str(path),
                                      torch_baseline=False))
    assert r.ok and client.pid == pid


def test_a_worker_stopped_while_idle_is_replaced_on_the_next_request(client):
    pid = client.pid
    os.kill(pid, signal.SIGSTOP)
    with pytest.raises(WorkerError) as ei:
        client.call("run", _vadd())
    assert ei.value.info.kind == "timeout"
    assert client.wait_ready(120) and _gone(pid)
    assert client.call("run", _vadd()).ok


def test_close_ends_a_stopped_worker_and_its_children(tmp_path):
    path = write(tmp_path, "spec", "fork_sleep", name="forked_close")
    c = WorkerClient(default_timeout_s=60)
    assert c.wait_ready(120)
    c.call("load_file", str(path))
    pid = c.pid
    group = [p.pid for p in psutil.process_iter() if _pgid(p.pid) == pid]
    os.kill(pid, signal.SIGSTOP)
    t0 = time.monotonic()
    c.close(timeout=1.0)
    assert time.monotonic() - t0 < 8
    assert all(_gone(q) for q in [pid, *group])


def _pgid(pid: int) -> int | None:
    try:
        return os.getpgid(pid)
    except ProcessLookupError:
        return None

