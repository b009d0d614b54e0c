"""Where Tilescope keeps its files: data (run history), config (settings) and cache.

Each directory can be pinned with an environment variable — ``TILESCOPE_DATA_DIR``,
``TILESCOPE_CONFIG_DIR``, ``TILESCOPE_CACHE_DIR`` — which tests use to keep away from the user's
real files. Otherwise the XDG base directories are used on Linux (``~/.local/share/tilescope``,
``~/.config/tilescope``, ``~/.cache/tilescope``), and the platform's usual places elsewhere.

Pure standard library: the GUI process, the worker and the CLI all import it.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

__all__ = ["APP_NAME", "cache_dir", "config_dir", "data_dir", "history_path", "settings_path"]

APP_NAME = "tilescope"


def _base(env_var: str, xdg_var: str, xdg_default: str, mac: str, win_var: str) -> Path:
    pinned = os.environ.get(env_var)
    if pinned:
        return Path(pinned).expanduser()
    if sys.platform == "win32":
        root = os.environ.get(win_var) or str(Path.home() / "AppData" / "Local")
        return Path(root) / APP_NAME
    if sys.platform == "darwin":
        return Path.home() / "Library" / mac / APP_NAME
    # XDG says: use the variable only if it holds an absolute path
    xdg = os.environ.get(xdg_var, "")
    root = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / xdg_default
    return root / APP_NAME


def _ensure(p: Path, create: bool) -> Path:
    if create:
        p.mkdir(parents=True, exist_ok=True)
    return p


def data_dir(create: bool = True) -> Path:
    """Run history lives here (``TILESCOPE_DATA_DIR`` or ``$XDG_DATA_HOME/tilescope``)."""
    return _ensure(_base("TILESCOPE_DATA_DIR", "XDG_DATA_HOME", ".local/share", "Application Support",
                         "LOCALAPPDATA"), create)


def config_dir(create: bool = True) -> Path:
    """Settings live here (``TILESCOPE_CONFIG_DIR`` or ``$XDG_CONFIG_HOME/tilescope``)."""
    return _ensure(_base("TILESCOPE_CONFIG_DIR", "XDG_CONFIG_HOME", ".config", "Preferences", "APPDATA"),
                   create)


def cache_dir(create: bool = True) -> Path:
    """Disposable files (``TILESCOPE_CACHE_DIR`` or ``$XDG_CACHE_HOME/tilescope``)."""
    return _ensure(_base("TILESCOPE_CACHE_DIR", "XDG_CACHE_HOME", ".cache", "Caches", "LOCALAPPDATA"),
                   create)


def history_path(create_dir: bool = True) -> Path:
    return data_dir(create_dir) / "history.db"


def settings_path(create_dir: bool = True) -> Path:
    return config_dir(create_dir) / "settings.json"
