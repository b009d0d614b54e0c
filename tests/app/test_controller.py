"""The window's controller without Qt, widgets or a worker process: a fake view records what the
window would show, a fake worker what would be sent. Each test says what the learner would see go
wrong if it failed. No Qt is imported here (the fakes are plain Python)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from app.controller import Controller
from app.events import (
    BackendSet,
    FieldMarked,
    HistoryChanged,
    KernelShown,
    KernelsListed,
    MarksCleared,
    MessageCleared,
    MessageShown,
    ProgramsFieldSet,
    RunShown,
    StageShown,
    StatusShown,
    SweepPointAdded,
    TraceDrawing,
    TraceShown,
    ValuesSet,
    WindowEvents,
)
from app.history import History
from app.session import Session, trace_caption
from app.settings import Settings
from kernels.data.params import Param
from kernels.data.results import ErrorInfo, KernelInfo, Progress, SweepPoint, SweepResult
from kernels.data.trace import TraceResult
from views.demo import demo_vector_add
from views.demo_results import demo_run_result, vector_add_info


class FakeWorker:
    """Remembers every submit; unlike QtWorker it never forgets a superseded generation, so the
    controller's own generation check is what drops stale answers."""

    def __init__(self) -> None:
        self.state = "ready"
        self.sent: list[tuple[int, str, Any]] = []
        self.kinds: dict[int, str] = {}

    def submit(self, kind: str, payload: Any = None) -> int:
        gen = len(self.sent) + 1
        self.sent.append((gen, kind, payload))
        self.kinds[gen] = kind
        return gen

    def answered(self, gen: int) -> None:
        self.kinds.pop(gen, None)

    def cancel(self) -> bool:
        return bool(self.kinds)

    def kind_of(self, gen: int) -> str | None:
        return self.kinds.get(gen)

    def pending_kinds(self) -> set[str]:
        return set(self.kinds.values())

    def stderr_tail(self, n: int = 20) -> list[str]:
        return ["ImportError: no module named torch"][-n:]


class FakeView:
    """What the window shows, as plain attributes: the controller's events (``follow``) land in
    methods named as the window's parts would draw them."""

    def __init__(self) -> None:
        self.values: dict[str, Any] = {}
        self.valid = True
        self.kernel: str | None = None
        self.chosen_backend = "interpreter"
        self.window = ""
        self.banner: tuple[str, str, str, list] | None = None  # text, level, topic, actions
        self.statuses: list[str] = []
        self.stage: tuple[str, float | None, bool] = ("", None, False)
        self.marks: dict[str, str] = {}
        self.runs: list = []
        self.drawn: list = []
        self.shown: list = []
        self.sweep_points: list = []
        self.history_changes = 0
        self.drawing = False

    def follow(self, events: WindowEvents) -> FakeView:
        on = events.subscribe
        on(KernelsListed, lambda e: self.show_kernels(e.infos))
        on(KernelShown, lambda e: self.show_kernel(e.info, e.values, e.new))
        on(ValuesSet, lambda e: self.set_param_values(e.values))
        on(BackendSet, lambda e: self.set_backend(e.backend))
        on(FieldMarked, lambda e: self.mark_field(e.name, e.message))
        on(MarksCleared, lambda e: self.clear_marks())
        on(ProgramsFieldSet, lambda e: self.set_window_text(e.text))
        on(MessageShown, lambda e: self.show_message(e.text, e.level, details=e.details, topic=e.topic,
                                                     actions=e.actions))
        on(MessageCleared, lambda e: self.clear_message(*e.topics))
        on(StatusShown, lambda e: self.show_status(e.text, e.ms))
        on(StageShown, lambda e: self.set_stage(e.text, e.fraction, e.busy))
        on(RunShown, lambda e: self.show_run(e.result))
        on(TraceDrawing, lambda e: self.draw_trace(e.trace))
        on(TraceShown, lambda e: self.trace_shown(e.trace))
        on(SweepPointAdded, lambda e: self.show_sweep_point(e.point, e.axes))
        on(HistoryChanged, lambda e: self.history_changed())
        return self

    # input
    def param_values(self): return dict(self.values)
    def params_shown(self): return self.kernel is not None
    def params_valid(self): return self.valid
    def backend(self): return self.chosen_backend
    def window_text(self): return self.window
    def set_window_text(self, text): self.window = text
    # kernels
    def show_kernels(self, infos): self.kernels = [i.name for i in infos]

    def show_kernel(self, info: KernelInfo, values, new):
        self.kernel = info.name
        self.values = {**{p.name: p.default for p in info.params}, **values}
        if new:
            self.window = ""

    def set_param_values(self, values): self.values.update(values)
    def set_backend(self, backend): self.chosen_backend = backend
    def mark_field(self, name, message): self.marks[name] = message
    def clear_marks(self): self.marks.clear()

    # messages
    def show_message(self, text, level="error", *, details="", topic="", actions=()):
        self.banner = (text, level, topic, list(actions))

    def clear_message(self, *topics):
        if self.banner is not None and (not topics or self.banner[2] in topics):
            self.banner = None

    def show_status(self, text, ms): self.statuses.append(text)
    def set_stage(self, text, fraction=None, busy=False): self.stage = (text, fraction, busy)
    def defer(self, fn): fn()
    # results
    def show_run(self, r): self.runs.append(r)
    def draw_trace(self, tr): self.drawn.append(tr)
    def trace_shown(self, tr): self.shown.append(tr)
    def is_drawing(self): return self.drawing
    def show_sweep_point(self, point, axes): self.sweep_points.append(point)
    def best_sweep_point(self): return None
    def history_changed(self): self.history_changes += 1

    def click(self, label: str) -> None:
        """Press a button of the banner."""
        assert self.banner is not None, "no message shown"
        fn = dict(self.banner[3])[label]
        fn()


GRIDLESS = dataclasses.replace(vector_add_info(), name="gridless", grid_exprs=(), origin="/home/me/k.py")


@pytest.fixture
def setup(tmp_path):
    view, worker = FakeView(), FakeWorker()
    c = Controller(view, worker, Session(), Settings.load(tmp_path / "settings.json"), History.in_memory())
    view.follow(c.events)
    c.on_hello({"backends": {"gpu_available": False}, "infos": [vector_add_info(), GRIDLESS], "versions": {}})
    assert c.ready and view.kernel == "vector_add" and view.stage[0] == "ready"
    return c, view, worker


def test_run_sends_the_panels_values_and_drops_a_superseded_answer(setup):
    # An older run that answers late must not overwrite the newer one on screen (the plot and
    # the correctness badge would show values the panel no longer holds).
    c, view, worker = setup
    view.values.update(BLOCK_SIZE=256, N=1000)
    first = c.run()
    view.values.update(N=2000)
    second = c.run()
    assert [p.values["N"] for _, kind, p in worker.sent if kind == "run"] == [1000, 2000]
    assert worker.sent[-1][2].backend == "interpreter" and view.stage == ("queued: run", 0.0, False)
    assert c.settings.values_for("vector_add")["N"] == 2000  # remembered for the next start

    c.on_progress(first, Progress("running", 0.2, 1, 4, "programs"))
    assert view.stage[0] == "queued: run"  # the superseded run's progress is not shown
    worker.answered(first)
    c.on_result(first, "run", demo_run_result({"N": 1000}, backend="interpreter"))
    assert view.runs == [] and c.history.count() == 0
    c.on_progress(second, Progress("running", 0.2, 1, 8, "programs"))
    assert view.stage == ("running 1/8 programs", 0.2, False)
    worker.answered(second)
    c.on_result(second, "run", demo_run_result({"N": 2000}, backend="interpreter"))
    assert [r.values["N"] for r in view.runs] == [2000] and c.history.count() == 1
    assert view.stage[0] == "ready" and view.statuses[-1].startswith("vector_add: PASS")


def test_a_huge_grid_is_known_before_any_launch_and_a_window_is_traced(setup):
    # vector add with 2**20 elements in blocks of 16: 65536 programs, known from the grid
    # formula without a run; tracing them all would take minutes under the interpreter.
    c, view, worker = setup
    view.values.update(BLOCK_SIZE=16, N=1 << 20)
    assert c.session.programs(view.values) == 65536
    gen = c.trace()
    req = worker.sent[-1][2]
    assert req.window == "0:4096" and view.window == "0:4096"
    text, level, topic, actions = view.banner
    assert topic == "trace_window" and "65,536 programs" in text and [a for a, _ in actions] == ["Trace all 65,536"]
    # the trace's progress does not offer a window again: one is traced already
    c.on_progress(gen, Progress("tracing", 0.0, 0, 4096, "programs"))
    assert view.banner[2] == "trace_window" and view.stage[0] == "tracing 0/4,096 programs"

    view.click("Trace all 65,536")
    assert worker.sent[-1][2].window is None and view.window == "" and view.banner is None
    c.on_progress(worker.sent[-1][0], Progress("tracing", 0.0, 0, 65536, "programs"))
    assert view.banner is None, "the user asked for every program: no window offered again"


def test_a_grid_only_the_launch_knows_is_told_by_the_traces_progress(setup):
    c, view, worker = setup
    c.select_kernel("gridless", {"BLOCK_SIZE": 16, "N": 1 << 20})
    assert c.session.programs(view.values) is None
    gen = c.trace()
    assert worker.sent[-1][2].window is None and view.banner is None
    c.on_progress(gen, Progress("tracing", 0.0, 0, 65536, "programs"))
    text, _, topic, actions = view.banner
    assert topic == "trace_window" and "all 65,536 programs" in text
    view.click("Trace programs 0:4096 only")  # supersedes the running trace
    assert worker.sent[-1][2].window == "0:4096" and view.window == "0:4096"
    # the first trace's answer comes too late: dropped, the window's trace is drawn
    c.on_result(gen, "trace", TraceResult(request=None, trace=demo_vector_add(1000, 256)))
    assert view.drawn == []
    tr = dataclasses.replace(demo_vector_add(1000, 256), kernel="gridless")
    c.on_result(worker.sent[-1][0], "trace", TraceResult(request=None, trace=tr))
    assert view.drawn == [tr] and c.session.trace is tr and view.stage[2]  # drawing: busy
    c.on_trace_drawn(tr)
    assert view.shown == [tr] and view.statuses[-1].startswith("traced all 4 programs")


def test_a_sweeps_progress_counts_whole_points_and_its_points_are_kept(setup):
    c, view, worker = setup
    gen = c.start_sweep({"BLOCK_SIZE": [64, 128, 256, 512]})
    assert view.stage == ("sweep point 1/4: queued", 0.0, False)
    c.on_point(gen, SweepPoint({"BLOCK_SIZE": 64}, demo_run_result({"BLOCK_SIZE": 64}, backend="interpreter")))
    c.on_progress(gen, Progress("timing", 0.4, 2, 4, "points"))
    assert view.stage == ("sweep point 2/4: timing", 0.25, False)
    worker.answered(gen)
    c.on_error(gen, "sweep", ErrorInfo("worker", "the worker process was killed by SIGKILL"))
    text, level, topic, actions = view.banner
    assert topic == "sweep" and "after 1 of 4 points" in text and "3 remain" in text
    assert c.actions().resume and c.history.count() == 1
    view.click("Resume sweep")
    resumed = worker.sent[-1]
    assert resumed[1] == "sweep" and resumed[2].skip == [{"BLOCK_SIZE": 64}]
    assert view.stage == ("sweep point 2/4: resuming", 0.25, False)
    done = [SweepPoint({"BLOCK_SIZE": b}, demo_run_result({"BLOCK_SIZE": b}, backend="interpreter"))
            for b in (128, 256, 512)]
    worker.answered(resumed[0])
    c.on_result(resumed[0], "sweep", SweepResult(request=resumed[2], points=done, best=None))
    assert c.session.sweep.finished and c.session.sweep.done == 4 and c.history.count() == 4
    assert view.statuses[-1] == "Sweep done: 4 points."


def test_what_is_enabled_and_why_run_is_not(tmp_path):
    view, worker = FakeView(), FakeWorker()
    c = Controller(view, worker, Session(), Settings.load(tmp_path / "s.json"), History.in_memory())
    view.follow(c.events)
    a = c.actions()
    assert not a.run and not a.inputs and a.run_blocked == "starting worker…"
    c.on_hello({"infos": [vector_add_info()]})
    view.valid = False
    a = c.actions()
    assert not a.run and a.inputs and a.run_blocked == "fix the marked parameter first"
    view.valid = True
    view.window = "first two"
    a = c.actions()
    assert a.run and not a.trace and a.window_bad
    assert c.trace() is None and worker.sent == []
    view.window = ""
    c.run()
    assert c.actions().cancel and not c.actions().resume


def test_errors_mark_the_field_and_a_cancel_is_said_quietly(setup):
    c, view, worker = setup
    gen = c.run()
    worker.answered(gen)
    c.on_error(gen, "run", ErrorInfo("validation", "N=500 is too large for this device", field="N"))
    assert view.marks == {"N": "N=500 is too large for this device"}
    assert view.banner[2] == "validation" and "too large" in view.banner[0]
    gen = c.run()  # the next run clears the marks and the message
    assert view.marks == {} and view.banner is None
    worker.answered(gen)
    c.on_error(gen, "run", ErrorInfo("cancelled", "run cancelled"))
    assert view.banner is None and view.statuses[-1] == "run cancelled"


def test_a_worker_that_cannot_start_says_why(tmp_path):
    view, worker = FakeView(), FakeWorker()
    c = Controller(view, worker, Session(), Settings.load(tmp_path / "s.json"), History.in_memory())
    view.follow(c.events)
    worker.state = "crashed"
    c.on_state("crashed")
    text, level, topic, _ = view.banner
    assert topic == "worker" and level == "error" and "could not start" in text
    assert view.stage[0] == "worker not running"


def test_the_trace_caption_leaves_out_launch_options_by_kind():
    # launch options change nothing under the interpreter; a user's kernel may name them otherwise
    info = dataclasses.replace(vector_add_info(), params=(
        *vector_add_info().params, Param("warps", "launch", 4)))
    tr = dataclasses.replace(demo_vector_add(1000, 256), values={"BLOCK_SIZE": 256, "N": 1000, "warps": 8,
                                                                 "num_warps": 2, "dtype": "fp32"})
    text, stale = trace_caption(tr, info, {"BLOCK_SIZE": 256, "N": 1000, "warps": 2})
    assert text == "Trace of vector_add (BLOCK_SIZE=256, N=1000, dtype=fp32): grid 4×1×1, 4 programs recorded"
    assert not stale  # a launch option changed: the trace still shows what would run
    text, stale = trace_caption(tr, info, {"BLOCK_SIZE": 128, "N": 1000})
    assert stale and text.endswith("the parameters changed since: Trace again to update")


def test_program_counts_come_from_the_grid_formula():
    s = Session()
    s.set_infos([vector_add_info(), GRIDLESS])
    assert s.programs({"N": 1000, "BLOCK_SIZE": 256}, "vector_add") == 4
    assert s.programs({"N": 1000}, "vector_add") is None  # a value missing: not known
    assert s.programs({"N": 1000, "BLOCK_SIZE": 256}, "gridless") is None


def test_compare_sends_the_programs_field_as_its_window_and_refuses_a_bad_one(setup):
    # breaks if "Interpreter vs GPU" ignored the Programs field (the interpreter would replay
    # programs the user did not ask for) or sent a window the worker cannot parse
    c, view, worker = setup
    view.window = "0:8"
    gen = c.compare_backends()
    kind, req = worker.sent[-1][1], worker.sent[-1][2]
    assert gen is not None and kind == "trace" and req.compare and req.backend == "gpu" and req.window == "0:8"
    view.window = "zero to eight"
    n = len(worker.sent)
    assert c.compare_backends() is None and len(worker.sent) == n
