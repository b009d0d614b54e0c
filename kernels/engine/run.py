"""One run: prepare, launch on the chosen backend, check, time, read compile facts.

``run(req)`` never raises for bad input or a failing kernel: every failure is
``RunResult.error`` (kinds: validation, compile, launch, out_of_bounds, oom, interpreter,
user_file, cancelled, internal). Under the interpreter every access is checked against the
tensor arguments' storages first (``kernels.interp.AccessGuard``): a kernel addressing memory it
does not own stops with ``out_of_bounds`` instead of crashing the process.

Progress is reported as ``progress(Progress)`` with stages "compiling", "running" (programs done
of the grid under the interpreter), "checking", "timing", then "done"; ``cancel()`` is polled
between stages.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch
import triton

from .. import bench, check, compiled, device
from ..backends import with_options
from ..data.errors import Cancelled, first_line, to_error_info
from ..data.grid import n_programs
from ..data.results import Progress, RunRequest, RunResult
from ..lookup import get_spec
from ..prepare import InputCache, Prepared, prepare
from ..spec import KernelSpec

__all__ = ["run", "ProgressFn", "CancelFn"]

ProgressFn = Callable[[Progress], None]
CancelFn = Callable[[], bool]


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
    refs = spec.reference(p.tensors, p.cfg)
    atol, rtol = spec.tolerance(p.cfg)
    res.check = check.check_outputs(p.tensors, refs, spec.outputs, atol, rtol, str(p.cfg.get("dtype", "")),
                                    req.keep_error_map)
    del refs
    if not res.check.passed and cache is not None:
        cache.clear()  # a kernel that writes where it should not may have touched the inputs
    # -- timing ----------------------------------------------------------------------------------
    timing = torch_timing = None
    peaks: tuple[float | None, float | None] = (None, None)
    if req.bench:
        tick(progress, cancel, "timing", 0.6)
        st.stage = "timing"
        timing, torch_timing, peaks = _time(p, req, st, launch_ms, torch_timing_given)
    res.timing = timing
    res.metrics = bench.metrics(spec.bytes_moved(p.cfg), spec.flops(p.cfg), timing, torch_timing, *peaks)
    # -- compile facts ---------------------------------------------------------------------------
    if req.compile_facts:
        st.stage = "reading compile facts"
        _compile_facts(res, p, req, st, ret)
    tick(progress, None, "done", 1.0)


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


def _time(p: Prepared, req: RunRequest, st: _State, launch_ms: float,
          torch_timing_given: Any) -> tuple[Any, Any, tuple[float | None, float | None]]:
    spec, be, tensors, cfg = p.spec, p.backend, p.tensors, p.cfg
    torch_timing = None
    if be.is_interpreter:
        # the launch was the timed run: the interpreter's speed is Python's, not a GPU's
        timing = bench.timing_from_samples([launch_ms], bench.INTERPRETER_METHOD, True)
        if req.torch_baseline and spec.torch_op is not None:
            torch_timing = torch_timing_given or bench.wall_time(
                lambda: spec.torch_op(tensors, cfg), reps=21, method=bench.CPU_TORCH_METHOD,
                is_interpreter=False, budget_s=0.5)
        return timing, torch_timing, (None, None)
    with be.activate(spec.kernels, note_grids=False) as K:
        K = with_options(K, req.launch_options)
        timing = bench.gpu_time(lambda: p.launch(K))
    if req.torch_baseline and spec.torch_op is not None:
        torch_timing = torch_timing_given or bench.gpu_time(lambda: spec.torch_op(tensors, cfg))
    try:
        pk = device.peaks()
    except Exception as e:  # noqa: BLE001 - a failed peak measurement loses only the %
        st.notes.append(f"device peaks not measured: {first_line(str(e))}")
        return timing, torch_timing, (None, None)
    return timing, torch_timing, (pk.copy_gbps, pk.matmul_tflops)


def _compile_facts(res: RunResult, p: Prepared, req: RunRequest, st: _State, ret: Any) -> None:
    if p.backend.is_interpreter:
        st.notes.append("compile facts (registers, shared memory, IR, occupancy) need a GPU: "
                        "the interpreter does not compile")
    elif ret is None or not hasattr(ret, "metadata"):
        st.notes.append("the launcher returned no compiled kernel: compile facts unavailable")
    else:
        limits = device.device_facts("gpu").limits
        res.compile, notes = compiled.compile_facts(ret, n_programs(res.grid) if res.grid else 0, limits,
                                                    req.keep_asm)
        st.notes.extend(notes)
