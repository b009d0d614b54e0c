"""The Compile tab's target chooser, wired: compile the shown kernel, at the panel's values, for a
chosen GPU architecture in the worker (``kernels.compile.target`` through the worker's "compile"
request, the one ``tilescope compile --target`` uses), on the CPU, with no GPU needed.

The view (``views.compile_view.CompileView``) asks (``targetRequested``); this sends the request
(``Controller.compile_for_target``) and shows its answer (``CompileAnswered`` / ``CompileFailed``).
Only the latest request's answer is shown; a kernel shown anew is compiled for the chosen target
at once, and changed parameters mark the facts stale (Compile updates them).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QCoreApplication, QObject

from kernels.data.results import KernelInfo
from views.compile_view import CompileView
from views.param_panel import ParamPanel

from ..events import CompileAnswered, CompileFailed, KernelShown, WindowEvents, WorkerShown

__all__ = ["CompileTargets"]


class CompileTargets(QObject):
    """Connects ``view``'s target chooser to ``send(target, values)`` (the generation, or None when
    nothing can be sent); ``ready()``: the worker is up; ``shown()``: the kernel shown (None: none);
    ``defer(fn)`` runs ``fn`` once the current event is handled."""

    def __init__(self, view: CompileView, panel: ParamPanel, events: WindowEvents,
                 send: Callable[[str, dict[str, Any]], int | None], ready: Callable[[], bool],
                 shown: Callable[[], KernelInfo | None], defer: Callable[[Callable[[], Any]], Any],
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.view, self._panel, self._send, self._ready, self._shown, self._defer = (
            view, panel, send, ready, shown, defer)
        self._latest: int | None = None  # the generation of the compile whose answer is awaited
        self._target = ""  # what it compiles for
        view.targetRequested.connect(self.compile)
        panel.valuesChanged.connect(lambda _v: view.mark_target_stale())
        events.subscribe(WorkerShown, lambda e: view.set_gpu_name(e.gpu_name))
        events.subscribe(CompileAnswered, self._on_answer)
        events.subscribe(CompileFailed, self._on_failure)
        events.subscribe(KernelShown, self._on_kernel)

    def compile(self, target: str) -> int | None:
        """Compile the shown kernel at the panel's values for ``target``; the generation, or
        None when nothing can be sent (the view then says why in one line)."""
        ready, info = self._ready(), self._shown()
        why = ("" if info is not None and ready and self._panel.is_valid() else
               QCoreApplication.translate("MainWindow", "the worker is not ready yet") if not ready
               else QCoreApplication.translate("MainWindow", "no kernel selected") if info is None
               else QCoreApplication.translate("MainWindow", "fix the marked parameter first"))
        gen = None if why else self._send(target, self._panel.values())
        if gen is None:
            self._latest = None
            self.view.show_target_error(target, why or QCoreApplication.translate(
                "MainWindow", "the worker is not ready yet"))
            return None
        self._latest, self._target = gen, target
        self.view.show_compiling(target, info.name)
        return self._latest

    def _on_answer(self, e: CompileAnswered) -> None:
        if e.gen != self._latest:
            return
        self._latest = None
        if e.facts is not None:
            self.view.show_target_facts(self._target, e.facts, list(e.notes))

    def _on_failure(self, e: CompileFailed) -> None:
        if e.gen != self._latest:
            return
        self._latest = None
        self.view.show_target_error(self._target, e.message)

    def _on_kernel(self, e: KernelShown) -> None:
        """A kernel shown anew is compiled for the chosen target."""
        target = self.view.current_target()
        if e.new and target:
            self._defer(lambda: self.compile(target))  # after the panel shows its values
