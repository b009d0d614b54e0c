"""One worker child process seen from the parent: the process and its three threads. No Qt, no torch.

``WorkerProcess.spawn(...)`` starts ``python -c "from app.worker import main; ..."`` with pipes on
stdin, stdout and stderr and three daemon threads:

- a reader: reply frames from the child's stdout, handed to ``on_reply(proc, reply)``; a reply
  that cannot be decoded goes to ``on_undecodable(proc, error)`` and the stream goes on; when the
  stream ends (or breaks) the process is reaped and ``on_exit(proc, returncode, why)`` follows;
- a writer: request frames from ``send``'s queue, so a caller never blocks on a full pipe;
- a stderr drain: keeps the last 200 lines (``stderr_tail``) and passes each to ``on_stderr``.

The worker leads a process group of its own (a new session): whatever it starts — the recording
processes of a trace, a child a user's kernel file forks at import — is in that group, and the
group is ended with the worker (``kill``, ``stop``, and once the worker has exited), so nothing a
kernel file forked outlives the window or the command.

What a request is, when it times out and what a crash means are ``app.client``'s business; this
module only moves bytes and tells how a process ended (``describe_exit``).
"""

from __future__ import annotations

import collections
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .protocol import PayloadError, ProtocolError, Reply, Request, encode, read_frame

__all__ = ["WorkerProcess", "describe_exit", "last_lines", "worker_command", "worker_processes"]

#: the reply pipe's buffer (Linux): a big reply crosses in 1 MiB steps instead of 64 KiB ones. Each
#: step is a hand-over between the worker (niced) and the client's reader thread, and on a busy
#: machine each costs a time slice (figures: docs/benchmarks/transport.md)
_PIPE_BYTES = 1 << 20

_ROOT = str(Path(__file__).resolve().parents[1])
#: how often the processes below a worker are noted (``WorkerProcess._watch_strays``)
STRAYS_EVERY_S = 2.0

#: the worker gets a process group of its own (POSIX)
_GROUPS = hasattr(os, "killpg") and os.name == "posix"


def worker_command(python: str, nice: int = 0) -> list[str]:
    """The command line that starts a worker.

    Not "-m app.worker": with -m the current directory comes first on sys.path, and a user whose
    project has its own "app" package would start that instead. ``nice``: the worker lowers its
    own CPU priority first thing (the processes a trace forks inherit it), so a window on a
    machine with few cores keeps its time slices."""
    lower = f"import os; os.nice({nice}); " if nice and hasattr(os, "nice") else ""
    boot = (f"{lower}import sys; sys.path.insert(0, {_ROOT!r}); "
            "from app.worker_process import become_subreaper; become_subreaper(); "
            "from app.worker import main; sys.exit(main())")
    return [python, "-c", boot]


def become_subreaper() -> bool:
    """Run in the worker first thing (Linux): processes orphaned below it — the grandchild of a
    double fork that left the session with ``setsid()`` — become its children instead of init's,
    so the worker and its parent can still find and end them. False where there is no such thing."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(36, 1, 0, 0, 0) == 0  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        return False


def descendants(pid: int) -> list[Any]:
    """Every process below ``pid`` now (psutil objects: their identity is checked before a kill,
    so a pid reused meanwhile is left alone); [] without psutil or once ``pid`` is gone."""
    try:
        import psutil

        return psutil.Process(pid).children(recursive=True)
    except Exception:  # noqa: BLE001 - no psutil, or the process is gone: the process group still is ended
        return []


def end_all(procs: list[Any]) -> None:
    """SIGKILL each process still running (a setsid() child has left the worker's process group,
    so ``killpg`` does not reach it)."""
    for p in procs:
        try:
            if p.is_running():
                p.kill()
        except Exception:  # noqa: BLE001 - gone already, or not ours to end
            pass


class WorkerProcess:
    """A running worker child. ``ready`` is set by the owner once the worker said hello;
    ``retired`` marks a process ended on purpose (killed or shut down), whose end is no crash."""

    def __init__(self, popen: subprocess.Popen, *, on_reply: Callable[[WorkerProcess, Reply], Any],
                 on_undecodable: Callable[[WorkerProcess, PayloadError], Any],
                 on_exit: Callable[[WorkerProcess, int, str], Any],
                 on_stderr: Callable[[str], Any] | None = None, echo_stderr: bool = False) -> None:
        self.popen = popen
        self.pid = popen.pid
        self.outbox: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self.stderr_tail: collections.deque[str] = collections.deque(maxlen=200)
        self.ready = False
        self.retired = False
        self.stderr_done = threading.Event()
        self.threads: dict[str, threading.Thread] = {}
        self._on_reply = on_reply
        self._on_undecodable = on_undecodable
        self._on_exit = on_exit
        self._on_stderr = on_stderr
        self._echo_stderr = echo_stderr
        self._strays: list[Any] = []  # the processes below the worker, as last looked at

    @classmethod
    def spawn(cls, command: list[str], env: dict[str, str], cwd: str | None, **callbacks: Any) -> WorkerProcess:
        """Start the process and its threads; raises OSError when it cannot be started. The
        worker's stdout is unbuffered and this checkout comes first on its PYTHONPATH."""
        env = dict(env)
        env["PYTHONPATH"] = os.pathsep.join(x for x in (_ROOT, env.get("PYTHONPATH", "")) if x)
        env["PYTHONUNBUFFERED"] = "1"
        popen = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 env=env, cwd=cwd, close_fds=True, start_new_session=_GROUPS)
        _widen_pipe(popen.stdout)
        proc = cls(popen, **callbacks)
        for target, name in ((proc._read_loop, "reader"), (proc._write_loop, "writer"),
                             (proc._stderr_loop, "stderr"), (proc._watch_strays, "strays")):
            t = threading.Thread(target=target, name=f"tilescope-worker-{proc.pid}-{name}", daemon=True)
            proc.threads[name] = t
            t.start()
        return proc

    def _watch_strays(self) -> None:
        """Every ``STRAYS_EVERY_S`` while the worker lives: the processes below it, so that those a
        worker killed from outside (the OOM killer, a signal) leaves behind — handed to init, out
        of its process group — can still be ended."""
        while self.popen.poll() is None:
            self._strays = descendants(self.pid)
            time.sleep(STRAYS_EVERY_S)
        # the worker is gone: end them here (they may hold its stdout open, so that the reader
        # never sees the stream end)
        end_all(self._strays)

    # -- control --------------------------------------------------------------------------------
    def send(self, frame: bytes) -> None:
        """Queue one encoded frame for the writer thread."""
        self.outbox.put(frame)

    def kill(self) -> None:
        """SIGKILL the worker, everything in its process group and every process below it (one
        that left the group with ``setsid()`` too)."""
        strays = descendants(self.pid)
        self.kill_group()
        try:
            self.popen.kill()
        except OSError:
            pass
        end_all(strays)

    def kill_group(self) -> None:
        """SIGKILL the worker's process group: the worker, if alive, and whatever it forked (a
        child keeps the group after its parent died). Nothing when the group is empty."""
        if not _GROUPS:
            return
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError, OSError):
            pass

    def retire(self) -> None:
        """Kill the process on purpose: its reader thread reaps it, and its end is no crash."""
        self.retired = True
        self.outbox.put(None)
        self.kill()

    def stop(self, timeout: float) -> None:
        """Ask the worker to shut down; terminate, then kill it if it has not gone in ``timeout``."""
        self.retired = True
        strays = descendants(self.pid)  # now: once the worker is gone they belong to init
        try:
            self.outbox.put(encode(Request(0, 0, "shutdown", None)))
        except PayloadError:
            pass
        self.outbox.put(None)  # the writer closes stdin after the shutdown frame
        try:
            self.popen.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.popen.terminate()
            try:
                self.popen.wait(timeout=1.0)
            except subprocess.TimeoutExpired:
                self.kill()
                self.popen.wait()
        self.kill_group()  # what the worker forked and left running
        end_all(strays)  # and what left its group (setsid)
        # close our ends once their threads are done (closing under a blocked read could hang; a
        # grandchild that inherited stderr may keep it open a little longer)
        for name, stream in (("reader", self.popen.stdout), ("stderr", self.popen.stderr)):
            t = self.threads.get(name)
            if t is not None and t is not threading.current_thread():
                t.join(timeout=2.0)
                if t.is_alive():
                    continue
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass

    # -- threads --------------------------------------------------------------------------------
    def _write_loop(self) -> None:
        stdin = self.popen.stdin
        try:
            while True:
                frame = self.outbox.get()
                if frame is None:
                    break
                stdin.write(frame)
                stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            pass  # the reader sees the end and reports it
        finally:
            try:
                stdin.close()
            except OSError:
                pass

    def _stderr_loop(self) -> None:
        try:
            for raw in iter(self.popen.stderr.readline, b""):
                line = raw.decode("utf-8", "replace").rstrip("\n")
                self.stderr_tail.append(line)
                if self._echo_stderr:
                    print(f"[worker {self.pid}] {line}", file=sys.stderr)
                if self._on_stderr is not None:
                    self._on_stderr(line)
        except (OSError, ValueError):
            pass
        finally:
            self.stderr_done.set()

    def _read_loop(self) -> None:
        why = ""
        try:
            while True:
                try:
                    msg = read_frame(self.popen.stdout)
                except PayloadError as e:
                    # one reply could not be decoded: the owner fails that request, keeps the worker
                    self._on_undecodable(self, e)
                    continue
                if msg is None:
                    break
                if isinstance(msg, Reply):
                    self._on_reply(self, msg)
        except ProtocolError as e:
            why = f"the reply stream broke: {e}"
        except (OSError, ValueError) as e:
            why = f"reading the worker failed: {e}"
        if why and msg_end_is_death(self.popen):
            why = ""  # the process ended on its own (killed mid-reply): its end says why, not the stream
        if why:
            self.kill()
        # the process ends (or was killed): reap it, then let the owner decide what that means
        try:
            rc = self.popen.wait(timeout=10.0)
        except subprocess.TimeoutExpired:
            self.kill()
            rc = self.popen.wait()
        self.kill_group()  # a forked child holding the stderr pipe would keep it open
        end_all(self._strays)  # what had left its group (setsid) when last looked at
        self.stderr_done.wait(timeout=2.0)
        self.outbox.put(None)  # let the writer thread end too
        self._on_exit(self, rc, why)


def msg_end_is_death(popen: subprocess.Popen, wait_s: float = 1.0) -> bool:
    """Whether a reply stream that broke did so because the process ended: it has exited, or
    does within ``wait_s`` (a signal that kills the worker while it writes a large reply reaches
    the reader as a truncated frame before the exit status is there)."""
    try:
        popen.wait(timeout=wait_s)
        return True
    except subprocess.TimeoutExpired:
        return False


def describe_exit(rc: int | None) -> str:
    """How a process ended, for a message: "was killed by SIGKILL (out of memory, ...)"."""
    if rc is None:
        return "ended"
    if rc < 0:
        try:
            name = signal.Signals(-rc).name
        except ValueError:
            name = f"signal {-rc}"
        hint = {"SIGKILL": " (out of memory, or killed by another process)",
                "SIGSEGV": " (a crash in native code)", "SIGABRT": " (aborted by native code)"}.get(name, "")
        return f"was killed by {name}{hint}"
    if rc == 0:
        return "exited unexpectedly (status 0)"
    return f"exited with status {rc}"


def last_lines(lines: Any, n: int) -> str:
    """The last ``n`` non-blank lines, joined with " | "."""
    keep = [ln.strip() for ln in list(lines) if ln.strip()][-n:]
    return " | ".join(keep)


def worker_processes() -> list[Any]:
    """Live worker processes started from this process (psutil.Process objects), for the tests
    and benchmarks that check no worker is left behind."""
    import psutil

    out = []
    for p in psutil.Process().children(recursive=True):
        try:
            if "app.worker import main" in " ".join(p.cmdline()) and p.status() != psutil.STATUS_ZOMBIE:
                out.append(p)
        except psutil.NoSuchProcess:
            pass
    return out


def _widen_pipe(stream: Any) -> None:
    try:
        import fcntl

        fcntl.fcntl(stream.fileno(), getattr(fcntl, "F_SETPIPE_SZ", 1031), _PIPE_BYTES)
    except (ImportError, AttributeError, OSError, ValueError):
        pass  # not Linux, or above the system's pipe-max-size: the default pipe works, only slower
