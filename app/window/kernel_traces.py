"""One trace per kernel: switching to another kernel and back shows the trace it had again,
instead of "No trace yet".

The session holds the shown kernel's trace only (``Session.select`` drops it); this keeps the
last trace drawn of each kernel (the most recent ``MAX_KERNELS`` kernels) and, when a kernel is
shown anew (``KernelShown``), draws its trace again through ``show`` (the controller's
``show_trace``), so the grid, the caption (stale if the values differ), the source marks and the
check link follow as after a Trace. A trace whose kernel source has changed since (a reloaded
file) is not shown.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from kernels.data.trace import Trace
from views.grid_view import GridView

from ..events import KernelShown, WindowEvents
from ..session import Session

__all__ = ["MAX_KERNELS", "KernelTraces"]

#: the kernels whose last trace is kept (a trace of a few thousand programs is some megabytes)
MAX_KERNELS = 8


class KernelTraces:
    """Keeps what ``grid`` drew of the session's traces."""

    def __init__(self, grid: GridView, session: Session, events: WindowEvents, show: Callable[[Trace], Any]) -> None:
        self._session, self._show = session, show
        self._traces: OrderedDict[str, Trace] = OrderedDict()
        grid.traceApplied.connect(self.keep)
        events.subscribe(KernelShown, self._on_kernel)

    def keep(self, tr: Trace) -> None:
        """Remember ``tr`` as its kernel's last trace (when it is the session's, not an older one)."""
        if tr is not self._session.trace:
            return
        self._traces[tr.kernel] = tr
        self._traces.move_to_end(tr.kernel)
        while len(self._traces) > MAX_KERNELS:
            self._traces.popitem(last=False)

    def trace_of(self, kernel: str) -> Trace | None:
        return self._traces.get(kernel)

    def _on_kernel(self, e: KernelShown) -> None:
        info = e.info
        tr = self._traces.get(info.name)
        if not e.new or tr is None:
            return
        if tr.source and info.source and tr.source != info.source:
            del self._traces[info.name]  # the kernel changed since: the old trace would mislead
            return
        self._show(tr)
