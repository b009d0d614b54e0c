"""The worker: a child process that owns torch, triton and CUDA. ``python -m app.worker``.

It reads ``Request`` frames from stdin and writes ``Reply`` frames to stdout (``app.protocol``).
Requests run one at a time on the main thread; a reader thread keeps reading meanwhile, so that a
``cancel`` reaching it during a long request sets that request's cancel flag (the engine polls it
between stages, points and programs) and a ``ping`` is answered at once.

What keeps the pipe and the process healthy:

- the real stdout is kept for frames only: file descriptor 1 is pointed at stderr at start, so
  prints from user kernels, triton or a C library cannot corrupt a frame; stdin is swapped for
  /dev/null for the same reason;
- an exception inside a request becomes an ``error`` reply (message + traceback tail) and the
  worker keeps serving; a reply that cannot be sent (a torch object in a result) becomes an error
  reply naming the object;
- progress replies (a ``kernels.data.results.Progress`` each) are sent at most ``PROGRESS_HZ``
  times a second;
- a sticky CUDA error (illegal address and friends) leaves the CUDA context unusable for good:
  after answering that request the worker exits with ``EXIT_RESTART`` so the client starts a
  fresh one;
- stdin closing (the parent exited or died) cancels the running request and exits; a watchdog
  ends the process if the request does not stop within ``EXIT_GRACE_S``. SIGINT is ignored: a
  Ctrl+C in the terminal is the parent's to handle;
- user code that forks (a kernel file calling ``os.fork()`` at import): the child returns into
  the request like the parent would, and would answer a second time and go on serving; it ends
  at once instead (``_handle`` checks the process id), and children a load left running are
  stopped, with a note in the answer. Whatever is left is ended with the worker's process group
  (``app.worker_process``).
"""

from __future__ import annotations

import dataclasses
import logging
import os
import queue
import re
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable
from typing import Any

from .protocol import MAX_FRAME, PayloadError, ProtocolError, Reply, Request, encode, read_frame

__all__ = ["EXIT_GRACE_S", "EXIT_RESTART", "PROGRESS_HZ", "Server", "main", "poisons_cuda"]

#: exit status meaning "the CUDA context is unusable, start a fresh worker" (EX_TEMPFAIL)
EXIT_RESTART = 75
#: seconds the worker waits for the running request after its parent went away
EXIT_GRACE_S = 3.0
#: the most progress replies per second
PROGRESS_HZ = 20.0

_TRACEBACK_LINES = 25

# CUDA errors after which every later CUDA call fails too (the context is corrupt); see the CUDA
# runtime docs: "the process must be terminated and relaunched".
_STICKY_CUDA = re.compile(
    r"illegal memory access|illegal address|illegal instruction|misaligned address|"
    r"unspecified launch failure|device-side assert|launch timed out|hardware stack error|"
    r"CUDA_ERROR_(ILLEGAL_ADDRESS|ILLEGAL_INSTRUCTION|MISALIGNED_ADDRESS|LAUNCH_FAILED|ASSERT)",
    re.IGNORECASE,
)


def poisons_cuda(text: str) -> bool:
    """Whether an error text is one of the sticky CUDA errors that need a fresh process."""
    return bool(_STICKY_CUDA.search(text or ""))


def _traceback_tail(exc: BaseException) -> str:
    lines = traceback.format_exception(type(exc), exc, exc.__traceback__)
    text = "".join(lines).rstrip().splitlines()
    return "\n".join(text[-_TRACEBACK_LINES:])


class Server:
    """Serves requests from ``fin`` (a binary stream) and writes replies to file descriptor ``out_fd``."""

    def __init__(self, fin: Any, out_fd: int) -> None:
        self._fin = fin
        self._out_fd = out_fd
        self._write_lock = threading.Lock()
        self._queue: queue.Queue[Request | None] = queue.Queue()
        self._cancel: dict[int, threading.Event] = {}
        self._cancel_lock = threading.Lock()
        self._current: Request | None = None
        self._parent_gone = threading.Event()
        self._restart_after = False
        #: kernels.engine.handlers.EngineState (live cache, kept trace, compile ahead), made by the
        #: first request: the engine (torch, triton) is imported then, not at start
        self._state: Any = None
        self._pid = os.getpid()

    # -- output ---------------------------------------------------------------------------------
    def send(self, reply: Reply) -> bool:
        """Write one reply; False when the parent is gone (broken pipe)."""
        too_big = _oversized(reply.payload)
        try:
            if too_big:  # refused before pickling gigabytes just to find out
                raise PayloadError(too_big)
            data = encode(reply)
        except PayloadError as e:
            if reply.kind not in ("result", "point"):
                print(f"tilescope worker: dropped a {reply.kind} reply: {e}", file=sys.stderr)
                return True
            # the request still gets an answer, saying what could not be sent (too large: the
            # user's shapes; anything else: a bug)
            from kernels.data.results import ErrorInfo

            data = encode(Reply(reply.id, reply.generation, "error", ErrorInfo(
                "validation" if too_big else "internal",
                f"the {reply.kind} of this request cannot be sent to the app: {e}")))
        view = memoryview(data)
        try:
            with self._write_lock:
                while view:
                    k = os.write(self._out_fd, view)
                    view = view[k:]
        except (BrokenPipeError, OSError):
            self._parent_gone.set()
            return False
        return True

    def log(self, level: str, message: str) -> None:
        cur = self._current
        self.send(Reply(cur.id if cur else 0, cur.generation if cur else 0, "log", (level, message)))

    # -- input ----------------------------------------------------------------------------------
    def _cancel_event(self, rid: int) -> threading.Event:
        with self._cancel_lock:
            return self._cancel.setdefault(rid, threading.Event())

    def _cancel_all(self) -> None:
        with self._cancel_lock:
            for ev in self._cancel.values():
                ev.set()

    def _read_loop(self) -> None:
        try:
            while True:
                try:
                    msg = read_frame(self._fin)
                except PayloadError as e:  # one bad request; the stream is still in step
                    print(f"tilescope worker: ignored a request: {e}", file=sys.stderr)
                    continue
                if msg is None:
                    break
                if not isinstance(msg, Request):
                    print(f"tilescope worker: ignored a {type(msg).__name__} on stdin", file=sys.stderr)
                    continue
                if msg.kind == "cancel":
                    # payload: the id to cancel, or None for whatever is running or queued
                    if msg.payload is None:
                        self._cancel_all()
                    else:
                        self._cancel_event(int(msg.payload)).set()
                    continue
                if msg.kind == "ping":
                    cur, state = self._current, self._state
                    self.send(Reply(msg.id, msg.generation, "result", {
                        "pid": os.getpid(), "busy": cur.kind if cur else None,
                        "precompiling": state is not None and state.precompiling}))
                    continue
                if msg.kind == "shutdown":
                    self._cancel_all()
                    self._queue.put(None)
                    continue
                self._cancel_event(msg.id)
                self._queue.put(msg)
        except ProtocolError as e:
            print(f"tilescope worker: the request stream is corrupt, stopping: {e}", file=sys.stderr)
        except OSError as e:
            print(f"tilescope worker: stdin failed, stopping: {e}", file=sys.stderr)
        # stdin closed: the parent is gone (or shut us down). Stop what runs and leave.
        self._parent_gone.set()
        self._cancel_all()
        self._queue.put(None)
        watchdog = threading.Timer(EXIT_GRACE_S, os._exit, (0,))
        watchdog.daemon = True
        watchdog.start()

    # -- main loop ------------------------------------------------------------------------------
    def serve(self) -> int:
        reader = threading.Thread(target=self._read_loop, name="tilescope-worker-reader", daemon=True)
        reader.start()
        while True:
            req = self._queue.get()
            if req is None:
                return 0
            self._current = req
            try:
                self._handle(req)
            finally:
                self._current = None
                with self._cancel_lock:
                    self._cancel.pop(req.id, None)
            if self._parent_gone.is_set():
                return 0
            if self._restart_after:
                print("tilescope worker: the CUDA context is unusable after that error; exiting so that "
                      "a fresh worker takes over", file=sys.stderr)
                return EXIT_RESTART

    def _handle(self, req: Request) -> None:
        from kernels.engine.handlers import HANDLERS, Call, handle

        cancel_ev = self._cancel_event(req.id)
        if req.kind not in HANDLERS:
            from kernels.data.results import ErrorInfo

            self.send(Reply(req.id, req.generation, "error", ErrorInfo(
                "internal", f"the worker does not know the request kind {req.kind!r}")))
            return
        call = Call(progress=_throttled(lambda p: self.send(Reply(req.id, req.generation, "progress", p))),
                    cancel=cancel_ev.is_set,
                    on_point=lambda point: self.send(Reply(req.id, req.generation, "point", point)))
        try:
            result = handle(self.state, req.kind, req.payload, call)
        except BaseException as e:  # noqa: BLE001 — SystemExit from a user file included
            self._end_if_forked()
            if isinstance(e, KeyboardInterrupt):
                raise
            self.send(Reply(req.id, req.generation, "error", _error_info(req.kind, e)))
            if poisons_cuda(f"{type(e).__name__}: {e}"):
                self._restart_after = True
            return
        self._end_if_forked()
        if _result_poisons_cuda(result):
            self._restart_after = True
        self.send(Reply(req.id, req.generation, "result", result))

    def _end_if_forked(self) -> None:
        """In a child that user code forked (it came back here as the worker would): end now,
        before it answers in the worker's name or reads the worker's requests."""
        if os.getpid() != self._pid:
            os._exit(0)

    # -- the engine, imported on first use (hello) ----------------------------------------------
    @property
    def state(self) -> Any:
        """What the engine keeps between requests (``kernels.engine.handlers.EngineState``)."""
        if self._state is None:
            from kernels.engine.handlers import EngineState

            self._state = EngineState()
        return self._state


def _array_parts(obj: Any, path: str, out: list[tuple[int, str]], depth: int = 0) -> None:
    """(bytes, where) of the numpy arrays and long strings inside a reply payload."""
    if depth > 12 or obj is None or isinstance(obj, (bool, int, float)):
        return
    nbytes = getattr(obj, "nbytes", None)
    if isinstance(nbytes, int) and hasattr(obj, "dtype"):
        out.append((nbytes, path))
        return
    if isinstance(obj, (str, bytes)):
        if len(obj) > 1 << 20:
            out.append((len(obj), path))
        return
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for f in dataclasses.fields(obj):
            _array_parts(getattr(obj, f.name, None), f"{path}.{f.name}", out, depth + 1)
    elif isinstance(obj, dict):
        for k, v in obj.items():
            _array_parts(v, f"{path}[{k!r}]", out, depth + 1)
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            _array_parts(v, f"{path}[{i}]", out, depth + 1)


def _oversized(payload: Any, limit: int | None = None) -> str:
    """A message when the payload's arrays alone exceed ``limit`` bytes (default: the frame
    limit), else ''."""
    limit = MAX_FRAME if limit is None else limit
    parts: list[tuple[int, str]] = []
    _array_parts(payload, type(payload).__name__, parts)
    total = sum(n for n, _ in parts)
    if total <= limit:
        return ""
    n, where = max(parts)
    return (f"it holds {_size(total)} of arrays, more than the {_size(limit)} a reply may carry "
            f"(the largest: {where}, {_size(n)}); use smaller shapes")


def _size(n: int) -> str:
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift:
            return f"{n / (1 << shift):.1f} {unit}"
    return f"{n} B"


def _throttled(fn: Callable[[Any], Any]) -> Callable[[Any], None]:
    """The engine's ``progress(Progress)`` callback, passed on at most PROGRESS_HZ times a second;
    the first always passes."""
    last = [-1.0]
    gap = 1.0 / PROGRESS_HZ

    def progress(p: Any) -> None:
        now = time.monotonic()
        if last[0] >= 0 and now - last[0] < gap:
            return
        last[0] = now
        fn(p)

    return progress


def _error_info(kind: str, exc: BaseException) -> Any:
    """The ErrorInfo for an exception that escaped a request: the engine's own kinds where known
    (a user file's error is ``user_file``), else ``internal`` with the traceback tail."""
    from kernels.data.errors import TilescopeError, to_error_info
    from kernels.data.params import ValidationError

    if isinstance(exc, (TilescopeError, ValidationError)):
        return to_error_info(exc)
    info = to_error_info(exc)
    info.message = f"{kind} failed inside the worker: {type(exc).__name__}: {exc}"
    info.detail = _traceback_tail(exc)
    return info


def _result_poisons_cuda(result: Any) -> bool:
    errors = []
    err = getattr(result, "error", None)
    if err is not None:
        errors.append(err)
    for p in getattr(result, "points", None) or ():
        e = getattr(getattr(p, "result", None), "error", None)
        if e is not None:
            errors.append(e)
    return any(poisons_cuda(f"{getattr(e, 'message', '')}\n{getattr(e, 'detail', '')}") for e in errors)


# ---------------------------------------------------------------------------------------------


class _ReplyLogHandler(logging.Handler):
    """Warnings and errors logged inside the worker go to the app as ``log`` replies."""

    def __init__(self, server: Server) -> None:
        super().__init__(logging.WARNING)
        self._server = server

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self._server.log(record.levelname.lower(), self.format(record))
        except Exception:  # noqa: BLE001 — logging must never break a request
            pass


def _claim_stdio() -> tuple[Any, int]:
    """Keep the real stdin/stdout for frames; point fd 0 at /dev/null and fd 1 at stderr."""
    out_fd = os.dup(1)  # os.dup makes non-inheritable copies: compilers we spawn don't get them
    in_fd = os.dup(0)
    os.dup2(2, 1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    sys.stdout = sys.stderr
    sys.stdin = open(os.devnull)  # noqa: SIM115 — lives as long as the process
    return os.fdopen(in_fd, "rb"), out_fd


def main(argv: list[str] | None = None) -> int:
    if hasattr(signal, "SIGINT"):
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    fin, out_fd = _claim_stdio()
    server = Server(fin, out_fd)
    handler = _ReplyLogHandler(server)
    handler.setFormatter(logging.Formatter("%(name)s: %(message)s"))
    logging.getLogger().addHandler(handler)
    logging.captureWarnings(True)
    code = server.serve()
    try:
        sys.stderr.flush()
    finally:
        # skip interpreter teardown: CUDA and triton's atexit hooks can hang in a poisoned context
        os._exit(code)


if __name__ == "__main__":
    sys.exit(main())
