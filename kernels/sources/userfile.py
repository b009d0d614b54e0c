"""Load a user's kernel file: a plain Triton script (run with its launches captured, see
``kernels.script``), or a .py that registers specs the way the catalog modules do:

    from kernels.specs.spec import KernelSpec, register
    register(KernelSpec(name="my_add", ...))

``load(path)`` imports the file under a fresh module name, so loading it again (after an edit)
re-executes it and replaces the specs it registered before. Every way it can go wrong becomes a
``UserFileError`` with one clear line: the file is missing, is not Python, has a syntax error
(with its line), imports a module that is not installed (named), raises while running (with the
line in the user's file), or registers nothing.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import itertools
import linecache
import os
import sys
import traceback
from pathlib import Path

from ..data.errors import UserFileError
from ..specs.spec import REGISTRY, KernelSpec

__all__ = ["load", "loaded_from", "ensure_loaded", "unload"]

_counter = itertools.count()
#: resolved path -> (mtime_ns, size) of the last successful load
_STAMPS: dict[str, tuple[int, int]] = {}


def _resolve(path: str | os.PathLike) -> Path:
    return Path(path).expanduser().resolve()


def loaded_from(path: str | os.PathLike) -> list[KernelSpec]:
    """The specs currently registered from ``path``."""
    p = str(_resolve(path))
    return [s for s in REGISTRY if s.origin == p]


def unload(path: str | os.PathLike) -> None:
    """Remove the specs registered from ``path``."""
    for s in loaded_from(path):
        REGISTRY.remove(s.name)
    _STAMPS.pop(str(_resolve(path)), None)


def _line_in(exc: BaseException, file: str) -> int | None:
    """The deepest line of ``file`` in the exception's traceback."""
    line = None
    for fs in traceback.extract_tb(exc.__traceback__):
        if os.path.realpath(fs.filename) == file:
            line = fs.lineno
    return line


def load(path: str | os.PathLike) -> list[KernelSpec]:
    """Import the file and return the specs it registered (their ``origin`` is the path)."""
    p = _resolve(path)
    shown = str(path)
    if not p.exists():
        raise UserFileError(f"kernel file not found: {shown}", field="user_file")
    if p.is_dir():
        raise UserFileError(f"{shown} is a folder, not a kernel file (.py)", field="user_file")
    try:
        source = p.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise UserFileError(f"{shown} is not a Python file (it is not UTF-8 text)", field="user_file") from None
    except OSError as e:
        raise UserFileError(f"cannot read {shown}: {e.strerror or e}", field="user_file") from None
    try:
        compile(source, str(p), "exec")
    except SyntaxError as e:
        raise UserFileError(f"{shown}:{e.lineno}: syntax error: {e.msg} — is this a Python file?",
                            detail=f"{e.text or ''}", field="user_file") from None
    except ValueError as e:  # e.g. NUL bytes
        raise UserFileError(f"{shown} is not a Python file ({e})", field="user_file") from None

    key = str(p)
    from .. import catalog  # noqa: F401 — first, so a file that takes a catalog kernel's name is refused
    from ..script import is_plain_script

    if is_plain_script(source):
        return _load_script(p, shown, source)
    previous = loaded_from(p)
    before = {name: REGISTRY.get(name) for name in REGISTRY.names()}
    for s in previous:  # reload replaces: the file's old specs go first
        REGISTRY.remove(s.name)

    # triton reads a jit function's source through linecache; an edited file must be re-read
    linecache.checkcache(key)
    mod_name = f"tilescope_user_{p.stem}_{next(_counter)}"
    # an explicit loader: a kernel file need not end in .py to be Python
    spec = importlib.util.spec_from_file_location(
        mod_name, key, loader=importlib.machinery.SourceFileLoader(mod_name, key))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[mod_name] = module
    # a user file may import helper modules that sit next to it
    added_path = str(p.parent) not in sys.path
    if added_path:
        sys.path.insert(0, str(p.parent))
    _pin_source(key, source)

    def rollback() -> None:
        for name in REGISTRY.names():
            if name not in before or REGISTRY.get(name) is not before[name]:
                REGISTRY.remove(name)
        for name, s in before.items():
            if name not in REGISTRY:
                REGISTRY(s)
        sys.modules.pop(mod_name, None)

    try:
        spec.loader.exec_module(module)
    except ModuleNotFoundError as e:
        rollback()
        line = _line_in(e, key)
        where = f"{shown}:{line}" if line else shown
        raise UserFileError(f"{where}: imports module {e.name!r}, which is not installed",
                            detail=traceback.format_exc(limit=-3), field="user_file") from None
    except SyntaxError as e:  # from a module it imports
        rollback()
        raise UserFileError(f"{shown}: an imported file has a syntax error: {e.filename}:{e.lineno}: {e.msg}",
                            field="user_file") from None
    except BaseException as e:  # noqa: BLE001 - anything the user's code raises
        rollback()
        if isinstance(e, KeyboardInterrupt):
            raise
        line = _line_in(e, key)
        where = f"{shown}:{line}" if line else shown
        msg = str(e).splitlines()[0] if str(e) else ""
        raise UserFileError(f"{where}: {type(e).__name__}: {msg}".rstrip(": "),
                            detail=traceback.format_exc(limit=-5), field="user_file") from None
    finally:
        _unpin_source(key)
        if added_path:
            try:
                sys.path.remove(str(p.parent))
            except ValueError:
                pass

    new = [s for s in REGISTRY if before.get(s.name) is not s]
    shadowing = [s.name for s in new if s.name in before and before[s.name].origin != key]
    if shadowing:
        rollback()
        raise UserFileError(
            f"{shown} registers {', '.join(repr(n) for n in shadowing)}, the name of a kernel that "
            "is already loaded; give your kernel another name", field="user_file")
    if not new:
        rollback()
        raise UserFileError(
            f"{shown} registers no kernels: call kernels.specs.spec.register(KernelSpec(...)) in it",
            field="user_file")
    for s in new:
        s.origin = key
    _stamp(p)
    return new


def _stamp(p: Path) -> None:
    """Remember the file's mtime and size (a file that deleted itself while loading has none: its
    kernels stay loaded, and ``ensure_loaded`` keeps them while the file is gone)."""
    try:
        st = p.stat()
    except OSError:
        _STAMPS[str(p)] = (-1, -1)
        return
    _STAMPS[str(p)] = (st.st_mtime_ns, st.st_size)


def _pin_source(key: str, source: str) -> None:
    """Serve the file's source from ``linecache`` while it runs: a file that deletes itself as it
    is imported still has its source for triton and the tracer (which read it by line)."""
    linecache.cache[key] = (len(source), None, source.splitlines(True), key)


def _unpin_source(key: str) -> None:
    """Back to reading the file (so an edit is seen); kept pinned when the file is gone."""
    if os.path.exists(key):
        linecache.cache.pop(key, None)


def _load_script(p: Path, shown: str, source: str) -> list[KernelSpec]:
    from ..script import open_script

    linecache.checkcache(str(p))
    _pin_source(str(p), source)
    try:
        cap, specs = open_script(str(p))
    finally:
        _unpin_source(str(p))
    if not specs:
        where = f"{shown}:{cap.error_line}" if cap.error_line else shown
        if cap.missing_module:
            msg = f"{where}: imports module {cap.missing_module!r}, which is not installed"
        elif cap.error:
            msg = f"{where}: {cap.error.split(': ', 1)[1]}"
        else:
            msg = (f"{shown} registers no kernels and launched no Triton kernel ({cap.stopped or 'it ran to its end'}): "
                   "Tilescope opens a plain script by running it and capturing its launches")
        raise UserFileError(msg, detail=cap.log[-4000:], field="user_file")
    _stamp(p)
    return specs


def ensure_loaded(path: str | os.PathLike) -> list[KernelSpec]:
    """Load ``path`` unless it is loaded and unchanged since (same mtime and size). A file that
    was loaded and has since gone (it deleted itself as it ran) keeps its kernels."""
    p = _resolve(path)
    key = str(p)
    specs = loaded_from(p)
    try:
        st = p.stat()
    except OSError:
        if specs and key in _STAMPS:
            return specs
        return load(path)  # raises the clear "not found"
    if specs and _STAMPS.get(key) == (st.st_mtime_ns, st.st_size):
        return specs
    return load(path)
