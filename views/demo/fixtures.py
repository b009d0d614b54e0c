"""Reading the demo fixtures of ``resources/demo/`` — numpy and the ``kernels.data`` classes only.

The files are written by ``python -m kernels.trace.demo_fixtures`` (which needs torch and triton); here
they are only read, so the widgets' previews and tests run without either. Every ``load`` gives a
fresh object: a caller may change what it gets (a test breaking a trace on purpose) without
touching anyone else's copy.
"""

from __future__ import annotations

import functools
import gzip
import pickle
from typing import Any

from resources import RESOURCES_DIR

__all__ = ["FIXTURE_DIR", "fixture_names", "kernel_info", "load"]

FIXTURE_DIR = RESOURCES_DIR / "demo"
SUFFIX = ".pkl.gz"  # kernels.trace.demo_fixtures.SUFFIX: that module is the engine's, not imported here


def fixture_names() -> list[str]:
    return sorted(p.name[: -len(SUFFIX)] for p in FIXTURE_DIR.glob(f"*{SUFFIX}"))


@functools.cache
def _raw(name: str) -> bytes:
    path = FIXTURE_DIR / f"{name}{SUFFIX}"
    if not path.is_file():
        raise FileNotFoundError(f"no demo fixture {name!r} in {FIXTURE_DIR} (have {', '.join(fixture_names())}); "
                                "python -m kernels.trace.demo_fixtures writes them")
    return gzip.decompress(path.read_bytes())


def load(name: str) -> Any:
    """A fresh copy of the object fixture ``name`` holds (a ``Trace``, a list of ``KernelInfo``)."""
    return pickle.loads(_raw(name))


def kernel_info(name: str) -> Any:
    """The catalog's ``KernelInfo`` of kernel ``name``, as recorded in the ``kernel_infos`` fixture."""
    infos = load("kernel_infos")
    for info in infos:
        if info.name == name:
            return info
    raise KeyError(f"no KernelInfo {name!r} in the fixture (have {', '.join(i.name for i in infos)})")
