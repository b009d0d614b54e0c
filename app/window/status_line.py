"""The status bar, following the controller's events (``app.events``): the stage line and its bar,
timed messages, and the labels on the right — backend, device, worker state, Triton version."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QStatusBar

from kernels.data.backends import is_gpu
from views.param_panel import ParamPanel

from ..events import BackendSet, StageShown, StatusShown, WindowEvents, WorkerShown, WorkerStateShown
from .widgets import StatusStrip

__all__ = ["StatusLine"]


class StatusLine:
    """Fills ``strip`` (``StatusStrip.install(window)``) from ``events``; the backend label follows
    ``panel``'s backend."""

    def __init__(self, strip: StatusStrip, bar: QStatusBar, panel: ParamPanel, events: WindowEvents) -> None:
        self.strip, self._bar, self._panel = strip, bar, panel
        panel.backendChanged.connect(lambda _b: self.update_backend())
        events.subscribe(StageShown, lambda e: strip.set_stage(e.text, e.fraction, e.busy))
        events.subscribe(StatusShown, lambda e: bar.showMessage(e.text, e.ms))
        events.subscribe(BackendSet, lambda _e: self.update_backend())
        events.subscribe(WorkerShown, self._on_worker)
        events.subscribe(WorkerStateShown, self._on_state)

    def update_backend(self) -> None:
        gpu = is_gpu(self._panel.backend())
        self.strip.backend_label.setText(QCoreApplication.translate("MainWindow", "backend: GPU") if gpu
                                         else QCoreApplication.translate("MainWindow", "backend: interpreter (CPU)"))

    def _on_worker(self, e: WorkerShown) -> None:
        self.strip.device_label.setText(QCoreApplication.translate("MainWindow", "device: {name}").format(
            name=e.device_name))
        self.strip.triton_label.setText(f"Triton {e.triton_version or '?'}")
        self.update_backend()

    def _on_state(self, e: WorkerStateShown) -> None:
        self.strip.state_label.setText(QCoreApplication.translate("StatusStrip", "worker: {state}").format(
            state=QCoreApplication.translate("StatusStrip", e.state)))
