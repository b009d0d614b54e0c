"""A worker's head start: what a process pays once, done while it waits for its first request.

A window opens its worker at start, and the worker then waits for the user. Without this, the
first sweep (or run) on a GPU paid, before its first config could compile (figures:
docs/benchmarks/sweep.md, "First sweep"; docs/benchmarks/gpu-trace.md):

- **sympy**: torch's shape arithmetic (``torch.broadcast_shapes`` in the inputs' dry run,
  ``kernels.run.memory``) imports ``torch._refs`` and sympy on first use;
- **Triton's start**: hashing its own install (``triton_key``) and importing Gluon, at the first
  compile;
- **Triton's CUDA driver**: its helper module, built with gcc into Triton's cache when that cache
  is fresh, at the first use of the driver (a compile thread);
- **cuBLAS and NVML**: the first torch matmul (the torch baseline, the float64 reference) and the
  first clock reading.

``start(gpu)`` runs those steps once per process on a daemon thread (the GPU ones only with a
GPU); ``wait()`` joins it — a sweep does so before it starts, so that the steps are never done
twice at once (two threads importing the same modules, or building the same driver helper).
Each step is only a head start: one that fails leaves the work to its first real use.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable

__all__ = ["WAIT_LIMIT_S", "start", "steps_done", "wait"]

#: the longest a sweep waits for the head start (one stuck — a gcc that hangs — is not waited for)
WAIT_LIMIT_S = 60.0

_LOCK = threading.Lock()
_THREAD: dict[str, threading.Thread] = {}
#: step name -> seconds it took ("" steps that failed are absent)
_DONE: dict[str, float] = {}


def _sympy() -> None:
    import torch

    torch.broadcast_shapes((2, 1), (1, 2))  # the dry run's path: torch._refs, sympy


def _triton() -> None:
    from triton.runtime.cache import triton_key

    triton_key()
    with contextlib.suppress(Exception):
        import triton.experimental.gluon  # noqa: F401


def _driver() -> None:
    import triton

    triton.runtime.driver.active.get_current_target()  # builds (or loads) the driver's helper


def _cublas() -> None:
    import torch

    for dt in (torch.float16, torch.float64):  # the baseline's dtype and the reference's
        a = torch.ones((64, 64), dtype=dt, device="cuda")
        (a @ a).sum().item()


def _nvml() -> None:
    from ..run import timing

    timing.sensor()


def _steps(gpu: bool) -> list[tuple[str, Callable[[], None]]]:
    out = [("sympy", _sympy), ("triton", _triton)]
    if gpu:
        out += [("driver", _driver), ("cublas", _cublas), ("nvml", _nvml)]
    return out


def _run(gpu: bool) -> None:
    for name, step in _steps(gpu):
        t0 = time.perf_counter()
        try:
            step()
        except Exception:  # noqa: BLE001 - a head start only: the first real use does it
            continue
        _DONE[name] = time.perf_counter() - t0


def start(gpu: bool) -> threading.Thread:
    """Start the head start (once per process; later calls return the same thread)."""
    with _LOCK:
        t = _THREAD.get("warm")
        if t is None:
            t = threading.Thread(target=_run, args=(bool(gpu),), name="tilescope-warm-start", daemon=True)
            _THREAD["warm"] = t
            t.start()
        return t


def wait(timeout: float | None = None) -> float:
    """Join the head start if one was started; the seconds waited (0.0 when none runs)."""
    t = _THREAD.get("warm")
    if t is None or not t.is_alive():
        return 0.0
    t0 = time.perf_counter()
    t.join(timeout)
    return time.perf_counter() - t0


def steps_done() -> dict[str, float]:
    """The steps finished so far and their seconds."""
    return dict(_DONE)
