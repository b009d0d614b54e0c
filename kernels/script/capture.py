"""Run a plain Triton script with every launch captured — in the worker, never the GUI.

While ``capture(path)`` runs the script (as ``__main__``, exactly as written):

- ``JITFunction.run`` is patched so each ``kernel[grid](...)`` is observed: the kernel, the script
  line that launched it, the function of the script that made it (the wrapper) and that
  function's arguments, the grid (tuple or ``meta`` callable), every argument, the launch options,
  the tensors' contents before and (for those the launch wrote) after (``snapshots``: on a GPU,
  copies made there while they fit);
- without a GPU the launch runs under the interpreter layer (``kernels.interp``) with an observer
  noting which tensors it loaded from and stored to, CUDA tensors and device lookups are served on
  the CPU (``cuda_on_cpu``), ``@triton.autotune`` runs one of its configs without Triton's
  GPU-only benchmarking (``choices`` picks which; the first by default) and ``kernel.warmup`` gives
  a stand-in (``warm_kernel``) with the registers and shared memory of the kernel compiled here
  for the emulated GPU, whose ``[grid](...)`` is captured like any other launch; with a GPU the
  real launch runs, a warmed-up kernel's launch is captured too, and Triton's autotuner
  benchmarks as it would (its ``do_bench`` let through), the final launch captured from the
  inputs as they were before the benchmarks wrote to them;
- the script's prints go to a bounded log; it is stopped at its first benchmark
  (``triton.testing.do_bench``/``perf_report``), after ``max_launches`` launches, or after
  ``budget_s`` seconds, and the message says which; a script that raises keeps the launches it made.
"""

from __future__ import annotations

import contextlib
import ctypes
import inspect
import io
import os
import runpy
import signal
import sys
import threading
import time
import traceback
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from ..data.errors import UserFileError
from ..data.script import ScriptCapture
from ..data.trace import OP_LOAD, OP_STORE
from ..interp import Interpreter, LaunchInfo, Observer, bind, constexpr_names, grid3
from ..run.backends import Backend
from . import descriptors, global_state, pointer_tables, snapshots
from .cuda_on_cpu import EMULATED_TARGET, cuda_on_cpu
from .virtual_gpu import after_error, lacking

__all__ = ["LiveLaunch", "capture", "StopScript", "warm_kernel"]


class StopScript(BaseException):
    """Raised inside the script to stop it (BaseException: a script's ``except Exception`` lets it by)."""

    reason = "stopped"


#: the least time one interpreted program takes (an empty one, measured ~40 µs here): a grid
#: that needs more than the budget at this rate is refused before it is launched
_MIN_PROGRAM_S = 10e-6


class _OutOfTime(StopScript):
    reason = "time"


@dataclass
class LiveLaunch:
    """One captured launch with its live objects (kept in the worker)."""

    index: int
    fn: Any  # the JITFunction
    grid: Any  # as given: a tuple or a callable of the meta-arguments
    grid3: tuple[int, int, int]
    bound: dict[str, Any]  # kernel parameter -> value, as launched
    options: dict[str, Any]  # num_warps, num_stages, … (autotune config options included)
    constexpr_names: set[str]
    before: dict[str, torch.Tensor]  # tensor arguments as they were before the launch (copies: ``snapshots``)
    after: dict[str, torch.Tensor]  # the written tensors after it (copies): the golden outputs
    written: list[str]
    read: list[str]
    call_site: tuple[str, int, str]  # file, line, text
    wrapper: Any = None  # the script function that made the launch (None at module level)
    wrapper_name: str = ""
    wrapper_args: dict[str, Any] = field(default_factory=dict)
    wrapper_ints: dict[str, int] = field(default_factory=dict)  # its other integer locals (names for sizes)
    autotune_configs: list[Any] = field(default_factory=list)  # triton.Config objects
    autotune_choice: int = -1
    heuristics: dict[str, Any] = field(default_factory=dict)  # name -> heuristic function
    reached: list[Any] = field(default_factory=list)  # pointer_tables.Reached: tensors met through addresses
    allocator: Any = None  # triton.set_allocator's allocator in force at the launch (None: none set)


class _Log(io.TextIOBase):
    """Keeps the first and last lines a script prints (a flood of 10^5 lines costs nothing)."""

    KEEP = 200

    def __init__(self) -> None:
        self.head: list[str] = []
        self.tail: list[str] = []
        self.n = 0
        self._part = ""

    def writable(self) -> bool:
        return True

    def write(self, s: str) -> int:
        text = self._part + s
        lines = text.split("\n")
        self._part = lines.pop()
        for line in lines:
            self.n += 1
            if len(self.head) < self.KEEP:
                self.head.append(line)
            else:
                self.tail.append(line)
                if len(self.tail) > self.KEEP:
                    del self.tail[0]
        return len(s)

    def text(self) -> str:
        if self._part:
            self.write("\n")
        skipped = self.n - len(self.head) - len(self.tail)
        middle = [f"… {skipped:,} lines not kept …"] if skipped > 0 else []
        return "\n".join(self.head + middle + self.tail)


class _TouchedTensors(Observer):
    """Which tensor arguments an interpreted launch loaded from and stored to."""

    watches_accesses = True

    def __init__(self) -> None:
        self.read: set[str] = set()
        self.written: set[str] = set()

    def on_access(self, launch: LaunchInfo, op: int, ptrs: np.ndarray, mask: np.ndarray | None) -> None:
        act = ptrs if mask is None else ptrs[np.broadcast_to(mask, ptrs.shape)]
        if act.size == 0:
            return None
        lo, hi = int(act.min()), int(act.max())
        for a in launch.tensors:
            if a.lo <= hi and lo < a.hi:
                if op != OP_STORE:  # an atomic reads what is there (a histogram's zeroed bins)
                    self.read.add(a.info.name)
                if op != OP_LOAD:
                    self.written.add(a.info.name)
        return None


def _script_frames(path: str) -> list[Any]:
    """The frames of the script file on the stack, innermost first."""
    out = []
    f = sys._getframe(2)
    while f is not None:
        if os.path.realpath(f.f_code.co_filename) == path:
            out.append(f)
        f = f.f_back
    return out


def _function_of(frame: Any) -> Any:
    """The function object a frame runs (a module function, or a method of a module class)."""
    code, g = frame.f_code, frame.f_globals
    fn = g.get(code.co_name)
    if getattr(fn, "__code__", None) is code:
        return fn
    for v in list(g.values()):
        if isinstance(v, type):
            for attr in vars(v).values():
                f = getattr(attr, "__func__", attr)
                if getattr(f, "__code__", None) is code:
                    return f
    return None


class _Capture:
    def __init__(self, path: str, backend: Backend, max_launches: int, choices: dict[str, int]) -> None:
        self.path = path
        self.backend = backend
        self.max_launches = max_launches
        self.choices = choices
        self.live: list[LiveLaunch] = []
        self.pending_autotune: tuple[list[Any], int] | None = None
        #: (tensor, its contents before Triton's autotuner benchmarked on it): put back before the final
        #: launch, so that launch is captured from the script's inputs, not from the benchmarks' outputs
        self.pending_restore: list[tuple[torch.Tensor, torch.Tensor]] = []
        self.pending_heuristics: dict[str, Any] = {}
        self.notes: list[str] = []
        self.benchmarking = False  # inside Triton's own autotune benchmarking (GPU): not captured
        self.budget_s = 30.0  # the script's time budget (capture() sets it)
        self.in_launch = ""  # the launch running now ("kernel, grid …, at file:line"), for a budget that ends in it
        self.snapshots = snapshots.Snapshots()  # the launches' tensors before and after, and where they are kept

    # -- one launch -------------------------------------------------------------------------------------
    def launch(self, fn: Any, grid: Any, args: tuple, kwargs: dict, real_run: Any) -> Any:
        if len(self.live) >= self.max_launches:
            stop = StopScript()
            stop.reason = f"it had given {self.max_launches} launches"
            raise stop
        for t, was in self.pending_restore:
            t.copy_(was)
        self.pending_restore = []
        frames = _script_frames(self.path)
        site = frames[0] if frames else None
        wrapper = next((f for f in frames if f.f_code.co_name != "<module>"), None)
        bound = bind(fn, args, kwargs)
        g3 = grid3(grid, bound)
        self._refuse_a_grid_too_large(fn, g3, bound)
        consts = constexpr_names(fn)
        names = set(inspect.signature(fn.fn).parameters)
        options = {k: v for k, v in kwargs.items() if k not in names}
        tensors = {k: v for k, v in bound.items() if isinstance(v, torch.Tensor)}
        reached = pointer_tables.find(bound, consts)  # behind a table of data_ptr()s: arguments all the same
        tensors.update({r.name: r.tensor for r in reached})
        tensors.update(descriptors.bases(bound))  # what a TensorDescriptor argument addresses
        what = f"the launch of {fn.fn.__name__}" + (f" at line {site.f_lineno}" if site is not None else "")
        try:
            before = self.snapshots.take(tensors, what)
        except snapshots.TooLarge as e:
            stop = StopScript()
            stop.reason = str(e)
            raise stop from None
        configs, choice = self.pending_autotune or ([], -1)
        heur, self.pending_autotune, self.pending_heuristics = self.pending_heuristics, None, {}
        self.in_launch = (f"{fn.fn.__name__} (grid {'×'.join(map(str, g3))}) at "
                          f"{os.path.basename(site.f_code.co_filename)}:{site.f_lineno}" if site is not None else "")
        ret, read, written, made = self._run(fn, grid, args, kwargs, real_run, tensors, before)
        self.in_launch = ""
        try:
            after = self.snapshots.take({k: tensors[k] for k in written}, what, made)
        except snapshots.TooLarge as e:  # the launch was made; the script stops after it, unrecorded
            stop = StopScript()
            stop.reason = str(e).replace("the launch was not made", "the launch was not recorded")
            raise stop from None
        file, line, text = "", 0, ""
        if site is not None:
            import linecache

            file, line = site.f_code.co_filename, site.f_lineno
            text = linecache.getline(file, line).strip()
        self.live.append(LiveLaunch(
            index=len(self.live), fn=fn, grid=grid, grid3=g3, bound=bound, options=options,
            constexpr_names=consts, before=before, after=after, written=written, read=read,
            call_site=(file, line, text), wrapper=_function_of(wrapper) if wrapper is not None else None,
            wrapper_name=wrapper.f_code.co_name if wrapper is not None else "",
            wrapper_args=dict(inspect.getargvalues(wrapper).locals) if wrapper is not None else {},
            autotune_configs=list(configs), autotune_choice=choice, heuristics=heur, reached=reached,
            allocator=descriptors.allocator()))
        if wrapper is not None:  # only the wrapper's own parameters, as it was called
            w = self.live[-1]
            params = list(inspect.signature(w.wrapper).parameters) if w.wrapper is not None else []
            w.wrapper_ints = {k: int(v) for k, v in w.wrapper_args.items()
                              if k not in params and isinstance(v, int) and not isinstance(v, bool)}
            w.wrapper_args = {k: v for k, v in w.wrapper_args.items() if k in params}
        return ret

    def _refuse_a_grid_too_large(self, fn: Any, g3: tuple[int, int, int], bound: dict) -> None:
        """On the interpreter, a launch whose programs could not all run within the budget even at
        ``_MIN_PROGRAM_S`` each is refused before it is made (the script stops there, its earlier
        launches kept): 2³¹−1 programs took 16 GiB and minutes, then said nothing was launched."""
        if not self.backend.is_interpreter:
            return
        programs = g3[0] * g3[1] * g3[2]
        if programs <= max(1 << 16, int(self.budget_s / _MIN_PROGRAM_S)):
            return
        elements = sum(v.numel() for v in bound.values() if isinstance(v, torch.Tensor))
        stop = StopScript()
        stop.reason = (f"a launch of {fn.fn.__name__} asks for {programs:,} programs (grid "
                       f"{' × '.join(str(g) for g in g3)}) over tensors of {elements:,} elements in all; on the "
                       f"interpreter that is more than the {self.budget_s:g}-s budget even at "
                       f"{_MIN_PROGRAM_S * 1e6:g} µs a program, so it was refused before it was made")
        raise stop

    def _run(self, fn: Any, grid: Any, args: tuple, kwargs: dict, real_run: Any, tensors: dict,
             before: dict) -> tuple[Any, list[str], list[str], dict]:
        if not self.backend.is_interpreter:
            ret = real_run(fn, *args, grid=grid, warmup=False, **kwargs)
            if any(t.is_cuda for t in tensors.values()):
                torch.cuda.synchronize()
            written, made = self.snapshots.written(tensors, before)  # compared where the copies are
            return ret, [k for k in tensors if k not in written], written, made
        if _is_gluon(fn):
            raise NeedsGPU(f"{fn.fn.__name__} is a Gluon kernel (@gluon.jit, explicit layouts): Triton's "
                           "interpreter cannot run Gluon, so it needs a GPU (most Gluon tutorials: sm_90 or sm_100)")
        touched = _TouchedTensors()
        session = Interpreter([touched])
        with session.activate([fn]) as K:
            K(fn)[grid](*args, **kwargs)
        return None, [k for k in tensors if k in touched.read], [k for k in tensors if k in touched.written], {}


class NeedsGPU(Exception):
    """A launch the CPU cannot run at all (a Gluon kernel): the script stops there, its line named."""


def _is_gluon(fn: Any) -> bool:
    return type(fn).__name__.startswith("Gluon") or ".gluon" in type(fn).__module__


class _WarmKernel:
    """What ``kernel.warmup(...)`` gives a script whose launches are captured (or re-driven for new
    sizes): the compile facts its own arithmetic reads (``n_regs``, ``n_spills``,
    ``metadata.shared``; ``_init_handles()`` has nothing left to do) and ``[grid](...)``, which
    goes through ``launch(fn, grid, args, kwargs)`` with the warmup's keyword arguments
    (``num_warps``, constexprs) added where the launch does not pass them, by position or by name.
    On a GPU the facts, and any other attribute, are the real compiled kernel's: its own
    ``[grid](...)`` would launch past ``JITFunction.run``, unseen."""

    def __init__(self, fn: Any, kwargs: dict, launch: Any, facts: tuple[int, int, Any], compiled: Any = None) -> None:
        self._fn, self._kwargs, self._launch, self._compiled = fn, dict(kwargs), launch, compiled
        self.n_regs, self.n_spills, self.metadata = facts

    def _init_handles(self) -> None:
        pass

    def __getattr__(self, name: str) -> Any:  # asm, name, … where a real compiled kernel is behind
        compiled = self.__dict__.get("_compiled")
        if compiled is None or name.startswith("__"):
            raise AttributeError(name)
        return getattr(compiled, name)

    def __getitem__(self, grid: Any) -> Any:
        def launch(*args: Any, **kwargs: Any) -> Any:
            params = list(inspect.signature(self._fn.fn).parameters)
            given = set(params[:len(args)]) | set(kwargs)
            extra = {k: v for k, v in self._kwargs.items() if k not in given}
            return self._launch(self._fn, grid, args, {**extra, **kwargs})
        return launch


class _Metadata:
    def __init__(self, shared: int, kwargs: dict) -> None:
        self.shared = shared
        self.num_warps = int(kwargs.get("num_warps", 4))
        self.num_stages = int(kwargs.get("num_stages", 3))


#: what a warmup reports where nothing could be compiled: 32 registers and 1 KiB of shared memory
#: (not 0: a script dividing by it, as 02-fused-softmax does, goes on)
STAND_IN_FACTS = (32, 1024)


def warm_kernel(fn: Any, args: tuple, kwargs: dict, grid: Any, launch: Any, notes: list[str], *,
                real_run: Any = None) -> _WarmKernel:
    """``fn.warmup(*args, grid=grid, **kwargs)`` for a script run here: with ``real_run`` (a GPU)
    the real warmup's compiled kernel; without, facts compiled for the emulated GPU."""
    if real_run is not None:
        compiled = real_run(fn, *args, grid=grid, warmup=True, **kwargs)
        compiled._init_handles()
        return _WarmKernel(fn, kwargs, launch, (compiled.n_regs, compiled.n_spills, compiled.metadata), compiled)
    return _WarmKernel(fn, kwargs, launch, _compile_facts(fn, args, kwargs, notes))


def _compile_facts(fn: Any, args: tuple, kwargs: dict, notes: list[str]) -> tuple[int, int, _Metadata]:
    """Registers, spills and shared memory of ``fn`` compiled for the emulated GPU (the compile
    cache makes a second warmup of the same specialization free); the stand-in's where it cannot
    be compiled here. The notes say which."""
    name = fn.fn.__name__
    regs, shared = STAND_IN_FACTS
    stand_in = f"the script saw a stand-in's {regs} registers and {shared} bytes of shared memory"
    try:
        from ..compile.target import compile_jit_for_target  # CPU-side compile for the emulated GPU
    except ImportError:
        notes.append(f"kernel.warmup: {name} cannot be compiled here; {stand_in}")
        return regs, 0, _Metadata(shared, kwargs)
    try:
        facts = compile_jit_for_target(fn, args, kwargs, target=EMULATED_TARGET, keep_asm=False)
    except Exception as e:  # noqa: BLE001 - facts are a courtesy to the script's arithmetic
        notes.append(f"kernel.warmup: compiling {name} for {EMULATED_TARGET} here failed "
                     f"({str(e).splitlines()[0] if str(e) else type(e).__name__}); {stand_in}")
        return regs, 0, _Metadata(shared, kwargs)
    regs, spills, shared = int(facts.n_regs or 0), int(facts.n_spills or 0), int(facts.shared_bytes or 0)
    notes.append(f"kernel.warmup: {name} compiled here for {EMULATED_TARGET} (no GPU involved): {regs} "
                 f"registers, {spills} spills, {shared} bytes of shared memory — what the script's arithmetic read")
    return regs, spills, _Metadata(shared, kwargs)


# ---------------------------------------------------------------------------------------------------
# the patches


@contextlib.contextmanager
def _patched(cap: _Capture) -> Iterator[None]:
    import triton.testing as tt
    from triton.runtime import autotuner
    from triton.runtime.jit import JITFunction

    saved = {"run": JITFunction.__dict__["run"], "at": autotuner.Autotuner.__dict__["run"],
             "heur": autotuner.Heuristics.__dict__["run"], "bench": autotuner.Autotuner.__dict__["_bench"]}
    saved_tt = {n: getattr(tt, n) for n in ("do_bench", "do_bench_cudagraph") if hasattr(tt, n)}
    saved_mark = getattr(tt, "Mark", None) and tt.Mark.__dict__.get("run")
    real_run = saved["run"]

    def run(self: Any, *args: Any, grid: Any, warmup: bool, **kwargs: Any) -> Any:
        if warmup:
            return warm_kernel(self, args, kwargs, grid, lambda f, g, a, kw: cap.launch(f, g, a, kw, real_run),
                               cap.notes, real_run=None if cap.backend.is_interpreter else real_run)
        if cap.benchmarking:
            return real_run(self, *args, grid=grid, warmup=False, **kwargs)
        return cap.launch(self, grid, args, kwargs, real_run)

    def autotune_bench(self: Any, *args: Any, **kwargs: Any) -> Any:
        cap.benchmarking = True
        try:
            return saved["bench"](self, *args, **kwargs)
        finally:
            cap.benchmarking = False

    def autotune_run(self: Any, *args: Any, **kwargs: Any) -> Any:
        if not cap.backend.is_interpreter:  # Triton benchmarks on the GPU; the final launch is captured
            cap.pending_autotune = (list(self.configs), -1)
            cap.pending_restore = [(t, t.detach().clone()) for t in (*args, *kwargs.values())
                                   if isinstance(t, torch.Tensor)]
            named = {**dict(zip(self.arg_names, args, strict=False)), **kwargs}  # and what tables and
            met = [r.tensor for r in pointer_tables.find(named)] + list(descriptors.bases(named).values())
            cap.pending_restore += [(t, t.detach().clone()) for t in met]  # descriptors reach (08's C)
            n = len(cap.live)
            ret = saved["at"](self, *args, **kwargs)
            if len(cap.live) > n and self.best_config in self.configs:
                cap.live[-1].autotune_choice = self.configs.index(self.best_config)
            return ret
        self.nargs = dict(zip(self.arg_names, args, strict=False))
        name = getattr(self.base_fn, "__name__", "")
        choice = min(max(0, cap.choices.get(name, 0)), len(self.configs) - 1)
        config = self.configs[choice]
        self.best_config = config
        if config.pre_hook is not None:
            config.pre_hook({**self.nargs, **kwargs, **config.all_kwargs()})
        cap.pending_autotune = (list(self.configs), choice)
        try:
            return self.fn.run(*args, **kwargs, **config.all_kwargs())
        finally:
            self.nargs = None

    def heuristics_run(self: Any, *args: Any, **kwargs: Any) -> Any:
        cap.pending_heuristics = dict(self.values)
        return saved["heur"](self, *args, **kwargs)

    def benchmark_reached(what: str, real: Any = None) -> Any:
        def stop(*a: Any, **k: Any) -> Any:
            if cap.benchmarking and real is not None:  # Triton's autotuner timing its configs (GPU)
                return real(*a, **k)
            if not cap.live and a and callable(a[0]):  # launches only inside its benchmark: one call of it
                cap.notes.append(f"the script launched nothing before its benchmark ({what}): the launches "
                                 "of one call of the function it measures were captured")
                a[0]()
            s = StopScript()
            s.reason = f"it reached its benchmark ({what})"
            raise s
        return stop

    try:
        JITFunction.run = run
        autotuner.Autotuner.run = autotune_run
        autotuner.Autotuner._bench = autotune_bench
        autotuner.Heuristics.run = heuristics_run
        for n in saved_tt:
            setattr(tt, n, benchmark_reached(f"triton.testing.{n}", saved_tt[n]))
        if saved_mark is not None:
            def mark_run(self: Any, *a: Any, **k: Any) -> Any:
                if not cap.live:  # nothing launched yet: its first point runs, up to do_bench (above)
                    _first_point(self)
                return benchmark_reached("triton.testing.perf_report")(self, *a, **k)
            tt.Mark.run = mark_run
        yield
    finally:
        JITFunction.run = saved["run"]
        autotuner.Autotuner.run = saved["at"]
        autotuner.Autotuner._bench = saved["bench"]
        autotuner.Heuristics.run = saved["heur"]
        for n, f in saved_tt.items():
            setattr(tt, n, f)
        if saved_mark is not None:
            tt.Mark.run = saved_mark


def _first_point(mark: Any) -> None:
    """Call a ``perf_report``'s function at the first point of its first benchmark (no table, no
    plot: those need pandas and matplotlib)."""
    benches = mark.benchmarks if isinstance(mark.benchmarks, (list, tuple)) else [mark.benchmarks]
    b = benches[0]
    x = b.x_vals[0]
    xs = list(x) if isinstance(x, (list, tuple)) else [x] * len(b.x_names)
    mark.fn(**dict(zip(b.x_names, xs, strict=False)), **({b.line_arg: b.line_vals[0]} if b.line_vals else {}),
            **dict(b.args or {}))


@contextlib.contextmanager
def _time_budget(budget_s: float) -> Iterator[None]:
    """Raise ``_OutOfTime`` in this thread after ``budget_s`` (between bytecodes: a ``while
    True: pass`` is stopped too). In the main thread (the worker's requests run there) a timer
    signal raises it, which also ends a blocking call outside any kernel (``time.sleep``, a read,
    a lock: the call is interrupted and the handler's exception comes out of it); elsewhere an
    exception is set asynchronously, which waits for the next bytecode."""
    if threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer"):
        with _alarm_budget(budget_s):
            yield
        return
    tid = threading.get_ident()
    done = threading.Event()

    def fire() -> None:
        if not done.wait(budget_s):
            ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(tid), ctypes.py_object(_OutOfTime))

    t = threading.Thread(target=fire, daemon=True, name="tilescope-script-budget")
    t.start()
    try:
        yield
    finally:
        done.set()
        t.join()


@contextlib.contextmanager
def _alarm_budget(budget_s: float) -> Iterator[None]:
    """``_OutOfTime`` from a SIGALRM after ``budget_s`` (nested budgets: the earliest wins; the
    outer one's timer and handler are put back)."""
    old_handler = signal.getsignal(signal.SIGALRM)
    old_left, _ = signal.getitimer(signal.ITIMER_REAL)
    if 0 < old_left <= budget_s:  # an outer budget ends first: it stays in charge
        yield
        return

    def fire(_sig: int, _frame: Any) -> None:
        raise _OutOfTime()

    signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, max(budget_s, 1e-3))
    t0 = time.monotonic()
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old_handler)
        if old_left > 0:  # the outer budget goes on with what it has left
            signal.setitimer(signal.ITIMER_REAL, max(old_left - (time.monotonic() - t0), 1e-3))


def _note_error(out: ScriptCapture, e: BaseException, path: str) -> None:
    line = 0
    for fs in traceback.extract_tb(e.__traceback__):
        if os.path.realpath(fs.filename) == path:
            line = fs.lineno or 0
    msg = str(e).splitlines()[0] if str(e) else ""
    where = f"{os.path.basename(path)}:{line}" if line else os.path.basename(path)
    out.error, out.error_line = f"{where}: {type(e).__name__}: {msg}".rstrip(": "), line
    if isinstance(e, ModuleNotFoundError):
        out.missing_module = e.name or ""
        pip = _pip_name(out.missing_module)
        if pip:
            out.error += f" — pip install {pip}"


#: import names whose pip package is named otherwise
_PIP_NAMES = {"yaml": "pyyaml", "cv2": "opencv-python", "sklearn": "scikit-learn", "PIL": "pillow",
              "skimage": "scikit-image", "bs4": "beautifulsoup4"}


def _pip_name(module: str) -> str:
    """The package to install for a missing top-level module ("" when the top level is installed:
    a submodule that is missing is no pip install away)."""
    import importlib.util

    top = module.split(".")[0]
    if not top:
        return ""
    try:
        if importlib.util.find_spec(top) is not None:
            return ""
    except (ImportError, ValueError):
        return ""
    return _PIP_NAMES.get(top, top)


def _keep_source(path: str) -> None:
    """The script's text in ``linecache`` for as long as this process lives, kept there even if
    the file goes (a script that deletes itself as it starts): Triton reads a ``@jit`` function's
    source through ``inspect`` when it is defined and when it compiles."""
    import linecache

    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError:
        return
    # mtime None: linecache.checkcache never drops the entry
    linecache.cache[path] = (len(text), None, text.splitlines(keepends=True), path)


def capture(path: str, backend: Backend, *, budget_s: float = 30.0, max_launches: int = 16,
            choices: dict[str, int] | None = None) -> tuple[ScriptCapture, list[LiveLaunch]]:
    """Run the script at ``path`` with its launches captured. Never raises for what the script
    does (its error is ``ScriptCapture.error``, its launches kept); raises UserFileError only for
    a file that cannot be run at all."""
    real = os.path.realpath(path)
    if not os.path.isfile(real):
        raise UserFileError(f"kernel file not found: {path}", field="user_file")
    cap = _Capture(real, backend, max_launches, dict(choices or {}))
    cap.budget_s = float(budget_s)
    _keep_source(real)
    log = _Log()
    out = ScriptCapture(path=real, backend=backend.name)
    t0 = time.perf_counter()
    sys.path.insert(0, os.path.dirname(real))
    saved_argv, sys.argv = sys.argv, [real]  # the script's argparse sees its own command line, not ours
    on_cpu = cuda_on_cpu(real) if backend.is_interpreter else contextlib.nullcontext()
    vgpu = None
    try:
        # global_state.kept: what the script sets for the whole process (torch's default device,
        # the environment, the working folder…) is put back after it, for the worker's later requests
        with global_state.kept(cap.notes), contextlib.redirect_stdout(log), contextlib.redirect_stderr(log), \
                on_cpu as vgpu, _patched(cap), _time_budget(budget_s):
            runpy.run_path(real, run_name="__main__")
    except _OutOfTime:
        out.stopped = f"stopped after {budget_s:g} s (the script was still running)"
        if cap.in_launch:  # inside a launch: not kept (it never finished); say which, and what helps
            out.stopped += (f", inside the launch of {cap.in_launch}"
                            + (" under the interpreter" if backend.is_interpreter else "")
                            + " — give it longer with --budget")
    except StopScript as s:
        out.stopped = f"stopped: {s.reason}"
    except SystemExit as e:
        if e.code not in (None, 0):
            out.error = f"{os.path.basename(real)}: exited with status {e.code}"
    except KeyboardInterrupt:
        raise
    except BaseException as e:  # noqa: BLE001 - the script's own failure is reported, launches kept
        _note_error(out, e, real)
    finally:
        sys.argv = saved_argv
        try:
            sys.path.remove(os.path.dirname(real))
        except ValueError:
            pass
    cap.snapshots.settle(cap.notes)  # copies made on the GPU while the script ran: room for the checks
    out.wall_s = time.perf_counter() - t0
    out.log, out.log_lines = log.text(), log.n
    if not cap.live and not out.error and not out.stopped and vgpu is not None and vgpu.asked:
        printed = [ln for ln in out.log.splitlines() if ln.strip()]
        out.stopped = lacking(vgpu, printed[-1] if printed else "")  # a GPU the virtual one is not?
    elif not cap.live and vgpu is not None and vgpu.asked and \
            any(f": {t}:" in out.error for t in ("RuntimeError", "AssertionError", "NotImplementedError")):
        out.error += after_error(vgpu)  # raised after asking what the GPU is: which one it was told
    if vgpu is not None and vgpu.asked:
        g = vgpu.gpu
        cap.notes.append(f"the script's device checks were answered by a virtual {g.arch} ({g.name}, "
                         f"{g.multiprocessor_count} SMs; no GPU here): another with --virtual-gpu")
    out.notes = list(dict.fromkeys(cap.notes))
    return out, cap.live
