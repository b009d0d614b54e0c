"""LayerNorm forward (Triton tutorial 05): per row, normalize to zero mean and unit variance,
then scale by ``weight`` and shift by ``bias``. Also writes each row's mean and 1/std, which a
backward pass would reuse.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

from ..data.params import block, dtype_param, num_stages, num_warps, shape
from ..specs.spec import KernelSpec, register
from ._common import ELEMENT_BYTES, TORCH_DTYPES, next_pow2, rand, randn

__all__ = ["EPS", "layernorm", "layernorm_fwd_kernel"]

#: the epsilon added to the variance (torch's default for layer_norm)
EPS = 1e-5


@triton.jit
def layernorm_fwd_kernel(X, Y, W, B, Mean, Rstd, stride_x, stride_y, N, eps,
                         BLOCK_SIZE: tl.constexpr, ONE_BLOCK: tl.constexpr):
    row = tl.program_id(0)  # one program per row
    X += row.to(tl.int64) * stride_x  # int64: row * stride may pass 2**31 on big inputs
    Y += row.to(tl.int64) * stride_y
    if ONE_BLOCK:
        # The row fits in one block (BLOCK_SIZE >= N, decided at launch): read it once, keep it
        # in registers for the mean, the variance and the output.
        cols = tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        x = tl.load(X + cols, mask=mask, other=0.0).to(tl.float32)
        mean = tl.sum(x, axis=0) / N  # masked lanes read 0: they add nothing
        xc = tl.where(mask, x - mean, 0.0)  # ...but x - mean would not be 0 there: zero it
        var = tl.sum(xc * xc, axis=0) / N  # biased variance, as LayerNorm defines it
        rstd = 1.0 / tl.sqrt(var + eps)
        w = tl.load(W + cols, mask=mask).to(tl.float32)
        b = tl.load(B + cols, mask=mask).to(tl.float32)
        y = xc * rstd * w + b
        tl.store(Y + cols, y.to(Y.dtype.element_ty), mask=mask)
    else:
        # A wide row: three sweeps in chunks of BLOCK_SIZE (mean, variance, normalize). The
        # second and third sweeps re-read the row, mostly from L2.
        acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
        for off in range(0, N, BLOCK_SIZE):
            cols = off + tl.arange(0, BLOCK_SIZE)
            acc += tl.load(X + cols, mask=cols < N, other=0.0).to(tl.float32)
        mean = tl.sum(acc, axis=0) / N
        acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
        for off in range(0, N, BLOCK_SIZE):
            cols = off + tl.arange(0, BLOCK_SIZE)
            x = tl.load(X + cols, mask=cols < N, other=0.0).to(tl.float32)
            xc = tl.where(cols < N, x - mean, 0.0)
            acc += xc * xc
        var = tl.sum(acc, axis=0) / N
        rstd = 1.0 / tl.sqrt(var + eps)
        for off in range(0, N, BLOCK_SIZE):
            cols = off + tl.arange(0, BLOCK_SIZE)
            mask = cols < N
            x = tl.load(X + cols, mask=mask, other=0.0).to(tl.float32)
            w = tl.load(W + cols, mask=mask).to(tl.float32)
            b = tl.load(B + cols, mask=mask).to(tl.float32)
            y = (x - mean) * rstd * w + b
            tl.store(Y + cols, y.to(Y.dtype.element_ty), mask=mask)
    # one mean and one 1/std per row, kept in fp32 for a backward pass
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)


def _make_inputs(cfg, device, gen):
    m, n, dt = cfg["M"], cfg["N"], TORCH_DTYPES[cfg["dtype"]]
    return {
        # an offset and a scale so that the mean and variance are not already 0 and 1
        "x": randn((m, n), dt, device, gen, scale=2.0) + 0.5,
        "weight": rand((n,), dt, device, gen, lo=0.5, hi=1.5),
        "bias": randn((n,), dt, device, gen, scale=0.5),
        "y": torch.empty((m, n), dtype=dt, device=device),
        "mean": torch.empty((m,), dtype=torch.float32, device=device),
        "rstd": torch.empty((m,), dtype=torch.float32, device=device),
    }


def _launch(K, t, cfg, grid):
    x, y = t["x"], t["y"]
    return K(layernorm_fwd_kernel)[grid](
        x, y, t["weight"], t["bias"], t["mean"], t["rstd"], x.stride(0), y.stride(0), cfg["N"], EPS,
        BLOCK_SIZE=cfg["BLOCK_SIZE"], ONE_BLOCK=cfg["BLOCK_SIZE"] >= cfg["N"],
        num_warps=cfg["num_warps"], num_stages=cfg["num_stages"],
    )


def _reference(t, cfg):
    x = t["x"].double()
    mean = x.mean(dim=1)
    var = x.var(dim=1, unbiased=False)
    rstd = 1.0 / torch.sqrt(var + EPS)
    y = (x - mean[:, None]) * rstd[:, None] * t["weight"].double() + t["bias"].double()
    return {"y": y, "mean": mean, "rstd": rstd}


def _torch_op(t, cfg):
    return torch.nn.functional.layer_norm(t["x"], (cfg["N"],), t["weight"], t["bias"], EPS)


def _bytes(cfg):
    m, n, e = cfg["M"], cfg["N"], ELEMENT_BYTES[cfg["dtype"]]
    # x read and y written once, weight and bias read once, mean and rstd (fp32) written once
    return 2 * m * n * e + 2 * n * e + 2 * m * 4


def _flops(cfg):
    # per element: add for the mean, subtract + square + add for the variance,
    # subtract, two multiplies and an add for the output
    return 8 * cfg["M"] * cfg["N"]


def _warps_for(block_size: int) -> int:
    # tutorial 05's BLOCK_SIZE // 256 (capped at 8 there); 16 warps for the widest rows so each
    # thread holds at most 32 values of x in registers
    return 4 if block_size <= 1024 else 8 if block_size <= 4096 else 16


layernorm = register(KernelSpec(
    name="layernorm",
    title="LayerNorm forward",
    summary="y = (x - mean) / sqrt(var + eps) * weight + bias over each row; also writes mean, rstd",
    teaching=(
        "One program per row. When the row fits in one block (BLOCK_SIZE >= N) it is loaded once and "
        "kept in registers: sum for the mean, sum of squared deviations for the (biased) variance, "
        "then (x - mean) * rstd * weight + bias. Wider rows are swept three times in chunks of "
        "BLOCK_SIZE. Lanes past N load 0 and are zeroed after centring, so they add nothing to the "
        "sums. Statistics are kept in fp32 whatever the input type; mean and rstd are written too "
        "(a backward pass needs them) and checked alongside y."
    ),
    kernels=(layernorm_fwd_kernel,),
    params=(
        block("BLOCK_SIZE", 1024, lo=16, hi=16384, help="columns per chunk; >= N keeps the row in registers"),
        num_warps(4),
        num_stages(1),
        shape("M", 1151, hi=1 << 24, help="rows (one program each)"),
        shape("N", 1000, hi=1 << 20, help="columns: the normalized length"),
        dtype_param(("fp16", "bf16", "fp32"), default="fp16"),
    ),
    make_inputs=_make_inputs,
    grid_exprs=("M",),
    launch=_launch,
    reference=_reference,
    torch_op=_torch_op,
    outputs=("y", "mean", "rstd"),
    bytes_moved=_bytes,
    flops=_flops,
    metric="GB/s",
    # |y| is a few units; fp16 stores round to 2**-11 relative, bf16 to 2**-8
    tolerances={"fp32": (1e-4, 1e-4), "fp16": (2e-3, 2e-3), "bf16": (1.5e-2, 1.5e-2)},
    bench_cases=tuple(
        {"M": 4096, "N": n, "BLOCK_SIZE": next_pow2(n), "num_warps": _warps_for(next_pow2(n)),
         "num_stages": 1, "dtype": "fp16"}
        for n in (1024, 2048, 4096, 8192, 16384)
    ),
))
