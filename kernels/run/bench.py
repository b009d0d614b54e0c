"""Timing and the metrics built on it.

GPU: ``triton.testing.do_bench`` itself (warm-up, L2 flushed before every rep, CUDA events). It
is asked for every rep's time (``return_mode="all"``) so that the median and the 20th/80th
percentiles come from one set of reps and the rep count is known; the median is the same
``statistics.median`` that ``do_bench(return_mode="median")`` returns.

Runs, sweeps, ``bench`` and the window time the GPU through the timing policy,
``kernels.run.timing`` (warmed to a steady clock, torch interleaved, clocks recorded), which
builds its Timings with ``timing_from_samples`` here; ``gpu_time`` (do_bench as it is) stays for
scripts that want Triton's own numbers. ``LIVE_WARMUP_MS``/``LIVE_REP_MS`` were the window's
do_bench budgets before the policy (kept for old callers).

Interpreter: the wall clock of the launch on the CPU. It measures Python executing the kernel
program by program and says nothing about GPU speed; it is labelled so everywhere it shows.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from ..data.results import Metrics, Timing

__all__ = ["GPU_METHOD", "INTERPRETER_METHOD", "CPU_TORCH_METHOD", "LIVE_REP_MS", "LIVE_WARMUP_MS", "gpu_time",
           "wall_time", "timing_from_samples", "metrics"]

GPU_METHOD = "gpu: triton.testing.do_bench (CUDA events, L2 flushed, median of reps)"
INTERPRETER_METHOD = "interpreter wall clock (CPU), not GPU speed"
CPU_TORCH_METHOD = "torch on the CPU, wall clock"
#: do_bench's warm-up and measuring budgets (ms) for a window's repeated runs (see the module doc)
LIVE_WARMUP_MS = 10
LIVE_REP_MS = 50


def timing_from_samples(samples_ms: list[float], method: str, is_interpreter: bool = False) -> Timing:
    """Median and 20th/80th percentiles (linear interpolation, as torch.quantile) of samples."""
    a = np.asarray(samples_ms, dtype=np.float64)
    p20, p80 = (float(v) for v in np.quantile(a, [0.2, 0.8]))
    return Timing(method=method, median_ms=float(statistics.median(samples_ms)), p20_ms=p20,
                  p80_ms=p80, n_reps=len(samples_ms), is_interpreter=is_interpreter)


def gpu_time(fn: Callable[[], Any], warmup: int = 25, rep: int = 100) -> Timing:
    """Time ``fn`` on the GPU with triton.testing.do_bench (ms per call)."""
    import triton.testing

    samples = triton.testing.do_bench(fn, warmup=warmup, rep=rep, return_mode="all")
    return timing_from_samples(list(samples), GPU_METHOD)


def wall_time(fn: Callable[[], Any], reps: int = 1, method: str = INTERPRETER_METHOD,
              is_interpreter: bool = True, budget_s: float | None = None) -> Timing:
    """Wall-clock ``fn`` ``reps`` times (fewer if ``budget_s`` runs out after the first)."""
    samples: list[float] = []
    start = time.perf_counter()
    for _ in range(max(1, reps)):
        t0 = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t0) * 1e3)
        if budget_s is not None and time.perf_counter() - start > budget_s:
            break
    return timing_from_samples(samples, method, is_interpreter)


def metrics(bytes_moved: int, flops: int, timing: Timing | None, torch_timing: Timing | None = None,
            peak_gbps: float | None = None, peak_tflops: float | None = None) -> Metrics:
    """GB/s = bytes/ms/1e6, TFLOP/s = flops/ms/1e9, ratio = torch ms / Triton ms, % of peaks."""
    m = Metrics(bytes_moved=int(bytes_moved), flops=int(flops), torch_timing=torch_timing,
                peak_gbps=peak_gbps, peak_tflops=peak_tflops)
    if timing is not None and timing.median_ms > 0:
        ms = timing.median_ms
        m.gbps = bytes_moved / ms / 1e6 if bytes_moved else None
        m.tflops = flops / ms / 1e9 if flops else None
        if peak_gbps and m.gbps is not None:
            m.pct_peak_bw = 100.0 * m.gbps / peak_gbps
        if peak_tflops and m.tflops is not None:
            m.pct_peak_flops = 100.0 * m.tflops / peak_tflops
    if torch_timing is not None and torch_timing.median_ms > 0:
        tms = torch_timing.median_ms
        m.torch_gbps = bytes_moved / tms / 1e6 if bytes_moved else None
        m.torch_tflops = flops / tms / 1e9 if flops else None
        if timing is not None and timing.median_ms > 0:
            m.ratio_vs_torch = tms / timing.median_ms
    return m
