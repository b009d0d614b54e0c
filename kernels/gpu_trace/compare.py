"""Cross-checks of the GPU recorder against the interpreter recorder — numpy only.

``differences(gpu, ref)`` lists, one line each, where two traces of the same launch disagree:
grid, tensors, each map element for element, per-program statistics, out-of-bounds records
(program, op, line, kind, lanes, nearest tensor). Empty: the same trace. ``CROSS_CHECK_CASES``
are small parameter values for every catalog kernel, small enough for the interpreter (the CPU
tests, the GPU tests and the H200 check all use them).
"""

from __future__ import annotations

import numpy as np

from ..data.trace import Trace

__all__ = ["CROSS_CHECK_CASES", "MAP_FIELDS", "differences"]

MAP_FIELDS = ("writer", "reader", "n_reads", "n_writes", "n_readers", "n_atomic")

CROSS_CHECK_CASES: dict[str, dict] = {
    "vector_add": {"N": 4100, "BLOCK_SIZE": 1024},
    "vector_mul": {"N": 700, "BLOCK_SIZE": 256},
    "softmax": {"M": 9, "N": 100, "BLOCK_SIZE": 128},
    "softmax_looped": {"M": 5, "N": 300, "BLOCK_SIZE": 64},
    "matmul": {"M": 80, "N": 72, "K": 80, "BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 32, "GROUP_SIZE_M": 2},
    "layernorm": {"M": 5, "N": 100, "BLOCK_SIZE": 32},
    "gelu": {"N": 2500, "BLOCK_SIZE": 1024},
    "attention": {"BATCH": 1, "HEADS": 2, "N_CTX": 80, "HEAD_DIM": 16, "BLOCK_M": 32, "BLOCK_N": 16,
                  "CAUSAL": True},
}


def _oob_rows(tr: Trace) -> list[tuple]:
    return sorted((r.program, r.op, r.line, r.kind, r.count, r.nearest_tensor) for r in tr.oob)


def differences(gpu: Trace, ref: Trace, max_lines: int = 20) -> list[str]:
    """Where ``gpu`` (all programs) and ``ref`` (the interpreter recorder's) disagree."""
    out: list[str] = []
    if tuple(gpu.grid) != tuple(ref.grid):
        return [f"grid {gpu.grid} != {ref.grid}"]
    if [t.name for t in gpu.tensors] != [t.name for t in ref.tensors]:
        return [f"tensors {[t.name for t in gpu.tensors]} != {[t.name for t in ref.tensors]}"]
    for info, a, b in zip(ref.tensors, gpu.maps, ref.maps, strict=True):
        for f in MAP_FIELDS:
            x, y = getattr(a, f), getattr(b, f)
            if (x is None) != (y is None):
                out.append(f"{info.name}.{f}: {'None' if x is None else 'an array'} != "
                           f"{'None' if y is None else 'an array'}")
            elif x is not None and (x.shape != y.shape or not np.array_equal(x, y)):
                bad = np.argwhere(x != y)[:3].tolist() if x.shape == y.shape else f"shape {x.shape} != {y.shape}"
                out.append(f"{info.name}.{f} differs at {bad}")
    at = np.searchsorted(gpu.programs, ref.programs)
    if at.size and (at.max() >= gpu.programs.size or not np.array_equal(gpu.programs[at], ref.programs)):
        return [*out, "the reference has programs the GPU trace lacks"]
    for f in ("bytes_loaded", "bytes_stored", "n_oob"):
        if not np.array_equal(getattr(gpu.stats, f)[at], getattr(ref.stats, f)):
            out.append(f"stats.{f} differs")
    if not np.allclose(gpu.stats.masked_fraction[at], ref.stats.masked_fraction, atol=1e-6):
        out.append("stats.masked_fraction differs")
    if _oob_rows(gpu) != _oob_rows(ref):
        out.append(f"out-of-bounds records differ: {_oob_rows(gpu)[:3]} != {_oob_rows(ref)[:3]}")
    return out[:max_lines]
