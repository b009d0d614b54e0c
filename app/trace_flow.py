"""Trace, from the click to the picture: which programs a Trace records, the request it sends
(interpreter, GPU, or Interpreter vs GPU), the answer drawn, and the status line that reports the
whole wait. Qt-free, a part of ``app.controller``.

The grid is known before any launch: a kernel's ``KernelInfo.grid_exprs`` give its program
count for the values typed (``Session.programs``), so a Trace of a huge grid records a window of
programs at once, saying so. For a kernel whose grid only its launch knows, the trace's own
progress (``Progress.total`` programs) tells it, and a window is offered then.
"""

from __future__ import annotations

from typing import Any

from kernels.data.backends import GPU, is_gpu
from kernels.data.coarse import window_request
from kernels.data.results import ErrorInfo, Progress
from kernels.data.trace import Trace, TraceResult, Window
from views.words import translate

from .events import (
    MarksCleared,
    ProgramsFieldFocused,
    ProgramsFieldSet,
    TraceAnswered,
    TraceDrawing,
    TraceShown,
)
from .request_desk import RequestDesk
from .trace_clock import TraceClock

__all__ = ["TRACE_SUGGESTED_WINDOW", "TRACE_SUGGEST_PROGRAMS", "TraceFlow"]

#: a trace of more programs than this records a window of programs instead (or offers one): the
#: interpreter records a few thousand programs a second, so a grid of a million takes minutes
#: and makes a map nobody can read whole
TRACE_SUGGEST_PROGRAMS = 16384
#: the window then: the first this many programs
TRACE_SUGGESTED_WINDOW = 4096


class TraceFlow:
    def __init__(self, desk: RequestDesk) -> None:
        self.desk = desk
        self.clock = TraceClock()  # click to picture, for the status line
        self._offer_gen: int | None = None  # a trace whose progress may reveal a huge grid

    def window(self) -> tuple[str | None, str]:
        """(the Programs field as a window text or None for all, why it is invalid or "")."""
        text = self.desk.window.window_text().strip()
        if not text:
            return None, ""
        try:
            Window.parse(text)
        except ValueError as e:
            return None, str(e)
        return text, ""

    # -- requests ------------------------------------------------------------------------------------
    def trace(self) -> int | None:
        """Record the current configuration's accesses; returns the generation.

        The Programs field chooses which programs run under the tracer (empty: all). When the
        grid formula says the launch has more than ``TRACE_SUGGEST_PROGRAMS`` programs, an empty
        field is filled with the first ``TRACE_SUGGESTED_WINDOW`` and a message says so (with a
        button to trace them all)."""
        d = self.desk
        if not d.can_submit():
            return None
        window, why = self.window()
        if why:
            d.show_error(ErrorInfo("validation", translate("Controller", "Programs: {why}").format(why=why)),
                         topic="trace")
            d.publish(ProgramsFieldFocused())
            return None
        values = d.window.param_values()
        known = d.session.programs(values)
        if window is None and known is not None and known > TRACE_SUGGEST_PROGRAMS and not is_gpu(d.window.backend()):
            window = f"0:{TRACE_SUGGESTED_WINDOW}"
            d.publish(ProgramsFieldSet(window))
            d.message(
                translate("Controller", "This launch has {known:,} programs: recording all of them under the "
                          "interpreter takes a long time, so only programs 0..{last} are traced (see the "
                          "Programs field beside Trace).").format(known=known, last=TRACE_SUGGESTED_WINDOW - 1),
                "info", topic="trace_window",
                actions=[(translate("Controller", "Trace all {known:,}").format(known=known), self.trace_all)])
        else:
            d.clear("trace_window")
        return self._submit(values, window, offer=window is None and known is None)

    def trace_all(self) -> int | None:
        """Trace every program, whatever the grid (the button of the message ``trace`` shows)."""
        d = self.desk
        d.publish(ProgramsFieldSet(""))
        d.clear("trace_window")
        return self._submit(d.window.param_values(), None, offer=False) if d.can_submit() else None

    def compare_backends(self) -> int | None:
        """Interpreter vs GPU: the launch both ways, the programs whose outputs differ marked; the
        Programs field bounds the interpreter's side (kernels.gpu_trace.bounded bounds it anyway)."""
        window, why = self.window()
        if not self.desk.can_submit() or why:
            return None
        return self._submit(self.desk.window.param_values(), window, False, compare=True)

    def _submit(self, values: dict[str, Any], window: str | None, offer: bool, compare: bool = False) -> int:
        d = self.desk
        req = d.session.trace_request(values, window)
        # the GPU backend records every program's maps on the GPU, and the schedule (kernels.gpu_trace)
        req.backend = GPU if compare else d.window.backend()
        req.timeline, req.compare = is_gpu(req.backend) and not compare, compare
        d.clear("trace", "validation")
        d.publish(MarksCleared())
        # the worker reduces a big trace to what the grid can draw (kernels.data.coarse)
        gen = d.submit("trace", window_request(req), translate("Controller", "queued: trace"))
        self._offer_gen = gen if offer else None
        self.clock.sent(gen)
        return gen

    def on_progress(self, gen: int, p: Progress) -> None:
        """A trace of every program of a grid not known before is under way, and its progress
        shows the grid is huge: offer to trace a window instead."""
        if gen != self._offer_gen or p.unit != "programs" or p.total <= TRACE_SUGGEST_PROGRAMS:
            return
        self._offer_gen = None
        window = f"0:{TRACE_SUGGESTED_WINDOW}"

        def trace_window() -> None:
            self.desk.publish(ProgramsFieldSet(window))
            self.desk.clear("trace_window")
            self.trace()  # supersedes the running trace of every program

        self.desk.message(
            translate("Controller", "This trace records all {total:,} programs, which takes a while under the "
                      "interpreter. Programs 0..{last} alone show the pattern in a fraction of the time.").format(
                total=p.total, last=TRACE_SUGGESTED_WINDOW - 1),
            "info", topic="trace_window",
            actions=[(translate("Controller", "Trace programs {window} only").format(window=window), trace_window)])

    # -- answers -------------------------------------------------------------------------------------
    def on_answer(self, res: TraceResult) -> None:
        self.desk.publish(TraceAnswered(res))
        self.clock.came_back(res)
        if res.error is not None or res.trace is None:
            self.desk.show_error(res.error or ErrorInfo("internal", translate("Controller", "the trace came back empty")),
                                 topic="trace")
            return
        if res.trace.kernel == self.desk.session.kernel:
            self.show(res.trace)

    def show(self, tr: Trace) -> None:
        """Draw a recorded trace (the grid prepares it on a thread; ``drawn`` follows)."""
        self.desk.session.trace = tr
        self.desk.stage(translate("Controller", "drawing the trace ({n:,} programs)…").format(n=tr.programs.size),
                        busy=True)
        self.desk.publish(TraceDrawing(tr))

    def drawn(self, tr: Trace, idle: bool) -> None:
        """The grid finished drawing ``tr``: show it (an older trace finished as a newer came: not)."""
        if tr is not self.desk.session.trace:
            return
        self.desk.publish(TraceShown(tr))
        if idle:
            self.desk.stage(translate("Controller", "ready"))
        self.desk.status(self.clock.status(tr), 8000)  # the whole wait, from the click

    def failed(self, message: str, idle: bool) -> None:
        self.desk.message(translate("Controller", "The trace came back but cannot be drawn: {why}").format(why=message),
                          "error", topic="trace")
        if idle:
            self.desk.stage(translate("Controller", "ready"))
