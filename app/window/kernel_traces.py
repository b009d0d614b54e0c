"""One trace per kernel: switching to another kernel and back shows the trace it had again,
instead of "No trace yet".

The session holds the shown kernel's trace only (``Session.select`` drops it); this keeps the
last trace drawn of each kernel (the most recent ``MAX_KERNELS`` kernels) and, when a kernel is
shown anew (the controller's ``kernel_shown``), draws its trace again through the controller, so
the grid, the caption (stale if the values differ), the source marks and the check link follow as
after a Trace. A trace whose kernel source has changed since (a reloaded file) is not shown.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from kernels.data.results import KernelInfo
from kernels.data.trace import Trace

from .kernel_listener import KernelShownListener

__all__ = ["MAX_KERNELS", "KernelTraces"]

#: the kernels whose last trace is kept (a trace of a few thousand programs is some megabytes)
MAX_KERNELS = 8


class KernelTraces(KernelShownListener):
    """Registered with ``window.controller.listeners``; keeps what ``window.grid`` drew."""

    def __init__(self, window: Any) -> None:
        self._win = window
        self._traces: OrderedDict[str, Trace] = OrderedDict()
        window.grid.traceApplied.connect(self.keep)
        window.controller.listeners.append(self)

    def keep(self, tr: Trace) -> None:
        """Remember ``tr`` as its kernel's last trace (when it is the session's, not an older one)."""
        if tr is not self._win.session.trace:
            return
        self._traces[tr.kernel] = tr
        self._traces.move_to_end(tr.kernel)
        while len(self._traces) > MAX_KERNELS:
            self._traces.popitem(last=False)

    def trace_of(self, kernel: str) -> Trace | None:
        return self._traces.get(kernel)

    def kernel_shown(self, info: KernelInfo) -> None:
        tr = self._traces.get(info.name)
        if tr is None:
            return
        if tr.source and info.source and tr.source != info.source:
            del self._traces[info.name]  # the kernel changed since: the old trace would mislead
            return
        self._win.controller.show_trace(tr)
