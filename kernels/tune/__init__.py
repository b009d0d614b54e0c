"""Tuning at the speed of the compiler: the engine side of N-axis sweeps.

- ``kernels.data.tuning`` (GUI-safe, shared with the window): ``space`` — axes (a cartesian
  product) and explicit configs, ``where`` constraints, resume; ``rank`` — each point with its
  spread, the winner per data group, and whether it is noise;
- ``limits``: what cannot fit (shared memory, registers, block size), said before compiling;
- ``pipeline``: compile ahead in a pool while the GPU benchmarks; the interleaved re-measurement
  (imports torch and triton);
- ``export``: the winner and the top configs as ``@triton.autotune`` text and as a
  ``torch.library.triton_op`` module (imports torch).

``kernels.engine.sweep`` runs a ``SweepRequest`` through them. ``limits`` imports neither torch
nor triton; this package imports only it and ``kernels.data.tuning``.
"""

from __future__ import annotations

from ..data.tuning.space import LAUNCH_OPTIONS, Space, build_space
from .limits import Fit, check_fit, limits_for_target, shared_memory_estimate

__all__ = ["Fit", "LAUNCH_OPTIONS", "Space", "build_space", "check_fit", "limits_for_target",
           "shared_memory_estimate"]
