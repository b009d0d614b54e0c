"""Static files shipped with Tilescope: SVG icons (``icons/``) and, later, themes and lesson texts.

Only paths live here (no Qt), so any layer may ask where a resource is.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["RESOURCES_DIR", "icon_path"]

RESOURCES_DIR: Path = Path(__file__).resolve().parent


def icon_path(name: str) -> Path:
    """Path of the SVG icon ``name`` (without extension), e.g. ``icon_path("reload")``."""
    return RESOURCES_DIR / "icons" / f"{name}.svg"
