"""The tensor arguments' storages as address ranges: is an access inside memory the launch owns?

Shared by every observer that needs it (the out-of-bounds guard stops a launch at the first lane
outside; the recorder keeps those lanes and switches them off). The common case — every lane of
an access inside one storage — costs two reductions and a bisect; otherwise the lanes are placed
one by one with a vectorized ``searchsorted``.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence

import numpy as np

from .args import TensorArg

__all__ = ["StorageSpans"]


class StorageSpans:
    def __init__(self, args: Sequence[TensorArg]) -> None:
        #: (first byte, one past the last, name, element size) of each argument's storage
        self.spans = sorted((a.storage_ptr, a.storage_ptr + a.storage_nbytes, a.info.name, a.info.element_size)
                            for a in args if a.storage_nbytes)
        merged: list[list[int]] = []  # overlapping storages (views of one tensor) merged
        for lo, hi, _, _ in self.spans:
            if merged and lo <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], hi)
            else:
                merged.append([lo, hi])
        self.starts_l = [m[0] for m in merged]
        self.ends_l = [m[1] for m in merged]
        self.starts = np.array(self.starts_l, dtype=np.uint64)
        self.ends = np.array(self.ends_l, dtype=np.uint64)

    def inside_one(self, lo: int, hi: int) -> bool:
        """Do the addresses lo..hi (inclusive) all fall in one storage?"""
        i = bisect_right(self.starts_l, lo) - 1
        return i >= 0 and hi < self.ends_l[i]

    def outside(self, act: np.ndarray) -> np.ndarray | None:
        """Bool mask of the addresses ``act`` (uint64, 1-D) that fall in no storage; None when
        every one is inside (the common case, checked first without per-lane work)."""
        if act.size == 0 or self.inside_one(int(act.min()), int(act.max())):
            return None
        idx = np.searchsorted(self.starts, act, side="right") - 1
        inside = (idx >= 0) & (act < self.ends[np.maximum(idx, 0)])
        return None if bool(inside.all()) else ~inside

    def nearest(self, a: int) -> str:
        """Where address ``a`` lies relative to the closest storage, in elements."""
        best = None
        for lo, hi, name, es in self.spans:
            if a >= hi:
                d, text = a - hi, f"the first is {(a - hi) // max(1, es) + 1} elements past the end of {name}"
            elif a < lo:
                d, text = lo - a, f"the first is {-(-(lo - a) // max(1, es))} elements before the start of {name}"
            else:
                continue
            if best is None or d < best[0]:
                best = (d, text)
        return best[1] if best is not None else "the kernel has no tensor arguments"

    def describe(self) -> str:
        return "\n".join(f"  {name}: 0x{lo:x}..0x{hi:x} ({(hi - lo) // max(1, es)} elements of {es} B)"
                         for lo, hi, name, es in self.spans)
