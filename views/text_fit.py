"""Text that fits a plot's width. pyqtgraph never wraps or shortens a plot's title or a line's
label: in the Throughput tab of a 1366×768 window (341 px wide) the title lost its end and the
peak line's label its data-sheet figure. Here a title takes the first of its wordings that fits,
else the shortest one elided; a label's lines are elided one by one."""

from __future__ import annotations

from collections.abc import Sequence

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QFontMetricsF

__all__ = ["elided", "lines_width", "set_title_within"]

ELLIPSIS = "…"


def lines_width(text: str, font: QFont) -> float:
    """Pixel width of the widest line of plain ``text`` in ``font``."""
    fm = QFontMetricsF(font)
    return max((fm.horizontalAdvance(line) for line in text.split("\n")), default=0.0)


def elided(text: str, font: QFont, width: float) -> str:
    """``text`` (one line) cut at the right with "…" so that it is at most ``width`` px wide."""
    return QFontMetricsF(font).elidedText(text, Qt.TextElideMode.ElideRight, max(0.0, width))


def _title_width(pi: pg.PlotItem) -> float:
    item = pi.titleLabel.item
    return item.boundingRect().width() - 2 * item.document().documentMargin()


def set_title_within(pi: pg.PlotItem, wordings: Sequence[str], width: float) -> str:
    """Give ``pi`` the first of ``wordings`` (plain text, longest first) whose title is at most
    ``width`` px wide, else the last one cut with "…" to fit; returns the text set. (The title
    is rich text in the label's own size: measured as drawn, not from a font's metrics.)"""
    for text in wordings:
        pi.setTitle(text)
        if _title_width(pi) <= width:
            return text
    last = wordings[-1]
    lo, hi = 0, len(last)  # the most characters that fit before the "…"
    while lo < hi:
        mid = (lo + hi + 1) // 2
        pi.setTitle(last[:mid].rstrip() + ELLIPSIS)
        if _title_width(pi) <= width:
            lo = mid
        else:
            hi = mid - 1
    text = last[:lo].rstrip() + ELLIPSIS
    pi.setTitle(text)
    return text
