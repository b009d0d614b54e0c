"""What the benchmark scripts share: an environment whose settings, history and caches go to a
fresh temporary folder, never the user's (for the processes a script starts, or for the script
itself), and waits that keep Qt's event loop turning.

The scripts are run as files (``python benchmarks/x.py``), so this folder is on their path and
``from harness import ...`` finds this module."""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["ROOT", "fill_sweep_dialog", "isolate_this_process", "isolated_env", "poll_until", "wait_until"]

ROOT = Path(__file__).resolve().parents[1]
_DIR_VARS = ("TILESCOPE_CACHE_DIR", "TILESCOPE_CONFIG_DIR", "TILESCOPE_DATA_DIR")


def isolated_env() -> dict[str, str]:
    """This process's environment with TILESCOPE_CACHE_DIR / CONFIG_DIR / DATA_DIR in a new
    temporary folder, Qt offscreen unless QT_QPA_PLATFORM says otherwise, and the checkout on
    PYTHONPATH (for the processes a benchmark starts)."""
    tmp = tempfile.mkdtemp(prefix="tilescope-bench-")
    env = dict(os.environ)
    for var in _DIR_VARS:
        env[var] = os.path.join(tmp, var.lower())
    env.setdefault("QT_QPA_PLATFORM", "offscreen")
    env["PYTHONPATH"] = os.pathsep.join(x for x in (str(ROOT), env.get("PYTHONPATH", "")) if x)
    return env


def isolate_this_process(prefix: str = "tilescope-bench-", keep_cache: bool = False) -> Path:
    """For a script that opens the window itself: settings and history (and the caches, unless
    ``keep_cache``: a warm-cache measurement) in a new temporary folder, Qt offscreen when there
    is no display, and the checkout importable. Returns the folder."""
    import sys

    home = Path(tempfile.mkdtemp(prefix=prefix))
    for var in _DIR_VARS:
        if not (keep_cache and var == "TILESCOPE_CACHE_DIR"):
            os.environ[var] = str(home / var.lower())
    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    return home


def poll_until(pred: Callable[[], object], timeout: float, *, step_ms: int = 20) -> bool:
    """Turn Qt's event loop in ``step_ms`` steps until ``pred()`` holds: True, or False after
    ``timeout`` seconds. A timing benchmark polls in small steps (its figures are read when the
    wait ends)."""
    from PySide6.QtTest import QTest

    deadline = time.monotonic() + timeout
    while not pred():
        if time.monotonic() > deadline:
            return False
        QTest.qWait(step_ms)
    return True


def wait_until(pred: Callable[[], object], timeout: float, what: str = "a benchmark step", *,
               step_ms: int = 20) -> None:
    """``poll_until`` that ends the benchmark with one line naming ``what`` when it times out."""
    if not poll_until(pred, timeout, step_ms=step_ms):
        raise SystemExit(f"timed out after {timeout:g} s waiting for {what}")


def fill_sweep_dialog(dlg: Any, axes: dict[str, str]) -> None:
    """The Sweep dialog filled as a user does: each axis's parameter picked (the first two in
    their rows, more added), its values typed."""
    from PySide6.QtTest import QTest

    for i, (name, values) in enumerate(axes.items()):
        if i >= 2:
            dlg.add_param(name)
        else:
            if i == 1:
                dlg.second.setChecked(True)
            dlg.set_param(i, name)
        dlg.values_edit[i].selectAll()
        QTest.keyClicks(dlg.values_edit[i], values)
