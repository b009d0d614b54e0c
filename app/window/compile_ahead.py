"""Compile ahead (issue #16): while the user edits the parameters on the GPU backend, the config
they are about to run is compiled in the worker, so that Run finds Triton's binary in its cache.

A valid edit (the parameter panel's ``valuesChanged``) or a switch to the GPU backend restarts a
single-shot timer of ``DEBOUNCE_MS``; when it fires the controller's worker gets one
``precompile`` with the ``RunRequest`` Run would send now (``kernels.engine.precompile`` does the
rest, in a background thread of the worker, answering at once). Nothing is sent on the
interpreter backend (nothing is compiled there), without a GPU, while the values are invalid,
or for the config sent last. Its answers are nobody's business but the worker's
(``Controller.VIEW_KINDS``).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, QTimer

__all__ = ["DEBOUNCE_MS", "CompileAhead"]

#: how long the parameters must stay unchanged before their config is compiled ahead
DEBOUNCE_MS = 300


class CompileAhead(QObject):
    """Sends ``precompile`` requests for ``controller`` (an ``app.controller.Controller``); follows
    ``panel`` (a ``views.param_panel.ParamPanel``, or anything with ``valuesChanged`` and
    ``backendChanged`` signals) when given."""

    def __init__(self, controller: Any, panel: Any = None, parent: QObject | None = None,
                 debounce_ms: int = DEBOUNCE_MS) -> None:
        super().__init__(parent)
        self.controller = controller
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
        if self._on_gpu():
            self.timer.start()
        else:
            self.timer.stop()

    def _on_gpu(self) -> bool:
        c = self.controller
        return c.view.backend() == "gpu" and bool(c.session.gpu_available)

    def send(self) -> int | None:
        """Send the precompile of the config shown now; its generation, or None when nothing is sent."""
        c = self.controller
        if not (self._on_gpu() and c.can_submit()):
            return None
        req = c.session.run_request(c.view.param_values(), "gpu")
        if req == self._last:
            return None
        self._last = req
        gen = c.worker.submit("precompile", {"request": req, "target": None})
        self.sent.append(gen)
        return gen
