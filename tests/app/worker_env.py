"""The environment of a worker process started by a test: the user's data, config and cache
folders moved under the test's own folder (imported as ``hostile`` and ``real_window`` are)."""

from __future__ import annotations

import os
from pathlib import Path


def worker_env(folder: Path, **extra: str) -> dict[str, str]:
    """``os.environ`` with TILESCOPE_DATA_DIR / CONFIG_DIR / CACHE_DIR under ``folder``, plus ``extra``."""
    env = dict(os.environ, **extra)
    for var in ("DATA", "CONFIG", "CACHE"):
        env[f"TILESCOPE_{var}_DIR"] = str(Path(folder) / var.lower())
    return env
