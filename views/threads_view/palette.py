"""Warp colours of the Threads view, Qt-free: a distinct colour per warp (16, cycled past that),
odd lanes a lighter shade of their warp's colour so that neighbouring threads stay apart, and a
text colour readable on each."""

from __future__ import annotations

import numpy as np

__all__ = ["WARP_COLOURS", "warp_colour", "cell_rgba", "text_dark", "PAD_RGBA"]

# Tableau 10 (Okabe–Ito-like contrast between neighbours) then six darker ones for 16 warps.
WARP_COLOURS = ("#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#b07aa1", "#edc948", "#76b7b2", "#ff9da7",
                "#9c755f", "#bab0ac", "#2f4b7c", "#a05195", "#665191", "#d45087", "#1b7837", "#8c510a")
PAD_RGBA = (236, 236, 236, 255)  # no element there
LIGHTEN = 0.28  # odd lanes: this much of the way to white


def _rgb(hex_colour: str) -> tuple[int, int, int]:
    h = hex_colour.lstrip("#")
    return int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16)


_BASE = np.array([_rgb(c) for c in WARP_COLOURS], np.float64)


def warp_colour(warp: int) -> str:
    """The colour of warp ``warp`` (cycled past 16 warps)."""
    return WARP_COLOURS[warp % len(WARP_COLOURS)]


MASKED_TOWARDS = (236.0, 236.0, 236.0)  # a masked-off element: its colour mostly faded to this
MASKED_KEEP = 0.3  # ... keeping this much of it


def cell_rgba(warp: np.ndarray, lane: np.ndarray, masked: np.ndarray | None = None) -> np.ndarray:
    """uint8 [rows, cols, 4]: each cell its warp's colour, odd lanes lighter, masked-off elements
    faded; -1 (no element) pale grey."""
    w = np.asarray(warp)
    base = _BASE[np.where(w >= 0, w, 0) % len(WARP_COLOURS)]
    odd = (np.asarray(lane) % 2 == 1)[..., None]
    rgb = np.where(odd, base + (255.0 - base) * LIGHTEN, base)
    if masked is not None:
        rgb = np.where(np.asarray(masked)[..., None], rgb * MASKED_KEEP + np.array(MASKED_TOWARDS) * (1 - MASKED_KEEP),
                       rgb)
    out = np.empty(w.shape + (4,), np.uint8)
    out[..., :3] = np.rint(rgb).astype(np.uint8)
    out[..., 3] = 255
    out[w < 0] = PAD_RGBA
    return out


def text_dark(warp: int, lane: int) -> bool:
    """Whether dark text reads better than white on the cell of (warp, lane)."""
    rgb = cell_rgba(np.array([[warp]]), np.array([[lane]]))[0, 0, :3].astype(float)
    return 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2] > 150
