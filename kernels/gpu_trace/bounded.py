"""The interpreter side of "interpreter vs GPU", bounded (issue #12).

The GPU runs a launch of a million programs in milliseconds; Triton's interpreter runs about a
thousand programs a second on the CI machine (``docs/benchmarks/trace.md``: the plain
interpreter takes 1.00 s for vector add's 1024 programs and 14.1 s for 16384; a 512³ matmul's
256 programs of 16 K-steps take 5.5 s, ~46 programs a second). So the comparison runs the
interpreter on a window of programs only:

- the programs of ``window`` (the request's, e.g. "0:4096"), else all of them, in order;
- at most ``max_programs`` of those (default ``COMPARE_MAX_PROGRAMS``: ``COMPARE_BUDGET_S`` at
  the vector-add speed above);
- and it stops starting programs once ``budget_s`` has passed (a kernel slower per program
  than vector add, matmul for one, would take far longer than the estimate): the programs that
  ran are the window compared.

``written_by(...)`` then says which output elements those programs wrote — the only ones the
comparison may look at: the GPU ran every program, the interpreter only the window. Cancel is
polled before every program.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..data.backends import INTERPRETER
from ..data.errors import Cancelled
from ..data.results import Progress
from ..data.trace import SEVERAL, Window
from ..interp import AccessGuard, Interpreter, LaunchInfo, Observer, Programs

__all__ = ["COMPARE_BUDGET_S", "COMPARE_MAX_PROGRAMS", "INTERPRETER_PROGRAMS_PER_S", "InterpreterWindow",
           "run_window", "written_by"]

#: the interpreter's wall time a comparison may take
COMPARE_BUDGET_S = 20.0
#: the plain interpreter's measured speed on a vector-add-like program (docs/benchmarks/trace.md,
#: 2 CPU cores): the basis of the estimate
INTERPRETER_PROGRAMS_PER_S = 1000.0
#: the most programs a comparison runs under the interpreter (the estimate: the budget at that speed)
COMPARE_MAX_PROGRAMS = int(COMPARE_BUDGET_S * INTERPRETER_PROGRAMS_PER_S)


class _OutOfTime(Cancelled):
    """The budget ran out between two programs (not an error: the window is what ran)."""


@dataclass
class InterpreterWindow:
    """What ran under the interpreter: ``tensors`` after the run; ``pids`` the programs of the
    (first) launch that ran, in order; ``n_programs`` that launch's program count; ``why``:
    why only a window ran ("" when every program did)."""

    tensors: dict[str, Any]
    pids: np.ndarray
    n_programs: int
    why: str = ""
    poisoned: set[str] = field(default_factory=set)  # float outputs prepare filled with NaN

    @property
    def windowed(self) -> bool:
        return self.pids.size < self.n_programs

    def text(self) -> str:
        """The programs compared, as the banner names them: "0–4095", or "12–17, 40" and so on."""
        p = np.sort(self.pids)
        if not p.size:
            return ""
        breaks = np.nonzero(np.diff(p) != 1)[0]
        starts, ends = np.r_[p[0], p[breaks + 1]], np.r_[p[breaks], p[-1]]
        parts = [f"{a}–{b}" if b > a else f"{a}" for a, b in zip(starts.tolist(), ends.tolist(), strict=True)]
        return ", ".join(parts[:4]) + (", …" if len(parts) > 4 else "")


class _WindowRunner(Observer):
    """Runs the chosen programs of each launch in order, polling cancel and the deadline before
    each one; notes which programs of the first launch ran."""

    def __init__(self, window: Window | None, max_programs: int, deadline: float, cancel: Callable[[], bool] | None,
                 report: Callable[[int, int], None]) -> None:
        self.window, self.max_programs, self.deadline = window, max(1, int(max_programs)), deadline
        self.cancel, self.report = cancel, report
        self.first: tuple[np.ndarray, int] | None = None  # (pids chosen, n_programs) of launch 0
        self.done = 0  # programs of launch 0 that finished
        self.stopped = ""

    def run(self, launch: LaunchInfo, programs: Programs) -> bool:
        pids = (self.window or Window()).pids(launch.grid3)[: self.max_programs].astype(np.int64)
        first = self.first is None
        if first:
            self.first = (pids, launch.n_programs)
        count = [0]

        def before(pid: int) -> None:
            if first:
                self.done = count[0]  # the programs before this one have finished
            if self.cancel is not None and self.cancel():
                raise Cancelled(f"cancelled after {count[0]} of {pids.size} programs under the interpreter")
            if count[0] and time.perf_counter() > self.deadline:
                raise _OutOfTime(f"the interpreter's {count[0]} programs took the whole budget")
            launch.pid = pid
            count[0] += 1
            if (count[0] & 15) == 1:
                self.report(count[0], int(pids.size))

        programs(pids, before)
        if first:
            self.done = count[0]
        return True


def run_window(spec: Any, values: Mapping[str, Any], seed: int = 0, *, window: Window | str | None = None,
               max_programs: int = COMPARE_MAX_PROGRAMS, budget_s: float = COMPARE_BUDGET_S,
               cancel: Callable[[], bool] | None = None,
               progress: Callable[[Progress], None] | None = None) -> InterpreterWindow:
    """Prepare ``spec``'s inputs at ``values`` (seeded) on the CPU and run its launch under the
    interpreter, bounded as the module doc says. Raises Cancelled when ``cancel()`` turns true,
    and what ``prepare`` or the launch raise."""
    from ..run.backends import resolve
    from ..run.prepare import prepare

    win = Window.parse(window) if isinstance(window, str) else window
    be = resolve(INTERPRETER)
    q = prepare(spec, dict(values), be, seed)

    def report(done: int, total: int) -> None:
        if progress is not None:
            progress(Progress("running under the interpreter", done / max(1, total), done, total, "programs"))

    runner = _WindowRunner(win, max_programs, time.perf_counter() + max(0.0, budget_s), cancel, report)
    why = ""
    try:
        with Interpreter([AccessGuard(), runner]).activate(spec.kernels) as K:
            q.launch(K)
    except _OutOfTime:
        why = "time"
    pids, n = runner.first if runner.first is not None else (np.zeros(0, np.int64), 0)
    ran = pids[: runner.done]
    if not why and ran.size < n:
        why = "window" if win is not None and pids.size < max_programs else "programs"
    poisoned = {o for o in spec.outputs if getattr(q.tensors.get(o), "is_floating_point", lambda: False)()
                and o not in spec.inplace}
    return InterpreterWindow(q.tensors, ran.astype(np.int32), int(n), why, poisoned)


def written_by(ran: InterpreterWindow, name: str, interp: np.ndarray, writer: np.ndarray | None) -> np.ndarray | None:
    """bool, of ``interp``'s shape: the elements of output ``name`` that the programs which ran
    wrote, as far as can be told; None when it cannot be told (the output is then not compared).

    A float output starts as NaN (``prepare`` poisons it), so what is a number was written;
    otherwise the GPU trace's ``writer`` map names each element's program. Elements several
    programs wrote are left out either way: a program outside the window may have written them
    last (an accumulation across programs)."""
    has_writer = writer is not None and tuple(writer.shape) == tuple(interp.shape)
    if name in ran.poisoned:
        mask = ~np.isnan(np.asarray(interp, np.float64))
    elif has_writer:
        mask = np.isin(writer, ran.pids)
    else:
        return None
    if has_writer:
        mask &= writer != SEVERAL
    return mask
