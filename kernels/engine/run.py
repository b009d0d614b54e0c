"""One run: prepare, launch on the chosen backend, check, time, read compile facts.

``run(req)`` never raises for bad input or a failing kernel: every failure is
``RunResult.error`` (kinds: validation, compile, launch, out_of_bounds, oom, interpreter,
user_file, cancelled, internal). Under the interpreter every access is checked against the
tensor arguments' storages first (``kernels.interp.AccessGuard``): a kernel addressing memory it
does not own stops with ``out_of_bounds`` instead of crashing the process.

Progress is reported as ``progress(Progress)`` with stages "compiling", "running" (programs done
of the grid under the interpreter), "checking", "timing", then "done"; ``cancel()`` is polled
between stages.

A window's runs pass a ``LiveCache`` (the worker keeps one): a repeated run with the same shapes,
dtype and seed — another block size or ``num_warps`` — reuses the inputs, the references, the
compile facts of a kernel compiled before, and is timed with the interactive budget of the timing
policy (``kernels.run.timing.LIVE``: the click's point within half a second). The check itself is
never cached: every launch starts from outputs poisoned (or restored) by ``prepare`` and is
compared again.

Timing (``kernels.run.timing``, one policy for run, bench, sweep and the window): the GPU is
warmed with the kernel until its clock is steady, torch's baseline is timed interleaved with the
kernel (the ratio of two numbers taken under the same clocks), and the clocks go with the result
(``RunResult.clocks``). The peak beside the figure (``kernels.run.peaks``) is the best cuBLAS
shape for the kernel's dtype (or device copy); a figure above it makes the peak measure again.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch
import triton

from ..compile import facts as compiled
from ..data.backends import GPU
from ..data.errors import Cancelled, first_line, to_error_info
from ..data.grid import n_programs
from ..data.results import CompileFacts, Progress, RunRequest, RunResult, Timing
from ..run import bench, check, device, peaks, timing
from ..run.backends import with_options
from ..run.memory import budgets
from ..run.prepare import InputCache, Prepared, prepare
from ..sources.lookup import get_spec
from ..specs.spec import KernelSpec

__all__ = ["run", "LiveCache", "MAX_ASM_CHARS", "ProgressFn", "CancelFn"]

ProgressFn = Callable[[Progress], None]
CancelFn = Callable[[], bool]

#: the longest IR text a window's run ships (per text); longer ones are cut at a line and say so
MAX_ASM_CHARS = 1 << 21
_MAX_KEPT = 16  # torch timings and compiled kernels a LiveCache keeps (oldest dropped first)


@dataclass
class _Refs:
    """References computed for one set of inputs, and what of the run's values they read."""

    key: Any  # the InputCache key of the inputs they were computed from
    read: tuple[str, ...] | None  # the values the reference read; None: it looked at all of them
    values: tuple  # those values, as repr
    refs: dict[str, Any]

    def fits(self, key: Any, cfg: dict[str, Any]) -> bool:
        return key == self.key and self.values == _read_values(cfg, self.read)


def _read_values(cfg: dict[str, Any], read: tuple[str, ...] | None) -> tuple:
    names = sorted(cfg) if read is None else read
    return tuple((k, repr(cfg.get(k, _MISSING))) for k in names)


_MISSING = object()


class _ReadCfg(dict):
    """The run's values as ``spec.reference`` sees them, noting which it reads: references are
    reused only while those agree (one reading BLOCK_SIZE is computed again when it changes).
    Anything that walks or copies the whole dict counts as reading all of it."""

    def __init__(self, cfg: dict[str, Any]) -> None:
        super().__init__(cfg)
        self.read: set[str] = set()
        self.everything = False

    def __getitem__(self, k: Any) -> Any:
        self.read.add(k)
        return super().__getitem__(k)

    def get(self, k: Any, default: Any = None) -> Any:
        self.read.add(k)
        return super().get(k, default)

    def __contains__(self, k: Any) -> bool:
        self.read.add(k)
        return super().__contains__(k)

    def _all(self, *_: Any) -> Any:
        self.everything = True

    def __iter__(self):  # also makes dict(cfg), {**cfg} and f(**cfg) go through keys()
        self._all()
        return super().__iter__()

    def keys(self):
        self._all()
        return super().keys()

    def items(self):
        self._all()
        return super().items()

    def values(self):
        self._all()
        return super().values()

    def copy(self) -> dict:
        self._all()
        return dict(super().items())

    def __or__(self, other: Any) -> Any:
        self._all()
        return dict(super().items()) | other

    def __ror__(self, other: Any) -> Any:
        self._all()
        return other | dict(super().items())

    def __eq__(self, other: object) -> bool:
        self._all()
        return super().__eq__(other)

    __hash__ = None  # type: ignore[assignment]

    def __reduce_ex__(self, protocol: Any) -> Any:
        self._all()
        return dict, (dict(super().items()),)

    def read_keys(self) -> tuple[str, ...] | None:
        return None if self.everything else tuple(sorted(str(k) for k in self.read))


@dataclass
class LiveCache(InputCache):
    """What the worker keeps between a window's runs (see the module doc).

    - the inputs (``InputCache``): built again when the kernel, a shape, the dtype, a flag or the
      seed changes; before every launch ``prepare`` still poisons the floating outputs with NaN
      and restores the others and the in-place ones;
    - the references computed from those inputs, with the values they read; not for specs with
      in-place outputs (their reference sees what the launch left), not when they would take more
      than a quarter of the free memory, and dropped with the inputs — after a failed check or a
      launch error too;
    - the torch baseline's CPU timing per kernel, shapes, dtype and flags for interpreter runs (on a
      GPU torch is timed beside every run, interleaved with the kernel);
    - the compile facts of each compiled kernel (its SASS comes from a cuobjdump process).
    Its runs are timed with the timing policy's LIVE budget (``kernels.run.timing``).
    """

    refs: _Refs | None = None
    torch_timings: dict[Any, Timing] = field(default_factory=dict)
    facts: dict[int, tuple[Any, bool, CompileFacts, list[str]]] = field(default_factory=dict)

    def clear(self) -> None:
        super().clear()
        self.refs = None

    def release(self) -> None:
        """Forget everything (another kind of request needs the memory)."""
        self.clear()
        self.torch_timings.clear()
        self.facts.clear()

    def kernel_facts(self, ck: Any, keep_asm: bool) -> tuple[CompileFacts, list[str]]:
        """``compiled.kernel_facts`` of a compiled kernel, once per kernel (a copy each call)."""
        got = self.facts.get(id(ck))
        if got is None or got[0] is not ck or got[1] != keep_asm:
            facts, notes = compiled.kernel_facts(ck, keep_asm)
            got = (ck, keep_asm, facts, notes)  # the kernel is held: its id stays its own
            _put(self.facts, id(ck), got)
        return dataclasses.replace(got[2], asm=dict(got[2].asm)), list(got[3])


def _put(d: dict, key: Any, value: Any) -> None:
    d.pop(key, None)
    d[key] = value
    while len(d) > _MAX_KEPT:
        d.pop(next(iter(d)))


@dataclass
class _State:
    stage: str = "preparing"
    notes: list[str] = field(default_factory=list)


def run(req: RunRequest, progress: ProgressFn | None = None, cancel: CancelFn | None = None,
        _cache: InputCache | None = None, _torch_timing: Any = None) -> RunResult:
    """Run one configuration; every failure is returned in ``RunResult.error``."""
    t0 = time.perf_counter()
    res = RunResult(request=req, kernel=req.kernel, values=dict(req.values), backend=req.backend,
                    device="", generation=req.generation)
    res.triton_version = triton.__version__
    res.torch_version = torch.__version__
    st = _State()
    try:
        spec = get_spec(req.kernel, req.user_file)
        _run_spec(res, spec, req, st, progress, cancel, _cache, _torch_timing)
    except Exception as e:  # noqa: BLE001 - the engine reports, it does not raise
        res.error = to_error_info(e, st.stage)
        if res.error.kind == "launch" and "illegal" in res.error.message.lower():
            res.error.message += " — the CUDA context is now unusable: restart the worker"
        if _cache is not None and res.error.kind in ("launch", "oom"):
            _cache.clear()
    res.notes = st.notes + [n for n in res.notes if n not in st.notes]
    res.wall_s = time.perf_counter() - t0
    return res


def tick(progress: ProgressFn | None, cancel: CancelFn | None, stage: str, fraction: float) -> None:
    if cancel is not None and cancel():
        raise Cancelled(f"cancelled before {stage}")
    if progress is not None:
        progress(Progress(stage, fraction))


def _run_spec(res: RunResult, spec: KernelSpec, req: RunRequest, st: _State, progress: ProgressFn | None,
              cancel: CancelFn | None, cache: InputCache | None, torch_timing_given: Any) -> None:
    res.values = spec.config(req.values)
    st.stage = "building inputs"
    p = prepare(spec, req.values, req.backend, req.seed, cache)
    res.values, res.backend, res.device = dict(p.cfg), p.backend.name, p.backend.device_name
    st.notes.extend(p.notes)
    tick(progress, cancel, "compiling", 0.05)
    st.stage = "launch"
    ret, launch_ms = _launch(p, st, progress, req.launch_options)
    # the grid the launch really ran where the backend saw it; else the spec's formula
    grid = p.backend.grids[0] if p.backend.grids else p.grid
    res.grid = tuple(int(g) for g in grid) if grid is not None else ()
    # -- check -----------------------------------------------------------------------------------
    tick(progress, cancel, "checking", 0.45)
    st.stage = "checking"
    live = cache if isinstance(cache, LiveCache) else None
    refs = _references(spec, p, live)
    atol, rtol = spec.tolerance(p.cfg)
    res.check = check.check_outputs(p.tensors, refs.refs, spec.outputs, atol, rtol, str(p.cfg.get("dtype", "")),
                                    req.keep_error_map)
    if not res.check.passed and cache is not None:
        cache.clear()  # a kernel that writes where it should not may have touched the inputs
    elif live is not None and live.refs is not refs:
        _keep_references(live, spec, p, refs)
    del refs
    # -- timing ----------------------------------------------------------------------------------
    t_ = torch_timing = None
    if req.bench:
        tick(progress, cancel, "timing", 0.6)
        st.stage = "timing"
        if torch_timing_given is None and live is not None and p.backend.is_interpreter:
            torch_timing_given = live.torch_timings.get(p.data_key)
        t_, torch_timing, res.clocks = _time(p, req, launch_ms, torch_timing_given, live)
        if live is not None and p.data_key is not None and torch_timing is not None:
            _put(live.torch_timings, p.data_key, torch_timing)
    res.timing = t_
    res.metrics = _metrics(spec, p, res, t_, torch_timing, st)
    # -- compile facts ---------------------------------------------------------------------------
    if req.compile_facts:
        st.stage = "reading compile facts"
        _compile_facts(res, p, req, st, ret, live)
    tick(progress, None, "done", 1.0)


def _references(spec: KernelSpec, p: Prepared, live: LiveCache | None) -> _Refs:
    """The live cache's references when they were computed from these inputs with the same values
    read; else computed now (after the launch, as always), noting what they read."""
    if live is None:  # nothing to reuse them for: the reference sees the values as they are
        return _Refs(None, None, (), spec.reference(p.tensors, p.cfg))
    if live.refs is not None and live.refs.fits(live.key, p.cfg) and p.reused:
        return live.refs
    seen = _ReadCfg(p.cfg)
    refs = spec.reference(p.tensors, seen)
    read = seen.read_keys()
    return _Refs(live.key, read, _read_values(p.cfg, read), refs)


def _keep_references(live: LiveCache, spec: KernelSpec, p: Prepared, refs: _Refs) -> None:
    """Keep references that passed a check with the inputs they were computed from — unless the
    inputs are not the cache's, an output is updated in place (its reference read what the launch
    left), or they would hold more than a quarter of the memory still free."""
    live.refs = None
    if spec.inplace or live.key is None or live.tensors is not p.tensors or refs.key != live.key:
        return
    nbytes = sum(t.numel() * t.element_size() for t in refs.refs.values() if isinstance(t, torch.Tensor))
    free = budgets(p.backend).get("cpu" if p.backend.is_interpreter else "cuda")
    if free is not None and nbytes > free / 4:
        return
    live.refs = refs


def _launch(p: Prepared, st: _State, progress: ProgressFn | None, options: dict[str, Any]) -> tuple[Any, float]:
    """Launch once; (what the launcher returned, wall ms). Sets nothing on the result but notes."""
    be = p.backend
    t_next = [time.perf_counter() + 0.5]

    def program_progress(pid: int, n: int) -> None:
        # interpreted launches run program by program: a long one reports how far it got
        now = time.perf_counter()
        if progress is not None and now >= t_next[0]:
            t_next[0] = now + 0.25
            progress(Progress("running", 0.05 + 0.25 * pid / max(1, n), pid, n, "programs"))

    with be.activate(p.spec.kernels, progress=program_progress) as K:
        t_launch = time.perf_counter()
        ret = p.launch(with_options(K, options))
        if not be.is_interpreter:
            tick(progress, None, "running", 0.3)
            torch.cuda.synchronize()
        launch_ms = (time.perf_counter() - t_launch) * 1e3
    st.notes.extend(n for n in be.run_notes if n not in st.notes)
    if be.is_interpreter:
        tick(progress, None, "running", 0.3)
    return ret, launch_ms


def _time(p: Prepared, req: RunRequest, launch_ms: float, torch_timing_given: Any,
          live: LiveCache | None) -> tuple[Timing, Timing | None, Any]:
    """(the kernel's timing, torch's or None, the clocks): the timing policy on a GPU (warmed,
    torch interleaved), the launch's wall clock under the interpreter."""
    spec, be, tensors, cfg = p.spec, p.backend, p.tensors, p.cfg
    with_torch = req.torch_baseline and spec.torch_op is not None
    if be.is_interpreter:
        # the launch was the timed run: the interpreter's speed is Python's, not a GPU's
        t_ = bench.timing_from_samples([launch_ms], bench.INTERPRETER_METHOD, True)
        torch_timing = None
        if with_torch:
            torch_timing = torch_timing_given or bench.wall_time(
                lambda: spec.torch_op(tensors, cfg), reps=21, method=bench.CPU_TORCH_METHOD,
                is_interpreter=False, budget_s=0.5)
        return t_, torch_timing, timing.clocks_unknown("clocks unknown: the interpreter runs on the CPU")
    with be.activate(spec.kernels, note_grids=False) as K:
        K = with_options(K, req.launch_options)
        fns = [lambda: p.launch(K)]
        if with_torch:
            fns.append(lambda: spec.torch_op(tensors, cfg))
        m = timing.measure(fns, timing.LIVE if live is not None else timing.FULL)
    return m.timings[0], (m.timings[1] if with_torch else None), m.clocks


def _metrics(spec: KernelSpec, p: Prepared, res: RunResult, t_: Timing | None, torch_timing: Timing | None,
             st: _State) -> Any:
    """The figures, against the peak for the kernel's metric and dtype (re-measured when the
    figure is above it: ``kernels.run.peaks``)."""
    nbytes, flops = spec.bytes_moved(p.cfg), spec.flops(p.cfg)
    m = bench.metrics(nbytes, flops, t_, torch_timing)
    m.torch_interleaved = bool(torch_timing is not None and not p.backend.is_interpreter)
    if t_ is None or p.backend.is_interpreter:
        return m
    figure = m.tflops if spec.metric == "TFLOP/s" else m.gbps
    if figure is None:
        return m
    try:
        got = peaks.peak_for(spec.metric, str(p.cfg.get("dtype", "")), figure, f"a {spec.name} run")
    except Exception as e:  # noqa: BLE001 - a failed peak measurement loses only the %
        st.notes.append(f"device peak not measured: {first_line(str(e))}")
        return m
    if got is None:
        return m
    pk, copy_peak, matmul_peak = got
    m = bench.metrics(nbytes, flops, t_, torch_timing, copy_peak, matmul_peak)
    m.torch_interleaved = torch_timing is not None
    m.peak_source, m.peak_datasheet = pk.source, pk.datasheet
    if pk.remeasured:
        st.notes.append(f"a run above the peak made it measure again: {pk.label(spec.metric)}")
    return m


def _compile_facts(res: RunResult, p: Prepared, req: RunRequest, st: _State, ret: Any,
                   live: LiveCache | None) -> None:
    if p.backend.is_interpreter:
        st.notes.append("compile facts (registers, shared memory, IR, occupancy) need a GPU: "
                        "the interpreter does not compile")
    elif ret is None or not hasattr(ret, "metadata"):
        st.notes.append("the launcher returned no compiled kernel: compile facts unavailable")
    else:
        limits = device.device_facts(GPU).limits
        n = n_programs(res.grid) if res.grid else 0
        if live is None:
            res.compile, notes = compiled.compile_facts(ret, n, limits, req.keep_asm)
        else:  # a kernel compiled before: its facts (and SASS) from the cache, the occupancy for this grid
            res.compile, notes = live.kernel_facts(ret, req.keep_asm)
            notes += compiled.add_occupancy(res.compile, n, limits)
            notes += _cap_asm(res.compile)
        st.notes.extend(notes)


def _cap_asm(facts: CompileFacts) -> list[str]:
    """Cut IR texts longer than MAX_ASM_CHARS at a line (a window shows each in a text view)."""
    cut = []
    for k, text in facts.asm.items():
        if isinstance(text, str) and len(text) > MAX_ASM_CHARS:
            end = text.rfind("\n", 0, MAX_ASM_CHARS)
            end = end if end > 0 else MAX_ASM_CHARS
            more = len(text) - end
            facts.asm[k] = (text[:end] + f"\n… {more:,} more characters not sent to the window "
                            f"(`tilescope run --json --asm` prints all of it)\n")
            cut.append(f"{k} ({math.ceil(len(text) / (1 << 20))} MiB)")
    return [f"IR cut for the window at {MAX_ASM_CHARS >> 20} MiB each: {', '.join(cut)}"] if cut else []
