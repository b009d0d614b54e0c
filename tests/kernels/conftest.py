"""Fixtures shared by the engine tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A fresh, empty Triton cache (``TRITON_CACHE_DIR``) for one test; Tilescope's in-memory
    compile cache emptied before and after, so that only Triton's on-disk cache can answer."""
    from kernels.compile import target as compile_target

    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))
    compile_target._CACHE.clear()
    yield tmp_path
    compile_target._CACHE.clear()
