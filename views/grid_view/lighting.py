"""What a selection lights, and where a program's cell is — numpy only, no Qt.

A *target* is what the mouse is on: ``("program", pid)`` or ``("element", panel, flat)`` (a
logical flat index into the tensor of panel ``panel``). The *selection* is the pinned target,
else the hovered one (see ``state.GridState``). Given a ``PreparedTrace``, the selection, the
loop step shown and the wave played, these functions answer which elements and programs are lit
(``LIT_LOAD`` / ``LIT_STORE`` bits, and ``LIT_TARGET`` for the tile a program's loop step works
towards: matmul's C tile, stored after the K loop), the overlay images the widget draws over the
maps, and the source line of the selected access.
"""

from __future__ import annotations

import numpy as np

from kernels.data.grid import program_xyz

from .prepare import CLEAR, DIM, DONE, LIT_LOAD, LIT_STORE, LIT_TARGET, Panel, PreparedTrace

__all__ = [
    "Target", "access_line", "cell_of", "element_lanes", "in_slice", "map_flags", "no_events", "panel_flags",
    "panel_overlay", "pid_at", "program_events", "program_flags", "program_overlay", "programs_events",
    "slice_pids", "target_events",
]

Target = tuple  # ("program", pid) | ("element", panel index, flat index)


def program_events(p: Panel, pid: int, step: int | None) -> np.ndarray:
    """Panel event positions of program ``pid`` (of loop step ``step`` only, unless None)."""
    js = np.arange(p.prog_ptr[pid], p.prog_ptr[pid + 1])
    return js if step is None else js[p.ev_step[js] == step]


def programs_events(p: Panel, pids: np.ndarray, step: int | None) -> np.ndarray:
    """Panel event positions of all programs ``pids`` (of loop step ``step`` only, unless None)."""
    pids = np.asarray(pids, np.int64)
    starts, ends = p.prog_ptr[pids], p.prog_ptr[pids + 1]
    n = ends - starts
    js = np.repeat(starts - (np.cumsum(n) - n), n) + np.arange(int(n.sum()))
    return js if step is None else js[p.ev_step[js] == step]


def target_events(p: Panel, pid: int) -> np.ndarray:
    """Panel event positions of program ``pid``'s stores outside every loop: the tile its loop
    works towards (matmul's C tile, stored once the K loop is done)."""
    js = np.arange(p.prog_ptr[pid], p.prog_ptr[pid + 1])
    return js[p.ev_outside[js] & ((p.ev_kind[js] & LIT_STORE) != 0)]


def no_events(p: Panel, pid: int) -> bool:
    """True when program ``pid`` has no access event on panel ``p``: lit from the maps then."""
    return bool(p.prog_ptr[pid] == p.prog_ptr[pid + 1])


def map_flags(p: Panel, pid: int) -> np.ndarray:
    """uint8 [numel]: what program ``pid`` did to panel ``p`` by the maps alone — for a program with
    no access events there (a big GPU trace keeps them for its first programs only,
    ``kernels.gpu_trace.footprints``; an access that is no tile record has none). ``LIT_STORE``
    where it is the writer: exact for its own output tile. ``LIT_LOAD`` where it is the one reader
    or the last (``TensorMaps.last_reader``): of a tile several programs read (matmul's A and B)
    only the cells no program read after it — the text says so (``text.program_text``)."""
    m = p.maps
    flags = np.zeros(p.numel, np.uint8)
    flags[m.writer.reshape(-1) == pid] |= LIT_STORE
    read = m.reader.reshape(-1) == pid
    if m.last_reader is not None:
        read |= m.last_reader.reshape(-1) == pid
    flags[read] |= LIT_LOAD
    return flags


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


def panel_flags(p: Panel, sel: Target | None, step: int | None,
                wave: np.ndarray | None = None) -> np.ndarray | None:
    """uint8 [numel]: lit bits of panel ``p``'s elements; None when nothing is lit there. With a
    program selected at a loop step, its stores after the loop are lit too (``LIT_TARGET``);
    with nothing selected, the programs of the wave played (``wave``: their pids) light what
    they touch. A selected program with no events on ``p`` is lit from its maps (``map_flags``:
    the whole run, whatever the loop step)."""
    if sel is None and step is None and wave is None:
        return None
    if sel is not None and sel[0] == "element":
        if sel[1] != p.index:
            return None
        flags = np.zeros(p.numel, np.uint8)
        flags[sel[2]] = np.bitwise_or.reduce(element_lanes(p, sel[2])[1], initial=0)
        return flags
    if sel is not None and no_events(p, sel[1]):
        return map_flags(p, sel[1])
    if sel is not None:
        js = program_events(p, sel[1], step)
    elif wave is not None:
        js = programs_events(p, wave, step)
    else:
        js = np.nonzero(p.ev_step == step)[0]
    el, kind = p.lanes_of_events(js)
    flags = _lit(p.numel, el, kind)
    if sel is not None and step is not None:
        target, _ = p.lanes_of_events(target_events(p, sel[1]))
        flags[target] |= LIT_TARGET
    return flags


def program_flags(prep: PreparedTrace, sel: Target | None, step: int | None,
                  wave: np.ndarray | None = None) -> np.ndarray | None:
    """uint8 [P]: lit bits of the programs (those that touched the selected element, ran the
    loop step shown, or run in the wave played); None when no program is lit."""
    if sel is not None and sel[0] == "element":
        progs, kinds, _ = element_lanes(prep.panels[sel[1]], sel[2])
        return _lit(prep.P, progs, kinds)
    if sel is None and (step is not None or wave is not None):
        ev = prep.trace.events
        at = np.ones(len(ev), bool) if step is None else prep.ev_step == step
        if wave is not None:
            at &= np.isin(ev.program, wave)
        flags = _lit(prep.P, ev.program[at], prep.ev_kind[at])
        if wave is not None:  # a program of the wave that touched nothing (at this step) is lit all the same
            w = np.asarray(wave, np.int64)
            flags[w[flags[w] == 0]] = LIT_LOAD
        return flags
    return None


def panel_overlay(p: Panel, flags: np.ndarray, sel: Target | None) -> np.ndarray:
    """uint8 [numel] overlay slots: lit elements tinted, the others faded; a selected element
    that no lane touched is left clear (its marker shows it)."""
    ov = np.where(flags > 0, flags, DIM).astype(np.uint8)
    if sel is not None and sel[0] == "element" and sel[1] == p.index:
        ov[sel[2]] = CLEAR if flags[sel[2]] == 0 else flags[sel[2]]
    return ov


def program_overlay(pids: np.ndarray, prog_flags: np.ndarray, sel: Target | None,
                    done: np.ndarray | None = None) -> np.ndarray:
    """uint8 [rows, cols] overlay slots of the program grid (``pids`` from ``slice_pids``); with
    no selection, lit programs keep their colours (a loop step, a wave) and ``done`` (bool [P]:
    the programs of waves already run) are half faded."""
    f = np.where(pids >= 0, prog_flags[np.maximum(pids, 0)], 0)
    if sel is None:  # a loop step or a wave alone: the programs that run it keep their colours
        f = np.where(f > 0, CLEAR, 0)
        if done is not None:
            f = np.where((f == 0) & (pids >= 0) & done[np.maximum(pids, 0)], DONE, f)
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
    return prep.grid_pids(z)


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
    gx, gy, _ = prep.trace.grid
    pid = row * prep.gw + col if prep.folded_grid else z * gx * gy + row * gx + col
    return pid if pid < prep.P else None
