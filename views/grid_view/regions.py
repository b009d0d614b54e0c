"""The labelled regions of a tile map, and which labels fit on screen — numpy only, no Qt.

A tile map carries two kinds of labels, worked out once per trace from the recorded accesses:

- a program's own tile — the elements it alone wrote (or alone read): its pid, at the centre of
  the tile (matmul's C tiles, a vector add's blocks, a softmax row);
- a tile read by several programs — one load block that several programs loaded (matmul's A
  and B tiles, attention's K and V blocks): ``×readers first–last``, the reader count and the
  band of pids that read it.

``label_boxes`` places them in the drawn image for the map's current fold, and ``pick_labels``
keeps those whose box, as large as it is on screen now, holds its text: more labels appear as
the learner zooms in.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .fold import MapFold

__all__ = ["EventBoxes", "MapRegions", "event_boxes", "label_boxes", "map_regions", "pick_labels"]


@dataclass
class EventBoxes:
    """Per event of a panel: the box its lanes span — 1-D: flat ``a0..a1``; 2-D: rows ``a0..a1``
    × columns ``b0..b1`` (inclusive); ``n``: its lanes (0: every lane masked, no box)."""

    a0: np.ndarray
    a1: np.ndarray
    b0: np.ndarray
    b1: np.ndarray
    n: np.ndarray


def event_boxes(elem: np.ndarray, lane_ptr: np.ndarray, cols: int | None) -> EventBoxes:
    """The box of every event (lanes ``elem[lane_ptr[j]:lane_ptr[j+1]]``); ``cols``: columns of
    the tensor's 2-D view, None for a 1-D tensor — four ``reduceat`` over the lanes."""
    n = np.diff(lane_ptr)
    E = n.shape[0]
    z = np.zeros(E, np.int64)
    out = EventBoxes(z.copy(), z.copy(), z.copy(), z.copy(), n)
    live = n > 0
    if not live.any():
        return out
    starts = lane_ptr[:-1][live]
    e = elem.astype(np.int64, copy=False)
    if cols is None:
        out.a0[live], out.a1[live] = np.minimum.reduceat(e, starts), np.maximum.reduceat(e, starts)
        return out
    r, c = e // cols, e % cols
    out.a0[live], out.a1[live] = np.minimum.reduceat(r, starts), np.maximum.reduceat(r, starts)
    out.b0[live], out.b1[live] = np.minimum.reduceat(c, starts), np.maximum.reduceat(c, starts)
    return out


@dataclass
class MapRegions:
    """The labelled regions of one map (tensor coordinates, as ``EventBoxes``): ``pid`` the
    owner (own tiles) or the first reader, ``last`` the last reader, ``n`` the reader count
    (1 for an own tile)."""

    one_d: bool
    a0: np.ndarray
    a1: np.ndarray
    b0: np.ndarray
    b1: np.ndarray
    pid: np.ndarray
    last: np.ndarray
    n: np.ndarray

    def __len__(self) -> int:
        return int(self.pid.shape[0])

    def text(self, i: int, short: bool = False) -> str:
        """The label of region ``i``: a pid, or ``×readers first–last`` (``short``: ``×readers``,
        for a tile too small for the band)."""
        if self.n[i] <= 1:
            return str(int(self.pid[i]))
        if short:
            return f"×{int(self.n[i])}"
        return f"×{int(self.n[i])} {int(self.pid[i])}–{int(self.last[i])}"

    def text_len(self, short: bool = False) -> np.ndarray:
        """Characters of every label (for the fit test, without making the strings)."""
        digits = np.floor(np.log10(np.maximum(self.pid, 1))).astype(np.int64) + 1
        last = np.floor(np.log10(np.maximum(self.last, 1))).astype(np.int64) + 1
        cnt = np.floor(np.log10(np.maximum(self.n, 1))).astype(np.int64) + 1
        return np.where(self.n <= 1, digits, 1 + cnt if short else 3 + cnt + digits + last)


def _empty(one_d: bool) -> MapRegions:
    z = np.zeros(0, np.int64)
    return MapRegions(one_d, z, z, z, z, z, z, z)


def map_regions(boxes: EventBoxes, ev_prog: np.ndarray, ev_is_load: np.ndarray, lane_own: np.ndarray,
                lane_shared: np.ndarray, lane_ptr: np.ndarray, n_programs: int, one_d: bool) -> MapRegions:
    """Own tiles and shared read tiles of one map. ``lane_own``: the lane's element belongs to
    the lane's program alone; ``lane_shared``: it was read by several programs and written by
    none. An event counts when all its lanes are so."""
    live = boxes.n > 0
    if not live.any():
        return _empty(one_d)
    starts = lane_ptr[:-1][live]
    own = np.zeros(live.shape[0], bool)
    shared = np.zeros(live.shape[0], bool)
    own[live] = np.minimum.reduceat(lane_own.astype(np.uint8), starts) > 0
    shared[live] = (np.minimum.reduceat(lane_shared.astype(np.uint8), starts) > 0) & ev_is_load[live]
    parts = [_own_tiles(boxes, ev_prog, own, n_programs, one_d), _shared_tiles(boxes, ev_prog, shared, one_d)]
    return MapRegions(one_d, *(np.concatenate([getattr(p, f) for p in parts]) for f in
                               ("a0", "a1", "b0", "b1", "pid", "last", "n")))


def _own_tiles(boxes: EventBoxes, ev_prog: np.ndarray, own: np.ndarray, P: int, one_d: bool) -> MapRegions:
    js = np.flatnonzero(own)
    if not js.size:
        return _empty(one_d)
    big = np.iinfo(np.int64).max
    lo_a, hi_a = np.full(P, big, np.int64), np.full(P, -1, np.int64)
    lo_b, hi_b = np.full(P, big, np.int64), np.full(P, -1, np.int64)
    prog = ev_prog[js].astype(np.int64)
    np.minimum.at(lo_a, prog, boxes.a0[js])
    np.maximum.at(hi_a, prog, boxes.a1[js])
    np.minimum.at(lo_b, prog, boxes.b0[js])
    np.maximum.at(hi_b, prog, boxes.b1[js])
    pids = np.flatnonzero(hi_a >= 0)
    one = np.ones(pids.shape[0], np.int64)
    return MapRegions(one_d, lo_a[pids], hi_a[pids], lo_b[pids], hi_b[pids], pids, pids, one)


def _shared_tiles(boxes: EventBoxes, ev_prog: np.ndarray, shared: np.ndarray, one_d: bool) -> MapRegions:
    js = np.flatnonzero(shared)
    if not js.size:
        return _empty(one_d)
    keys = np.stack([boxes.a0[js], boxes.a1[js], boxes.b0[js], boxes.b1[js], boxes.n[js]], axis=1)
    uniq, inv = np.unique(keys, axis=0, return_inverse=True)
    inv = inv.reshape(-1)
    G = uniq.shape[0]
    prog = ev_prog[js].astype(np.int64)
    pairs = np.unique(inv * (int(prog.max()) + 1) + prog)  # distinct (tile, reader)
    n = np.bincount(pairs // (int(prog.max()) + 1), minlength=G)
    first, last = np.full(G, np.iinfo(np.int64).max, np.int64), np.full(G, -1, np.int64)
    np.minimum.at(first, inv, prog)
    np.maximum.at(last, inv, prog)
    return MapRegions(one_d, uniq[:, 0], uniq[:, 1], uniq[:, 2], uniq[:, 3], first, last, n)


def label_boxes(regions: MapRegions, fold: MapFold) -> tuple[np.ndarray, ...]:
    """Image rectangles (x0, y0, x1, y1) of the regions in ``fold`` and the region indices they
    belong to (regions cut in two by a fold or a wrap get no label)."""
    if not len(regions):
        z = np.zeros(0, np.int64)
        return z, z, z, z, z
    if regions.one_d:
        x0, y0, x1, y1, ok = fold.span_boxes(regions.a0, regions.a1)
    else:
        x0, y0, x1, y1, ok = fold.boxes(regions.a0, regions.a1, regions.b0, regions.b1)
    idx = np.flatnonzero(ok)
    return x0[idx], y0[idx], x1[idx], y1[idx], idx


def pick_labels(x0: np.ndarray, y0: np.ndarray, x1: np.ndarray, y1: np.ndarray, text_len: np.ndarray,
                view: tuple[float, float, float, float], px_per_x: float, px_per_y: float,
                char_px: float, line_px: float, limit: int = 300) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The labels that fit: indices of the boxes whose visible part, at ``px_per_x`` ×
    ``px_per_y`` screen pixels per image cell, holds a text of ``text_len`` characters of
    ``char_px`` pixels and one line of ``line_px``; and the centres (x, y) of those visible
    parts, where the labels go. ``view``: (x0, y0, x1, y1) of the image shown. At most
    ``limit`` labels (the largest boxes first)."""
    vx0, vy0, vx1, vy1 = view
    cx0, cy0 = np.maximum(x0, vx0), np.maximum(y0, vy0)
    cx1, cy1 = np.minimum(x1, vx1), np.minimum(y1, vy1)
    w_px, h_px = (cx1 - cx0) * px_per_x, (cy1 - cy0) * px_per_y
    fits = (w_px >= text_len * char_px + 6) & (h_px >= line_px + 2)
    idx = np.flatnonzero(fits)
    if idx.size > limit:
        idx = idx[np.argsort(-(w_px[idx] * h_px[idx]), kind="stable")[:limit]]
    return idx, (cx0[idx] + cx1[idx]) / 2.0, (cy0[idx] + cy1[idx]) / 2.0
