"""Observers the engine puts on every interpreted run: the out-of-bounds guard and the progress
reporter.

Unguarded, the interpreter dereferences whatever address a kernel computes and the process dies
of SIGSEGV. The guard checks each access against the tensor arguments' storages first and raises
``OutOfBoundsAccess`` (program, op, source line, lane count) *before* memory is touched.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..data.errors import OutOfBoundsAccess
from ..data.trace import OP_NAMES
from .observer import LaunchInfo, Observer

__all__ = ["AccessGuard", "ProgramProgress"]


class AccessGuard(Observer):
    watches_accesses = True

    def on_access(self, launch: LaunchInfo, op: int, ptrs: np.ndarray, mask: np.ndarray | None) -> None:
        spans = launch.spans
        if ptrs.size == 0 or spans.inside_one(int(ptrs.min()), int(ptrs.max())):
            return None
        act = ptrs.reshape(-1) if mask is None else ptrs[np.broadcast_to(mask, ptrs.shape)]
        bad = spans.outside(act)
        if bad is None:
            return None
        raise self._violation(launch, op, act, bad)

    @staticmethod
    def _violation(launch: LaunchInfo, op: int, act: np.ndarray, bad: np.ndarray) -> OutOfBoundsAccess:
        word = OP_NAMES[op] if 0 <= op < len(OP_NAMES) else "access"
        n_bad, n_act = int(bad.sum()), int(act.size)
        line, text, file = launch.source_line()
        pid = launch.pid
        xyz = launch.xyz() if pid >= 0 else ()
        where = f" at line {line}" + (f" `{text}`" if text else "") if line > 0 else ""
        msg = (f"out-of-bounds {word} in {launch.name}: program {pid} {xyz}{where}: {n_bad} of {n_act} "
               f"active lanes address memory outside every tensor argument "
               f"({launch.spans.nearest(int(act[bad][0]))}); stopped before the {word} touched memory "
               "(on a GPU the kernel would fault here). Trace this run to see every lane.")
        detail = (f"kernel {launch.name}, grid {launch.grid3}, program {pid} {xyz}\nsource: {file}:{line}\n"
                  if line > 0 else f"kernel {launch.name}, program {pid}\n")
        detail += "tensor arguments (storage byte ranges):\n" + launch.spans.describe()
        detail += "\nfirst out-of-bounds addresses: " + ", ".join(f"0x{int(a):x}" for a in act[bad][:8].tolist())
        return OutOfBoundsAccess(msg, detail=detail)


class ProgramProgress(Observer):
    """Calls ``report(pid, n_programs)`` about 50 times over a launch (a long interpreted launch
    says how far it got)."""

    def __init__(self, report: Callable[[int, int], None]) -> None:
        self.report = report
        self.step = 1

    def on_launch(self, launch: LaunchInfo) -> None:
        self.step = max(1, launch.n_programs // 50)

    def on_program(self, launch: LaunchInfo, pid: int) -> None:
        if pid % self.step == 0:
            self.report(pid, launch.n_programs)
