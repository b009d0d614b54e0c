"""The observer interface of the interpreter layer (in the spirit of triton-viz's ``Client``).

An interpreted launch calls, in order: ``on_bind`` (arguments bound, not yet read),
``on_launch`` once (arguments, grid, constexprs, options
known; nothing run yet), ``on_program`` before each program, ``on_access`` for each load, store
and atomic (before memory is touched: it may switch lanes off), and ``on_end`` once the programs
have run. The out-of-bounds guard, the trace recorder, the progress reporter and the plain-script
launch capture are observers; several may watch one launch.
"""

from __future__ import annotations

import ast
import linecache
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..data.grid import Grid3, n_programs, program_xyz
from .args import TensorArg
from .spans import StorageSpans

__all__ = ["LaunchInfo", "Observer", "Programs"]

#: ``run(pids, before_program)``: runs those programs of a prepared launch (see ``Observer.run``)
Programs = Callable[[np.ndarray, "Callable[[int], None] | None"], None]


@dataclass
class LaunchInfo:
    """One launch as the observers see it."""

    index: int  # 0-based count of launches made in this interpreter session
    fn: Any  # the JITFunction
    grid: Any  # as the launcher gave it: a tuple, or a callable of the bound arguments
    grid3: Grid3
    args: tuple  # as given
    kwargs: dict
    bound: dict[str, Any]  # every kernel parameter by name (defaults applied)
    tensors: list[TensorArg]
    scalars: dict[str, Any]
    constexprs: dict[str, Any]
    options: dict[str, Any]  # launch options: num_warps, num_stages, …
    spans: StorageSpans
    code: Any = None  # the rewritten kernel's code object (its frames give source lines)
    pid: int = -1  # the program running now
    notes: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.fn.fn.__name__

    @property
    def n_programs(self) -> int:
        return n_programs(self.grid3)

    def xyz(self, pid: int | None = None) -> tuple[int, int, int]:
        return program_xyz(self.pid if pid is None else pid, self.grid3)

    def source_line(self) -> tuple[int, str, str]:
        """(line, its text, file) of the kernel's frame making the current access (0 when the
        call does not come from the kernel)."""
        f = sys._getframe(1)
        while f is not None and f.f_code is not self.code:
            f = f.f_back
        if f is None:
            return 0, "", ""
        file = f.f_code.co_filename
        return f.f_lineno, linecache.getline(file, f.f_lineno).strip(), file


class Observer:
    """Base observer: every callback does nothing. Override what you need.

    ``transform``: an extra AST pass over the kernel (the tracer's loop counters) and the globals
    it needs; ``run``: an observer that runs the programs itself (the tracer forks processes for
    parts of the grid) overrides it and returns True."""

    #: (ast pass, extra globals) applied to the kernel before it runs, or None
    transform: tuple[Callable[[ast.Module], ast.Module], dict[str, Any]] | None = None
    #: whether on_access must be called (lets a launch with no access observers skip the hooks)
    watches_accesses: bool = False

    def on_bind(self, fn: Any, bound: dict[str, Any], grid3: Grid3) -> None:
        """Before the arguments are read: the place to move their storages (the tracer shares
        them with forked children), since every address is taken after this."""

    def on_launch(self, launch: LaunchInfo) -> None:
        pass

    def on_program(self, launch: LaunchInfo, pid: int) -> None:
        pass

    def on_access(self, launch: LaunchInfo, op: int, ptrs: np.ndarray, mask: np.ndarray | None) -> np.ndarray | None:
        """Lanes to switch off (bool, ``ptrs``' shape), or None."""
        return None

    def on_end(self, launch: LaunchInfo) -> None:
        pass

    def run(self, launch: LaunchInfo, programs: Programs) -> bool:
        """Run the launch's programs through ``programs`` (True), or leave it to the layer."""
        return False
