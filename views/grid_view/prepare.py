"""What the grid view draws and hovers, precomputed from a ``Trace`` — numpy only, no Qt.

Everything a hover needs is grouped by program (CSR style), so a hover is a few slices and one
fancy-indexed assignment per tensor, never a Python loop over elements. ``prepare_trace`` is a
module-level pure function (in the manner of Orange3's ``run``): the widget runs it on a worker
thread and applies the result on the GUI thread, and tests call it with no Qt at all.

The tile maps hold lookup-table *slots* (uint8), not colours: the slot numbers are defined here,
the colours of each slot in ``palette`` (the Qt side). Where each element is drawn is the map's
``fold`` (``fold.MapFold``): ``prepare_trace`` picks one without knowing the screen, and the
widget fits the program grid and every map to its panel with ``PreparedTrace.fit``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from kernels.data.coarse import CoarseTrace
from kernels.data.trace import NO_PROGRAM, OP_ATOMIC, OP_LOAD, OP_STORE, SEVERAL

from ..i18n import QT_TRANSLATE_NOOP
from .colouring import assign_colours, image_pairs
from .fold import FOLD, MapFold, fit_1d, fit_2d, fit_grid, fold_width, folded, plain
from .regions import MapRegions, event_boxes, map_regions

if TYPE_CHECKING:
    from kernels.data.trace import TensorInfo, TensorMaps, Trace

__all__ = [
    "AUTO_MAX_PROGRAMS", "COLOR_MODES", "auto_reason", "resolve_mode",
    "LIT_LOAD", "LIT_STORE", "LIT_TARGET", "N_CATEGORICAL", "N_SEQ", "Panel", "PreparedTrace",
    "fold_width", "grid_fold", "is_strip", "prepare_trace", "program_slots",
]

COLOR_MODES: dict[str, str] = {  # shown translated (context "GridView")
    "auto": QT_TRANSLATE_NOOP("GridView", "automatic"),
    "program": QT_TRANSLATE_NOOP("GridView", "by program"),
    "wave": QT_TRANSLATE_NOOP("GridView", "by wave"),
    "dispatch": QT_TRANSLATE_NOOP("GridView", "by launch order"),
    "readers": QT_TRANSLATE_NOOP("GridView", "by number of readers"),
    "masked": QT_TRANSLATE_NOOP("GridView", "by masked-lane fraction"),
}

#: above this many programs a program's own colour is noise at any panel size (20 colours cycle
#: every few pixels: a moiré), so "automatic" colours by launch order, which varies smoothly
AUTO_MAX_PROGRAMS = 256


def resolve_mode(mode: str, trace: Trace) -> str:
    """The colour mode drawn for ``mode``: itself, or for ``"auto"`` what reads at this scale —
    each program's own colour while there are few programs and every drawn cell is one element;
    the launch order (a smooth ramp: neighbours in time look alike, never two aliased halves)
    when there are many programs or a cell holds several elements."""
    if mode != "auto":
        return mode
    return "dispatch" if auto_reason(trace) else "program"


def auto_reason(trace: Trace) -> str:
    """Why "automatic" colours ``trace`` by launch order ('' when it does not): the words
    translated by the caller (context "GridView"), ``{n}`` filled in."""
    if isinstance(trace, CoarseTrace) and any(kr * kc > 1 for kr, kc in trace.cells):
        return "cells"
    if trace.n_programs > AUTO_MAX_PROGRAMS:
        return "programs"
    return ""


# Bits of a lit element / program: loaded by the selection, stored by it (an atomic sets both),
# and the tile a program's loop step works towards (its stores after the loop: matmul's C tile).
LIT_LOAD, LIT_STORE, LIT_TARGET = 1, 2, 4
_KIND_OF_OP = np.zeros(8, np.uint8)
_KIND_OF_OP[OP_LOAD], _KIND_OF_OP[OP_STORE], _KIND_OF_OP[OP_ATOMIC] = LIT_LOAD, LIT_STORE, 3

# Lookup-table slots shared by every colour mode; the mode's colours start at FIRST, and the pale
# twin of slot FIRST + k (an element read by several programs, drawn in its first reader's colour)
# is FIRST + PALE + k.
PAD, UNTOUCHED, MULTI_WRITE, SHARED_READ, NOT_RECORDED, ACCUMULATED, WRITTEN_ONLY, FIRST = range(8)
N_CATEGORICAL = 20  # categorical colours (program, wave); neighbours never share one (colouring)
N_SEQ = 120  # colours of the sequential maps (launch order, readers, masked fraction)
PALE = N_SEQ

# Overlay slots: unlit elements are faded (DIM), cells left as they are CLEAR, programs of a wave
# already run half faded (DONE); a lit one takes its LIT_* bits as its slot.
DIM, CLEAR, DONE = 0, 8, 9


def grid_fold(grid: tuple[int, int, int]) -> tuple[int, int, bool]:
    """(columns, rows, folded) of the drawn program grid before it is fitted to a panel: a 1-D
    grid folded into rows so 16384 programs stay square-ish; a 2-D grid as x by y."""
    gx, gy, gz = grid
    if gy == 1 and gz == 1:
        gw = fit_grid(gx, 0, 0)
        return gw, math.ceil(gx / gw), True
    return gx, gy, False


@dataclass
class Panel:
    """One tensor's tile map and its accesses, grouped by program for fast lookup."""

    index: int
    info: TensorInfo
    maps: TensorMaps
    who: np.ndarray  # int32 [numel]: writer where written, else reader
    fold: MapFold  # where each element is drawn (PreparedTrace.fit changes it)
    block: int  # lanes of its widest access (a 1-D map is folded in multiples of it)
    row_block: int  # rows and columns its widest access spans (a 2-D map wraps in multiples)
    col_block: int
    ev: np.ndarray  # int64 [Et]: event ids touching this tensor, sorted by program (stable)
    ev_prog: np.ndarray  # int32 [Et]
    ev_kind: np.ndarray  # uint8 [Et]: LIT_* bits
    ev_step: np.ndarray  # int32 [Et]: iteration of the stepped loop, -1 outside it
    ev_outside: np.ndarray  # bool [Et]: outside every loop (matmul's store of C, after the K loop)
    lane_ptr: np.ndarray  # int64 [Et+1]: event j's lanes are elem[lane_ptr[j]:lane_ptr[j+1]]
    elem: np.ndarray  # int32/int64 [Lt]: logical flat indices, grouped by event
    prog_ptr: np.ndarray  # int64 [P+1]: program p's events are ev[prog_ptr[p]:prog_ptr[p+1]]
    role: str
    n_oob: int
    several_at: np.ndarray  # int64: elements touched by several programs (who == SEVERAL)
    several_slot: np.ndarray  # uint8: their lookup-table slot (race, accumulated, shared read)
    several_first: np.ndarray  # int64: the first (or, ``shared_by_last``, the last) program that read each (-1: written)
    regions: MapRegions  # own tiles and shared read tiles, for the labels
    #: a reduced trace (``kernels.data.coarse``): rows × columns of elements per drawn cell, and
    #: the tensor as it is (``info`` is then the grid of cells); (1, 1) and None for a full trace
    cell: tuple[int, int] = (1, 1)
    full: TensorInfo | None = None
    #: the shared reads are coloured by their last reader (``TensorMaps.last_reader``), not the first
    shared_by_last: bool = False

    @property
    def coarse(self) -> bool:
        return self.full is not None

    def cell_span(self, lo: int, hi: int, axis: int = -1) -> tuple[int, int]:
        """The elements (first, last) that cells ``lo..hi`` along ``axis`` (-1: columns, the only
        axis of a 1-D map; 0: rows) cover."""
        if self.full is None:
            return lo, hi
        k = self.cell[1] if axis == -1 else self.cell[0]
        rows, cols = ((1, self.full.numel) if len(self.full.shape) <= 1 else
                      (int(np.prod(self.full.shape[:-1])), int(self.full.shape[-1])))
        return lo * k, min((cols if axis == -1 else rows), (hi + 1) * k) - 1

    @property
    def numel(self) -> int:
        return int(self.who.shape[0])

    @property
    def rows(self) -> int:
        return self.fold.rows

    @property
    def cols(self) -> int:
        return self.fold.cols

    @property
    def folded(self) -> bool:
        return self.fold.kind == FOLD

    @property
    def shape2(self) -> tuple[int, int]:
        """The tensor as rows × columns (leading dimensions flattened; a 1-D one as one row)."""
        shape = self.info.shape
        if len(shape) <= 1:
            return 1, self.numel
        return int(np.prod(shape[:-1])), int(shape[-1])

    def fit(self, width_px: float, height_px: float) -> MapFold:
        """The fold that best fills a panel of that many pixels (see ``fold``)."""
        if len(self.info.shape) <= 1:
            return fit_1d(self.numel, self.block, width_px, height_px)
        extra = (int(self.info.shape[-2]),) if len(self.info.shape) >= 3 else ()
        # a reduced map's cell is kr × kc elements: fitted by the aspect of the elements, so that
        # softmax's 1823 × 781 (cells of 1 × 8) stays one plain map and is not wrapped
        kr, kc = self.cell
        return fit_2d(self.shape2, self.row_block, self.col_block, width_px * kr / kc, height_px, extra)

    def lanes_of_events(self, js: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(elements, kind bits) of the lanes of panel events ``js`` — vectorized gather."""
        n = self.lane_ptr[js + 1] - self.lane_ptr[js]
        total = int(n.sum())
        starts = np.repeat(self.lane_ptr[js] - (np.cumsum(n) - n), n)
        return self.elem[starts + np.arange(total)], np.repeat(self.ev_kind[js], n)

    def events_of_lanes(self, lane_pos: np.ndarray) -> np.ndarray:
        return np.searchsorted(self.lane_ptr, lane_pos, side="right") - 1

    def element_slots(self, prog_slots: np.ndarray, readers_lut: np.ndarray | None = None) -> np.ndarray:
        """uint8 [numel]: every element's lookup-table slot, given every program's slot — one
        gather (``who`` shifted so NO_PROGRAM and SEVERAL index two leading entries) and one
        scatter for the elements of several programs; an element read by several programs
        takes the pale twin of its first reader's colour. ``readers_lut`` (colour by number of
        readers): the slot of each reader count instead."""
        if readers_lut is not None:
            nr = np.minimum(self.maps.n_readers.reshape(-1), readers_lut.shape[0] - 1)
            out = readers_lut[nr]
            out[(nr == 0) & (self.maps.n_writes.reshape(-1) > 0)] = WRITTEN_ONLY
            race = self.several_slot == MULTI_WRITE
            out[self.several_at[race]] = MULTI_WRITE
            return out
        ext = np.empty(prog_slots.shape[0] + 2, np.uint8)
        ext[SEVERAL + 2] = ext[NO_PROGRAM + 2] = UNTOUCHED  # SEVERAL's are overwritten below
        ext[2:] = prog_slots
        out = ext[self.who + 2]
        out[self.several_at] = self.several_slot
        read = self.several_first >= 0
        if read.any():
            first = prog_slots[self.several_first[read]].astype(np.int64)
            out[self.several_at[read]] = np.where(first >= FIRST, first + PALE, SHARED_READ)
        return out

    def owners(self) -> np.ndarray:
        """int64 [numel]: the program each element is drawn for (its owner, or its first reader
        when several read it); -1 for none."""
        own = self.who.astype(np.int64)
        own[self.several_at] = self.several_first
        return np.where(own >= 0, own, -1)

    def to_image(self, flat_values: np.ndarray, pad_value: int) -> np.ndarray:
        """A flat per-element array as the row-major image drawn (padding filled in)."""
        return self.fold.to_image(flat_values, pad_value)

    def cell_of(self, flat: int) -> tuple[int, int]:
        """(image row, image column) of element ``flat``."""
        r, c = self.fold.place(flat)
        return int(r), int(c)

    def flat_at(self, row: int, col: int) -> int:
        """The element drawn at image cell (row, col); -1 for padding or off the map."""
        return self.fold.flat_at(row, col)

    def multi_index(self, flat: int) -> tuple[int, ...]:
        if not self.info.shape:
            return ()
        return tuple(int(i) for i in np.unravel_index(flat, self.info.shape))


def is_strip(p: Panel) -> bool:
    """A 1-D map: drawn full width, one under the other, so that the same element of tensors of
    one length lines up from map to map."""
    return len(p.info.shape) <= 1


@dataclass
class PreparedTrace:
    """A trace with everything the grid view draws and hovers precomputed: plain numpy, no Qt,
    so ``prepare_trace`` can build it on a worker thread while the window keeps running."""

    trace: Trace
    mode: str  # the colour mode ``prog_slots`` and ``images`` are for (never "auto": what it resolved to)
    P: int  # programs in the grid (recorded or not)
    pos: np.ndarray  # int64 [P]: position in trace.programs, -1 when not recorded
    wave: np.ndarray  # [recorded programs]: the wave each one runs in
    gw: int  # program grid columns drawn
    grows: int  # program grid rows drawn
    folded_grid: bool  # a 1-D grid folded into rows
    iters: np.ndarray  # int32 [E, loops]
    ev_step: np.ndarray  # int32 [E]: iteration of the stepped loop (-1 outside, or no loop)
    ev_kind: np.ndarray  # uint8 [E]: LIT_* bits
    ev_by_prog: np.ndarray  # int64 [E]: event ids in program order
    prog_ev_ptr: np.ndarray  # int64 [P+1]
    panels: list[Panel]
    loop_steps: list[int]  # iterations of each loop
    prog_slots: np.ndarray  # uint8 [P]: lookup-table slot of each program in ``mode``
    images: list[np.ndarray]  # uint8 [rows, cols] per panel: the tile map in ``mode``
    colour_key: np.ndarray | None = None  # int64 [P]: categorical colour of each program
    per_wave: int = 1  # programs that run at once (the wave model ``wave`` follows)
    order: np.ndarray | None = None  # int64: recorded pids in launch order (None: pid order)
    max_readers: int = 1
    _reuse: np.ndarray | None = None  # float64 [P]: mean readers of what each program loads
    requested: str = ""  # the mode asked for ("auto", or ``mode`` itself)

    def recolour(self, mode: str | None = None) -> None:
        """Program slots and tile-map images for colour mode ``mode`` (None: the current;
        ``"auto"``: see ``resolve_mode``)."""
        mode = (self.requested or self.mode) if mode is None else mode
        self.requested = mode
        mode = resolve_mode(mode, self.trace)
        self.mode = mode
        self.prog_slots = program_slots(mode, self)
        lut = readers_lut(self.max_readers) if mode == "readers" else None
        self.images = [p.to_image(p.element_slots(self.prog_slots, lut), PAD) for p in self.panels]

    def element_slots(self, p: Panel) -> np.ndarray:
        """uint8 [numel]: the slots of panel ``p``'s elements in the current mode."""
        lut = readers_lut(self.max_readers) if self.mode == "readers" else None
        return p.element_slots(self.prog_slots, lut)

    @property
    def lanes_active(self) -> np.ndarray:
        """int [E]: active lanes of each access (of a reduced trace: its lanes, not its cells)."""
        la = getattr(self.trace, "lanes_active", None)
        return self.trace.events.n_active if la is None else la

    def reuse(self) -> np.ndarray:
        """float64 [P]: how many programs, on average, read what each program loads (1: nothing
        it loads is shared; 0: it loads nothing)."""
        if self._reuse is None:
            total, count = np.zeros(self.P), np.zeros(self.P)
            for p in self.panels:
                nr = p.maps.n_readers.reshape(-1)[p.elem].astype(np.float64)
                loads = np.repeat((p.ev_kind & LIT_LOAD) != 0, np.diff(p.lane_ptr))
                cs = np.concatenate([[0.0], np.cumsum(np.where(loads, nr, 0.0))])
                cn = np.concatenate([[0.0], np.cumsum(loads)])
                ends = p.lane_ptr[p.prog_ptr]
                total += np.diff(cs[ends])
                count += np.diff(cn[ends])
            self._reuse = np.divide(total, count, out=np.zeros(self.P), where=count > 0)
        return self._reuse

    # ------------------------------------------------------------------ fitting to the screen
    def fit(self, grid_px: tuple[float, float] | None, panel_px: list[tuple[float, float]]) -> bool:
        """Fold the program grid (a 1-D one) and every map to fill panels of these pixel sizes
        (width, height; None or 0: leave as is). True when anything moved; the colours are
        then worked out again (neighbours change) and the images redrawn."""
        changed = False
        if grid_px is not None and self.folded_grid and min(grid_px) > 0:
            gw = fit_grid(self.P, *grid_px)
            if gw != self.gw:
                self.gw, self.grows = gw, math.ceil(self.P / gw)
                changed = True
        alike: dict[tuple, MapFold] = {}  # 1-D maps of one length and block fold alike (x, y, out)
        for p, px in zip(self.panels, panel_px, strict=False):
            if px is None or min(px) <= 0:
                continue
            key = (p.numel, p.block) if len(p.info.shape) <= 1 else (p.index,)
            fold = alike.setdefault(key, p.fit(*px))
            if fold != p.fold:
                p.fold = fold
                changed = True
        if changed:
            self.colour_key = None
            self.recolour()
        return changed

    def grid_pids(self, z: int = 0) -> np.ndarray:
        """int64 [grows, gw]: the pid drawn in every cell of the program grid (-1: padding)."""
        gx, gy, _ = self.trace.grid
        if self.folded_grid:
            flat = np.full(self.grows * self.gw, -1, np.int64)
            flat[: self.P] = np.arange(self.P)
            return flat.reshape(self.grows, self.gw)
        return (z * gx * gy + np.arange(gx * gy)).reshape(gy, gx)

    def colours(self) -> np.ndarray:
        """int64 [P]: every program's categorical colour, neighbours apart (see ``colouring``)."""
        if self.colour_key is None:
            pairs = [np.stack([np.arange(self.P - 1), np.arange(1, self.P)], axis=1)]
            for z in range(1 if self.folded_grid else self.trace.grid[2]):
                pairs.append(image_pairs(self.grid_pids(z), diagonal=True))
            seen: list[tuple[MapFold, np.ndarray]] = []
            for p in self.panels:
                owners = p.owners()
                if any(f == p.fold and np.array_equal(o, owners) for f, o in seen):
                    continue  # x, y and out of a vector add: one map's neighbours are enough
                seen.append((p.fold, owners))
                pairs.append(image_pairs(p.fold.to_image(owners, -1)))
            self.colour_key = assign_colours(self.P, np.concatenate(pairs), N_CATEGORICAL)
        return self.colour_key

    # ------------------------------------------------------------------ waves
    def set_waves(self, per_wave: int, order: np.ndarray | None = None) -> None:
        """Waves of ``per_wave`` programs, dispatched in ``order`` (recorded pids; None: pid
        order, as the hardware does); recolours when the colours show waves."""
        self.per_wave = max(1, int(per_wave))
        self.order = None if order is None else np.asarray(order, np.int64)
        programs = np.asarray(self.trace.programs, np.int64)
        if self.order is None:
            self.wave = (programs // self.per_wave).astype(np.int32)
        else:
            rank = np.empty(self.P, np.int64)
            rank[self.order] = np.arange(self.order.shape[0])
            self.wave = (rank[programs] // self.per_wave).astype(np.int32)
        if self.mode == "wave":
            self.recolour()

    def wave_programs(self, w: int) -> np.ndarray:
        """The recorded pids of wave ``w``, in launch order."""
        order = self.order if self.order is not None else np.asarray(self.trace.programs, np.int64)
        return order[w * self.per_wave: (w + 1) * self.per_wave]

    def n_waves(self) -> int:
        return int(np.asarray(self.wave).max()) + 1 if len(self.wave) else 0

    # ------------------------------------------------------------------ loops and lookups
    def select_loop(self, j: int) -> None:
        """Step loop ``j`` (a column of ``iters``): every event's step becomes its iteration."""
        self.ev_step = self.iters[:, j]
        for p in self.panels:
            p.ev_step = self.ev_step[p.ev]

    def program_events(self, pid: int) -> np.ndarray:
        """Event ids of program ``pid``, in program order."""
        return self.ev_by_prog[self.prog_ev_ptr[pid]: self.prog_ev_ptr[pid + 1]]

    def panel(self, tensor: str) -> Panel:
        for p in self.panels:
            if p.info.name == tensor:
                return p
        names = ", ".join(p.info.name for p in self.panels)
        raise ValueError(f"no tensor {tensor!r}; the trace has {names}")


def readers_lut(max_readers: int) -> np.ndarray:
    """uint8 [max_readers + 1]: the slot of each reader count (0: untouched)."""
    k = np.arange(max(1, int(max_readers)) + 1)
    span = max(1, int(max_readers) - 1)
    lut = FIRST + np.rint((np.maximum(k, 1) - 1) * (N_SEQ - 1) / span).astype(np.int64)
    lut[0] = UNTOUCHED
    return lut.astype(np.uint8)


def program_slots(mode: str, prep: PreparedTrace) -> np.ndarray:
    """uint8 [P]: lookup-table slot of every program in colour mode ``mode``."""
    P, trace, pos = prep.P, prep.trace, prep.pos
    pid = np.arange(P)
    recorded = pos >= 0
    at = np.where(recorded, pos, 0)
    if mode == "program":
        slot = FIRST + prep.colours()
    elif mode == "dispatch":
        slot = FIRST + (pid * N_SEQ) // max(P, 1)
    elif mode == "wave":
        slot = FIRST + np.asarray(prep.wave)[at] % N_CATEGORICAL
    elif mode == "readers":
        lut = readers_lut(prep.max_readers).astype(np.int64)
        reuse = prep.reuse()
        slot = np.where(reuse > 0, lut[np.clip(np.rint(reuse).astype(np.int64), 1, lut.shape[0] - 1)], UNTOUCHED)
    else:
        frac = np.asarray(trace.stats.masked_fraction, np.float64)[at]
        slot = FIRST + np.rint(np.clip(frac, 0, 1) * (N_SEQ - 1)).astype(np.int64)
    return np.where(recorded, slot, NOT_RECORDED).astype(np.uint8)


def _blocks(info: TensorInfo, lanes: np.ndarray, boxes) -> tuple[int, int, int]:
    """(block, row_block, col_block) of a tensor's accesses: the lanes of the widest (a vector
    shorter than 8 lanes a block is drawn in rows of 64), the rows and columns one spans."""
    block = int(lanes.max()) if lanes.size else 64
    block = block if block >= 8 else 64
    if len(info.shape) <= 1 or not boxes.n.any():
        return block, 1, 1
    live = boxes.n > 0
    return block, int((boxes.a1 - boxes.a0 + 1)[live].max()), int((boxes.b1 - boxes.b0 + 1)[live].max())


def _first_readers(numel: int, elem: np.ndarray, lane_prog: np.ndarray, lane_load: np.ndarray,
                   several_at: np.ndarray, shared_read: np.ndarray) -> np.ndarray:
    """int64 [len(several_at)]: the lowest pid that loaded each element of several programs
    (-1 where it is written: a race or atomics, not a shared read; -1 too where no recorded
    access names its readers: a GPU trace keeps maps without per-access events)."""
    out = np.full(several_at.shape[0], -1, np.int64)
    if not shared_read.any():
        return out
    none = np.iinfo(np.int32).max
    first = np.full(numel, none, np.int32)
    # values of the array's own dtype: ufunc.at takes a slow path (50x) when it must cast
    np.minimum.at(first, elem[lane_load].astype(np.intp), lane_prog[lane_load].astype(np.int32))
    got = first[several_at[shared_read]]
    out[shared_read] = np.where(got == none, -1, got)
    return out


def _ops_of_maps(m: TensorMaps) -> set[int]:
    """The kinds of access a tensor's maps show (for traces without per-access events)."""
    atomics = m.n_atomic is not None and bool(m.n_atomic.any())
    plain_writes = bool((m.n_writes > (m.n_atomic if m.n_atomic is not None else 0)).any())
    return {op for op, seen in ((OP_LOAD, bool(m.n_reads.any())), (OP_STORE, plain_writes),
                                (OP_ATOMIC, atomics)) if seen}


def _panel(trace: Trace, t: int, info: TensorInfo, js: np.ndarray, P: int, kind: np.ndarray, iters: np.ndarray,
           n_oob: int) -> Panel:
    ev = trace.events
    n = ev.n_active[js].astype(np.int64)
    lane_ptr = np.zeros(len(js) + 1, np.int64)
    np.cumsum(n, out=lane_ptr[1:])
    gather = np.repeat(ev.lane_start[js] - lane_ptr[:-1], n) + np.arange(int(lane_ptr[-1]))
    elem = ev.elements[gather]
    if info.numel < 2**31:
        elem = elem.astype(np.int32, copy=False)
    m = trace.maps[t]
    written = m.n_writes.reshape(-1) > 0
    who = np.where(written, m.writer.reshape(-1), m.reader.reshape(-1)).astype(np.int32, copy=False)
    several_at = np.flatnonzero(who == SEVERAL)
    conflict = m.multiply_written.reshape(-1)[several_at]  # atomics accumulating are no conflict
    shared_read = ~written[several_at]
    several_slot = np.where(~shared_read, np.where(conflict, MULTI_WRITE, ACCUMULATED),
                            SHARED_READ).astype(np.uint8)
    ops = set(np.unique(ev.op[js]).tolist()) or _ops_of_maps(m)  # a GPU trace: maps, no events
    role = " + ".join(word for op, word in ((OP_LOAD, "read"), (OP_STORE, "written"),
                                            (OP_ATOMIC, "atomics")) if op in ops) or "untouched"
    ev_prog = ev.program[js].astype(np.int32)
    ev_kind = kind[js]
    lane_prog = np.repeat(ev_prog, n)
    lane_load = np.repeat(ev_kind == LIT_LOAD, n)
    one_d = len(info.shape) <= 1
    boxes = event_boxes(elem, lane_ptr, None if one_d else int(info.shape[-1]))
    off = (ev.n_masked[js] + ev.n_oob[js]).astype(np.int64)
    cell, full = ((trace.cells[t], trace.full_tensors[t]) if isinstance(trace, CoarseTrace) else ((1, 1), None))
    if full is not None:  # switched-off lanes are lanes, not cells: as many cells as they span
        off = -(-off // (cell[0] * cell[1]))
    block, row_block, col_block = _blocks(info, ev.n_active[js] + off, boxes)
    lane_who = who[elem]
    regions = map_regions(boxes, ev_prog, ev_kind == LIT_LOAD, lane_who == lane_prog,
                          (lane_who == SEVERAL) & ~written[elem], lane_ptr, P, one_d)
    shape2 = (1, info.numel) if one_d else (int(np.prod(info.shape[:-1])), int(info.shape[-1]))
    fold = folded(info.numel, fold_width(info.numel, block)) if one_d else plain(shape2)
    several_first = _first_readers(info.numel, elem, lane_prog, lane_load, several_at, shared_read)
    # a GPU trace keeps maps without per-access events: its shared reads take the last reader's
    # colour instead (matmul's A row bands by the group that read them; B by the last group)
    by_last = False
    if m.last_reader is not None:
        unknown = shared_read & (several_first < 0)
        if unknown.any():
            several_first[unknown] = m.last_reader.reshape(-1)[several_at[unknown]]
            by_last = True
    return Panel(
        index=t, info=info, maps=m, who=who, fold=fold, block=block, row_block=row_block,
        col_block=col_block, ev=js, ev_prog=ev_prog, ev_kind=ev_kind,
        ev_step=iters[js, 0] if iters.shape[1] else np.full(len(js), -1, np.int32),
        ev_outside=(iters[js] < 0).all(axis=1), lane_ptr=lane_ptr,
        elem=elem, prog_ptr=np.searchsorted(ev_prog, np.arange(P + 1)).astype(np.int64), role=role,
        n_oob=n_oob, several_at=several_at, several_slot=several_slot,
        several_first=several_first, regions=regions, cell=cell, full=full, shared_by_last=by_last)


def _build_panels(trace: Trace, P: int, kind: np.ndarray, iters: np.ndarray) -> list[Panel]:
    ev = trace.events
    oob_by_tensor: dict[str, int] = {}
    for r in trace.oob:
        oob_by_tensor[r.nearest_tensor] = oob_by_tensor.get(r.nearest_tensor, 0) + r.count
    # event ids of each tensor in program order, all tensors in one stable sort
    order = np.lexsort((ev.program, ev.tensor)) if len(ev) else np.zeros(0, np.int64)
    tensor_sorted = ev.tensor[order]
    panels = []
    for t, info in enumerate(trace.tensors):
        lo, hi = np.searchsorted(tensor_sorted, [t, t + 1])
        panels.append(_panel(trace, t, info, order[lo:hi], P, kind, iters, oob_by_tensor.get(info.name, 0)))
    return panels


def prepare_trace(trace: Trace, mode: str = "auto") -> PreparedTrace:
    """Precompute what the grid view needs to draw ``trace`` in colour mode ``mode``: events
    grouped by program and by tensor, per-element owners, label regions, neighbour-apart
    colours, the tile-map images. Numpy only (no Qt), so it may run on any thread; the big
    steps (sorts, gathers) release the GIL."""
    if mode not in COLOR_MODES:
        raise ValueError(f"unknown colour mode {mode!r}; one of {', '.join(COLOR_MODES)}")
    P = trace.n_programs
    pos = np.full(P, -1, np.int64)
    pos[trace.programs] = np.arange(len(trace.programs))
    wave = (trace.wave if trace.wave is not None else
            (trace.programs // max(trace.n_sms * trace.programs_per_sm, 1)))
    gw, grows, folded_grid = grid_fold(trace.grid)
    ev = trace.events
    E = len(ev)
    iters = ev.iters.astype(np.int32) if ev.iters.ndim == 2 else np.zeros((E, 0), np.int32)
    step = iters[:, 0] if iters.shape[1] else np.full(E, -1, np.int32)
    kind = _KIND_OF_OP[ev.op.astype(np.int64)]
    # all events of a program, in program order (the tracer records program by program; the
    # stable sort keeps each program's order even if it did not)
    ev_by_prog = np.argsort(ev.program, kind="stable")
    prog_ev_ptr = np.searchsorted(ev.program[ev_by_prog], np.arange(P + 1))
    panels = _build_panels(trace, P, kind, iters)
    loop_steps = [int(iters[:, j].max()) + 1 if len(iters) else 0 for j in range(iters.shape[1])]
    max_readers = max([int(p.maps.n_readers.max()) if p.numel else 1 for p in panels] + [1])
    prep = PreparedTrace(trace=trace, mode=mode, P=P, pos=pos, wave=wave, gw=gw, grows=grows,
                         folded_grid=folded_grid, iters=iters, ev_step=step, ev_kind=kind,
                         ev_by_prog=ev_by_prog, prog_ev_ptr=prog_ev_ptr, panels=panels,
                         loop_steps=loop_steps, prog_slots=np.zeros(P, np.uint8), images=[],
                         per_wave=trace.programs_per_wave, max_readers=max_readers)
    prep.recolour(mode)
    return prep
