"""Compile ahead, benchmark one at a time: the GPU side of a sweep.

Configs compile in a pool on the CPU cores while the GPU benchmarks the ones compiled:

- **processes** (``kernels.tune.procpool``): pre-started workers, forked (or forked from a
  server) so they never import anything per sweep. The parent derives what each launch would
  hand to ``triton.compile`` (Triton's binder on meta-tensor stand-ins), a worker compiles it
  into Triton's on-disk cache, and the config's first launch finds the binary there. No GIL is
  shared with the benchmarking thread. Picked by "auto" when a pool was started ahead
  (``procpool.prestart``), or asked for.
- **threads**: ``JITFunction.warmup(..., grid=...)`` on the same stand-ins (Triton's C++ passes
  and ptxas run without the GIL); the fallback wherever processes cannot be used.

A warm-up that fails for any reason but a compile error leaves the compile to the config's
first launch, as without a pool.

Also here: launch options the spec has no parameter for (``maxnreg``…) passed to the launch,
the short per-point benchmark, and the interleaved re-measurement of the fastest configs.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import torch

from ..data.errors import first_line, to_error_info
from ..data.results import Clocks, ErrorInfo, Timing
from ..run import bench, timing
from ..run.backends import with_options
from ..run.prepare import InputCache, prepare
from ..specs.spec import KernelSpec
from . import procpool

__all__ = ["CompileOutcome", "CompilePool", "POINT_BENCH", "REMEASURE_BENCH", "TensorMeta", "bench_point",
           "build_launcher_ahead", "compile_config", "launches_of", "metas_of", "pool_kind", "remeasure", "remeasure_samples",
           "torch_load"]

#: (warm-up ms, rep ms) for a sweep point's first measurement, kept for reference: points are now
#: timed by the timing policy's SWEEP budget (``kernels.run.timing``: warmed to a steady clock,
#: ~12 ms of reps, torch interleaved where it is timed); the fastest few are re-measured after
POINT_BENCH = (5, 20)
#: rep ms per candidate of each interleaved re-measurement round
REMEASURE_BENCH = (2, 10)


# ---------------------------------------------------------------------------------------------
# compiling one config


@dataclass(frozen=True)
class TensorMeta:
    """What a compile needs of a tensor: no data."""

    shape: tuple[int, ...]
    stride: tuple[int, ...]
    dtype: str
    offset: int
    storage: int  # elements in its storage

    def stand_in(self) -> torch.Tensor:
        base = torch.empty(self.storage, dtype=getattr(torch, self.dtype), device="meta")
        return base.as_strided(self.shape, self.stride, self.offset)


def metas_of(tensors: Mapping[str, Any]) -> dict[str, Any]:
    """The prepared inputs as TensorMetas (other values as they are)."""
    out: dict[str, Any] = {}
    for k, t in tensors.items():
        if isinstance(t, torch.Tensor):
            out[k] = TensorMeta(tuple(t.shape), tuple(t.stride()), str(t.dtype).replace("torch.", ""),
                                int(t.storage_offset()), t.untyped_storage().nbytes() // max(1, t.element_size()))
        else:
            out[k] = t
    return out


@dataclass
class CompileOutcome:
    seconds: float = 0.0
    error: ErrorInfo | None = None  # a compile error: the config is reported without a launch
    fallback: str = ""  # why it was not compiled ahead (it compiles at its first launch)
    shared: int | None = None  # bytes of shared memory the compiled kernel(s) take


class _Warmup:
    def __init__(self, fn: Any, options: Mapping[str, Any], made: list[Any]) -> None:
        self.fn, self.options, self.made = fn, options, made

    def __getitem__(self, grid: Any) -> Callable[..., Any]:
        def warm(*args: Any, **kwargs: Any) -> Any:
            k = self.fn.warmup(*args, grid=grid, **{**kwargs, **self.options})
            self.made.append(k)
            return k
        return warm

    def __getattr__(self, name: str) -> Any:
        return getattr(self.fn, name)


def compile_config(spec: KernelSpec, cfg: Mapping[str, Any], metas: Mapping[str, Any],
                   options: Mapping[str, Any]) -> CompileOutcome:
    """Compile what the launcher would launch for ``cfg`` without launching it."""
    t0 = time.perf_counter()
    made: list[Any] = []
    try:
        tensors = {k: v.stand_in() if isinstance(v, TensorMeta) else v for k, v in metas.items()}
        spec.run_launch(lambda fn: _Warmup(fn, options, made), tensors, dict(cfg))
    except Exception as e:  # noqa: BLE001 - reported per point
        info = to_error_info(e)
        if info.kind == "compile":
            return CompileOutcome(time.perf_counter() - t0, error=info)
        return CompileOutcome(time.perf_counter() - t0,
                              fallback=f"not compiled ahead ({first_line(info.message, 160)})")
    shared = [int(k.metadata.shared) for k in made if hasattr(getattr(k, "metadata", None), "shared")]
    return CompileOutcome(time.perf_counter() - t0, shared=max(shared) if shared else None)


class _Recording:
    def __init__(self, fn: Any, options: Mapping[str, Any], out: list[tuple[Any, tuple, dict]]) -> None:
        self.fn, self.options, self.out = fn, options, out

    def __getitem__(self, grid: Any) -> Callable[..., Any]:
        def launch(*args: Any, **kwargs: Any) -> None:
            self.out.append((self.fn, args, {**kwargs, **self.options}))
        return launch

    def __getattr__(self, name: str) -> Any:
        return getattr(self.fn, name)


def launches_of(spec: KernelSpec, cfg: Mapping[str, Any], metas: Mapping[str, Any],
                options: Mapping[str, Any]) -> list[tuple[Any, tuple, dict]]:
    """The ``(jit_fn, args, kwargs)`` of each launch the spec makes at ``cfg``, on stand-ins."""
    out: list[tuple[Any, tuple, dict]] = []
    tensors = {k: v.stand_in() if isinstance(v, TensorMeta) else v for k, v in metas.items()}
    spec.run_launch(lambda fn: _Recording(fn, options, out), tensors, dict(cfg))
    return out


def build_launcher_ahead(spec: KernelSpec, cfg: Mapping[str, Any] | None, metas: Mapping[str, Any],
                         options: Mapping[str, Any]) -> threading.Thread | None:
    """Where Triton builds a C launcher per kernel signature at the first launch (Triton 3.6:
    gcc, ``compile_target.launcher_builder``), build the one ``cfg``'s launches will use now, on
    a thread beside the compiles; the configs of a sweep share their signature, so the first
    launch finds it in Triton's cache. None where there is nothing to build."""
    if cfg is None:
        return None
    try:
        from ..compile.target import launcher_builder

        builds = [b for fn, args, kw in launches_of(spec, cfg, metas, options)
                  if (b := launcher_builder(fn, args, kw)) is not None]
    except Exception:  # noqa: BLE001 - only a head start: the first launch builds it
        return None
    if not builds:
        return None
    t = threading.Thread(target=lambda: [b() for b in builds], name="tilescope-launcher-ahead", daemon=True)
    t.start()
    return t


# ---------------------------------------------------------------------------------------------
# the pool


def _importable(fn: Any) -> bool:
    module = getattr(getattr(fn, "fn", fn), "__module__", "") or ""
    return module not in ("", "__main__") and module in __import__("sys").modules


def pool_kind(spec: KernelSpec, requested: str, user_file: str | None) -> str:
    """"threads" or "processes". "auto" is processes when a pool was started ahead
    (``procpool.prestart``: its workers import nothing per sweep), else threads — a pool
    started for one sweep costs more than it saves. Processes need kernels a worker can import
    by module and name, and, for a forkserver, a main module it can re-import; else threads."""
    if requested == "threads" or (requested == "auto" and procpool.running() is None):
        return "threads"
    pool = procpool.running()
    method = pool.method if pool is not None else procpool.default_method()
    if not all(_importable(k) for k in spec.kernels):
        return "threads"
    return "processes" if method == "fork" or _spawn_safe() else "threads"


def _spawn_safe() -> bool:
    """Whether a spawned process can re-import this one's main module (multiprocessing does)."""
    import sys

    main = sys.modules.get("__main__")
    if getattr(getattr(main, "__spec__", None), "name", None):
        return True
    path = getattr(main, "__file__", None)
    return path is None or os.path.isfile(path)


def _current_target() -> Any:
    import triton

    return triton.runtime.driver.active.get_current_target()


class CompilePool:
    """Compiles configs ahead: ``submit`` returns a Future, ``outcome`` its CompileOutcome.
    ``target``: what processes compile for (default: the GPU's)."""

    def __init__(self, kind: str, workers: int, target: Any = None) -> None:
        self.kind = kind
        self.workers = max(1, workers)
        self.target = target
        self._futures: list[Future] = []
        self._threads: ThreadPoolExecutor | None = None
        self.procs: procpool.ProcessCompiler | None = None
        self.fallbacks = 0  # configs sent to threads by a process pool
        if kind == "processes":
            running = procpool.running()
            self.procs = running if running is not None and running.workers >= self.workers else \
                procpool.prestart(self.workers)
            self.workers = self.procs.workers
        else:
            self._threads = ThreadPoolExecutor(self.workers, thread_name_prefix="tilescope-compile")

    @staticmethod
    def default_workers(kind: str) -> int:
        n = os.cpu_count() or 1
        return max(1, n - 1) if kind == "processes" else n  # processes: leave a core to the GPU's feeder

    def _thread_submit(self, spec: KernelSpec, cfg: dict, metas: dict, options: dict) -> Future:
        if self._threads is None:
            self._threads = ThreadPoolExecutor(self.workers, thread_name_prefix="tilescope-compile")
        return self._threads.submit(compile_config, spec, cfg, metas, options)

    def submit(self, spec: KernelSpec, user_file: str | None, cfg: Mapping[str, Any], metas: Mapping[str, Any],
               options: Mapping[str, Any]) -> Future:
        cfg, metas, options = dict(cfg), dict(metas), dict(options)
        try:
            if self.procs is not None:
                f = self._process_submit(spec, cfg, metas, options)
            else:
                f = self._thread_submit(spec, cfg, metas, options)
        except Exception as e:  # noqa: BLE001 - a broken pool: the launch compiles
            f = Future()
            f.set_exception(e)
        self._futures.append(f)
        return f

    def _process_submit(self, spec: KernelSpec, cfg: dict, metas: dict, options: dict) -> Future:
        """One config's launches as jobs for the processes, their outcomes joined in one Future;
        what the processes cannot do goes to a thread."""
        assert self.procs is not None
        t0 = time.perf_counter()
        try:
            target = self.target if self.target is not None else _current_target()
            jobs = procpool.jobs_for_launches(launches_of(spec, cfg, metas, options), target)
        except Exception as e:  # noqa: BLE001 - e.g. not importable, no driver: a thread tries
            info = to_error_info(e)
            if info.kind == "compile" and "arguments do not fit" not in info.message:
                done: Future = Future()
                done.set_result(CompileOutcome(time.perf_counter() - t0, error=info))
                return done
            self.fallbacks += 1
            return self._thread_submit(spec, cfg, metas, options)
        joined: Future = Future()
        futures = [self.procs.submit(j) for j in jobs]

        def _join(_f: Future) -> None:
            if not all(f.done() for f in futures) or joined.done():
                return
            try:
                outs = [f.result() for f in futures]
            except Exception as e:  # noqa: BLE001 - BrokenProcessPool…: a thread tries
                procpool.shutdown()
                self.fallbacks += 1
                _chain(self._thread_submit(spec, cfg, metas, options), joined, f"process pool failed: {e}")
                return
            if any(o.unavailable for o in outs):
                self.fallbacks += 1
                _chain(self._thread_submit(spec, cfg, metas, options), joined, "")
                return
            err = next((o.error for o in outs if o.error is not None), None)
            shared = [o.shared for o in outs if o.shared is not None]
            joined.set_result(CompileOutcome(time.perf_counter() - t0, error=err,
                                             shared=max(shared) if shared else None))
        for f in futures:
            f.add_done_callback(_join)
        return joined

    def outcome(self, future: Future) -> CompileOutcome:
        """A finished future's outcome; a pool that broke leaves the compile to the first launch."""
        try:
            return future.result()
        except Exception as e:  # noqa: BLE001 - a broken pool, a pickling error…
            return CompileOutcome(fallback=f"not compiled ahead: the compile pool failed ({type(e).__name__}: "
                                           f"{first_line(str(e), 160)})")

    def close(self) -> None:
        """Drop the compiles not started (those running finish into Triton's cache); the
        process workers stay for the next sweep."""
        for f in self._futures:
            f.cancel()
        if self._threads is not None:
            self._threads.shutdown(wait=False, cancel_futures=True)


def _chain(src: Future, dst: Future, why: str) -> None:
    def copy(f: Future) -> None:
        if dst.done():
            return
        if f.exception() is not None:
            dst.set_exception(f.exception())  # type: ignore[arg-type]
        else:
            dst.set_result(f.result())
    src.add_done_callback(copy)


# ---------------------------------------------------------------------------------------------
# the per-point benchmark (GPU)


def bench_point(spec: KernelSpec, backend: Any, seed: int, cache: InputCache, values: Mapping[str, Any],
                options: Mapping[str, Any], with_torch: bool) -> tuple[Timing, Timing | None, Clocks]:
    """(the config's timing, torch's on the same inputs or None, the clocks): the timing policy's
    SWEEP budget, torch interleaved with the config when it is timed."""
    p = prepare(spec, dict(values), backend, seed, cache)
    with backend.activate(spec.kernels, note_grids=False) as K:
        k = with_options(K, options)
        fns = [lambda: p.launch(k)]
        if with_torch and spec.torch_op is not None:
            fns.append(lambda: spec.torch_op(p.tensors, p.cfg))
        m = timing.measure(fns, timing.SWEEP)
    return m.timings[0], (m.timings[1] if len(fns) > 1 else None), m.clocks


def torch_load(spec: KernelSpec, backend: Any, seed: int, cache: InputCache,
               values: Mapping[str, Any]) -> Callable[[], None] | None:
    """A warm-up chunk of torch's op on the group's inputs (``timing._chunk_load``): what keeps a
    sweep's GPU at a load like its kernels' while the first compile runs (``timing.warm_while``),
    and torch's first call at these shapes (cuBLAS loading its kernel) paid then. None under the
    interpreter, without a torch op, or when it fails (the first point then warms up in full)."""
    if backend.is_interpreter or spec.torch_op is None or not torch.cuda.is_available():
        return None
    try:
        p = prepare(spec, dict(values), backend, seed, cache)

        def fn() -> Any:
            return spec.torch_op(p.tensors, p.cfg)
        est = timing._estimate_ms([fn], timing._l2_flush_buffer())
        return timing._chunk_load([fn], est)
    except Exception:  # noqa: BLE001 - only a head start
        return None


# ---------------------------------------------------------------------------------------------
# interleaved re-measurement


def remeasure(spec: KernelSpec, backend: Any, seed: int, candidates: Sequence[tuple[dict, dict]],
              rounds: int, base_method: str, cancel: Callable[[], bool] | None = None) -> list[Timing] | None:
    """Time the candidates (``(values, extra launch options)``, all of one data group) again,
    in ``rounds`` interleaved rounds; each candidate's samples are pooled. None when cancelled."""
    got = remeasure_samples(spec, backend, seed, candidates, rounds, cancel)
    if got is None:
        return None
    method = f"{base_method}; re-measured: {max(1, rounds)} interleaved rounds of the top {len(candidates)}"
    return [bench.timing_from_samples(s, method, backend.is_interpreter) for s in got]


def remeasure_samples(spec: KernelSpec, backend: Any, seed: int, candidates: Sequence[tuple[dict, dict]],
                      rounds: int, cancel: Callable[[], bool] | None = None,
                      cache: InputCache | None = None) -> list[list[float]] | None:
    """The samples (ms) of each candidate from ``rounds`` interleaved rounds (each round in a
    rotated order, so that no config always runs first). None when cancelled. ``cache``: the
    sweep's, holding the group's inputs already (same seed, same data: reused, not drawn again);
    kept as it is, where one made here is dropped."""
    own = cache is None
    cache = InputCache() if cache is None else cache
    samples: list[list[float]] = [[] for _ in candidates]
    try:
        prepared = [prepare(spec, values, backend, seed, cache) for values, _ in candidates]
        with backend.activate(spec.kernels) as K:
            fns = [(lambda p=p, k=with_options(K, opts): p.launch(k)) for p, (_, opts) in
                   zip(prepared, candidates, strict=True)]
            if not backend.is_interpreter:  # warmed once, then every round rep by rep interleaved
                return _remeasure_gpu(fns, rounds, cancel)
            for r in range(max(1, rounds)):
                for j in range(len(fns)):
                    if cancel is not None and cancel():
                        return None
                    i = (j + r) % len(fns)
                    samples[i].extend(_time_once(fns[i], backend.is_interpreter))
    finally:
        if own:
            cache.clear()
    return samples


def _remeasure_gpu(fns: Sequence[Callable[[], Any]], rounds: int,
                   cancel: Callable[[], bool] | None) -> list[list[float]] | None:
    """The GPU re-measurement: the candidates warmed together to a steady clock
    (``kernels.run.timing``), then ``rounds`` rounds each timing every candidate rep by rep,
    interleaved, ``REMEASURE_BENCH[1]`` ms of reps a candidate per round."""
    est = timing._estimate_ms(fns, flush := timing._l2_flush_buffer())
    timing.warm_up(timing._chunk_load(fns, est), timing.sensor(), timing.SWEEP)
    budget = timing.Budget("remeasure", 0.0, 0.0, rep_ms=REMEASURE_BENCH[1] * len(fns), min_reps=5,
                           short_min_reps=50)
    samples: list[list[float]] = [[] for _ in fns]
    for _ in range(max(1, rounds)):
        if cancel is not None and cancel():
            return None
        for i, got in enumerate(timing.time_interleaved(fns, budget, est, flush)):
            samples[i].extend(got)
    return samples


def _time_once(fn: Callable[[], Any], interpreter: bool) -> list[float]:
    if interpreter:
        t0 = time.perf_counter()
        fn()
        return [(time.perf_counter() - t0) * 1e3]
    import triton.testing

    return list(triton.testing.do_bench(fn, warmup=REMEASURE_BENCH[0], rep=REMEASURE_BENCH[1], return_mode="all"))
