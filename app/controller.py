"""The window's controller: user actions become worker requests, answers become what the views show.

Qt-free, in the manner of napari's components and ndv's controllers: it holds the ``Session``
(the kernels, the one selected, the latest run / trace / sweep), the ``Settings`` and the
``History``; it reaches the worker through ``WorkerPort`` (``app.qt_worker.QtWorker`` in the
window) and the widgets through ``WindowView`` (``app.main_window.MainWindow``), so what it
decides — which request a Run / Trace / Sweep sends, which answer is shown where, what the
status line and the banner say — is tested with fakes of both (``tests/app/test_controller.py``).

Generations: each request submitted gets the worker's generation number; for the kinds where a
newer request makes older ones pointless (run, trace, sweep) the latest generation is kept, and
a progress report, sweep point, result or error of an older one is dropped.

The grid is known before any launch: a kernel's ``KernelInfo.grid_exprs`` give its program
count for the values typed (``Session.programs``), so a Trace of a huge grid records a window of
programs at once, saying so. For a kernel whose grid only its launch knows, the trace's own
progress (``Progress.total`` programs) tells it, and a window is offered then.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from kernels.data.coarse import window_request
from kernels.data.results import (
    ErrorInfo,
    KernelInfo,
    Progress,
    RunResult,
    SweepPoint,
    SweepRequest,
    SweepResult,
)
from kernels.data.trace import Trace, TraceResult, Window
from views.i18n import QT_TRANSLATE_NOOP, translate

from .client import SUPERSEDING_KINDS
from .history import History
from .session import Session, format_values
from .settings import Settings
from .trace_clock import TraceClock

__all__ = ["ActionState", "Controller", "SweepListener", "TRACE_SUGGESTED_WINDOW", "TRACE_SUGGEST_PROGRAMS",
           "WindowView", "WorkerPort"]

#: a trace of more programs than this records a window of programs instead (or offers one): the
#: interpreter records a few thousand programs a second, so a grid of a million takes minutes
#: and makes a map nobody can read whole
TRACE_SUGGEST_PROGRAMS = 16384
#: the window then: the first this many programs
TRACE_SUGGESTED_WINDOW = 4096
#: request kinds that keep the worker busy (a "ping" or "infos" does not)
WORK_KINDS = ("run", "trace", "sweep", "load_file", "lesson_check")
#: request kinds whose answers a view routes itself (the Compile tab's targets: app.window.compile_target;
#: regions at full resolution: app.window.full_res)
VIEW_KINDS = ("compile", "trace_region", "precompile")

Actions = Sequence[tuple[str, Callable[[], Any]]]
#: the request kinds as "{what} cancelled" names them
KIND_WORDS = (QT_TRANSLATE_NOOP("Controller", "run"), QT_TRANSLATE_NOOP("Controller", "trace"),
              QT_TRANSLATE_NOOP("Controller", "sweep"))


class WorkerPort(Protocol):
    """What the controller needs of the worker (``app.qt_worker.QtWorker``)."""

    @property
    def state(self) -> str: ...
    def submit(self, kind: str, payload: Any = None) -> int: ...
    def cancel(self) -> bool: ...
    def kind_of(self, gen: int) -> str | None: ...
    def pending_kinds(self) -> set[str]: ...
    def stderr_tail(self, n: int = 20) -> list[str]: ...


class WindowView(Protocol):
    """What the controller needs of the window (``app.main_window.MainWindow``)."""

    # what the user has entered
    def param_values(self) -> dict[str, Any]: ...
    def params_shown(self) -> bool: ...
    def params_valid(self) -> bool: ...
    def backend(self) -> str: ...
    def window_text(self) -> str: ...
    def set_window_text(self, text: str) -> None: ...
    def focus_window_text(self) -> None: ...
    # kernels and parameters
    def show_kernels(self, infos: list[KernelInfo]) -> None: ...
    def show_kernel(self, info: KernelInfo, values: dict[str, Any], new: bool) -> None: ...
    def show_source(self, source: str, first_line: int) -> None: ...
    def set_param_values(self, values: dict[str, Any]) -> None: ...
    def set_backend(self, backend: str) -> None: ...
    def mark_field(self, name: str, message: str) -> None: ...
    def clear_marks(self) -> None: ...
    def watch_file(self, path: str | None) -> None: ...
    def set_file_changed(self, changed: bool) -> None: ...
    # the worker
    def show_worker(self, session: Session) -> None: ...
    def show_worker_state(self, state: str) -> None: ...
    # messages
    def show_message(self, text: str, level: str = "error", *, details: str = "", topic: str = "",
                     actions: Actions = ()) -> None: ...
    def clear_message(self, *topics: str) -> None: ...
    def show_status(self, text: str, ms: int) -> None: ...
    def set_stage(self, text: str, fraction: float | None = None, busy: bool = False) -> None: ...
    def defer(self, fn: Callable[[], Any]) -> None: ...
    # results
    def show_run(self, r: RunResult) -> None: ...
    def draw_trace(self, tr: Trace) -> None: ...
    def trace_shown(self, tr: Trace) -> None: ...
    def is_drawing(self) -> bool: ...
    def begin_sweep(self, metric: str | None) -> None: ...
    def show_sweep_point(self, point: SweepPoint, axes: dict[str, list[Any]]) -> None: ...
    def best_sweep_point(self) -> tuple[int, ...] | None: ...
    def history_changed(self) -> None: ...
    def show_lesson_result(self, result: Any) -> None: ...
    def lesson_check_failed(self, message: str) -> None: ...
    def update_actions(self) -> None: ...


class SweepListener(Protocol):
    """Told what the window's other views follow (``app.window.sweep_tabs``: heatmap, ranking,
    roofline): a sweep starts, a point lands, the sweep ends (its result and every point so far,
    a resumed sweep's earlier ones included), a run is shown, another kernel is shown."""

    def sweep_started(self, request: SweepRequest, info: KernelInfo) -> None: ...
    def sweep_point(self, point: SweepPoint) -> None: ...
    def sweep_finished(self, result: SweepResult, points: list[SweepPoint]) -> None: ...
    def run_shown(self, r: RunResult) -> None: ...
    def kernel_shown(self, info: KernelInfo) -> None: ...


@dataclass(frozen=True)
class ActionState:
    """Which actions are on now, and why Run is not ("" when it is)."""

    run: bool
    trace: bool
    sweep: bool
    cancel: bool
    resume: bool
    inputs: bool  # the kernel list and the parameter panel
    window_bad: bool  # the Programs field is not a window of programs
    run_blocked: str


class Controller:
    def __init__(self, view: WindowView, worker: WorkerPort, session: Session, settings: Settings,
                 history: History, initial_kernel: str | None = None) -> None:
        self.view, self.worker = view, worker
        # the models: what the window knows, the user's settings, every run so far
        self.session, self.settings, self.history = session, settings, history
        self.initial_kernel = initial_kernel  # shown first, when the worker's catalog has it
        self.ready = False  # the worker said hello
        self.closing = False
        self._latest: dict[str, int] = {}  # kind -> the generation of its latest request
        self._offer_gen: int | None = None  # a trace whose progress may reveal a huge grid
        self.trace_clock = TraceClock()  # click to picture, for the status line
        #: told of sweeps, runs and kernels besides the view (the tuning views: app.window.sweep_tabs)
        self.listeners: list[SweepListener] = []
        #: told of every trace answer before it is drawn (the Timeline tab, interpreter vs GPU: app.window.compare)
        self.trace_hooks: list[Callable[[Any], None]] = []

    # ------------------------------------------------------------------------------------------
    # what is possible now

    def busy_kinds(self) -> set[str]:
        return self.worker.pending_kinds() & set(WORK_KINDS)

    def can_submit(self) -> bool:
        return (self.ready and not self.closing and self.session.info() is not None
                and self.view.params_shown() and self.view.params_valid())

    def actions(self) -> ActionState:
        ok = self.can_submit()
        window_bad = bool(self.trace_window()[1])
        blocked = (translate("Controller", "starting worker…") if not self.ready
                   else translate("Controller", "no kernel selected") if self.session.info() is None
                   else translate("Controller", "fix the marked parameter first") if not self.view.params_valid() else "")
        busy = self.busy_kinds() & {"run", "trace", "sweep", "load_file", "lesson_check"}  # what Cancel stops
        s = self.session.sweep
        return ActionState(run=ok, trace=ok and not window_bad, sweep=ok, cancel=bool(busy),
                           resume=bool(s is not None and s.can_resume and "sweep" not in busy and self.ready),
                           inputs=self.ready, window_bad=window_bad, run_blocked=blocked)

    def trace_window(self) -> tuple[str | None, str]:
        """(the Programs field as a window text or None for all, why it is invalid or "")."""
        text = self.view.window_text().strip()
        if not text:
            return None, ""
        try:
            Window.parse(text)
        except ValueError as e:
            return None, str(e)
        return text, ""

    # ------------------------------------------------------------------------------------------
    # user actions

    def select_kernel(self, name: str, values: dict[str, Any] | None = None) -> bool:
        """Show kernel ``name`` with ``values`` (default: the values last used with it)."""
        info = self.session.infos.get(name)
        if info is None:
            return False
        old = self.session.kernel
        if old and old != name and self.view.params_shown():
            self.settings.remember(old, self.view.param_values())
        new = old != name
        self.session.select(name)
        self.view.show_kernel(info, values if values is not None else self.settings.values_for(name), new)
        if new:
            self.view.clear_message("run", "trace", "sweep", "point")
            self._tell("kernel_shown", info)
        self.view.watch_file(self.session.user_file(name))
        self.view.update_actions()
        return True

    def run(self) -> int | None:
        """Run the current configuration (check + time); returns the request's generation."""
        if not self.can_submit():
            return None
        values = self.view.param_values()
        req = self.session.run_request(values, self.view.backend())
        self.settings.remember(req.kernel, values)
        self.view.clear_message("run", "validation", "point")
        self.view.clear_marks()
        return self._submit("run", req, translate("Controller", "queued: run"))

    def trace(self) -> int | None:
        """Record the current configuration's accesses (interpreter); returns the generation.

        The Programs field chooses which programs run under the tracer (empty: all). When the
        grid formula says the launch has more than ``TRACE_SUGGEST_PROGRAMS`` programs, an empty
        field is filled with the first ``TRACE_SUGGESTED_WINDOW`` and a message says so (with a
        button to trace them all)."""
        if not self.can_submit():
            return None
        window, why = self.trace_window()
        if why:
            self.show_error(ErrorInfo("validation", translate("Controller", "Programs: {why}").format(why=why)),
                            topic="trace")
            self.view.focus_window_text()
            return None
        values = self.view.param_values()
        known = self.session.programs(values)
        if window is None and known is not None and known > TRACE_SUGGEST_PROGRAMS and self.view.backend() != "gpu":
            window = f"0:{TRACE_SUGGESTED_WINDOW}"
            self.view.set_window_text(window)
            self.view.show_message(
                translate("Controller", "This launch has {known:,} programs: recording all of them under the "
                          "interpreter takes a long time, so only programs 0..{last} are traced (see the "
                          "Programs field beside Trace).").format(known=known, last=TRACE_SUGGESTED_WINDOW - 1),
                "info", topic="trace_window",
                actions=[(translate("Controller", "Trace all {known:,}").format(known=known), self.trace_all)])
        else:
            self.view.clear_message("trace_window")
        return self._submit_trace(values, window, offer=window is None and known is None)

    def trace_all(self) -> int | None:
        """Trace every program, whatever the grid (the button of the message ``trace`` shows)."""
        self.view.set_window_text("")
        self.view.clear_message("trace_window")
        return self._submit_trace(self.view.param_values(), None, offer=False) if self.can_submit() else None

    def start_sweep(self, axes: dict[str, list[Any]], where: Sequence[str] = (), mode: str | None = None) -> int | None:
        """Sweep ``axes`` with the panel's other values: one or two parameters as a grid; more, or
        with ``where`` constraints (or ``mode="tune"``), as a tune sweep (ranked, exported)."""
        info = self.session.info()
        if info is None or not axes or not self.can_submit():
            return None
        req = self.session.start_sweep(self.view.param_values(), axes, self.view.backend(), where=where, mode=mode)
        self.view.begin_sweep(info.metric)
        self._tell("sweep_started", req, info)
        self.view.clear_message("sweep", "point")
        return self._submit("sweep", req, translate("Controller", "sweep point 1/{total}: queued").format(
            total=self.session.sweep.total))

    def resume_sweep(self) -> int | None:
        """Run the points an interrupted sweep did not reach (``SweepRequest.skip``)."""
        req = self.session.resume_sweep()
        if req is None:
            return None
        self.view.clear_message("sweep")
        self.view.begin_sweep(None)
        s = self.session.sweep
        return self._submit("sweep", req, translate("Controller", "sweep point {n}/{total}: resuming").format(
            n=s.done + 1, total=s.total), s.done / max(s.total, 1))

    def cancel(self) -> None:
        if self.worker.cancel():
            self.view.set_stage(translate("Controller", "cancelling…"), busy=True)

    def check_lesson(self, name: str, path: str, lang: str) -> int:
        """Run a lesson's check of the learner's file in the worker (it runs their kernel)."""
        return self._submit("lesson_check", (name, path, lang),
                            translate("Controller", "checking lesson {name}…").format(name=name), busy=True)

    def open_kernel_file(self, path: str) -> int | None:
        """Load (or reload) a user's kernel file in the worker."""
        if not path:
            return None
        self.view.clear_message("file")
        return self._submit("load_file", os.path.abspath(os.path.expanduser(path)),
                            translate("Controller", "loading {file}…").format(file=os.path.basename(path)), busy=True)

    def load_values(self, kernel: str, values: dict[str, Any], backend: str | None = None) -> bool:
        """Put a past configuration back into the parameter panel."""
        if kernel not in self.session.infos:
            self.view.show_message(translate("Controller", "The kernel {kernel} is not loaded (open its file first).")
                                   .format(kernel=kernel), "warning", topic="history")
            return False
        if kernel != self.session.kernel:
            self.select_kernel(kernel, values)
        else:
            self.view.set_param_values(values)
        if backend in ("gpu", "interpreter"):
            self.view.set_backend(backend)
        self.view.clear_message("point")
        return True

    def reload_run(self, run_id: int) -> bool:
        """Put run ``run_id`` of the history back into the parameter panel."""
        rec = self.history.get(run_id)
        return rec is not None and self.load_values(rec["kernel"], rec["values"], rec.get("backend"))

    def offer_values(self, what: str, kernel: str, values: dict[str, Any], backend: str) -> None:
        """Say which configuration a clicked point is, with a button that loads it."""
        self.view.show_message(f"{what}: {kernel} — {format_values(values)} ({backend})", "info", topic="point",
                               actions=[(translate("Controller", "Load these values"),
                                         lambda: self.load_values(kernel, values, backend))])

    def load_point(self, values: dict[str, Any]) -> bool:
        """Put a clicked sweep or roofline point (every value of it) into the parameter panel;
        launch options the kernel has no parameter for are left out, and the status line says so."""
        info = self.session.info()
        if info is None:
            return False
        known = {p.name for p in info.params}
        vals = {k: v for k, v in values.items() if k in known}
        if not self.load_values(info.name, vals):
            return False
        left = [k for k in values if k not in known]
        self.view.show_status(translate("Controller", "loaded {values} into the parameters").format(
            values=format_values(vals)) + (f" ({', '.join(left)}: " + translate(
                "Controller", "no such parameter, not loaded") + ")" if left else ""), 10000)
        return True

    def offer_sweep_point(self, values: dict[str, Any]) -> None:
        s = self.session.sweep
        if s is not None:
            self.offer_values(translate("Controller", "Sweep point"), s.request.kernel, {**s.request.base, **values},
                              s.request.backend)

    def show_trace(self, tr: Trace) -> None:
        """Draw a recorded trace (the grid prepares it on a thread; ``on_trace_drawn`` follows)."""
        self.session.trace = tr
        self.view.set_stage(translate("Controller", "drawing the trace ({n:,} programs)…").format(n=tr.programs.size),
                            busy=True)
        self.view.draw_trace(tr)

    def show_error(self, err: ErrorInfo, topic: str) -> None:
        """An error in the banner and the status line; a validation error also marks its field."""
        text = f"{err.kind}: {err.message}"
        if err.kind == "cancelled":  # what the user asked for: say so quietly
            self.view.show_status(translate("Controller", "{what} cancelled").format(
                what=translate("Controller", topic)), 5000)
            return
        if err.kind == "validation" and err.field:
            self.view.mark_field(err.field, err.message)
            topic = "validation"
        self.view.show_message(text, "error", details=err.detail, topic=topic)
        self.view.show_status(text, 10000)

    # ------------------------------------------------------------------------------------------
    # requests

    def _tell(self, event: str, *args: Any) -> None:
        for listener in self.listeners:
            getattr(listener, event)(*args)

    def _submit(self, kind: str, payload: Any, stage: str, fraction: float = 0.0, busy: bool = False) -> int:
        gen = self.worker.submit(kind, payload)
        if kind in SUPERSEDING_KINDS:
            self._latest[kind] = gen
        self.view.set_stage(stage, None if busy else fraction, busy)
        self.view.update_actions()
        return gen

    def compare_backends(self) -> int | None:
        """Interpreter vs GPU: the launch both ways, the programs whose outputs differ marked; the
        Programs field bounds the interpreter's side (kernels.gpu_trace.bounded bounds it anyway)."""
        window, why = self.trace_window()
        if not self.can_submit() or why:
            return None
        return self._submit_trace(self.view.param_values(), window, False, compare=True)

    def _submit_trace(self, values: dict[str, Any], window: str | None, offer: bool, compare: bool = False) -> int:
        req = self.session.trace_request(values, window)
        # the GPU backend records every program's maps on the GPU, and the schedule (kernels.gpu_trace)
        req.backend = "gpu" if compare else self.view.backend()
        req.timeline, req.compare = req.backend == "gpu" and not compare, compare
        self.view.clear_message("trace", "validation")
        self.view.clear_marks()
        # the worker reduces a big trace to what the grid can draw (kernels.data.coarse)
        gen = self._submit("trace", window_request(req), translate("Controller", "queued: trace"))
        self._offer_gen = gen if offer else None
        self.trace_clock.sent(gen)
        return gen

    def _stale(self, gen: int, kind: str | None) -> bool:
        return kind in SUPERSEDING_KINDS and gen < self._latest.get(kind, 0)

    def _offer_window(self, gen: int, p: Progress) -> None:
        """A trace of every program of a grid not known before is under way, and its progress
        shows the grid is huge: offer to trace a window instead."""
        if gen != self._offer_gen or p.unit != "programs" or p.total <= TRACE_SUGGEST_PROGRAMS:
            return
        self._offer_gen = None
        window = f"0:{TRACE_SUGGESTED_WINDOW}"

        def trace_window() -> None:
            self.view.set_window_text(window)
            self.view.clear_message("trace_window")
            self.trace()  # supersedes the running trace of every program

        self.view.show_message(
            translate("Controller", "This trace records all {total:,} programs, which takes a while under the interpreter. "
                      "Programs 0..{last} alone show the pattern in a fraction of the time.").format(
                total=p.total, last=TRACE_SUGGESTED_WINDOW - 1),
            "info", topic="trace_window",
            actions=[(translate("Controller", "Trace programs {window} only").format(window=window), trace_window)])

    # ------------------------------------------------------------------------------------------
    # the worker's events

    def on_hello(self, hello: dict) -> None:
        first = not self.ready
        # after a crash the client loads the user's kernel files into the new worker again, but
        # its hello lists the catalog only: keep the user's kernels meanwhile
        kept = [i for i in self.session.infos.values() if i.origin and i.origin != "catalog"]
        self.session.set_hello(hello)
        for i in kept:
            self.session.infos.setdefault(i.name, i)
        infos = list(self.session.infos.values())
        self.view.show_kernels(infos)
        self.view.show_worker(self.session)
        self.ready = True
        if first:
            if self.settings.backend in ("gpu", "interpreter"):
                self.view.set_backend(self.settings.backend)
            name = next((n for n in (self.initial_kernel, self.settings.last_kernel, "vector_add")
                         if n and n in self.session.infos), infos[0].name if infos else None)
            if name:
                self.select_kernel(name)
            self.view.set_stage(translate("Controller", "ready"))
        elif self.session.kernel and self.session.kernel not in self.session.infos:
            self.view.set_stage(translate("Controller", "the worker restarted without your kernel file's kernels"))
        self.view.update_actions()

    def on_state(self, state: str) -> None:
        self.view.show_worker_state(state)
        if state == "starting":
            self.view.set_stage(translate("Controller", "starting worker…"), busy=True)
        elif state == "restarting":
            self.view.set_stage(translate("Controller", "restarting worker…"), busy=True)
        elif state == "crashed":
            self.view.set_stage(translate("Controller", "the worker crashed — restarting it"), busy=True)
            if not self.ready:
                self.view.defer(self._check_start_failure)
        elif state in ("ready", "busy") and not self.busy_kinds():
            self.view.set_stage(translate("Controller", "ready") if self.ready else translate("Controller", "starting worker…"),
                                busy=not self.ready)
        self.view.update_actions()

    def _check_start_failure(self) -> None:
        # the client gives up after three failed starts; say why instead of spinning forever
        if self.worker.state == "crashed" and not self.ready:
            self.view.show_message(translate("Controller", "The worker process could not start, so nothing can run. "
                                             "Its last output is under Details."), "error",
                                   details="\n".join(self.worker.stderr_tail(20)), topic="worker")
            self.view.set_stage(translate("Controller", "worker not running"))

    def on_log(self, _gen: int, level: str, text: str) -> None:
        if level == "error":
            self.view.show_message(text, "error", topic="worker")
        else:
            self.view.show_status(translate("Controller", "worker {level}: {text}").format(level=level, text=text), 8000)

    def on_progress(self, gen: int, p: Progress) -> None:
        kind = self.worker.kind_of(gen)
        if kind is None or self._stale(gen, kind):
            return
        s = self.session.sweep
        if kind == "sweep" and s is not None:
            # whole points of the whole sweep: the bar never runs backwards on a resume
            self.view.set_stage(translate("Controller", "sweep point {n}/{total}: {stage}").format(
                n=min(s.done + 1, s.total), total=s.total, stage=p.stage), s.done / max(s.total, 1))
            return
        if kind == "trace":
            self._offer_window(gen, p)
        self.view.set_stage(p.text(), p.fraction)

    def on_point(self, gen: int, point: SweepPoint) -> None:
        s = self.session.sweep
        if self.worker.kind_of(gen) != "sweep" or s is None or self._stale(gen, "sweep"):
            return
        s.add(point)
        self.view.show_sweep_point(point, s.axes)
        self._tell("sweep_point", point)
        self._store(point.result)
        self.view.set_stage(translate("Controller", "sweep point {n}/{total} done").format(n=s.done, total=s.total),
                            s.done / max(s.total, 1))

    def on_result(self, gen: int, kind: str, payload: Any) -> None:
        if not self._stale(gen, kind):
            if kind == "run":
                self._show_run(payload)
            elif kind == "trace":
                self._show_trace_result(payload)
            elif kind == "sweep":
                self._sweep_done(payload)
            elif kind == "load_file":
                self._file_loaded(payload)
            elif kind == "lesson_check":
                self.view.show_lesson_result(payload)
            elif kind == "infos":
                self.session.set_infos(payload)
                self.view.show_kernels(list(self.session.infos.values()))
        self._after_request()

    def on_error(self, gen: int, kind: str, err: ErrorInfo) -> None:
        if self._stale(gen, kind) or kind in VIEW_KINDS:
            pass
        elif kind == "sweep":
            self._sweep_interrupted(err)
        elif kind == "load_file":
            text = (translate("Controller", "Loading was cancelled: {why}") if err.kind == "cancelled"
                    else translate("Controller", "Could not load the kernel file: {why}"))
            self.view.show_message(text.format(why=err.message), "warning" if err.kind == "cancelled" else "error",
                                   details=err.detail, topic="file")
        elif kind == "lesson_check":
            self.view.lesson_check_failed(err.message)
        elif err.kind == "cancelled":
            self.view.show_status(translate("Controller", "{what} cancelled").format(
                what=translate("Controller", kind)), 5000)
        else:
            self.show_error(err, topic=kind)
        self._after_request()

    def _after_request(self) -> None:
        if not self.busy_kinds() and not self.view.is_drawing():
            self.view.set_stage(translate("Controller", "ready"))
        self.view.update_actions()

    # ------------------------------------------------------------------------------------------
    # answers

    def _store(self, r: RunResult) -> None:
        # validation errors and cancels are not runs: keep them out of the history
        if r.error is not None and r.error.kind in ("validation", "cancelled"):
            return
        self.history.add(r)
        self.view.history_changed()

    def _show_run(self, r: RunResult) -> None:
        if r.kernel != self.session.kernel:
            self._store(r)  # the user moved on to another kernel meanwhile: keep it in the history only
            return
        self.session.last_run = r
        self.view.show_run(r)
        self._tell("run_shown", r)
        self._store(r)
        if r.error is not None:
            self.show_error(r.error, topic="run")
            return
        bits = [f"{r.kernel}: " + ("PASS" if r.check is None or r.check.passed else "FAIL")]
        if r.timing is not None:
            bits.append(f"{r.timing.median_ms:.4g} ms" + (" " + translate("Controller", "(interpreter wall clock)")
                                                          if r.timing.is_interpreter else ""))
        self.view.show_status(" · ".join(bits) + ("  —  " + "; ".join(r.notes) if r.notes else ""), 10000)

    def _show_trace_result(self, res: TraceResult) -> None:
        for hook in self.trace_hooks:
            hook(res)
        self.trace_clock.came_back(res)
        if res.error is not None or res.trace is None:
            self.show_error(res.error or ErrorInfo("internal", translate("Controller", "the trace came back empty")),
                            topic="trace")
            return
        if res.trace.kernel == self.session.kernel:
            self.show_trace(res.trace)

    def on_trace_drawn(self, tr: Trace) -> None:
        """The grid finished drawing ``tr``: show it (an older trace finished as a newer came: not)."""
        if tr is not self.session.trace:
            return
        self.view.trace_shown(tr)
        if not self.busy_kinds():
            self.view.set_stage(translate("Controller", "ready"))
        self.view.show_status(self.trace_clock.status(tr), 8000)  # the whole wait, from the click

    def on_trace_failed(self, message: str) -> None:
        self.view.show_message(translate("Controller", "The trace came back but cannot be drawn: {why}").format(why=message),
                               "error", topic="trace")
        if not self.busy_kinds():
            self.view.set_stage(translate("Controller", "ready"))

    def _sweep_done(self, res: SweepResult) -> None:
        s = self.session.sweep
        if s is None:
            return
        for p in res.points:  # normally streamed already; a point whose message was lost is kept
            if p.values not in s.done_values():
                s.add(p)
                self.view.show_sweep_point(p, s.axes)
                self._tell("sweep_point", p)
                self._store(p.result)
        self._tell("sweep_finished", res, list(s.points))
        if res.error is not None:
            self._sweep_interrupted(res.error)
            return
        s.finished = True
        best = self.view.best_sweep_point()
        text = translate("Controller", "Sweep done: {n} points.").format(n=s.done)
        if best is not None:
            best_vals = {n: s.axes[n][best[k]] for k, n in enumerate(s.axes)}
            text += " " + translate("Controller", "Best: {values}.").format(values=format_values(best_vals))
        elif res.best is not None:  # more than two parameters: the engine's winner
            text += " " + translate("Controller", "Best: {values}.").format(
                values=format_values(res.points[res.best].values))
        self.view.show_status(text, 15000)

    def _sweep_interrupted(self, err: ErrorInfo) -> None:
        s = self.session.sweep
        if s is None:
            return
        s.interrupted = err.message
        if s.can_resume:
            self.view.show_message(
                translate("Controller", "The sweep stopped after {done} of {total} points ({kind}: {why}). "
                          "The {done} finished points are kept; {left} remain.").format(
                    done=s.done, total=s.total, kind=err.kind, why=err.message, left=s.total - s.done),
                "warning" if err.kind == "cancelled" else "error", details=err.detail, topic="sweep",
                actions=[(translate("Controller", "Resume sweep"), self.resume_sweep)])
        else:
            self.view.show_message(translate("Controller", "Sweep: {kind}: {why}").format(kind=err.kind, why=err.message),
                                   "error",
                                   details=err.detail, topic="sweep")
        self.view.update_actions()

    def _file_loaded(self, payload: dict) -> None:
        infos: list[KernelInfo] = list(payload.get("infos") or [])
        loaded: list[KernelInfo] = list(payload.get("loaded") or [])
        self.session.set_infos(infos)
        self.view.show_kernels(infos)
        self.view.set_file_changed(False)
        if not loaded:
            return
        self.view.show_status(translate("Controller", "loaded {names} from {file}").format(
            names=", ".join(i.name for i in loaded), file=loaded[0].origin), 10000)
        if payload.get("notes"):  # what the worker had to undo (processes the file forked)
            self.view.show_message("; ".join(payload["notes"]), "warning", topic="file")
        script = payload.get("script")
        if script is not None:  # a plain script: say what its run gave, its prints as the details
            self.view.show_message(script_summary(script), "warning" if script.error else "info",
                                   details=script.log or translate("Controller", "(the script printed nothing)"),
                                   topic="file")
        cur = self.session.kernel
        if cur in {i.name for i in loaded}:
            # reloaded: the source (and maybe the parameters) changed; keep the values typed
            info = self.session.infos[cur]
            self.view.show_kernel(info, self.view.param_values(), False)
            self.view.show_source(info.source, info.source_first_line)
        else:
            self.select_kernel(loaded[0].name)
        for i in loaded:
            self.view.watch_file(self.session.user_file(i.name))


def script_summary(script: Any) -> str:
    """One paragraph on a captured plain script: its launches, how it ended, what it printed."""
    n = len(script.launches)
    launches = ", ".join(translate("Controller", "#{i} {kernel} grid {grid}").format(
        i=r.index + 1, kernel=r.kernel, grid=chr(215).join(map(str, r.grid))) for r in script.launches)
    parts = [(translate("Controller", "Ran {file}: {n} launches captured ({launches}).") if n != 1
              else translate("Controller", "Ran {file}: {n} launch captured ({launches}).")).format(
        file=os.path.basename(script.path), n=n, launches=launches)]
    if script.stopped:
        parts.append(script.stopped[0].upper() + script.stopped[1:] + ".")
    if script.error:
        parts.append(translate("Controller", "The script raised {error}; the launches before it are kept.").format(
            error=script.error))
    parts.extend(script.notes)
    if script.log_lines:
        parts.append(translate("Controller", "It printed {n:,} line(s): see Details.").format(n=script.log_lines))
    return " ".join(parts)
