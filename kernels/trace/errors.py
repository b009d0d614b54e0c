"""The tracer's exceptions (numpy-free, torch-free: the GUI may catch them by class)."""

from __future__ import annotations

from ..errors import Cancelled, InterpreterFault

__all__ = ["TraceUnsupported", "TraceCancelled"]


class TraceUnsupported(InterpreterFault):
    """This Triton's interpreter lacks a hook the tracer needs; ``hook`` names it. Raised before
    anything runs, so no map is ever drawn from a partial observation."""

    def __init__(self, message: str, detail: str = "", field: str | None = None, hook: str = ""):
        super().__init__(message, detail, field)
        self.hook = hook

    def __reduce__(self):
        return (type(self), (self.message, self.detail, self.field, self.hook))


#: raised between programs when the caller's ``cancel()`` returns true
TraceCancelled = Cancelled
