"""Row softmax, two ways: a whole row in one block, and a row streamed in chunks.

``softmax`` (Triton tutorial 02): one program per row; the row is loaded once into registers,
so the kernel reads each input element once and writes each output once — the least memory
traffic softmax can have. That needs ``BLOCK_SIZE >= N`` (a Rule), so the row width is bounded
by what fits in registers.

``softmax_looped``: the same result for rows of any width. The row is walked in chunks of
BLOCK_SIZE twice: the first pass keeps a running maximum and a running sum of exponentials
("online softmax", the trick FlashAttention is built on), the second pass writes
``exp(x - max) / sum``. It reads the input twice, so its GB/s (counted on the minimal traffic:
one read, one write) tops out near two thirds of the fused kernel's.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

from ..data.params import Rule, block, dtype_param, num_stages, num_warps, shape
from ..specs.spec import KernelSpec, register
from ._common import ELEMENT_BYTES, TORCH_DTYPES, next_pow2, randn

__all__ = ["softmax", "softmax_looped", "softmax_kernel", "softmax_looped_kernel"]


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)  # one program per row
    # int64 row offset: row * stride overflows int32 once the matrix passes 2**31 elements
    row_in = in_ptr + row.to(tl.int64) * in_row_stride
    row_out = out_ptr + row.to(tl.int64) * out_row_stride
    cols = tl.arange(0, BLOCK_SIZE)  # BLOCK_SIZE is the next power of two >= n_cols
    mask = cols < n_cols
    # Lanes past the end read -inf: exp(-inf) = 0, so they add nothing to the max or the sum.
    x = tl.load(row_in + cols, mask=mask, other=-float("inf")).to(tl.float32)
    # Subtracting the row maximum keeps exp() from overflowing; softmax is unchanged by it.
    x = x - tl.max(x, axis=0)
    numerator = tl.exp(x)
    denominator = tl.sum(numerator, axis=0)
    y = numerator / denominator
    tl.store(row_out + cols, y.to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def softmax_looped_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_cols,
                          BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    row_in = in_ptr + row.to(tl.int64) * in_row_stride
    row_out = out_ptr + row.to(tl.int64) * out_row_stride
    cols = tl.arange(0, BLOCK_SIZE)
    # Pass 1 — online max and sum, kept per lane so a chunk costs no cross-lane reduction.
    # Each lane holds m (the largest value it has seen) and s = sum of exp(x - m) over them.
    # m starts at a huge negative *finite* value, not -inf: exp(m_old - m_new) with both -inf
    # would be exp(nan); with the finite start a lane that only ever sees masked -inf keeps s = 0.
    m = tl.full([BLOCK_SIZE], -3.0e38, tl.float32)
    s = tl.zeros([BLOCK_SIZE], tl.float32)
    for start in range(0, n_cols, BLOCK_SIZE):
        mask = start + cols < n_cols
        x = tl.load(row_in + start + cols, mask=mask, other=-float("inf")).to(tl.float32)
        m_new = tl.maximum(m, x)
        # rescale the old sum to the new maximum, then add this chunk's terms
        s = s * tl.exp(m - m_new) + tl.exp(x - m_new)
        m = m_new
    # Combine the lanes: one max and one rescaled sum for the whole row.
    row_max = tl.max(m, axis=0)
    row_sum = tl.sum(s * tl.exp(m - row_max), axis=0)
    inv_sum = 1.0 / row_sum
    # Pass 2 — read the row again and write the normalized exponentials.
    for start in range(0, n_cols, BLOCK_SIZE):
        mask = start + cols < n_cols
        x = tl.load(row_in + start + cols, mask=mask, other=-float("inf")).to(tl.float32)
        y = tl.exp(x - row_max) * inv_sum
        tl.store(row_out + start + cols, y.to(out_ptr.dtype.element_ty), mask=mask)


def _make_inputs(cfg, device, gen):
    m, n, dt = cfg["M"], cfg["N"], TORCH_DTYPES[cfg["dtype"]]
    return {
        # scale 2: a spread of values wide enough that the max subtraction matters
        "x": randn((m, n), dt, device, gen, scale=2.0),
        "y": torch.empty((m, n), dtype=dt, device=device),
    }


def _launcher(kernel):
    def launch(K, t, cfg, grid):
        x, y = t["x"], t["y"]
        return K(kernel)[grid](y, x, x.stride(0), y.stride(0), cfg["N"], BLOCK_SIZE=cfg["BLOCK_SIZE"],
                               num_warps=cfg["num_warps"], num_stages=cfg["num_stages"])
    return launch


def _reference(t, cfg):
    return {"y": torch.softmax(t["x"].double(), dim=-1)}


def _torch_op(t, cfg):
    return torch.softmax(t["x"], dim=-1)


def _bytes(cfg):
    # minimal traffic: each input element read once, each output element written once
    return 2 * cfg["M"] * cfg["N"] * ELEMENT_BYTES[cfg["dtype"]]


def _flops(cfg):
    # per element: subtract max, exp, add to sum, divide (comparisons for the max not counted)
    return 4 * cfg["M"] * cfg["N"]


# Outputs lie in (0, 1] and are ~1/N on average, so an absolute tolerance of 1e-4 would accept
# almost anything for wide rows: the check leans on the relative part. fp16 stores round to
# 2**-11 relative, and to 6e-8 absolute in fp16's subnormal range (values below 6.1e-5).
_TOLERANCES = {"fp32": (1e-7, 1e-4), "fp16": (1e-6, 2e-3), "bf16": (1e-6, 1e-2)}


def _warps_for(n: int) -> int:
    # tutorial 02's heuristic: more warps as the row (held in registers) widens
    return 4 if n < 2048 else 8 if n < 4096 else 16


_BENCH_WIDTHS = (1024, 2048, 4096, 8192, 16384)

softmax = register(KernelSpec(
    name="softmax",
    title="Softmax (fused, one row per program)",
    summary="y = softmax(x) over each row of an (M, N) matrix; a whole row per program",
    teaching=(
        "Program i loads row i into registers (BLOCK_SIZE lanes, the next power of two >= N; "
        "lanes past N read -inf so they vanish from the max and the sum), subtracts the row max "
        "so exp() cannot overflow, and writes exp(x - max) / sum. The input is read once and the "
        "output written once: torch's softmax, which may read the row several times, is the "
        "baseline. num_warps grows with the row so each thread keeps a few dozen values."
    ),
    kernels=(softmax_kernel,),
    params=(
        block("BLOCK_SIZE", 1024, lo=1, hi=32768, help="lanes per row: next power of two >= N"),
        num_warps(4),
        num_stages(1),
        shape("M", 1823, hi=1 << 24, help="rows (one program each)"),
        shape("N", 781, hi=32768, help="columns: the softmax runs along each row"),
        dtype_param(("fp32", "fp16", "bf16")),
    ),
    rules=(Rule("BLOCK_SIZE >= N",
                "BLOCK_SIZE must cover a whole row (BLOCK_SIZE >= N): pick the next power of two "
                "at or above N, or use softmax_looped for wider rows", ("BLOCK_SIZE", "N")),),
    make_inputs=_make_inputs,
    grid_exprs=("M",),
    launch=_launcher(softmax_kernel),
    reference=_reference,
    torch_op=_torch_op,
    outputs=("y",),
    bytes_moved=_bytes,
    flops=_flops,
    metric="GB/s",
    tolerances=dict(_TOLERANCES),
    bench_cases=tuple(
        {"M": 4096, "N": n, "BLOCK_SIZE": next_pow2(n), "num_warps": _warps_for(n), "num_stages": 1,
         "dtype": "fp32"}
        for n in _BENCH_WIDTHS
    ),
))

softmax_looped = register(KernelSpec(
    name="softmax_looped",
    title="Softmax (looped, online max and sum)",
    summary="y = softmax(x) over rows of any width, in chunks of BLOCK_SIZE with an online max/sum",
    teaching=(
        "When a row does not fit in one block, walk it in chunks. Pass 1 keeps, per lane, the "
        "largest value seen so far (m) and the sum of exp(x - m); when a chunk raises m the old "
        "sum is rescaled by exp(m_old - m_new). At the end the lanes are merged into one max and "
        "one sum. Pass 2 reads the row again and writes exp(x - max) / sum. Two reads instead of "
        "one: the price of rows of any width. The same rescaling is the heart of FlashAttention."
    ),
    kernels=(softmax_looped_kernel,),
    params=(
        block("BLOCK_SIZE", 1024, lo=1, hi=16384, help="columns per chunk (any row width works)"),
        num_warps(4),
        num_stages(3),
        shape("M", 256, hi=1 << 24, help="rows (one program each)"),
        shape("N", 3000, hi=1 << 24, help="columns: the softmax runs along each row"),
        dtype_param(("fp32", "fp16", "bf16")),
    ),
    make_inputs=_make_inputs,
    grid_exprs=("M",),
    launch=_launcher(softmax_looped_kernel),
    reference=_reference,
    torch_op=_torch_op,
    outputs=("y",),
    bytes_moved=_bytes,
    flops=_flops,
    metric="GB/s",
    tolerances=dict(_TOLERANCES),
    bench_cases=(
        {"M": 4096, "N": 16384, "BLOCK_SIZE": 4096, "num_warps": 8, "num_stages": 3, "dtype": "fp32"},
        {"M": 1024, "N": 65536, "BLOCK_SIZE": 4096, "num_warps": 8, "num_stages": 3, "dtype": "fp32"},
        {"M": 256, "N": 262144, "BLOCK_SIZE": 4096, "num_warps": 8, "num_stages": 3, "dtype": "fp32"},
    ),
))
