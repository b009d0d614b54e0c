"""Load a learner's lesson file into a fresh module, and launch it with the tracer's ``K``.

``load_file(path)`` executes the file under a new module name every time (an edited file is
read again, never served from a cache); what goes wrong becomes a ``LessonFileError`` carrying
the message key of ``messages`` and the line in the learner's file.

``launcher(module, args, meta)`` is what ``trace_launch`` calls: inside it the module's
``@triton.jit`` functions stand for ``K(fn)``, so the learner's plain ``kernel[grid](...)`` in
``launch`` is the launch the tracer records, and nothing in the file needs to know about it.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import itertools
import linecache
import os
import sys
import traceback
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["LessonFileError", "load_file", "unload", "line_in", "Launches", "launcher", "jit_functions"]

_counter = itertools.count()


class LessonFileError(Exception):
    """The learner's file could not be loaded or run: ``key`` and ``values`` for ``messages.say``."""

    def __init__(self, key: str, line: int | None = None, **values: Any) -> None:
        super().__init__(key)
        self.key = key
        self.line = line
        self.values = values


def line_in(exc: BaseException, file: str) -> int | None:
    """The deepest line of ``file`` in the exception's traceback (None if it is not there)."""
    line = None
    real = os.path.realpath(file)
    for fs in traceback.extract_tb(exc.__traceback__):
        if os.path.realpath(fs.filename) == real:
            line = fs.lineno
    return line


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0][:300]}" if text else type(exc).__name__


def load_file(path: str | os.PathLike) -> types.ModuleType:
    p = Path(path).expanduser()
    shown = str(path)
    if not p.exists():
        raise LessonFileError("file_missing", path=shown)
    if p.is_dir():
        raise LessonFileError("file_folder", path=shown)
    try:
        source = p.read_bytes().decode("utf-8")
    except (UnicodeDecodeError, OSError) as e:
        raise LessonFileError("file_unreadable", path=shown, why=_first_line(e)) from None
    key = str(p.resolve())
    try:
        compile(source, key, "exec")
    except SyntaxError as e:
        raise LessonFileError("file_syntax", line=e.lineno, where=f"{shown}:{e.lineno}", msg=e.msg) from None
    except ValueError as e:  # NUL bytes
        raise LessonFileError("file_unreadable", path=shown, why=_first_line(e)) from None
    linecache.checkcache(key)  # triton reads the kernel's source through linecache
    name = f"tilescope_lesson_{p.stem}_{next(_counter)}"
    spec = importlib.util.spec_from_file_location(name, key, loader=importlib.machinery.SourceFileLoader(name, key))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except ModuleNotFoundError as e:
        sys.modules.pop(name, None)
        line = line_in(e, key)
        raise LessonFileError("file_import", line=line, where=f"{shown}:{line}" if line else shown,
                              mod=e.name) from None
    except Exception as e:  # noqa: BLE001 - whatever the learner's file raises is reported
        sys.modules.pop(name, None)
        line = line_in(e, key)
        raise LessonFileError("file_raised", line=line, where=f"{shown}:{line}" if line else shown,
                              exc=_first_line(e)) from None
    return module


def unload(module: types.ModuleType) -> None:
    sys.modules.pop(module.__name__, None)


class Launches:
    """What the learner's ``launch`` did: each kernel launch's parameter -> argument binding."""

    def __init__(self) -> None:
        self.bindings: list[dict[str, Any]] = []


class _Route:
    """A module's jit function while ``launch`` runs: ``fn[grid](...)`` goes through ``K``, a call
    from inside another kernel goes to the interpreted twin, anything else to the function."""

    def __init__(self, fn: Any, K: Callable[[Any], Any], seen: Launches) -> None:
        self._fn, self._K, self._seen = fn, K, seen

    def __getitem__(self, grid: Any) -> Callable[..., None]:
        run = self._K(self._fn)[grid]
        names = list(self._fn.arg_names)

        def call(*args: Any, **kwargs: Any) -> None:
            self._seen.bindings.append({**dict(zip(names, args, strict=False)), **kwargs})
            run(*args, **kwargs)
        return call

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        from ..interp import interpreted

        return interpreted(self._fn)(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._fn, name)


def jit_functions(module: types.ModuleType) -> dict[str, Any]:
    from triton.runtime.jit import JITFunction

    return {k: v for k, v in vars(module).items() if isinstance(v, JITFunction)}


def launcher(module: types.ModuleType, args: list[Any], meta: dict[str, Any],
             seen: Launches) -> Callable[[Any], None]:
    """``launch(K)`` for ``trace_launch``: calls ``module.launch(*args, **meta)`` with the module's
    jit functions routed through ``K`` (put back afterwards)."""
    def run(K: Callable[[Any], Any]) -> None:
        g = vars(module)
        saved = jit_functions(module)
        try:
            for k, fn in saved.items():
                g[k] = _Route(fn, K, seen)
            module.launch(*args, **meta)
        finally:
            g.update(saved)
    return run
