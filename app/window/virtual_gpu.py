"""Run ▸ Virtual GPU…: without a GPU, the GPU a plain script's device checks are answered as
(``kernels.data.virtual_gpus``; issue #23). The choice is the settings' ``virtual_gpu`` (``tilescope
--virtual-gpu`` overrides it for one session, as ``--remote`` does) and reaches the worker as its
environment (``worker_env``). Choosing another restarts the worker with it and opens the shown
user file again, so that its script runs on the new GPU; the status bar then says which GPU
answers. A worker with a GPU answers with its own: there the item is off and says so.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QWidget

from kernels.data.virtual_gpus import DEFAULT, chosen_gpu, worker_env
from views.words import translate

from ..events import WindowEvents, WorkerShown
from ..settings import Settings
from .settings import choose_virtual_gpu

__all__ = ["VirtualGpuChoice", "virtual_gpu_env"]


def virtual_gpu_env(settings: Settings, session_arch: str | None = None) -> dict[str, str] | None:
    """The environment a worker is started with: this session's virtual GPU (``--virtual-gpu``),
    else the settings' (None: this process's, where ``$TILESCOPE_VIRTUAL_GPU`` or sm_90 decides)."""
    return worker_env(session_arch or settings.virtual_gpu or None)


class VirtualGpuChoice(QObject):
    """Names and enables ``action`` (Run ▸ Virtual GPU…, which calls ``choose``): ``restart_worker(env=…)`` starts a fresh worker,
    ``reopen()`` opens the shown user file again, ``status(text, ms)`` writes the status bar."""

    def __init__(self, action: QAction, settings: Settings, events: WindowEvents, banner: Any,
                 restart_worker: Callable[..., Any], reopen: Callable[[], Any], status: Callable[[str, int], Any],
                 session_arch: str | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.action, self.settings, self._banner = action, settings, banner
        self._restart, self._reopen, self._status = restart_worker, reopen, status
        self._session_arch = session_arch or None
        self._announce = False  # say which GPU answers once the restarted worker is up
        self._parent = parent
        events.subscribe(WorkerShown, self._on_worker)
        self._show(None)

    def arch(self) -> str:
        """The virtual GPU the worker answers as (sm_90 where ``$TILESCOPE_VIRTUAL_GPU`` is not one)."""
        try:
            return chosen_gpu(self._session_arch or self.settings.virtual_gpu or None).arch
        except ValueError:
            return DEFAULT

    def choose(self) -> None:
        choose_virtual_gpu(self._parent, self.settings, self._banner, self.arch(), self.use)

    def use(self, arch: str) -> None:
        """Answer as ``arch`` from now on: a worker started with it, the shown user file opened again."""
        self._session_arch = None  # the menu's choice wins over --virtual-gpu
        self.settings.virtual_gpu = arch
        self._announce = True
        self._restart(env=virtual_gpu_env(self.settings))
        self._status(translate("MainWindow", "restarting the worker on a virtual {gpu}…").format(
            gpu=chosen_gpu(arch).label), 0)
        self._reopen()
        self._show(None)

    def _on_worker(self, e: WorkerShown) -> None:
        self._show(e.gpu_name if e.gpu_available else None)
        if self._announce and not e.gpu_available:
            self._status(translate("MainWindow", "a script's device checks are answered by a virtual {gpu}").format(
                gpu=chosen_gpu(self.arch()).label), 15000)
        self._announce = False

    def _show(self, gpu_name: str | None) -> None:
        a = self.action
        a.setEnabled(gpu_name is None)
        if gpu_name is None:
            a.setText(translate("MainWindow", "Virtual GPU ({arch})…").format(arch=self.arch()))
            tip = translate("MainWindow", "Without a GPU, the GPU a script's device checks are answered as "
                            "(now {gpu})").format(gpu=chosen_gpu(self.arch()).label)
        else:
            a.setText(translate("MainWindow", "Virtual GPU (not used: the real GPU answers)"))
            tip = translate("MainWindow", "This machine's GPU ({name}) answers a script's device checks; a virtual "
                            "GPU is only used without one").format(name=gpu_name)
        a.setToolTip(tip)
        a.setStatusTip(tip)
