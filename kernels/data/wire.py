"""The fingerprint of what crosses between a window and its worker.

Requests and answers are pickles of this package's dataclasses (``app.protocol``). A window and a
worker whose copies of these types differ (a remote host with an older checkout) would fail on
the first answer that names a field or class the other side lacks, or worse, read it wrongly. The
worker's hello carries ``wire_version()`` and a window with another one refuses the worker with a
sentence (``app.transport_ssh``). The fingerprint is a hash of the package's Python sources, so
any change to a type changes it, and two checkouts of the same commit agree.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

__all__ = ["wire_version"]

_HERE = Path(__file__).resolve().parent


@functools.lru_cache(maxsize=1)
def wire_version() -> str:
    """12 hex digits: the SHA-256 of this package's ``*.py`` files (paths and contents, sorted;
    line endings normalised)."""
    h = hashlib.sha256()
    for path in sorted(_HERE.rglob("*.py")):
        rel = path.relative_to(_HERE).as_posix()
        h.update(rel.encode() + b"\0")
        h.update(path.read_bytes().replace(b"\r\n", b"\n") + b"\0")
    return h.hexdigest()[:12]
