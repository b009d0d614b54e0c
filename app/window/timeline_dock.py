"""The window's GPU trace views: the Timeline tab (``TimelineTab``) and "Interpreter vs GPU"
(``app.window.compare.BackendCompare``), installed together by ``GpuTraceViews``.

A Trace with the GPU backend chosen records on the GPU (every program's maps, and the schedule of
a light timeline build: ``app.trace_flow.TraceFlow``); the answer comes as ``TraceAnswered``
before it is drawn. The Timeline tab (beside Throughput and Sweep) then shows one row per SM, one
bar per program, the measured waves against the formula's; pointing at a bar lights that program
in the grid view. With no timeline it says why: no GPU here (the worker's reason), nothing traced
on the GPU yet, or the trace shown ran under the interpreter.

The ``TimelineView`` is built the first time a timeline comes (a pyqtgraph plot costs a tenth of
a second the first frame need not wait for); until then a label holds the tab.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QLabel, QMainWindow, QStackedWidget, QTabWidget

from kernels.data.backends import INTERPRETER, is_interpreter
from kernels.data.gpu_trace import Timeline
from views.engine_words import engine_text
from views.grid_view import GridView
from views.param_panel import ParamPanel
from views.timeline_view import TimelineView

from ..events import TraceAnswered, WindowEvents, WorkerShown
from .compare import BackendCompare
from .compile_ahead import CompileAhead, CompileAheadPort
from .widgets import MessageBanner

__all__ = ["GpuTraceViews", "TimelineTab"]


class TimelineTab(QObject):
    """The Timeline tab of ``tabs``; pointing at a bar lights its program in ``grid``."""

    def __init__(self, tabs: QTabWidget, grid: GridView, events: WindowEvents, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._grid = grid
        self._worker: WorkerShown | None = None  # what the worker said it can do (None: no hello yet)
        self.view: TimelineView | None = None
        self.timeline: Timeline | None = None
        self.placeholder = QLabel()
        self.placeholder.setObjectName("timeline_placeholder")
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.placeholder.setWordWrap(True)
        self.placeholder.setStyleSheet("color: #555; padding: 24px;")
        self.stack = QStackedWidget()
        self.stack.addWidget(self.placeholder)
        tabs.addTab(self.stack, self.tr("Timeline"))
        self._traced_on: str | None = None  # the backend of the last trace answered
        self.refresh()
        events.subscribe(WorkerShown, self._on_worker)
        events.subscribe(TraceAnswered, lambda e: self.on_trace_result(e.result))

    def _on_worker(self, e: WorkerShown) -> None:
        self._worker = e
        self.refresh()

    # -- what is shown -----------------------------------------------------------------------------
    def empty_reason(self) -> str:
        """Why the tab has no timeline now, in the user's language."""
        w = self._worker
        if w is not None and not w.gpu_available:
            return self.tr("No timeline: this machine has no usable GPU ({why}). The schedule is read on the GPU "
                           "itself (each program's SM and clock), so choose the GPU backend on a machine with "
                           "CUDA and press Trace.").format(why=engine_text(w.gpu_reason) or self.tr("no CUDA device"))
        if is_interpreter(self._traced_on):
            return self.tr("This trace ran under the interpreter, which has no SMs or clocks: choose the GPU "
                           "backend and press Trace to see when and where each program ran.")
        return self.tr("No timeline yet: choose the GPU backend and press Trace (Ctrl+T) to see when and on "
                       "which SM each program ran.")

    def refresh(self) -> None:
        if self.timeline is None:
            self.placeholder.setText(self.empty_reason())
            self.stack.setCurrentWidget(self.placeholder)

    def on_trace_result(self, res: Any) -> None:
        """Every trace answer (``TraceAnswered``): a timeline replaces the one shown."""
        if getattr(res, "error", None) is not None:
            return
        req = getattr(res, "request", None)
        self._traced_on = getattr(req, "backend", INTERPRETER)
        tl = getattr(res, "timeline", None)
        self.show_timeline(tl)

    def show_timeline(self, tl: Timeline | None) -> None:
        self.timeline = tl if tl is not None and tl.n_programs else None
        if self.timeline is None:
            if self.view is not None:
                self.view.set_timeline(None)
            self.refresh()
            return
        view = self._ensure_view()
        view.set_timeline(self.timeline)
        self.stack.setCurrentWidget(view)

    def _ensure_view(self) -> TimelineView:
        if self.view is None:
            self.view = TimelineView()
            self.view.setObjectName("timeline_view")
            self.view.programHovered.connect(self._light_program)
            self.stack.addWidget(self.view)
        return self.view

    def _light_program(self, pid: int) -> None:
        """A bar pointed at: the same program lit in the grid, when the grid shows that launch."""
        grid, tl = self._grid, self.timeline
        tr = grid.trace()
        if tl is None or tr is None or grid.is_loading() or tuple(tr.grid) != tuple(tl.grid):
            return
        if 0 <= pid < tr.n_programs:
            grid.hover_program(pid)


class GpuTraceViews:
    """The Timeline tab and the "Interpreter vs GPU" action, and the compiles ahead of a GPU run
    (``app.window.compile_ahead``): what a GPU trace adds to the window."""

    def __init__(self, host: QMainWindow, tabs: QTabWidget, grid: GridView, banner: MessageBanner,
                 actions: tuple[QAction, QAction], events: WindowEvents, compare: Callable[[], int | None],
                 panel: ParamPanel, ahead: CompileAheadPort) -> None:
        trace_action, run_action = actions
        self.timeline = TimelineTab(tabs, grid, events, host)
        self.compare = BackendCompare(host, trace_action, run_action, grid, banner, events, compare)
        self.compile_ahead = CompileAhead(ahead, panel, host)
