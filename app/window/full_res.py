"""Regions of a reduced trace at full resolution, wired: the grid view asks (``regionWanted``, a
zoomed-in or double-clicked reduced map), this sends the worker's ``trace_region`` request (the
worker keeps the full trace behind the reduced one it sent: ``kernels.gpu_trace.kept``) and hands
the answer back to the view, which draws it over the cells. A refusal (the full trace is no longer
kept; too large a rectangle) is one line in the status bar. The controller leaves
``trace_region`` answers to this (``Controller.on_error``).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QCoreApplication, QObject

from kernels.data.region import RegionAnswer, RegionRequest
from kernels.data.results import ErrorInfo

__all__ = ["FullResolution"]


class FullResolution(QObject):
    """Connects ``window.grid``'s region requests to ``window.worker``."""

    def __init__(self, window: Any) -> None:
        super().__init__(window)
        self._win = window
        self.pending: dict[int, RegionRequest] = {}  # generation -> the request it carries
        window.grid.regionWanted.connect(self.request)
        window.worker.result.connect(self._on_result)
        window.worker.error.connect(self._on_error)

    def request(self, req: RegionRequest) -> int | None:
        """Send ``req`` (no more than one awaited per tensor: an older one's answer is dropped)."""
        if not self._win.controller.ready:
            return None
        for gen in [g for g, r in self.pending.items() if r.tensor == req.tensor]:
            del self.pending[gen]
        gen = self._win.worker.submit("trace_region", req)
        self.pending[gen] = req
        return gen

    def _on_result(self, gen: int, kind: str, payload: Any) -> None:
        if kind != "trace_region" or self.pending.pop(gen, None) is None:
            return
        if isinstance(payload, RegionAnswer):
            self._win.grid.set_region(payload)

    def _on_error(self, gen: int, kind: str, err: ErrorInfo) -> None:
        if kind != "trace_region" or self.pending.pop(gen, None) is None:
            return
        self._win.show_status(QCoreApplication.translate("MainWindow", "Full resolution: {why}").format(
            why=err.message), 8000)
