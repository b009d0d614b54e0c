"""The Compile tab's target chooser, wired: compile the shown kernel, at the panel's values, for a
chosen GPU architecture in the worker (``kernels.compile.target`` through the worker's "compile"
request, the one ``tilescope compile --target`` uses), on the CPU, with no GPU needed.

The view (``views.compile_view.CompileView``) asks (``targetRequested``); this sends the request
and routes its answer back. Only the latest request's answer is shown; a kernel shown anew is
compiled for the chosen target at once, and changed parameters mark the facts stale (Compile
updates them). The controller leaves "compile" answers to this (``Controller.on_error``).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QCoreApplication, QObject

from kernels.data.results import CompileFacts, ErrorInfo, KernelInfo

from .kernel_listener import KernelShownListener

__all__ = ["CompileTargets"]


class CompileTargets(QObject, KernelShownListener):
    """Connects ``window.compile_view``'s target chooser to ``window.worker``; a controller
    listener (``app.controller.SweepListener``) so a newly shown kernel is compiled too."""

    def __init__(self, window: Any) -> None:
        super().__init__(window)
        self._win = window
        self.view = window.compile_view
        self._latest: int | None = None  # the generation of the compile whose answer is awaited
        self._target = ""  # what it compiles for
        self.view.targetRequested.connect(self.compile)
        window.worker.result.connect(self._on_result)
        window.worker.error.connect(self._on_error)
        window.worker.hello.connect(self._on_hello)
        window.panel.valuesChanged.connect(lambda _v: self.view.mark_target_stale())
        window.controller.listeners.append(self)

    def compile(self, target: str) -> int | None:
        """Compile the shown kernel at the panel's values for ``target``; the generation, or
        None when nothing can be sent (the view then says why in one line)."""
        win, session = self._win, self._win.session
        info = session.info()
        why = ("" if info is not None and win.controller.ready and win.panel.is_valid() else
               QCoreApplication.translate("MainWindow", "the worker is not ready yet") if not win.controller.ready
               else QCoreApplication.translate("MainWindow", "no kernel selected") if info is None
               else QCoreApplication.translate("MainWindow", "fix the marked parameter first"))
        if why:
            self._latest = None
            self.view.show_target_error(target, why)
            return None
        payload = {"kernel": info.name, "user_file": session.user_file(), "values": win.panel.values(),
                   "target": target, "keep_asm": True}
        self._latest, self._target = win.worker.submit("compile", payload), target
        self.view.show_compiling(target, info.name)
        return self._latest

    def _on_hello(self, hello: dict) -> None:
        b = hello.get("backends") or {}
        self.view.set_gpu_name(str(b.get("device_name") or "GPU") if b.get("gpu_available") else None)

    def _on_result(self, gen: int, kind: str, payload: Any) -> None:
        if kind != "compile" or gen != self._latest:
            return
        self._latest = None
        facts, notes = payload
        if isinstance(facts, CompileFacts):
            self.view.show_target_facts(self._target, facts, list(notes or ()))

    def _on_error(self, gen: int, kind: str, err: ErrorInfo) -> None:
        if kind != "compile" or gen != self._latest:
            return
        self._latest = None
        self.view.show_target_error(self._target, err.message)

    # -- the controller's listener: a kernel shown anew is compiled for the chosen target ------
    def kernel_shown(self, info: KernelInfo) -> None:
        target = self.view.current_target()
        if target:
            self._win.defer(lambda: self.compile(target))  # after the panel shows its values
