"""Live mode: with Live on, every valid parameter change (or a backend switch) re-runs the kernel
``LIVE_DEBOUNCE_MS`` after the last edit of a burst — only the last of a burst runs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QTimer
from PySide6.QtGui import QAction

from views.param_panel import ParamPanel

from ..settings import Settings

__all__ = ["LIVE_DEBOUNCE_MS", "LiveRuns"]

#: Live mode re-runs this long after the last valid parameter change
LIVE_DEBOUNCE_MS = 300


class LiveRuns(QObject):
    """Follows ``action`` (the Live toggle) and ``panel``; ``can_submit()`` and ``ready()`` are
    the controller's; ``run()`` runs."""

    def __init__(self, action: QAction, panel: ParamPanel, settings: Settings, can_submit: Callable[[], bool],
                 ready: Callable[[], bool], run: Callable[[], Any], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._action, self._settings = action, settings
        self._can_submit, self._ready, self._run = can_submit, ready, run
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(LIVE_DEBOUNCE_MS)
        self.timer.timeout.connect(self._live_run)
        panel.valuesChanged.connect(self._on_values_changed)
        panel.backendChanged.connect(self._on_backend_changed)
        action.blockSignals(True)
        action.setChecked(bool(settings.live))
        action.blockSignals(False)

    def set_live(self, on: bool) -> None:
        self._settings.live = bool(on)
        if on and self._can_submit():
            self.timer.start()
        elif not on:
            self.timer.stop()

    def _live_run(self) -> None:
        if self._action.isChecked() and self._can_submit():
            self._run()

    def _on_values_changed(self, _values: dict) -> None:
        if self._action.isChecked():
            self.timer.start()  # restarts: only the last of a burst of edits runs

    def _on_backend_changed(self, _backend: str) -> None:
        if self._action.isChecked() and self._ready():
            self.timer.start()
