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
from typing import Any

from PySide6.QtCore import QCoreApplication, QObject, QTimer
from PySide6.QtWidgets import QTabWidget

from kernels.data.layout import LayoutRequest, LayoutResult
from kernels.data.results import KernelInfo
from views.source_view import SourceView
from views.threads_view import ThreadsView

__all__ = ["ThreadsTab", "LAYOUT_KIND", "DEBOUNCE_MS"]

LAYOUT_KIND = "layout"
translate = QCoreApplication.translate
DEBOUNCE_MS = 350  # after the last edit of a value, before the layouts are asked for


class ThreadsTab(QObject):
    """``tabs``: the tab widget the view joins (beside the grid); ``submit(kind, payload)`` sends a
    worker request and returns its generation; ``answers`` the worker's ``result(gen, kind,
    payload)`` and ``error(gen, kind, err)`` signals' owner (``app.qt_worker.QtWorker``);
    ``shown()`` the kernel shown (None: none); ``user_file()`` its file when it is a user's;
    ``values()`` the parameter panel's values and ``valid()`` whether they are valid; ``ready()``
    whether the worker is up."""

    def __init__(self, tabs: QTabWidget, source: SourceView | None, answers: Any,
                 submit: Callable[[str, Any], int], shown: Callable[[], KernelInfo | None],
                 user_file: Callable[[], str | None], values: Callable[[], dict[str, Any]],
                 valid: Callable[[], bool], ready: Callable[[], bool],
                 targets: list[str] | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.tabs, self._submit, self._shown, self._user_file = tabs, submit, shown, user_file
        self._values, self._valid, self._ready = values, valid, ready
        self.view = ThreadsView()
        self.view.setObjectName("threads_view")
        self.view.set_targets(targets or ["sm_90"])
        tabs.addTab(self.view, translate("MainWindow", "Threads"))
        self.latest: int | None = None  # the generation whose answer is awaited
        self.sent: LayoutRequest | None = None
        self.stale = True
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(DEBOUNCE_MS)
        self._timer.timeout.connect(self.request)
        self.view.programChanged.connect(lambda _p: self.changed(now=True))
        self.view.targetChanged.connect(lambda _t: self.changed(now=True))
        tabs.currentChanged.connect(lambda _i: self._on_front())
        answers.result.connect(self._on_result)
        answers.error.connect(self._on_error)
        if source is not None:
            self._source = source
            source.editor().cursorPositionChanged.connect(self._on_source_line)

    # -- when to ask ---------------------------------------------------------------------------------
    def in_front(self) -> bool:
        return self.tabs.currentWidget() is self.view and self.view.isVisible()

    def changed(self, now: bool = False) -> None:
        """Something the picture depends on changed: ask again (after a pause unless ``now``) when
        the tab is in front, else remember to."""
        self.stale = True
        if not self.in_front():
            return
        if now:
            self._timer.stop()
            self.request()
        else:
            self._timer.start()

    def kernel_changed(self) -> None:
        """A kernel is shown anew: its picture, its programs and its accesses are another kernel's."""
        self.view.set_result(None)
        self.view.program.setValue(0)
        self.changed(now=True)

    def _on_front(self) -> None:
        if self.stale and self.in_front():
            self.request()

    def request(self) -> int | None:
        """Ask the worker for the layouts of the shown kernel at the panel's values (None: nothing
        could be sent — no kernel, invalid values, or the worker not up yet; the tab says which)."""
        info = self._shown()
        why = ("" if info is not None and self._ready() and self._valid() else
               translate("MainWindow", "the worker is not ready yet") if not self._ready()
               else translate("MainWindow", "no kernel selected") if info is None
               else translate("MainWindow", "fix the marked parameter first"))
        if why:
            self.view.set_busy(why)
            return None
        p = self.view.program.value()
        target = self.view.target.currentText() or "sm_90"
        req = LayoutRequest(kernel=info.name, values=dict(self._values()), target=target,
                            user_file=self._user_file(), coalescing=True, programs=f"{p}:{p + 1}")
        self.sent = req
        self.latest = self._submit(LAYOUT_KIND, req)
        self.stale = False
        self.view.set_busy(translate("MainWindow", "Compiling for {target} and reading the layouts…").format(
            target=target))
        return self.latest

    # -- answers -------------------------------------------------------------------------------------
    def _on_result(self, gen: int, kind: str, payload: Any) -> None:
        if kind != LAYOUT_KIND or gen != self.latest:
            return  # another request's, or a superseded layout request's
        self.latest = None
        self.view.set_busy("")
        if isinstance(payload, LayoutResult):
            self.view.set_result(payload)

    def _on_error(self, gen: int, kind: str, err: Any) -> None:
        if kind != LAYOUT_KIND or gen != self.latest:
            return
        self.latest = None
        self.view.set_busy("")
        self.view.set_result(LayoutResult(kernel=self.sent.kernel if self.sent else "", target="", num_warps=0,
                                          accesses=[], error=err))

    def _on_source_line(self) -> None:
        """The cursor moved to a source line (a click): the first access on that line, if any."""
        cursor = self._source.editor().textCursor()
        self.view.select_line(cursor.blockNumber() + self._source.first_line())
