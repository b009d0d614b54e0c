"""WorkerClient: the GUI's (and the CLI's) handle on the worker child process. No Qt, no torch.

    client = WorkerClient(on_result=..., on_error=..., on_state=...)
    gen = client.submit("run", RunRequest("vector_add", {"N": 4096}))   # returns at once
    client.cancel()                                                     # soft, then hard
    client.call("infos")                                                # blocking convenience
    client.close()

Threads: each worker process has a reader (reply frames), a writer (request frames, so ``submit``
never blocks on a pipe) and a stderr drain (``app.worker_process``); one supervisor enforces
timeouts and cancel grace periods; one dispatcher calls the callbacks, in order, never on the
caller's thread and never while a lock is held (``app.dispatch``). The GUI marshals the callbacks
onto its own thread.

Callbacks: ``on_progress(gen, Progress)`` (``kernels.data.results.Progress``: stage, fraction,
done of total), ``on_point(gen, SweepPoint)``, ``on_result(gen, payload)``, ``on_error(gen,
ErrorInfo)``, ``on_state(state)``, ``on_log(gen, level, text)``, ``on_hello(dict)``,
``on_stderr(line)``.

Rules a caller can rely on:

- every ``submit`` bumps the generation; for ``run``, ``sweep`` and ``trace`` a newer submit of
  the same kind supersedes older ones: a queued older request is never sent, a running one is
  asked to stop (soft cancel), and any reply of an older generation is dropped (``dropped``
  counts the dropped final replies). Other kinds answer their own question and are never dropped;
- each submitted generation ends in exactly one ``on_result`` or ``on_error`` — or is dropped
  as stale;
- requests run one at a time, in order; a request's timeout is counted from when it is sent;
  ``run``/``trace`` time out after ``timeout_s`` (the request's, else ``default_timeout_s``), a
  ``sweep`` after ``default_timeout_s`` without a new point. On a timeout the worker is killed
  and restarted and the request fails with ``ErrorInfo(kind="timeout")``;
- ``cancel()`` asks the worker to stop; if the request has not ended after ``cancel_grace_s`` the
  worker is killed and restarted, and the request fails with ``ErrorInfo(kind="cancelled")``;
- a worker that dies (SIGKILL, segfault, a CUDA fault) fails the running request with
  ``ErrorInfo(kind="worker")`` naming the exit code or signal and the last stderr lines; the
  state goes ``crashed`` -> ``restarting`` -> ``ready``; user files loaded before are loaded again;
- ``load_file`` (a user's kernel file: its import runs the user's code) and ``open_script`` time
  out like ``run``, and are cancelled like it; a file whose load fails, times out or kills the
  worker is not loaded again into the next worker (no restart loop);
- ``close()`` (also run at exit) shuts the worker down and leaves no process behind: the worker
  leads its own process group, and the whole group is ended (what a kernel file forked too).

States: ``starting`` (first start), ``ready``, ``busy``, ``crashed``, ``restarting``, ``stopped``.
"""

from __future__ import annotations

import atexit
import collections
import dataclasses
import itertools
import os
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from kernels.data.requests import kinds
from kernels.data.results import ErrorInfo, Progress

from .dispatch import CallbackThread
from .protocol import PayloadError, Reply, Request, encode
from .settings import DEFAULT_TIMEOUT_S
from .worker_process import WorkerProcess, describe_exit, last_lines, worker_command, worker_processes

__all__ = ["EXIT_RESTART", "SUBMIT_KINDS", "SUPERSEDING_KINDS", "STATES", "WorkerClient", "WorkerError", "worker_processes"]

STATES = ("starting", "ready", "busy", "crashed", "restarting", "stopped")
#: kinds where a newer request makes older ones pointless (kernels.data.requests: ``supersedes``)
SUPERSEDING_KINDS = kinds(supersedes=True)
#: what ``submit`` and ``call`` send: every kind of the request table but those that ``cancel()``
#: and ``close()`` send themselves
SUBMIT_KINDS = kinds() - {"cancel", "shutdown"}
#: kinds that run the user's code and time out like a run: their own timeout, else the default
_TIMED_KINDS = kinds(timed_like_run=True)
#: kinds that answer point by point (a sweep): no more than the default timeout between two points
_POINT_KINDS = kinds(sends_points=True)
#: the worker's "start a fresh one" exit status (app.worker.EXIT_RESTART; not imported from there
#: to keep this module's imports minimal)
EXIT_RESTART = 75
#: consecutive failed starts before the client stops trying (until the next submit)
_MAX_START_FAILURES = 3
_SERIALS = itertools.count(1)


class WorkerError(Exception):
    """A request failed as a whole (timeout, crash, cancel, exception in the worker)."""

    def __init__(self, info: ErrorInfo) -> None:
        super().__init__(info.message)
        self.info = info


@dataclasses.dataclass
class _Waiter:
    event: threading.Event = dataclasses.field(default_factory=threading.Event)
    result: Any = None
    error: ErrorInfo | None = None


@dataclasses.dataclass
class _Pending:
    gen: int
    kind: str
    payload: Any
    timeout_s: float | None = None  # whole request, from when it is sent
    idle_s: float | None = None  # sweeps: longest wait for the next point
    waiter: _Waiter | None = None
    internal: bool = False  # the client's own (hello, reloading user files): not delivered
    on_point: Callable[[Any], Any] | None = None  # a call()'s own sweep points
    on_progress: Callable[[Any], Any] | None = None  # a call()'s own progress
    sent_at: float | None = None
    deadline: float | None = None
    idle_deadline: float | None = None
    cancel_deadline: float | None = None
    cancel_sent: bool = False


class WorkerClient:
    def __init__(
        self,
        *,
        on_progress: Callable[[int, Progress], Any] | None = None,
        on_point: Callable[[int, Any], Any] | None = None,
        on_result: Callable[[int, Any], Any] | None = None,
        on_error: Callable[[int, ErrorInfo], Any] | None = None,
        on_state: Callable[[str], Any] | None = None,
        on_log: Callable[[int, str, str], Any] | None = None,
        on_hello: Callable[[dict], Any] | None = None,
        on_stderr: Callable[[str], Any] | None = None,
        default_timeout_s: float | None = DEFAULT_TIMEOUT_S,
        cancel_grace_s: float = 2.0,
        startup_timeout_s: float = 300.0,
        python: str | None = None,
        env: dict[str, str] | None = None,
        cwd: str | None = None,
        echo_stderr: bool = False,
        nice: int = 0,
        start: bool = True,
        respawn: bool = True,
        remote: Any = None,
    ) -> None:
        # the callbacks (see the module's docstring); each may be None
        self.on_progress, self.on_point, self.on_result, self.on_error = on_progress, on_point, on_result, on_error
        self.on_state, self.on_log, self.on_hello, self.on_stderr = on_state, on_log, on_hello, on_stderr
        self.default_timeout_s = default_timeout_s
        self.cancel_grace_s = cancel_grace_s
        self.startup_timeout_s = startup_timeout_s
        self._python = python or sys.executable
        self._env = env
        self._cwd = cwd
        self._echo_stderr = echo_stderr
        self._nice = max(0, int(nice))
        #: start a new worker at once after one died or was killed (False: at the next submit;
        #: the command line, which ends after the failure anyway)
        self.respawn = respawn
        #: where the worker runs: None here, else an ``app.transport_ssh.Remote`` (over ssh)
        self.remote = remote

        self._lock = threading.RLock()
        self._cond = threading.Condition(self._lock)
        self._gens = itertools.count(1)
        self._latest: dict[str, int] = {}
        self._queue: collections.deque[_Pending] = collections.deque()
        self._inflight: _Pending | None = None
        self._proc: WorkerProcess | None = None
        self._state = "stopped"
        self._closed = False
        self._start_failures = 0
        self._loaded_files: list[Any] = []
        self._last_stderr: list[str] = []

        #: final replies dropped because a newer request of the same kind was submitted
        self.dropped = 0
        #: how many times a worker was started after the first
        self.restarts = 0
        #: the latest worker's hello: backends, infos, versions, pid (None before the first)
        self.hello: dict | None = None

        self._serial = next(_SERIALS)
        self._callbacks = CallbackThread(f"tilescope-client-{self._serial}-callbacks")
        self._supervisor = threading.Thread(target=self._supervise_loop, name=f"tilescope-client-{self._serial}-supervisor",
                                            daemon=True)
        self._supervisor.start()
        atexit.register(self.close)
        if start:
            self.start()

    # ------------------------------------------------------------------------------------------
    # public

    @property
    def state(self) -> str:
        return self._state

    @property
    def pid(self) -> int | None:
        """The current worker process id (None while none runs)."""
        p = self._proc
        return p.pid if p is not None else None

    @property
    def busy(self) -> bool:
        with self._lock:
            return self._inflight is not None or bool(self._queue)

    def stderr_tail(self, n: int = 20) -> list[str]:
        """The last lines the current (or last) worker wrote to stderr."""
        with self._lock:
            lines = list(self._proc.stderr_tail) if self._proc is not None else list(self._last_stderr)
        return lines[-n:]

    def wait_ready(self, timeout: float | None = None) -> bool:
        """Block until a worker is up and idle (True), or it gave up / was closed / time ran out."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._lock:
            while True:
                if self._closed or (self._state == "crashed" and self._proc is None):
                    return False
                if self._state == "ready" and self._inflight is None and not self._queue:
                    return True
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return False
                self._cond.wait(left)

    def start(self) -> None:
        """Start the worker if none runs (``__init__`` does, unless ``start=False``)."""
        with self._lock:
            if self._closed:
                raise RuntimeError("this WorkerClient was closed")
            if self._proc is None:
                self._spawn("starting")

    def submit(self, kind: str, payload: Any = None, timeout_s: float | None = None) -> int:
        """Queue a request; returns its generation at once. Answers arrive through the callbacks."""
        return self._submit(kind, payload, timeout_s, None)

    def call(self, kind: str, payload: Any = None, timeout: float | None = None, *,
             on_point: Callable[[Any], Any] | None = None,
             on_progress: Callable[[Any], Any] | None = None) -> Any:
        """Submit and wait for the answer; raises WorkerError when the request fails as a whole.

        ``timeout`` is the request's timeout (the worker is killed when it passes). The answer goes
        to the caller only, not to ``on_result``; so do a sweep's points and the progress, to
        ``on_point(point)`` and ``on_progress(Progress)`` when given (on the callback thread:
        the points a sweep finished before its worker died are the caller's). Do not call from
        a callback.
        """
        waiter = _Waiter()
        self._submit(kind, payload, timeout, waiter, on_point, on_progress)
        waiter.event.wait()
        if waiter.error is not None:
            raise WorkerError(waiter.error)
        return waiter.result

    def cancel(self, kind: str | None = None) -> bool:
        """Stop the running request (of ``kind``, if given) and drop queued ones.

        Queued requests fail with ``ErrorInfo(kind="cancelled")`` at once. The running one is
        asked to stop; it answers with what it has (a cancelled sweep returns its points so far).
        If it has not answered within ``cancel_grace_s`` the worker is killed and restarted.
        Returns whether a running request was asked to stop.
        """
        with self._lock:
            for p in [p for p in self._queue if not p.internal and (kind is None or p.kind == kind)]:
                self._queue.remove(p)
                self._finish(p, error=ErrorInfo("cancelled", f"{p.kind} cancelled before it started"))
            p = self._inflight
            if p is None or p.internal or (kind is not None and p.kind != kind):
                return False
            self._send_cancel(p)
            p.cancel_deadline = time.monotonic() + self.cancel_grace_s
            self._cond.notify_all()
            return True

    def close(self, timeout: float = 5.0) -> None:
        """Shut the worker down (ask, wait ``timeout``, then terminate, then kill); idempotent."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            proc, self._proc = self._proc, None
            err = ErrorInfo("cancelled", "the worker was shut down")
            if self._inflight is not None:
                p, self._inflight = self._inflight, None
                self._finish(p, error=err)
            while self._queue:
                self._finish(self._queue.popleft(), error=err)
            self._set_state("stopped")
            self._cond.notify_all()
        try:
            atexit.unregister(self.close)
        except Exception:  # noqa: BLE001 — interpreter shutting down
            pass
        if proc is not None:
            proc.stop(timeout)
        self._callbacks.close()
        self._supervisor.join(timeout=5.0)

    def __enter__(self) -> WorkerClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------------------------------
    # submitting

    def _submit(self, kind: str, payload: Any, timeout_s: float | None, waiter: _Waiter | None,
                on_point: Callable[[Any], Any] | None = None, on_progress: Callable[[Any], Any] | None = None) -> int:
        if kind not in SUBMIT_KINDS:
            raise ValueError(f"cannot submit {kind!r}: use one of {', '.join(sorted(SUBMIT_KINDS))} "
                             "(cancel() and close() send the others)")
        with self._lock:
            if self._closed:
                raise RuntimeError("this WorkerClient was closed")
            gen = next(self._gens)
            payload = _with_generation(payload, gen)
            p = _Pending(gen, kind, payload, waiter=waiter, on_point=on_point, on_progress=on_progress)
            self._set_timeouts(p, timeout_s)
            if kind in SUPERSEDING_KINDS:
                self._latest[kind] = gen
                for old in [q for q in self._queue if q.kind == kind and not q.internal]:
                    self._queue.remove(old)
                    self._finish(old)  # stale now: dropped (a waiting call() is told)
                cur = self._inflight
                if cur is not None and cur.kind == kind and not cur.internal:
                    self._send_cancel(cur)  # let it stop early; its answer will be dropped
            self._queue.append(p)
            if self._proc is None:
                self._spawn("restarting" if self.hello is not None else "starting")
            self._pump()
            return gen

    def _set_timeouts(self, p: _Pending, timeout_s: float | None) -> None:
        if timeout_s is not None:
            p.timeout_s = timeout_s
        elif p.kind in _TIMED_KINDS:
            p.timeout_s = getattr(p.payload, "timeout_s", None) or self.default_timeout_s
        elif p.kind in _POINT_KINDS:  # a sweep: its own timeout, and the default between two points
            p.timeout_s = getattr(p.payload, "timeout_s", None)
            p.idle_s = self.default_timeout_s
        if p.timeout_s is not None and p.timeout_s <= 0:
            p.timeout_s = None

    def _pump(self) -> None:
        """Send the next queued request if the worker is ready and idle (lock held)."""
        proc = self._proc
        if proc is None or not proc.ready or self._inflight is not None:
            return
        while self._queue:
            p = self._queue.popleft()
            if self._is_stale(p) and p.waiter is None:
                self._finish(p)
                continue
            self._send(proc, p)
            break
        self._set_state("busy" if self._inflight is not None and not self._inflight.internal else "ready")
        self._cond.notify_all()  # wait_ready() and the supervisor look again

    def _send(self, proc: WorkerProcess, p: _Pending) -> None:
        try:
            frame = encode(Request(p.gen, p.gen, p.kind, p.payload))
        except PayloadError as e:
            self._finish(p, error=ErrorInfo("internal", f"cannot send the {p.kind} request: {e}"))
            return
        now = time.monotonic()
        p.sent_at = now
        p.deadline = now + p.timeout_s if p.timeout_s else None
        p.idle_deadline = now + p.idle_s if p.idle_s else None
        self._inflight = p
        proc.send(frame)
        self._cond.notify_all()

    def _send_cancel(self, p: _Pending) -> None:
        proc = self._proc
        if proc is not None and not p.cancel_sent:
            p.cancel_sent = True
            proc.send(encode(Request(p.gen, p.gen, "cancel", p.gen)))

    def _is_stale(self, p: _Pending) -> bool:
        return p.kind in SUPERSEDING_KINDS and p.gen < self._latest.get(p.kind, 0)

    # ------------------------------------------------------------------------------------------
    # answers

    def _finish(self, p: _Pending, result: Any = None, error: ErrorInfo | None = None) -> None:
        """Deliver the end of a request (lock held). Without result and error: superseded."""
        superseded = result is None and error is None
        if p.internal:
            self._finish_internal(p, result, error)
            return
        if p.waiter is not None:
            p.waiter.result = result
            p.waiter.error = error if not superseded else ErrorInfo(
                "cancelled", f"{p.kind} superseded by a newer {p.kind} request")
            if p.on_point is not None or p.on_progress is not None:
                self._emit(p.waiter.event.set)  # after the points already queued for the caller
            else:
                p.waiter.event.set()
            return
        if superseded or self._is_stale(p):
            self.dropped += 1
            return
        if error is not None:
            self._emit(self.on_error, p.gen, error)
        else:
            self._emit(self.on_result, p.gen, result)

    def _finish_internal(self, p: _Pending, result: Any, error: ErrorInfo | None) -> None:
        if p.kind == "hello":
            proc = self._proc
            if error is not None or proc is None:
                if error is not None:
                    self._emit(self.on_log, p.gen, "error", f"the worker did not start: {error.message}")
                return
            problem = self.remote.check_hello(result) if self.remote is not None else None
            if problem:  # a remote worker of another version: no restart would help
                proc.retire()
                self._give_up(problem)
                return
            proc.ready = True
            self._start_failures = 0
            self.hello = result
            self._emit(self.on_hello, result)
            self._set_state("ready")  # up; _pump() says "busy" next if work is waiting
            # a fresh worker knows only the catalog: load the user's files again, first
            for path in reversed(self._loaded_files):
                self._queue.appendleft(_Pending(next(self._gens), "load_file", path, internal=True,
                                                timeout_s=self.default_timeout_s))
        elif error is not None:
            self._forget_file(p.payload)
            self._emit(self.on_log, p.gen, "warning", f"reloading {p.payload} failed (it is not loaded again): "
                                                      f"{error.message}")

    def _on_reply(self, proc: WorkerProcess, msg: Reply) -> None:
        with self._lock:
            if proc is not self._proc:
                return  # a retired worker's late words
            p = self._inflight
            if msg.kind == "log":
                level, text = msg.payload if isinstance(msg.payload, tuple) else ("info", str(msg.payload))
                self._emit(self.on_log, msg.generation, level, text)
                return
            if p is None or p.gen != msg.id:
                return  # e.g. the answer to a ping
            if msg.kind == "progress":
                if p.on_progress is not None:
                    self._emit(p.on_progress, msg.payload)
                elif not p.internal and not self._is_stale(p) and p.waiter is None:
                    self._emit(self.on_progress, p.gen, msg.payload)
                return
            if msg.kind == "point":
                if p.idle_s:
                    p.idle_deadline = time.monotonic() + p.idle_s
                    self._cond.notify_all()
                if p.on_point is not None:
                    self._emit(p.on_point, msg.payload)
                elif not p.internal and not self._is_stale(p) and p.waiter is None:
                    self._emit(self.on_point, p.gen, msg.payload)
                return
            if msg.kind in ("result", "error"):
                self._inflight = None
                if p.internal and p.kind == "hello" and msg.kind == "error":
                    # the worker runs but cannot load the engine: restarting would not help
                    err = _as_error(msg.payload)
                    proc.retire()
                    self._give_up(f"the worker could not load the engine: {err.message}", err.detail)
                    return
                if msg.kind == "result":
                    if p.kind == "load_file" and not p.internal and p.payload not in self._loaded_files:
                        self._loaded_files.append(p.payload)
                    self._finish(p, result=msg.payload)
                else:
                    if p.kind == "load_file":
                        self._forget_file(p.payload)
                    self._finish(p, error=_as_error(msg.payload))
                self._pump()

    # ------------------------------------------------------------------------------------------
    # processes

    def _spawn(self, state: str) -> None:
        """Start a worker process and send it hello (lock held)."""
        self._set_state(state)
        try:
            env = dict(os.environ if self._env is None else self._env)
            command = (self.remote.command(self._nice, env) if self.remote is not None
                       else worker_command(self._python, self._nice))
            proc = WorkerProcess.spawn(
                command, env,
                self._cwd, on_reply=self._on_reply, on_undecodable=self._reply_undecodable, on_exit=self._on_exit,
                on_stderr=lambda line: self._emit(self.on_stderr, line), echo_stderr=self._echo_stderr)
        except OSError as e:
            self._give_up(f"the worker could not be started: {e}")
            return
        self._proc = proc
        hello = _Pending(next(self._gens), "hello", None, internal=True, timeout_s=self.startup_timeout_s)
        self._send(proc, hello)

    def _reply_undecodable(self, proc: WorkerProcess, e: PayloadError) -> None:
        with self._lock:
            if proc is not self._proc or self._inflight is None:
                return
            p, self._inflight = self._inflight, None
            self._finish(p, error=ErrorInfo("internal", f"the worker's answer could not be read: {e}"))
            self._pump()

    def _on_exit(self, proc: WorkerProcess, rc: int, why: str) -> None:
        with self._lock:
            self._last_stderr = list(proc.stderr_tail)
            if proc.retired or proc is not self._proc or self._closed:
                return
            self._proc = None
            p, self._inflight = self._inflight, None
            tail = "\n".join(list(proc.stderr_tail)[-20:])
            if rc == EXIT_RESTART and why == "":
                # the worker asked for a fresh process (a sticky CUDA error) after answering; a
                # request sent meanwhile was never started: it goes to the next worker
                if p is not None and not (p.internal and p.kind == "hello"):
                    self._queue.appendleft(p)
                self._emit(self.on_log, 0, "warning", "the worker restarted to get a fresh CUDA context")
                self._respawn()
                return
            how = why or (self.remote.describe_exit(rc) if self.remote is not None else describe_exit(rc))
            if not proc.ready:
                self._start_failures += 1
                if p is not None and not p.internal:
                    self._queue.appendleft(p)  # never sent: keep it for the next worker
                if self._start_failures >= _MAX_START_FAILURES:
                    self._give_up(f"the worker could not start: it {how}.", tail)
                    return
                self._set_state("crashed")
                self._respawn()
                return
            if p is not None:
                last = last_lines(proc.stderr_tail, 3)
                if p.kind == "load_file":  # not again into the next worker: it would die again
                    self._forget_file(p.payload)
                self._finish(p, error=ErrorInfo(
                    "worker",
                    f"The worker process {how} while {_doing(p)}; {self._after_failure('it')}."
                    + (f" Last output: {last}" if last else ""),
                    detail=tail,
                ))
            self._set_state("crashed")
            self._respawn()

    def _respawn(self) -> None:
        if not self.respawn and not self._queue:
            self._set_state("crashed")  # the next submit starts one
            return
        self.restarts += 1
        self._spawn("restarting")

    def _after_failure(self, subject: str = "the worker") -> str:
        return f"{subject} was restarted" if self.respawn else f"{subject} was stopped"

    def _forget_file(self, path: Any) -> None:
        """Do not load ``path`` into the next worker (its last load failed)."""
        if path in self._loaded_files:
            self._loaded_files.remove(path)

    def _give_up(self, message: str, detail: str = "") -> None:
        """The worker cannot be started: fail everything queued, stay down until the next submit."""
        self._proc = None
        self._start_failures = 0
        err = ErrorInfo("worker", message, detail=detail)
        p, self._inflight = self._inflight, None
        if p is not None:
            self._finish(p, error=err)
        while self._queue:
            self._finish(self._queue.popleft(), error=err)
        self._set_state("crashed")

    def _kill_and_restart(self, error: ErrorInfo) -> None:
        """Kill the current worker, fail the running request with ``error``, start anew (lock held)."""
        proc, self._proc = self._proc, None
        if proc is not None:
            proc.retire()  # its reader thread reaps it
        p, self._inflight = self._inflight, None
        if p is not None:
            if p.kind == "load_file":
                self._forget_file(p.payload)
            self._finish(p, error=error)
        self._respawn()

    # ------------------------------------------------------------------------------------------
    # timeouts and hard cancels

    def _supervise_loop(self) -> None:
        with self._lock:
            while not self._closed:
                p = self._inflight
                now = time.monotonic()
                wait = None
                if p is not None:
                    for when, make in ((p.deadline, self._timeout_error), (p.idle_deadline, self._idle_error),
                                       (p.cancel_deadline, self._cancel_error)):
                        if when is None:
                            continue
                        if when <= now:
                            self._expire(p, make(p))
                            wait = 0.0
                            break
                        wait = when - now if wait is None else min(wait, when - now)
                if wait == 0.0:
                    continue
                self._cond.wait(timeout=wait)

    def _expire(self, p: _Pending, error: ErrorInfo) -> None:
        if p.internal and p.kind == "hello":
            self._start_failures += 1
            if self._start_failures >= _MAX_START_FAILURES:
                proc, self._proc = self._proc, None
                if proc is not None:
                    proc.retire()
                self._inflight = None
                self._give_up(error.message)
                return
        self._kill_and_restart(error)

    def _timeout_error(self, p: _Pending) -> ErrorInfo:
        return ErrorInfo("timeout", f"{_cap(_what(p))} did not finish within {p.timeout_s:g} s; "
                                    f"{self._after_failure()}.")

    def _idle_error(self, p: _Pending) -> ErrorInfo:
        return ErrorInfo("timeout", f"{_cap(_what(p))}: no point finished within {p.idle_s:g} s; "
                                    f"{self._after_failure()}.")

    def _cancel_error(self, p: _Pending) -> ErrorInfo:
        return ErrorInfo("cancelled", f"{_cap(_what(p))} did not stop within "
                                      f"{self.cancel_grace_s:g} s of being cancelled; {self._after_failure()}.")

    # ------------------------------------------------------------------------------------------
    # callbacks

    def _set_state(self, state: str) -> None:
        if state != self._state:
            self._state = state
            self._emit(self.on_state, state)
            self._cond.notify_all()

    def _emit(self, fn: Callable | None, *args: Any) -> None:
        self._callbacks.emit(fn, *args)


# ---------------------------------------------------------------------------------------------


def _with_generation(payload: Any, gen: int) -> Any:
    """A copy of a request dataclass carrying ``gen`` (the caller's object is left alone)."""
    if dataclasses.is_dataclass(payload) and not isinstance(payload, type) and any(
            f.name == "generation" for f in dataclasses.fields(payload)):
        return dataclasses.replace(payload, generation=gen)
    return payload


def _as_error(payload: Any) -> ErrorInfo:
    return payload if isinstance(payload, ErrorInfo) else ErrorInfo("internal", str(payload))


def _what(p: _Pending) -> str:
    if p.kind in ("load_file", "open_script"):
        path = p.payload.get("path") if isinstance(p.payload, dict) else p.payload
        return f"loading {os.path.basename(str(path))}"
    name = getattr(p.payload, "kernel", None)
    return f"the {p.kind} of {name}" if name else f"the {p.kind} request"


def _doing(p: _Pending) -> str:
    """What the worker was doing: "loading f.py", "running the run of vector_add"."""
    what = _what(p)
    return what if what.startswith("loading") else f"running {what}"


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]
