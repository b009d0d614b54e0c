"""The window's controller: user actions become worker requests, answers become events the
window's parts draw.

Qt-free, in the manner of napari's components and ndv's controllers: it holds the ``Session``
(the kernels, the one selected, the latest run / trace / sweep), the ``Settings`` and the
``History``; it reaches the worker through ``WorkerPort`` (``app.qt_worker.QtWorker`` in the
window) and reads what the user entered through ``WindowPort`` (``app.main_window.MainWindow``).
What it decides to show goes out on one typed channel, ``events`` (``app.events``): the parts of
the window (``app.window``) subscribe to the kinds they draw. So what it decides — which request
a Run / Trace / Sweep sends, which answer is shown where, what the status line and the banner
say — is tested with fakes of both ports (``tests/app/test_controller.py``).

Its parts, each over the shared ``RequestDesk`` (the models, the ports, generations): traces
(``app.trace_flow``), sweeps (``app.sweep_flow``), the kernel shown and its files
(``app.kernel_choice``). This module keeps what is possible now, the requests without a part of
their own, and the dispatch of the worker's events.

Generations: each request submitted gets the worker's generation number; for the kinds where a
newer request makes older ones pointless (run, trace, sweep) the latest generation is kept, and
a progress report, sweep point, result or error of an older one is dropped.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kernels.data.backends import NAMES as BACKEND_NAMES
from kernels.data.backends import is_gpu
from kernels.data.region import RegionRequest
from kernels.data.requests import request_kind
from kernels.data.results import CompileFacts, ErrorInfo, Progress, RunRequest, RunResult, SweepPoint
from kernels.data.trace import Trace
from views.words import QT_TRANSLATE_NOOP, translate

from .events import (
    ActionsChanged,
    AdviceAnswered,
    AdviceFailed,
    BackendSet,
    CompileAnswered,
    CompileFailed,
    KernelsListed,
    LayoutAnswered,
    LayoutFailed,
    LessonChecked,
    LessonCheckFailed,
    MarksCleared,
    RegionAnswered,
    RegionFailed,
    RunShown,
    WindowEvents,
    WorkerShown,
    WorkerStateShown,
)
from .history import History
from .kernel_choice import KernelChoice, script_summary
from .request_desk import RequestDesk, WindowPort, WorkerPort
from .session import Session
from .settings import Settings
from .sweep_flow import SweepFlow
from .trace_clock import TraceClock
from .trace_flow import TRACE_SUGGEST_PROGRAMS, TRACE_SUGGESTED_WINDOW, TraceFlow

__all__ = ["ActionState", "Controller", "TRACE_SUGGESTED_WINDOW", "TRACE_SUGGEST_PROGRAMS", "WINDOW_KINDS",
           "WindowPort", "WorkerPort", "script_summary"]

#: every request kind the window sends, each a row of ``kernels.data.requests``: the user's actions,
#: and the parts' own (a compile for a chosen target, a region at full resolution, a compile ahead,
#: the Threads tab's layouts)
WINDOW_KINDS = ("run", "trace", "sweep", "load_file", "lesson_check", "compile", "trace_region", "precompile",
                "layout", "why")
#: those that keep the worker busy a while (the table's long-running kinds): what Cancel stops
WORK_KINDS = frozenset(k for k in WINDOW_KINDS if request_kind(k).long_running)
#: the request kinds as "{what} cancelled" names them
KIND_WORDS = (QT_TRANSLATE_NOOP("Controller", "run"), QT_TRANSLATE_NOOP("Controller", "trace"),
              QT_TRANSLATE_NOOP("Controller", "sweep"))


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
    def __init__(self, window: WindowPort, worker: WorkerPort, session: Session, settings: Settings,
                 history: History, initial_kernel: str | None = None, events: WindowEvents | None = None) -> None:
        self.events = events if events is not None else WindowEvents()
        self.desk = RequestDesk(window, worker, session, settings, history, self.events)
        self.window, self.worker = window, worker
        # the models: what the window knows, the user's settings, every run so far
        self.session, self.settings, self.history = session, settings, history
        self.initial_kernel = initial_kernel  # shown first, when the worker's catalog has it
        self.kernels = KernelChoice(self.desk)
        self.traces = TraceFlow(self.desk)
        self.sweeps = SweepFlow(self.desk, self.kernels.offer_values)
        # the parts' own user actions, as the window's parts call them
        self.select_kernel, self.load_values = self.kernels.select, self.kernels.load_values
        self.reload_run, self.offer_values, self.load_point = (self.kernels.reload_run, self.kernels.offer_values,
                                                               self.kernels.load_point)
        self.open_kernel_file = self.kernels.open_file
        self.trace, self.trace_all, self.trace_window = self.traces.trace, self.traces.trace_all, self.traces.window
        self.compare_backends, self.show_trace = self.traces.compare_backends, self.traces.show
        self.start_sweep, self.resume_sweep = self.sweeps.start, self.sweeps.resume
        self.offer_sweep_point = self.sweeps.offer_point
        self.show_error = self.desk.show_error

    # -- the shared state, by its old names -----------------------------------------------------------
    @property
    def ready(self) -> bool:
        return self.desk.ready

    @property
    def closing(self) -> bool:
        return self.desk.closing

    @closing.setter
    def closing(self, value: bool) -> None:
        self.desk.closing = value

    @property
    def trace_clock(self) -> TraceClock:
        return self.traces.clock

    @trace_clock.setter
    def trace_clock(self, clock: TraceClock) -> None:
        self.traces.clock = clock

    @property
    def _latest(self) -> dict[str, int]:
        return self.desk.latest

    # -- what is possible now -------------------------------------------------------------------------
    def busy_kinds(self) -> set[str]:
        return self.worker.pending_kinds() & set(WORK_KINDS)

    def can_submit(self) -> bool:
        return self.desk.can_submit()

    def actions(self) -> ActionState:
        ok = self.can_submit()
        window_bad = bool(self.trace_window()[1])
        blocked = (translate("Controller", "starting worker…") if not self.ready
                   else translate("Controller", "no kernel selected") if self.session.info() is None
                   else translate("Controller", "fix the marked parameter first") if not self.window.params_valid()
                   else "")
        busy = self.busy_kinds()  # what Cancel stops
        s = self.session.sweep
        return ActionState(run=ok, trace=ok and not window_bad, sweep=ok, cancel=bool(busy),
                           resume=bool(s is not None and s.can_resume and "sweep" not in busy and self.ready),
                           inputs=self.ready, window_bad=window_bad, run_blocked=blocked)

    # -- user actions without a part of their own -----------------------------------------------------
    def run(self) -> int | None:
        """Run the current configuration (check + time); returns the request's generation."""
        if not self.can_submit():
            return None
        values = self.window.param_values()
        req = self.session.run_request(values, self.window.backend())
        self.settings.remember(req.kernel, values)
        self.desk.clear("run", "validation", "point")
        self.desk.publish(MarksCleared())
        return self.desk.submit("run", req, translate("Controller", "queued: run"))

    def cancel(self) -> None:
        if self.worker.cancel():
            self.desk.stage(translate("Controller", "cancelling…"), busy=True)

    def check_lesson(self, name: str, path: str, lang: str) -> int:
        """Run a lesson's check of the learner's file in the worker (it runs their kernel)."""
        return self.desk.submit("lesson_check", (name, path, lang),
                                translate("Controller", "checking lesson {name}…").format(name=name), busy=True)

    # -- the window parts' own requests (their answers come back as events) ----------------------------
    def compile_for_target(self, target: str, values: dict[str, Any]) -> int | None:
        """Compile the shown kernel at ``values`` for ``target`` (an sm_NN; no GPU needed):
        ``CompileAnswered`` / ``CompileFailed`` with the generation returned."""
        info = self.session.info()
        if info is None or not self.ready:
            return None
        return self.worker.submit("compile", {"kernel": info.name, "user_file": self.session.user_file(),
                                              "values": values, "target": target, "keep_asm": True})

    def request_region(self, req: RegionRequest) -> int | None:
        """A region of the reduced trace shown, at full resolution: ``RegionAnswered`` / ``RegionFailed``."""
        return self.worker.submit("trace_region", req) if self.ready else None

    def request_layout(self, req: Any) -> int | None:
        """The layouts of the shown kernel (a ``LayoutRequest``, the Threads tab's):
        ``LayoutAnswered`` / ``LayoutFailed``."""
        return self.worker.submit("layout", req) if self.ready else None

    def request_why(self, req: Any) -> int | None:
        """Why the shown kernel is slow (a ``WhyRequest``, the Advice card's): ``AdviceAnswered`` /
        ``AdviceFailed``."""
        return self.worker.submit("why", req) if self.ready else None

    def gpu_chosen(self) -> bool:
        """The GPU backend is chosen and the worker has a GPU (what compiling ahead waits for)."""
        return is_gpu(self.window.backend()) and self.session.gpu_available

    def run_request(self, backend: str) -> RunRequest:
        """What Run would send now on ``backend``."""
        return self.session.run_request(self.window.param_values(), backend)

    def precompile(self, req: RunRequest) -> int:
        """Compile ``req``'s config in the worker's background (Run then finds it in Triton's cache)."""
        return self.worker.submit("precompile", {"request": req, "target": None})

    # -- the worker's events ---------------------------------------------------------------------------
    def on_hello(self, hello: dict) -> None:
        first = not self.ready
        # after a crash the client loads the user's kernel files into the new worker again, but
        # its hello lists the catalog only: keep the user's kernels meanwhile
        kept = [i for i in self.session.infos.values() if i.origin and i.origin != "catalog"]
        self.session.set_hello(hello)
        for i in kept:
            self.session.infos.setdefault(i.name, i)
        infos = list(self.session.infos.values())
        self.desk.publish(KernelsListed(tuple(infos)))
        self.desk.ready = True
        s, b = self.session, self.session.backends
        self.desk.publish(WorkerShown(s.gpu_available, s.gpu_reason, s.device_name, s.triton_version,
                                      str(b.get("device_name") or "GPU") if s.gpu_available else None))
        if first:
            if self.settings.backend in BACKEND_NAMES:
                self.desk.publish(BackendSet(self.settings.backend))
            name = next((n for n in (self.initial_kernel, self.settings.last_kernel, "vector_add")
                         if n and n in self.session.infos), infos[0].name if infos else None)
            if name:
                self.select_kernel(name)
            self.desk.stage(translate("Controller", "ready"))
        elif self.session.kernel and self.session.kernel not in self.session.infos:
            self.desk.stage(translate("Controller", "the worker restarted without your kernel file's kernels"))
        self.desk.publish(ActionsChanged())

    def on_state(self, state: str) -> None:
        self.desk.publish(WorkerStateShown(state))
        if state == "starting":
            self.desk.stage(translate("Controller", "starting worker…"), busy=True)
        elif state == "restarting":
            self.desk.stage(translate("Controller", "restarting worker…"), busy=True)
        elif state == "crashed":
            self.desk.stage(translate("Controller", "the worker crashed — restarting it"), busy=True)
            if not self.ready:
                self.window.defer(self._check_start_failure)
        elif state in ("ready", "busy") and not self.busy_kinds():
            self.desk.stage(translate("Controller", "ready") if self.ready
                            else translate("Controller", "starting worker…"), busy=not self.ready)
        self.desk.publish(ActionsChanged())

    def _check_start_failure(self) -> None:
        # the client gives up after three failed starts; say why instead of spinning forever
        if self.worker.state == "crashed" and not self.ready:
            self.desk.message(translate("Controller", "The worker process could not start, so nothing can run. "
                                        "Its last output is under Details."), "error",
                              details="\n".join(self.worker.stderr_tail(20)), topic="worker")
            self.desk.stage(translate("Controller", "worker not running"))

    def on_log(self, _gen: int, level: str, text: str) -> None:
        if level == "error":
            self.desk.message(text, "error", topic="worker")
        else:
            self.desk.status(translate("Controller", "worker {level}: {text}").format(level=level, text=text), 8000)

    def on_progress(self, gen: int, p: Progress) -> None:
        kind = self.worker.kind_of(gen)
        if kind is None or self.desk.stale(gen, kind):
            return
        if kind == "sweep" and self.sweeps.on_progress(p):
            return
        if kind == "trace":
            self.traces.on_progress(gen, p)
        self.desk.stage(p.text(), p.fraction)

    def on_point(self, gen: int, point: SweepPoint) -> None:
        if self.worker.kind_of(gen) == "sweep" and not self.desk.stale(gen, "sweep"):
            self.sweeps.on_point(point)

    def on_result(self, gen: int, kind: str, payload: Any) -> None:
        if not self.desk.stale(gen, kind):
            if kind == "run":
                self._show_run(payload)
            elif kind == "trace":
                self.traces.on_answer(payload)
            elif kind == "sweep":
                self.sweeps.done(payload)
            elif kind == "load_file":
                self.kernels.file_loaded(payload)
            elif kind == "lesson_check":
                self.desk.publish(LessonChecked(payload))
            elif kind == "compile":
                facts, notes = payload
                self.desk.publish(CompileAnswered(gen, facts if isinstance(facts, CompileFacts) else None,
                                                  tuple(notes or ())))
            elif kind == "trace_region":
                self.desk.publish(RegionAnswered(gen, payload))
            elif kind == "layout":
                self.desk.publish(LayoutAnswered(gen, payload))
            elif kind == "why":
                self.desk.publish(AdviceAnswered(gen, payload))
        self._after_request()

    def on_error(self, gen: int, kind: str, err: ErrorInfo) -> None:
        if self.desk.stale(gen, kind) or kind == "precompile":
            pass  # a compile ahead that failed is nobody's business but the worker's
        elif kind == "compile":
            self.desk.publish(CompileFailed(gen, err.message))
        elif kind == "trace_region":
            self.desk.publish(RegionFailed(gen, err.message))
        elif kind == "layout":
            self.desk.publish(LayoutFailed(gen, err))
        elif kind == "why":
            self.desk.publish(AdviceFailed(gen, err))
        elif kind == "sweep":
            self.sweeps.interrupted(err)
        elif kind == "load_file":
            self.kernels.file_failed(err.kind, err.message, err.detail)
        elif kind == "lesson_check":
            self.desk.publish(LessonCheckFailed(err.message))
        elif err.kind == "cancelled":
            self.desk.status(translate("Controller", "{what} cancelled").format(
                what=translate("Controller", kind)), 5000)
        else:
            self.show_error(err, topic=kind)
        self._after_request()

    def _after_request(self) -> None:
        if not self.busy_kinds() and not self.window.is_drawing():
            self.desk.stage(translate("Controller", "ready"))
        self.desk.publish(ActionsChanged())

    def on_trace_drawn(self, tr: Trace) -> None:
        """The grid finished drawing ``tr``: show it (an older trace finished as a newer came: not)."""
        self.traces.drawn(tr, idle=not self.busy_kinds())

    def on_trace_failed(self, message: str) -> None:
        self.traces.failed(message, idle=not self.busy_kinds())

    # -- answers ---------------------------------------------------------------------------------------
    def _show_run(self, r: RunResult) -> None:
        if r.kernel != self.session.kernel:
            self.desk.store(r)  # the user moved on to another kernel meanwhile: keep it in the history only
            return
        self.session.last_run = r
        self.desk.publish(RunShown(r))
        self.desk.store(r)
        if r.error is not None:
            self.show_error(r.error, topic="run")
            return
        bits = [f"{r.kernel}: " + ("PASS" if r.check is None or r.check.passed else "FAIL")]
        if r.timing is not None:
            bits.append(f"{r.timing.median_ms:.4g} ms" + (" " + translate("Controller", "(interpreter wall clock)")
                                                          if r.timing.is_interpreter else ""))
        self.desk.status(" · ".join(bits) + ("  —  " + "; ".join(r.notes) if r.notes else ""), 10000)

