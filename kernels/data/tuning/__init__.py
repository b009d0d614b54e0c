"""The tuning vocabulary the window and the engine share, GUI-safe (no torch, no triton): the
space a sweep walks (``space``: axes, configs, ``where`` constraints, launch options) and the
honest ranking of its points (``rank``: spread, winner per data group, within-the-noise verdicts).
The window counts a space and ranks points with these before and after the worker runs them;
``kernels.tune`` (compile pool, pruning by resources, exports) builds on them."""

from __future__ import annotations

from . import rank
from .space import LAUNCH_OPTIONS, MAX_POINTS, Space, build_space, check_where

__all__ = ["LAUNCH_OPTIONS", "MAX_POINTS", "Space", "build_space", "check_where", "rank"]
