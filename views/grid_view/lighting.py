"""What a selection lights, and where a program's cell is — numpy only, no Qt.

A *target* is what the mouse is on: ``("program", pid)`` or ``("element", panel, flat)`` (a
logical flat index into the tensor of panel ``panel``). The *selection* is the pinned target,
else the hovered one (see ``state.GridState``). Given a ``PreparedTrace``, the selection and the
loop step shown, these functions answer which elements and programs are lit (``LIT_LOAD`` /
``LIT_STORE`` bits), the overlay images the widget draws over the maps, and the source line of
the selected access.
"""

from __future__ import annotations

import numpy as np

from kernels.data.grid import program_xyz

from .prepare import CLEAR, DIM, LIT_LOAD, LIT_STORE, Panel, PreparedTrace

__all__ = [
    "Target", "access_line", "cell_of", "element_lanes", "in_slice", "panel_flags", "panel_overlay",
    "pid_at", "program_events", "program_flags", "program_overlay", "slice_pids",
]

Target = tuple  # ("program", pid) | ("element", panel index, flat index)


def program_events(p: Panel, pid: int, step: int | None) -> np.ndarray:
    """Panel event positions of program ``pid`` (of loop step ``step`` only, unless None)."""
    js = np.arange(p.prog_ptr[pid], p.prog_ptr[pid + 1])
    return js if step is None else js[p.ev_step[js] == step]


def element_lanes(p: Panel, flat: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(programs, kind bits, panel event positions) of every lane that touched ``flat``.

    A linear numpy scan (about 2 ms for 2M lanes) instead of a per-tensor inverse index,
    which would double set_trace's time and memory for a hover that is rarer than a
    program hover."""
    js = p.events_of_lanes(np.flatnonzero(p.elem == flat))
    return p.ev_prog[js], p.ev_kind[js], js


def _lit(n: int, where: np.ndarray, kind: np.ndarray) -> np.ndarray:
    """uint8 [n]: LIT_* bits of positions ``where`` by their ``kind`` bits."""
    flags = np.zeros(n, np.uint8)
    flags[where[(kind & LIT_LOAD) != 0]] |= LIT_LOAD
    flags[where[(kind & LIT_STORE) != 0]] |= LIT_STORE
    return flags


def panel_flags(p: Panel, sel: Target | None, step: int | None) -> np.ndarray | None:
    """uint8 [numel]: lit bits of panel ``p``'s elements; None when nothing is lit there."""
    if sel is None and step is None:
        return None
    if sel is not None and sel[0] == "element":
        if sel[1] != p.index:
            return None
        flags = np.zeros(p.numel, np.uint8)
        flags[sel[2]] = np.bitwise_or.reduce(element_lanes(p, sel[2])[1], initial=0)
        return flags
    js = program_events(p, sel[1], step) if sel is not None else np.nonzero(p.ev_step == step)[0]
    el, kind = p.lanes_of_events(js)
    return _lit(p.numel, el, kind)


def program_flags(prep: PreparedTrace, sel: Target | None, step: int | None) -> np.ndarray | None:
    """uint8 [P]: lit bits of the programs (those that touched the selected element, or ran the
    loop step shown); None when no program is lit."""
    if sel is not None and sel[0] == "element":
        progs, kinds, _ = element_lanes(prep.panels[sel[1]], sel[2])
        return _lit(prep.P, progs, kinds)
    if sel is None and step is not None:
        at = prep.ev_step == step
        ev = prep.trace.events
        return _lit(prep.P, ev.program[at], prep.ev_kind[at])
    return None


def panel_overlay(p: Panel, flags: np.ndarray, sel: Target | None) -> np.ndarray:
    """uint8 [numel] overlay slots: lit elements tinted, the others faded; a selected element
    that no lane touched is left clear (its marker shows it)."""
    ov = np.where(flags > 0, flags, DIM).astype(np.uint8)
    if sel is not None and sel[0] == "element" and sel[1] == p.index:
        ov[sel[2]] = CLEAR if flags[sel[2]] == 0 else flags[sel[2]]
    return ov


def program_overlay(pids: np.ndarray, prog_flags: np.ndarray, sel: Target | None) -> np.ndarray:
    """uint8 [rows, cols] overlay slots of the program grid (``pids`` from ``slice_pids``)."""
    f = np.where(pids >= 0, prog_flags[np.maximum(pids, 0)], 0)
    if sel is None:  # a loop step alone: the programs that ran it keep their colours
        f = np.where(f > 0, CLEAR, 0)
    return np.where(pids < 0, CLEAR, np.where(f > 0, f, DIM)).astype(np.uint8)


def _first_event_of_program(prep: PreparedTrace, pid: int, tensor: int | None, step: int | None) -> int | None:
    ev = prep.trace.events
    es = prep.program_events(pid)
    if tensor is not None:
        es = es[ev.tensor[es] == tensor]
    if step is not None:
        es = es[prep.ev_step[es] == step]
    return int(es[0]) if es.size else None


def access_line(prep: PreparedTrace, sel: Target | None, hover: Target | None, step: int | None) -> int:
    """The source line the source view should mark for the selection (-1: none): a program's
    first access (to the hovered element's tensor, while a program is pinned), or the first
    access to the selected element."""
    if sel is None:
        return -1
    e = None
    if sel[0] == "program":
        tensor = hover[1] if hover is not None and hover[0] == "element" else None
        e = _first_event_of_program(prep, sel[1], tensor, step)
    else:
        p = prep.panels[sel[1]]
        js = element_lanes(p, sel[2])[2]
        if js.size:
            e = int(p.ev[js].min())
    return int(prep.trace.events.line[e]) if e is not None else -1


# -------------------------------------------------------------------- program grid geometry
def slice_pids(prep: PreparedTrace, z: int) -> np.ndarray:
    """int64 [rows, cols] of pids drawn in the program grid (-1 for fold padding)."""
    gx, gy, _ = prep.trace.grid
    if prep.folded_grid:
        flat = np.full(prep.grows * prep.gw, -1, np.int64)
        flat[:gx] = np.arange(gx)
        return flat.reshape(prep.grows, prep.gw)
    return (z * gx * gy + np.arange(gx * gy)).reshape(gy, gx)


def cell_of(prep: PreparedTrace, pid: int) -> tuple[int, int, int]:
    """(row, column, z slice) of program ``pid``'s cell (a folded grid has one slice, 0)."""
    if prep.folded_grid:
        return pid // prep.gw, pid % prep.gw, 0
    x, y, z = program_xyz(pid, prep.trace.grid)
    return y, x, z


def in_slice(prep: PreparedTrace, pid: int, z: int) -> bool:
    return prep.folded_grid or cell_of(prep, pid)[2] == z


def pid_at(prep: PreparedTrace, z: int, row: int, col: int) -> int | None:
    """The program drawn at (row, col) of slice ``z``; None off the grid or on fold padding."""
    if not (0 <= row < prep.grows and 0 <= col < prep.gw):
        return None
    pid = int(slice_pids(prep, z)[row, col])
    return pid if pid >= 0 else None
