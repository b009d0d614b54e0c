"""A pool of pre-started compile processes that fill Triton's on-disk cache.

The parent derives, for each launch a config makes, exactly what ``JITFunction.run`` would hand
to ``triton.compile`` on the GPU (``compile_target.compile_inputs``: Triton's own binder and
option parser, on meta-tensor stand-ins) and ships that — the kernel's module and name, the
signature, constexprs, attributes, options and target — to a worker process, which runs
``triton.compile(ASTSource(...), target=..., options=...)``. Same source, signature, constants
and options give the same cache key, so the config's first launch on the GPU finds the binary
in the cache and only loads it.

The workers are started once and kept (``prestart``): forked from this process (``fork``: they
inherit the imported triton and the kernels' modules, nothing is imported again) or from a
fresh server process that imports triton and the given modules once (``forkserver``). A job
whose kernel a worker cannot import, or whose inputs do not pickle, is said so in its outcome
(the pipeline then compiles it in a thread). The workers never touch CUDA.

This module imports neither torch nor triton at the top: a forkserver child unpickling
``compile_job`` loads only this module and what it imports.
"""

from __future__ import annotations

import importlib
import multiprocessing
import os
import pickle
import threading
import time
from collections.abc import Iterable, Mapping
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from ..data.errors import first_line, to_error_info
from ..data.results import ErrorInfo

__all__ = ["CompileJob", "JobOutcome", "ProcessCompiler", "compile_job", "jobs_for_launches", "prestart",
           "running", "shutdown"]


@dataclass(frozen=True)
class CompileJob:
    """One ``triton.compile`` call, as plain data."""

    module: str  # where the JITFunction lives (imported by the worker)
    qualname: str
    signature: dict
    constexprs: dict
    attrs: dict
    target: tuple  # (backend, arch, warp_size)
    options: dict
    env: dict = field(default_factory=dict)  # the parent's TRITON_* variables (cache dir, ...)


@dataclass
class JobOutcome:
    seconds: float = 0.0
    shared: int | None = None
    error: ErrorInfo | None = None  # the compiler failed: the config fails without a launch
    unavailable: str = ""  # the worker could not do it (a kernel it cannot import, ...)
    pid: int = 0


# ---------------------------------------------------------------------------------------------
# the worker side


def _apply_env(env: Mapping[str, str]) -> None:
    """The parent's TRITON_* environment (the cache dir above all), exactly."""
    for k in [k for k in os.environ if k.startswith("TRITON_") and k not in env]:
        del os.environ[k]
    os.environ.update(env)


def _find(module: str, qualname: str) -> Any:
    obj: Any = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


def compile_job(job: CompileJob) -> JobOutcome:
    """Run in a worker: compile ``job`` into Triton's cache."""
    t0 = time.perf_counter()
    _apply_env(job.env)
    try:
        fn = _find(job.module, job.qualname)
    except Exception as e:  # noqa: BLE001 - the pipeline compiles it elsewhere
        return JobOutcome(time.perf_counter() - t0, pid=os.getpid(),
                          unavailable=f"a compile process cannot import {job.module}.{job.qualname} "
                                      f"({first_line(f'{type(e).__name__}: {e}', 120)})")
    try:
        import triton
        from triton.backends.compiler import GPUTarget
        from triton.compiler import ASTSource

        ck = triton.compile(ASTSource(fn, job.signature, job.constexprs, job.attrs),
                            target=GPUTarget(*job.target), options=dict(job.options))
    except Exception as e:  # noqa: BLE001 - reported per point
        info = to_error_info(e, "compiling")
        if info.kind != "compile":
            return JobOutcome(time.perf_counter() - t0, pid=os.getpid(),
                              unavailable=f"compiling in a process failed ({first_line(info.message, 160)})")
        return JobOutcome(time.perf_counter() - t0, error=info, pid=os.getpid())
    shared = getattr(getattr(ck, "metadata", None), "shared", None)
    return JobOutcome(time.perf_counter() - t0, shared=int(shared) if shared is not None else None, pid=os.getpid())


def _warm_worker(modules: tuple[str, ...]) -> int:
    """Import what compiling needs (a no-op in a forked worker: it is all there)."""
    import triton.compiler  # noqa: F401
    from triton.backends.nvidia import compiler  # noqa: F401

    for m in modules:
        try:
            importlib.import_module(m)
        except Exception:  # noqa: BLE001 - a job naming it will say so
            pass
    return os.getpid()


# ---------------------------------------------------------------------------------------------
# the parent side


def triton_env() -> dict[str, str]:
    """The TRITON_* variables a worker must share with this process; the cache dir always."""
    from triton import knobs

    env = {k: v for k, v in os.environ.items() if k.startswith("TRITON_")}
    env["TRITON_CACHE_DIR"] = str(knobs.cache.dir)
    return env


def jobs_for_launches(launches: Iterable[tuple[Any, tuple, dict]], target: Any) -> list[CompileJob]:
    """A CompileJob per ``(jit_fn, args, kwargs)`` launch, for ``target`` (a GPUTarget or a
    name such as "sm_90"). Raises when a launch cannot be derived or shipped (ValueError for a
    kernel a worker could not import or inputs that do not pickle)."""
    from ..compile.target import compile_inputs

    env = triton_env()
    jobs = []
    for jit_fn, args, kwargs in launches:
        fn, signature, constexprs, attrs, options, gpu_target = compile_inputs(jit_fn, args, kwargs, target)
        module, qualname = getattr(fn, "__module__", ""), getattr(getattr(fn, "fn", None), "__qualname__", "")
        if not module or "<" in qualname or module == "__main__":
            raise ValueError(f"{getattr(fn, '__name__', 'the kernel')} is not importable by a compile process")
        job = CompileJob(module, qualname, signature, constexprs, attrs,
                         (gpu_target.backend, gpu_target.arch, gpu_target.warp_size), options, env)
        try:
            pickle.dumps(job)
        except Exception as e:  # noqa: BLE001 - e.g. a constexpr that is a function
            raise ValueError(f"the launch of {getattr(fn, '__name__', 'the kernel')} cannot be sent to a "
                             f"compile process ({type(e).__name__})") from e
        jobs.append(job)
    return jobs


def default_method() -> str:
    """"fork" where it is safe: the workers inherit triton and the kernels' modules and start in
    milliseconds. A process that has started CUDA forks a server instead (a forked CUDA
    context is unusable; the workers never use it, but a fresh server keeps them clean)."""
    import sys

    torch = sys.modules.get("torch")
    cuda_up = bool(torch is not None and getattr(torch.cuda, "is_initialized", lambda: False)())
    return "forkserver" if cuda_up else "fork"


class ProcessCompiler:
    """``workers`` compile processes, started now and kept."""

    def __init__(self, workers: int, method: str | None = None,
                 modules: tuple[str, ...] = ("kernels.catalog",)) -> None:
        self.workers = max(1, int(workers))
        self.method = method or default_method()
        ctx = multiprocessing.get_context(self.method)
        if self.method == "forkserver":
            ctx.set_forkserver_preload(["triton", "triton.compiler", *modules])
        t0 = time.perf_counter()
        self.executor = ProcessPoolExecutor(self.workers, mp_context=ctx)
        # one warm-up per worker at once: every worker starts now, not at the first sweep's jobs
        warm = [self.executor.submit(_warm_worker, tuple(modules)) for _ in range(self.workers)]
        self._ready = threading.Event()
        self.start_s: float | None = None
        self.pids: set[int] = set()

        def _done(_f: Future) -> None:
            if all(f.done() for f in warm):
                self.start_s = time.perf_counter() - t0
                self.pids = {f.result() for f in warm if not f.exception()}
                self._ready.set()
        for f in warm:
            f.add_done_callback(_done)

    def ready(self, timeout: float | None = 0.0) -> bool:
        return self._ready.wait(timeout)

    def submit(self, job: CompileJob) -> Future:
        return self.executor.submit(compile_job, job)

    def shutdown(self) -> None:
        self.executor.shutdown(wait=False, cancel_futures=True)


_POOL: ProcessCompiler | None = None
_POOL_LOCK = threading.Lock()


def prestart(workers: int | None = None, method: str | None = None,
             modules: tuple[str, ...] = ("kernels.catalog",)) -> ProcessCompiler:
    """Start (or return) the shared pool of compile processes; call it early (a worker process at
    start-up), so the first sweep finds the workers ready. ``workers``: default one per CPU
    core but one (that one feeds the GPU)."""
    global _POOL
    n = workers or max(1, (os.cpu_count() or 1) - 1)
    with _POOL_LOCK:
        if _POOL is not None and (_POOL.workers != n or (method and _POOL.method != method)):
            _POOL.shutdown()
            _POOL = None
        if _POOL is None:
            _POOL = ProcessCompiler(n, method, modules)
        return _POOL


def running() -> ProcessCompiler | None:
    """The shared pool when it is started and ready, else None."""
    pool = _POOL
    return pool if pool is not None and pool.ready(0.0) else None


def shutdown() -> None:
    global _POOL
    with _POOL_LOCK:
        if _POOL is not None:
            _POOL.shutdown()
            _POOL = None
