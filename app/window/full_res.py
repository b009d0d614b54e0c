"""Regions of a reduced trace at full resolution, wired: the grid view asks (``regionWanted``, a
zoomed-in or double-clicked reduced map), this sends the worker's ``trace_region`` request (the
worker keeps the full trace behind the reduced one it sent: ``kernels.engine.kept_trace``) and hands
the answer (``RegionAnswered``) back to the view, which draws it over the cells. A refusal
(``RegionFailed``: the full trace is no longer kept; too large a rectangle) is one line in the
status bar.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QCoreApplication, QObject

from kernels.data.region import RegionAnswer, RegionRequest
from views.grid_view import GridView

from ..events import RegionAnswered, RegionFailed, WindowEvents

__all__ = ["FullResolution"]


class FullResolution(QObject):
    """Connects ``grid``'s region requests to ``send(request)`` (the controller's
    ``request_region``: a generation, or None while the worker is not up); ``status(text, ms)``
    says a refusal."""

    def __init__(self, grid: GridView, events: WindowEvents, send: Callable[[RegionRequest], int | None],
                 status: Callable[[str, int], Any], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._grid, self._send, self._status = grid, send, status
        self.pending: dict[int, RegionRequest] = {}  # generation -> the request it carries
        grid.regionWanted.connect(self.request)
        events.subscribe(RegionAnswered, self._on_answer)
        events.subscribe(RegionFailed, self._on_failure)

    def request(self, req: RegionRequest) -> int | None:
        """Send ``req`` (no more than one awaited per tensor: an older one's answer is dropped)."""
        gen = self._send(req)
        if gen is None:
            return None
        for older in [g for g, r in self.pending.items() if r.tensor == req.tensor]:
            del self.pending[older]
        self.pending[gen] = req
        return gen

    def _on_answer(self, e: RegionAnswered) -> None:
        if self.pending.pop(e.gen, None) is None:
            return
        if isinstance(e.answer, RegionAnswer):
            self._grid.set_region(e.answer)

    def _on_failure(self, e: RegionFailed) -> None:
        if self.pending.pop(e.gen, None) is None:
            return
        self._status(QCoreApplication.translate("MainWindow", "Full resolution: {why}").format(why=e.message), 8000)
