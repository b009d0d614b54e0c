"""What the benchmark scripts share: an environment whose settings, history and caches go to a
fresh temporary folder, never the user's, and a wait that keeps Qt's event loop turning.

The scripts are run as files (``python benchmarks/x.py``), so this folder is on their path and
``from harness import ...`` finds this module."""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

__all__ = ["ROOT", "isolated_env", "wait_until"]

ROOT = Path(__file__).resolve().parents[1]


def isolated_env() -> dict[str, str]:
    """This process's environment with TILESCOPE_CACHE_DIR / CONFIG_DIR / DATA_DIR in a new
    temporary folder, Qt offscreen unless QT_QPA_PLATFORM says otherwise, and the checkout on
    PYTHONPATH (for the processes a benchmark starts)."""
    tmp = tempfile.mkdtemp(prefix="tilescope-bench-")
    env = dict(os.environ)
    for var in ("TILESCOPE_CACHE_DIR", "TILESCOPE_CONFIG_DIR", "TILESCOPE_DATA_DIR"):
        env[var] = os.path.join(tmp, var.lower())
    env.setdefault("QT_QPA_PLATFORM", "offscreen")
    env["PYTHONPATH"] = os.pathsep.join(x for x in (str(ROOT), env.get("PYTHONPATH", "")) if x)
    return env


def wait_until(pred: Callable[[], object], timeout: float, what: str = "a benchmark step", *,
               step_ms: int = 20) -> None:
    """Turn Qt's event loop in ``step_ms`` steps until ``pred()`` holds; after ``timeout`` seconds
    the benchmark ends with one line naming ``what``. A timing benchmark polls in small steps
    (its figures are read when the wait ends)."""
    from PySide6.QtTest import QTest

    deadline = time.monotonic() + timeout
    while not pred():
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out after {timeout:g} s waiting for {what}")
        QTest.qWait(step_ms)
