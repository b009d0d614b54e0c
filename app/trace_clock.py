"""How long a trace took from the click to the picture, for the status line — Qt-free.

The tracer knows its own part (``Trace.record_s``: the programs run under the interpreter); the
user waited for more: building the inputs, the maps, the reply crossing the pipe, the grid
preparing and drawing it. ``TraceClock`` takes the time of each trace request when it is sent
(by its generation), ties the trace that comes back to it, and gives the status text once the
grid has drawn that trace: the whole wait, with the recording's part and the elements traced.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from kernels.data.trace import Trace
from views.words import translate

__all__ = ["TraceClock", "trace_status"]


def _elements(tr: Trace) -> int:
    """Elements of the tensors the trace covers (those of the tensors as they are, for a
    reduced trace)."""
    tensors = getattr(tr, "full_tensors", None) or tr.tensors
    return int(sum(t.numel for t in tensors))


def trace_status(tr: Trace, total_s: float | None) -> str:
    """"traced all 4,096 programs (12,582,912 elements) in 9.81 s (recording 6.04 s)"; without a
    click time (a kept trace drawn again), the recording's time alone, as before."""
    recorded = (translate("Controller", "{n:,} of {total:,} programs ({window})").format(
        n=tr.programs.size, total=tr.n_programs, window=tr.window) if tr.window
        else translate("Controller", "all {total:,} programs").format(total=tr.n_programs))
    if total_s is None:
        return translate("Controller", "traced {what} in {s:.2f} s").format(what=recorded, s=tr.record_s)
    return translate("Controller", "traced {what} ({elements:,} elements) in {s:.2f} s (recording {r:.2f} s)").format(
        what=recorded, elements=_elements(tr), s=total_s, r=tr.record_s)


class TraceClock:
    """Click times of trace requests, by generation; the trace each one brought back."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._sent: dict[int, float] = {}
        self._trace: tuple[Trace, float] | None = None  # the trace last come back, and its click time

    def sent(self, gen: int) -> None:
        """A trace request of generation ``gen`` was sent now (the click)."""
        self._sent = {g: t for g, t in self._sent.items() if g > gen - 8}  # a few in flight at most
        self._sent[gen] = self._clock()

    def came_back(self, result: object) -> None:
        """A trace answer arrived: remember its trace with its request's click time."""
        req, tr = getattr(result, "request", None), getattr(result, "trace", None)
        t0 = self._sent.pop(int(getattr(req, "generation", -1) or -1), None)
        if tr is not None and t0 is not None:
            self._trace = (tr, t0)

    def status(self, tr: Trace) -> str:
        """The status text once ``tr`` is drawn (now): the whole wait when ``tr`` came back from a
        request timed here."""
        total = None
        if self._trace is not None and self._trace[0] is tr:
            total, self._trace = self._clock() - self._trace[1], None  # once: a redraw later is no new wait
        return trace_status(tr, total)
