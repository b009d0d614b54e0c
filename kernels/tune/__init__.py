"""Tuning at the speed of the compiler: the engine side of N-axis sweeps.

- ``space``: axes (a cartesian product) and explicit configs, ``where`` constraints, resume;
- ``limits``: what cannot fit (shared memory, registers, block size), said before compiling;
- ``rank``: each point with its spread, the winner per data group, and whether it is noise;
- ``pipeline``: compile ahead in a pool while the GPU benchmarks; the interleaved re-measurement
  (imports torch and triton);
- ``export``: the winner and the top configs as ``@triton.autotune`` text and as a
  ``torch.library.triton_op`` module (imports torch).

``kernels.engine.sweep`` runs a ``SweepRequest`` through them. ``space``, ``limits`` and ``rank``
import neither torch nor triton; this package imports only those.
"""

from __future__ import annotations

from .limits import Fit, check_fit, limits_for_target, shared_memory_estimate
from .space import LAUNCH_OPTIONS, Space, build_space

__all__ = ["Fit", "LAUNCH_OPTIONS", "Space", "build_space", "check_fit", "limits_for_target",
           "shared_memory_estimate"]
