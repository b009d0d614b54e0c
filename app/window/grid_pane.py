"""The middle of the window: the message banner, the trace's caption, and the grid view (or, before
any trace, a placeholder that says how to get one); with the source view it marks.

``GridPane`` follows the controller's events (``app.events``): a trace to draw goes to the grid
(prepared off the GUI thread), a trace drawn brings the grid to the front and its source into the
source view, a new kernel puts the placeholder back; banner messages come and go by topic. The
caption says which values the trace shows and turns amber when the panel's values differ.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QLabel, QStackedWidget, QTabWidget, QVBoxLayout, QWidget

from kernels.data.backends import GPU
from kernels.data.grid import grid_of, n_programs
from views import theme
from views.grid_view import GridView
from views.source_view import SourceView
from views.words import translate

from ..events import (
    KernelShown,
    MessageCleared,
    MessageShown,
    SourceShown,
    TraceDrawing,
    TraceShown,
    WindowEvents,
)
from ..session import Session, trace_caption
from .exports import export_image
from .links import CheckTraceLink
from .widgets import MessageBanner

__all__ = ["GridPane"]


class GridPane(QObject):
    """``central`` is the widget to set as the window's central widget; ``values()`` gives the
    parameter panel's values (for the caption)."""

    def __init__(self, grid: GridView, source: SourceView, session: Session, check_link: CheckTraceLink,
                 events: WindowEvents, values: Callable[[], dict[str, Any]], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.grid, self.source, self._session, self._link, self._values = grid, source, session, check_link, values
        self.banner = MessageBanner()
        self.grid_placeholder = QLabel(translate(
            "MainWindow",
            "No trace yet.\n\nPress Trace (Ctrl+T) to run the kernel under the Triton interpreter and "
            "record which program touches which element of which tensor."))
        self.grid_placeholder.setObjectName("grid_placeholder")
        self.grid_placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.grid_placeholder.setWordWrap(True)
        self.grid_placeholder.setStyleSheet("color: #555; font-size: 11pt; padding: 40px;")
        self._placeholder_gpu = translate(
            "MainWindow",
            "No trace yet.\n\nPress Trace (Ctrl+T) to record on the GPU which program touches which element of "
            "which tensor.")
        self._placeholder_interpreter = self.grid_placeholder.text()
        self.grid_stack = QStackedWidget()
        self.grid_stack.addWidget(self.grid_placeholder)
        self.grid_stack.addWidget(grid)
        # the grid's tab; the Threads tab (``threads_tab``) joins it
        self.tabs = QTabWidget()
        self.tabs.setObjectName("central_tabs")
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(self.grid_stack, translate("MainWindow", "Grid"))
        self.trace_caption = QLabel("")
        self.trace_caption.setObjectName("trace_caption")
        self.trace_caption.setWordWrap(True)
        self.trace_caption.hide()
        self.central = QWidget()
        lay = QVBoxLayout(self.central)
        lay.setContentsMargins(4, 4, 4, 0)
        lay.setSpacing(4)
        lay.addWidget(self.banner)
        lay.addWidget(self.trace_caption)
        lay.addWidget(self.tabs, 1)
        grid.accessLineHovered.connect(self._on_access_line)
        b = self.banner
        events.subscribe(MessageShown, lambda e: b.show_message(e.text, e.level, details=e.details, topic=e.topic,
                                                                 actions=e.actions))
        events.subscribe(MessageCleared, lambda e: b.clear(*e.topics))
        events.subscribe(KernelShown, self._on_kernel)
        events.subscribe(SourceShown, lambda e: source.set_source(e.source, e.first_line))
        events.subscribe(TraceDrawing, self._draw)
        events.subscribe(TraceShown, self._on_trace_shown)

    def show_backend(self, backend: str) -> None:
        """Say in the placeholder where Trace will record: the GPU or the Triton interpreter."""
        self.grid_placeholder.setText(self._placeholder_gpu if backend == GPU else self._placeholder_interpreter)

    def _on_kernel(self, e: KernelShown) -> None:
        if e.new:
            self.source.set_source(e.info.source, e.info.source_first_line)
            self.grid_stack.setCurrentWidget(self.grid_placeholder)
            self.trace_caption.hide()
        if self._session.trace is None or e.new:
            self._show_launch_grid()

    def _draw(self, e: TraceDrawing) -> None:
        # prepared on a thread and drawn in short steps (a 4096-program trace would otherwise hold
        # the window for a fifth of a second); the grid's traceApplied follows
        self.grid.set_trace(e.trace, background=True)

    def show_in_grid(self, trace: Any) -> None:
        """Draw ``trace`` (a lesson's) and bring the grid to the front."""
        self.grid.set_trace(trace, background=True)
        self.grid_stack.setCurrentWidget(self.grid)
        self.tabs.setCurrentWidget(self.grid_stack)

    def _on_trace_shown(self, e: TraceShown) -> None:
        tr = e.trace
        self.grid_stack.setCurrentWidget(self.grid)
        self.tabs.setCurrentWidget(self.grid_stack)
        if tr.source and (tr.source != self.source.text() or tr.source_first_line != self.source.first_line()):
            self.source.set_source(tr.source, tr.source_first_line)
        self.update_caption()
        self._link.update()

    def is_drawing(self) -> bool:
        return self.grid.is_loading()

    def update_caption(self) -> None:
        tr = self._session.trace
        if tr is None:
            self._show_launch_grid()
            return
        text, stale = trace_caption(tr, self._session.info(tr.kernel), self._values())
        self.trace_caption.setText(text)
        style = f"color: {theme.ACCENT_WARN};" if stale else "color: #333;"
        if self.trace_caption.styleSheet() != style:  # a style sheet re-polishes: ~5 ms each time
            self.trace_caption.setStyleSheet(style)
        self.trace_caption.show()

    def _show_launch_grid(self) -> None:
        """Before any trace: the program grid the launch will have, from the kernel's grid
        expressions and the panel's values (``cdiv(N, BLOCK_SIZE)`` = 4096 programs)."""
        info = self._session.info()
        text = ""
        if info is not None and info.grid_exprs:
            try:
                grid = grid_of(info.grid_exprs, self._values())
            except Exception:  # noqa: BLE001 - a value being typed: no grid to show yet
                grid = None
            if grid is not None:
                text = translate("MainWindow", "Before any trace: grid ({exprs}) = {dims}: {n} programs").format(
                    exprs=", ".join(info.grid_exprs), dims=" × ".join(str(g) for g in grid),
                    n=f"{n_programs(grid):,}")
        self.trace_caption.setText(text)
        if self.trace_caption.styleSheet() != "color: #333;":
            self.trace_caption.setStyleSheet("color: #333;")
        self.trace_caption.setVisible(bool(text))

    def _on_access_line(self, line: int) -> None:
        if line >= 0:
            self.source.mark_line(line)
        else:
            self.source.clear_mark()

    def export(self, parent: QWidget) -> None:
        """Export grid view…: the program grid and the tile maps as PNG / SVG."""
        if self._session.trace is None:
            self.banner.show_message(translate("MainWindow", "Nothing to export: trace the kernel first."), "info",
                                     topic="export")
            return
        export_image(parent, translate("MainWindow", "Export grid view"), "grid.png",
                     lambda path: theme.export_plot(self.grid.graphics_view().scene(), path),
                     translate("MainWindow", "grid view"),
                     lambda text: self.banner.show_message(text, "error", topic="export"))
