"""The Advice card beside Compile: why the shown kernel is slow (``views.advice_view.AdviceView``).

The card's button sends a ``why`` request (``kernels.data.advice.WhyRequest``: the shown kernel at
the panel's values, compiled for the Compile tab's target — sm_90 unless another is chosen —,
sampled on the interpreter; on the GPU backend with a GPU, timed and with its launch proposals
measured). Only the latest answer is drawn. Selecting a finding shows its evidence: its source
line is marked; a tail finding brings the Timeline tab forward; a coalescing or vector finding
the Threads tab at that access; a masked-lanes or L2 finding the grid; an occupancy finding the
Compile dock.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import shiboken6
from PySide6.QtCore import QCoreApplication, QObject, Qt
from PySide6.QtWidgets import QDockWidget, QMainWindow, QMenu, QTabWidget, QWidget

from kernels.data.advice import Finding, WhyRequest
from kernels.data.backends import GPU, INTERPRETER
from kernels.data.results import KernelInfo
from views.advice_view import AdviceView
from views.param_panel import ParamPanel
from views.source_view import SourceView

from ..events import AdviceAnswered, AdviceFailed, KernelShown, LayoutAnswered, WindowEvents

__all__ = ["AdviceCard", "EvidencePlaces"]

translate = QCoreApplication.translate


class EvidencePlaces:
    """Where the window shows a finding's evidence: ``source`` (marks a line), the middle tabs
    (``grid_tabs``: the grid and the Threads view), ``plot_tabs`` with the ``timeline`` widget,
    the ``threads`` view (``select_line``) and the ``compile_dock``."""

    def __init__(self, source: SourceView | None, grid_tabs: QTabWidget, grid: QWidget, threads: Any,
                 plot_tabs: QTabWidget, timeline: QWidget | None, compile_dock: QDockWidget,
                 plots_dock: QDockWidget | None = None) -> None:
        self.source, self.grid_tabs, self.grid, self.threads = source, grid_tabs, grid, threads
        self.plot_tabs, self.timeline, self.compile_dock, self.plots_dock = plot_tabs, timeline, compile_dock, plots_dock
        #: a source line whose access the Threads tab should pick once its layouts arrive
        self.pending_line: int | None = None

    def show(self, f: Finding) -> str:
        """Show ``f``'s evidence; returns where ("source", "timeline", "threads", "grid", "compile")."""
        if self.source is not None:
            self.source.mark_line(f.line) if f.line >= 0 else self.source.clear_mark()
        if f.shows == "timeline" and self.timeline is not None:
            self.plot_tabs.setCurrentWidget(self.timeline)
            if self.plots_dock is not None:
                self.plots_dock.show()
                self.plots_dock.raise_()
        elif f.shows == "threads" and self.threads is not None:
            self.grid_tabs.setCurrentWidget(self.threads)  # in front: it asks for its layouts if stale
            if f.line >= 0 and not self.threads.select_line(f.line):
                self.pending_line = f.line  # picked when the layouts arrive (layouts_arrived)
        elif f.shows == "grid":
            index = self.grid_tabs.indexOf(self.grid)
            if index >= 0:
                self.grid_tabs.setCurrentIndex(index)
        elif f.shows == "compile":
            self.compile_dock.show()
            self.compile_dock.raise_()
        return f.shows

    def layouts_arrived(self, *_: object) -> None:
        """The Threads tab drew new layouts: pick the access a finding asked for."""
        if self.pending_line is not None and self.threads is not None and self.threads.select_line(self.pending_line):
            self.pending_line = None


class AdviceCard(QObject):
    """The Advice dock, tabified with ``compile_dock``. ``send(request)`` sends a ``WhyRequest``
    and returns its generation (None: not now); ``shown()`` the kernel shown; ``user_file()``
    its file; ``backend()`` the chosen backend; ``gpu()`` whether the worker has a GPU;
    ``target()`` the Compile tab's target ("" or "last run": sm_90)."""

    def __init__(self, win: QMainWindow, menu: QMenu, compile_dock: QDockWidget, panel: ParamPanel,
                 events: WindowEvents, send: Callable[[WhyRequest], int | None],
                 shown: Callable[[], KernelInfo | None], user_file: Callable[[], str | None],
                 backend: Callable[[], str], gpu: Callable[[], bool], target: Callable[[], str],
                 places: EvidencePlaces, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._panel, self._send, self._shown, self._user_file = panel, send, shown, user_file
        self._backend, self._gpu, self._target, self.places = backend, gpu, target, places
        self.view = AdviceView()
        self.view.setObjectName("advice_view")
        self.dock = QDockWidget(translate("MainWindow", "Advice"), win)
        self.dock.setObjectName("dock_advice")
        self.dock.setWidget(self.view)
        win.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.dock)
        win.tabifyDockWidget(compile_dock, self.dock)
        compile_dock.raise_()
        menu.addAction(self.dock.toggleViewAction())
        self.latest: int | None = None
        self.view.adviceRequested.connect(self.request)
        self.view.findingActivated.connect(self._on_finding)
        events.subscribe(AdviceAnswered, self._on_answer)
        events.subscribe(AdviceFailed, self._on_failure)
        events.subscribe(KernelShown, self._on_kernel)
        # after the Threads tab (built earlier, so it hears the answer first and draws it)
        events.subscribe(LayoutAnswered, lambda e: self._alive() and self.places.layouts_arrived())

    def request(self, try_changes: bool = False) -> int | None:
        info = self._shown()
        why = ("" if info is not None and self._panel.is_valid() else
               translate("MainWindow", "no kernel selected") if info is None
               else translate("MainWindow", "fix the marked parameter first"))
        target = self._target()
        on_gpu = self._backend() == GPU and self._gpu()
        req = None if why else WhyRequest(kernel=info.name, values=dict(self._panel.values()),
                                          target=target if target.startswith("sm_") else "sm_90",
                                          user_file=self._user_file(), try_changes=try_changes,
                                          backend=GPU if on_gpu else INTERPRETER)
        gen = self._send(req) if req is not None else None
        if gen is None:
            self.latest = None
            self.view.set_error(why or translate("MainWindow", "the worker is not ready yet"))
            return None
        self.latest = gen
        self.view.set_busy(translate("MainWindow", "Looking for the causes of {kernel} on {target}…").format(
            kernel=req.kernel, target=req.target))
        return gen

    def _alive(self) -> bool:
        return shiboken6.isValid(self) and shiboken6.isValid(self.view)

    def _on_answer(self, e: AdviceAnswered) -> None:
        if self._alive() and e.gen == self.latest:
            self.latest = None
            self.view.set_advice(e.advice)

    def _on_failure(self, e: AdviceFailed) -> None:
        if self._alive() and e.gen == self.latest:
            self.latest = None
            self.view.set_error(getattr(e.error, "message", str(e.error)))

    def _on_kernel(self, e: KernelShown) -> None:
        if self._alive() and e.new:
            self.latest = None
            self.view.set_advice(None)

    def _on_finding(self, f: Finding) -> None:
        self.places.show(f)
