"""The one channel from the controller to the window's parts: typed events, Qt-free.

The controller (``app.controller``) decides what the window shows and *publishes* it as one of
the frozen dataclasses below; each part of the window (``app.window.*``) *subscribes* to the
kinds it draws — ``events.subscribe(RunShown, self.on_run)`` — in the manner of napari's
``dims.events.ndim.connect``. A part never reaches back into the window, and the controller never
knows which parts listen. Handlers run at once, in the order they subscribed, on the publisher's
thread (the GUI thread in the window: the worker's answers reach the controller there).

Tests follow the same events with plain Python (``tests/app/test_controller.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from kernels.data.results import CompileFacts, KernelInfo, RunResult, SweepPoint, SweepRequest, SweepResult
from kernels.data.trace import Trace

__all__ = [
    "Actions", "ActionsChanged", "AdviceAnswered", "AdviceFailed", "BackendSet", "CompileAnswered", "CompileFailed", "Event", "FieldMarked",
    "FileChanged", "FileWatched", "HistoryChanged", "KernelShown", "KernelsListed", "LayoutAnswered", "LayoutFailed", "LessonCheckFailed",
    "LessonChecked", "MarksCleared", "MessageCleared", "MessageShown", "ProgramsFieldFocused", "ProgramsFieldSet",
    "RegionAnswered", "RegionFailed", "RunShown", "SourceShown", "StageShown", "StatusShown", "SweepFinished",
    "SweepPointAdded", "SweepStarted", "TraceAnswered", "TraceDrawing", "TraceShown", "ValuesSet", "WindowEvents",
    "WorkerShown", "WorkerStateShown",
]

#: buttons of a banner message: (label, what pressing it does)
Actions = Sequence[tuple[str, Callable[[], Any]]]


class Event:
    """Base of every event published on ``WindowEvents``."""


# -- kernels and parameters ---------------------------------------------------------------------
@dataclass(frozen=True)
class KernelsListed(Event):
    """The kernels the picker lists (the worker's catalog and the user's files)."""

    infos: tuple[KernelInfo, ...]


@dataclass(frozen=True)
class KernelShown(Event):
    """``info`` is the kernel shown, with ``values`` in the panel; ``new``: another kernel than
    before (its plots, check and trace start empty), else the same one again (a reloaded file)."""

    info: KernelInfo
    values: dict[str, Any]
    new: bool


@dataclass(frozen=True)
class SourceShown(Event):
    source: str
    first_line: int


@dataclass(frozen=True)
class ValuesSet(Event):
    """Values put into the parameter panel (a past run, a clicked point)."""

    values: dict[str, Any]


@dataclass(frozen=True)
class BackendSet(Event):
    backend: str


@dataclass(frozen=True)
class FieldMarked(Event):
    """A parameter field is wrong: marked, with why, and focused."""

    name: str
    message: str


@dataclass(frozen=True)
class MarksCleared(Event):
    pass


@dataclass(frozen=True)
class FileWatched(Event):
    """Watch this kernel file for changes on disk (None: the kernel has no file)."""

    path: str | None


@dataclass(frozen=True)
class FileChanged(Event):
    """Whether the shown kernel's file changed on disk since it was loaded (Reload offered)."""

    changed: bool


@dataclass(frozen=True)
class ProgramsFieldSet(Event):
    """The Programs field (which programs Trace records) gets this text."""

    text: str


@dataclass(frozen=True)
class ProgramsFieldFocused(Event):
    pass


# -- the worker -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class WorkerShown(Event):
    """A worker said hello: what it can do."""

    gpu_available: bool
    gpu_reason: str
    device_name: str
    triton_version: str
    gpu_name: str | None  # the GPU's name when there is one ("GPU" when the worker did not say)


@dataclass(frozen=True)
class WorkerStateShown(Event):
    state: str  # starting | ready | busy | crashed | restarting | stopped


# -- messages -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class MessageShown(Event):
    """A message in the banner above the grid (``topic`` lets a later event clear it)."""

    text: str
    level: str = "error"  # error | warning | info
    details: str = ""
    topic: str = ""
    actions: Actions = field(default=())


@dataclass(frozen=True)
class MessageCleared(Event):
    """Hide the banner if it shows one of ``topics`` (any message when empty)."""

    topics: tuple[str, ...] = ()


@dataclass(frozen=True)
class StatusShown(Event):
    """A line in the status bar for ``ms`` milliseconds."""

    text: str
    ms: int


@dataclass(frozen=True)
class StageShown(Event):
    """What the window does now, with a bar (``fraction`` 0..1), a busy bar, or none."""

    text: str
    fraction: float | None = None
    busy: bool = False


@dataclass(frozen=True)
class ActionsChanged(Event):
    """What may be done now changed: the actions read ``Controller.actions()`` again."""


# -- answers --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class RunShown(Event):
    result: RunResult


@dataclass(frozen=True)
class TraceAnswered(Event):
    """Every trace answer, before it is drawn (a ``TraceResult`` or a ``BackendComparison``):
    the Timeline tab and Interpreter vs GPU read what besides the trace it carries."""

    result: Any


@dataclass(frozen=True)
class TraceDrawing(Event):
    """Draw ``trace`` in the grid (prepared off the GUI thread; ``TraceShown`` follows)."""

    trace: Trace


@dataclass(frozen=True)
class TraceShown(Event):
    """The grid finished drawing ``trace``, the session's trace."""

    trace: Trace


@dataclass(frozen=True)
class SweepStarted(Event):
    """A sweep starts (``resumed``: the points an interrupted one did not reach; its views keep
    the points they have)."""

    request: SweepRequest
    info: KernelInfo
    resumed: bool = False


@dataclass(frozen=True)
class SweepPointAdded(Event):
    point: SweepPoint
    axes: dict[str, list[Any]]


@dataclass(frozen=True)
class SweepFinished(Event):
    """The sweep ended (whole or not): its result and every point so far, a resumed sweep's
    earlier ones included."""

    result: SweepResult
    points: tuple[SweepPoint, ...]


@dataclass(frozen=True)
class HistoryChanged(Event):
    """A run was added to the history."""


@dataclass(frozen=True)
class LessonChecked(Event):
    result: Any  # kernels.data.lessons.LessonResult


@dataclass(frozen=True)
class LessonCheckFailed(Event):
    message: str


@dataclass(frozen=True)
class CompileAnswered(Event):
    """The compile (for a chosen target) of generation ``gen``."""

    gen: int
    facts: CompileFacts | None
    notes: tuple[str, ...]


@dataclass(frozen=True)
class CompileFailed(Event):
    gen: int
    message: str


@dataclass(frozen=True)
class RegionAnswered(Event):
    """A region of a reduced trace at full resolution (``kernels.data.region.RegionAnswer``)."""

    gen: int
    answer: Any


@dataclass(frozen=True)
class RegionFailed(Event):
    gen: int
    message: str


@dataclass(frozen=True)
class LayoutAnswered(Event):
    """The layouts (``kernels.data.layout.LayoutResult``) of generation ``gen``: the Threads tab's."""

    gen: int
    result: Any


@dataclass(frozen=True)
class LayoutFailed(Event):
    gen: int
    error: Any  # an ErrorInfo


@dataclass(frozen=True)
class AdviceAnswered(Event):
    """The advisor's findings (``kernels.data.advice.Advice``) of generation ``gen``: the Advice card's."""

    gen: int
    advice: Any


@dataclass(frozen=True)
class AdviceFailed(Event):
    gen: int
    error: Any  # an ErrorInfo


E = TypeVar("E", bound=Event)


class WindowEvents:
    """Subscribers by event type; ``publish`` calls those of the event's type, in order."""

    def __init__(self) -> None:
        self._handlers: dict[type[Event], list[Callable[[Any], Any]]] = {}

    def subscribe(self, kind: type[E], handler: Callable[[E], Any]) -> None:
        self._handlers.setdefault(kind, []).append(handler)

    def unsubscribe(self, kind: type[E], handler: Callable[[E], Any]) -> None:
        handlers = self._handlers.get(kind, [])
        if handler in handlers:
            handlers.remove(handler)

    def publish(self, event: Event) -> None:
        for handler in list(self._handlers.get(type(event), ())):
            handler(event)
