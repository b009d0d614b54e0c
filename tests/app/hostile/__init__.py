"""Hostile user files for the fault-injection tests, generated from two templates: a file that
registers a ``KernelSpec`` (``spec_file.py.tmpl``) and a plain Triton script as the tutorials write
them (``plain_script.py.tmpl``). A behaviour fills the template's holes: code run at import
(``AT_IMPORT``) and code run at each launch (``IN_LAUNCH``, with ``_LAUNCHES[0]`` the launch count).

    path = write(tmp_path, "spec", "hang")       # a KernelSpec file whose import never returns
    path = write(tmp_path, "script", "exit")     # a plain script that calls os._exit(3)

The files are written where the test says (a temporary folder), never here: a file that deletes
itself or forks must not touch the checkout.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

__all__ = ["AT_IMPORT", "BEHAVIOURS", "IN_LAUNCH", "KINDS", "kernel_name", "write"]

HERE = Path(__file__).resolve().parent
KINDS = ("spec", "script")

#: code run while the file is imported
AT_IMPORT: dict[str, str] = {
    "good": "",
    "hang": "while True:\n    pass",
    "exit": "os._exit(3)",
    "sys_exit": "sys.exit(4)",
    "raise": "raise RuntimeError('hostile: raised at import')",
    # the child goes on importing (and would answer a second time); the parent too
    "fork": "_CHILD = os.fork()",
    # the child sleeps, outliving whatever started it unless its process group is ended
    "fork_sleep": "if os.fork() == 0:\n    time.sleep(300)",
    "print": "print('hello from the kernel file')\nprint('{\"not\": \"the result\"}')",
    "print_flood": "for _i in range(200_000):\n    print('noise', _i)",
    # all three: print() (a JSON-looking line too), a write to fd 1, a flood of 200 000 lines
    "noisy": ("print('hello from the kernel file')\nprint('{\"not\": \"the result\"}')\n"
              "os.write(1, b'written to fd 1 at import\\n')\nfor _i in range(200_000):\n    print('noise', _i)"),
    "stdout_fd": "os.write(1, b'written to fd 1 at import\\n')",
    "self_delete": "os.remove(__file__)",
    "kill_self": "os.kill(os.getpid(), signal.SIGKILL)",
    "stop_self": "os.kill(os.getpid(), signal.SIGSTOP)",
}

#: code run at each launch (after ``_LAUNCHES[0]`` was counted)
IN_LAUNCH: dict[str, str] = {
    "raise_after_2": "if _LAUNCHES[0] > 2:\n    raise RuntimeError(f'hostile: launch {_LAUNCHES[0]} refused')",
    "kill_at_block_128": "if cfg['BLOCK_SIZE'] == 128:\n    os.kill(os.getpid(), signal.SIGKILL)",
    "hang_in_launch": "while True:\n    pass",
}

BEHAVIOURS = tuple(AT_IMPORT) + tuple(IN_LAUNCH)


def kernel_name(kind: str, path: Path, name: str = "hostile_add") -> str:
    """The name the file's (first) kernel gets: the spec's name, or ``<stem>.<kernel>``."""
    return name if kind == "spec" else f"{Path(path).stem}.hostile_copy_kernel"


def write(folder: Path, kind: str, behaviour: str, *, name: str = "hostile_add", n_calls: int = 1,
          filename: str | None = None) -> Path:
    """Write the ``kind`` template ("spec" or "script") with ``behaviour`` into ``folder``."""
    if kind not in KINDS:
        raise ValueError(f"kind {kind!r}: one of {KINDS}")
    at_import = AT_IMPORT.get(behaviour, "")
    in_launch = IN_LAUNCH.get(behaviour, "")
    if behaviour not in BEHAVIOURS:
        raise ValueError(f"behaviour {behaviour!r}: one of {BEHAVIOURS}")
    if kind == "script" and "cfg[" in in_launch:
        in_launch = in_launch.replace("cfg['BLOCK_SIZE']", "block")
    text = (HERE / f"{'spec_file' if kind == 'spec' else 'plain_script'}.py.tmpl").read_text()
    text = (text.replace("{{BEHAVIOUR}}", behaviour).replace("{{NAME}}", name)
            .replace("{{N_CALLS}}", str(n_calls))
            .replace("{{AT_IMPORT}}", at_import or "pass")
            .replace("{{IN_LAUNCH}}", textwrap.indent(in_launch or "pass", "    ")))
    path = Path(folder) / (filename or f"{kind}_{behaviour}.py")
    path.write_text(text)
    return path


# ---------------------------------------------------------------------------------------------
# finding what a test started (and what it forked), whoever else runs on the machine

TAG_VAR = "TILESCOPE_FAULT_TAG"


def tagged(tag: str) -> list[int]:
    """Live processes whose environment carries ``TILESCOPE_FAULT_TAG=tag``: what a command (or a
    window) started with that tag in its environment, its workers and whatever they forked —
    still found after their parent died and they were handed to init."""
    import psutil

    out = []
    for p in psutil.process_iter(["status"]):
        try:
            if p.info["status"] == psutil.STATUS_ZOMBIE or p.pid == __import__("os").getpid():
                continue
            if p.environ().get(TAG_VAR) == tag:
                out.append(p.pid)
        except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess, OSError):
            pass
    return out


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, reaped or not, does not)."""
    import psutil

    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def poll(pred, timeout: float, what: str = "", step=None) -> bool:
    """Call ``step()`` (default: sleep 20 ms; the GUI tests pass ``lambda: QTest.qWait(20)``, which
    keeps the event loop turning) until ``pred()`` holds; AssertionError naming ``what`` after
    ``timeout`` seconds. True, so ``assert poll(...)`` reads well."""
    import time

    end = time.monotonic() + timeout
    wait = step or (lambda: time.sleep(0.02))
    while not pred():
        if time.monotonic() > end:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what or pred}")
        wait()
    return True


# ---------------------------------------------------------------------------------------------
# a run history another process holds

_LOCKER = """
import sqlite3, sys, time
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
if sys.argv[3] == "exclusive":
    conn.execute("PRAGMA locking_mode=EXCLUSIVE")
conn.execute("BEGIN EXCLUSIVE" if sys.argv[3] == "exclusive" else "BEGIN IMMEDIATE")
conn.execute("INSERT INTO runs (time, kernel) VALUES (0, 'uncommitted')")
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
conn.execute("ROLLBACK")
"""


def hold_lock(db, seconds: float, mode: str = "exclusive"):
    """Another process holding ``db`` for ``seconds``: "exclusive" (``locking_mode=EXCLUSIVE``,
    nobody else may even read) or "immediate" (a writer's lock: readers go on). Returns the
    Popen once the lock is held; kill() it to let go."""
    import subprocess
    import sys

    p = subprocess.Popen([sys.executable, "-c", _LOCKER, str(db), str(seconds), mode], stdout=subprocess.PIPE,
                         text=True)
    assert p.stdout.readline().strip() == "locked"
    return p
