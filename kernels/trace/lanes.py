"""From recorded addresses to logical elements: the vectorized end of a trace.

The recorder keeps, per access, the raw addresses of its active lanes; ``finish`` maps them all
at once to (tensor, logical element) through each tensor's storage offset and strides, sorts out
the out-of-bounds lanes (outside every storage: switched off during the run; outside every view:
they ran) and builds the ``AccessTable``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..data.trace import OOB_OUTSIDE_STORAGE, OOB_OUTSIDE_VIEW, OP_NAMES, AccessTable, OOBRecord
from ..interp import TensorArg

__all__ = ["Finished", "finish", "merge"]


def _element_dtype(args: list[TensorArg]) -> type:
    return np.int64 if any(a.info.numel >= 2 ** 31 for a in args) else np.int32


def _map_lanes(addr: np.ndarray, args: list[TensorArg]) -> tuple[np.ndarray, np.ndarray]:
    """(tensor index int16, logical index) of every address; -1/-1 where it is on no logical
    element. When views alias, the first argument in signature order that holds the element
    wins. Logical indices are int32 unless a tensor has 2**31 elements or more."""
    n = addr.size
    tid = np.full(n, -1, dtype=np.int16)
    logical = np.full(n, -1, dtype=_element_dtype(args))
    todo: np.ndarray | None = None  # lanes not yet placed (None: all)
    for t, a in enumerate(args):
        if a.info.numel == 0:
            continue
        sub = addr if todo is None else addr[todo]
        inr = (sub >= np.uint64(a.lo)) & (sub < np.uint64(a.hi))
        del sub
        if not inr.any():
            continue
        if todo is None and inr.all():
            idx: np.ndarray | slice = slice(None)
            rest = np.zeros(0, np.int64)
        else:
            idx = np.flatnonzero(inr) if todo is None else todo[inr]
            rest = np.flatnonzero(~inr) if todo is None else todo[~inr]
        del inr
        eo = (addr[idx] - np.uint64(a.data_ptr)).view(np.int64) // a.info.element_size
        if a.contiguous:
            tid[idx] = t
            logical[idx] = eo
        else:
            li = a.inverse()[eo - a.min_off]
            ok = li >= 0
            if isinstance(idx, slice):
                idx = np.arange(n)
            tid[idx[ok]] = t
            logical[idx[ok]] = li[ok]
            if not ok.all():  # a gap of this view may be an element of another argument
                rest = np.sort(np.concatenate([rest, idx[~ok]]))
        del eo
        todo = rest
        if todo.size == 0:
            break
    return tid, logical


def _tensor_of_address(a: int, args: list[TensorArg]) -> int:
    for t, arg in enumerate(args):
        if arg.lo <= a < arg.hi:
            return t
    return -1


def _nearest(a: int, args: list[TensorArg]) -> int:
    """The argument whose storage is closest to address ``a`` (-1 when there are none)."""
    best, best_d = -1, None
    for t, arg in enumerate(args):
        lo, hi = arg.storage_ptr, arg.storage_ptr + arg.storage_nbytes
        d = lo - a if a < lo else (0 if a < hi else a - hi + 1)
        if best_d is None or d < best_d:
            best, best_d = t, d
    return best


@dataclass
class Finished:
    events: AccessTable
    oob: list[OOBRecord]


def merge(parts: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """One recording from the parts of several processes (in program order)."""
    if len(parts) == 1:
        return parts[0]
    out = {k: np.concatenate([p[k] for p in parts]) for k in parts[0] if k != "oob_ev"}
    offsets = np.cumsum([0] + [p["prog"].size for p in parts[:-1]])
    out["oob_ev"] = np.concatenate([p["oob_ev"] + off for p, off in zip(parts, offsets, strict=True)])
    return out


def finish(parts: list[dict[str, np.ndarray]], args: list[TensorArg]) -> Finished:
    rec = merge(parts)
    parts.clear()
    ev_prog, ev_op, ev_line, ev_masked = rec["prog"], rec["op"], rec["line"], rec["masked"]
    ev_iters, ev_hint = rec["iters"], rec["hint"]
    n_ev = ev_prog.size
    counts = rec["counts"]  # recorded (in-storage, unmasked) lanes per access
    ends = np.cumsum(counts)
    addr = rec.pop("addr")  # the addresses are the bulk of the memory; dropped once mapped
    tid, logical = _map_lanes(addr, args)

    # -- out-of-bounds lanes: outside every storage (switched off), outside every view (ran) ----
    n_oob = np.zeros(n_ev, dtype=np.int64)
    groups: dict[tuple, list] = {}

    def note(e: int, bad: np.ndarray, kind: str, tensor: int) -> None:
        key = (int(ev_prog[e]), int(ev_op[e]), int(ev_line[e]), kind, tensor)
        if key in groups:
            groups[key][0] += int(bad.size)
            return
        if tensor >= 0:
            a = args[tensor]
            ex = tuple((int(x) - a.data_ptr) // a.info.element_size for x in bad[:4].tolist())
        else:
            ex = ()
        groups[key] = [int(bad.size), ex]

    oob_starts = np.r_[0, np.cumsum(rec["oob_counts"])]
    for i, e in enumerate(rec["oob_ev"].tolist()):
        bad = rec["oob_addr"][oob_starts[i]:oob_starts[i + 1]]
        n_oob[e] += bad.size
        note(e, bad, OOB_OUTSIDE_STORAGE, _nearest(int(bad[0]), args))
    valid = tid >= 0
    n_valid = counts
    if not valid.all():
        bad_pos = np.flatnonzero(~valid)
        bad_ev = np.searchsorted(ends, bad_pos, side="right")  # the access each bad lane belongs to
        per_ev = np.bincount(bad_ev, minlength=n_ev)
        n_oob += per_ev
        n_valid = counts - per_ev
        starts = np.flatnonzero(np.r_[True, bad_ev[1:] != bad_ev[:-1]])
        for s_, t_ in zip(starts.tolist(), np.r_[starts[1:], bad_ev.size].tolist(), strict=True):
            chunk = addr[bad_pos[s_:t_]]
            note(int(bad_ev[s_]), chunk, OOB_OUTSIDE_VIEW, _nearest(int(chunk[0]), args))
        tid, logical = tid[valid], logical[valid]
    del addr, valid
    oob = [OOBRecord(program=k[0], op=OP_NAMES[k[1]], line=k[2], count=v[0],
                     nearest_tensor=args[k[4]].info.name if k[4] >= 0 else "", example_offsets=v[1], kind=k[3])
           for k, v in sorted(groups.items(), key=lambda kv: (kv[0][0], kv[0][2], kv[0][1]))]

    n_t = len(args)
    lane_start = np.zeros(n_ev, dtype=np.int64)
    if n_ev:
        lane_start[1:] = np.cumsum(n_valid)[:-1]
    # does any access span several tensors? (the tensor index changes inside an access)
    changes = np.flatnonzero(tid[1:] != tid[:-1]) + 1
    mixed = bool(changes.size) and not np.isin(changes, lane_start).all()
    if not mixed:  # the usual case: one row per access
        n_active = n_valid.astype(np.int64)
        ev_tensor = np.full(n_ev, -1, dtype=np.int16)
        has = n_active > 0
        ev_tensor[has] = tid[lane_start[has]]
        row_ev = np.arange(n_ev)
        elements = logical
        first_row = np.ones(n_ev, dtype=bool)
    else:  # some access spans several tensors: one row per (access, tensor), in that order
        lane_ev = np.repeat(np.arange(n_ev, dtype=np.int64), n_valid)
        key = lane_ev * (n_t + 1) + (tid.astype(np.int64) + 1)
        del lane_ev
        order = np.argsort(key, kind="stable")
        key = key[order]
        elements = logical[order]
        runs = np.flatnonzero(np.r_[True, key[1:] != key[:-1]]) if key.size else np.zeros(0, np.int64)
        uk, n_rows_lanes = key[runs], np.diff(np.r_[runs, key.size]).astype(np.int64)
        empty = np.setdiff1d(np.arange(n_ev), uk // (n_t + 1))
        all_keys = np.concatenate([uk, empty * (n_t + 1)])
        all_n = np.concatenate([n_rows_lanes, np.zeros(empty.size, np.int64)])
        o = np.argsort(all_keys, kind="stable")
        all_keys, n_active = all_keys[o], all_n[o]
        row_ev = all_keys // (n_t + 1)
        ev_tensor = (all_keys % (n_t + 1) - 1).astype(np.int16)
        lane_start = np.zeros(row_ev.size, dtype=np.int64)
        if row_ev.size:
            lane_start[1:] = np.cumsum(n_active)[:-1]
        first_row = np.r_[True, row_ev[1:] != row_ev[:-1]] if row_ev.size else np.zeros(0, bool)
    # a fully masked access still names its tensor, from the first lane's (unused) address
    for r in np.flatnonzero((ev_tensor < 0) & (n_active == 0)).tolist():
        ev_tensor[r] = _tensor_of_address(int(ev_hint[int(row_ev[r])]), args)
    events = AccessTable(
        program=ev_prog[row_ev], op=ev_op[row_ev], tensor=ev_tensor, line=ev_line[row_ev],
        iters=ev_iters[row_ev], n_active=n_active.astype(np.int32),
        n_masked=np.where(first_row, ev_masked[row_ev], 0).astype(np.int32),
        n_oob=np.where(first_row, n_oob[row_ev], 0).astype(np.int32),
        lane_start=lane_start, elements=elements)
    return Finished(events, oob)
