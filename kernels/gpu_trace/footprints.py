"""Each program's accesses of a GPU trace, from its tile records, as the access table the grid view
lights a pinned or hovered program with — on the host: the records are copied there once (a few
MB) and taken apart by torch on the CPU. On the device the same ops cost a process its first use
of each torch CUDA kernel they launch (sort, scan, search, reductions over a new shape: lazily loaded
modules) — seconds on the first trace of a kernel, where the host takes tens of milliseconds every
time (docs/benchmarks/gpu-trace.md, "The first trace's cold costs").

A GPU trace's maps say who touched each element, not what each program touched: without per-access
events a pinned program lit nothing (an interpreter trace has them). The recording's tile records
(``device.TILE_*``: shadow base, strides, program, op, line, active rows × columns) are those
events, each a box of the tensor: ``tile_events`` turns every record into one access whose lanes
are the cells of the map it covers (the map as shipped: reduced by ``map_strides`` on the device,
or at full resolution), one lane per cell. What it cannot give, it says in its notes:

- accesses that are no tile record (gathers, atomics, other masks, records past the buffer's
  capacity: the per-lane path) have no event; the programs that made any are counted;
- a record whose steps are not steps of its tensor's dimensions (a 2-D block over a 1-D tensor
  that is not one contiguous run) is left out and counted;
- past ``max_lanes`` cells or ``max_events`` accesses, the events stop at a whole program: the
  first programs in launch order have theirs, the note names them (a matmul 4096³ reduced to
  512 × 512 cells has 8,256 cells a program: programs 0..126 of 4,096).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from ..data.trace import AccessTable
from .shadow import Recording

__all__ = ["MAX_EVENTS", "MAX_LANES", "TileEvents", "tile_events"]

#: cells (lanes) and accesses the window's GPU trace carries at most, for the grid view's time
#: to prepare them (docs/benchmarks/gpu-trace.md): vector add 2^26 has all its programs', 2^28 a third,
#: matmul 4096³ its first 127
MAX_LANES = 1 << 20
MAX_EVENTS = 1 << 18


@dataclass
class TileEvents:
    """The access table (lanes are map cells), each access's element lanes, and what is missing."""

    events: AccessTable
    element_lanes: np.ndarray  # int32 [E]: the elements each access covered (rows × columns of the record)
    notes: list[str]


def _empty() -> AccessTable:
    z32 = np.zeros(0, np.int32)
    return AccessTable(program=z32, op=np.zeros(0, np.int8), tensor=np.zeros(0, np.int16), line=z32,
                       iters=np.zeros((0, 0), np.int32), n_active=z32, n_masked=z32, n_oob=z32,
                       lane_start=np.zeros(0, np.int64), elements=z32)


def _boxes(rec: Recording, rows: torch.Tensor, tensor: torch.Tensor, strides: list[tuple[int, ...]]
           ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """(valid, first cell per dim, cells per dim, cell strides per dim) of every record, each
    ``[n, D]`` with D the most dimensions of any tensor (unused dims: first 0, 1 cell, stride 0)."""
    n, dev = rows.shape[0], rows.device
    D = max([len(a.info.shape) for a in rec.tensors] + [1])
    first = torch.zeros((n, D), dtype=torch.int64, device=dev)
    count = torch.ones((n, D), dtype=torch.int64, device=dev)
    step = torch.zeros((n, D), dtype=torch.int64, device=dev)
    valid = torch.zeros(n, dtype=torch.bool, device=dev)
    for t, a in enumerate(rec.tensors):
        sel = torch.nonzero(tensor == t).flatten()
        shape, st = tuple(int(x) for x in a.info.shape), tuple(int(x) for x in a.info.strides)
        if sel.numel() == 0 or a.info.numel == 0:
            continue
        k = tuple(strides[t]) if t < len(strides) and strides[t] else (1,) * len(shape)
        if not shape:  # a scalar tensor: its one cell
            valid[sel] = True
            continue
        r = rows[sel]
        off = r[:, 0] - int(rec.bases[t])
        # the element's coordinates: its offset taken apart along the strides, largest first
        coord = torch.zeros((sel.numel(), len(shape)), dtype=torch.int64, device=dev)
        rest = off.clone()
        for d in sorted((d for d in range(len(shape)) if shape[d] > 1 and st[d] > 0), key=lambda d: -st[d]):
            coord[:, d] = rest // st[d]
            rest = rest - coord[:, d] * st[d]
        ok = (rest == 0) & (off >= 0)
        ext = torch.ones((sel.numel(), len(shape)), dtype=torch.int64, device=dev)
        for axis_step, axis_len in ((r[:, 1], r[:, 4]), (r[:, 2], r[:, 5])):
            matched = (axis_len <= 1) | (axis_step == 0)  # one lane, or a broadcast axis: no extent
            for d in range(len(shape)):
                hit = ~matched & (axis_step == st[d]) & (shape[d] > 1) & (ext[:, d] == 1)
                ext[:, d] = torch.where(hit, axis_len, ext[:, d])
                matched |= hit
            if len(shape) == 1:  # a 2-D block over a 1-D tensor: one contiguous run of it
                run = ~matched & (r[:, 2] == st[0]) & (r[:, 1] == r[:, 5] * st[0])
                ext[:, 0] = torch.where(run, r[:, 4] * r[:, 5], ext[:, 0])
                matched |= run
            ok &= matched
        shp = torch.tensor(shape, dtype=torch.int64, device=dev)
        ok &= ((coord >= 0) & (coord + ext <= shp)).all(dim=1)
        kk = torch.tensor(k, dtype=torch.int64, device=dev)
        lo, hi = coord // kk, (coord + ext - 1) // kk
        cells = [-(-s // kd) for s, kd in zip(shape, k, strict=True)]
        cstride = torch.tensor([int(np.prod(cells[d + 1:])) for d in range(len(shape))], dtype=torch.int64, device=dev)
        first[sel, :len(shape)] = lo
        count[sel, :len(shape)] = hi - lo + 1
        step[sel, :len(shape)] = cstride
        valid[sel] = ok
    return valid, first, count, step


def _within_budget(rec: Recording, rows: torch.Tensor, map_strides: list[tuple[int, ...]], max_lanes: int,
                   max_events: int, whole: bool) -> tuple | None:
    """The first records' boxes and the records kept (whole programs, in launch order, while the
    budget lasts); None when ``rows`` are not ``whole`` and all fit (the budget may reach further)."""
    dev = rows.device
    notes: list[str] = []
    bases = torch.as_tensor(np.asarray(rec.bases, np.int64), device=dev)
    tensor = torch.searchsorted(bases, rows[:, 0].contiguous(), right=True) - 1
    valid, first, count, step = _boxes(rec, rows, tensor, map_strides)
    keep = torch.nonzero(valid).flatten()
    word = rows[keep, 3]
    pid = word & 0xFFFFFFFF
    cells = count[keep].prod(dim=1)
    order = torch.argsort(pid, stable=True)
    keep, pid, cells = keep[order], pid[order], cells[order]
    lanes_upto = torch.cumsum(cells, 0)
    last_pid = pid.clone()
    last_pid[:-1] = torch.where(pid[1:] != pid[:-1], pid[:-1], -1)  # a program's last record carries its pid
    fits = (lanes_upto <= max_lanes) & (torch.arange(keep.numel(), device=dev) < max_events)
    if bool(fits.all()) and not whole:
        return None
    n_bad = int((~valid).sum())
    if n_bad:
        notes.append(f"{n_bad:,} tile records are not boxes of their tensor: left out of the programs' accesses")
    done = fits & (last_pid >= 0)
    if not bool(fits.all()):  # fits only shrinks along the records: the last one taken apart is past the budget
        upto = int(pid[done].max()) + 1 if bool(done.any()) else 0
        notes.append(f"the accesses of programs 0..{upto - 1} only (more would be over {max_lanes:,} cells or "
                     f"{max_events:,} accesses): a later program pinned is lit from the maps (its writes, and the reads it made last)")
        cut = pid < upto
        keep, pid, cells = keep[cut], pid[cut], cells[cut]
    return rows, first, count, step, tensor, keep, pid, cells, notes


def tile_events(rec: Recording, map_strides: list[tuple[int, ...]], *, max_lanes: int = MAX_LANES,
                max_events: int = MAX_EVENTS) -> TileEvents:
    """The accesses of ``rec``'s tile records (``Recording.records``, kept by ``fold``) over the
    cells of maps reduced by ``map_strides`` (per tensor; () = full resolution). See the module doc."""
    rows = rec.records
    notes: list[str] = []
    if rows is None or rows.shape[0] == 0:
        return TileEvents(_empty(), np.zeros(0, np.int32), ["no tile records: the programs' accesses are not known"])
    every = rows.cpu()  # see the module doc: no torch CUDA kernel runs here
    dev = every.device
    # the records come grouped by program in launch order (``tiles.claimed_rows``) and the events stop
    # at a whole program: the first records are taken apart first, more only while the budget lasts
    # (matmul 4096³: programs 0..126 of 4,096 kept, 3 % of its 1,052,672 records)
    n = int(every.shape[0])
    upto_rows = min(n, max_events + 1)
    while True:
        got = _within_budget(rec, every[:upto_rows], map_strides, max_lanes, max_events, upto_rows == n)
        if got is not None:
            break
        upto_rows = min(n, 2 * upto_rows)
    rows, first, count, step, tensor, keep, pid, cells, more = got
    notes.extend(more)
    rows_k, f, c, s = rows[keep], first[keep], count[keep], step[keep]
    n_cells = cells
    total = int(n_cells.sum())
    lane_rec = torch.repeat_interleave(torch.arange(keep.numel(), device=dev), n_cells)
    start = torch.cumsum(n_cells, 0) - n_cells
    local = torch.arange(total, device=dev) - start[lane_rec]
    flat = torch.zeros(total, dtype=torch.int64, device=dev)
    for d in reversed(range(c.shape[1])):  # the box's cells, the last dimension fastest
        cd = c[lane_rec, d]
        flat += (f[lane_rec, d] + local % cd) * s[lane_rec, d]
        local = local // cd
    word = rows_k[:, 3]
    E = int(keep.numel())
    z = np.zeros(E, np.int32)
    line = (word >> 40).cpu().numpy().astype(np.int32)
    events = AccessTable(program=pid.cpu().numpy().astype(np.int32), op=((word >> 32) & 0xFF).cpu().numpy().astype(np.int8),
                         tensor=tensor[keep].cpu().numpy().astype(np.int16), line=np.where(line > 0, line, -1).astype(np.int32),
                         iters=np.zeros((E, 0), np.int32), n_active=n_cells.cpu().numpy().astype(np.int32), n_masked=z,
                         n_oob=z.copy(), lane_start=start.cpu().numpy().astype(np.int64),
                         elements=flat.cpu().numpy().astype(np.int32 if total == 0 or int(flat.max()) < 2**31 else np.int64))
    missing = _programs_not_all_tiles(rec, every)
    if missing:
        notes.append(f"{missing:,} programs made accesses that are no tile record (gathers, atomics, other masks): "
                     "pinning one lights its tiles only")
    return TileEvents(events, (rows_k[:, 4] * rows_k[:, 5]).cpu().numpy().astype(np.int32), notes)


def _programs_not_all_tiles(rec: Recording, rows: torch.Tensor) -> int:
    """Programs whose active lanes (``stats``) are more than their tile records' (the rest took
    the per-lane path)."""
    s = rec.stats.cpu()[:, 2]
    active = (s & 0xFFFFFFFF) - (s >> 32)
    tiled = torch.zeros_like(active).index_add_(0, rows[:, 3] & 0xFFFFFFFF, rows[:, 4] * rows[:, 5])
    return int((active > tiled).sum())
