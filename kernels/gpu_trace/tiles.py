"""Tile records folded into the shadow maps, after the launch, with torch on the launch's device.

``device.record`` writes one record for an access whose active lanes are a corner rectangle of its
block, all on a view, at shadow indices ``base + i * s0 + j * s1`` (``i < r0``, ``j < r1``; no
element twice but along a broadcast axis) instead of updating the maps lane by lane. ``fold`` turns the records into exactly
what the per-lane path would have left in the maps (``device.MAP_NAMES``: count, last program,
changes of the last program), for reads (loads) and writes (stores) apart:

1. identical tiles (same base, strides and shape; a broadcast axis, stride 0, taken as one
   element read D times) are grouped, by stable sorts: per group the reads each element gets, the lowest and the highest program and
   the number of distinct programs;
2. each group's elements are enumerated (at most ``CHUNK`` at a time) and the groups' figures
   gathered per element into temporaries over the span the tiles cover — count, lowest and
   highest program, distinct programs summed over the groups covering the element;
3. merged with what the per-lane path left there: count added; "changes" = readers - 1, where
   readers are the per-lane ones (1 + changes) plus the tiles' (1 when every tile access of the
   element was by one program, else the groups' distinct programs summed); the element's one
   program is the per-lane one, or the tiles' when no lane reached it on the per-lane path. An
   element read through one tile shape by one program and lane by lane by the same program still
   counts one reader.

Readers summed over groups are exact when different tile shapes covering an element are read by
different programs — true of every catalog kernel (the GPU tests compare with the interpreter);
otherwise an upper bound, as the per-lane path's count of changes already is on a GPU.
"""

from __future__ import annotations

import torch

from . import device as dev

__all__ = ["CHUNK", "capacity", "claimed_rows", "fold", "per_program"]

#: elements enumerated per scatter (bounds the temporaries of step 2)
CHUNK = 1 << 25
_I32_MAX = 2**31 - 1
_MAPS = {True: (0, 1, 2), False: (3, 4, 5)}  # reads / writes: (count, last, changes) in MAP_NAMES


def capacity(S: int) -> int:
    """Tile records the buffer holds for ``S`` shadow elements (a record is 48 bytes; past the
    capacity accesses take the per-lane path, still exact)."""
    return int(min(max(S // 4, 1 << 16), 1 << 24))


def per_program(S: int, n_programs: int) -> int:
    """Tile records each of ``n_programs`` programs may write (``capacity`` shared out, rounded up)."""
    cap = capacity(S)
    return -(-cap // max(1, int(n_programs))) if cap > 0 else 0


def claimed_rows(tiles: torch.Tensor, n_programs: int, claimed: torch.Tensor) -> torch.Tensor:
    """int64 ``[records, TILE_ROW]``: the records the programs wrote (``claimed``: each program's
    count, ``stats[:, 4]``), grouped by program in launch order, each program's in its order."""
    per = int(tiles[1])
    if per == 0 or n_programs == 0:
        return torch.zeros((0, dev.TILE_ROW), dtype=torch.int64, device=tiles.device)
    region = tiles[dev.TILE_HEADER:dev.TILE_HEADER + n_programs * per * dev.TILE_ROW].view(n_programs, per, dev.TILE_ROW)
    return region[torch.arange(per, device=tiles.device)[None, :] < claimed[:, None]]


def fold(tiles: torch.Tensor, maps: torch.Tensor, n_programs: int, claimed: torch.Tensor,
         rows: torch.Tensor | None = None) -> int:
    """Fold the records of ``tiles`` (``device.TILE_*`` layout; ``claimed``: each program's
    count, ``stats[:, 4]``; ``rows``: ``claimed_rows`` of them, if taken already) into ``maps``;
    the records folded."""
    if int(tiles[1]) == 0 or maps.dim() != 2 or n_programs == 0:
        return 0
    rows = claimed_rows(tiles, n_programs, claimed) if rows is None else rows
    n = rows.shape[0]
    if n == 0:
        return 0
    word = rows[:, 3]
    pid = word & 0xFFFFFFFF
    is_read = ((word >> 32) & 0xFF) == 0
    # a broadcast axis (stride 0) reads the other axis' elements r times: one element along it, read r times
    b0, b1 = rows[:, 1] == 0, rows[:, 2] == 0
    reads = torch.where(b0, rows[:, 4], 1) * torch.where(b1, rows[:, 5], 1)
    shape = torch.stack([torch.where(b0, 1, rows[:, 4]), torch.where(b1, 1, rows[:, 5])], 1)
    for read in (True, False):
        sel = is_read if read else ~is_read
        if bool(sel.any()):
            _fold_op(rows[sel, :3], shape[sel], reads[sel], pid[sel], maps, _MAPS[read], max(1, int(n_programs)))
    return n


def _groups(keys: list[torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
    """(group of each row, first row of each group in sorted order) of rows equal on all ``keys``."""
    order = torch.arange(keys[0].numel(), device=keys[0].device)
    for k in reversed(keys):  # least significant first: stable sorts make a lexicographic order
        order = order[torch.sort(k[order], stable=True).indices]
    new = torch.zeros(order.numel(), dtype=torch.bool, device=order.device)
    new[0] = True
    for k in keys:
        s = k[order]
        new[1:] |= s[1:] != s[:-1]
    group_sorted = torch.cumsum(new.to(torch.int64), 0) - 1
    group = torch.empty_like(group_sorted)
    group[order] = group_sorted
    return group, order[new]


def _fold_op(abc: torch.Tensor, shape: torch.Tensor, reads: torch.Tensor, pid: torch.Tensor, maps: torch.Tensor,
             slots: tuple[int, int, int], n_programs: int) -> None:
    g = _Groups(abc, shape, reads, pid)
    lo, hi = g.span()
    dev_ = maps.device
    t = {"cnt": torch.zeros(hi - lo, dtype=torch.int32, device=dev_),
         "min": torch.full((hi - lo,), _I32_MAX, dtype=torch.int32, device=dev_),
         "max": torch.full((hi - lo,), -1, dtype=torch.int32, device=dev_),
         "dist": torch.zeros(hi - lo, dtype=torch.int32, device=dev_),
         "groups": torch.zeros(hi - lo, dtype=torch.int32, device=dev_)}
    one = torch.ones_like(g.count)
    for gi, idx, lanes in g.elements(lo):
        for key, fig, how in (("cnt", g.count, "sum"), ("min", g.pmin, "amin"), ("max", g.pmax, "amax"),
                              ("dist", g.distinct, "sum"), ("groups", one, "sum")):
            t[key].scatter_reduce_(0, idx, fig[gi, None].expand(-1, lanes).reshape(-1).to(torch.int32), how)
    exact = _exact_readers(g, maps[slots[0]], maps[slots[1]], maps[slots[2]], lo, t, n_programs)
    _merge(maps, slots, lo, t, exact)


class _Groups:
    """The tile records of one op grouped (step 1 of the module doc)."""

    def __init__(self, abc: torch.Tensor, shape: torch.Tensor, reads: torch.Tensor, pid: torch.Tensor) -> None:
        base, s0, s1 = abc[:, 0], abc[:, 1], abc[:, 2]
        group, first = _groups([shape[:, 0], shape[:, 1], base, s0, s1])
        G = first.numel()
        self.count = torch.zeros(G, dtype=torch.int64, device=pid.device).scatter_add_(0, group, reads)
        self.pmin = torch.full((G,), _I32_MAX, dtype=torch.int64, device=pid.device).scatter_reduce_(
            0, group, pid, "amin")
        self.pmax = torch.full((G,), -1, dtype=torch.int64, device=pid.device).scatter_reduce_(0, group, pid, "amax")
        pair, pair_first = _groups([group, pid])  # pairs sorted by group, then program
        self.pair_group, self.pair_pid = group[pair_first], pid[pair_first]
        self.distinct = torch.bincount(self.pair_group, minlength=G)
        self.pair_start = torch.cumsum(self.distinct, 0) - self.distinct
        self.base, self.s0, self.s1, self.shape = base[first], s0[first], s1[first], shape[first]

    def span(self) -> tuple[int, int]:
        """[lo, hi) of the shadow indices the groups cover."""
        e0, e1 = self.s0 * (self.shape[:, 0] - 1), self.s1 * (self.shape[:, 1] - 1)
        lo = int((self.base + torch.clamp(e0, max=0) + torch.clamp(e1, max=0)).min())
        hi = int((self.base + torch.clamp(e0, min=0) + torch.clamp(e1, min=0)).max()) + 1
        return lo, hi

    def elements(self, lo: int):
        """(groups, their elements' indices from ``lo`` (group-major), lanes per group), at most
        ``CHUNK`` elements at a time."""
        shapes, of = torch.unique(self.shape, dim=0, return_inverse=True)
        for k, (n0, n1) in enumerate(shapes.tolist()):
            gi = torch.nonzero(of == k).flatten()
            lane = torch.arange(n0 * n1, device=gi.device)
            li, lj = lane // n1, lane % n1
            per = max(1, CHUNK // (n0 * n1))
            for c in range(0, gi.numel(), per):
                g = gi[c:c + per]
                idx = self.base[g, None] - lo + li[None, :] * self.s0[g, None] + lj[None, :] * self.s1[g, None]
                yield g, idx.reshape(-1), n0 * n1


def _exact_readers(g: _Groups, cnt: torch.Tensor, last: torch.Tensor, ch: torch.Tensor, lo: int,
                   t: dict[str, torch.Tensor], n_programs: int) -> tuple[torch.Tensor, torch.Tensor] | None:
    """For the elements where summing the groups' distinct programs may count a program twice —
    several programs in tiles, and several groups or one program lane by lane too — the exact
    number of distinct tile programs and whether the lane-by-lane program is one of them, from
    the (element, program) pairs of those elements alone: (element indices from ``lo``, tile
    readers, lane program among them), or None when there are no such elements."""
    span = t["cnt"].numel()
    lane_one = (cnt[lo:lo + span] > 0) & (ch[lo:lo + span] == 0)
    amb = (t["cnt"] > 0) & (t["min"] != t["max"]) & ((t["groups"] > 1) | lane_one)
    if not bool(amb.any()):
        return None
    dense = torch.cumsum(amb.to(torch.int64), 0) - 1  # element -> its place among the ambiguous ones
    keys = []
    for gi, idx, lanes in g.elements(lo):
        hit = amb[idx]
        if not bool(hit.any()):
            continue
        grp = gi[:, None].expand(-1, lanes).reshape(-1)[hit]
        el = dense[idx[hit]]
        n = g.distinct[grp]
        el = torch.repeat_interleave(el, n)
        first = torch.repeat_interleave(g.pair_start[grp], n)
        rank = torch.arange(el.numel(), device=el.device) - torch.repeat_interleave(torch.cumsum(n, 0) - n, n)
        keys.append(torch.unique(el * n_programs + g.pair_pid[first + rank]))
    pairs = torch.unique(torch.cat(keys))
    where = torch.nonzero(amb).flatten()
    readers = torch.bincount(pairs // n_programs, minlength=where.numel()).to(torch.int32)
    p0 = last[lo + where].to(torch.int64)
    member = lane_one[where] & torch.isin(torch.arange(where.numel(), device=p0.device) * n_programs + p0, pairs)
    return where, readers, member


def _merge(maps: torch.Tensor, slots: tuple[int, int, int], lo: int, t: dict[str, torch.Tensor],
           exact: tuple[torch.Tensor, torch.Tensor, torch.Tensor] | None) -> None:
    """Step 3 of the module doc, over the span from ``lo``, ``CHUNK`` elements at a time; then
    the elements ``_exact_readers`` counted exactly."""
    c_slot, last_slot, ch_slot = slots
    if exact is not None:
        where = exact[0] + lo
        lane_readers = (maps[c_slot, where] > 0).to(torch.int32) + maps[ch_slot, where]
    span = t["cnt"].numel()
    for a in range(lo, lo + span, CHUNK):
        b = min(lo + span, a + CHUNK)
        tc, tmin, tmax, tdist = (t[k][a - lo:b - lo] for k in ("cnt", "min", "max", "dist"))
        cnt, last, ch = maps[c_slot, a:b], maps[last_slot, a:b], maps[ch_slot, a:b]
        had = cnt > 0
        single = tmin == tmax
        same = had & (ch == 0) & single & (tmin == last)  # the lane-by-lane program is the tiles' one
        tile_readers = torch.where(single, torch.ones_like(tdist), tdist) - same.to(torch.int32)
        readers = had.to(torch.int32) + ch + torch.where(tc > 0, tile_readers, 0)
        ch.copy_(torch.clamp(readers - 1, min=0))
        last.copy_(torch.where(had, last, tmax))
        cnt.add_(tc)
    if exact is not None:
        readers = lane_readers + exact[1] - exact[2].to(torch.int32)
        maps[ch_slot, where] = torch.clamp(readers - 1, min=0)
