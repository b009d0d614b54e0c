"""Pointer tables: tensors a kernel reaches through addresses stored in another tensor.

Triton's grouped GEMM (tutorial 08) and every grouped or MoE kernel pass ``torch.tensor([A.data_ptr(),
...])`` — an int64 tensor of addresses — and the kernel loads one and casts it
(``tl.load(group_a_ptrs + g).to(tl.pointer_type(tl.float16))``). The tensors behind those
addresses are no arguments of the launch, yet the kernel reads and writes them.

``find(bound)`` looks at each int64 tensor argument: when every non-zero value in it lies inside
the storage of a tensor alive in the process (on the table's device), it is a pointer table, and
each such tensor is *reached* through it, named ``*table[i]`` (the tensor ``table[i]`` points at).
From then on a reached tensor is treated as an argument: its contents are kept before and after the
launch (the golden outputs of those the kernel wrote), the interpreter's spans include it (no false
out-of-bounds; ``kernels.interp.args`` reads ``REACHED_ATTR`` on the table), and every re-run gets
fresh copies with a table rebuilt to point at them (``rebuild``), so the script's own tensors are
never written again and a run checks what it wrote.
"""

from __future__ import annotations

import gc
from bisect import bisect_right
from dataclasses import dataclass
from typing import Any

import torch

from ..interp.args import REACHED_ATTR  # collect_args walks it: the reached tensors get spans and names

__all__ = ["Reached", "find", "rebuild", "REACHED_ATTR", "MAX_TABLE"]


#: tables longer than this are not looked into (a pointer table has one entry per group)
MAX_TABLE = 4096

_ADDRESS_DTYPES = (torch.int64, torch.uint64) if hasattr(torch, "uint64") else (torch.int64,)


@dataclass
class Reached:
    """One entry of a pointer table: ``table[index]`` holds ``tensor.data_ptr() + offset``."""

    table: str  # the kernel parameter holding the addresses
    index: int  # flat index into it
    name: str  # "*table[index]"
    tensor: torch.Tensor  # the live tensor it points into (as found)
    offset: int  # bytes from tensor.data_ptr() to the address


def _live_tensors(device: torch.device) -> list[torch.Tensor]:
    out = []
    for o in gc.get_objects():
        if issubclass(type(o), torch.Tensor) and not o.is_meta:  # type(): no proxy object asked
            try:
                if o.device == device and o.untyped_storage().nbytes() > 0:
                    out.append(o)
            except (RuntimeError, NotImplementedError):  # a tensor without storage (sparse, functional)
                continue
    return out


def _index(tensors: list[torch.Tensor]) -> tuple[list[int], list[tuple[int, int, torch.Tensor]]]:
    """Storages sorted by start; of the tensors on one storage, the one covering it from its start
    (a base rather than a view) is kept, and ties go to the larger view."""
    best: dict[int, tuple[int, int, torch.Tensor]] = {}
    for t in tensors:
        st = t.untyped_storage()
        lo, hi = int(st.data_ptr()), int(st.data_ptr()) + int(st.nbytes())
        score = (t.storage_offset() == 0, t.numel())
        if lo not in best or score > (best[lo][2].storage_offset() == 0, best[lo][2].numel()):
            best[lo] = (lo, hi, t)
    spans = sorted(best.values(), key=lambda s: s[0])
    return [s[0] for s in spans], spans


def _exact(t: torch.Tensor, address: int, tensors: list[torch.Tensor]) -> torch.Tensor:
    """Of the tensors on ``t``'s storage, one starting at ``address`` (``A.data_ptr()`` itself)."""
    if t.data_ptr() == address:
        return t
    st = t.untyped_storage().data_ptr()
    same = [u for u in tensors if u.untyped_storage().data_ptr() == st and u.data_ptr() == address]
    return max(same, key=lambda u: u.numel()) if same else t


def find(bound: dict[str, Any], constexprs: set[str] = frozenset()) -> list[Reached]:
    """The tensors reached through the pointer tables among ``bound``'s arguments (none when no
    int64 argument holds only addresses of live tensors). Sets ``REACHED_ATTR`` on each table."""
    tables = {k: v for k, v in bound.items() if k not in constexprs and isinstance(v, torch.Tensor)
              and v.dtype in _ADDRESS_DTYPES and 0 < v.numel() <= MAX_TABLE}
    if not tables:
        return []
    out: list[Reached] = []
    index_by_device: dict[Any, tuple[list[int], list, list[torch.Tensor]]] = {}
    for name, table in tables.items():
        values = [int(x) for x in table.detach().reshape(-1).cpu().tolist()]
        if not any(values) or any(0 < v < (1 << 16) for v in values):  # small ints: sizes, not addresses
            continue
        if table.device not in index_by_device:
            live = _live_tensors(table.device)
            index_by_device[table.device] = (*_index(live), live)
        starts, spans, live = index_by_device[table.device]
        found: list[Reached] = []
        for i, v in enumerate(values):
            if v == 0:
                continue
            j = bisect_right(starts, v) - 1
            if j < 0 or v >= spans[j][1]:
                found = []
                break
            t = _exact(spans[j][2], v, live)
            found.append(Reached(name, i, f"*{name}[{i}]", t, v - t.data_ptr()))
        if found:
            setattr(table, REACHED_ATTR, [(r.name, r.tensor) for r in found])
            out.extend(found)
    return out


def rebuild(bound: dict[str, Any], reached: list[Reached], copies: dict[str, torch.Tensor]) -> dict[str, Any]:
    """``bound`` with each pointer table replaced by one pointing at ``copies`` (reached name ->
    the tensor standing in for it in this run, on the run's device): the same offsets, the table's
    other entries (nulls) unchanged."""
    out = dict(bound)
    for name in {r.table for r in reached}:
        table = bound[name]
        mine = [r for r in reached if r.table == name]
        device = copies[mine[0].name].device
        values = table.detach().to("cpu", copy=True).reshape(-1)
        for r in mine:
            values[r.index] = copies[r.name].data_ptr() + r.offset
        new = values.reshape(table.shape).to(device)
        setattr(new, REACHED_ATTR, [(r.name, copies[r.name]) for r in mine])
        out[name] = new
    return out
