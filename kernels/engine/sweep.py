"""Sweeps: run every point of a space of configs; best = the fastest passing point.

The space (``kernels.data.tuning.space``): every combination of the request's axes, each combined with
each of its explicit configs, minus the points a ``where`` constraint excludes and those already
done (``skip``). Grid mode (the sweep view's) takes one or two axes; tune mode any number.

Before anything compiles, configs that cannot fit are pruned (``kernels.tune.limits``: shared
memory, registers, block size); each pruned point is reported with its reason. On a GPU the
remaining configs compile ahead in a pool on the CPU cores while the GPU benchmarks the ones
compiled, one at a time (``kernels.tune.pipeline``) — until the first lands, the GPU runs torch's op
on the same inputs, so the first point is timed on a GPU already at its working clock; under the
interpreter they run one after another. Points stream out through ``on_point`` as they land; ``cancel()`` keeps what is done.
Tune mode then re-measures the fastest few of each data group, interleaved, ranks the points
with their spread, says when the winner is within the noise (``kernels.data.tuning.rank``), and adds
the export texts (``kernels.tune.export``).

Points whose data parameters agree share one set of inputs (``prepare.InputCache``); every point
still starts from reset outputs (see ``kernels.run.prepare``). GPU points are timed by the timing
policy (``kernels.run.timing.SWEEP``: warmed to a steady clock, clocks recorded); torch's time
depends on the data only, so it is measured once per input set — interleaved with that point —
and measured again beside a later point whose SM clock is no longer the one torch was timed at.

What cannot matter is never crowned: under the interpreter, launch options (num_warps,
num_stages, maxnreg) change nothing — each value runs the same Python — so points that differ
only in them are not ranked against each other: a grid sweep over them ranks the points of the
first value of each (and says so), and one over launch options alone names no winner.
"""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import triton

from ..data.backends import GPU
from ..data.backends import backend as backend_info
from ..data.errors import first_line, to_error_info
from ..data.params import ValidationError
from ..data.results import ErrorInfo, Progress, RunRequest, RunResult, SweepPoint, SweepRequest, SweepResult
from ..data.tuning import rank
from ..data.tuning.space import LAUNCH_OPTIONS, Space, build_space
from ..run import backends, bench, device, memory, peaks, timing
from ..run.backends import Backend
from ..run.prepare import InputCache, prepare
from ..sources.lookup import get_spec
from ..specs.spec import KernelSpec
from ..tune import limits as tlimits
from ..tune import pipeline, warm_start
from .run import CancelFn, LiveCache, ProgressFn, run

__all__ = ["sweep", "best_index", "plan_sweep", "SweepPlan"]

#: re-measured per data group when the request says None
REMEASURE_TOP = {"grid": 0, "tune": 3}
#: passes of the re-measurement loop (each times the current top few, interleaved)
MAX_REMEASURE_PASSES = 4
#: the first pass also re-measures this many next points by their first estimate: when one of the
#: top few is slower re-measured, the next is often re-measured already, and no second pass (the
#: whole top again) is needed for it
REMEASURE_SPARE = 1
_DATA_KINDS = ("shape", "dtype", "flag")


@dataclass
class _Job:
    index: int  # in the space's enumeration
    values: dict[str, Any]  # the varied parameters (SweepPoint.values)
    run_values: dict[str, Any]  # what the run gets: base and point, without the extra launch options
    options: dict[str, Any]  # launch options the spec has no parameter for (passed to the launch)
    cfg: dict[str, Any] | None  # validated values (None: the run reports why they are not valid)
    fit: tlimits.Fit
    data_key: Any


@dataclass
class SweepPlan:
    """What a sweep will do, decided before anything runs."""

    spec: KernelSpec
    backend: Backend
    space: Space
    jobs: list[_Job]
    data_names: list[str]  # varied data parameters (shapes, dtypes, flags): each combination is a group
    tuned_names: list[str]  # the other varied parameters
    extra_options: list[str]  # launch options passed around the spec's parameters
    remeasure_top: int
    notes: list[str] = field(default_factory=list)

    @property
    def n_pruned(self) -> int:
        return sum(1 for j in self.jobs if j.fit.reason)


def _refuse(message: str, field_: str | None = None) -> ValidationError:
    return ValidationError(message, field_)


def _check_shape_of_request(req: SweepRequest) -> None:
    names = list(req.axes)
    if req.mode not in ("grid", "tune"):
        raise _refuse(f"unknown sweep mode {req.mode!r} (grid or tune)", "mode")
    if req.mode == "grid":
        if req.configs:
            raise _refuse("explicit configs are a tune sweep: set mode='tune'", "configs")
        if not 1 <= len(names) <= 2:
            raise _refuse(f"a sweep takes one or two parameters, got {len(names)}"
                          + (f" ({', '.join(names)})" if names else ""))
    elif not names and not req.configs:
        raise _refuse("nothing to sweep: give axes or configs")


def _maxnreg_refusal() -> str:
    """Why maxnreg cannot be swept on this GPU and Triton ("" when it can)."""
    try:
        target = triton.runtime.driver.active.get_current_target()
        from triton.backends.nvidia.compiler import CUDAOptions
    except Exception as e:  # noqa: BLE001
        return f"maxnreg needs Triton's CUDA back end ({type(e).__name__}: {e})"
    if target.backend != "cuda":
        return f"maxnreg is a CUDA option; this GPU runs Triton's {target.backend} back end"
    if "maxnreg" not in getattr(CUDAOptions, "__dataclass_fields__", {}):
        return f"this Triton ({triton.__version__}) has no maxnreg option"
    return ""


def plan_sweep(req: SweepRequest) -> SweepPlan:
    """Validate the request, enumerate and prune its space. Raises ValidationError (and the
    engine's TilescopeErrors) for a request that cannot run at all."""
    spec = get_spec(req.kernel, req.user_file)
    _check_shape_of_request(req)
    be = backends.resolve(req.backend)
    space = build_space(spec.params, req.base, req.axes, req.configs, req.where, req.skip)
    notes: list[str] = []
    params = {p.name: p for p in spec.params}
    varied = [n for n in space.names if len({repr(v[n]) for v in space.points}) > 1]
    launch_varied = [n for n in varied if n in LAUNCH_OPTIONS or (n in params and params[n].kind == "launch")]
    if be.is_interpreter and req.mode == "tune" and launch_varied:
        n = launch_varied[0]
        raise _refuse(f"{n} has no effect under the interpreter (it runs each program as plain Python, "
                      "without warps, pipelining or registers): every value would time the same program. "
                      f"Sweep {n} on a GPU, or give it one value", n)
    extra = [n for n in LAUNCH_OPTIONS if n not in params and (n in space.names or n in req.base)]
    if extra and be.is_interpreter:
        notes.append(f"{', '.join(extra)}: launch options, no effect under the interpreter (not passed)")
    elif "maxnreg" in extra or ("maxnreg" in params and "maxnreg" in varied):
        why = _maxnreg_refusal()
        if why:
            raise _refuse(why, "maxnreg")
    limits = None
    if req.prune and req.target:
        try:
            limits = tlimits.limits_for_target(req.target)
        except ValueError as e:
            raise _refuse(str(e), "target") from None
        notes.append(f"pruned against the limits of {req.target}")
    elif req.prune and not be.is_interpreter:
        limits = device.device_facts(GPU).limits
    elif req.prune:
        notes.append("no device limits under the interpreter: only block sizes were checked before running "
                     "(give a target such as sm_90 to prune shared memory and registers for that GPU)")
    fixed_extra = {k: req.base[k] for k in extra if k in req.base}
    jobs = []
    for i, values in zip(space.indices, space.points, strict=True):
        options = {**fixed_extra, **{k: values[k] for k in extra if k in values and values[k] is not None}}
        run_values = {k: v for k, v in {**req.base, **values}.items() if k not in extra}
        v = spec.validate(run_values)
        cfg = dict(v.values) if v.ok else None
        fit = tlimits.Fit()
        if cfg is not None and req.prune:
            fit = tlimits.check_fit(spec, {**cfg, **options}, limits)
        key = tuple(cfg[p.name] for p in spec.params if p.kind in _DATA_KINDS) if cfg is not None else ("?", i)
        jobs.append(_Job(i, values, run_values, {} if be.is_interpreter else options, cfg, fit, key))
    data_names = [n for n in space.names if n in params and params[n].kind in _DATA_KINDS]
    top = REMEASURE_TOP[req.mode] if req.remeasure_top is None else max(0, int(req.remeasure_top))
    return SweepPlan(spec, be, space, jobs, data_names, [n for n in space.names if n not in data_names],
                     [] if be.is_interpreter else extra, top, notes)


class _Runner:
    """Runs the jobs of a plan, collecting points as they land."""

    def __init__(self, req: SweepRequest, plan: SweepPlan, out: SweepResult, progress: ProgressFn | None,
                 cancel: CancelFn | None, on_point: Callable[[SweepPoint], None] | None) -> None:
        self.req, self.plan, self.out = req, plan, out
        self.progress, self.cancel, self.on_point = progress, cancel, on_point
        # the inputs of the data group and their references (a LiveCache keeps the references
        # computed at the first point that passed, for the next points on the same inputs)
        self.cache: InputCache = LiveCache()
        self.torch_timings: dict[Any, Any] = {}
        self.torch_clocks: dict[Any, Any] = {}
        self.n = len(plan.jobs)
        self.bench_s = 0.0
        self.passes = 0  # of the re-measurement loop

    def cancelled(self) -> bool:
        if self.cancel is not None and self.cancel():
            done = len(self.out.points)
            self.out.error = ErrorInfo("cancelled", f"cancelled after {done} of {self.n} points")
            return True
        return False

    def _request(self, job: _Job) -> RunRequest:
        req = self.req
        return RunRequest(kernel=req.kernel, values=job.run_values, backend=req.backend, seed=req.seed,
                          torch_baseline=req.torch_baseline, keep_asm=False, keep_error_map=False,
                          user_file=req.user_file, generation=req.generation, launch_options=dict(job.options))

    def emit(self, job: _Job, result: RunResult, compile_s: float | None = None) -> None:
        pt = SweepPoint(values=dict(job.values), result=result, index=job.index, pruned=job.fit.reason,
                        estimate=dict(job.fit.estimate), compile_s=compile_s)
        self.out.points.append(pt)
        if self.on_point is not None:
            self.on_point(pt)

    def unrun(self, job: _Job, error: ErrorInfo) -> RunResult:
        be = self.plan.backend
        return RunResult(request=self._request(job), kernel=self.req.kernel, values=dict(job.cfg or job.run_values),
                         backend=be.name, device=be.device_name, error=error, generation=self.req.generation,
                         triton_version=triton.__version__)

    def run_one(self, job: _Job, compile_s: float | None = None) -> None:
        i = len(self.out.points)

        def sub(p: Progress) -> None:
            if self.progress is not None:
                self.progress(Progress(p.stage, (i + p.fraction) / self.n, i + 1, self.n, "points"))

        t0 = time.perf_counter()
        gpu = not self.plan.backend.is_interpreter
        req = self._request(job)
        if gpu:  # timed below with the sweep's shorter benchmark
            req = dataclasses.replace(req, bench=False)
        # torch's time depends on the data only: measure it once per input set
        r = run(req, sub, None, _cache=self.cache, _torch_timing=self.torch_timings.get(self.cache.key))
        if gpu and r.error is None:
            self._bench_gpu(job, r)
        self.bench_s += time.perf_counter() - t0
        if self.cache.key is not None and r.metrics is not None and r.metrics.torch_timing is not None:
            self.torch_timings.setdefault(self.cache.key, r.metrics.torch_timing)
        self.emit(job, r, compile_s)

    def _bench_gpu(self, job: _Job, r: RunResult) -> None:
        """Time a checked GPU point (``pipeline.bench_point``); its metrics follow. torch's kept
        baseline is used while the SM clock is the one it was timed at, else timed again beside
        this point."""
        spec = self.plan.spec
        try:
            key = self.cache.key
            given = self.torch_timings.get(key)
            fresh = self.req.torch_baseline and (given is None or not timing.same_clock(self.torch_clocks.get(key)))
            t_, torch_timing, clocks = pipeline.bench_point(spec, self.plan.backend, int(self.req.seed), self.cache,
                                                            job.run_values, job.options, fresh)
            if torch_timing is not None:
                self.torch_timings[key], self.torch_clocks[key] = torch_timing, clocks
            torch_timing = torch_timing or given
            figure_model = (spec.bytes_moved(r.values), spec.flops(r.values))
            m = bench.metrics(*figure_model, t_, torch_timing)
            figure = m.tflops if spec.metric == "TFLOP/s" else m.gbps
            got = peaks.peak_for(spec.metric, str(r.values.get("dtype", "")), figure, f"a {spec.name} sweep point") \
                if figure is not None else None
        except Exception as e:  # noqa: BLE001 - the point keeps its check; its timing failed
            r.error = to_error_info(e, "timing")
            return
        r.timing, r.clocks = t_, clocks
        if got is not None:  # both roofs (the roofline needs them); the metric's one checked
            pk, copy_peak, matmul_peak = got
            m = bench.metrics(*figure_model, t_, torch_timing, copy_peak, matmul_peak)
            m.peak_source, m.peak_datasheet = pk.source, pk.datasheet
        m.torch_interleaved = fresh and torch_timing is not None
        r.metrics = m

    def prune(self, job: _Job) -> bool:
        if not job.fit.reason:
            return False
        self.emit(job, self.unrun(job, ErrorInfo("pruned", f"skipped before compiling: {job.fit.reason}")))
        return True

    # -- one after another ----------------------------------------------------------------------
    def sequential(self, jobs: list[_Job]) -> bool:
        """Run ``jobs`` in order; False when cancelled."""
        for job in jobs:
            if self.cancelled():
                return False
            if not self.prune(job):
                self.run_one(job)
        return True

    # -- compiled ahead ---------------------------------------------------------------------------
    def pipelined(self, kind: str, workers: int) -> bool:
        """Per data group: the compiles submitted first (on stand-ins from a dry run of the inputs),
        then, while they run, the group's inputs and the device's peaks for its dtype; each
        config benchmarked as soon as its compile lands."""
        plan, req = self.plan, self.req
        groups: dict[Any, list[_Job]] = {}
        for job in plan.jobs:
            groups.setdefault(job.data_key, []).append(job)
        pool = pipeline.CompilePool(kind, workers)
        busy = [math.inf, 0.0]  # first submit, last compile done
        tally: dict[str, Any] = {"fallbacks": [], "ahead": 0}
        try:
            for jobs in groups.values():
                runnable = [j for j in jobs if j.cfg is not None and not j.fit.reason]
                # pruned points and invalid values first: they land at once
                if not self.sequential([j for j in jobs if j.cfg is None or j.fit.reason]):
                    return False
                dry = self._dry_metas(runnable[0]) if runnable else None
                metas = dry if dry is not None else (self._metas(runnable[0]) if runnable else None)
                if metas is None:
                    if not self.sequential(runnable):
                        return False
                    continue
                busy[0] = min(busy[0], time.perf_counter())
                pending = {pool.submit(plan.spec, req.user_file, j.cfg, metas, j.options): j for j in runnable}
                pipeline.build_launcher_ahead(plan.spec, runnable[0].cfg, metas, runnable[0].options)
                if self.progress is not None:
                    done_n = len(self.out.points)
                    self.progress(Progress(f"compiling {len(runnable)} configs", done_n / self.n, done_n, self.n,
                                           "points"))
                for f in pending:
                    f.add_done_callback(lambda _f: busy.__setitem__(1, time.perf_counter()))
                if dry is not None and not self._inputs_while_compiling(runnable[0]):
                    for f in pending:  # the inputs cannot be built: each run says why
                        f.cancel()
                    if not self.sequential(runnable):
                        return False
                    continue
                self._warm_while_compiling(runnable[0], pending)
                if not self._land(pending, pool, tally):
                    return False
        finally:
            pool.close()
            if busy[1] > busy[0]:
                self.out.phases["compile"] = busy[1] - busy[0]
            if tally["ahead"]:
                self.out.notes.append(f"compiled {tally['ahead']} configs ahead in {pool.workers} {kind} "
                                      f"({self.out.phases.get('compile', 0.0):.1f} s busy)")
            fallbacks = tally["fallbacks"]
            for msg in dict.fromkeys(fallbacks):
                self.out.notes.append(f"{fallbacks.count(msg)} configs {msg}: compiled at their first launch")
        return True

    def _warm_while_compiling(self, job: _Job, pending: dict[cf.Future, _Job]) -> None:
        """On a GPU, until the group's first compile lands: torch's op on the group's inputs run
        back to back (``timing.warm_while``), so the first point finds the GPU at a working clock
        (its warm-up waives the minimum and stops once its clock is the one read here; else it
        warms up in full) and torch's first call at these shapes is paid. Checked between chunks
        of a few ms: the first point never waits for it."""
        if not any(f.done() for f in pending):
            load = pipeline.torch_load(self.plan.spec, self.plan.backend, int(self.req.seed), self.cache,
                                       job.run_values)
            if load is None:
                return
            try:
                w = timing.warm_while(load, timing.sensor(), timing.SWEEP,
                                      lambda: not any(f.done() for f in pending) and not self.cancelled())
            except Exception:  # noqa: BLE001 - only a head start: the first point warms up in full
                return
            self.out.phases["gpu warm-up while compiling"] = w.seconds

    def _land(self, pending: dict[cf.Future, _Job], pool: pipeline.CompilePool, tally: dict[str, Any]) -> bool:
        """Run each config as its compile lands (in the space's order among those landed
        together); False when cancelled."""
        while pending:
            if self.cancelled():
                return False
            done, _ = cf.wait(pending, timeout=0.1, return_when=cf.FIRST_COMPLETED)
            for f in sorted(done, key=lambda f: pending[f].index):
                if self.cancelled():
                    return False
                job = pending.pop(f)
                oc = pool.outcome(f)
                if oc.fallback:
                    tally["fallbacks"].append(oc.fallback)
                else:
                    tally["ahead"] += 1
                if oc.error is not None:
                    self.emit(job, self.unrun(job, oc.error), oc.seconds)
                else:
                    self.run_one(job, None if oc.fallback else oc.seconds)
        return True

    def _dry_metas(self, job: _Job) -> dict[str, Any] | None:
        """Stand-ins of the group's inputs from a dry run of its builder (nothing allocated), so
        the compiles start before the inputs exist; None where the dry run cannot follow it, or
        the inputs would not fit (``prepare`` then says so, before anything compiles)."""
        spec, cfg = self.plan.spec, dict(job.cfg or {})
        try:
            planned = memory.plan_inputs(spec, cfg)
            if planned is None:
                return None
            memory.memory_check(spec, planned, self.plan.backend, memory.largest_shape_param(spec, cfg))
            return pipeline.metas_of(memory.dry_inputs(spec, cfg))
        except Exception:  # noqa: BLE001 - a builder the dry run cannot follow, too large: the real inputs
            return None

    def _metas(self, job: _Job) -> dict[str, Any] | None:
        """Stand-ins of the group's inputs for the compiles (None: the runs report the problem)."""
        try:
            p = prepare(self.plan.spec, job.run_values, self.plan.backend, int(self.req.seed), self.cache)
            return pipeline.metas_of(p.tensors)
        except Exception:  # noqa: BLE001 - e.g. too large: each run says so
            self.cache.clear()
            return None

    def _inputs_while_compiling(self, job: _Job) -> bool:
        """Build the group's inputs (the points reuse them) and read — or, the first time on this
        device, measure — the peaks for its dtype, while the compiles run. False when the inputs
        cannot be built (too large…): the runs then report it."""
        phases = self.out.phases
        t0 = time.perf_counter()
        try:
            prepare(self.plan.spec, job.run_values, self.plan.backend, int(self.req.seed), self.cache)
        except Exception:  # noqa: BLE001 - each run says why
            self.cache.clear()
            return False
        t1 = time.perf_counter()
        phases["inputs"] = phases.get("inputs", 0.0) + t1 - t0
        try:
            peaks.peak_for(self.plan.spec.metric, str((job.cfg or {}).get("dtype", "")))
        except Exception:  # noqa: BLE001 - the points' timing says so
            pass
        phases["peaks"] = phases.get("peaks", 0.0) + time.perf_counter() - t1
        return True

    # -- after the runs ---------------------------------------------------------------------------
    def remeasure(self) -> None:
        """Re-measure the fastest few of each data group, interleaved, until the fastest
        ``remeasure_top`` by the latest estimates have all been re-measured (a point that was
        fast once and slow again drops out, and the one it let in is measured too), at most
        ``MAX_REMEASURE_PASSES`` passes. Each pass times the current top few together, so their
        comparison is fair (the first also the next ``REMEASURE_SPARE``); a point's samples pool
        across passes."""
        plan, pts = self.plan, self.out.points
        if plan.remeasure_top < 2:
            return
        jobs = {j.index: j for j in plan.jobs}
        samples: dict[int, list[float]] = {}
        for members in rank.groups(pts, plan.data_names).values():
            for n_pass in range(MAX_REMEASURE_PASSES):
                order = rank.by_latest(pts, members)
                top = order[:plan.remeasure_top]
                if len(top) < 2 or all(pts[i].remeasured is not None for i in top):
                    break
                if n_pass == 0:
                    top = order[:plan.remeasure_top + REMEASURE_SPARE]
                method = (pts[top[0]].result.timing.method  # type: ignore[union-attr]
                          .split("; re-measured")[0])
                cands = [(jobs[pts[i].index].run_values, jobs[pts[i].index].options) for i in top]
                got = self.measure(cands, method)
                if got is None:
                    self.out.notes.append("re-measurement cancelled: the ranking uses the measurements so far")
                    return
                self.passes = max(self.passes, n_pass + 1)
                for i, s in zip(top, got, strict=True):
                    samples.setdefault(i, []).extend(s)
                    pts[i].remeasured = bench.timing_from_samples(
                        samples[i], f"{method}; re-measured: {len(samples[i])} samples over {n_pass + 1} "
                                    f"pass(es) of {max(1, self.req.remeasure_rounds)} interleaved rounds",
                        plan.backend.is_interpreter)
        if self.passes > 1:
            self.out.notes.append(f"re-measured in {self.passes} passes: a point fast at first was slower "
                                  "re-measured, so the next ones by their latest estimate were re-measured too")

    def measure(self, cands: list[tuple[dict, dict]], method: str) -> list[list[float]] | None:
        """Samples of each candidate from ``remeasure_rounds`` interleaved rounds (None: cancelled)."""
        return pipeline.remeasure_samples(self.plan.spec, self.plan.backend, int(self.req.seed), cands,
                                          self.req.remeasure_rounds, self.cancel, self.cache)


def sweep(req: SweepRequest, progress: ProgressFn | None = None, cancel: CancelFn | None = None,
          on_point: Callable[[SweepPoint], None] | None = None) -> SweepResult:
    """Run every point of the request's space (see the module doc); never raises."""
    t0 = time.perf_counter()
    out = SweepResult(request=req, points=[], best=None, generation=req.generation)
    waited = warm_start.wait(warm_start.WAIT_LIMIT_S)  # a worker's head start still running: its steps are not done twice
    if waited > 0.0:
        out.phases["warm-up wait"] = waited
    try:
        plan = plan_sweep(req)
    except Exception as e:  # noqa: BLE001 - the engine reports, it does not raise
        out.error = to_error_info(e)
        return out
    out.names, out.filtered, out.n_pruned = list(plan.space.names), plan.space.filtered, plan.n_pruned
    out.notes.extend(plan.notes)
    out.phases["plan"] = time.perf_counter() - t0
    runner = _Runner(req, plan, out, progress, cancel, on_point)
    runnable = [j for j in plan.jobs if j.cfg is not None and not j.fit.reason]
    kind = pipeline.pool_kind(plan.spec, req.compile_pool, req.user_file)
    workers = min(req.compile_workers or pipeline.CompilePool.default_workers(kind), len(runnable))
    finished = False
    try:
        if req.cluster or req.gpus:  # every GPU (or CPU) of a Ray cluster: kernels.engine.ray_sweep
            from . import ray_sweep

            refused = ray_sweep.refuse_without_ray()
            if refused is not None:
                out.error = refused
                return out
            finished = ray_sweep.run_points(runner, runner.cancelled, runner_for)
        elif plan.backend.is_interpreter or workers <= 1:
            finished = runner.sequential(plan.jobs)
        else:
            finished = runner.pipelined(kind, workers)
        out.phases["bench"] = runner.bench_s
        if finished:
            t1 = time.perf_counter()
            runner.remeasure()
            if plan.remeasure_top >= 2:
                out.phases["remeasure"] = time.perf_counter() - t1
    except Exception as e:  # noqa: BLE001 - keep the points done
        out.error = to_error_info(e, "sweeping")
    finally:
        runner.cache.clear()
        out.points.sort(key=lambda p: p.index)  # they land as compiled: back in the space's order
    ranked, no_effect = _rankable(out.points, plan)
    out.tuned_names = [n for n in plan.tuned_names if n not in no_effect]
    out.ranking, out.verdicts = rank.rank(ranked, plan.data_names, out.tuned_names)
    out.ranking = [dataclasses.replace(e, index=out.points.index(ranked[e.index])) for e in out.ranking]
    out.best = _best(ranked, plan.data_names)
    out.best = out.points.index(ranked[out.best]) if out.best is not None else None
    if no_effect:
        out.notes.append(_no_effect_note(no_effect, out.tuned_names, plan))
        if not out.tuned_names:
            out.best = None
            out.ranking = []
            out.verdicts = [f"no winner: {', '.join(no_effect)} cannot change the interpreter's time "
                            "(the same program runs for every value); sweep it on a GPU"]
    if req.mode == "tune" and out.best is not None:
        _add_exports(out, plan)
    out.phases["total"] = time.perf_counter() - t0
    return out


def runner_for(req: SweepRequest) -> _Runner:
    """A runner of ``req``'s plan with no callbacks: what a Ray worker runs its points with
    (``kernels.engine.ray_sweep``)."""
    out = SweepResult(request=req, points=[], best=None, generation=req.generation)
    return _Runner(req, plan_sweep(req), out, None, None, None)


def _rankable(points: list[SweepPoint], plan: SweepPlan) -> tuple[list[SweepPoint], list[str]]:
    """(the points that may be ranked against each other, the varied launch options left out):
    on a backend that does not honour launch options (the interpreter: ``kernels.data.backends``),
    points that differ only in them are the same program, so only those at the first value of
    each such option are ranked; on a GPU, all of them."""
    if backend_info(plan.backend.name).honours_launch_options:
        return list(points), []
    params = {p.name: p for p in plan.spec.params}
    options = [n for n in plan.tuned_names
               if n in LAUNCH_OPTIONS or (n in params and params[n].kind == "launch")]
    varied = [n for n in options if len({repr(p.values.get(n)) for p in points}) > 1]
    if not varied:
        return list(points), []
    first = {n: next(p.values.get(n) for p in points) for n in varied}
    return [p for p in points if all(p.values.get(n) == v for n, v in first.items())], varied


def _no_effect_note(no_effect: list[str], tuned: list[str], plan: SweepPlan) -> str:
    what = ", ".join(no_effect)
    if not tuned:
        return (f"{what}: no effect under the interpreter (each value runs the same program as plain Python, "
                "without warps, pipelining or registers), so no value is named best; sweep it on a GPU")
    return (f"{what}: no effect under the interpreter, so points differing only in {what} are not ranked "
            f"against each other: the ranking is over {', '.join(tuned)}")


def _best(points: list[SweepPoint], data_names: list[str]) -> int | None:
    """The fastest of the groups' winners (``rank.best_first``: re-measured where any was)."""
    best, best_ms = None, math.inf
    for members in rank.groups(points, data_names).values():
        order = rank.best_first(points, members)
        t = points[order[0]].timing if order else None
        if t is not None and t.median_ms < best_ms:
            best, best_ms = order[0], t.median_ms
    return best


def _add_exports(out: SweepResult, plan: SweepPlan) -> None:
    try:
        from ..tune import export

        out.exports = export.export_texts(plan.spec, out)
    except Exception as e:  # noqa: BLE001 - the sweep stands without its exports
        out.notes.append(f"export texts not made: {first_line(f'{type(e).__name__}: {e}')}")


def best_index(results: list[RunResult]) -> int | None:
    best, best_ms = None, math.inf
    for i, r in enumerate(results):
        if r.ok and r.timing is not None and r.timing.median_ms < best_ms:
            best, best_ms = i, r.timing.median_ms
    return best
