"""The codebase's shape, checked: no import cycles between project modules (imports inside
functions count), files and functions small enough to read in one sitting, and Triton's private
interpreter reached from one file only.

What breaks if these fail: a change tied two modules into a knot (neither can be read, tested or
replaced alone), grew a file or function past what a new maintainer can hold, or spread contact
with Triton internals that a Triton release may rename."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("app", "kernels", "views")
MAX_FILE_LINES = 700
MAX_FUNCTION_LINES = 120


def _sources() -> list[Path]:
    return sorted(p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py"))


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(edges.get(nxt, ())))))
                elif nxt in on_stack:
                    low[v] = min(low[v], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def test_the_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles_between_project_modules():
    grimp = pytest.importorskip("grimp")
    g = grimp.build_graph(*PACKAGES)
    edges: dict[str, set[str]] = {}
    for m in g.modules:
        # a package's __init__ re-exporting its children is not a knot: count module -> module only
        edges[m] = {x for x in g.find_modules_directly_imported_by(m) if not m.startswith(x + ".")}
    cycles = _cycles(edges)
    assert not cycles, "import cycles (imports inside functions included): " + "; ".join(
        " <-> ".join(c) for c in cycles)


def test_no_file_over_700_lines_and_no_function_over_120():
    long_files, long_functions = [], []
    for p in _sources():
        text = p.read_text(encoding="utf-8")
        n = text.count("\n")
        if n > MAX_FILE_LINES:
            long_files.append(f"{p.relative_to(ROOT)} ({n})")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = node.end_lineno - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    long_functions.append(f"{p.relative_to(ROOT)}:{node.lineno} {node.name} ({length})")
    assert not long_files and not long_functions, (long_files, long_functions)


def test_only_the_interpreter_layer_touches_triton_interpreter_internals():
    allowed = ROOT / "kernels" / "interp" / "_triton.py"
    offenders = []
    for p in _sources():
        if p == allowed:
            continue
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            if any(n.startswith("triton.runtime.interpreter") for n in names):
                offenders.append(f"{p.relative_to(ROOT)}:{node.lineno}")
    assert not offenders, offenders
