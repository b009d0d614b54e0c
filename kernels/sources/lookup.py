"""Finding a kernel by name: the catalog (loaded on first use) and the user's kernel files."""

from __future__ import annotations

from ..data.results import KernelInfo
from ..specs.spec import REGISTRY, KernelSpec
from . import userfile

__all__ = ["get_spec", "infos", "load_catalog", "spec_of_file"]

_catalog_loaded = False


def load_catalog() -> None:
    global _catalog_loaded
    if not _catalog_loaded:
        import kernels.catalog  # noqa: F401  (registers the bundled specs)

        _catalog_loaded = True


def get_spec(name: str, user_file: str | None = None) -> KernelSpec:
    """The registered spec ``name`` (after loading the catalog and ``user_file``, if given)."""
    load_catalog()
    if user_file:
        userfile.ensure_loaded(user_file)
    return REGISTRY.get(name)


def infos() -> list[KernelInfo]:
    """KernelInfo of every registered kernel (the catalog, and user files loaded so far)."""
    load_catalog()
    return [s.info() for s in REGISTRY]


def spec_of_file(path: str, launch: int = 1) -> KernelSpec:
    """The ``launch``-th kernel (1-based) a user file gives: its N-th captured launch for a plain
    script, its N-th registered spec for a file of specs."""
    from ..data.params import ValidationError

    specs = userfile.ensure_loaded(path)
    if not 1 <= launch <= len(specs):
        raise ValidationError(f"{path} gives {len(specs)} kernel launch(es); --launch {launch} is not one of "
                              f"1..{len(specs)}", "launch")
    return specs[launch - 1]
