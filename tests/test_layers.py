"""The layer rules, checked in clean interpreters by what lands in ``sys.modules``.

kernels/ (engine and catalog) and the CLI must import no Qt: they run on GPU hosts without it.
views/ and the pure-data modules the GUI process uses must import neither torch nor triton: the
GUI never loads them, so it starts fast and survives a kernel that takes CUDA down.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
QT = ("PySide6", "pyqtgraph", "shiboken6", "PyQt5", "PyQt6")
HEAVY = ("torch", "triton")


def _loaded_after(imports: list[str]) -> set[str]:
    """Top-level packages in sys.modules after importing ``imports`` in a fresh interpreter."""
    code = ("import importlib, json, sys\n"
            f"for m in {imports!r}: importlib.import_module(m)\n"
            "print(json.dumps(sorted({n.split('.')[0] for n in sys.modules})))")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def test_engine_catalog_and_cli_import_no_qt():
    loaded = _loaded_after(["kernels.engine", "kernels.catalog", "app.cli", "app.__main__"])
    assert "torch" in loaded and "triton" in loaded  # the check really imported the engine
    assert not loaded & set(QT), loaded & set(QT)


def _views_modules() -> list[str]:
    """Every module under views/, subpackages included (grid_view/, demo/)."""
    return sorted(".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
                  for p in (ROOT / "views").rglob("*.py") if p.stem != "__main__")


def test_pure_data_modules_import_no_torch_or_triton():
    mods = [f"kernels.data.{p.stem}" for p in sorted((ROOT / "kernels" / "data").glob("*.py")) if p.stem != "__init__"]
    loaded = _loaded_after(mods)
    assert "numpy" in loaded
    assert not loaded & set(HEAVY), loaded & set(HEAVY)


def test_views_import_no_torch_or_triton():
    pytest.importorskip("PySide6")  # the views are Qt widgets; the Triton 3.6 venv has no Qt
    mods = _views_modules()
    if not mods:
        pytest.skip("no views/ modules yet")
    loaded = _loaded_after(mods)
    assert "PySide6" in loaded
    assert not loaded & set(HEAVY), loaded & set(HEAVY)
