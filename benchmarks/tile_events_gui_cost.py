"""What a GPU trace's per-program accesses (``kernels.gpu_trace.footprints``) cost the window's
side: the reply's pickle and the grid view's ``prepare_trace``, with and without them, synthesized
at full size on any CPU (no GPU needed), as the GPU recorder ships them:

- vector add 2^EXP elements, BLOCK_SIZE 1024, 2^18 cells a tensor, one access per program and tensor;
- ``matmul``: 4096³ with 64×64×32 tiles, 512 × 512 cells of 8 × 8 (an A tile: 8 × 4 cells), the
  accesses of programs 0..PROGRAMS-1 (128 K steps of A and B, C's tile).

    QT_QPA_PLATFORM=offscreen python benchmarks/tile_events_gui_cost.py 26 [EVENTS]
    QT_QPA_PLATFORM=offscreen python benchmarks/tile_events_gui_cost.py matmul PROGRAMS

EVENTS: keep the accesses of whole programs up to this many (``footprints.MAX_EVENTS``); all by default.
"""

from __future__ import annotations

import dataclasses
import pickle
import sys
import time

import numpy as np

from kernels.data.coarse import CoarseTrace
from kernels.data.trace import SEVERAL, AccessTable, ProgramStats, TensorInfo, TensorMaps
from views.grid_view.lighting import panel_flags
from views.grid_view.prepare import prepare_trace

BLOCK, CELLS = 1024, 1 << 18
NAMES = ("x_ptr", "y_ptr", "out_ptr")


def _maps(owner: np.ndarray, written: bool) -> TensorMaps:
    none, zero, one = np.full(CELLS, -1, np.int32), np.zeros(CELLS, np.int32), np.ones(CELLS, np.int32)
    return TensorMaps(writer=owner if written else none, reader=none if written else owner,
                      n_reads=zero if written else one, n_writes=one if written else zero,
                      n_readers=zero if written else one, last_reader=none if written else owner)


def _events(P: int, per: int, max_events: int) -> AccessTable:
    E = min(3 * P, max_events - max_events % 3)
    prog = np.repeat(np.arange(P, dtype=np.int32), 3)[:E]
    tensor = np.tile(np.arange(3, dtype=np.int16), P)[:E]
    n = np.full(E, per, np.int32)
    cells = (prog.astype(np.int64)[:, None] * per + np.arange(per)[None, :]).reshape(-1).astype(np.int32)
    z = np.zeros(E, np.int32)
    return AccessTable(program=prog, op=(tensor == 2).astype(np.int8), tensor=tensor, line=np.full(E, 24, np.int32),
                       iters=np.zeros((E, 0), np.int32), n_active=n, n_masked=z, n_oob=z.copy(),
                       lane_start=np.arange(E, dtype=np.int64) * per, elements=cells)


def trace(exp: int, max_events: int) -> CoarseTrace:
    N = 1 << exp
    P, k = N // BLOCK, N // CELLS
    per = max(1, BLOCK // k)  # cells of a tensor one program covers
    pids = np.arange(P, dtype=np.int32)
    owner = (np.arange(CELLS, dtype=np.int64) * k // BLOCK).astype(np.int32)
    ev = _events(P, per, max_events)
    stats = ProgramStats(bytes_loaded=np.full(P, 8 * BLOCK, np.int64), bytes_stored=np.full(P, 4 * BLOCK, np.int64),
                         masked_fraction=np.zeros(P, np.float32), n_oob=np.zeros(P, np.int32))
    return CoarseTrace(kernel="vector_add", values={"N": N}, grid=(P, 1, 1), programs=pids, window=None,
                       tensors=[TensorInfo(n, (CELLS,), (1,), "float32", 0, 4) for n in NAMES], scalars={},
                       constexprs={"BLOCK_SIZE": BLOCK}, events=ev, oob=[],
                       maps=[_maps(owner, False), _maps(owner, False), _maps(owner, True)], stats=stats, source="",
                       source_file="", source_first_line=1, wave=pids // 1056, cells=[(1, k)] * 3,
                       full_tensors=[TensorInfo(n, (N,), (1,), "float32", 0, 4) for n in NAMES],
                       lanes_active=np.full(len(ev.program), BLOCK, np.int32))


def _boxes(p: np.ndarray, r0: np.ndarray, c0: np.ndarray, h: int, w: int, tensor: int, op: int, cols: int):
    """One access per row: a box of h × w cells at (r0, c0) of a map ``cols`` wide."""
    cells = ((r0[:, None] + np.arange(h).repeat(w)[None, :]) * cols + c0[:, None] + np.tile(np.arange(w), h)[None, :])
    return p, np.full(p.size, tensor), np.full(p.size, op), cells


def matmul(programs: int) -> CoarseTrace:
    P, C, K = 4096, 512, 128
    pid = np.arange(programs)
    pm, pn = pid // 64, pid % 64
    kk = np.tile(np.arange(K), programs)
    parts = [_boxes(pid.repeat(K), (8 * pm).repeat(K), 4 * kk, 8, 4, 0, 0, C),
             _boxes(pid.repeat(K), 4 * kk, (8 * pn).repeat(K), 4, 8, 1, 0, C),
             _boxes(pid, 8 * pm, 8 * pn, 8, 8, 2, 1, C)]
    prog = np.concatenate([a[0] for a in parts]).astype(np.int32)  # the view sorts accesses itself
    n = np.concatenate([np.full(a[0].size, a[3].shape[1], np.int32) for a in parts])
    E = prog.size
    z = np.zeros(E, np.int32)
    ev = AccessTable(program=prog, op=np.concatenate([a[2] for a in parts]).astype(np.int8),
                     tensor=np.concatenate([a[1] for a in parts]).astype(np.int16),
                     line=np.full(E, 50, np.int32), iters=np.zeros((E, 0), np.int32), n_active=n, n_masked=z,
                     n_oob=z.copy(), lane_start=(np.cumsum(n) - n).astype(np.int64),
                     elements=np.concatenate([a[3].reshape(-1) for a in parts]).astype(np.int32))
    rows, cols = np.divmod(np.arange(C * C), C)
    none, zero = np.full(C * C, -1, np.int32), np.zeros(C * C, np.int32)
    many = np.full(C * C, 64, np.int32)

    def read(last: np.ndarray) -> TensorMaps:
        return TensorMaps(writer=none, reader=np.full(C * C, SEVERAL, np.int32), n_reads=many, n_writes=zero,
                          n_readers=many, last_reader=last.astype(np.int32))

    c_maps = TensorMaps(writer=((rows // 8) * 64 + cols // 8).astype(np.int32), reader=none, n_reads=zero,
                        n_writes=np.ones(C * C, np.int32), n_readers=zero, last_reader=none)
    stats = ProgramStats(bytes_loaded=np.full(P, 1 << 20, np.int64), bytes_stored=np.full(P, 8192, np.int64),
                         masked_fraction=np.zeros(P, np.float32), n_oob=np.zeros(P, np.int32))
    names = ("a_ptr", "b_ptr", "c_ptr")
    return CoarseTrace(kernel="matmul", values={}, grid=(P, 1, 1), programs=np.arange(P, dtype=np.int32), window=None,
                       tensors=[TensorInfo(n, (C, C), (C, 1), "float16", 0, 2) for n in names], scalars={},
                       constexprs={}, events=ev, oob=[], maps=[read((rows // 8) * 64 + 63), read(4032 + cols // 8), c_maps],
                       stats=stats, source="", source_file="", source_first_line=1,
                       wave=np.arange(P, dtype=np.int32) // 1056, cells=[(8, 8)] * 3,
                       full_tensors=[TensorInfo(n, (4096, 4096), (4096, 1), "float16", 0, 2) for n in names],
                       lanes_active=np.full(E, 2048, np.int32))


def main() -> None:
    what = sys.argv[1] if len(sys.argv) > 1 else "26"
    cap = int(sys.argv[2]) if len(sys.argv) > 2 else 1 << 40
    full = matmul(min(cap, 4096)) if what == "matmul" else trace(int(what), cap)
    bare = dataclasses.replace(full, events=_events(0, 1, 0), lanes_active=np.zeros(0, np.int32))
    for label, tr in (("no events", bare), ("tile events", full)):
        t0 = time.perf_counter()
        blob = pickle.dumps(tr, protocol=5)
        t1 = time.perf_counter()
        pickle.loads(blob)
        t2 = time.perf_counter()
        prep = prepare_trace(tr)
        t3 = time.perf_counter()
        lit = panel_flags(prep.panels[0], ("program", 5), None)
        print(f"{full.kernel} {' '.join(sys.argv[1:])}, {label}: {len(tr.events):,} accesses of {int(tr.events.n_active.sum()):,} cells, "
              f"pickle {len(blob) / 1e6:.1f} MB ({t1 - t0:.3f} s), unpickle {t2 - t1:.3f} s, prepare_trace "
              f"{t3 - t2:.2f} s, program 5 pinned lights {0 if lit is None else int((lit > 0).sum())} cells of the first "
              "tensor", flush=True)


if __name__ == "__main__":
    main()
