"""Fixtures for the app tests: Qt offscreen, and no test ever touches the user's own files.

``tests/conftest.py`` points TILESCOPE_CONFIG_DIR / DATA_DIR / CACHE_DIR at fresh temporary
folders for each test. A window (and its worker process) shared by a module's tests is built
before those per-test folders exist, so the session gets temporary folders of its own first:
whatever is created at module scope (settings, history, the worker's device cache) lands there.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

# before the first Qt import of the session: no display on CI, no window on a developer's desktop
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


@pytest.fixture(scope="session", autouse=True)
def _session_dirs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    root = tmp_path_factory.mktemp("tilescope-session-home")
    mp = pytest.MonkeyPatch()
    for var in ("TILESCOPE_CACHE_DIR", "TILESCOPE_CONFIG_DIR", "TILESCOPE_DATA_DIR"):
        mp.setenv(var, str(root / var.lower()))
    yield
    mp.undo()
