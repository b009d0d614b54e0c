"""Record parts of a grid in forked processes, one contiguous range of programs each.

The interpreter is pure Python, so one process runs one program at a time; a grid of 16384
programs takes seconds. Programs of a launch are independent by Triton's contract, so the
tracer can fork after everything is set up (kernel rewritten, hooks installed, arguments
converted) and let each child run its own range of programs and record into its own copy of the
recorder. The tensors' storages are moved to shared memory first, so the children's stores (and
atomics: the interpreter's atomics are CPU atomics, valid across processes on shared pages) land
where the parent sees them.

A child sends frames on its own pipe: ``P`` (programs done and lanes recorded so far), then ``R``
(its recording) or ``E`` (an error message); it ends with ``os._exit`` so nothing of the parent (atexit handlers,
buffered output, the worker's frame pipe) is run or written twice. The parent polls
``cancel()`` while it waits and kills the children when it returns true.

Linux only (fork without exec is unsafe on macOS and absent on Windows); elsewhere, and for small
grids, the tracer records in-process.
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import struct
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["available", "auto_workers", "run_forked", "share", "ChildFailed"]

_HEADER = struct.Struct(">cQ")
_TICK = struct.Struct(">QQ")  # programs done, lanes recorded
_MIN_PROGRAMS_PER_WORKER = 32


class ChildFailed(Exception):
    """A child reported an error (``message``, ``detail``) or died."""

    def __init__(self, message: str, detail: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.detail = detail


def available() -> bool:
    return sys.platform.startswith("linux") and hasattr(os, "fork")


def auto_workers(n_programs: int) -> int:
    """Processes worth forking for ``n_programs``: the CPUs this process may use (at most 8),
    at least 32 programs each; 1 where forking is unavailable."""
    if not available():
        return 1
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    return max(1, min(cpus, 8, n_programs // _MIN_PROGRAMS_PER_WORKER))


def _send(fd: int, kind: bytes, payload: bytes) -> None:
    data = _HEADER.pack(kind, len(payload)) + payload
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def run_forked(parts: list[np.ndarray], child_main: Callable[[np.ndarray, Callable[..., None]], Any],
               on_progress: Callable[[int, int], None] | None = None,
               cancel: Callable[[], bool] | None = None,
               describe_error: Callable[[BaseException], tuple[str, str]] | None = None) -> list[Any]:
    """Fork one child per entry of ``parts``; child k runs ``child_main(parts[k], tick)`` (``tick(n,
    lanes)`` reports n programs done and ``lanes`` element accesses recorded; ``on_progress`` gets
    the sums over the children) and its return value comes back pickled. Returns the values in
    order. Raises ``ChildFailed`` with the first error (the other children are killed), or with
    ``message == "cancelled"`` when ``cancel()`` returned true. Warnings and log records of the
    children are dropped."""
    children: list[tuple[int, int]] = []
    try:
        for part in parts:
            r, w = os.pipe()
            pid = os.fork()
            if pid == 0:  # -------- child
                code = 0
                try:
                    os.close(r)
                    for _, other_r in children:
                        os.close(other_r)
                    # nothing of the parent's reporting may run here: a log record handled by the
                    # worker's handler would write a frame into the parent's pipe to the GUI
                    import logging
                    import warnings

                    logging.disable(logging.CRITICAL)
                    warnings.simplefilter("ignore")
                    last = [0.0]

                    def tick(done: int, lanes: int = 0) -> None:
                        now = time.monotonic()
                        if now - last[0] >= 0.05:
                            last[0] = now
                            _send(w, b"P", _TICK.pack(done, lanes))

                    value = child_main(part, tick)
                    _send(w, b"R", pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
                except BaseException as e:  # noqa: BLE001 - reported to the parent, never raised here
                    try:
                        msg = describe_error(e) if describe_error else (f"{type(e).__name__}: {e}", "")
                        _send(w, b"E", pickle.dumps(msg))
                    except BaseException:  # noqa: BLE001
                        code = 1
                finally:
                    os._exit(code)
            os.close(w)
            children.append((pid, r))
        return _collect(children, on_progress, cancel)
    finally:
        for pid, r in children:
            try:
                os.close(r)
            except OSError:
                pass
            _reap(pid)


def _reap(pid: int) -> None:
    try:
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done == 0:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
    except ChildProcessError:
        pass
    except OSError:
        pass


def _collect(children: list[tuple[int, int]], on_progress: Callable[[int, int], None] | None,
             cancel: Callable[[], bool] | None) -> list[Any]:
    bufs = {r: bytearray() for _, r in children}
    index = {r: k for k, (_, r) in enumerate(children)}
    done = [0] * len(children)
    lanes = [0] * len(children)
    results: list[Any] = [None] * len(children)
    finished = [False] * len(children)
    open_fds = set(bufs)
    while open_fds:
        if cancel is not None and cancel():
            raise ChildFailed("cancelled")
        ready, _, _ = select.select(list(open_fds), [], [], 0.05)
        for fd in ready:
            chunk = os.read(fd, 1 << 20)
            k = index[fd]
            if not chunk:
                open_fds.discard(fd)
                if not finished[k]:
                    pid = children[k][0]
                    raise ChildFailed(f"a tracing process (pid {pid}) ended without a result "
                                      f"({_exit_text(pid)})")
                continue
            buf = bufs[fd]
            buf += chunk
            while len(buf) >= _HEADER.size:
                kind, size = _HEADER.unpack_from(buf)
                if len(buf) < _HEADER.size + size:
                    break
                payload = bytes(buf[_HEADER.size:_HEADER.size + size])
                del buf[:_HEADER.size + size]
                if kind == b"P":
                    done[k], lanes[k] = _TICK.unpack(payload)
                    if on_progress is not None:
                        on_progress(sum(done), sum(lanes))
                elif kind == b"R":
                    results[k] = pickle.loads(payload)
                    finished[k] = True
                elif kind == b"E":
                    message, detail = pickle.loads(payload)
                    raise ChildFailed(message, detail)
    return results


def _exit_text(pid: int) -> str:
    try:
        _, status = os.waitpid(pid, 0)
    except ChildProcessError:
        return "exit status unknown"
    if os.WIFSIGNALED(status):
        return f"killed by signal {os.WTERMSIG(status)}"
    return f"exit status {os.WEXITSTATUS(status)}"


def share(bound: dict[str, Any]) -> None:
    """Move every tensor argument's storage to shared memory (in place: views follow), so that
    forked children write where the parent reads."""
    def walk(v: Any) -> None:
        base = getattr(v, "base", None) if type(v).__name__ == "TensorWrapper" else v
        if hasattr(base, "share_memory_") and hasattr(base, "untyped_storage"):
            base.share_memory_()
        elif isinstance(v, tuple):
            for x in v:
                walk(x)
        elif hasattr(v, "block_shape") and hasattr(getattr(v, "base", None), "untyped_storage"):
            walk(v.base)  # a TensorDescriptor: its loads and stores address its base

    for v in bound.values():
        walk(v)
