"""A region of a reduced map drawn at full resolution over its cells — numpy only, no Qt.

A reduced map (``Panel.coarse``) draws cells of ``kr × kc`` elements; each cell is a unit square
of the map's image wherever its fold puts it. A ``RegionAnswer`` (``kernels.data.region``) holds
every element of a rectangle, so each of its cells is drawn again as ``kr × kc`` sub-squares:
``Detail.build`` makes that image (lookup-table slots, ``OUTSIDE`` where the rectangle does not
reach: transparent), and the box of image cells it covers. The other way, ``element_at`` turns
a point of the map's image into the element under it, ``element_point`` an element into the
centre of its sub-square, and ``region_for_view`` the cells a zoomed view shows into the request
for their elements.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from kernels.data.region import RegionAnswer, RegionRequest, cells_to_region, rows_cols
from kernels.data.trace import NO_PROGRAM, SEVERAL

from ..i18n import translate
from .fold import FOLD, WRAP_COLS, WRAP_ROWS
from .prepare import (
    ACCUMULATED,
    MULTI_WRITE,
    SHARED_READ,
    UNTOUCHED,
    WRITTEN_ONLY,
    Panel,
    PreparedTrace,
    readers_lut,
)

__all__ = ["MIN_CELL_PX", "OUTSIDE", "Detail", "element_at", "element_point", "region_for_view", "region_text"]

# a slot no colour mode uses: transparent in every lookup table (``palette.mode_lut``)
OUTSIDE = 255
# screen pixels a cell must have on its narrow side before the view asks for its elements
MIN_CELL_PX = 4.0


def _cell_cols(p: Panel) -> int:
    """Cells per row of the reduced tensor (a 1-D one: all of them)."""
    return rows_cols(p.info.shape)[1]


def _cell_place(p: Panel, i: np.ndarray, j: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(image row, image column) of the cells holding elements (i, j)."""
    kr, kc = p.cell
    return p.fold.place((i // kr) * _cell_cols(p) + j // kc)


def region_slots(prep: PreparedTrace, answer: RegionAnswer) -> np.ndarray:
    """uint8 [rows, cols]: the slot of each element of the answer in the current colour mode, as
    ``Panel.element_slots`` colours a full map (an element several programs read: the shared-read
    slot, as no per-access record names its first reader here)."""
    m = answer.maps
    written = m.n_writes > 0
    if prep.mode == "readers":
        lut = readers_lut(prep.max_readers)
        out = lut[np.minimum(m.n_readers, lut.shape[0] - 1)]
        out[(m.n_readers == 0) & written] = WRITTEN_ONLY
        out[m.multiply_written] = MULTI_WRITE
        return out
    who = answer.owners()
    out = np.where(who >= 0, prep.prog_slots[np.clip(who, 0, prep.P - 1)], UNTOUCHED).astype(np.uint8)
    several = who == SEVERAL
    out[several & ~written] = SHARED_READ
    out[several & written] = ACCUMULATED
    out[several & m.multiply_written] = MULTI_WRITE
    return out


@dataclass
class Detail:
    """A region drawn over panel ``panel``: ``image`` (slots, ``kr`` × ``kc`` pixels a cell)
    over image cells ``box`` = (x0, y0, x1, y1) of the map; ``forced_px``: the cell size on screen
    it was asked at by hand (``show_full_resolution``), 0 when the zoom asked for it."""

    panel: int
    answer: RegionAnswer
    image: np.ndarray
    box: tuple[int, int, int, int]
    forced_px: float = 0.0

    @classmethod
    def build(cls, prep: PreparedTrace, p: Panel, answer: RegionAnswer, forced_px: float = 0.0) -> Detail:
        kr, kc = p.cell
        (r0, r1), (c0, c1) = answer.request.rows, answer.request.cols
        i, j = np.meshgrid(np.arange(r0, r1, dtype=np.int64), np.arange(c0, c1, dtype=np.int64), indexing="ij")
        y, x = _cell_place(p, i.reshape(-1), j.reshape(-1))
        x0, y0 = int(x.min()), int(y.min())
        x1, y1 = int(x.max()) + 1, int(y.max()) + 1
        image = np.full(((y1 - y0) * kr, (x1 - x0) * kc), OUTSIDE, np.uint8)
        image[(y - y0) * kr + i.reshape(-1) % kr, (x - x0) * kc + j.reshape(-1) % kc] = region_slots(prep, answer).reshape(-1)
        return cls(p.index, answer, image, (x0, y0, x1, y1), forced_px)


def element_at(p: Panel, answer: RegionAnswer, x: float, y: float) -> tuple[int, int] | None:
    """(row, column) of the element of the answer's rectangle drawn at image point (x, y) of
    panel ``p``'s map, or None (padding, or outside the rectangle)."""
    fx, fy = math.floor(x), math.floor(y)
    flat = p.flat_at(fy, fx)
    if flat < 0:
        return None
    kr, kc = p.cell
    cr, cc = divmod(flat, _cell_cols(p))
    i = cr * kr + min(kr - 1, int((y - fy) * kr))
    j = cc * kc + min(kc - 1, int((x - fx) * kc))
    return (i, j) if answer.request.contains(i, j) else None


def element_point(p: Panel, row: int, col: int) -> tuple[float, float]:
    """Image point (x, y) of the centre of element (row, col)'s sub-square in ``p``'s map."""
    kr, kc = p.cell
    y, x = _cell_place(p, np.array([row]), np.array([col]))
    return float(x[0]) + (col % kc + 0.5) / kc, float(y[0]) + (row % kr + 0.5) / kr


def _visible_cells(p: Panel, view: tuple[float, float, float, float],
                   centre: tuple[float, float]) -> tuple[tuple[int, int], tuple[int, int]] | None:
    """(cell rows, cell columns) of the reduced tensor in view (x0, x1, y0, y1 image units); a
    wrapped map: of the piece under ``centre``."""
    f = p.fold
    x0, x1, y0, y1 = view
    ix0, iy0 = max(0, math.floor(x0)), max(0, math.floor(y0))
    ix1, iy1 = min(f.cols, math.ceil(x1)), min(f.rows, math.ceil(y1))
    if ix1 <= ix0 or iy1 <= iy0:
        return None
    if f.kind == FOLD:  # rows of one vector: the flat run of cells from the first in view to the last
        return (0, 1), (iy0 * f.chunk + ix0, min(f.numel, (iy1 - 1) * f.chunk + ix1))
    if f.kind == WRAP_ROWS:
        k = min(max(0, int(centre[0]) // (f.C + f.gap)), f.pieces - 1)
        a = k * (f.C + f.gap)
        return ((k * f.chunk + iy0, min(f.R, k * f.chunk + iy1)), (max(0, ix0 - a), min(f.C, ix1 - a)))
    if f.kind == WRAP_COLS:
        k = min(max(0, int(centre[1]) // (f.R + f.gap)), f.pieces - 1)
        a = k * (f.R + f.gap)
        return ((max(0, iy0 - a), min(f.R, iy1 - a)), (k * f.chunk + ix0, min(f.C, k * f.chunk + ix1)))
    return (iy0, iy1), (ix0, ix1)


def region_for_view(p: Panel, key: str, view: tuple[float, float, float, float]) -> RegionRequest | None:
    """The request for the elements of the cells panel ``p`` shows in ``view`` (x0, x1, y0, y1
    in image units), capped around the view's centre; None for a full map, or nothing in view."""
    if not p.coarse or not key:
        return None
    centre = ((view[0] + view[1]) / 2, (view[2] + view[3]) / 2)
    cells = _visible_cells(p, view, centre)
    if cells is None:
        return None
    flat = p.flat_at(min(p.fold.rows - 1, max(0, int(centre[1]))), min(p.fold.cols - 1, max(0, int(centre[0]))))
    kr, kc = p.cell
    at = None
    if flat >= 0:
        cr, cc = divmod(flat, _cell_cols(p))
        at = (cr * kr + kr / 2, cc * kc + kc / 2)
    return cells_to_region(key, p.index, p.full.shape, p.cell, *cells, centre=at)


def _owner_words(prep: PreparedTrace, verb: str, pid: int) -> str:
    from kernels.data.grid import program_xyz

    if pid == SEVERAL:
        return translate("GridView", "{verb} by several programs").format(verb=verb)
    if pid == NO_PROGRAM:
        return translate("GridView", "{verb} by no program").format(verb=verb)
    return translate("GridView", "{verb} by program {pid} {xyz}").format(verb=verb, pid=pid,
                                                                       xyz=program_xyz(pid, prep.trace.grid))


def region_text(prep: PreparedTrace, p: Panel, answer: RegionAnswer, row: int, col: int) -> str:
    """What the hover says of element (row, col) of a region drawn at full resolution."""
    shape = p.full.shape
    if len(shape) <= 1:
        idx: tuple[int, ...] = (col,)
    else:
        idx = (*np.unravel_index(row, shape[:-1]), col) if len(shape) > 2 else (row, col)
    r, c = row - answer.request.rows[0], col - answer.request.cols[0]
    m = answer.maps
    lines = [f"{p.info.name}[{', '.join(str(int(v)) for v in idx)}]   "
             + translate("GridView", "(at full resolution)"),
             _owner_words(prep, translate("GridView", "written"), int(m.writer[r, c])),
             _owner_words(prep, translate("GridView", "read"), int(m.reader[r, c])),
             translate("GridView", "reads: {r}   writes: {w}").format(r=int(m.n_reads[r, c]), w=int(m.n_writes[r, c]))
             + "   " + translate("GridView", "readers: {n}").format(n=int(m.n_readers[r, c]))]
    if m.multiply_written[r, c]:
        lines.append(translate("GridView", "⚠ written by several programs: the result depends on which store "
                                           "lands last (a race) unless they all store the same value."))
    return "\n".join(lines)
