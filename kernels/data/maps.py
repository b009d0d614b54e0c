"""Maps derived from recorded accesses, and the queries the grid view asks — numpy only.

``derive(tensors, events, programs)`` turns the access table into per-element maps (who wrote,
who read, how often) and per-program statistics; everything is vectorized over lanes. The
query helpers answer the grid view's questions on a finished ``Trace``:

- ``waves(programs, n_sms, programs_per_sm)``: the wave of each program (dispatch order is the
  linear pid, x fastest; a wave is ``n_sms * programs_per_sm`` consecutive programs);
  ``rewave(trace, n_sms, programs_per_sm)``: the trace under the compile facts' occupancy;
- ``programs_in_wave(trace, w)`` and ``footprint(trace, programs)`` / ``wave_footprint(trace, w)``:
  the elements of every tensor that a set of programs read and wrote (for matmul with
  GROUP_SIZE_M: which tiles of C wave 0 writes and which rows of A / columns of B it reads);
- ``pid_grid(trace)``: the (z, y, x) layout of linear program ids for drawing the grid;
- ``load_tiles(trace)``, ``output_order(trace)`` and ``wave_loads(trace, per_wave, order)``: the
  launch order explained — the distinct tiles (blocks of elements one load reads) each wave of
  ``per_wave`` programs loads, in the recorded order or another (matmul's grouped order against
  row-major: the Triton tutorial's 54 against 90 blocks for 9×9 tiles and a wave of 9);
- ``summary_lines(trace)``: the text summary the CLI prints.

No torch, no triton: the GUI process may use this module on a trace received from the worker.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .trace import (
    NO_PROGRAM,
    OP_ATOMIC,
    OP_LOAD,
    OP_NAMES,
    OP_STORE,
    SEVERAL,
    AccessTable,
    ProgramStats,
    TensorInfo,
    TensorMaps,
    Trace,
)

__all__ = ["derive", "waves", "rewave", "programs_in_wave", "Footprint", "footprint", "wave_footprint", "pid_grid",
           "per_program_grid", "summary_lines", "event_lane_mask", "LoadTiles", "load_tiles", "output_order",
           "WaveLoads", "wave_loads"]

_INT32_MAX = np.iinfo(np.int32).max


# ---------------------------------------------------------------------------------------------
# derivation


def _owners(elems: np.ndarray, progs: np.ndarray, numel: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(owner, count, n_distinct) per element: owner = the one program that touched it,
    NO_PROGRAM or SEVERAL; count = lane hits; n_distinct = distinct programs."""
    count = np.bincount(elems, minlength=numel).astype(np.int32)
    if elems.size == 0:
        return (np.full(numel, NO_PROGRAM, np.int32), count, np.zeros(numel, np.int32))
    lo = np.full(numel, _INT32_MAX, np.int32)
    hi = np.full(numel, -1, np.int32)
    np.minimum.at(lo, elems, progs)
    np.maximum.at(hi, elems, progs)
    touched = count > 0
    owner = np.where(touched, np.where(lo == hi, lo, SEVERAL), NO_PROGRAM).astype(np.int32)
    n_distinct = touched.astype(np.int32)
    multi = touched & (lo != hi)
    if multi.any():
        # exact distinct count only where it is not 1: sort (element, program) keys, count runs
        sel = multi[elems]
        n_prog = np.int64(int(progs.max()) + 1)
        keys = np.sort(elems[sel].astype(np.int64) * n_prog + progs[sel])
        keys = keys[np.r_[True, keys[1:] != keys[:-1]]]  # unique (np.unique may hash: slower here)
        n_distinct[multi] = 0
        n_distinct += np.bincount(keys // n_prog, minlength=numel).astype(np.int32)
    return owner, count, n_distinct


def event_lane_mask(events: AccessTable, rows: np.ndarray) -> np.ndarray:
    """bool [L]: the lanes of the events selected by the bool [E] array ``rows``."""
    return np.repeat(rows, events.n_active)


def _lanes(events: AccessTable, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(elements, programs) of the lanes of the selected events, in recording order."""
    if not rows.any():
        return np.zeros(0, np.int64), np.zeros(0, np.int32)
    if rows.all():
        elems = events.elements
    else:
        elems = events.elements[event_lane_mask(events, rows)]
    progs = np.repeat(events.program[rows], events.n_active[rows])
    return elems, progs


def derive(tensors: list[TensorInfo], events: AccessTable,
           programs: np.ndarray) -> tuple[list[TensorMaps], ProgramStats]:
    """Per-tensor maps and per-program statistics from the access table."""
    maps = []
    for t, info in enumerate(tensors):
        numel, shape = info.numel, info.shape
        of_t = events.tensor == t
        r_el, r_pr = _lanes(events, of_t & (events.op == OP_LOAD))
        w_rows = of_t & ((events.op == OP_STORE) | (events.op == OP_ATOMIC))
        w_el, w_pr = _lanes(events, w_rows)
        reader, n_reads, n_readers = _owners(r_el, r_pr, numel)
        writer, n_writes, _ = _owners(w_el, w_pr, numel)
        atomic_rows = of_t & (events.op == OP_ATOMIC)
        n_atomic = None  # None when the tensor saw no atomics (most kernels): saves a map
        if atomic_rows.any():
            a_el, _ = _lanes(events, atomic_rows)
            n_atomic = np.bincount(a_el, minlength=numel).astype(np.int32).reshape(shape)
        maps.append(TensorMaps(writer=writer.reshape(shape), reader=reader.reshape(shape),
                               n_reads=n_reads.reshape(shape), n_writes=n_writes.reshape(shape),
                               n_readers=n_readers.reshape(shape), n_atomic=n_atomic))
    return maps, program_stats(tensors, events, programs)


def program_stats(tensors: list[TensorInfo], events: AccessTable, programs: np.ndarray) -> ProgramStats:
    n = programs.size
    pos = np.searchsorted(programs, events.program)
    esize = np.array([t.element_size for t in tensors] + [0], dtype=np.int64)
    nbytes = events.n_active.astype(np.int64) * esize[events.tensor]  # tensor -1 -> the trailing 0
    loads = (events.op == OP_LOAD) | (events.op == OP_ATOMIC)
    stores = (events.op == OP_STORE) | (events.op == OP_ATOMIC)

    def per_program(weights: np.ndarray) -> np.ndarray:
        return np.bincount(pos, weights=weights.astype(np.float64), minlength=n)[:n]

    masked = per_program(events.n_masked)
    total = masked + per_program(events.n_active) + per_program(events.n_oob)
    frac = np.divide(masked, total, out=np.zeros(n), where=total > 0)
    return ProgramStats(
        bytes_loaded=np.rint(per_program(np.where(loads, nbytes, 0))).astype(np.int64),
        bytes_stored=np.rint(per_program(np.where(stores, nbytes, 0))).astype(np.int64),
        masked_fraction=frac.astype(np.float32),
        n_oob=np.rint(per_program(events.n_oob)).astype(np.int32),
    )


def waves(programs: np.ndarray, n_sms: int = 132, programs_per_sm: int = 1) -> np.ndarray:
    """int32: the wave of each program. The hardware hands out programs in linear-pid order;
    ``n_sms * programs_per_sm`` of them are resident at once, so program p runs in wave
    ``p // (n_sms * programs_per_sm)`` (an idealisation: equal-length programs)."""
    per_wave = max(1, int(n_sms) * max(1, int(programs_per_sm)))
    return (np.asarray(programs, dtype=np.int64) // per_wave).astype(np.int32)


def rewave(trace: Trace, n_sms: int, programs_per_sm: int = 1) -> Trace:
    """The same trace under another wave model (e.g. the compile facts' programs per SM, known
    only after a GPU run): a copy with ``n_sms``, ``programs_per_sm`` and ``wave`` replaced."""
    import dataclasses

    return dataclasses.replace(trace, n_sms=int(n_sms), programs_per_sm=int(programs_per_sm),
                               wave=waves(trace.programs, n_sms, programs_per_sm))


# ---------------------------------------------------------------------------------------------
# queries


def programs_in_wave(trace: Trace, wave: int) -> np.ndarray:
    """Linear ids of the recorded programs in ``wave`` (ascending)."""
    w = trace.wave if trace.wave is not None else waves(trace.programs, trace.n_sms, trace.programs_per_sm)
    return trace.programs[w == wave]


@dataclass
class Footprint:
    """The elements of one tensor that a set of programs touched (bool arrays of its shape)."""

    tensor: str
    read: np.ndarray
    written: np.ndarray

    def rows_read(self) -> np.ndarray:
        """Indices of the rows (first axis) with at least one element read."""
        return np.flatnonzero(self.read.reshape(self.read.shape[0], -1).any(axis=1)) if self.read.ndim else \
            np.zeros(0, np.int64)

    def cols_read(self) -> np.ndarray:
        """Indices of the columns (last axis) with at least one element read."""
        if self.read.ndim < 2:
            return np.zeros(0, np.int64)
        return np.flatnonzero(self.read.reshape(-1, self.read.shape[-1]).any(axis=0))


def footprint(trace: Trace, programs: np.ndarray | list[int], op: str | None = None,
              iters: dict[int, int] | None = None) -> list[Footprint]:
    """What ``programs`` read and wrote, per tensor. ``op`` ("load"/"store"/"atomic") keeps one
    kind of access; ``iters`` {loop column: iteration} keeps the accesses of those iterations
    (e.g. ``{0: 3}``: the fourth K step of matmul)."""
    ev = trace.events
    rows = np.isin(ev.program, np.asarray(programs, dtype=np.int64))
    if op is not None:
        rows &= ev.op == OP_NAMES.index(op)
    for col, it in (iters or {}).items():
        rows &= ev.iters[:, col] == it
    out = []
    for t, info in enumerate(trace.tensors):
        read = np.zeros(info.numel, bool)
        written = np.zeros(info.numel, bool)
        of_t = rows & (ev.tensor == t)
        r_el, _ = _lanes(ev, of_t & (ev.op == OP_LOAD))
        w_el, _ = _lanes(ev, of_t & ((ev.op == OP_STORE) | (ev.op == OP_ATOMIC)))
        read[r_el] = True
        written[w_el] = True
        out.append(Footprint(info.name, read.reshape(info.shape), written.reshape(info.shape)))
    return out


def wave_footprint(trace: Trace, wave: int) -> list[Footprint]:
    """``footprint`` of the programs of one wave: what the GPU has in flight at that moment."""
    return footprint(trace, programs_in_wave(trace, wave))


def pid_grid(trace: Trace) -> np.ndarray:
    """int32 (gz, gy, gx): the linear program id of every grid cell (x fastest)."""
    gx, gy, gz = trace.grid
    return np.arange(gx * gy * gz, dtype=np.int32).reshape(gz, gy, gx)


def per_program_grid(trace: Trace, values: np.ndarray, fill: float = np.nan) -> np.ndarray:
    """float64 (gz, gy, gx): ``values`` (one per recorded program, e.g. ``trace.stats.bytes_loaded``
    or ``trace.wave``) placed on the grid; programs outside the window get ``fill``."""
    out = np.full(trace.n_programs, fill, dtype=np.float64)
    out[trace.programs] = values
    gx, gy, gz = trace.grid
    return out.reshape(gz, gy, gx)


def summary_lines(trace: Trace, max_oob: int = 10) -> list[str]:
    """The summary the CLI prints: grid, programs, accesses per tensor, masks, OOB, conflicts."""
    ev = trace.events
    gx, gy, gz = trace.grid
    lines = [f"kernel {trace.kernel} ({trace.kernel_fn}), grid {gx}x{gy}x{gz} = {trace.n_programs} programs, "
             f"{trace.programs.size} traced" + (f" [{trace.window}]" if trace.window else ""),
             f"recorded {len(ev)} accesses, {ev.elements.size} active lanes in {trace.record_s:.2f} s; "
             f"maps in {trace.derive_s:.2f} s (Triton {trace.triton_version})"]
    if trace.loop_lines:
        lines.append("loops at lines " + ", ".join(str(n) for n in trace.loop_lines))
    lines.append(f"waves: {trace.n_sms} SMs x {trace.programs_per_sm} program(s)/SM -> "
                 f"{-(-trace.n_programs // trace.programs_per_wave)} wave(s)")
    header = f"  {'tensor':<12} {'shape':<16} {'dtype':<9} {'loads':>7} {'stores':>7} {'atomics':>7} " \
             f"{'read':>9} {'written':>9} {'unwritten':>9} {'multi-w':>7}"
    lines.append(header)
    # a reduced trace (kernels.data.coarse): the tensors as they are; its maps count cells
    cells, full = getattr(trace, "cells", None), getattr(trace, "full_tensors", None)
    for t, (info, m) in enumerate(zip(trace.tensors, trace.maps, strict=True)):
        of_t = ev.tensor == t
        counts = [int(np.count_nonzero(of_t & (ev.op == k))) for k in (OP_LOAD, OP_STORE, OP_ATOMIC)]
        shape = "x".join(str(s) for s in (full[t] if full else info).shape) or "scalar"
        lines.append(f"  {info.name:<12} {shape:<16} {info.dtype:<9} {counts[0]:>7} {counts[1]:>7} "
                     f"{counts[2]:>7} {int(np.count_nonzero(m.n_reads)):>9} "
                     f"{int(np.count_nonzero(m.n_writes)):>9} {int(np.count_nonzero(m.never_written)):>9} "
                     f"{int(np.count_nonzero(m.multiply_written)):>7}")
    if cells and full:
        lines.append("  (reduced maps: read, written, unwritten and multi-w count cells, not elements — "
                     + ", ".join(f"{i.name} {kr}x{kc}" if kr > 1 else f"{i.name} {kc}"
                                 for i, (kr, kc) in zip(trace.tensors, cells, strict=True))
                     + " elements a cell)")
    masked = int(ev.n_masked.sum())
    lanes = masked + int(ev.n_active.sum()) + int(ev.n_oob.sum())
    n_masked_prog = int(np.count_nonzero(trace.stats.masked_fraction > 0))
    lines.append(f"masked lanes: {masked} of {lanes} ({100.0 * masked / max(1, lanes):.1f}%), "
                 f"in {n_masked_prog} program(s)")
    if trace.oob:
        total = sum(r.count for r in trace.oob)
        lines.append(f"OUT OF BOUNDS: {total} lane(s) in {len(trace.oob)} record(s)")
        for r in trace.oob[:max_oob]:
            ex = ", ".join(str(o) for o in r.example_offsets)
            lines.append(f"  program {r.program} {r.op} at line {r.line}: {r.count} lane(s) {r.kind}"
                         + (f", near {r.nearest_tensor} (element offsets {ex})" if r.nearest_tensor else ""))
        if len(trace.oob) > max_oob:
            lines.append(f"  ... and {len(trace.oob) - max_oob} more record(s)")
    else:
        lines.append("out of bounds: none")
    for info, m in zip(trace.tensors, trace.maps, strict=True):
        mw = m.multiply_written
        if mw.any():
            first = np.unravel_index(int(np.flatnonzero(mw.ravel())[0]), info.shape) if info.shape else ()
            lines.append(f"MULTIPLY WRITTEN: {info.name}: {int(mw.sum())} element(s) written by several "
                         f"programs (first at index {tuple(int(i) for i in first)})")
    return lines


# ---------------------------------------------------------------------------------------------
# the launch order: what each wave loads


@dataclass
class LoadTiles:
    """Every load that read at least one element, and the tile it read: a tile is a block of
    elements of one tensor (the same first and last element and the same lane count), so the
    A tile a matmul program loads at K step 3 is the tile another program loads at its step 3."""

    program: np.ndarray  # int64 [n]: the program of each load
    tile: np.ndarray  # int64 [n]: its tile id
    tile_tensor: np.ndarray  # int64 [tiles]: the tensor of each tile
    tile_bytes: np.ndarray  # int64 [tiles]: bytes of each tile


def load_tiles(trace: Trace) -> LoadTiles:
    """The tiles of ``trace``'s loads (vectorized over lanes: one gather, two ``reduceat``)."""
    ev = trace.events
    rows = np.flatnonzero((ev.op == OP_LOAD) & (ev.n_active > 0) & (ev.tensor >= 0))
    n = ev.n_active[rows].astype(np.int64)
    ptr = np.zeros(rows.size + 1, np.int64)
    np.cumsum(n, out=ptr[1:])
    if rows.size == 0:
        z = np.zeros(0, np.int64)
        return LoadTiles(z, z, z, z)
    lanes = ev.elements[np.repeat(ev.lane_start[rows] - ptr[:-1], n) + np.arange(int(ptr[-1]))].astype(np.int64)
    first, last = np.minimum.reduceat(lanes, ptr[:-1]), np.maximum.reduceat(lanes, ptr[:-1])
    keys = np.stack([ev.tensor[rows].astype(np.int64), first, last, n], axis=1)
    uniq, tile = np.unique(keys, axis=0, return_inverse=True)
    esize = np.array([t.element_size for t in trace.tensors], np.int64)
    lanes = getattr(trace, "lanes_active", None)  # a reduced trace (kernels.data.coarse): lanes, not cells
    if lanes is None:
        return LoadTiles(program=ev.program[rows].astype(np.int64), tile=tile.reshape(-1).astype(np.int64),
                         tile_tensor=uniq[:, 0], tile_bytes=uniq[:, 3] * esize[uniq[:, 0]])
    n_lanes = np.zeros(uniq.shape[0], np.int64)
    n_lanes[tile.reshape(-1)] = lanes[rows]
    return LoadTiles(program=ev.program[rows].astype(np.int64), tile=tile.reshape(-1).astype(np.int64),
                     tile_tensor=uniq[:, 0], tile_bytes=n_lanes * esize[uniq[:, 0]])


def output_order(trace: Trace) -> np.ndarray:
    """The recorded programs in *row-major output order*: sorted by the first element each
    stores into the output (the tensor most written), so the program of C tile (m, n) comes at
    m * tiles per row + n whatever order the kernel numbers them in; programs that store
    nothing keep their pid order, last."""
    ev = trace.events
    programs = np.asarray(trace.programs, np.int64)
    writes = (ev.op == OP_STORE) | (ev.op == OP_ATOMIC)
    if not writes.any():
        return programs.copy()
    lanes_per_tensor = np.bincount(ev.tensor[writes].astype(np.int64) + 1, weights=ev.n_active[writes],
                                   minlength=len(trace.tensors) + 1)[1:]
    out_t = int(np.argmax(lanes_per_tensor))
    el, pr = _lanes(ev, writes & (ev.tensor == out_t))
    first = np.full(trace.n_programs, np.iinfo(np.int64).max, np.int64)
    np.minimum.at(first, pr.astype(np.intp), el.astype(np.int64))
    return programs[np.lexsort((programs, first[programs]))]


@dataclass
class WaveLoads:
    """What each wave of ``per_wave`` programs, dispatched in ``order``, loads: the distinct
    tiles per tensor (what must come through L2 while the wave runs) and their bytes."""

    per_wave: int
    order: np.ndarray  # int64: recorded pids in launch order
    tensors: list[str]  # names of the tensors (columns of ``tiles`` and ``nbytes``)
    tiles: np.ndarray  # int64 [waves, tensors]: distinct tiles loaded
    nbytes: np.ndarray  # int64 [waves, tensors]: their bytes

    @property
    def n_waves(self) -> int:
        return int(self.tiles.shape[0])

    def total_tiles(self) -> np.ndarray:
        return self.tiles.sum(axis=1)

    def total_bytes(self) -> np.ndarray:
        return self.nbytes.sum(axis=1)

    def loaded(self) -> list[str]:
        """The tensors some wave loads (those a table needs to show)."""
        return [t for t, n in zip(self.tensors, self.tiles.sum(axis=0), strict=True) if n > 0]


def wave_loads(trace: Trace, per_wave: int, order: np.ndarray | None = None,
               tiles: LoadTiles | None = None) -> WaveLoads:
    """Distinct tiles (and bytes) each wave loads when ``per_wave`` programs run at once in
    ``order`` (recorded pids; None: pid order, the hardware's). ``tiles``: ``load_tiles(trace)``
    if already made. For the Triton tutorial's matmul (9×9 tiles of C and 9 along K, a wave of
    9): 27 + 27 = 54 A and B tiles in grouped order (GROUP_SIZE_M=3), 9 + 81 = 90 row-major."""
    per_wave = max(1, int(per_wave))
    order = np.asarray(trace.programs if order is None else order, np.int64)
    lt = load_tiles(trace) if tiles is None else tiles
    T = len(trace.tensors)
    n_waves = max(1, -(-order.size // per_wave))
    rank = np.full(trace.n_programs, -1, np.int64)
    rank[order] = np.arange(order.size)
    wave = rank[lt.program] // per_wave
    keep = wave >= 0  # a program left out of ``order`` loads nothing here
    n_tiles = max(1, int(lt.tile_tensor.size))
    key = np.unique(wave[keep] * n_tiles + lt.tile[keep])  # distinct (wave, tile)
    w, t = key // n_tiles, key % n_tiles
    cell = w * T + lt.tile_tensor[t]
    counts = np.bincount(cell, minlength=n_waves * T)[: n_waves * T].reshape(n_waves, T)
    nbytes = np.bincount(cell, weights=lt.tile_bytes[t], minlength=n_waves * T)[: n_waves * T]
    return WaveLoads(per_wave=per_wave, order=order, tensors=[info.name for info in trace.tensors],
                     tiles=counts.astype(np.int64), nbytes=np.rint(nbytes).astype(np.int64).reshape(n_waves, T))
