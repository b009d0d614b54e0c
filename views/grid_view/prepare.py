"""What the grid view draws and hovers, precomputed from a ``Trace`` — numpy only, no Qt.

Everything a hover needs is grouped by program (CSR style), so a hover is a few slices and one
fancy-indexed assignment per tensor, never a Python loop over elements. ``prepare_trace`` is a
module-level pure function (in the manner of Orange3's ``run``): the widget runs it on a worker
thread and applies the result on the GUI thread, and tests call it with no Qt at all.

The tile maps hold lookup-table *slots* (uint8), not colours: the slot numbers are defined here,
the colours of each slot in ``palette`` (the Qt side).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from kernels.data.grid import program_xyz
from kernels.data.trace import NO_PROGRAM, OP_ATOMIC, OP_LOAD, OP_STORE, SEVERAL

from ..i18n import QT_TRANSLATE_NOOP

if TYPE_CHECKING:
    from kernels.data.trace import TensorInfo, TensorMaps, Trace

__all__ = [
    "COLOR_MODES", "LIT_LOAD", "LIT_STORE", "N_CATEGORICAL", "N_SEQ", "Panel", "PreparedTrace",
    "fold_width", "grid_fold", "is_strip", "prepare_trace", "program_slots",
]

COLOR_MODES: dict[str, str] = {  # shown translated (context "GridView")
    "program": QT_TRANSLATE_NOOP("GridView", "by program"),
    "dispatch": QT_TRANSLATE_NOOP("GridView", "by dispatch order"),
    "wave": QT_TRANSLATE_NOOP("GridView", "by wave"),
    "masked": QT_TRANSLATE_NOOP("GridView", "by masked-lane fraction"),
}

# Bits of a lit element / program: loaded by the selection, stored by it (an atomic sets both).
LIT_LOAD, LIT_STORE = 1, 2
_KIND_OF_OP = np.zeros(8, np.uint8)
_KIND_OF_OP[OP_LOAD], _KIND_OF_OP[OP_STORE], _KIND_OF_OP[OP_ATOMIC] = LIT_LOAD, LIT_STORE, 3

# Lookup-table slots shared by every colour mode; the mode's colours start at FIRST.
PAD, UNTOUCHED, MULTI_WRITE, SHARED_READ, NOT_RECORDED, ACCUMULATED, FIRST = range(7)
N_CATEGORICAL = 13  # categorical colours (a prime count: see palette.CATEGORICAL)
N_SEQ = 200  # colours of the sequential maps (dispatch order, masked fraction)

# Overlay slots: unlit elements are faded (DIM), cells left as they are CLEAR; a lit one takes
# its LIT_* bits as its slot.
DIM, CLEAR = 0, 4


def fold_width(numel: int, block: int) -> int:
    """Row length for drawing a 1-D tensor: one access block per row, doubled while the map would
    be more than four times taller than wide (a 2M-element vector becomes 2048 rows of 1024)."""
    w = max(int(block), 1)
    while numel > 4 * w * w and w < 4096:
        w *= 2
    return w


def grid_fold(grid: tuple[int, int, int]) -> tuple[int, int, bool]:
    """(columns, rows, folded) of the drawn program grid: a 1-D grid folded into rows so 16384
    programs stay square-ish; a 2-D grid as x by y."""
    gx, gy, gz = grid
    if gy == 1 and gz == 1:
        gw = gx if gx <= 64 else max(1, math.ceil(math.sqrt(gx)))
        return gw, math.ceil(gx / gw), True
    return gx, gy, False


@dataclass
class Panel:
    """One tensor's tile map and its accesses, grouped by program for fast lookup."""

    index: int
    info: TensorInfo
    maps: TensorMaps
    who: np.ndarray  # int32 [numel]: writer where written, else reader
    rows: int
    cols: int
    folded: bool
    ev: np.ndarray  # int64 [Et]: event ids touching this tensor, sorted by program (stable)
    ev_prog: np.ndarray  # int32 [Et]
    ev_kind: np.ndarray  # uint8 [Et]: LIT_* bits
    ev_step: np.ndarray  # int32 [Et]: iteration of the stepped loop, -1 outside it
    lane_ptr: np.ndarray  # int64 [Et+1]: event j's lanes are elem[lane_ptr[j]:lane_ptr[j+1]]
    elem: np.ndarray  # int32/int64 [Lt]: logical flat indices, grouped by event
    prog_ptr: np.ndarray  # int64 [P+1]: program p's events are ev[prog_ptr[p]:prog_ptr[p+1]]
    role: str
    n_oob: int
    several_at: np.ndarray  # int64: elements touched by several programs (who == SEVERAL)
    several_slot: np.ndarray  # uint8: their lookup-table slot (race, accumulated, shared read)

    @property
    def numel(self) -> int:
        return int(self.who.shape[0])

    def lanes_of_events(self, js: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(elements, kind bits) of the lanes of panel events ``js`` — vectorized gather."""
        n = self.lane_ptr[js + 1] - self.lane_ptr[js]
        total = int(n.sum())
        starts = np.repeat(self.lane_ptr[js] - (np.cumsum(n) - n), n)
        return self.elem[starts + np.arange(total)], np.repeat(self.ev_kind[js], n)

    def events_of_lanes(self, lane_pos: np.ndarray) -> np.ndarray:
        return np.searchsorted(self.lane_ptr, lane_pos, side="right") - 1

    def element_slots(self, prog_slots: np.ndarray) -> np.ndarray:
        """uint8 [numel]: every element's lookup-table slot, given every program's slot — one
        gather (``who`` shifted so NO_PROGRAM and SEVERAL index two leading entries) and one
        scatter for the elements of several programs."""
        ext = np.empty(prog_slots.shape[0] + 2, np.uint8)
        ext[SEVERAL + 2] = ext[NO_PROGRAM + 2] = UNTOUCHED  # SEVERAL's are overwritten below
        ext[2:] = prog_slots
        out = ext[self.who + 2]
        out[self.several_at] = self.several_slot
        return out

    def to_image(self, flat_values: np.ndarray, pad_value: int) -> np.ndarray:
        """A flat per-element uint8 array as the row-major image drawn (fold padded)."""
        size = self.rows * self.cols
        if size == flat_values.shape[0]:
            return flat_values.reshape(self.rows, self.cols)
        out = np.full(size, pad_value, np.uint8)
        out[: flat_values.shape[0]] = flat_values
        return out.reshape(self.rows, self.cols)

    def multi_index(self, flat: int) -> tuple[int, ...]:
        if not self.info.shape:
            return ()
        return tuple(int(i) for i in np.unravel_index(flat, self.info.shape))


def is_strip(p: Panel) -> bool:
    """Few rows and much wider than tall: drawn as a full-width strip, not a square lost in a
    panel of its own."""
    return p.rows <= 16 and (p.folded or p.cols >= 4 * p.rows)


@dataclass
class PreparedTrace:
    """A trace with everything the grid view draws and hovers precomputed: plain numpy, no Qt,
    so ``prepare_trace`` can build it on a worker thread while the window keeps running."""

    trace: Trace
    mode: str  # the colour mode ``prog_slots`` and ``images`` are for
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

    def recolour(self, mode: str) -> None:
        """Program slots and tile-map images for colour mode ``mode``."""
        self.prog_slots = program_slots(mode, self.trace, self.pos, self.wave, self.folded_grid)
        self.images = [p.to_image(p.element_slots(self.prog_slots), PAD) for p in self.panels]
        self.mode = mode

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


def program_slots(mode: str, trace: Trace, pos: np.ndarray, wave: np.ndarray, folded_grid: bool) -> np.ndarray:
    """uint8 [P]: lookup-table slot of every program in colour mode ``mode``."""
    P = pos.shape[0]
    pid = np.arange(P)
    recorded = pos >= 0
    at = np.where(recorded, pos, 0)
    if mode == "program":
        if folded_grid:
            key = pid
        else:  # x + 5y + 3z over N_CATEGORICAL (prime) colours: no neighbour shares one
            x, y, z = program_xyz(pid, trace.grid)
            key = x + 5 * y + 3 * z
        slot = FIRST + key % N_CATEGORICAL
    elif mode == "dispatch":
        slot = FIRST + (pid * N_SEQ) // max(P, 1)
    elif mode == "wave":
        slot = FIRST + np.asarray(wave)[at] % N_CATEGORICAL
    else:
        frac = np.asarray(trace.stats.masked_fraction, np.float64)[at]
        slot = FIRST + np.rint(np.clip(frac, 0, 1) * (N_SEQ - 1)).astype(np.int64)
    return np.where(recorded, slot, NOT_RECORDED).astype(np.uint8)


def _map_layout(info: TensorInfo, lanes: np.ndarray) -> tuple[int, int, bool]:
    """(rows, cols, folded) of a tensor's tile map; ``lanes``: the lanes of each access to it."""
    numel = info.numel
    if len(info.shape) <= 1:
        block = int(lanes.max()) if lanes.size else 64
        # one access block per row; a vector shorter than a row is one row
        cols = max(1, min(fold_width(numel, block if block >= 8 else 64), numel))
        return max(1, math.ceil(numel / cols)), cols, True
    return int(np.prod(info.shape[:-1])), int(info.shape[-1]), False


def _build_panels(trace: Trace, P: int, kind: np.ndarray, step: np.ndarray) -> list[Panel]:
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
        js = order[lo:hi]
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
        several_slot = np.where(written[several_at], np.where(conflict, MULTI_WRITE, ACCUMULATED),
                                SHARED_READ).astype(np.uint8)
        ops = set(np.unique(ev.op[js]).tolist())
        role = " + ".join(word for op, word in ((OP_LOAD, "read"), (OP_STORE, "written"),
                                                (OP_ATOMIC, "atomics")) if op in ops) or "untouched"
        rows, cols, folded = _map_layout(info, ev.n_active[js] + ev.n_masked[js] + ev.n_oob[js])
        ev_prog = ev.program[js].astype(np.int32)
        panels.append(Panel(
            index=t, info=info, maps=m, who=who, rows=rows, cols=cols, folded=folded, ev=js,
            ev_prog=ev_prog, ev_kind=kind[js], ev_step=step[js], lane_ptr=lane_ptr, elem=elem,
            prog_ptr=np.searchsorted(ev_prog, np.arange(P + 1)).astype(np.int64),
            role=role, n_oob=oob_by_tensor.get(info.name, 0), several_at=several_at,
            several_slot=several_slot))
    return panels


def prepare_trace(trace: Trace, mode: str = "program") -> PreparedTrace:
    """Precompute what the grid view needs to draw ``trace`` in colour mode ``mode``: events
    grouped by program and by tensor, per-element owners, the tile-map images. Numpy only (no
    Qt), so it may run on any thread; the big steps (sorts, gathers) release the GIL."""
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
    panels = _build_panels(trace, P, kind, step)
    loop_steps = [int(iters[:, j].max()) + 1 if len(iters) else 0 for j in range(iters.shape[1])]
    prep = PreparedTrace(trace=trace, mode=mode, P=P, pos=pos, wave=wave, gw=gw, grows=grows,
                         folded_grid=folded_grid, iters=iters, ev_step=step, ev_kind=kind,
                         ev_by_prog=ev_by_prog, prog_ev_ptr=prog_ev_ptr, panels=panels,
                         loop_steps=loop_steps, prog_slots=np.zeros(P, np.uint8), images=[])
    prep.recolour(mode)
    return prep
