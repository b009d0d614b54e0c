"""Demo data for the panels' previews and tests — numpy only, no torch, no triton.

The kernels are the catalog's own: their ``KernelInfo`` (parameters, rules, source) is recorded in
``resources/demo/kernel_infos.pkl.gz`` by ``python -m kernels.trace.demo_fixtures``. The *measurements*
are made up from a small formula plus noise, since no GPU runs here: the device is called
"Synthetic GPU (demo data)" and every RunResult carries the note "synthetic demo data" so
nothing can pass for a real figure.
"""

from __future__ import annotations

import dataclasses
import math
import time
from typing import Any

import numpy as np

from kernels.data.backends import GPU, INTERPRETER, is_gpu, is_interpreter
from kernels.data.results import (
    CheckResult,
    CompileFacts,
    ErrorInfo,
    KernelInfo,
    Metrics,
    RunRequest,
    RunResult,
    SweepPoint,
    SweepRequest,
    SweepResult,
    Timing,
)

from .demo.fixtures import kernel_info
from .history_rows import history_row

__all__ = [
    "DEMO_DEVICE",
    "DEMO_PEAK_GBPS",
    "DEMO_PEAK_TFLOPS",
    "demo_check",
    "demo_compile_facts",
    "demo_history_rows",
    "demo_kernels",
    "demo_run_result",
    "demo_run_results",
    "demo_sweep_1d",
    "demo_sweep_2d",
    "matmul_info",
    "softmax_info",
    "vector_add_info",
]

DEMO_DEVICE = "Synthetic GPU (demo data)"
DEMO_PEAK_GBPS = 4000.0
DEMO_PEAK_TFLOPS = 700.0
_NOTE = "synthetic demo data"


def vector_add_info(origin: str = "catalog", name: str = "vector_add") -> KernelInfo:
    """The catalog's vector add; with another ``origin`` (a file) and ``name``, the same kernel as
    if a user's file registered it."""
    info = kernel_info("vector_add")
    if origin == "catalog":
        return info
    return dataclasses.replace(info, name=name, title=f"Vector add ({name})", source_file=origin, origin=origin)


def matmul_info() -> KernelInfo:
    """The catalog's matmul: several block sizes, a group size, a flag and a rule over shapes."""
    return kernel_info("matmul")


def softmax_info() -> KernelInfo:
    """The catalog's fused softmax: its rule ties BLOCK_SIZE to N (a whole row per block)."""
    return kernel_info("softmax")


def demo_kernels() -> list[KernelInfo]:
    """A catalog-like list: vector add and mul, softmax, matmul, and one kernel from a user's file."""
    user = dataclasses.replace(vector_add_info(origin="/home/me/kernels/my_add.py", name="my_add"),
                               title="My add", summary="my copy of vector add")
    return [vector_add_info(), kernel_info("vector_mul"), softmax_info(), matmul_info(), user]


def _synthetic_gbps(values: dict[str, Any], rng: np.random.Generator) -> float:
    # A made-up curve: small blocks waste issue slots, huge blocks spill; best near 1-4K.
    b = values.get("BLOCK_SIZE", 1024)
    eff = 0.92 * math.exp(-((math.log2(b) - 11.0) ** 2) / 18.0)
    return DEMO_PEAK_GBPS * eff * float(rng.uniform(0.97, 1.03))


def demo_run_result(values: dict[str, Any] | None = None, *, backend: str = GPU, metric: str = "GB/s",
                    rng: np.random.Generator | None = None, failed_check: bool = False) -> RunResult:
    """One synthetic RunResult; GPU results carry throughput, interpreter ones only wall-clock ms."""
    rng = rng if rng is not None else np.random.default_rng(0)
    vals = {"BLOCK_SIZE": 1024, "num_warps": 4, "num_stages": 3, "N": 1 << 24, "dtype": "fp32"}
    vals.update(values or {})
    n = int(vals.get("N", 1 << 24))
    nbytes = 3 * n * (2 if vals.get("dtype") in ("fp16", "bf16") else 4)
    flops = n
    interp = is_interpreter(backend)
    if interp:
        ms = 0.5 * math.ceil(n / vals["BLOCK_SIZE"]) * float(rng.uniform(0.9, 1.1))
        timing = Timing("interpreter wall clock", ms, ms * 0.96, ms * 1.05, 3, is_interpreter=True)
        torch_ms = ms / 400 * float(rng.uniform(0.9, 1.1))
        metrics = Metrics(nbytes, flops, torch_timing=Timing("interpreter wall clock", torch_ms,
                                                             torch_ms * 0.95, torch_ms * 1.05, 3, True))
        device = "CPU (Triton interpreter)"
    else:
        if metric == "TFLOP/s":
            tflops = DEMO_PEAK_TFLOPS * float(rng.uniform(0.4, 0.75))
            flops = 2 * 2048**3
            ms = flops / (tflops * 1e9)
        else:
            gbps = _synthetic_gbps(vals, rng)
            ms = nbytes / (gbps * 1e6)
        timing = Timing("gpu: do_bench (synthetic)", ms, ms * float(rng.uniform(0.97, 0.995)),
                        ms * float(rng.uniform(1.005, 1.04)), 100)
        torch_ms = ms * float(rng.uniform(0.9, 1.15))
        metrics = Metrics(
            nbytes, flops,
            gbps=nbytes / (ms * 1e6), tflops=flops / (ms * 1e9),
            torch_timing=Timing("gpu: do_bench (synthetic)", torch_ms, torch_ms * 0.98, torch_ms * 1.02, 100),
            torch_gbps=nbytes / (torch_ms * 1e6), torch_tflops=flops / (torch_ms * 1e9),
            ratio_vs_torch=torch_ms / ms, peak_gbps=DEMO_PEAK_GBPS, peak_tflops=DEMO_PEAK_TFLOPS,
        )
        metrics.pct_peak_bw = 100 * metrics.gbps / DEMO_PEAK_GBPS
        metrics.pct_peak_flops = 100 * metrics.tflops / DEMO_PEAK_TFLOPS
        device = DEMO_DEVICE
    grid = (math.ceil(n / vals["BLOCK_SIZE"]),)
    return RunResult(
        request=RunRequest("vector_add", dict(vals), backend=backend), kernel="vector_add", values=vals,
        backend=backend, device=device, grid=grid,
        check=demo_check(passed=not failed_check, n=min(n, 4096)), timing=timing, metrics=metrics,
        compile=None if interp else demo_compile_facts(vals),
        notes=[_NOTE] + (["num_warps has no effect under the interpreter"] if interp else []),
    )


def demo_run_results(count: int, *, backend: str = GPU, seed: int = 0) -> list[RunResult]:
    """``count`` runs stepping through block sizes and warps, as a person trying configs would."""
    rng = np.random.default_rng(seed)
    blocks = [2**k for k in range(6, 15)]
    out = []
    for i in range(count):
        vals = {"BLOCK_SIZE": blocks[i % len(blocks)], "num_warps": (1, 2, 4, 8)[(i // len(blocks)) % 4]}
        if is_interpreter(backend):
            vals["N"] = 4096
        out.append(demo_run_result(vals, backend=backend, rng=rng))
    return out


def demo_check(passed: bool = False, n: int = 10000, output: str = "out", dtype: str = "fp32",
               seed: int = 1) -> CheckResult:
    """A check of a 1-D output. Failing: the tail was never written, a few wrong values, 2 NaNs."""
    rng = np.random.default_rng(seed)
    atol, rtol = 1e-6, 1e-5
    err = np.abs(rng.normal(0.0, 2e-8, n)).astype(np.float32)
    reason = ""
    if not passed:
        tail = min(300, n // 4)
        err[n - tail:] = np.inf  # as if the mask were `offsets < n - BLOCK`: the last block skipped
        wrong = rng.choice(n - tail, size=min(12, n // 10), replace=False)
        err[wrong] = rng.uniform(1e-3, 5e-2, wrong.size).astype(np.float32)
        nan_at = [i for i in (n // 3, n // 3 + 1) if i < n - tail]
        err[nan_at] = np.nan
        reason = (f"{tail} elements never written (still NaN-poisoned); "
                  f"{wrong.size + len(nan_at)} elements outside atol+rtol*|ref|")
    finite = np.isfinite(err)
    n_unwritten = int(np.isinf(err).sum())
    n_nan = int(np.isnan(err).sum())
    n_mismatch = int((~finite).sum() + (err[finite] > atol).sum())
    max_abs = float(err[finite].max()) if finite.any() else float("nan")
    return CheckResult(
        passed=passed, output=output, dtype=dtype, max_abs_err=max_abs,
        rel_err=float(np.sqrt(np.sum(err[finite] ** 2)) / math.sqrt(n)), atol=atol, rtol=rtol,
        n_elements=n, n_mismatch=n_mismatch, n_unwritten=n_unwritten, n_nan=n_nan,
        n_inf=0, error_map=err, reason=reason or "all elements within atol + rtol*|ref|",
    )


_TTIR = """// synthetic demo text, not compiler output
module {
  tt.func public @binary_kernel(%x_ptr: !tt.ptr<f32>, %y_ptr: !tt.ptr<f32>, %out_ptr: !tt.ptr<f32>,
                                %n_elements: i32) {
    %c1024_i32 = arith.constant 1024 : i32
    %pid = tt.get_program_id x : i32
    %start = arith.muli %pid, %c1024_i32 : i32
    %range = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
    %offs = arith.addi %splat, %range : tensor<1024xi32>
    %mask = arith.cmpi slt, %offs, %n : tensor<1024xi32>
    %x = tt.load %xp, %mask : tensor<1024x!tt.ptr<f32>>
    %y = tt.load %yp, %mask : tensor<1024x!tt.ptr<f32>>
    %sum = arith.addf %x, %y : tensor<1024xf32>
    tt.store %op, %sum, %mask : tensor<1024x!tt.ptr<f32>>
    tt.return
  }
}
"""
_PTX = """// synthetic demo text, not compiler output
.version 8.4
.target sm_90a
.address_size 64
.visible .entry binary_kernel(
    .param .u64 binary_kernel_param_0,
    .param .u64 binary_kernel_param_1,
    .param .u64 binary_kernel_param_2,
    .param .u32 binary_kernel_param_3
)
{
    .reg .pred  %p<7>;
    .reg .b32   %r<33>;
    .reg .f32   %f<25>;
    .reg .b64   %rd<11>;
    mov.u32     %r1, %ctaid.x;
    shl.b32     %r2, %r1, 10;
    ld.global.v4.b32 { %r3, %r4, %r5, %r6 }, [ %rd1 + 0 ];
    add.f32     %f1, %f2, %f3;
    st.global.v4.b32 [ %rd2 + 0 ], { %r7, %r8, %r9, %r10 };
    ret;
}
"""


def demo_compile_facts(values: dict[str, Any] | None = None) -> CompileFacts:
    vals = {"num_warps": 4, "num_stages": 3, "BLOCK_SIZE": 1024, "N": 1 << 24, **(values or {})}
    n_programs = math.ceil(vals["N"] / vals["BLOCK_SIZE"])
    per_sm = 16
    return CompileFacts(
        n_regs=26, n_spills=0, shared_bytes=0, num_warps=vals["num_warps"], num_stages=vals["num_stages"],
        asm={"ttir": _TTIR, "ttgir": _TTIR.replace("tt.func", "tt.func /* #blocked layout */"),
             "llir": "; synthetic demo text, not compiler output\ndefine void @binary_kernel(ptr addrspace(1) %0) {\n  ret void\n}\n",
             "ptx": _PTX},
        programs_per_sm=per_sm, occupancy_limiter="blocks", occupancy_warps_pct=100.0 * per_sm * vals["num_warps"] / 64,
        waves=n_programs / (132 * per_sm), n_programs=n_programs, n_sms=132,
    )


def _failed(values: dict[str, Any], message: str, kind: str = "compile") -> RunResult:
    return RunResult(request=RunRequest("demo", dict(values)), kernel="demo", values=dict(values), backend=GPU,
                     device=DEMO_DEVICE, error=ErrorInfo(kind, message), notes=[_NOTE])


def demo_sweep_1d(seed: int = 0) -> SweepResult:
    """BLOCK_SIZE from 16 to 65536 for vector add; the largest block fails to compile."""
    rng = np.random.default_rng(seed)
    values = [2**k for k in range(4, 17)]
    points = []
    for b in values:
        if b == 65536:
            res = _failed({"BLOCK_SIZE": b}, "out of resources: required registers exceed the limit (synthetic)")
        else:
            res = demo_run_result({"BLOCK_SIZE": b}, rng=rng)
        points.append(SweepPoint({"BLOCK_SIZE": b}, res))
    return SweepResult(SweepRequest("vector_add", {"N": 1 << 24}, {"BLOCK_SIZE": values}), points, _best(points))


def demo_sweep_2d(seed: int = 0) -> SweepResult:
    """BLOCK_M x BLOCK_N for a matmul; 256x256 runs out of shared memory."""
    rng = np.random.default_rng(seed)
    ms_, ns_ = [16, 32, 64, 128, 256], [16, 32, 64, 128, 256]
    points = []
    for bm in ms_:
        for bn in ns_:
            vals = {"BLOCK_M": bm, "BLOCK_N": bn}
            if bm * bn > 128 * 256:
                res = _failed(vals, "out of resources: shared memory, required 262144 > 232448 (synthetic)")
            else:
                res = demo_run_result(vals, metric="TFLOP/s", rng=rng)
                # a made-up surface peaking at 128x128, so the best cell is predictable
                shape_eff = math.exp(-((math.log2(bm) - 7) ** 2 + (math.log2(bn) - 7) ** 2) / 6.0)
                t = DEMO_PEAK_TFLOPS * 0.75 * shape_eff * float(rng.uniform(0.98, 1.0))
                res.metrics.tflops = t
                res.metrics.torch_tflops = DEMO_PEAK_TFLOPS * 0.7
            points.append(SweepPoint(vals, res))
    req = SweepRequest("matmul", {"M": 2048, "N": 2048, "K": 2048}, {"BLOCK_M": ms_, "BLOCK_N": ns_})
    return SweepResult(req, points, _best(points, "TFLOP/s"))


def _best(points: list[SweepPoint], metric: str = "GB/s") -> int | None:
    best, best_v = None, -1.0
    for i, p in enumerate(points):
        m = p.result.metrics
        v = None if (m is None or not p.result.ok) else (m.tflops if metric == "TFLOP/s" else m.gbps)
        if v is not None and v > best_v:
            best, best_v = i, v
    return best


def demo_history_rows(count: int = 3, seed: int = 0) -> list[dict[str, Any]]:
    """Rows in the shape ``HistoryView.set_rows`` takes (see ``views.history_rows.history_row``)."""
    rng = np.random.default_rng(seed)
    now = time.time()
    rows = []
    for i in range(count):
        backend = INTERPRETER if i % 3 == 2 else GPU
        vals = {"BLOCK_SIZE": 2 ** (8 + i % 6), "num_warps": (4, 8)[i % 2], "N": 4096 if not is_gpu(backend) else 1 << 24}
        res = demo_run_result(vals, backend=backend, rng=rng, failed_check=(i % 4 == 3))
        rows.append(history_row(i + 1, res, "GB/s", when=now - 60 * (count - i)))
    return rows
