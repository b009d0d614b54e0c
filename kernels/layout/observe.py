"""The interpreter side: every global access of the launch, with its block of byte addresses and
its mask, handed to the coalescing counter of the compiled access it is (matched by operation
and source line; several accesses on one line in the order the program makes them).

An observer of the interpreter layer (``kernels.interp``), beside the out-of-bounds guard.
"""

from __future__ import annotations

import sys
from collections import defaultdict
from typing import Any

import numpy as np

from ..data.errors import Cancelled
from ..data.results import Progress
from ..data.trace import OP_ATOMIC, OP_LOAD, OP_STORE, Window
from ..interp import LaunchInfo, Observer, Programs
from .coalescing import CoalescingCounter

__all__ = ["AddressObserver"]

#: the interpreter's operation -> the compiled accesses it may be
_IR_OPS = {OP_LOAD: ("load", "async_copy"), OP_STORE: ("store",), OP_ATOMIC: ("atomic",)}


class AddressObserver(Observer):
    """Feeds ``counters[i]`` (one per compiled global access ``accesses[i]``, each with ``op``,
    ``line``, ``column``, ``shape``) from the launch's accesses, for the programs of ``window``
    (None: all). ``tensor_names[i]`` gets the argument access ``i`` addresses; ``unmatched``
    counts interpreter accesses with no compiled access (a note for the user). ``progress``
    gets a ``Progress`` about 50 times over the launch; ``cancel()`` is polled before each
    program (true: ``Cancelled``)."""

    watches_accesses = True
    requires_hooks = True

    def __init__(self, accesses: list[Any], counters: dict[int, CoalescingCounter], window: Window | None,
                 progress: Any = None, cancel: Any = None) -> None:
        self.counters = counters
        self.window = window
        self.progress = progress
        self.cancel = cancel
        self.total = 0
        self.by_place: dict[tuple[int, int], list[int]] = defaultdict(list)
        for i, a in enumerate(accesses):
            if i not in counters:
                continue
            for op, names in _IR_OPS.items():
                if a.op in names:
                    self.by_place[(op, a.line)].append(i)
        for cands in self.by_place.values():
            cands.sort(key=lambda i: accesses[i].column)
        self.shapes = {i: tuple(accesses[i].shape) for i in counters}
        self.tensor_names: dict[int, str] = {}
        self.bases: dict[int, int] = {}  # access -> where its tensor's storage starts
        self.executions: dict[int, int] = defaultdict(int)
        self.unmatched = 0
        self.shape_mismatch = 0
        self.seen: dict[tuple[int, int], int] = {}
        self.programs_seen: set[tuple[int, int]] = set()
        self.code: Any = None
        self.pid = -1
        self.n_programs = 0
        self.grid: tuple[int, int, int] = (1, 1, 1)

    def on_launch(self, launch: LaunchInfo) -> None:
        self.code = launch.code
        self.grid = tuple(launch.grid3)
        self.tensors = launch.tensors
        self.total = len(self.window.pids(launch.grid3)) if self.window is not None else launch.n_programs

    def on_program(self, launch: LaunchInfo, pid: int) -> None:
        if self.cancel is not None and self.cancel():
            raise Cancelled(f"layout cancelled after {self.n_programs} of {self.total} programs")
        if self.progress is not None and self.n_programs % max(1, self.total // 50) == 0:
            self.progress(Progress("tracing addresses", self.n_programs / max(1, self.total), self.n_programs,
                                   self.total, "programs"))
        self.pid = pid
        self.seen = {}
        self.n_programs += 1

    def run(self, launch: LaunchInfo, programs: Programs) -> bool:
        if self.window is None:
            return False
        programs(self.window.pids(launch.grid3).astype(np.int64), lambda pid: self.on_program(launch, pid))
        return True

    def _line(self) -> int:
        f = sys._getframe(1)
        while f is not None and f.f_code is not self.code:
            f = f.f_back
        return f.f_lineno if f is not None else -1

    def on_access(self, launch: LaunchInfo, op: int, ptrs: np.ndarray, mask: np.ndarray | None) -> None:
        line = self._line()
        cands = self.by_place.get((op, line))
        if not cands:
            self.unmatched += 1
            return None
        k = self.seen.get((op, line), 0)
        self.seen[(op, line)] = k + 1
        i = cands[k % len(cands)]
        if tuple(np.shape(ptrs)) != self.shapes[i]:
            if np.size(ptrs) != int(np.prod(self.shapes[i])):
                self.shape_mismatch += 1
                return None
            if mask is not None:
                mask = np.reshape(np.broadcast_to(mask, np.shape(ptrs)), self.shapes[i])
            ptrs = np.reshape(ptrs, self.shapes[i])  # a scalar access: (1,) here, () in the IR
        self.executions[i] += 1
        first = (i, self.pid) not in self.programs_seen
        if first:
            self.programs_seen.add((i, self.pid))
            if i not in self.tensor_names:
                self.tensor_names[i], self.bases[i] = self._tensor_of(ptrs, mask)
        self.counters[i].add(ptrs, mask, self.pid, first, self.bases.get(i, 0))
        return None

    def _tensor_of(self, ptrs: np.ndarray, mask: np.ndarray | None) -> tuple[str, int]:
        """(the argument the first active lane addresses, where its storage starts); ("", 0) if none."""
        flat = np.asarray(ptrs).reshape(-1)
        if mask is not None:
            m = np.broadcast_to(mask, np.shape(ptrs)).reshape(-1)
            flat = flat[m]
        if not flat.size:
            return "", 0
        a = int(flat[0])
        for t in self.tensors:
            if t.storage_ptr <= a < t.storage_ptr + t.storage_nbytes:
                return t.info.name, int(t.storage_ptr)
        return "", 0
