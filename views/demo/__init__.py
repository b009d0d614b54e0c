"""Demo data for the widgets' previews and tests, recorded from real kernels — no torch, no triton.

``python -m kernels.trace.demo_fixtures`` records small launches of the catalog kernels (and of four
small kernels for what the catalog does not show) and writes them to ``resources/demo/``;
``fixtures`` reads them. Here they are offered by name: each demo trace is a ``Trace`` the tracer
recorded. Larger vector adds for stress tests are a recorded one repeated along the grid
(``repeat_programs``), since recording 16384 programs under the interpreter takes minutes. The
synthetic run results (timings, sweeps, history rows) live in ``views.demo_results``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np

from kernels.data.maps import derive, waves
from kernels.data.trace import AccessTable, Trace

from .fixtures import FIXTURE_DIR, fixture_names, kernel_info, load

__all__ = [
    "DEMOS", "FIXTURE_DIR", "demo_atomic_sum", "demo_attention", "demo_copy_3d", "demo_matmul", "demo_oob",
    "demo_overlap", "demo_softmax", "demo_softmax_looped", "demo_vector_add", "fixture_names", "kernel_info",
    "load", "repeat_programs",
]

# (N, BLOCK_SIZE, window) of the recorded vector adds -> fixture
_VECTOR_ADDS = {(1000, 256, None): "vector_add", (1000, 256, 2): "vector_add_window",
                (4096, 128, None): "vector_add_4096"}


def repeat_programs(trace: Trace, times: int) -> Trace:
    """A 1-D elementwise launch made ``times`` times longer: program ``p + k*P`` does what
    program ``p`` did, ``k*n`` elements further on (``n``: the length of every tensor). Values
    and scalars equal to ``n`` scale with it; the maps and statistics are derived again. Only for
    recordings where that is what the kernel would do: a 1-D grid over 1-D tensors of one
    length, every program recorded, no lane masked."""
    n = trace.tensors[0].numel if trace.tensors else 0
    gx, gy, gz = trace.grid
    if (times < 1 or gy * gz != 1 or trace.window is not None or any(t.shape != (n,) for t in trace.tensors)
            or bool(np.any(trace.events.n_masked)) or n * times >= 2**31):
        raise ValueError("repeat_programs takes a fully recorded 1-D launch over equal 1-D tensors "
                         "with no masked lanes")
    ev = trace.events
    E, L = len(ev), int(ev.elements.shape[0])
    copy_of_event, copy_of_lane = np.repeat(np.arange(times), E), np.repeat(np.arange(times), L)

    def tile(a: np.ndarray) -> np.ndarray:
        return np.tile(a, (times,) + (1,) * (a.ndim - 1))

    events = AccessTable(
        program=(tile(ev.program) + copy_of_event * gx).astype(ev.program.dtype), op=tile(ev.op),
        tensor=tile(ev.tensor), line=tile(ev.line), iters=tile(ev.iters), n_active=tile(ev.n_active),
        n_masked=tile(ev.n_masked), n_oob=tile(ev.n_oob), lane_start=tile(ev.lane_start) + copy_of_event * L,
        elements=(tile(ev.elements) + copy_of_lane * n).astype(ev.elements.dtype))
    tensors = [dataclasses.replace(t, shape=(n * times,)) for t in trace.tensors]
    programs = np.arange(gx * times, dtype=np.int32)
    maps, stats = derive(tensors, events, programs)

    def scaled(d: dict) -> dict:
        return {k: (v * times if type(v) is int and v == n else v) for k, v in d.items()}

    return dataclasses.replace(
        trace, values=scaled(trace.values), scalars=scaled(trace.scalars), grid=(gx * times, 1, 1),
        programs=programs, tensors=tensors, events=events, maps=maps, stats=stats, oob=[],
        wave=waves(programs, trace.n_sms, trace.programs_per_sm),
        triton_version=f"{trace.triton_version} (a recording repeated {times}x by views.demo)")


def demo_vector_add(n: int = 1000, block: int = 256, window: int | None = None) -> Trace:
    """The catalog's vector add over ``n`` fp32 elements in blocks of ``block``. Recorded:
    n=1000 with block 256 (4 programs; the last block masked past the end), also with a
    ``window`` of the first 2 programs only; n=4096 with block 128, and any multiple of it
    (repeated, see ``repeat_programs``)."""
    name = _VECTOR_ADDS.get((n, block, window))
    if name is not None:
        return load(name)
    if window is None and block == 128 and n % 4096 == 0:
        return repeat_programs(load("vector_add_4096"), n // 4096)
    have = ", ".join(f"N={k[0]} BLOCK_SIZE={k[1]}" + (f" window={k[2]}" if k[2] else "") for k in _VECTOR_ADDS)
    raise ValueError(f"no recorded vector add with N={n}, BLOCK_SIZE={block}, window={window}; have {have}, "
                     "or N a multiple of 4096 with BLOCK_SIZE=128")


def demo_matmul() -> Trace:
    """The catalog's matmul, 64³ fp16 in 16×16×16 tiles, GROUP_SIZE_M=2: 16 programs in grouped
    order, each loading one A and one B tile per K step (4 steps), then storing its C tile."""
    return load("matmul")


def demo_softmax() -> Trace:
    """The catalog's fused softmax over 16 rows of 100, one row per program in one block."""
    return load("softmax")


def demo_softmax_looped() -> Trace:
    """The catalog's looped softmax, 8 rows of 200 in blocks of 64: two loops in sequence (pass 1
    reads the row, pass 2 reads it again and writes), 4 steps each, one program per row."""
    return load("softmax_looped")


def demo_attention() -> Trace:
    """The catalog's attention forward, 2 heads of 64 tokens × 16: a 2-D grid (query blocks ×
    heads), each program walking the keys in blocks of 16."""
    return load("attention")


def demo_copy_3d() -> Trace:
    """y = x for a (3, 4, 100) tensor on a 3-D grid (cdiv(100, 32), 4, 3)."""
    return load("copy_3d")


def demo_atomic_sum() -> Trace:
    """out[0] = sum(x) over 1000 elements: 4 programs each add a block's sum atomically."""
    return load("atomic_sum")


def demo_oob() -> Trace:
    """Vector add with the mask forgotten (N=1000, BLOCK_SIZE=256): program 3's last 24 lanes
    of each access run past the end of the vectors."""
    return load("oob")


def demo_overlap() -> Trace:
    """Vector add whose 256-long blocks start 224 apart (N=1000): the overlaps are written twice."""
    return load("overlap")


DEMOS: dict[str, Callable[[], Trace]] = {
    "vector add (N=1000, BLOCK_SIZE=256)": demo_vector_add,
    "matmul 64³, 16×16×16 tiles, GROUP_SIZE_M=2": demo_matmul,
    "softmax 16×100, a row per program": demo_softmax,
    "looped softmax 8×200: two loops": demo_softmax_looped,
    "attention: 2-D grid, 2 heads × 64 tokens": demo_attention,
    "3-D grid: copy 3×4×100, BLOCK=32": demo_copy_3d,
    "atomics: sum 1000 elements into out[0]": demo_atomic_sum,
    "bug: vector add without mask (OOB)": demo_oob,
    "bug: overlapping blocks (several writers)": demo_overlap,
}
"""Name → recorded trace, for the widgets' demo combos."""
