"""Layouts for the preview and the drawing tests, built from the blocked layout's definition
(Triton's ``BlockedEncodingAttr``: sizePerThread, threadsPerWarp, warpsPerCTA, order) — never
shown as what a compiled kernel has; the window shows the engine's."""

from __future__ import annotations

import numpy as np

from kernels.data.layout import AccessLayout, LayoutInfo, LayoutResult, ThreadMap

__all__ = ["blocked_map", "demo_result"]


def blocked_map(shape: tuple[int, ...], spt: list[int], tpw: list[int], wpc: list[int],
                order: list[int]) -> ThreadMap:
    """The ThreadMap of a blocked layout over a block of ``shape``: along each dimension (fastest
    first, ``order``) a thread holds ``spt`` consecutive elements, ``tpw`` threads of a warp and
    then ``wpc`` warps follow each other, and the pattern repeats in more registers past that."""
    idx = np.indices(shape).reshape(len(shape), -1)
    warp, lane, reg = (np.zeros(idx.shape[1], np.int64) for _ in range(3))
    lane_mul = warp_mul = reg_mul = 1
    reps = []
    for d in order:
        per_cta = spt[d] * tpw[d] * wpc[d]
        within = idx[d] % per_cta
        lane += ((within // spt[d]) % tpw[d]) * lane_mul
        warp += (within // (spt[d] * tpw[d])) * warp_mul
        reg += (within % spt[d]) * reg_mul
        lane_mul, warp_mul, reg_mul = lane_mul * tpw[d], warp_mul * wpc[d], reg_mul * spt[d]
        reps.append((idx[d] // per_cta, -(-shape[d] // per_cta)))
    for rep, n in reps:
        reg += rep * reg_mul
        reg_mul *= n
    n_warps, n_regs = int(np.prod(wpc)), int(reg.max()) + 1
    element_of = np.zeros((n_warps, 32, n_regs), np.int64)
    element_of[warp, lane, reg] = np.arange(idx.shape[1])
    return ThreadMap(tuple(shape), element_of)


def _blocked(spt, tpw, wpc, order) -> LayoutInfo:
    return LayoutInfo("blocked", {"size_per_thread": spt, "threads_per_warp": tpw, "warps_per_cta": wpc,
                                  "order": order})


def demo_result(num_warps: int = 4) -> LayoutResult:
    """A vector add's load (1024 fp32, 4 per thread) and a 128×256 2-D load, at ``num_warps``."""
    one = ((1024,), [4], [32], [num_warps], [0])
    two = ((128, 256), [1, 4], [2, 16], [num_warps, 1], [1, 0])
    accesses = [
        AccessLayout(0, "load", "tt.load", _blocked(*one[1:]), one[0], "float32", line=30, tensor="x",
                     threads=blocked_map(*one), vector_bits=128),
        AccessLayout(1, "load", "tt.load", _blocked(*two[1:]), two[0], "float32", line=40, tensor="a",
                     threads=blocked_map(*two), vector_bits=128),
    ]
    return LayoutResult("demo", "sm_90", num_warps, accesses)
