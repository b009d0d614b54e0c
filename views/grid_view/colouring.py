"""Program colours that neighbours never share — numpy only, no Qt.

Two programs are neighbours when their cells touch in the drawn program grid (diagonals too),
when they follow each other in dispatch order, or when the tiles they own touch in a drawn tile
map (matmul's C tiles in grouped order are neighbours whose pids differ by 1, by GROUP_SIZE_M,
and by anything at a group's edge). A greedy colouring in pid order gives each program its
preferred colour ``pid % n`` unless a neighbour coloured before it has that colour, and then
the next free one a fixed stride on — so the palette is the same from trace to trace, and a
repeat never lands next to itself.
"""

from __future__ import annotations

import numpy as np

__all__ = ["MAX_GREEDY", "assign_colours", "image_pairs"]

#: above this many programs the colours are ``pid % n`` (the loop would cost too long)
MAX_GREEDY = 65536
_STRIDE = 7  # the next colour tried: co-prime with the palette size, so every colour comes up


def _distinct(k: np.ndarray) -> np.ndarray:
    """The distinct values of ``k``, sorted (runs dropped first: a tile's edge repeats one pair
    cell after cell; a plain sort beats numpy's hashing unique here, measured)."""
    if k.size > 1:
        k = k[np.r_[True, k[1:] != k[:-1]]]
    k = np.sort(k)
    return k[np.r_[True, k[1:] != k[:-1]]] if k.size > 1 else k


def image_pairs(owners: np.ndarray, diagonal: bool = False) -> np.ndarray:
    """int64 [K, 2]: the distinct pairs of different owners (>= 0) of touching cells of the
    image ``owners`` (2-D, -1 or other negatives: no owner)."""
    a = np.asarray(owners, np.int64)
    if a.ndim != 2 or a.size == 0:
        return np.zeros((0, 2), np.int64)
    shifts = [(a[:, :-1], a[:, 1:]), (a[:-1, :], a[1:, :])]
    if diagonal:
        shifts += [(a[:-1, :-1], a[1:, 1:]), (a[:-1, 1:], a[1:, :-1])]
    keys = []
    base = int(a.max()) + 1
    for u, v in shifts:
        m = u != v  # rare: only along tile edges, so filter these few further
        uu, vv = u[m], v[m]
        ok = (uu >= 0) & (vv >= 0)
        if ok.any():
            lo, hi = np.minimum(uu[ok], vv[ok]), np.maximum(uu[ok], vv[ok])
            keys.append(_distinct(lo * base + hi))
    if not keys:
        return np.zeros((0, 2), np.int64)
    k = _distinct(np.concatenate(keys))
    return np.stack([k // base, k % base], axis=1)


def assign_colours(n_programs: int, pairs: np.ndarray, n_colours: int) -> np.ndarray:
    """int64 [n_programs]: a colour index per program, neighbours (``pairs``) always apart when
    a program has fewer than ``n_colours`` neighbours."""
    P = int(n_programs)
    pid = np.arange(P, dtype=np.int64)
    colour = pid % n_colours
    if P > MAX_GREEDY or P == 0:
        return colour
    pairs = np.asarray(pairs, np.int64).reshape(-1, 2)
    pairs = pairs[(pairs[:, 0] != pairs[:, 1]) & (pairs.min(axis=1) >= 0) & (pairs.max(axis=1) < P)]
    # each edge once, from the later program to the earlier (greedy in pid order looks back)
    later, earlier = pairs.max(axis=1), pairs.min(axis=1)
    order = np.argsort(later, kind="stable")
    later, earlier = later[order], earlier[order]
    ptr = np.searchsorted(later, np.arange(P + 1))
    has = np.flatnonzero(np.diff(ptr) > 0)
    ptr_l, earlier_l, colour_l = ptr.tolist(), earlier.tolist(), colour.tolist()
    for p in has.tolist():
        taken = {colour_l[q] for q in earlier_l[ptr_l[p]: ptr_l[p + 1]]}
        c = colour_l[p]
        tries = 0
        while c in taken and tries < n_colours:
            c = (c + _STRIDE) % n_colours
            tries += 1
        colour_l[p] = c
    return np.asarray(colour_l, np.int64)
