"""Print the project's import graph at package level as a Mermaid diagram (for docs/architecture.md).

    python benchmarks/import_graph.py > /tmp/graph.md

Nodes are the subpackages and top-level modules of app, kernels and views (kernels.data,
kernels.interp, app.cli, …); an edge A --> B means some module of A imports some module of B
(imports inside functions included: grimp reads every import statement).
"""

from __future__ import annotations

from collections import Counter

import grimp

PACKAGES = ("app", "kernels", "views")
#: packages shown as one node (their inner modules folded in)
FOLD = ("kernels.data", "kernels.interp", "kernels.trace", "kernels.engine", "kernels.script", "kernels.catalog",
        "kernels.lessons", "kernels.tune", "kernels.compile", "app.cli", "app.window", "views.grid_view", "views.demo")


def node_of(module: str) -> str:
    for f in FOLD:
        if module == f or module.startswith(f + "."):
            return f
    parts = module.split(".")
    return ".".join(parts[:2]) if len(parts) > 1 else module


def main() -> None:
    g = grimp.build_graph(*PACKAGES)
    edges: Counter[tuple[str, str]] = Counter()
    for m in g.modules:
        for imported in g.find_modules_directly_imported_by(m):
            a, b = node_of(m), node_of(imported)
            if a != b and not a.startswith(b + ".") and b not in PACKAGES:
                edges[(a, b)] += 1
    nodes = sorted({n for e in edges for n in e})
    print("```mermaid")
    print("flowchart LR")
    for top in PACKAGES:
        print(f"  subgraph {top}")
        for n in nodes:
            if n.split(".")[0] == top:
                print(f'    {n.replace(".", "_")}["{n}"]')
        print("  end")
    for a, b in sorted(edges):
        print(f"  {a.replace('.', '_')} --> {b.replace('.', '_')}")
    print("```")


if __name__ == "__main__":
    main()
