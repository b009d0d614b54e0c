"""The views' import contract names every engine subpackage but ``kernels.data``.

import-linter forbids what a contract lists, so a new ``kernels/`` subpackage left off the list
could be imported by a view unnoticed (a widget that launches kernels, or pulls torch into the
window). Fails when ``kernels/`` gains a subpackage the views contract in pyproject.toml does not
forbid."""

from __future__ import annotations

from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[1]


def test_the_views_contract_forbids_every_engine_subpackage_but_data():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    (views,) = [c for c in contracts if c.get("source_modules") == ["views"]]
    forbidden = set(views["forbidden_modules"])
    packages = {f"kernels.{p.name}" for p in (ROOT / "kernels").iterdir() if (p / "__init__.py").is_file()}
    assert "kernels.data" in packages and "kernels.data" not in forbidden
    assert packages - {"kernels.data"} <= forbidden, sorted(packages - {"kernels.data"} - forbidden)
    modules = {f"kernels.{p.stem}" for p in (ROOT / "kernels").glob("*.py") if p.stem != "__init__"}
    assert modules <= forbidden, sorted(modules - forbidden)  # loose engine modules, if any come back
