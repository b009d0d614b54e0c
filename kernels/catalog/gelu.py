"""GELU, the activation of BERT and GPT: ``gelu(x) = x * Phi(x)``, Phi the normal CDF.

Two forms, chosen by the APPROX_TANH flag, matching ``torch.nn.functional.gelu``'s
``approximate="none"`` (exact, through erf) and ``approximate="tanh"``.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

from ..data.params import Rule, block, dtype_param, flag, num_stages, num_warps, shape
from ..specs.spec import KernelSpec, register
from ._common import ELEMENT_BYTES, TORCH_DTYPES, randn

__all__ = ["gelu", "gelu_kernel"]


@triton.jit
def gelu_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr, APPROX_TANH: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements  # the last block may run past the end
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)  # fp16/bf16 computed in fp32
    if APPROX_TANH:
        # 0.5 * x * (1 + tanh(u)), u = sqrt(2/pi) * (x + 0.044715 x^3).
        # tl.math has no tanh on every Triton version; use 1 + tanh(u) = 2 / (1 + exp(-2u)),
        # so the whole thing is x / (1 + exp(-2u)). For very negative x, exp(-2u) overflows to
        # +inf and x / inf = -0 (the right limit); for large positive x it is 0 and y = x.
        # No inf - inf or inf / inf can occur, so no NaN for any finite x.
        u = 0.7978845608028654 * (x + 0.044715 * x * x * x)
        y = x / (1.0 + tl.exp(-2.0 * u))
    else:
        # exact: x * Phi(x) = 0.5 * x * (1 + erf(x / sqrt(2)))
        y = 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476))
    tl.store(out_ptr + offsets, y.to(out_ptr.dtype.element_ty), mask=mask)


def _make_inputs(cfg, device, gen):
    n, dt = cfg["N"], TORCH_DTYPES[cfg["dtype"]]
    return {
        # scale 3: covers GELU's curved region (|x| < 3) and both of its nearly linear tails
        "x": randn((n,), dt, device, gen, scale=3.0),
        "out": torch.empty((n,), dtype=dt, device=device),
    }


def _launch(K, t, cfg, grid):
    n = cfg["N"]
    return K(gelu_kernel)[grid](t["x"], t["out"], n, BLOCK_SIZE=cfg["BLOCK_SIZE"],
                                APPROX_TANH=cfg["APPROX_TANH"],
                                num_warps=cfg["num_warps"], num_stages=cfg["num_stages"])


def _approximate(cfg) -> str:
    return "tanh" if cfg["APPROX_TANH"] else "none"


gelu = register(KernelSpec(
    name="gelu",
    title="GELU (erf or tanh approximation)",
    summary="out = gelu(x), elementwise; APPROX_TANH picks the tanh form over the exact erf form",
    teaching=(
        "An elementwise kernel like vector add, with more arithmetic per element: still limited by "
        "memory, so the GB/s to aim for is the copy bandwidth. The exact form uses erf; the tanh "
        "form is written as x / (1 + exp(-2u)), the same function, because 1 + tanh(u) = "
        "2 / (1 + exp(-2u)) and that form cannot produce NaN when exp overflows. fp16/bf16 inputs "
        "are computed in fp32 and rounded once on store."
    ),
    kernels=(gelu_kernel,),
    params=(
        block("BLOCK_SIZE", 1024, lo=16, hi=1 << 16),
        num_warps(4),
        num_stages(3),
        shape("N", 98432, hi=1 << 31, help="number of elements"),
        dtype_param(("fp32", "fp16", "bf16")),
        flag("APPROX_TANH", False, help="tanh approximation (torch approximate='tanh') instead of erf"),
    ),
    # offsets are int32: the padded last block must stay below 2**31 or its masked lanes wrap
    rules=(Rule("N + BLOCK_SIZE <= 2**31", "N must stay below 2**31 - BLOCK_SIZE (int32 offsets)",
                ("N",)),),
    make_inputs=_make_inputs,
    grid_exprs=("cdiv(N, BLOCK_SIZE)",),
    launch=_launch,
    reference=lambda t, cfg: {"out": torch.nn.functional.gelu(t["x"].double(), approximate=_approximate(cfg))},
    torch_op=lambda t, cfg: torch.nn.functional.gelu(t["x"], approximate=_approximate(cfg)),
    outputs=("out",),
    # read x once, write out once
    bytes_moved=lambda cfg: 2 * cfg["N"] * ELEMENT_BYTES[cfg["dtype"]],
    # tanh form: ~8 multiply/adds + exp + divide; counted as 8 per element for both forms
    flops=lambda cfg: 8 * cfg["N"],
    metric="GB/s",
    # fp16 stores round to 2**-11 relative, bf16 to 2**-8; fp32 differs from float64 only by
    # erf/exp rounding (a few ulp)
    tolerances={"fp32": (1e-5, 1e-5), "fp16": (1e-3, 2e-3), "bf16": (1e-2, 1e-2)},
    # more elements per thread gives the erf polynomial's latency more independent work to hide it
    autotune_configs=tuple({"BLOCK_SIZE": b, "num_warps": w} for b in (1024, 2048, 4096) for w in (4, 8)),
    bench_cases=tuple(
        {"N": 1 << 28, "BLOCK_SIZE": 1024, "num_warps": 4, "dtype": dt, "APPROX_TANH": approx}
        for dt in ("fp32", "fp16") for approx in (False, True)
    ),
))
