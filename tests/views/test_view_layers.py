"""The layer rules inside views/, checked in clean interpreters by what lands in sys.modules.

Every module under views/ (packages included) must load without torch and triton: the GUI
process never imports them. The data parts of the grid view and the demo loader must load
without Qt too: they are run off the GUI thread and tested headless.
"""

from __future__ import annotations

import json
import os
import pkgutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
QT = ("PySide6", "pyqtgraph", "shiboken6")
HEAVY = ("torch", "triton")
QT_FREE = ["views.grid_view.prepare", "views.grid_view.lighting", "views.grid_view.text", "views.grid_view.state",
           "views.demo", "views.history_rows"]


def _loaded_after(imports: list[str]) -> set[str]:
    code = ("import importlib, json, sys\n"
            f"for m in {imports!r}: importlib.import_module(m)\n"
            "print(json.dumps(sorted({n.split('.')[0] for n in sys.modules})))")
    env = dict(os.environ, PYTHONPATH=str(ROOT), QT_QPA_PLATFORM="offscreen")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def _all_view_modules() -> list[str]:
    return sorted(m.name for m in pkgutil.walk_packages([str(ROOT / "views")], prefix="views.")
                  if not m.name.endswith("__main__"))


def test_every_views_module_loads_without_torch_or_triton():
    # breaks if a widget (or a module of a widget package) pulls in torch/triton: the window
    # would start slowly, or not at all on a machine without them
    mods = _all_view_modules()
    assert "views.grid_view.widget" in mods and "views.demo.fixtures" in mods
    loaded = _loaded_after(mods)
    assert "PySide6" in loaded
    assert not loaded & set(HEAVY), loaded & set(HEAVY)


def test_grid_data_and_demo_loader_load_without_qt():
    # breaks if the trace precompute, the texts, the state model or the demo loader import Qt:
    # they could no longer be tested headless or run off the GUI thread as plain functions
    loaded = _loaded_after(QT_FREE)
    assert "numpy" in loaded
    assert not loaded & set(QT + HEAVY), loaded & set(QT + HEAVY)


def test_no_import_cycles_inside_views():
    # breaks if two modules of views/ import each other, even from inside a function (the demo
    # data and the history view once did)
    import ast

    graph: dict[str, set[str]] = {}
    for mod in _all_view_modules():
        rel = Path(*mod.split("."))
        path = ROOT / (str(rel) + ".py")
        if not path.exists():
            path = ROOT / rel / "__init__.py"
        pkg = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
        deps = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parent = pkg.rsplit(".", node.level - 1)[0] if node.level > 1 else pkg
                    base = f"{parent}.{base}" if base else parent
                deps.add(base)
                deps.update(f"{base}.{a.name}" for a in node.names)
            elif isinstance(node, ast.Import):
                deps.update(a.name for a in node.names)
        graph[mod] = {d for d in deps if d in graph or d.startswith("views.")} - {mod}
    mods = set(graph)
    graph = {m: {d for d in ds if d in mods} for m, ds in graph.items()}

    def reaches(a: str, b: str, seen: set[str]) -> bool:
        return any(d == b or (d not in seen and not seen.add(d) and reaches(d, b, seen)) for d in graph[a])

    cycles = [(a, b) for a in graph for b in graph[a] if reaches(b, a, set())]
    assert not cycles, cycles
