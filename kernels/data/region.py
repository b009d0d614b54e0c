"""A part of a reduced trace at full resolution — numpy only; the window asks, the worker answers.

The window draws a big trace reduced to cells (``kernels.data.coarse``). The worker keeps the full
trace it reduced (one, until another request needs the memory: ``kernels.engine.kept_trace``), and
a ``RegionRequest`` — a tensor of that trace and a rectangle of its elements, the tensor seen as
rows × columns as ``CoarseTrace.cell_elements`` sees it — is answered with a ``RegionAnswer``:
the six maps of that rectangle, element by element. ``key`` names the reduced trace the window
holds (``CoarseTrace.region_key``), so a request for a trace the worker no longer keeps is
refused instead of answered from another.

The rectangle maths lives here, Qt-free: ``cells_to_region`` (cells in view → the elements they
cover, capped at ``MAX_REGION_ELEMENTS`` around a centre) and ``slice_maps`` (the answer from
full maps kept on the host).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .trace import TensorMaps

__all__ = ["MAP_FIELDS", "MAX_REGION_ELEMENTS", "RegionAnswer", "RegionRequest", "cells_to_region", "rows_cols",
           "slice_maps"]

#: the most elements one region request fetches (a 512 × 512 rectangle; ~6 MB of maps)
MAX_REGION_ELEMENTS = 1 << 18
MAP_FIELDS = ("writer", "reader", "n_reads", "n_writes", "n_readers", "n_atomic", "last_reader")


def rows_cols(shape: tuple[int, ...]) -> tuple[int, int]:
    """A tensor of ``shape`` seen as rows × columns (leading dimensions flattened; 1-D: one row)."""
    if len(shape) <= 1:
        return 1, int(shape[0]) if shape else 1
    return int(np.prod(shape[:-1])), int(shape[-1])


@dataclass(frozen=True)
class RegionRequest:
    """Elements ``rows[0]:rows[1]`` × ``cols[0]:cols[1]`` (half-open) of tensor ``tensor`` of the
    reduced trace named ``key``."""

    key: str
    tensor: int
    rows: tuple[int, int]
    cols: tuple[int, int]
    generation: int = 0

    @property
    def numel(self) -> int:
        return max(0, self.rows[1] - self.rows[0]) * max(0, self.cols[1] - self.cols[0])

    def contains(self, row: int, col: int) -> bool:
        return self.rows[0] <= row < self.rows[1] and self.cols[0] <= col < self.cols[1]

    def covers(self, other: RegionRequest) -> bool:
        """Whether this rectangle holds all of ``other`` (of the same trace and tensor)."""
        return (self.key == other.key and self.tensor == other.tensor and self.rows[0] <= other.rows[0]
                and other.rows[1] <= self.rows[1] and self.cols[0] <= other.cols[0] and other.cols[1] <= self.cols[1])


@dataclass
class RegionAnswer:
    """The maps of ``request``'s rectangle, each ``[rows, cols]`` at full resolution; ``source``
    says where the worker read them (kept on the device, or kept on the host)."""

    request: RegionRequest
    maps: TensorMaps
    source: str = ""

    def owner(self, row: int, col: int) -> int:
        """The program drawn for element (row, col) of the tensor: its writer where written, else
        its reader (``NO_PROGRAM``, ``SEVERAL`` as in the maps)."""
        r, c = row - self.request.rows[0], col - self.request.cols[0]
        if int(self.maps.n_writes[r, c]) > 0:
            return int(self.maps.writer[r, c])
        return int(self.maps.reader[r, c])

    def owners(self) -> np.ndarray:
        """int32 [rows, cols]: ``owner`` of every element of the rectangle."""
        m = self.maps
        return np.where(m.n_writes > 0, m.writer, m.reader).astype(np.int32)


def _grow(lo: int, hi: int, limit: int, want: int, centre: float) -> tuple[int, int]:
    """``lo..hi`` cut to ``want`` long around ``centre``, inside ``0..limit``."""
    if hi - lo <= want:
        return lo, hi
    a = int(round(centre - want / 2))
    a = min(max(a, lo), hi - want)
    return a, min(limit, a + want)


def cells_to_region(key: str, tensor: int, full_shape: tuple[int, ...], cell: tuple[int, int],
                    cell_rows: tuple[int, int], cell_cols: tuple[int, int], centre: tuple[float, float] | None = None,
                    cap: int = MAX_REGION_ELEMENTS) -> RegionRequest | None:
    """The request for the elements that cells ``cell_rows`` × ``cell_cols`` (half-open, in the
    reduced tensor's rows × columns) cover, with ``cell`` = (kr, kc) elements per cell; cut to at
    most ``cap`` elements around ``centre`` (element row, column; default the middle), the
    longer side first. None when no element is covered."""
    rows, cols = rows_cols(full_shape)
    kr, kc = cell
    r0, r1 = max(0, cell_rows[0] * kr), min(rows, cell_rows[1] * kr)
    c0, c1 = max(0, cell_cols[0] * kc), min(cols, cell_cols[1] * kc)
    if r1 <= r0 or c1 <= c0:
        return None
    cr, cc = centre if centre is not None else ((r0 + r1) / 2, (c0 + c1) / 2)
    h, w = r1 - r0, c1 - c0
    if h * w > cap:  # the longer side is cut first, to no less than the shorter (a square at most)
        side = int(np.sqrt(cap))
        if h <= side:
            w = cap // h
        elif w <= side:
            h = cap // w
        else:
            h = w = side
        r0, r1 = _grow(r0, r1, rows, h, cr)
        c0, c1 = _grow(c0, c1, cols, w, cc)
    return RegionRequest(key, int(tensor), (int(r0), int(r1)), (int(c0), int(c1)))


def slice_maps(maps: TensorMaps, shape: tuple[int, ...], rows: tuple[int, int], cols: tuple[int, int]) -> TensorMaps:
    """The rectangle ``rows`` × ``cols`` of full-resolution ``maps`` of a tensor of ``shape``
    (seen as rows × columns), each map a copy ``[rows, cols]``."""
    rc = rows_cols(shape)

    def cut(a: np.ndarray | None) -> np.ndarray | None:
        if a is None:
            return None
        return np.ascontiguousarray(np.asarray(a).reshape(rc)[rows[0]:rows[1], cols[0]:cols[1]])

    return TensorMaps(**{f: cut(getattr(maps, f)) for f in MAP_FIELDS})

