"""A sweep, from the dialog to the ranking: the request, its points as they land, its end (whole,
or interrupted and resumable), and the stage line counting whole points. Qt-free, a part of
``app.controller``."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from kernels.data.results import ErrorInfo, Progress, SweepPoint, SweepResult
from views.words import translate

from .events import ActionsChanged, SweepFinished, SweepPointAdded, SweepStarted
from .request_desk import RequestDesk
from .sweep_best import best_text

__all__ = ["SweepFlow"]


class SweepFlow:
    """``offer_values(what, kernel, values, backend)`` says which configuration a clicked point is
    (``app.kernel_choice.KernelChoice.offer_values``)."""

    def __init__(self, desk: RequestDesk, offer_values: Callable[[str, str, dict[str, Any], str], None]) -> None:
        self.desk = desk
        self._offer_values = offer_values

    def start(self, axes: dict[str, list[Any]], where: Sequence[str] = (), mode: str | None = None) -> int | None:
        """Sweep ``axes`` with the panel's other values: one or two parameters as a grid; more, or
        with ``where`` constraints (or ``mode="tune"``), as a tune sweep (ranked, exported)."""
        d = self.desk
        info = d.session.info()
        if info is None or not axes or not d.can_submit():
            return None
        req = d.session.start_sweep(d.window.param_values(), axes, d.window.backend(), where=where, mode=mode)
        d.publish(SweepStarted(req, info))
        d.clear("sweep", "point")
        return d.submit("sweep", req, translate("Controller", "sweep point 1/{total}: queued").format(
            total=d.session.sweep.total))

    def resume(self) -> int | None:
        """Run the points an interrupted sweep did not reach (``SweepRequest.skip``)."""
        d = self.desk
        req = d.session.resume_sweep()
        if req is None:
            return None
        d.clear("sweep")
        s = d.session.sweep
        d.publish(SweepStarted(req, d.session.infos.get(req.kernel), resumed=True))
        return d.submit("sweep", req, translate("Controller", "sweep point {n}/{total}: resuming").format(
            n=s.done + 1, total=s.total), s.done / max(s.total, 1))

    def offer_point(self, values: dict[str, Any]) -> None:
        s = self.desk.session.sweep
        if s is not None:
            self._offer_values(translate("Controller", "Sweep point"), s.request.kernel, {**s.request.base, **values},
                               s.request.backend)

    # -- the worker's events -------------------------------------------------------------------------
    def on_progress(self, p: Progress) -> bool:
        """Whole points of the whole sweep: the bar never runs backwards on a resume. False when
        no sweep is kept (the stage then says the progress as it is)."""
        s = self.desk.session.sweep
        if s is None:
            return False
        self.desk.stage(translate("Controller", "sweep point {n}/{total}: {stage}").format(
            n=min(s.done + 1, s.total), total=s.total, stage=p.stage), s.done / max(s.total, 1))
        return True

    def on_point(self, point: SweepPoint) -> None:
        s = self.desk.session.sweep
        if s is None:
            return
        self._add(point)
        self.desk.stage(translate("Controller", "sweep point {n}/{total} done").format(n=s.done, total=s.total),
                        s.done / max(s.total, 1))

    def _add(self, point: SweepPoint) -> None:
        s = self.desk.session.sweep
        s.add(point)
        self.desk.publish(SweepPointAdded(point, s.axes))
        self.desk.store(point.result)

    def done(self, res: SweepResult) -> None:
        d, s = self.desk, self.desk.session.sweep
        if s is None:
            return
        for p in res.points:  # normally streamed already; a point whose message was lost is kept
            if p.values not in s.done_values():
                self._add(p)
        d.publish(SweepFinished(res, tuple(s.points)))
        if res.error is not None:
            self.interrupted(res.error)
            return
        s.finished = True
        text = translate("Controller", "Sweep done: {n} points.").format(n=s.done)
        best = best_text(res)  # the engine's winners, tuned values only; none for launch options on the interpreter
        d.status(f"{text} {best}" if best else text, 15000)

    def interrupted(self, err: ErrorInfo) -> None:
        d, s = self.desk, self.desk.session.sweep
        if s is None:
            return
        s.interrupted = err.message
        if s.can_resume:
            d.message(
                translate("Controller", "The sweep stopped after {done} of {total} points ({kind}: {why}). "
                          "The {done} finished points are kept; {left} remain.").format(
                    done=s.done, total=s.total, kind=err.kind, why=err.message, left=s.total - s.done),
                "warning" if err.kind == "cancelled" else "error", details=err.detail, topic="sweep",
                actions=[(translate("Controller", "Resume sweep"), self.resume)])
        else:
            d.message(translate("Controller", "Sweep: {kind}: {why}").format(kind=err.kind, why=err.message),
                      "error", details=err.detail, topic="sweep")
        d.publish(ActionsChanged())
