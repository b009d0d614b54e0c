"""User settings: a small JSON file in the config directory (see ``app.paths``).

``Settings.load()`` never fails: a missing file (or a config folder that does not exist and
cannot be created) gives the defaults; a file that is not JSON (or not a JSON object) is copied
aside to ``settings.json.corrupt-<timestamp>`` and the defaults are used; a field of the wrong
type falls back to its default. In both damaged cases ``.warning`` holds a sentence for the UI.
``save()`` writes a temporary file and ``os.replace``s it over the old one, so a crash mid-write
leaves the previous settings intact; it raises OSError when it cannot write, and
``save_problem()`` asks beforehand (a read-only or uncreatable config folder), so the window can
say at start-up that this session's settings will not be kept.

Window geometry and state are stored as base64 text (what ``QByteArray.toBase64()`` gives); the
``*_bytes`` helpers convert for callers holding raw bytes. ``layouts`` holds the dock arrangements
the user saved by name (View > Save layout as…), base64 too. Keys this version does not know are
kept and written back, so an older Tilescope does not erase a newer one's settings.

No torch, no triton, no Qt.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import shutil
import tempfile
import time
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from kernels.data.backends import AUTO
from kernels.data.backends import CHOICES as BACKEND_CHOICES
from kernels.data.safe_json import DamagedFile, read_json_file
from kernels.data.virtual_gpus import VIRTUAL_GPUS

from .paths import settings_path

__all__ = ["DEFAULT_TIMEOUT_S", "Settings"]

#: seconds a run may take before the worker is killed and restarted (interpreter runs of big
#: problems are slow; a GPU kernel that hangs never returns)
DEFAULT_TIMEOUT_S = 120.0

_VERSION = 1
#: larger than any settings file (a few KB, saved layouts included): not read, said damaged
MAX_BYTES = 4 << 20


@dataclass
class Settings:
    window_geometry: str = ""  # base64 of QMainWindow.saveGeometry()
    window_state: str = ""  # base64 of QMainWindow.saveState()
    last_kernel: str | None = None
    values: dict[str, dict[str, Any]] = field(default_factory=dict)  # kernel -> parameter -> value
    timeout_s: float = DEFAULT_TIMEOUT_S
    live: bool = False  # re-run on every parameter change
    backend: str = AUTO  # AUTO or a backend's name (kernels.data.backends.CHOICES)
    layouts: dict[str, str] = field(default_factory=dict)  # name -> base64 of a saved QMainWindow.saveState()
    remote: str = ""  # run the worker on this ssh host (user@host; "" = here): app.transport_ssh
    remote_python: str = ""  # the interpreter there ("" = this one's path)
    remote_root: str = ""  # Tilescope's checkout there ("" = this one's path)
    #: without a GPU, the GPU a script's device checks are answered as ("" = $TILESCOPE_VIRTUAL_GPU,
    #: else sm_90); the worker is started with ``kernels.data.virtual_gpus.worker_env(this)``
    virtual_gpu: str = ""

    #: the file this was loaded from and is saved to (not stored)
    path: Path | None = field(default=None, repr=False, compare=False)
    #: a message for the user when the file was damaged, else None (not stored)
    warning: str | None = field(default=None, repr=False, compare=False)
    _extra: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    # -- file -----------------------------------------------------------------------------------
    @classmethod
    def load(cls, path: str | os.PathLike[str] | None = None) -> Settings:
        p = Path(path) if path is not None else settings_path(create_dir=False)
        s = cls(path=p)
        try:
            data = read_json_file(p, MAX_BYTES)
        except FileNotFoundError:  # none yet (its folder may not even be creatable)
            return s
        except DamagedFile as e:
            s.warning = (f"The settings file {p} {e.why}; the default settings are used." if not e.movable
                         else _aside(p, e.why, move=e.huge))
            return s
        if not isinstance(data, dict):
            s.warning = _aside(p, f"holds a JSON {type(data).__name__}, not an object")
            return s
        bad = s._apply(data)
        if bad:
            s.warning = (f"Some settings in {p} had the wrong type and were reset to their defaults: "
                         f"{', '.join(bad)}.")
        return s

    def save(self, path: str | os.PathLike[str] | None = None) -> Path:
        """Write atomically (temp file + ``os.replace``); returns the path written."""
        p = Path(path) if path is not None else (self.path or settings_path(create_dir=False))
        p.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps(self.to_dict(), indent=1, sort_keys=True) + "\n"
        fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, p)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise
        self.path = p
        return p

    def save_problem(self) -> str | None:
        """Why ``save()`` would fail here (the config folder cannot be created or written), as a
        sentence for the user; None when it can save. Writes and removes a probe file."""
        p = self.path or settings_path(create_dir=False)
        try:
            p.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".probe", dir=p.parent)
            os.close(fd)
            os.unlink(tmp)
            if p.exists() and not os.access(p, os.W_OK):
                raise PermissionError(13, "Permission denied", str(p))
        except OSError as e:
            return (f"The settings cannot be saved in {p.parent} ({e.strerror or e}): the window layout, "
                    "timeout and values of this session will not be kept.")
        return None

    def to_dict(self) -> dict[str, Any]:
        d = dict(self._extra)
        for f in _stored_fields():
            d[f.name] = getattr(self, f.name)
        d["version"] = _VERSION
        return d

    def _apply(self, data: dict[str, Any]) -> list[str]:
        """Take the fields from a loaded dict; return the names of those with a wrong type."""
        bad: list[str] = []
        known = {f.name for f in _stored_fields()}
        for k, v in data.items():
            if k == "version":
                continue
            if k not in known:
                self._extra[k] = v
                continue
            ok = _CHECKS[k](v)
            if ok is _INVALID:
                bad.append(k)
            else:
                setattr(self, k, ok)
        return bad

    # -- conveniences ---------------------------------------------------------------------------
    def values_for(self, kernel: str) -> dict[str, Any]:
        """The last parameter values used with ``kernel`` (a copy; empty when none)."""
        return dict(self.values.get(kernel, {}))

    def remember(self, kernel: str, values: dict[str, Any]) -> None:
        """Record the kernel as the last one used, with its parameter values."""
        self.last_kernel = kernel
        self.values[kernel] = {str(k): _jsonable(v) for k, v in values.items()}

    #: the raw bytes of ``window_geometry`` / ``window_state`` (what Qt saves and restores)
    window_geometry_bytes = property(lambda self: _unb64(self.window_geometry),
                                     lambda self, raw: setattr(self, "window_geometry", _b64(raw)))
    window_state_bytes = property(lambda self: _unb64(self.window_state),
                                  lambda self, raw: setattr(self, "window_state", _b64(raw)))


# ---------------------------------------------------------------------------------------------

_INVALID = object()


def _stored_fields() -> list:
    return [f for f in fields(Settings) if f.name not in ("path", "warning", "_extra")]


def _b64_text(v: Any) -> Any:
    if not isinstance(v, str):
        return _INVALID
    try:
        base64.b64decode(v.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError):
        return _INVALID
    return v


def _timeout(v: Any) -> Any:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not (0 < v < 1e7):
        return _INVALID
    return float(v)


def _scalar(v: Any) -> bool:
    """A parameter value the panel can show: a number, a short text, a flag or None."""
    if v is None or isinstance(v, (bool, float)):
        return True
    if isinstance(v, int):
        return v.bit_length() <= 3000  # ~900 digits: beyond any size, and printable
    return isinstance(v, str) and len(v) <= 1000


def _values(v: Any) -> Any:
    if not isinstance(v, dict) or not all(isinstance(x, dict) for x in v.values()):
        return _INVALID
    if not all(isinstance(k, str) and _scalar(y) for x in v.values() for k, y in x.items()):
        return _INVALID
    return {str(k): dict(x) for k, x in v.items()}


def _layouts(v: Any) -> Any:
    if not isinstance(v, dict) or not all(isinstance(k, str) and _b64_text(x) is not _INVALID for k, x in v.items()):
        return _INVALID
    return dict(v)


_CHECKS = {
    "window_geometry": _b64_text,
    "window_state": _b64_text,
    "last_kernel": lambda v: v if v is None or isinstance(v, str) else _INVALID,
    "values": _values,
    "timeout_s": _timeout,
    "live": lambda v: v if isinstance(v, bool) else _INVALID,
    "backend": lambda v: v if v in BACKEND_CHOICES else _INVALID,
    "layouts": _layouts,
    "remote": lambda v: v if isinstance(v, str) and len(v) <= 300 else _INVALID,
    "remote_python": lambda v: v if isinstance(v, str) and len(v) <= 1000 else _INVALID,
    "remote_root": lambda v: v if isinstance(v, str) and len(v) <= 1000 else _INVALID,
    "virtual_gpu": lambda v: v if v == "" or v in VIRTUAL_GPUS else _INVALID,
}


def _b64(raw: bytes) -> str:
    return base64.b64encode(bytes(raw)).decode("ascii")


def _unb64(text: str) -> bytes:
    try:
        return base64.b64decode(text.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError):
        return b""


def _jsonable(v: Any) -> Any:
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    item = getattr(v, "item", None)  # numpy scalar
    if callable(item):
        try:
            return item()
        except (TypeError, ValueError):
            pass
    return str(v)


def _aside(p: Path, why: str, move: bool = False) -> str:
    """Copy a damaged settings file aside (move it, when it is too large to copy); return the
    message for the user."""
    backup = p.with_name(f"{p.name}.corrupt-{time.strftime('%Y%m%d-%H%M%S')}")
    k = 1
    while backup.exists():
        backup = p.with_name(f"{p.name}.corrupt-{time.strftime('%Y%m%d-%H%M%S')}-{k}")
        k += 1
    try:
        if move:
            os.replace(p, backup)
            kept = f"It was moved to {backup.name}."
        else:
            shutil.copy2(p, backup)
            kept = f"A copy was kept as {backup.name}."
    except OSError as e:
        kept = f"It could not be copied aside ({e})."
    return f"The settings file {p} {why}; the default settings are used. {kept}"
