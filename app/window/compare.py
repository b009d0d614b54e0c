""""Interpreter vs GPU": the Run menu's (and the toolbar's) action that runs the launch both ways
in the worker (``kernels.engine.trace_router.compare_backends``), compares the outputs and marks on
the grid view's program grid the programs that wrote an element that differs.

The action is on when a launch could be traced and the worker has a GPU; without one it is off,
and its tooltip says why (the worker's reason). The answer is a ``BackendComparison`` (a GPU
trace plus one ``OutputDiff`` per output); the grid draws its trace and, once drawn, a hollow
square over each marked program's cell (redrawn whenever the grid redraws its cells: a refit, a
z slice). Another trace clears the marks. A banner line says how many elements and programs,
and, when the launch was too big to run whole under the interpreter, which programs were
compared (``kernels.gpu_trace.bounded``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QObject, QTimer
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMainWindow, QMenu, QToolBar

from kernels.data.trace import Trace
from views.engine_words import engine_text
from views.grid_view import GridView
from views.words import translate

from ..events import TraceAnswered, WindowEvents, WorkerShown
from .widgets import MessageBanner

__all__ = ["BackendCompare", "summary_text"]

#: the marks' colour: apart from the red × of out-of-bounds programs and the wave colours
MARK_COLOUR = "#d100d1"


class BackendCompare(QObject):
    """The compare action, placed beside ``trace_action`` wherever that is (the Run menu, the
    toolbar), and its marks on ``grid``'s program grid. ``start()`` sends the comparison (the
    controller's ``compare_backends``); the action follows ``run_action`` and the worker's GPU."""

    def __init__(self, host: QMainWindow, trace_action: QAction, run_action: QAction, grid: GridView,
                 banner: MessageBanner, events: WindowEvents, start: Callable[[], int | None]) -> None:
        super().__init__(host)
        self._grid, self._banner, self._run_action, self._start = grid, banner, run_action, start
        self._worker: WorkerShown | None = None  # what the worker said it can do (None: no hello yet)
        self.action = QAction(translate("BackendCompare", "Interpreter vs GPU"), host)
        self.action.setObjectName("compare_backends")
        self.action.triggered.connect(self.start)
        host.addAction(self.action)
        for holder in trace_action.associatedObjects():  # the Run menu and the toolbar, beside Trace
            if not isinstance(holder, (QMenu, QToolBar)):
                continue
            actions = holder.actions()
            at = actions.index(trace_action) + 1 if trace_action in actions else len(actions)
            holder.insertAction(actions[at] if at < len(actions) else None, self.action)
        self.marked: np.ndarray = np.zeros(0, np.int32)  # the programs to mark on ``_trace``
        self._trace: Trace | None = None
        self._scatter: pg.ScatterPlotItem | None = None
        self._image: Any = None
        self._redraw = QTimer(self)
        self._redraw.setSingleShot(True)
        self._redraw.setInterval(0)
        self._redraw.timeout.connect(self._draw_marks)
        events.subscribe(TraceAnswered, lambda e: self.on_trace_result(e.result))
        events.subscribe(WorkerShown, self._on_worker)
        grid.traceApplied.connect(self._on_trace_drawn)
        # the action follows what Run may do (the actions part sets it) and the GPU
        run_action.changed.connect(self.refresh)
        self.refresh()

    def _on_worker(self, e: WorkerShown) -> None:
        self._worker = e
        self.refresh()

    # -- the action --------------------------------------------------------------------------------
    def tooltip(self) -> str:
        base = self.tr("Run the launch under the interpreter and on the GPU, compare the outputs and mark the "
                       "programs whose outputs differ")
        w = self._worker
        if w is not None and not w.gpu_available:
            return base + " — " + self.tr("needs a CUDA GPU: {why}").format(why=engine_text(w.gpu_reason) or self.tr("no CUDA device"))
        return base

    def refresh(self) -> None:
        gpu = self._worker is not None and self._worker.gpu_available
        self.action.setEnabled(bool(self._run_action.isEnabled() and gpu))
        tip = self.tooltip()
        if self.action.toolTip() != tip:
            self.action.setToolTip(tip)
            self.action.setStatusTip(tip)

    def start(self) -> int | None:
        if not self.action.isEnabled():
            return None
        return self._start()

    # -- the answer --------------------------------------------------------------------------------
    def on_trace_result(self, res: Any) -> None:
        """Every trace answer (``TraceAnswered``): a comparison's programs are marked once
        its trace is drawn; any other trace clears the marks."""
        outputs = getattr(res, "outputs", None)
        if outputs is None or getattr(res, "error", None) is not None or res.trace is None:
            self._set(None, np.zeros(0, np.int32))
            return
        self._set(res.trace, res.programs)
        self._banner.show_message(self.summary(res), "warning" if res.n_differ else "info", topic="compare")

    def summary(self, res: Any) -> str:
        return summary_text(res)

    def _set(self, trace: Trace | None, programs: np.ndarray) -> None:
        self._trace, self.marked = trace, np.asarray(programs, np.int32)
        if trace is None:
            self._banner.clear("compare")
        self._draw_marks()

    def _on_trace_drawn(self, tr: Trace) -> None:
        if tr is not self._trace:
            self._set(None, np.zeros(0, np.int32))
        else:
            self._draw_marks()

    # -- the marks ---------------------------------------------------------------------------------
    def _program_plot(self) -> Any:
        """The grid view's program-grid plot (its canvas's first plot: GridView has no public
        handle on it; the marks are an item of their own on it, drawn from ``program_layout``)."""
        canvas = getattr(self._grid, "_canvas", None)
        return getattr(getattr(canvas, "prog", None), "plot", None), getattr(getattr(canvas, "prog", None), "image", None)

    def _draw_marks(self) -> None:
        grid = self._grid
        plot, image = self._program_plot()
        if plot is None:
            return
        if self._scatter is None:
            self._scatter = pg.ScatterPlotItem(symbol="s", size=14, pen=pg.mkPen(MARK_COLOUR, width=2.5),
                                               brush=pg.mkBrush(0, 0, 0, 0))
            self._scatter.setZValue(25)
            plot.addItem(self._scatter, ignoreBounds=True)
        if image is not self._image:  # the grid redraws its cells: the marks follow the new layout
            image.sigImageChanged.connect(self._redraw.start)
            self._image = image
        if self._trace is None or grid.trace() is not self._trace or not self.marked.size:
            self._scatter.setData(x=[], y=[])
            return
        layout = grid.program_layout()
        rows, cols = np.nonzero(np.isin(layout, self.marked))
        self._scatter.setData(x=cols + 0.5, y=rows + 0.5)

    def marked_on_screen(self) -> list[int]:
        """The programs whose cells carry a mark now (what a user sees marked)."""
        if self._scatter is None or self._grid.trace() is None:
            return []
        x, y = self._scatter.getData()
        if x is None or not len(x):
            return []
        layout = self._grid.program_layout()
        return sorted(int(layout[int(r), int(c)]) for r, c in zip(np.floor(y), np.floor(x), strict=True))


def summary_text(res: Any) -> str:
    """The banner line for a ``BackendComparison``: which programs were compared when not all of
    them were, then how many output elements agree or differ."""
    text = ""
    if res.compared:
        why = (translate("BackendCompare", "the interpreter's time budget ran out") if res.why_window == "time"
               else translate("BackendCompare", "the Programs field's window") if res.why_window == "window"
               else translate("BackendCompare", "running all of them under the interpreter would take too long"))
        text = translate("BackendCompare", "Compared programs {window} of {n:,} only ({why}).").format(
            window=res.compared, n=res.n_programs, why=why) + " "
    n_el = sum(o.n_elements for o in res.outputs)
    if not res.n_differ:
        text += translate("BackendCompare", "Interpreter and GPU agree on all {n:,} output elements (within {atol:.3g} "
                          "+ {rtol:.3g}×|value|).").format(n=n_el, atol=res.atol, rtol=res.rtol)
    else:
        text += translate("BackendCompare", "{n:,} of {total:,} output elements differ between the interpreter and the "
                          "GPU (largest gap {gap:.3g}); the {p:,} programs that wrote them are marked in the grid.").format(
            n=res.n_differ, total=n_el, gap=max(o.max_abs for o in res.outputs), p=res.programs.size)
        several = sum(o.n_several + o.n_unwritten for o in res.outputs)
        if several:
            text += " " + translate("BackendCompare", "{k:,} of them were written by several programs or none, and "
                                    "are not marked.").format(k=several)
    if getattr(res, "not_compared", None):
        text += " " + translate("BackendCompare", "Not compared: {names} (which of their elements those programs "
                                "wrote cannot be told).").format(names=", ".join(res.not_compared))
    return text
