"""Every process a user's file starts ends with the worker: a child forked and left running, the
grandchild of a double fork that left the session with ``setsid()``, a ``Popen`` in a session of
its own — none outlives the client (the window's or a command's).

If this fails: a kernel file that daemonizes at import (double fork + setsid) leaves a process
running after the window or ``tilescope list --file`` exited, though the note said they were
stopped.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import psutil
import pytest
from hostile import HERE

from app.client import WorkerClient

DAEMONIZE = """
import subprocess


def _daemonize():
    # a daemon's double fork (the grandchild leaves the session with setsid) and a Popen in a
    # session of its own; returns once both have written their pid files
    d = os.environ["TILESCOPE_STRAY_DIR"]
    if os.fork() == 0:
        try:
            os.setsid()
            if os.fork() == 0:
                open(os.path.join(d, f"setsid-{os.getpid()}"), "w").close()
                time.sleep(300)
        finally:
            os._exit(0)
    p = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"], start_new_session=True)
    open(os.path.join(d, f"popen-{p.pid}"), "w").close()
    t0 = time.monotonic()
    while len(os.listdir(d)) < 2 and time.monotonic() - t0 < 120:
        time.sleep(0.01)
"""


def _spec_file(folder: Path, when: str) -> Path:
    """A kernel file that daemonizes at import (``when="import"``) or at its first launch."""
    at_import = DAEMONIZE + ("\n_daemonize()\n" if when == "import" else "")
    in_launch = "    if _LAUNCHES[0] == 1:\n        _daemonize()" if when == "launch" else "    pass"
    text = (HERE / "spec_file.py.tmpl").read_text()
    text = (text.replace("{{BEHAVIOUR}}", "daemonize").replace("{{NAME}}", f"daemon_add_{when}")
            .replace("{{N_CALLS}}", "1").replace("{{AT_IMPORT}}", at_import).replace("{{IN_LAUNCH}}", in_launch))
    path = folder / f"daemonize_{when}.py"
    path.write_text(text)
    return path


def _alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _wait(what, timeout_s: float = 240.0) -> bool:
    deadline = time.monotonic() + timeout_s  # a deadline, not a margin: a loaded machine is slow
    while not what():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


@pytest.mark.skipif(not os.sys.platform.startswith("linux"), reason="setsid and subreapers: Linux")
def test_a_file_that_daemonizes_at_import_leaves_nothing_after_the_client_closes(tmp_path, monkeypatch):
    strays = tmp_path / "strays"
    strays.mkdir()
    monkeypatch.setenv("TILESCOPE_STRAY_DIR", str(strays))
    path = _spec_file(tmp_path, "import")
    c = WorkerClient(default_timeout_s=300)
    try:
        assert c.wait_ready(240), c.stderr_tail()
        loaded = c.call("load_file", str(path), timeout=240)
        assert [i.name for i in loaded["loaded"]] == ["daemon_add_import"]
        assert len(list(strays.iterdir())) == 2, list(strays.iterdir())
    finally:
        c.close()
    pids = {q.name: int(q.name.split("-")[1]) for q in strays.iterdir()}
    try:
        # was: the setsid grandchild (reparented to init) was still sleeping after the close
        assert _wait(lambda: not any(_alive(p) for p in pids.values())), {
            k: _alive(p) for k, p in pids.items()}
    finally:
        for p in pids.values():
            try:
                os.kill(p, 9)
            except OSError:
                pass


@pytest.mark.skipif(not os.sys.platform.startswith("linux"), reason="setsid and subreapers: Linux")
def test_what_a_kernel_daemonized_ends_when_its_worker_is_killed_from_outside(tmp_path, monkeypatch):
    # a launcher that daemonizes during a run; then the OOM killer or a signal ends the worker: its
    # adopted setsid grandchild goes to init, out of its process group, and the client ends it
    # from what it last saw below the worker
    from kernels.data.results import RunRequest

    strays = tmp_path / "strays"
    strays.mkdir()
    monkeypatch.setenv("TILESCOPE_STRAY_DIR", str(strays))
    path = _spec_file(tmp_path, "launch")
    c = WorkerClient(default_timeout_s=240)
    try:
        assert c.wait_ready(240), c.stderr_tail()
        c.call("load_file", str(path), timeout=240)
        r = c.call("run", RunRequest("daemon_add_launch", {"N": 1000}, backend="interpreter", user_file=str(path),
                                     torch_baseline=False), timeout=240)
        assert r.ok, r.error
        pids = [int(q.name.split("-")[1]) for q in strays.iterdir()]
        assert len(pids) == 2 and all(_alive(p) for p in pids), pids
        worker = c.pid
        below = {d.pid for d in psutil.Process(worker).children(recursive=True)}
        assert set(pids) <= below, (pids, below)  # the setsid grandchild too: the worker is its subreaper
        time.sleep(2 * 2.0)  # two looks of the client's watcher (STRAYS_EVERY_S): a state, then the kill
        os.kill(worker, 9)
        try:  # was: the setsid grandchild and the Popen'd child ran on under init
            assert _wait(lambda: not any(_alive(p) for p in pids)), {p: _alive(p) for p in pids}
        finally:
            for p in pids:
                try:
                    os.kill(p, 9)
                except OSError:
                    pass
    finally:
        c.close()
