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

AT_IMPORT = """
import subprocess
_d = os.environ["TILESCOPE_STRAY_DIR"]
if os.fork() == 0:  # a daemon's double fork: the grandchild leaves the session
    try:
        os.setsid()
        if os.fork() == 0:
            open(os.path.join(_d, f"setsid-{os.getpid()}"), "w").close()
            time.sleep(300)
    finally:
        os._exit(0)
_p = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"], start_new_session=True)
open(os.path.join(_d, f"popen-{_p.pid}"), "w").close()
"""


def _spec_file(folder: Path) -> Path:
    text = (HERE / "spec_file.py.tmpl").read_text()
    text = (text.replace("{{BEHAVIOUR}}", "daemonize").replace("{{NAME}}", "daemon_add").replace("{{N_CALLS}}", "1")
            .replace("{{AT_IMPORT}}", AT_IMPORT).replace("{{IN_LAUNCH}}", "    pass"))
    path = folder / "daemonize.py"
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
    path = _spec_file(tmp_path)
    c = WorkerClient(default_timeout_s=300)
    try:
        assert c.wait_ready(240), c.stderr_tail()
        loaded = c.call("load_file", str(path), timeout=240)
        assert [i.name for i in loaded["loaded"]] == ["daemon_add"]
        assert _wait(lambda: len(list(strays.iterdir())) == 2), list(strays.iterdir())
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
