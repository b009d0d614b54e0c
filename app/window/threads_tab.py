"""The Threads tab beside the grid: which warp, lane and register hold each element of one access
of the shown kernel, and whether the access is coalesced (``views.threads_view.ThreadsView``).

The worker answers a ``layout`` request (``kernels.data.layout.LayoutRequest`` -> ``LayoutResult``:
the kernel compiled for the chosen target on the CPU, each access's layout from the TTGIR, and one
program's addresses from the interpreter for the sectors of each warp instruction). A request goes
out when the tab is in front and something it depends on changed — the kernel, a parameter value
(num_warps, a block size, the dtype: redrawn live, a short pause after the last keystroke), the
program or the target — and only the latest answer is drawn; while the tab is hidden a change only
marks it stale. A click on a source line picks the access on that line.
"""

from __future__ import annotations

from collections.abc import Callable

import shiboken6
from PySide6.QtCore import QCoreApplication, QObject, QTimer
from PySide6.QtWidgets import QTabWidget

from kernels.data.layout import LayoutRequest, LayoutResult
from kernels.data.results import KernelInfo
from views.compile_view import TARGETS
from views.param_panel import ParamPanel
from views.source_view import SourceView
from views.threads_view import ThreadsView

from ..events import KernelShown, LayoutAnswered, LayoutFailed, WindowEvents, WorkerShown

__all__ = ["ThreadsTab", "DEBOUNCE_MS"]

DEBOUNCE_MS = 350  # after the last edit of a value, before the layouts are asked for
translate = QCoreApplication.translate


class ThreadsTab(QObject):
    """``tabs``: the tab widget the view joins (beside the grid); ``send(request)`` sends a
    ``LayoutRequest`` to the worker and returns its generation (None: not now); the answers come as
    ``LayoutAnswered`` / ``LayoutFailed`` events. ``shown()``: the kernel shown (None: none);
    ``user_file()`` its file when it is a user's; ``ready()`` whether the worker is up."""

    def __init__(self, tabs: QTabWidget, source: SourceView | None, panel: ParamPanel, events: WindowEvents,
                 send: Callable[[LayoutRequest], int | None], shown: Callable[[], KernelInfo | None],
                 user_file: Callable[[], str | None], ready: Callable[[], bool],
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.tabs, self._send, self._shown, self._user_file = tabs, send, shown, user_file
        self._panel, self._ready, self._source = panel, ready, source
        self.view = ThreadsView()
        self.view.setObjectName("threads_view")
        self.view.set_targets(list(TARGETS), "sm_90")
        tabs.addTab(self.view, translate("MainWindow", "Threads"))
        self.latest: int | None = None  # the generation whose answer is awaited
        self.sent: LayoutRequest | None = None
        self.stale = True
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(DEBOUNCE_MS)
        self._timer.timeout.connect(self.request)
        # slots are this object's methods, so Qt drops the connections when the window goes
        self.view.programChanged.connect(self._on_choice)
        self.view.targetChanged.connect(self._on_choice)
        tabs.currentChanged.connect(self._on_front)
        panel.valuesChanged.connect(self._on_values)
        events.subscribe(KernelShown, self._on_kernel)
        events.subscribe(WorkerShown, self._on_front)
        events.subscribe(LayoutAnswered, self._on_answer)
        events.subscribe(LayoutFailed, self._on_failure)
        if source is not None:
            source.editor().cursorPositionChanged.connect(self._on_source_line)
            self.view.accessChanged.connect(self._mark_line)

    # -- when to ask ---------------------------------------------------------------------------------
    def in_front(self) -> bool:
        return self.tabs.currentWidget() is self.view and self.view.isVisible()

    def changed(self, now: bool = False) -> None:
        """Something the picture depends on changed: ask again (after a pause unless ``now``) when
        the tab is in front, else remember to."""
        self.stale = True
        if not self._alive() or not self.in_front():
            return
        if now:
            self._timer.stop()
            self.request()
        else:
            self._timer.start()

    def _alive(self) -> bool:
        """The window is still there (an event of a closed window's controller changes nothing)."""
        return shiboken6.isValid(self) and shiboken6.isValid(self.view) and shiboken6.isValid(self._timer)

    def _on_values(self, _values: dict) -> None:
        self.changed()

    def _on_choice(self, *_: object) -> None:
        self.changed(now=True)

    def _on_kernel(self, e: KernelShown) -> None:
        if self._alive():
            self.kernel_changed() if e.new else self.changed(now=True)

    def kernel_changed(self) -> None:
        """A kernel is shown anew: its picture, its programs and its accesses are another kernel's."""
        self.view.set_result(None)
        self.view.program.setValue(0)
        self.changed(now=True)

    def _on_front(self, *_: object) -> None:
        if self._alive() and self.stale and self.in_front():
            self.request()

    def request(self) -> int | None:
        """Ask the worker for the layouts of the shown kernel at the panel's values (None: nothing
        could be sent — no kernel, invalid values, or the worker not up yet; the tab says which)."""
        info = self._shown()
        why = ("" if info is not None and self._ready() and self._panel.is_valid() else
               translate("MainWindow", "the worker is not ready yet") if not self._ready()
               else translate("MainWindow", "no kernel selected") if info is None
               else translate("MainWindow", "fix the marked parameter first"))
        p = self.view.program.value()
        target = self.view.target.currentText() or "sm_90"
        gen = None
        if not why:
            req = LayoutRequest(kernel=info.name, values=dict(self._panel.values()), target=target,
                                user_file=self._user_file(), coalescing=True, programs=f"{p}:{p + 1}")
            gen = self._send(req)
            self.sent = req if gen is not None else self.sent
        if gen is None:
            self.view.set_busy(why or translate("MainWindow", "the worker is not ready yet"))
            return None
        self.latest, self.stale = gen, False
        self.view.set_busy(translate("MainWindow", "Compiling for {target} and reading the layouts…").format(
            target=target))
        return gen

    # -- answers -------------------------------------------------------------------------------------
    def _on_answer(self, e: LayoutAnswered) -> None:
        gen, result = e.gen, e.result
        if gen != self.latest or not self._alive():
            return  # a superseded request's
        self.latest = None
        self.view.set_busy("")
        if isinstance(result, LayoutResult):
            self.view.set_result(result)

    def _on_failure(self, e: LayoutFailed) -> None:
        gen, err = e.gen, e.error
        if gen != self.latest or not self._alive():
            return
        self.latest = None
        self.view.set_busy("")
        self.view.set_result(LayoutResult(kernel=self.sent.kernel if self.sent else "", target="", num_warps=0,
                                          accesses=[], error=err))

    def _mark_line(self, index: int) -> None:
        """The user picked another access: its line is marked in the source view."""
        res = self.view.result
        if self._source is not None and res is not None and 0 <= index < len(res.accesses):
            line = res.accesses[index].line
            self._source.mark_line(line) if line >= 0 else self._source.clear_mark()

    def _on_source_line(self) -> None:
        """The cursor moved to a source line (a click): the first access on that line, if any."""
        assert self._source is not None
        cursor = self._source.editor().textCursor()
        self.view.select_line(cursor.blockNumber() + self._source.first_line())
