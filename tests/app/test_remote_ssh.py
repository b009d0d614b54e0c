"""The worker on another host over ssh — here a real sshd on localhost (no mock), the interpreter.

If these fail, ``tilescope --remote user@host`` cannot run, trace or sweep on the server, a dropped
connection leaves the window without a worker (or says nothing), a remote worker outlives its
connection, or a server with another Tilescope talks to the window and answers garbage.
"""

from __future__ import annotations

import os
import signal
import threading
from pathlib import Path

import psutil
import pytest
from hostile import poll
from local_sshd import LocalSshd, sshd_binary

from app.client import WorkerClient
from app.transport_ssh import Remote, parse_remote
from kernels.data.results import RunRequest, SweepRequest
from kernels.data.trace import TraceRequest
from kernels.data.wire import wire_version

needs_sshd = pytest.mark.skipif(sshd_binary() is None, reason="OpenSSH's sshd is not installed "
                                                               "(apt-get install openssh-server)")


@pytest.fixture(scope="module")
def sshd(tmp_path_factory: pytest.TempPathFactory):
    if sshd_binary() is None:
        pytest.skip("sshd is not installed")
    server = LocalSshd.start(tmp_path_factory.mktemp("sshd"))
    yield server
    server.stop()


def _run(n: int) -> RunRequest:
    return RunRequest("vector_add", {"N": n, "BLOCK_SIZE": 1024}, backend="interpreter")


def _ancestors(pid: int) -> list[str]:
    return [p.name() for p in psutil.Process(pid).parents()]


@needs_sshd
def test_a_remote_worker_runs_traces_and_sweeps_over_ssh(sshd):
    with WorkerClient(remote=sshd.remote(), default_timeout_s=300) as c:
        assert c.wait_ready(120), c.stderr_tail()
        # the local child is ssh; the worker is a process of the ssh server's session
        assert psutil.Process(c.pid).name() == "ssh"
        assert any("sshd" in n for n in _ancestors(c.hello["pid"])) and c.hello["pid"] != c.pid
        assert c.hello["versions"]["tilescope_wire"] == wire_version()
        r = c.call("run", _run(5000), timeout=120)
        assert r.ok and r.check.passed and r.grid == (5,), r.error
        t = c.call("trace", TraceRequest("vector_add", {"N": 5000, "BLOCK_SIZE": 1024}), timeout=120)
        out = next(i for i, x in enumerate(t.trace.tensors) if x.name == "out_ptr")
        assert t.error is None and t.trace.maps[out].writer[4999] == 4  # element 4999 is program 4's
        points = []
        s = c.call("sweep", SweepRequest("vector_add", {"N": 4096}, {"BLOCK_SIZE": [256, 1024]},
                                         backend="interpreter", torch_baseline=False),
                   timeout=300, on_point=points.append)
        assert s.error is None and len(s.points) == 2 and len(points) == 2  # points streamed over ssh
        assert all(p.result.ok for p in s.points) and s.best is not None


@needs_sshd
def test_a_killed_ssh_is_a_lost_connection_then_a_new_one(sshd):
    errors: list = []
    got = threading.Event()
    c = WorkerClient(remote=sshd.remote(), default_timeout_s=300,
                     on_error=lambda g, e: (errors.append(e), got.set()))
    try:
        assert c.wait_ready(120), c.stderr_tail()
        ssh_pid, worker_pid = c.pid, c.hello["pid"]
        c.submit("run", _run(1 << 22))  # thousands of interpreted programs: still running when killed
        poll(lambda: c.state == "busy", 30, "the run sent")
        os.kill(ssh_pid, signal.SIGKILL)
        assert got.wait(60)
        err = errors[0]
        assert err.kind == "worker" and "ssh" in err.message and "127.0.0.1" in err.message, err.message
        assert "restarted" in err.message
        # the remote worker ends with its connection: nothing left running on the host
        poll(lambda: not psutil.pid_exists(worker_pid) or psutil.Process(worker_pid).status() == "zombie",
             60, "the remote worker gone")
        assert c.wait_ready(120) and c.pid != ssh_pid and c.restarts == 1
        after = c.call("run", _run(8192), timeout=120)
        assert after.ok and after.values["N"] == 8192 and c.hello["pid"] != worker_pid
    finally:
        c.close()


@needs_sshd
def test_an_unreachable_host_is_said_once_not_retried_forever(sshd):
    dead = Remote(sshd.remote().host, options=("-p", "1", *sshd.remote().options[2:]))
    c = WorkerClient(remote=dead, default_timeout_s=60)
    try:
        assert not c.wait_ready(120)
        with pytest.raises(Exception) as e:
            c.call("run", _run(1000), timeout=60)
        assert "ssh" in str(e.value) and "127.0.0.1" in str(e.value)
    finally:
        c.close()


def test_a_worker_of_another_version_is_refused_with_a_sentence():
    remote = Remote("gpu-box")
    ok = {"versions": {"tilescope_wire": wire_version(), "numpy": __import__("numpy").__version__}}
    assert remote.check_hello(ok) is None
    old = {"versions": {"tilescope_wire": "0123456789ab", "numpy": ok["versions"]["numpy"]}}
    said = remote.check_hello(old)
    assert said and "gpu-box" in said and "0123456789ab" in said and wire_version() in said


def test_the_remote_command_runs_this_boot_line_through_ssh():
    r = parse_remote("me@gpu-box:2222", python="/opt/venv/bin/python", root="/srv/tilescope")
    cmd = r.command(nice=10, env={"TILESCOPE_DATA_DIR": "/d", "HOME": "/h"})
    assert cmd[0] == "ssh" and "BatchMode=yes" in cmd and cmd[cmd.index("-p") + 1] == "2222"
    assert cmd[-2] == "me@gpu-box" and cmd[-1].startswith("exec env PYTHONUNBUFFERED=1 TILESCOPE_DATA_DIR=/d ")
    assert "/opt/venv/bin/python" in cmd[-1] and "/srv/tilescope" in cmd[-1] and "HOME" not in cmd[-1]
    assert str(Path(__file__).resolve().parents[2]) not in cmd[-1]
    assert parse_remote("") is None
    with pytest.raises(ValueError):
        parse_remote("-oProxyCommand=evil")
