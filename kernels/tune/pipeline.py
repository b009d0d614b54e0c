"""Compile ahead, benchmark one at a time: the GPU side of a sweep.

Configs compile in a pool — threads (Triton's C++ passes and ptxas run without the GIL) or
spawned processes (each fills Triton's on-disk cache; the sweep's own launch then loads the
binary) — by ``JITFunction.warmup(..., grid=...)`` on stand-ins of the inputs (meta tensors of
the same shapes, strides and dtypes: nothing is allocated, nothing runs on the GPU). The sweep
benchmarks each config as its compile lands. A warm-up that fails for any reason but a compile
error leaves the compile to the config's first launch, as without a pool.

Also here: launch options the spec has no parameter for (``maxnreg``…) passed to the launch, and
the interleaved re-measurement of the fastest configs.
"""

from __future__ import annotations

import multiprocessing
import os
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import torch

from .. import bench
from ..backends import with_options
from ..data.errors import first_line, to_error_info
from ..data.results import ErrorInfo, Timing
from ..prepare import InputCache, prepare
from ..spec import KernelSpec

__all__ = ["CompileOutcome", "CompilePool", "TensorMeta", "compile_config", "metas_of",
           "pool_kind", "remeasure"]


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


def _child_compile(kernel: str, user_file: str | None, cfg: dict, metas: dict, options: dict) -> CompileOutcome:
    """``compile_config`` in a spawned process: the spec is found again by name."""
    from ..lookup import get_spec

    try:
        spec = get_spec(kernel, user_file)
    except Exception as e:  # noqa: BLE001 - e.g. a spec registered only in the parent
        return CompileOutcome(fallback=f"not compiled ahead: a compile process cannot load {kernel!r} ({e})")
    return compile_config(spec, cfg, metas, options)


# ---------------------------------------------------------------------------------------------
# the pool


def pool_kind(spec: KernelSpec, requested: str, user_file: str | None) -> str:
    """"threads" or "processes". "auto" is threads: on an H200 with Triton 3.6, 11 matmul configs
    compiled in 11 threads in 1.5 s, each alone 1.1–1.5 s (the compiler's C++ passes and ptxas
    run without the GIL), while spawned processes first import torch and triton (seconds).
    "processes" falls back to threads for a spec a fresh process cannot find by name (one
    registered only in this process) or when this process's main module cannot be re-imported
    by a spawned one (a script read from stdin)."""
    if requested != "processes":
        return "threads"
    catalog = all(getattr(getattr(k, "fn", k), "__module__", "").startswith("kernels.catalog.")
                  for k in spec.kernels) and getattr(spec.launch, "__module__", "").startswith("kernels.catalog.")
    findable = (catalog and spec.origin == "catalog") or bool(user_file)
    return "processes" if findable and _spawn_safe() else "threads"


def _spawn_safe() -> bool:
    """Whether a spawned process can re-import this one's main module (multiprocessing does)."""
    import sys

    main = sys.modules.get("__main__")
    if getattr(getattr(main, "__spec__", None), "name", None):
        return True
    path = getattr(main, "__file__", None)
    return path is None or os.path.isfile(path)


_PROCESS_POOLS: dict[int, ProcessPoolExecutor] = {}


def _process_pool(workers: int) -> ProcessPoolExecutor:
    """Spawned compile processes, kept for the next sweep (they start in seconds: torch, triton)."""
    pool = _PROCESS_POOLS.get(workers)
    if pool is None:
        pool = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"))
        _PROCESS_POOLS[workers] = pool
    return pool


def _drop_process_pool(workers: int) -> None:
    pool = _PROCESS_POOLS.pop(workers, None)
    if pool is not None:
        pool.shutdown(wait=False, cancel_futures=True)


class CompilePool:
    """Compiles configs ahead: ``submit`` returns a Future, ``outcome`` its CompileOutcome."""

    def __init__(self, kind: str, workers: int) -> None:
        self.kind = kind
        self.workers = max(1, workers)
        self._futures: list[Future] = []
        self._executor: Executor = (_process_pool(self.workers) if kind == "processes"
                                    else ThreadPoolExecutor(self.workers, thread_name_prefix="tilescope-compile"))

    @staticmethod
    def default_workers(kind: str) -> int:
        n = os.cpu_count() or 1
        return max(1, n - 1) if kind == "processes" else n  # processes: leave a core to the GPU's feeder

    def submit(self, spec: KernelSpec, user_file: str | None, cfg: Mapping[str, Any], metas: Mapping[str, Any],
               options: Mapping[str, Any]) -> Future:
        try:
            if self.kind == "processes":
                f = self._executor.submit(_child_compile, spec.name, user_file, dict(cfg), dict(metas),
                                          dict(options))
            else:
                f = self._executor.submit(compile_config, spec, dict(cfg), dict(metas), dict(options))
        except Exception as e:  # noqa: BLE001 - a broken pool: the launch compiles
            f = Future()
            f.set_exception(e)
        self._futures.append(f)
        return f

    def outcome(self, future: Future) -> CompileOutcome:
        """A finished future's outcome; a pool that broke leaves the compile to the first launch
        (and a broken process pool is not kept for the next sweep)."""
        try:
            return future.result()
        except Exception as e:  # noqa: BLE001 - BrokenProcessPool, a pickling error…
            if self.kind == "processes":
                _drop_process_pool(self.workers)
            return CompileOutcome(fallback=f"not compiled ahead: the compile pool failed ({type(e).__name__}: "
                                           f"{first_line(str(e), 160)})")

    def close(self) -> None:
        """Drop the compiles not started (those running finish into Triton's cache)."""
        for f in self._futures:
            f.cancel()
        if isinstance(self._executor, ThreadPoolExecutor):
            self._executor.shutdown(wait=False, cancel_futures=True)


# ---------------------------------------------------------------------------------------------
# interleaved re-measurement


def remeasure(spec: KernelSpec, backend: Any, seed: int, candidates: Sequence[tuple[dict, dict]],
              rounds: int, base_method: str, cancel: Callable[[], bool] | None = None) -> list[Timing] | None:
    """Time the candidates (``(values, extra launch options)``, all of one data group) again,
    in ``rounds`` interleaved rounds (each round in a rotated order, so that no config always
    runs first); each candidate's samples are pooled. None when cancelled."""
    cache = InputCache()
    samples: list[list[float]] = [[] for _ in candidates]
    try:
        prepared = [prepare(spec, values, backend, seed, cache) for values, _ in candidates]
        with backend.activate(spec.kernels) as K:
            fns = [(lambda p=p, k=with_options(K, opts): p.launch(k)) for p, (_, opts) in
                   zip(prepared, candidates, strict=True)]
            for r in range(max(1, rounds)):
                for j in range(len(fns)):
                    if cancel is not None and cancel():
                        return None
                    i = (j + r) % len(fns)
                    samples[i].extend(_time_once(fns[i], backend.is_interpreter))
    finally:
        cache.clear()
    method = f"{base_method}; re-measured: {max(1, rounds)} interleaved rounds of the top {len(candidates)}"
    return [bench.timing_from_samples(s, method, backend.is_interpreter) for s in samples]


def _time_once(fn: Callable[[], Any], interpreter: bool) -> list[float]:
    if interpreter:
        t0 = time.perf_counter()
        fn()
        return [(time.perf_counter() - t0) * 1e3]
    import triton.testing

    return list(triton.testing.do_bench(fn, warmup=10, rep=25, return_mode="all"))
