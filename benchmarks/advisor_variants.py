"""Kernels the advisor's check needs beside the catalog: a copy of a row-major matrix that walks
its columns (lanes down a column: every lane in its own 32-byte sector) or, fixed, its rows.

A kernel file as ``tilescope --file`` takes it (``KernelSpec``s registered on import):

    tilescope why column_copy --file benchmarks/advisor_variants.py
    tilescope why column_copy --file benchmarks/advisor_variants.py -p BY_ROWS=1     # the fixed version
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

from kernels.data.params import block, flag, num_stages, num_warps, shape
from kernels.specs.spec import KernelSpec, register


@triton.jit
def column_copy_kernel(x_ptr, out_ptr, M, N, BLOCK: tl.constexpr, BY_ROWS: tl.constexpr):
    pid = tl.program_id(0)
    if BY_ROWS:  # program pid copies row pid: neighbouring lanes read neighbouring bytes
        offs = tl.arange(0, BLOCK)
        ptrs = pid * N + offs
        mask = offs < N
    else:  # program pid copies column pid: neighbouring lanes are a whole row (N elements) apart
        offs = tl.arange(0, BLOCK)
        ptrs = offs * N + pid
        mask = offs < M
    v = tl.load(x_ptr + ptrs, mask=mask)
    tl.store(out_ptr + ptrs, v, mask=mask)


def _inputs(cfg, device, gen):
    m, n = cfg["M"], cfg["N"]
    return {"x": torch.randn((m, n), generator=gen).to(device), "out": torch.empty((m, n), device=device)}


def _launch(K, t, cfg, grid):
    return K(column_copy_kernel)[grid](t["x"], t["out"], cfg["M"], cfg["N"], BLOCK=cfg["BLOCK"],
                                       BY_ROWS=bool(cfg["BY_ROWS"]), num_warps=cfg["num_warps"],
                                       num_stages=cfg["num_stages"])


column_copy = register(KernelSpec(
    name="column_copy",
    title="Matrix copy by columns (uncoalesced) or by rows",
    summary="out = x for a row-major M x N fp32 matrix, one column (or, BY_ROWS, one row) per program",
    kernels=(column_copy_kernel,),
    params=(block("BLOCK", 1024, lo=16, hi=1 << 14, help="elements per program: >= M (columns) or N (rows)"),
            flag("BY_ROWS", False, help="walk rows (coalesced) instead of columns"),
            num_warps(4), num_stages(1),
            shape("M", 1024, hi=1 << 14, help="rows"), shape("N", 1024, hi=1 << 14, help="columns")),
    make_inputs=_inputs,
    grid_exprs=("BY_ROWS * M + (1 - BY_ROWS) * N",),
    launch=_launch,
    reference=lambda t, cfg: {"out": t["x"].double()},
    torch_op=lambda t, cfg: t["out"].copy_(t["x"]),
    outputs=("out",),
    bytes_moved=lambda cfg: 2 * 4 * cfg["M"] * cfg["N"],
    flops=lambda cfg: 0,
))
