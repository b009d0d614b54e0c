"""Print the project's import graph at package level as a Mermaid diagram (for docs/architecture.md).

    python benchmarks/import_graph.py > /tmp/graph.md

Nodes are the parts of app, kernels and views (``GROUPS``: the window, the CLI, the worker side,
kernels.data, kernels.interp, …); an edge A --> B means some module of A imports some module of
B (imports inside functions included: grimp reads every import statement).
"""

from __future__ import annotations

from collections import Counter

import grimp

PACKAGES = ("app", "kernels", "views")
#: node -> the modules it folds (first match wins); anything else is its first two name parts
GROUPS = {
    "app: window": ("app.gui", "app.main_window", "app.window", "app.controller", "app.session", "app.qt_worker",
                    "app.history"),
    "app: cli": ("app.cli", "app.__main__"),
    "app: settings, paths": ("app.paths", "app.settings"),
    "app: worker": ("app.worker", "app.client", "app.worker_process", "app.protocol", "app.dispatch"),
    "views": ("views",),
    "kernels.data": ("kernels.data",),
    "kernels.interp": ("kernels.interp",),
    "kernels.trace.demo_fixtures": ("kernels.trace.demo_fixtures",),
    "kernels.trace": ("kernels.trace",),
    "kernels.gpu_trace": ("kernels.gpu_trace",),
    "kernels.engine": ("kernels.engine",),
    "kernels.tune": ("kernels.tune",),
    "kernels.script": ("kernels.script",),
    "kernels.lessons": ("kernels.lessons",),
    "kernels.specs": ("kernels.specs",),
    "kernels.sources": ("kernels.sources", "kernels.catalog"),
    "kernels.run": ("kernels.run",),
    "kernels.compile": ("kernels.compile",),
}


def node_of(module: str) -> str:
    for node, prefixes in GROUPS.items():
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return node
    return ".".join(module.split(".")[:2])


def _id(node: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in node)


def main() -> None:
    g = grimp.build_graph(*PACKAGES)
    edges: Counter[tuple[str, str]] = Counter()
    for m in g.modules:
        for imported in g.find_modules_directly_imported_by(m):
            a, b = node_of(m), node_of(imported)
            if a != b and b not in PACKAGES:
                edges[(a, b)] += 1
    nodes = sorted({n for e in edges for n in e})
    print("```mermaid")
    print("flowchart TD")
    for n in nodes:
        print(f'  {_id(n)}["{n}"]')
    for a, b in sorted(edges):
        print(f"  {_id(a)} --> {_id(b)}")
    print("```")


if __name__ == "__main__":
    main()
