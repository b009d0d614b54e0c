"""The recorder: an observer of the interpreter layer that writes down every load and store.

``trace_launch(launch, ...)`` calls ``launch(K)``; the launcher does what it always does,
``K(jit_fn)[grid](*args, **kwargs)``, and the interpreter session replays the chosen launch
program by program (or a window of them) with a ``Recorder`` watching:

- the kernel's loops counted (``loops.LoopInstrumenter``, the observer's AST pass) so each access
  knows its iteration;
- every access: the raw addresses of its active lanes appended as one numpy array per event, and
  out-of-bounds lanes (addresses in no argument's storage) recorded and switched off before
  memory is touched;
- the source line taken from the kernel's own frame.

At the end ``lanes.finish`` maps the addresses, vectorized, to (tensor, logical element), and
``kernels.data.maps.derive`` computes the per-element maps. Large grids are recorded in forked
processes (``parallel``), one range of programs each.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from ..data.errors import InterpreterFault, TraceCancelled, TraceUnsupported
from ..data.maps import derive, waves
from ..data.results import Progress
from ..data.trace import Trace, Window
from ..interp import Interpreter, LaunchInfo, Observer, Programs, kernel_error
from . import parallel
from .lanes import finish
from .loops import LOOPS_NAME, LoopInstrumenter, LoopState

__all__ = ["Recorder", "trace_launch", "tracing_stage", "ProgressFn", "CancelFn"]

ProgressFn = Callable[[Progress], Any]
CancelFn = Callable[[], bool]

_PROGRESS_EVERY_S = 0.1  # progress at a modest rate: the worker throttles further


def tracing_stage(lanes: int) -> str:
    """The progress stage while recording: ``Progress.text()`` reads "tracing 3,145,728 element
    accesses in 1,024/4,096 programs" (just "tracing" before the first access)."""
    return f"tracing {lanes:,} element accesses in" if lanes else "tracing"


class Recorder(Observer):
    """Records one launch. Per access: one row of Python scalars and one numpy array of
    addresses; nothing per lane."""

    watches_accesses = True
    requires_hooks = True

    def __init__(self, *, window: Window | None = None, n_sms: int = 132, programs_per_sm: int = 1,
                 progress: ProgressFn | None = None, cancel: CancelFn | None = None, kernel: str = "",
                 values: dict[str, Any] | None = None, workers: int | None = None) -> None:
        self.window = window
        self.n_sms = n_sms
        self.programs_per_sm = programs_per_sm
        self.progress = progress
        self.cancel = cancel
        self.kernel = kernel
        self.values = dict(values or {})
        self.workers = workers
        self.instr = LoopInstrumenter()
        self.loops = LoopState(0)
        self.transform = (self.instr.visit, {LOOPS_NAME: self.loops})
        self.trace: Trace | None = None
        self.pids = np.zeros(0, np.int64)
        self.parts: list[dict[str, np.ndarray]] = []
        self.t0 = time.perf_counter()
        self.starts = self.ends = np.zeros(0, np.uint64)
        self.code: Any = None
        self.pid = -1
        self.ev_prog: list[int] = []
        self.ev_op: list[int] = []
        self.ev_line: list[int] = []
        self.ev_iters: list[tuple[int, ...]] = []
        self.ev_masked: list[int] = []
        self.ev_hint: list[int] = []  # first lane's address: names the tensor of a fully masked access
        self.addrs: list[np.ndarray] = []  # per event: uint64 addresses of unmasked in-storage lanes
        self.oob_ev: list[int] = []
        self.oob_addrs: list[np.ndarray] = []
        self.n_lanes = 0  # active lanes recorded so far (the progress counts them)

    # -- before the programs run ---------------------------------------------------------------------
    def on_bind(self, fn: Any, bound: dict[str, Any], grid3: Any) -> None:
        self.t0 = time.perf_counter()
        n = int(grid3[0] * grid3[1] * grid3[2])
        pids = (self.window or Window()).pids(grid3) if n else np.zeros(0, np.int32)
        self.pids = np.sort(pids)
        total = int(self.pids.size)
        workers = self.workers if self.workers is not None else parallel.auto_workers(total)
        workers = max(1, min(int(workers), total // 2 if total >= 2 else 1))
        if workers > 1 and not parallel.available():
            workers = 1
        if workers > 1:
            try:
                parallel.share(bound)
            except Exception:  # noqa: BLE001 - a storage that cannot be shared: record in-process
                workers = 1
        self.workers = workers

    def on_launch(self, launch: LaunchInfo) -> None:
        self.starts, self.ends = launch.spans.starts, launch.spans.ends
        self.starts_l, self.ends_l = launch.spans.starts_l, launch.spans.ends_l
        self.code = launch.code
        self.loops.n = len(self.instr.loops)
        self.loops.reset()

    # -- the hot path ---------------------------------------------------------------------------------
    def on_access(self, launch: LaunchInfo, op: int, ptrs: np.ndarray, mask: np.ndarray | None) -> np.ndarray | None:
        p = ptrs
        if mask is None:
            act = p.ravel().copy()
            n_masked = 0
        else:
            if mask.shape != p.shape:
                mask = np.broadcast_to(mask, p.shape)
            act = p[mask]
            n_masked = p.size - act.size
        off = None
        if act.size:
            bad = launch.spans.outside(act)
            if bad is not None:
                self.oob_ev.append(len(self.ev_prog))
                self.oob_addrs.append(act[bad])
                act = act[~bad]
                off = np.zeros(p.shape, dtype=bool)
                if mask is None:
                    off.reshape(-1)[bad] = True
                else:
                    off[mask] = bad
        f = sys._getframe(1)
        code = self.code
        while f is not None and f.f_code is not code:
            f = f.f_back
        self.ev_prog.append(self.pid)
        self.ev_op.append(op)
        self.ev_line.append(f.f_lineno if f is not None else -1)
        self.ev_iters.append(tuple(self.loops.cur))
        self.ev_masked.append(n_masked)
        self.ev_hint.append(int(p.flat[0]) if p.size else 0)
        self.addrs.append(act)
        self.n_lanes += act.size
        return off

    def export(self, n_loops: int) -> dict[str, np.ndarray]:
        """The recording as a few flat arrays (what a forked child sends back), emptying the lists."""
        n = len(self.ev_prog)
        out = {
            "prog": np.array(self.ev_prog, dtype=np.int32),
            "op": np.array(self.ev_op, dtype=np.int8),
            "line": np.array(self.ev_line, dtype=np.int32),
            "iters": (np.array(self.ev_iters, dtype=np.int32).reshape(n, n_loops) if n_loops
                      else np.zeros((n, 0), np.int32)),
            "masked": np.array(self.ev_masked, dtype=np.int32),
            "hint": np.array(self.ev_hint, dtype=np.uint64),
            "counts": np.fromiter((a.size for a in self.addrs), dtype=np.int64, count=n),
            "addr": np.concatenate(self.addrs) if self.addrs else np.zeros(0, np.uint64),
            "oob_ev": np.array(self.oob_ev, dtype=np.int64),
            "oob_counts": np.fromiter((a.size for a in self.oob_addrs), dtype=np.int64, count=len(self.oob_addrs)),
            "oob_addr": np.concatenate(self.oob_addrs) if self.oob_addrs else np.zeros(0, np.uint64),
        }
        for lst in (self.ev_prog, self.ev_op, self.ev_line, self.ev_iters, self.ev_masked, self.ev_hint,
                    self.addrs, self.oob_ev, self.oob_addrs):
            lst.clear()
        return out

    # -- running the programs -------------------------------------------------------------------------
    def run(self, launch: LaunchInfo, programs: Programs) -> bool:
        pids, total, n_loops = self.pids, int(self.pids.size), self.loops.n
        progress, cancel = self.progress, self.cancel
        last = [time.perf_counter()]

        def report(done: int, lanes: int) -> None:
            now = time.perf_counter()
            if progress is not None and now - last[0] >= _PROGRESS_EVERY_S:
                last[0] = now
                progress(Progress(tracing_stage(lanes), done / max(1, total), done, total, "programs"))

        if progress is not None:
            progress(Progress("tracing", 0.0, 0, total, "programs"))
        if self.workers == 1:
            done = [0]

            def before_program(pid: int) -> None:
                if cancel is not None and cancel():
                    raise TraceCancelled(f"trace cancelled after {done[0]} of {total} programs")
                self.pid = launch.pid = pid
                self.loops.reset()
                done[0] += 1
                if (done[0] & 7) == 0:
                    report(done[0], self.n_lanes)

            programs(pids, before_program)
            self.parts = [self.export(n_loops)]
            return True
        self.parts = self._run_forked(launch, programs, report)
        return True

    def _run_forked(self, launch: LaunchInfo, programs: Programs,
                    report: Callable[[int, int], None]) -> list[dict[str, np.ndarray]]:
        n_loops = self.loops.n

        def child(part: np.ndarray, tick: Callable[[int, int], None]) -> dict[str, np.ndarray]:
            done = [0]

            def before_program(pid: int) -> None:
                self.pid = launch.pid = pid
                self.loops.reset()
                done[0] += 1
                if (done[0] & 7) == 0:
                    tick(done[0], self.n_lanes)

            programs(part, before_program)
            return self.export(n_loops)

        def describe(e: BaseException) -> tuple[str, str]:
            err = kernel_error(e, launch)
            return err.message, err.detail

        try:
            return parallel.run_forked(np.array_split(self.pids, self.workers), child, on_progress=report,
                                       cancel=self.cancel, describe_error=describe)
        except parallel.ChildFailed as e:
            if e.message == "cancelled":
                raise TraceCancelled("trace cancelled while recording") from None
            raise InterpreterFault(e.message, detail=e.detail) from None

    # -- the trace --------------------------------------------------------------------------------------
    def on_end(self, launch: LaunchInfo) -> None:
        import triton

        from ..specs.spec import jit_source

        t1 = time.perf_counter()
        lanes = sum(int(part["addr"].shape[0]) for part in self.parts)
        if self.progress is not None:
            self.progress(Progress(f"deriving maps of {lanes:,} element accesses", 1.0))
        done = finish(self.parts, launch.tensors)
        tensors = [a.info for a in launch.tensors]
        maps, stats = derive(tensors, done.events, self.pids)
        t2 = time.perf_counter()
        source, source_file, first = jit_source(launch.fn)
        total = int(self.pids.size)
        window_text = self.window.describe(launch.grid3) if self.window is not None and total else None
        self.trace = Trace(
            kernel=self.kernel or launch.name, values=dict(self.values), grid=launch.grid3,
            programs=self.pids.astype(np.int32), window=window_text, tensors=tensors, scalars=launch.scalars,
            constexprs=launch.constexprs, events=done.events, oob=done.oob, maps=maps, stats=stats,
            source=source, source_file=source_file, source_first_line=first, loop_lines=self.instr.lines,
            loop_parents=list(self.instr.parents), n_sms=self.n_sms, programs_per_sm=self.programs_per_sm,
            wave=waves(self.pids, self.n_sms, self.programs_per_sm), triton_version=triton.__version__,
            record_s=t1 - self.t0, derive_s=t2 - t1, launch_index=launch.index, kernel_fn=launch.name,
            workers=self.workers or 1)


class _Skip(Observer):
    """A launch after the recorded one: not run (the trace is of one launch)."""

    def run(self, launch: LaunchInfo, programs: Programs) -> bool:
        return True


def _as_window(window: Window | str | tuple[int, int] | None) -> Window | None:
    if window is None or isinstance(window, Window):
        return window
    if isinstance(window, str):
        return Window.parse(window)
    a, b = window
    return Window(start=int(a), stop=int(b))


def trace_launch(launch: Callable[[Any], Any], *, kernel: str = "", values: dict[str, Any] | None = None,
                 window: Window | str | tuple[int, int] | None = None, n_sms: int = 132,
                 programs_per_sm: int = 1, launch_index: int = 0, progress: ProgressFn | None = None,
                 cancel: CancelFn | None = None, workers: int | None = None, check_overflow: bool = False,
                 kernels: tuple[Any, ...] = ()) -> Trace:
    """Trace one launch made by ``launch(K)`` (which calls ``K(jit_fn)[grid](*args, **kwargs)``
    with CPU tensors; launch options such as ``num_warps`` are accepted and ignored).

    - ``window``: a ``Window``, its text ("0:256", "0:8,0:4") or (start, stop) of linear ids;
      only those programs run, and ``Trace.window`` says so;
    - ``n_sms`` / ``programs_per_sm``: the wave model (``Trace.wave``); H200: 132 SMs;
    - ``launch_index``: which launch of the launcher to record (earlier ones run unrecorded,
      later ones are skipped);
    - ``progress(Progress)``: "tracing" with programs done of total and the element accesses
      recorded so far (``tracing_stage``), at most ~10 times a second, then "deriving maps"; ``cancel()``: polled between programs, true -> TraceCancelled;
    - ``workers``: processes recording parts of the grid (Linux, fork); None = as many as the
      CPUs allow for this grid, 1 = in this process. Tensor storages move to shared memory;
    - ``check_overflow``: a debug run: int32 overflow and ``tl.device_assert`` raise (off, as in
      the plain interpreter: arithmetic wraps as on the GPU, and faster).

    Raises TraceUnsupported (a missing interpreter hook, named), TraceCancelled,
    InterpreterFault (the kernel failed; the message names program and source line) or
    ValueError (bad arguments, window or grid)."""
    rec = Recorder(window=_as_window(window), n_sms=n_sms, programs_per_sm=programs_per_sm, progress=progress,
                   cancel=cancel, kernel=kernel, values=values, workers=workers)
    skip = _Skip()

    def observers(index: int, fn: Any) -> list[Observer]:
        if index < launch_index:
            return []
        return [rec] if index == launch_index else [skip]

    session = Interpreter(observers, check_overflow=check_overflow)
    with session.activate(kernels) as K:
        launch(_checked(K))
    if rec.trace is None:
        raise ValueError(f"the launcher made {session.n_launches} launch(es); launch {launch_index} never happened")
    return rec.trace


def _checked(K: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """``K`` refusing, with the tracer's words, what it cannot trace."""
    def k(jit_fn: Any) -> Any:
        if not hasattr(jit_fn, "fn") or not callable(getattr(jit_fn, "fn", None)) or hasattr(jit_fn, "configs"):
            if hasattr(jit_fn, "configs") or hasattr(jit_fn, "values"):
                raise TraceUnsupported(f"{getattr(jit_fn, '__name__', jit_fn)!r} is wrapped in "
                                       "@triton.autotune/@triton.heuristics; trace the plain @triton.jit "
                                       "function", hook="K")
            raise TraceUnsupported(f"{jit_fn!r} is not a @triton.jit function", hook="K")
        return K(jit_fn)
    return k
