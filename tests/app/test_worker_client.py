"""The worker process and its client, against the real engine on the interpreter (no Qt).

If these fail, the app shows stale results after fast edits, hangs on a slow kernel, cannot be
cancelled, dies with its worker, or leaves processes behind.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import psutil
import pytest
from worker_env import worker_env as env_under

from app.client import WorkerClient, WorkerError
from app.protocol import Reply, Request, encode, read_frame
from app.worker import PROGRESS_HZ, _throttled, poisons_cuda
from kernels.data.results import Progress, RunRequest, SweepRequest

ROOT = Path(__file__).resolve().parents[2]
#: a vector add whose interpreter launch takes seconds (4096 programs) and never checks cancel
LONG_N = 1 << 22


def _run(n: int = 4096, **kw) -> RunRequest:
    return RunRequest("vector_add", {"N": n, "BLOCK_SIZE": 1024}, backend="interpreter", **kw)


class Recorder:
    """Collects the client's callbacks; tests wait on it instead of sleeping."""

    def __init__(self) -> None:
        self.events: list[tuple] = []
        self._cond = threading.Condition()

    def add(self, *ev) -> None:
        with self._cond:
            self.events.append(ev)
            self._cond.notify_all()

    def callbacks(self) -> dict:
        return dict(
            on_progress=lambda g, p: self.add("progress", g, p),
            on_point=lambda g, p: self.add("point", g, p),
            on_result=lambda g, r: self.add("result", g, r),
            on_error=lambda g, e: self.add("error", g, e),
            on_state=lambda s: self.add("state", s),
            on_log=lambda g, lvl, msg: self.add("log", g, lvl, msg),
        )

    def of(self, kind: str, gen: int | None = None) -> list[tuple]:
        with self._cond:
            return [e for e in self.events if e[0] == kind and (gen is None or e[1] == gen)]

    def wait(self, pred, timeout: float = 60.0):
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                got = pred()
                if got:
                    return got
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"timed out; events: {[e[:2] for e in self.events][-20:]}")
                self._cond.wait(left)

    def end_of(self, gen: int, timeout: float = 60.0) -> tuple:
        return self.wait(lambda: (self.of("result", gen) + self.of("error", gen) or [None])[0], timeout)

    def states(self) -> list[str]:
        return [e[1] for e in self.of("state")]

    def clear(self) -> None:
        with self._cond:
            self.events.clear()


@pytest.fixture(scope="module")
def worker_env(tmp_path_factory):
    base = tmp_path_factory.mktemp("worker_dirs")
    return env_under(base)


@pytest.fixture(scope="module")
def shared(worker_env):
    """One worker for the tests that do not kill it (starting one costs seconds: torch + triton)."""
    rec = Recorder()
    client = WorkerClient(env=worker_env, **rec.callbacks())
    client.call("ping", timeout=120)
    yield client, rec
    client.close()


@pytest.fixture(scope="module")
def user_file(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("user") / "my_copy.py"
    path.write_text(_USER_FILE)
    return str(path)


@pytest.fixture
def fresh(shared):
    client, rec = shared
    rec.clear()
    client.cancel_grace_s = 2.0
    return client, rec


def _wait_ready(client: WorkerClient, timeout: float = 60.0) -> None:
    assert client.wait_ready(timeout), f"worker not ready: {client.state}"


def _assert_gone(pid: int, timeout: float = 5.0) -> None:
    """The process is dead (a killed worker is reaped by the client's reader thread)."""
    deadline = time.monotonic() + timeout
    while psutil.pid_exists(pid):
        try:
            if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
                return
        except psutil.NoSuchProcess:
            return
        assert time.monotonic() < deadline, f"worker {pid} still running"
        time.sleep(0.02)


# ---------------------------------------------------------------------------------------------


def test_interpreter_run_passes_through_the_worker(fresh):
    client, rec = fresh
    gen = client.submit("run", _run(98432))
    _, g, result = rec.end_of(gen)
    assert g == gen and rec.of("result", gen), rec.of("error", gen)
    assert result.ok and result.check.passed and result.backend == "interpreter"
    assert result.check.n_elements == 98432 and result.grid == (97,)
    assert result.generation == gen  # the generation travelled into the request and back
    progress = [e[2] for e in rec.of("progress", gen)]
    assert progress and all(isinstance(p, Progress) for p in progress), progress[:3]
    assert progress[0].stage == "compiling"
    assert client.state == "ready" and client.hello["backends"]["default"] in ("gpu", "interpreter")
    assert "vector_add" in [i.name for i in client.hello["infos"]]
    # hello's versions are plain strings (torch.__version__ is a torch class)
    assert type(client.hello["versions"]["torch"]) is str


def test_second_quick_submit_supersedes_the_first(fresh):
    client, rec = fresh
    dropped = client.dropped
    first = client.submit("run", _run(1 << 18))
    second = client.submit("run", _run(2048))
    assert second > first
    _, _, result = rec.end_of(second)
    assert result.ok and result.values["N"] == 2048
    _wait_ready(client)
    assert rec.of("result", first) == [] and rec.of("error", first) == []
    assert client.dropped == dropped + 1


def test_call_returns_the_result_and_raises_on_failure(fresh):
    client, _ = fresh
    r = client.call("run", _run(4096))
    assert r.ok and r.values["N"] == 4096
    bad = client.call("run", RunRequest("vector_add", {"BLOCK_SIZE": 1000}, backend="interpreter"))
    assert not bad.ok and bad.error.kind == "validation" and bad.error.field == "BLOCK_SIZE"
    with pytest.raises(WorkerError) as ei:
        client.call("load_file", "/nonexistent/kernel.py")
    assert ei.value.info.kind == "user_file" and "not found" in ei.value.info.message
    assert client.call("ping")["pid"] == client.pid  # the worker kept serving


def test_cancel_a_sweep_keeps_the_worker_and_the_points_so_far(fresh):
    client, rec = fresh
    pid, restarts = client.pid, client.restarts
    req = SweepRequest("vector_add", {"BLOCK_SIZE": 1024}, {"N": [4096 * k for k in range(1, 61)]},
                       backend="interpreter", torch_baseline=False)
    gen = client.submit("sweep", req)
    rec.wait(lambda: len(rec.of("point", gen)) >= 2)
    assert client.cancel() is True
    _, _, result = rec.end_of(gen, timeout=10)
    assert result.error is not None and result.error.kind == "cancelled"
    assert 2 <= len(result.points) < 60
    assert [p.values["N"] for p in result.points] == [4096 * k for k in range(1, len(result.points) + 1)]
    assert len(rec.of("point", gen)) == len(result.points)
    assert client.pid == pid and client.restarts == restarts  # a soft cancel: no restart


def test_user_file_prints_do_not_corrupt_frames(fresh, user_file):
    client, rec = fresh
    got = client.call("load_file", user_file)
    assert [i.name for i in got["loaded"]] == ["test_copy"]
    assert "test_copy" in [i.name for i in got["infos"]]
    r = client.call("run", RunRequest("test_copy", {"N": 1000}, backend="interpreter"))
    assert r.ok and r.check.passed, r.error
    rec.wait(lambda: any("user kernel file imported" in ln for ln in client.stderr_tail(50)), timeout=5)


def test_hard_cancel_kills_and_restarts(fresh, user_file):
    client, rec = fresh
    client.call("load_file", user_file)
    client.cancel_grace_s = 0.3
    pid = client.pid
    gen = client.submit("run", _run(LONG_N))
    rec.wait(lambda: rec.of("progress", gen))  # running: the launch does not look at cancel
    t0 = time.monotonic()
    client.cancel()
    _, _, err = rec.end_of(gen, timeout=10)
    assert err.kind == "cancelled" and "did not stop within 0.3 s" in err.message
    assert time.monotonic() - t0 < 3.0
    _assert_gone(pid)
    _wait_ready(client)
    assert client.pid != pid
    # the user file loaded before was loaded again into the fresh worker
    r = client.call("run", RunRequest("test_copy", {"N": 777}, backend="interpreter"))
    assert r.ok and r.check.n_elements == 777, r.error


def test_sigkill_mid_request_is_reported_and_recovered(fresh):
    client, rec = fresh
    earlier = client.call("run", _run(4096))
    pid = client.pid
    gen = client.submit("run", _run(LONG_N))
    rec.wait(lambda: rec.of("progress", gen))
    os.kill(pid, signal.SIGKILL)
    _, g, err = rec.end_of(gen, timeout=20)
    assert err.kind == "worker" and "SIGKILL" in err.message and "vector_add" in err.message
    assert "restarted" in err.message
    rec.wait(lambda: "ready" in rec.states()[rec.states().index("crashed"):] if "crashed" in rec.states()
             else None)
    states = rec.states()
    i = states.index("crashed")
    assert states[i:i + 3] == ["crashed", "restarting", "ready"]
    assert client.pid != pid
    _assert_gone(pid)
    after = client.call("run", _run(8192))
    assert after.ok and after.values["N"] == 8192
    assert earlier.ok and earlier.values["N"] == 4096  # what the caller held is untouched


def test_timeout_kills_restarts_and_names_the_limit(fresh):
    client, rec = fresh
    pid = client.pid
    t0 = time.monotonic()
    gen = client.submit("run", _run(LONG_N, timeout_s=1))
    _, _, err = rec.end_of(gen, timeout=20)
    took = time.monotonic() - t0
    assert err.kind == "timeout", err
    assert err.message == "The run of vector_add did not finish within 1 s; the worker was restarted."
    assert 1.0 <= took < 5.0
    _wait_ready(client)
    assert client.pid != pid
    assert client.call("run", _run(4096)).ok


def test_sticky_cuda_error_restarts_the_worker_after_answering(fresh, user_file):
    """An illegal address poisons a CUDA context for good: the worker answers, then is replaced."""
    client, rec = fresh
    client.call("load_file", user_file)
    pid = client.pid
    faulty = client.submit("run", RunRequest("test_copy", {"N": 100, "FAULT": True}, backend="interpreter"))
    after = client.submit("infos")  # queued behind it: sent as the worker is on its way out
    _, _, r = rec.end_of(faulty, timeout=30)
    assert r.error.kind == "launch" and "illegal memory access" in r.error.message
    _, _, infos = rec.end_of(after, timeout=30)
    assert "test_copy" in [i.name for i in infos]  # served by the new worker, file reloaded
    assert client.pid != pid and not rec.of("error")
    assert any("fresh CUDA context" in e[3] for e in rec.of("log"))


def _tilescope_threads() -> set[str]:
    return {t.name for t in threading.enumerate() if t.name.startswith("tilescope-")}


@pytest.mark.skipif(not hasattr(os, "nice"), reason="POSIX priorities")
def test_worker_lowers_its_own_priority_and_a_restart_keeps_it(worker_env):
    # breaks if nice= is not applied by the worker itself, or a restarted worker runs at the
    # window's priority again (on 2 cores it then takes the window's time slices)
    own = os.getpriority(os.PRIO_PROCESS, 0)
    c = WorkerClient(env=worker_env, nice=7)
    try:
        c.call("ping", timeout=120)
        pid = c.pid
        assert os.getpriority(os.PRIO_PROCESS, pid) == min(19, own + 7)
        os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 60
        while c.pid in (None, pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        c.call("ping", timeout=120)
        assert c.pid != pid and os.getpriority(os.PRIO_PROCESS, c.pid) == min(19, own + 7)
    finally:
        c.close()


def test_close_leaves_no_process_even_when_busy(worker_env):
    threads_before = _tilescope_threads()
    rec = Recorder()
    client = WorkerClient(env=worker_env, **rec.callbacks())
    client.call("ping", timeout=120)
    pid = client.pid
    gen = client.submit("run", _run(LONG_N))
    rec.wait(lambda: rec.of("progress", gen))
    t0 = time.monotonic()
    client.close(timeout=0.5)
    assert time.monotonic() - t0 < 5.0
    assert not psutil.pid_exists(pid)  # close() waited for it: gone and reaped
    assert [c.pid for c in psutil.Process().children(recursive=True) if c.pid == pid] == []
    assert rec.of("error", gen)[0][2].kind == "cancelled"
    assert client.state == "stopped"
    with pytest.raises(RuntimeError, match="closed"):
        client.submit("run", _run())
    client.close()  # idempotent
    deadline = time.monotonic() + 5
    while _tilescope_threads() - threads_before and time.monotonic() < deadline:
        time.sleep(0.02)
    assert _tilescope_threads() - threads_before == set()  # no reader/writer/supervisor left


def test_gui_side_never_imports_torch_triton_or_qt(worker_env):
    """The GUI process talks to the worker, reads runs and traces, and still has no torch: it
    starts fast and survives what kills the worker."""
    code = textwrap.dedent("""
        import sys
        from app.client import WorkerClient
        from app.history import History
        from app.settings import Settings
        from kernels.data.results import RunRequest
        from kernels.data.trace import TraceRequest

        with WorkerClient() as c:
            r = c.call("run", RunRequest("vector_add", {"N": 5000}, backend="interpreter"), timeout=120)
            t = c.call("trace", TraceRequest("vector_add", {"N": 5000, "BLOCK_SIZE": 1024}), timeout=120)
        assert r.ok and r.check.passed, r.error
        assert t.error is None and t.trace.grid == (5, 1, 1), t.error
        out = t.trace.tensors.index(next(x for x in t.trace.tensors if x.name == "out_ptr"))
        writer = t.trace.maps[out].writer
        assert writer[0] == 0 and writer[4999] == 4, writer  # element 4999 is program 4's
        with History.open() as h:
            h.add(r)
        Settings.load().save()
        bad = sorted(m for m in sys.modules if m.split(".")[0] in ("torch", "triton", "PySide6", "pyqtgraph"))
        print("HEAVY:", bad)
    """)
    env = dict(worker_env, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=240)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "HEAVY: []" in out.stdout, out.stdout


def test_a_worker_that_cannot_start_fails_requests_clearly(worker_env, tmp_path):
    fake = tmp_path / "broken-python"
    fake.write_text("#!/bin/sh\necho 'ImportError: no module named torch' >&2\nexit 3\n")
    fake.chmod(0o755)
    rec = Recorder()
    client = WorkerClient(python=str(fake), env=worker_env, **rec.callbacks())
    try:
        with pytest.raises(WorkerError) as ei:
            client.call("run", _run(), timeout=30)
        assert ei.value.info.kind == "worker"
        assert "could not start" in ei.value.info.message and "status 3" in ei.value.info.message
        assert "no module named torch" in ei.value.info.detail
        assert client.state == "crashed" and client.pid is None
    finally:
        client.close()
    assert client.state == "stopped"


# ---------------------------------------------------------------------------------------------
# the worker process alone (no engine import: these are fast)


def _spawn_worker() -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen([sys.executable, "-m", "app.worker"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=ROOT)


def test_worker_exits_when_its_parent_goes_away():
    proc = _spawn_worker()
    proc.stdin.write(encode(Request(1, 1, "ping")))
    proc.stdin.flush()
    pong = read_frame(proc.stdout)
    assert pong.kind == "result" and pong.payload["pid"] == proc.pid
    proc.stdin.close()  # what a dead parent looks like from here
    assert proc.wait(timeout=10) == 0
    proc.stdout.close()
    proc.stderr.close()


def test_worker_stops_on_a_corrupt_request_stream():
    proc = _spawn_worker()
    proc.stdin.write(b"garbage that is not a frame\n")
    proc.stdin.flush()
    assert proc.wait(timeout=10) == 0
    assert read_frame(proc.stdout) is None
    assert b"corrupt" in proc.stderr.read()
    proc.stdin.close()
    proc.stdout.close()
    proc.stderr.close()


def test_unknown_request_kind_is_an_error_reply_and_the_worker_goes_on():
    proc = _spawn_worker()
    try:
        proc.stdin.write(encode(Request(4, 4, "frobnicate")) + encode(Request(5, 5, "ping")))
        proc.stdin.flush()
        # ping is answered by the reader thread at once, so it may overtake the error
        replies = {m.id: m for m in (read_frame(proc.stdout), read_frame(proc.stdout))}
        assert replies[4].kind == "error" and "frobnicate" in replies[4].payload.message
        assert replies[5].kind == "result" and replies[5].payload["pid"] == proc.pid
        proc.stdin.write(encode(Request(6, 6, "shutdown")))
        proc.stdin.flush()
        assert proc.wait(timeout=10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        for s in (proc.stdin, proc.stdout, proc.stderr):
            s.close()


def test_progress_is_throttled():
    # a trace reports progress per few programs: the pipe (and the window) get ~20 a second
    sent: list[Progress] = []
    progress = _throttled(sent.append)
    t0 = time.monotonic()
    for i in range(20000):
        progress(Progress("tracing", i / 20000, i, 20000, "programs"))
    elapsed = time.monotonic() - t0
    assert sent[0] == Progress("tracing", 0.0, 0, 20000, "programs")  # the first always goes out
    assert len(sent) <= 1 + elapsed * PROGRESS_HZ + 1


def test_sticky_cuda_errors_are_recognised():
    assert poisons_cuda("launch failed: RuntimeError: CUDA error: an illegal memory access was encountered")
    assert poisons_cuda("CUDA error: device-side assert triggered")
    assert not poisons_cuda("CUDA out of memory. Tried to allocate 2.00 GiB")
    assert not poisons_cuda("BLOCK_SIZE=1000 must be a power of two")


def test_reply_helper_types_are_plain():
    # a Reply with a generation-carrying payload pickles without torch (the GUI reads it)
    assert encode(Reply(1, 1, "result", _run()))[:4]


_USER_FILE = textwrap.dedent('''
    import torch
    import triton
    import triton.language as tl

    from kernels.data.params import block, flag, shape
    from kernels.specs.spec import KernelSpec, register

    print("user kernel file imported")  # must land on stderr, not in the reply stream


    @triton.jit
    def copy_kernel(x_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
        offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
        m = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m), mask=m)


    def launch(K, t, cfg):
        if cfg["FAULT"]:  # what a kernel writing out of bounds reports on a GPU
            raise RuntimeError("CUDA error: an illegal memory access was encountered")
        grid = (triton.cdiv(cfg["N"], cfg["BLOCK_SIZE"]),)
        cfg["_grid"] = grid
        return K(copy_kernel)[grid](t["x"], t["out"], cfg["N"], BLOCK_SIZE=cfg["BLOCK_SIZE"])


    register(KernelSpec(
        name="test_copy", title="Copy", summary="out = x", kernels=(copy_kernel,),
        params=(block("BLOCK_SIZE", 256), shape("N", 1000), flag("FAULT")),
        make_inputs=lambda cfg, dev, gen: {"x": torch.randn(cfg["N"], generator=gen).to(dev),
                                           "out": torch.empty(cfg["N"], device=dev)},
        launch=launch, reference=lambda t, cfg: {"out": t["x"].double()}, outputs=("out",),
        bytes_moved=lambda cfg: 8 * cfg["N"], flops=lambda cfg: 0,
    ))
''')
