"""Shared fixtures: every test keeps away from the user's real settings, history and caches."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _isolated_dirs(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    # device peaks, settings and history would otherwise land in ~/.cache, ~/.config, ~/.local
    root = tmp_path_factory.mktemp("tilescope-home")
    for var in ("TILESCOPE_CACHE_DIR", "TILESCOPE_CONFIG_DIR", "TILESCOPE_DATA_DIR"):
        monkeypatch.setenv(var, str(root / var.lower()))
