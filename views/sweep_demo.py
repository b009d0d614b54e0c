"""A synthetic tune sweep for the previews of the sweep views — numpy only, no torch, no triton.

A matmul swept over BLOCK_M × BLOCK_N × BLOCK_K × num_warps on "Synthetic GPU (demo data)": the
figures come from a made-up surface (best near 128 × 128), the configs whose A and B tiles
cannot fit are pruned with the engine's wording, one config fails to compile, and every run
carries compile facts and the device's peaks, so each view has something to show. The ranking
and verdicts are made by ``kernels.data.tuning.rank``, as the engine makes them. Nothing here may pass
for a measurement: every run carries the note "synthetic demo data".
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np

from kernels.data.backends import GPU, is_interpreter
from kernels.data.results import (
    CompileFacts,
    ErrorInfo,
    Metrics,
    RunRequest,
    RunResult,
    SweepPoint,
    SweepRequest,
    SweepResult,
    Timing,
)
from kernels.data.tuning import rank as tune_rank

__all__ = ["DEMO_AXES", "DEMO_PEAK_GBPS", "DEMO_PEAK_TFLOPS", "demo_run", "demo_sweep_tune"]

DEMO_DEVICE = "Synthetic GPU (demo data)"
DEMO_PEAK_GBPS = 4000.0
DEMO_PEAK_TFLOPS = 700.0
DEMO_AXES: dict[str, list[Any]] = {"BLOCK_M": [32, 64, 128, 256], "BLOCK_N": [32, 64, 128, 256],
                                   "BLOCK_K": [32, 64], "num_warps": [4, 8]}
_BASE = {"M": 4096, "N": 4096, "K": 4096, "dtype": "fp16", "GROUP_SIZE_M": 8, "num_stages": 4}
_SHARED_LIMIT = 232448
_NOTE = "synthetic demo data"


def demo_run(values: dict[str, Any], ms: float, *, backend: str = GPU, spread: float = 0.03,
             peaks: bool = True) -> RunResult:
    """A passing run of ``values`` timed at ``ms`` (figures from the matmul work model)."""
    m, n, k = values.get("M", 4096), values.get("N", 4096), values.get("K", 4096)
    flops, nbytes = 2 * m * n * k, 2 * (m * k + k * n + m * n)
    interp = is_interpreter(backend)
    t = Timing("interpreter wall clock (CPU), not GPU speed" if interp else "synthetic", ms, ms * (1 - spread),
               ms * (1 + spread), 1 if interp else 20, is_interpreter=interp)
    metrics = Metrics(bytes_moved=nbytes, flops=flops, gbps=nbytes / ms / 1e6, tflops=flops / ms / 1e9,
                      peak_gbps=DEMO_PEAK_GBPS if peaks and not interp else None,
                      peak_tflops=DEMO_PEAK_TFLOPS if peaks and not interp else None)
    compile_facts = None
    if not interp:
        bm, bn, bk = values.get("BLOCK_M", 64), values.get("BLOCK_N", 64), values.get("BLOCK_K", 32)
        warps = values.get("num_warps", 4)
        regs = min(255, 32 + bm * bn // (32 * warps))
        per_sm = max(1, min(65536 // (regs * 32 * warps), _SHARED_LIMIT // ((bm * bk + bk * bn) * 2 * 4)))
        compile_facts = CompileFacts(n_regs=regs, n_spills=max(0, bm * bn // (32 * warps) + 32 - 255),
                                     shared_bytes=(bm * bk + bk * bn) * 2 * 4, num_warps=warps, num_stages=4,
                                     programs_per_sm=per_sm, occupancy_limiter="registers",
                                     occupancy_warps_pct=min(100.0, 100.0 * per_sm * warps / 64))
    return RunResult(request=RunRequest("matmul", dict(values)), kernel="matmul", values=dict(values),
                     backend=backend, device="CPU (Triton interpreter)" if interp else DEMO_DEVICE, timing=t,
                     metrics=metrics, compile=compile_facts, notes=[_NOTE])


def _ms(v: dict[str, Any], rng: np.random.Generator) -> float:
    eff = math.exp(-((math.log2(v["BLOCK_M"]) - 7) ** 2 + (math.log2(v["BLOCK_N"]) - 7) ** 2) / 5.0)
    eff *= 1.0 if v["BLOCK_K"] == 64 else 0.93
    eff *= 1.0 if (v["num_warps"] == 8) == (v["BLOCK_M"] * v["BLOCK_N"] >= 16384) else 0.9
    return 2 * 4096**3 / (DEMO_PEAK_TFLOPS * 0.8 * eff * 1e9) * float(rng.uniform(1.0, 1.02))


def demo_sweep_tune(seed: int = 0) -> SweepResult:
    """The 4-axis matmul sweep described in the module doc, ranked, with export texts."""
    rng = np.random.default_rng(seed)
    names = list(DEMO_AXES)
    points = []
    for i, combo in enumerate(itertools.product(*DEMO_AXES.values())):
        v = dict(zip(names, combo, strict=True))
        values = {**_BASE, **v}
        shared = (v["BLOCK_M"] * v["BLOCK_K"] + v["BLOCK_K"] * v["BLOCK_N"]) * 2 * 4
        pruned = ""
        if shared > _SHARED_LIMIT:
            pruned = (f"shared memory: needs about {shared:,} B ((BLOCK_M*BLOCK_K + BLOCK_K*BLOCK_N) x 2 B (fp16) "
                      f"x 4 stages), the device allows {_SHARED_LIMIT:,} B per program")
            res = RunResult(RunRequest("matmul", values), "matmul", values, GPU, DEMO_DEVICE, notes=[_NOTE],
                            error=ErrorInfo("pruned", f"skipped before compiling: {pruned}"))
        elif v == {"BLOCK_M": 256, "BLOCK_N": 32, "BLOCK_K": 64, "num_warps": 4}:
            res = RunResult(RunRequest("matmul", values), "matmul", values, GPU, DEMO_DEVICE, notes=[_NOTE],
                            error=ErrorInfo("compile", "out of resources: registers (synthetic)"))
        else:
            res = demo_run(values, _ms(v, rng))
        points.append(SweepPoint(v, res, index=i, pruned=pruned, estimate={"shared_bytes": shared},
                                 compile_s=float(rng.uniform(0.8, 2.5)) if not pruned else None))
    ranking, verdicts = tune_rank.rank(points, [], names)
    for e in ranking[:3]:  # the engine re-measures the fastest three, interleaved
        t = points[e.index].result.timing
        assert t is not None
        points[e.index].remeasured = Timing("synthetic re-measure", t.median_ms, t.p20_ms, t.p80_ms, 100)
    ranking, verdicts = tune_rank.rank(points, [], names)
    best = ranking[0].index if ranking else None
    req = SweepRequest("matmul", dict(_BASE), {k: list(v) for k, v in DEMO_AXES.items()}, mode="tune",
                       where=["BLOCK_M * BLOCK_N <= 65536"])
    n_pruned = sum(1 for p in points if p.pruned)
    exports = {"autotune": "# synthetic demo export\n@triton.autotune(configs=[], key=['M', 'N', 'K'])\n",
               "triton_op": "# synthetic demo export: a triton_op module\n"}
    return SweepResult(req, points, best, names=names, n_pruned=n_pruned, ranking=ranking, verdicts=verdicts,
                       phases={"plan": 0.1, "compile": 20.0, "bench": 12.0, "remeasure": 2.0, "total": 34.0},
                       exports=exports, notes=[_NOTE])
