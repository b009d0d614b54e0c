"""QtWorker: the GUI's handle on the worker process, as a QObject with signals.

``app.client.WorkerClient`` calls its callbacks on its own dispatcher thread. Here every callback
only *emits an internal signal* to this QObject, which lives on the GUI thread, so Qt queues it
there (an emission from another thread to a receiver of this thread is always queued); the
public signal is then emitted on the GUI thread. So every receiver — a widget's slot, a plain
Python function, the Qt-free controller — runs on the GUI thread, the window never touches a
widget from the client's threads, and the client's thread never waits on the GUI.

The QtWorker also remembers what kind each submitted generation was, so a ``result(gen, obj)``
can be routed without looking at the object's type, and which generations are still owed an
answer (``pending``): the client drops the answers of superseded requests silently, so a newer
``run`` forgets the older ``run`` here too.

The worker process runs at a lower CPU priority than the window (``WORKER_NICE``, which the
worker applies to itself as it starts, see ``WorkerClient(nice=...)``): tracing and interpreter
runs keep every core busy, and on a machine with few cores the window would otherwise wait for a
time slice behind them (event-loop stalls while a trace ran; figures in
docs/benchmarks/transport.md). The recording processes a trace forks inherit it. GPU
timings are taken with CUDA events, which a CPU priority does not change.

No torch, no triton: this module imports ``app.client`` only.
"""

from __future__ import annotations

import os
from typing import Any

from PySide6.QtCore import QObject, Signal

from kernels.data.results import ErrorInfo

from .client import SUPERSEDING_KINDS, WorkerClient
from .settings import DEFAULT_TIMEOUT_S

__all__ = ["QtWorker", "WORKER_NICE"]

#: how much lower the worker's CPU priority is than the window's (``nice`` increment)
WORKER_NICE = 10


class QtWorker(QObject):
    """Signals (all delivered on the GUI thread):

    - ``hello(dict)``: a worker is up (first start and every restart): backends, infos, versions;
    - ``stateChanged(str)``: starting | ready | busy | crashed | restarting | stopped;
    - ``progress(int gen, object Progress)``: stage, fraction, done of total (``Progress.text()``);
    - ``point(int gen, object SweepPoint)``: one finished point of a running sweep;
    - ``result(int gen, str kind, object payload)``: the answer of a request;
    - ``error(int gen, str kind, object ErrorInfo)``: the request failed as a whole (timeout,
      cancel, worker crash, an exception in the worker);
    - ``log(int gen, str level, str text)``: warnings the worker logged.
    """

    hello = Signal(object)
    stateChanged = Signal(str)
    progress = Signal(int, object)
    point = Signal(int, object)
    result = Signal(int, str, object)
    error = Signal(int, str, object)
    log = Signal(int, str, str)
    # internal: carry the client's callbacks (any thread) to the GUI thread
    _sig_result = Signal(int, object)
    _sig_error = Signal(int, object)
    _sig_event = Signal(str, object)  # the name of a public signal, its arguments

    def __init__(self, timeout_s: float = DEFAULT_TIMEOUT_S, parent: QObject | None = None,
                 nice: int = WORKER_NICE, **client_kw: Any) -> None:
        super().__init__(parent)
        self._timeout_s = timeout_s
        self._nice = int(nice)
        self._client_kw = client_kw
        self._client: WorkerClient | None = None
        self._kinds: dict[int, str] = {}
        self._sig_result.connect(self._on_result)
        self._sig_error.connect(self._on_error)
        self._sig_event.connect(self._on_event)

    # -- lifecycle -----------------------------------------------------------------------------
    def start(self) -> None:
        """Start the worker process (returns at once; ``hello`` follows in a few seconds)."""
        if self._client is not None:
            return
        later = self._sig_event.emit
        self._client = WorkerClient(
            on_progress=lambda g, p: later("progress", (g, p)),
            on_point=lambda g, p: later("point", (g, p)),
            on_result=lambda g, r: self._sig_result.emit(g, r),
            on_error=lambda g, e: self._sig_error.emit(g, e),
            on_state=lambda s: later("stateChanged", (s,)),
            on_log=lambda g, lvl, text: later("log", (g, lvl, text)),
            on_hello=lambda h: later("hello", (h,)),
            default_timeout_s=self._timeout_s,
            nice=self._nice,
            **self._client_kw,
        )

    def restart(self, **client_kw: Any) -> None:
        """Stop the worker and start a fresh one with these ``WorkerClient`` arguments changed (the
        ``env`` of another virtual GPU): the requests owed an answer fail as cancelled, and the new
        worker knows the catalog only (the caller opens the user's file again). Before the first
        ``start`` only the arguments change."""
        self._client_kw.update(client_kw)
        old, self._client = self._client, None
        if old is None:
            return
        old.close(timeout=2.0)  # its last callbacks are queued to this thread before the new ones
        self.start()

    @property
    def started(self) -> bool:
        return self._client is not None

    def close(self, timeout: float = 2.0) -> None:
        """Stop the worker and leave no process behind (idempotent)."""
        c = self._client
        if c is not None:
            c.close(timeout=timeout)
        self._kinds.clear()

    # -- requests ------------------------------------------------------------------------------
    def submit(self, kind: str, payload: Any = None, timeout_s: float | None = None) -> int:
        """Queue a request; returns its generation. Starts the worker if it is not running."""
        if self._client is None:
            self.start()
        assert self._client is not None
        gen = self._client.submit(kind, payload, timeout_s)
        if kind in SUPERSEDING_KINDS:
            # the client drops an older request of this kind without a word: forget it here too
            for g in [g for g, k in self._kinds.items() if k == kind and g < gen]:
                del self._kinds[g]
        self._kinds[gen] = kind
        return gen

    def cancel(self) -> bool:
        """Ask the running request to stop (queued ones fail at once as cancelled)."""
        return self._client.cancel() if self._client is not None else False

    def pending(self) -> dict[int, str]:
        """Generation -> kind of the requests still owed an answer."""
        return dict(self._kinds)

    def pending_kinds(self) -> set[str]:
        return set(self._kinds.values())

    def kind_of(self, gen: int) -> str | None:
        return self._kinds.get(gen)

    # -- facts ---------------------------------------------------------------------------------
    @property
    def state(self) -> str:
        return self._client.state if self._client is not None else "stopped"

    @property
    def pid(self) -> int | None:
        return self._client.pid if self._client is not None else None

    @property
    def client(self) -> WorkerClient | None:
        return self._client

    def stderr_tail(self, n: int = 20) -> list[str]:
        """The last lines the worker wrote to stderr (why it could not start, say)."""
        return self._client.stderr_tail(n) if self._client is not None else []

    def set_timeout(self, seconds: float) -> None:
        """The default run/trace timeout (and a sweep's longest wait for its next point)."""
        self._timeout_s = float(seconds)
        if self._client is not None:
            self._client.default_timeout_s = float(seconds)

    def worker_nice(self) -> int | None:
        """The worker process's nice value (None when it is not running or cannot be read)."""
        pid = self.pid
        if pid is None or not hasattr(os, "getpriority"):
            return None
        try:
            return os.getpriority(os.PRIO_PROCESS, pid)
        except OSError:
            return None

    # -- internals (GUI thread) ----------------------------------------------------------------
    def _on_event(self, name: str, args: tuple) -> None:
        getattr(self, name).emit(*args)

    def _on_result(self, gen: int, payload: Any) -> None:
        kind = self._kinds.pop(gen, None)
        if kind is not None:
            self.result.emit(gen, kind, payload)

    def _on_error(self, gen: int, err: Any) -> None:
        kind = self._kinds.pop(gen, None)
        if kind is not None:
            info = err if isinstance(err, ErrorInfo) else ErrorInfo("internal", str(err))
            self.error.emit(gen, kind, info)
