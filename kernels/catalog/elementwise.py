"""Vector add and vector mul: the first kernels of every Triton tutorial.

One program handles BLOCK_SIZE consecutive elements. The last program's block runs past the end
of the vectors when N is not a multiple of BLOCK_SIZE; the mask switches those lanes off.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

from ..data.params import Rule, block, dtype_param, num_stages, num_warps, shape
from ..specs.spec import KernelSpec, register
from ._common import TORCH_DTYPES, randn


@triton.jit
def binary_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr, IS_MUL: tl.constexpr):
    pid = tl.program_id(axis=0)  # which block of the vectors this program handles
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements  # the last block may run past the end
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    if IS_MUL:  # a constexpr branch: resolved at compile time, one kernel per value
        output = x * y
    else:
        output = x + y
    tl.store(out_ptr + offsets, output, mask=mask)


def _make_inputs(cfg, device, gen):
    n, dt = cfg["N"], TORCH_DTYPES[cfg["dtype"]]
    return {
        "x": randn((n,), dt, device, gen),
        "y": randn((n,), dt, device, gen),
        "out": torch.empty((n,), dtype=dt, device=device),
    }


def _launcher(is_mul):
    def launch(K, t, cfg, grid):
        n = cfg["N"]
        return K(binary_kernel)[grid](t["x"], t["y"], t["out"], n, BLOCK_SIZE=cfg["BLOCK_SIZE"],
                                      IS_MUL=is_mul, num_warps=cfg["num_warps"],
                                      num_stages=cfg["num_stages"])
    return launch


def _bytes(cfg):
    return 3 * cfg["N"] * {"fp32": 4, "fp16": 2, "bf16": 2}[cfg["dtype"]]


def _elementwise_spec(name, title, summary, is_mul, op, symbol):
    return KernelSpec(
        name=name,
        title=title,
        summary=summary,
        teaching=(
            f"out = x {symbol} y. Program i covers elements [i*BLOCK_SIZE, (i+1)*BLOCK_SIZE). "
            "The grid has cdiv(N, BLOCK_SIZE) programs; the mask `offsets < n_elements` turns off "
            "the lanes of the last block that fall past the end."
        ),
        kernels=(binary_kernel,),
        params=(
            block("BLOCK_SIZE", 1024, lo=1, hi=1 << 16),
            num_warps(4),
            num_stages(3),
            shape("N", 98432, hi=1 << 31, help="number of elements"),
            dtype_param(("fp32", "fp16", "bf16")),
        ),
        rules=(Rule("N + BLOCK_SIZE <= 2**31", "N too large: offsets are 32-bit (N + BLOCK_SIZE must be ≤ 2^31)", ("N",)),),
        make_inputs=_make_inputs,
        grid_exprs=("cdiv(N, BLOCK_SIZE)",),
        launch=_launcher(is_mul),
        reference=lambda t, cfg: {"out": op(t["x"].double(), t["y"].double())},
        torch_op=lambda t, cfg: op(t["x"], t["y"]),
        outputs=("out",),
        bytes_moved=_bytes,
        flops=lambda cfg: cfg["N"],
        metric="GB/s",
        bench_cases=({"N": 1 << 28, "BLOCK_SIZE": 1024, "num_warps": 4, "dtype": "fp32"},),
    )


vector_add = register(_elementwise_spec(
    "vector_add", "Vector add", "out = x + y, one block of BLOCK_SIZE elements per program",
    False, torch.add, "+"))
vector_mul = register(_elementwise_spec(
    "vector_mul", "Vector mul", "out = x * y, the tutorials' first exercise",
    True, torch.mul, "*"))
