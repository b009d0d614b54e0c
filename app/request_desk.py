"""What the controller's parts share: the models, the worker, the window's inputs and the event
channel, and the few moves every part makes — submit a request (keeping its generation), tell
whether an answer is stale, put an error on screen, keep a run in the history.

Qt-free (``app.controller`` and its parts ``app.trace_flow``, ``app.sweep_flow``,
``app.kernel_choice`` are tested with plain fakes). The ports are Protocols: the window's
``app.qt_worker.QtWorker`` is a ``WorkerPort``; ``app.main_window.MainWindow`` gives a
``WindowPort`` (what the user has entered, and how to run something after this event).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from kernels.data.requests import kinds
from kernels.data.results import ErrorInfo, RunResult
from views.words import translate

from .events import (
    ActionsChanged,
    Event,
    FieldMarked,
    HistoryChanged,
    MessageCleared,
    MessageShown,
    StageShown,
    StatusShown,
    WindowEvents,
)
from .history import History
from .session import Session
from .settings import Settings

__all__ = ["RequestDesk", "WindowPort", "WorkerPort"]

#: kinds whose newer request makes older ones pointless: only the latest's answers are shown
SUPERSEDING_KINDS = kinds(supersedes=True)


class WorkerPort(Protocol):
    """What the controller needs of the worker (``app.qt_worker.QtWorker``)."""

    @property
    def state(self) -> str: ...
    def submit(self, kind: str, payload: Any = None) -> int: ...
    def cancel(self) -> bool: ...
    def kind_of(self, gen: int) -> str | None: ...
    def pending_kinds(self) -> set[str]: ...
    def stderr_tail(self, n: int = 20) -> list[str]: ...


class WindowPort(Protocol):
    """What the controller reads of the window: what the user has entered, whether the grid is
    still drawing, the sweep plot's best point; and ``defer`` (run after this event)."""

    def param_values(self) -> dict[str, Any]: ...
    def params_shown(self) -> bool: ...
    def params_valid(self) -> bool: ...
    def backend(self) -> str: ...
    def window_text(self) -> str: ...
    def is_drawing(self) -> bool: ...
    def best_sweep_point(self) -> tuple[int, ...] | None: ...
    def defer(self, fn: Callable[[], Any]) -> None: ...


class RequestDesk:
    """The shared state of one window's controller."""

    def __init__(self, window: WindowPort, worker: WorkerPort, session: Session, settings: Settings,
                 history: History, events: WindowEvents) -> None:
        self.window, self.worker, self.events = window, worker, events
        self.session, self.settings, self.history = session, settings, history
        self.ready = False  # the worker said hello
        self.closing = False
        self.latest: dict[str, int] = {}  # kind -> the generation of its latest request

    # -- what is possible ---------------------------------------------------------------------------
    def can_submit(self) -> bool:
        return (self.ready and not self.closing and self.session.info() is not None
                and self.window.params_shown() and self.window.params_valid())

    def stale(self, gen: int, kind: str | None) -> bool:
        return kind in SUPERSEDING_KINDS and gen < self.latest.get(kind or "", 0)

    # -- requests -----------------------------------------------------------------------------------
    def submit(self, kind: str, payload: Any, stage: str, fraction: float = 0.0, busy: bool = False) -> int:
        """Send a request the user waits for: the stage line says ``stage`` meanwhile."""
        gen = self.worker.submit(kind, payload)
        if kind in SUPERSEDING_KINDS:
            self.latest[kind] = gen
        self.publish(StageShown(stage, None if busy else fraction, busy))
        self.publish(ActionsChanged())
        return gen

    # -- what the window shows ----------------------------------------------------------------------
    def publish(self, event: Event) -> None:
        self.events.publish(event)

    def message(self, text: str, level: str = "error", *, details: str = "", topic: str = "",
                actions: Any = ()) -> None:
        self.publish(MessageShown(text, level, details, topic, tuple(actions)))

    def clear(self, *topics: str) -> None:
        self.publish(MessageCleared(tuple(topics)))

    def status(self, text: str, ms: int) -> None:
        self.publish(StatusShown(text, ms))

    def stage(self, text: str, fraction: float | None = None, busy: bool = False) -> None:
        self.publish(StageShown(text, fraction, busy))

    def show_error(self, err: ErrorInfo, topic: str) -> None:
        """An error in the banner and the status line; a validation error also marks its field."""
        text = f"{err.kind}: {err.message}"
        if err.kind == "cancelled":  # what the user asked for: say so quietly
            self.status(translate("Controller", "{what} cancelled").format(what=translate("Controller", topic)), 5000)
            return
        if err.kind == "validation" and err.field:
            self.publish(FieldMarked(err.field, err.message))
            topic = "validation"
        self.message(text, "error", details=err.detail, topic=topic)
        self.status(text, 10000)

    def store(self, r: RunResult) -> None:
        """Keep a run in the history (validation errors and cancels are not runs)."""
        if r.error is not None and r.error.kind in ("validation", "cancelled"):
            return
        self.history.add(r)
        self.publish(HistoryChanged())
