"""The interpreter layer: every interpreted launch, and every contact with Triton's interpreter
internals, goes through here.

- ``Interpreter``: a session; ``activate(kernels)`` yields ``K`` and ``K(fn)[grid](...)`` runs a
  launch program by program under Triton's CPU interpreter, calling its observers;
- ``Observer`` / ``LaunchInfo``: the observer interface (arguments and grid, each program, each
  load/store/atomic, end of launch);
- ``AccessGuard`` (stops out-of-bounds accesses before they touch memory) and
  ``ProgramProgress``: the engine's observers; the tracer's recorder and the plain-script capture
  are observers too (``kernels.trace``, ``kernels.script``);
- ``interpreted(fn)``: a JITFunction's interpreted twin; ``require()``: does this Triton have
  every hook (``TraceUnsupported`` names the missing one).

Only ``_triton`` touches ``triton.runtime.interpreter``: a Triton release that renames its
internals breaks that one file.
"""

from __future__ import annotations

from ._triton import constexpr_names, interpreted, require
from .args import TensorArg, bind, collect_args, grid3, plain
from .guard import AccessGuard, ProgramProgress
from .launch import ONE_AT_A_TIME, Interpreter, kernel_error
from .observer import LaunchInfo, Observer, Programs
from .spans import StorageSpans

__all__ = [
    "AccessGuard", "Interpreter", "LaunchInfo", "ONE_AT_A_TIME", "Observer", "ProgramProgress", "Programs",
    "StorageSpans", "TensorArg", "bind", "collect_args", "constexpr_names", "grid3", "interpreted",
    "kernel_error", "plain", "require",
]
