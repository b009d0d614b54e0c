"""The grid view's colours: the lookup tables of each colour mode, the overlay tints, the legend.

The slots themselves (which uint8 value means what) are defined Qt-free in ``prepare``; this
module gives them colours, with pyqtgraph's colour maps for the sequential modes.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QColor

from views import theme

from ..i18n import translate
from .prepare import (
    ACCUMULATED,
    DIM,
    DONE,
    FIRST,
    LIT_LOAD,
    LIT_STORE,
    LIT_TARGET,
    MULTI_WRITE,
    N_CATEGORICAL,
    N_SEQ,
    NOT_RECORDED,
    PAD,
    PALE,
    SHARED_READ,
    UNTOUCHED,
    WRITTEN_ONLY,
)

__all__ = ["CATEGORICAL", "OVERLAY_LUT", "auto_words", "legend_html", "lut_colour", "mode_lut"]

SPECIAL = {
    PAD: "#d9d9d9",  # no element: the fold's padding past the end of a 1-D tensor, a wrap's gap
    UNTOUCHED: theme.MASKED,  # never loaded nor stored (masked lanes land here)
    MULTI_WRITE: "#e0201b",  # stored by several programs: a race unless they agree
    SHARED_READ: "#56616d",  # loaded by several programs (when no first reader has a colour)
    NOT_RECORDED: "#6e6e6e",  # program outside the recorded window
    ACCUMULATED: "#0f7b6c",  # updated by atomics of several programs: no conflict
    WRITTEN_ONLY: "#ece6da",  # colour by readers: written, never read
}
# 20 categorical colours: tab20 without its reds and greys (red means "several writers", grey
# "untouched"), and four darker ones; the greedy colouring keeps neighbours apart.
CATEGORICAL = ["#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#bcbd22", "#17becf", "#e377c2", "#8c564b",
               "#aec7e8", "#ffbb78", "#98df8a", "#c5b0d5", "#dbdb8d", "#9edae5", "#f7b6d2", "#c49c94",
               "#393b79", "#637939", "#8c6d31", "#7b4173"]
assert len(CATEGORICAL) == N_CATEGORICAL
SEQUENTIAL = {"dispatch": "viridis", "readers": "cividis", "masked": "plasma"}

# Overlay slots (RGBA): unlit elements are faded, lit ones tinted by what the selection did; the
# tile a loop step works towards (stored after the loop) a paler store tint.
TINT = {LIT_LOAD: "#1565c0", LIT_STORE: "#f57c00", LIT_LOAD | LIT_STORE: "#8e24aa"}
TARGET_TINT = "#f5b041"


def _rgba(hex_colour: str, alpha: int = 255) -> tuple[int, int, int, int]:
    c = QColor(hex_colour)
    return c.red(), c.green(), c.blue(), alpha


def _overlay_lut() -> np.ndarray:
    lut = np.zeros((256, 4), np.uint8)
    lut[DIM] = (255, 255, 255, 190)
    lut[DONE] = (255, 255, 255, 105)
    lut[LIT_TARGET] = _rgba(TARGET_TINT, 230)
    for k, hex_colour in TINT.items():
        lut[k] = _rgba(hex_colour, 215)
        lut[k | LIT_TARGET] = lut[k]
    return lut


OVERLAY_LUT = _overlay_lut()


def mode_lut(mode: str) -> np.ndarray:
    """uint8 [256, 4]: the colour of every slot in colour mode ``mode`` (and the pale twins of
    the mode's colours, for elements read by several programs)."""
    lut = np.zeros((256, 4), np.uint8)
    for slot, hex_colour in SPECIAL.items():
        lut[slot] = _rgba(hex_colour)
    if mode in ("program", "wave", "auto"):  # "auto" before a trace: the program colours
        colours = np.array([_rgba(h) for h in CATEGORICAL], np.uint8)
    else:
        cmap = pg.colormap.get(SEQUENTIAL.get(mode, "plasma"))
        colours = cmap.getLookupTable(0.0, 1.0, N_SEQ, alpha=True)
    lut[FIRST: FIRST + len(colours)] = colours
    pale = colours.astype(np.float64)
    pale[:, :3] = pale[:, :3] * 0.45 + 255 * 0.55  # mixed with white
    lut[FIRST + PALE: FIRST + PALE + len(colours)] = np.rint(pale).astype(np.uint8)
    return lut


def lut_colour(lut: np.ndarray, slot: int) -> QColor:
    r, g, b, a = (int(v) for v in lut[int(slot)])
    return QColor(r, g, b, a)


def _swatch(hex_colour: str) -> str:
    return f"<span style='background-color:{hex_colour}; color:{hex_colour}'>&nbsp;■■&nbsp;</span>"


def _ramp(name: str) -> tuple[str, str]:
    cm = pg.colormap.get(name)
    return _swatch(cm.map(0.0, "qcolor").name()), _swatch(cm.map(1.0, "qcolor").name())


def auto_words(reason: str, n_programs: int) -> str:
    """Why "automatic" colours by launch order (``prepare.auto_reason``), for the legend."""
    if reason == "cells":
        return translate("GridView", "chosen automatically: a drawn cell holds several elements, where one "
                                     "colour per program would alias")
    if reason == "programs":
        return translate("GridView", "chosen automatically: {n} programs are too many for a colour each"
                         ).format(n=f"{n_programs:,}")
    return ""


def legend_html(mode: str, windowed: bool, present: set[int] | None = None, loops: bool = True,
                auto: str | None = None, by_last: bool = False) -> str:
    """What the colours mean in mode ``mode`` (and "not recorded" for a windowed trace).
    ``present``: the slots the maps use (None: all), so that a small view is not filled with
    the meaning of colours it does not show; ``loops``: the kernel has a loop to step; ``auto``:
    why the automatic mode chose ``mode`` (words of ``auto_words``), None when chosen by hand;
    ``by_last``: shared reads take their last reader's colour (a GPU trace), not the first's."""
    sw = _swatch

    def has(*slots: int) -> bool:
        return present is None or any(x in present for x in slots)

    pale_used = present is None or any(x >= FIRST + PALE for x in present)
    if mode in ("program", "auto"):
        colour = translate("GridView", "tile colour = the program that stored the element (else the one that "
                                       "loaded it)")
    elif mode == "dispatch":
        lo, hi = _ramp("viridis")
        colour = translate("GridView", "colour = dispatch order: first program {lo} → last {hi}").format(lo=lo, hi=hi)
    elif mode == "wave":
        colour = translate("GridView", "colour = the wave a program runs in (programs ÷ (SMs × programs per SM))")
    elif mode == "readers":
        lo, hi = _ramp("cividis")
        colour = translate("GridView", "colour = how many programs read the element: 1 {lo} → most {hi} "
                                       "(a program: the average over what it loads)").format(lo=lo, hi=hi)
    else:
        lo, hi = _ramp("plasma")
        colour = translate("GridView", "colour = fraction of the program's lanes masked off: 0% {lo} → 100% {hi}"
                           ).format(lo=lo, hi=hi)
    parts = [colour + (f" ({auto})" if auto else "")]
    for slot, words in ((UNTOUCHED, translate("GridView", "untouched")),
                        (PAD, translate("GridView", "no element (padding)")),
                        (MULTI_WRITE, translate("GridView", "written by several programs")),
                        (ACCUMULATED, translate("GridView", "atomics of several programs")),
                        (WRITTEN_ONLY, translate("GridView", "written, never read"))):
        if has(slot) and (slot != WRITTEN_ONLY or mode == "readers"):
            parts.append(f"{sw(SPECIAL[slot])} {words}")
    if mode != "readers" and (pale_used or has(SHARED_READ)):
        pale = "#" + "".join(f"{int(v):02x}" for v in mode_lut(mode)[FIRST + PALE][:3])
        if by_last:
            parts.append(translate("GridView", "{swatch} pale: read by several programs (the colour of the last "
                                               "to read it)").format(swatch=sw(pale)))
        else:
            parts.append(translate("GridView", "{swatch} pale: read by several programs (its first reader's colour; "
                                               "label ×readers first–last)").format(swatch=sw(pale)))
    hover = translate("GridView", "hover: {load} loaded {store} stored {both} both / atomic").format(
        load=sw(TINT[LIT_LOAD]), store=sw(TINT[LIT_STORE]), both=sw(TINT[LIT_LOAD | LIT_STORE]))
    if loops:
        hover += " " + translate("GridView", "{target} stored after the loop step").format(target=sw(TARGET_TINT))
    parts.append(hover)
    if windowed:
        parts.append(f"{sw(SPECIAL[NOT_RECORDED])} " + translate("GridView", "not recorded"))
    return " &nbsp;·&nbsp; ".join(parts)
