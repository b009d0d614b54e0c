"""What a GPU trace's per-program accesses (``kernels.gpu_trace.footprints``) cost the window's
side: the reply's pickle and the grid view's ``prepare_trace``, with and without them, for vector add
at full size (2^EXP elements, BLOCK_SIZE 1024, reduced to 2^18 cells a tensor, one access per
program and tensor, as the GPU recorder ships it), synthesized on any CPU (no GPU needed).

    QT_QPA_PLATFORM=offscreen python benchmarks/tile_events_gui_cost.py 26 [EVENTS]

EVENTS: keep the accesses of whole programs up to this many (``footprints.MAX_EVENTS``); all by default.
"""

from __future__ import annotations

import dataclasses
import pickle
import sys
import time

import numpy as np

from kernels.data.coarse import CoarseTrace
from kernels.data.trace import AccessTable, ProgramStats, TensorInfo, TensorMaps
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


def main() -> None:
    exp = int(sys.argv[1]) if len(sys.argv) > 1 else 26
    cap = int(sys.argv[2]) if len(sys.argv) > 2 else 1 << 40
    full = trace(exp, cap)
    bare = dataclasses.replace(full, events=_events(0, 1, 0), lanes_active=np.zeros(0, np.int32))
    for label, tr in (("no events", bare), ("tile events", full)):
        t0 = time.perf_counter()
        blob = pickle.dumps(tr, protocol=5)
        t1 = time.perf_counter()
        pickle.loads(blob)
        t2 = time.perf_counter()
        prep = prepare_trace(tr)
        t3 = time.perf_counter()
        lit = panel_flags(prep.panels[2], ("program", 5), None)
        print(f"vector add 2^{exp}, {label}: {len(tr.events):,} accesses, pickle {len(blob) / 1e6:.1f} MB "
              f"({t1 - t0:.3f} s), unpickle {t2 - t1:.3f} s, prepare_trace {t3 - t2:.2f} s, program 5 pinned lights "
              f"{0 if lit is None else int((lit > 0).sum())} cells of out", flush=True)


if __name__ == "__main__":
    main()
