"""Matrix multiplication C = A @ B with 2-D tiles and grouped program order (Triton tutorial 03).

Each program computes one BLOCK_M x BLOCK_N tile of C, walking K in steps of BLOCK_K and
accumulating ``tl.dot`` products in fp32. Programs are numbered so that GROUP_SIZE_M tiles down
a column of C run next to each other: they share the same columns of B, which then stay in L2.
"""

from __future__ import annotations

import math

import torch
import triton
import triton.language as tl

from ..data.params import Param, Rule, block, dtype_param, flag, num_stages, num_warps, shape
from ..specs.spec import KernelSpec, register
from ._common import BF16_INTERPRETER_FAULT, ELEMENT_BYTES, TORCH_DTYPES, randn

__all__ = ["matmul", "matmul_kernel"]


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                  stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                  GROUP_SIZE_M: tl.constexpr, EVEN_K: tl.constexpr, TF32: tl.constexpr):
    # -- which tile of C is mine? ----------------------------------------------------------------
    # Row-major order (pid -> row pid // num_pid_n) would sweep a whole row of tiles, touching all
    # of B before reusing any of it. Grouped order walks GROUP_SIZE_M rows of tiles column by
    # column, so consecutive programs reuse the same block-columns of B while they are in L2.
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = tl.minimum(num_pid_m - first_pid_m, GROUP_SIZE_M)  # the last group may be short
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    # -- pointers to the first K-slab of A (BLOCK_M x BLOCK_K) and B (BLOCK_K x BLOCK_N) --------
    # Rows of A / columns of B past the edge wrap around (% M, % N) instead of being masked: the
    # loads stay unmasked and fast, and the wrapped rows only feed rows of C that are never stored.
    offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)

    # -- walk K, accumulating in fp32 ------------------------------------------------------------
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        if EVEN_K:  # K is a multiple of BLOCK_K (decided at launch): no mask needed
            a = tl.load(a_ptrs)
            b = tl.load(b_ptrs)
        else:  # the last slab runs past K: read zeros there, which add nothing to the dot
            k_left = K - k * BLOCK_K
            a = tl.load(a_ptrs, mask=offs_k[None, :] < k_left, other=0.0)
            b = tl.load(b_ptrs, mask=offs_k[:, None] < k_left, other=0.0)
        if TF32:  # fp32 inputs on tensor cores as TF32 (10-bit mantissa); fp16/bf16 always here
            acc = tl.dot(a, b, acc)
        else:  # exact fp32 products, much slower
            acc = tl.dot(a, b, acc, input_precision="ieee")
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c = acc.to(c_ptr.dtype.element_ty)

    # -- store the tile; rows/columns past M/N are masked off -----------------------------------
    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)


def _make_inputs(cfg, device, gen):
    m, n, k, dt = cfg["M"], cfg["N"], cfg["K"], TORCH_DTYPES[cfg["dtype"]]
    return {
        "a": randn((m, k), dt, device, gen),
        "b": randn((k, n), dt, device, gen),
        "c": torch.empty((m, n), dtype=dt, device=device),
    }


def _launch(K, t, cfg, grid):
    a, b, c = t["a"], t["b"], t["c"]
    m, n, k = cfg["M"], cfg["N"], cfg["K"]
    # one program per tile of C, numbered 0..; the kernel maps each number to a (row, col) tile
    return K(matmul_kernel)[grid](
        a, b, c, m, n, k,
        a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
        BLOCK_M=cfg["BLOCK_M"], BLOCK_N=cfg["BLOCK_N"], BLOCK_K=cfg["BLOCK_K"],
        GROUP_SIZE_M=cfg["GROUP_SIZE_M"],
        EVEN_K=k % cfg["BLOCK_K"] == 0,
        # TF32 only means something for fp32 inputs; other dtypes take tl.dot's default path
        TF32=bool(cfg["TF32"]) or cfg["dtype"] != "fp32",
        num_warps=cfg["num_warps"], num_stages=cfg["num_stages"],
    )


def _tolerance(cfg):
    # Entries of C are sums of K products of unit normals: typically sqrt(K) in size, and the
    # rounding errors of the terms add up like a random walk, so atol grows with sqrt(K).
    # fp16/bf16: inputs are exact in the fp32 accumulator; the error is the final rounding of C
    # (2**-11 / 2**-8 relative). fp32 with TF32: each input rounded to a 10-bit mantissa,
    # about 4e-4 relative per product, random-walking to ~4e-4 * sqrt(K) per entry.
    root_k = math.sqrt(cfg["K"])
    dtype = cfg["dtype"]
    if dtype == "fp16":
        return (1e-3 * root_k, 4e-3)
    if dtype == "bf16":
        return (8e-3 * root_k, 3e-2)
    if cfg.get("TF32", True):
        return (4e-3 * root_k, 4e-3)
    return (2e-5 * root_k, 1e-4)


def _bytes(cfg):
    e = ELEMENT_BYTES[cfg["dtype"]]
    return (cfg["M"] * cfg["K"] + cfg["K"] * cfg["N"] + cfg["M"] * cfg["N"]) * e


def _cfg(bm, bn, bk, warps, stages, group=8):
    return {"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_SIZE_M": group,
            "num_warps": warps, "num_stages": stages}


# Triton tutorial 03's CUDA configs plus two larger 8-warp tiles that suit Hopper's wgmma.
_AUTOTUNE = (
    _cfg(128, 256, 64, 8, 3),
    _cfg(64, 256, 32, 4, 4),
    _cfg(128, 128, 32, 4, 4),
    _cfg(128, 64, 32, 4, 4),
    _cfg(64, 128, 32, 4, 4),
    _cfg(128, 32, 32, 4, 4),
    _cfg(64, 32, 32, 2, 5),
    _cfg(32, 64, 32, 2, 5),
    _cfg(128, 128, 64, 8, 3),
    _cfg(128, 128, 64, 8, 4),
    _cfg(128, 256, 64, 8, 4),
)

matmul = register(KernelSpec(
    name="matmul",
    title="Matrix multiplication (tiled, grouped order)",
    summary="C = A @ B: one BLOCK_M x BLOCK_N tile of C per program, a K loop, fp32 accumulator",
    teaching=(
        "Each program owns a BLOCK_M x BLOCK_N tile of C. It walks K in slabs of BLOCK_K, loading a "
        "BLOCK_M x BLOCK_K piece of A and a BLOCK_K x BLOCK_N piece of B and adding tl.dot of them "
        "to an fp32 accumulator; the tile is stored once at the end. GROUP_SIZE_M reorders the "
        "programs so that neighbours share pieces of B in L2 (set it to 1 to see row-major order). "
        "Rows and columns past M and N wrap around on load and are masked on store; the last K "
        "slab is masked when K is not a multiple of BLOCK_K. fp32 inputs use TF32 tensor cores "
        "unless TF32 is off; the tolerance follows that choice. FLOPs: 2*M*N*K."
    ),
    kernels=(matmul_kernel,),
    params=(
        block("BLOCK_M", 64, lo=16, hi=256, help="rows of C per program (power of two, >= 16)"),
        block("BLOCK_N", 64, lo=16, hi=256, help="columns of C per program (power of two, >= 16)"),
        block("BLOCK_K", 32, lo=16, hi=256, help="K step of the inner loop (power of two, >= 16)"),
        Param("GROUP_SIZE_M", "constexpr", 8, "tile rows per group of the program order (1 = row-major)",
              min=1, max=64),
        num_warps(4),
        num_stages(3),
        shape("M", 512, hi=1 << 20, help="rows of A and C"),
        shape("N", 512, hi=1 << 20, help="columns of B and C"),
        shape("K", 512, hi=1 << 20, help="columns of A, rows of B: the reduction length"),
        dtype_param(("fp16", "bf16", "fp32"), default="fp16"),
        flag("TF32", True, help="fp32 only: let tl.dot use TF32 tensor cores (faster, ~1e-3 relative error)"),
    ),
    rules=(
        # offsets are int32 inside the kernel (offs * stride): keep every operand below 2**31
        Rule("M * K < 2**31 and K * N < 2**31 and M * N < 2**31",
             "each matrix must have fewer than 2**31 elements (the kernel uses int32 offsets)", ("M",)),
    ),
    make_inputs=_make_inputs,
    grid_exprs=("cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N)",),
    launch=_launch,
    reference=lambda t, cfg: {"c": t["a"].double() @ t["b"].double()},
    torch_op=lambda t, cfg: torch.matmul(t["a"], t["b"]),
    outputs=("c",),
    bytes_moved=_bytes,
    flops=lambda cfg: 2 * cfg["M"] * cfg["N"] * cfg["K"],
    metric="TFLOP/s",
    tolerance_fn=_tolerance,
    autotune_configs=_AUTOTUNE,
    bench_cases=tuple(
        {"M": 4096, "N": 4096, "K": 4096, "dtype": dt, **_cfg(128, 256, 64, 8, 3)}
        for dt in ("fp16", "bf16")
    ),
    interpreter_faults={"bf16": BF16_INTERPRETER_FAULT},
))
