"""Compile ahead (issue #16): while the user edits the parameters on the GPU backend, the config
they are about to run is compiled in the worker, so that Run finds Triton's binary in its cache.

A valid edit (the parameter panel's ``valuesChanged``) or a switch to the GPU backend restarts a
single-shot timer of ``DEBOUNCE_MS``; when it fires the controller's worker gets one
``precompile`` with the ``RunRequest`` Run would send now (``kernels.engine.precompile`` does the
rest, in a background thread of the worker, answering at once). Nothing is sent on the
interpreter backend (nothing is compiled there), without a GPU, while the values are invalid,
or for the config sent last. Its answers are nobody's business but the worker's
(``Controller.on_error`` drops them).
"""

from __future__ import annotations

from typing import Any, Protocol

from PySide6.QtCore import QObject, QTimer

from kernels.data.backends import GPU
from kernels.data.results import RunRequest

__all__ = ["DEBOUNCE_MS", "CompileAhead", "CompileAheadPort"]

#: how long the parameters must stay unchanged before their config is compiled ahead
DEBOUNCE_MS = 300


class CompileAheadPort(Protocol):
    """What compiling ahead needs (``app.controller.Controller`` gives it)."""

    def gpu_chosen(self) -> bool: ...  # the GPU backend is chosen and the worker has a GPU
    def can_submit(self) -> bool: ...
    def run_request(self, backend: str) -> RunRequest: ...  # what Run would send now on ``backend``
    def precompile(self, req: RunRequest) -> int: ...


class CompileAhead(QObject):
    """Sends ``precompile`` requests through ``port``; follows ``panel`` (a
    ``views.param_panel.ParamPanel``, or anything with ``valuesChanged`` and ``backendChanged``
    signals) when given."""

    def __init__(self, port: CompileAheadPort, panel: Any = None, parent: QObject | None = None,
                 debounce_ms: int = DEBOUNCE_MS) -> None:
        super().__init__(parent)
        self.port = port
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(debounce_ms)
        self.timer.timeout.connect(self.send)
        self.sent: list[int] = []  # generations of the precompiles sent
        self._last: Any = None  # the request sent last (not sent again)
        if panel is not None:
            panel.valuesChanged.connect(self.edited)
            panel.backendChanged.connect(self.edited)

    def edited(self, *_: Any) -> None:
        """A parameter or the backend changed: (re)start the wait, on the GPU backend only."""
        if self.port.gpu_chosen():
            self.timer.start()
        else:
            self.timer.stop()

    def send(self) -> int | None:
        """Send the precompile of the config shown now; its generation, or None when nothing is sent."""
        if not (self.port.gpu_chosen() and self.port.can_submit()):
            return None
        req = self.port.run_request(GPU)
        if req == self._last:
            return None
        self._last = req
        gen = self.port.precompile(req)
        self.sent.append(gen)
        return gen
