"""IndexAxis: the grid view's axes — ticks only at whole indices of a map, labelled in elements
(a folded map's row by the flat index of its first element), never closer than a label needs."""

from __future__ import annotations

import math

import pyqtgraph as pg
from PySide6.QtGui import QFontMetrics

__all__ = ["IndexAxis"]


class IndexAxis(pg.AxisItem):
    """An axis of cell boundaries: only whole indices in the map get a tick (a fractional row
    has no index, nor has a negative one); on the left axis of a folded map a row is labelled
    with the flat index of its first element (``row_len`` elements per row)."""

    def __init__(self, orientation: str, row_len: int = 1, **kw):
        super().__init__(orientation, **kw)
        self.row_len = row_len
        self.extent = 1 << 62  # cells along the axis: no tick past it

    def tickValues(self, minVal, maxVal, size):  # noqa: N802 (pyqtgraph's name)
        minVal, maxVal = min(minVal, maxVal), max(minVal, maxVal)  # the axis is inverted
        lo, hi = math.ceil(max(minVal, 0)), math.floor(min(maxVal, self.extent))
        step = self._least_step(hi, size / max(maxVal - minVal, 1e-9))
        ours = [(float(step), [float(v) for v in range(-(-lo // step) * step, hi + 1, step)])]
        if hi - lo <= 8 * step:
            return ours
        levels = [(sp, [v for v in vals if 0 <= v <= self.extent])
                  for sp, vals in super().tickValues(max(minVal, 0), min(maxVal, self.extent), size) if sp >= step]
        return levels or ours

    def _least_step(self, hi: int, px_per_index: float) -> int:
        """The least step between labelled indices (1, 2, 5, 10, 20, …) whose labels do not run
        into each other: a line apart on a vertical axis (the program grid's 11 rows in 44 px
        were labelled every other row, one label over the next), a label's width across."""
        fm = QFontMetrics(self.style.get("tickFont") or self.font())
        need = fm.height() + 2 if self.orientation in ("left", "right") else \
            fm.horizontalAdvance(str(max(hi, 0) * self.row_len)) + 8
        step = 1
        while step * px_per_index < need and step < 1 << 40:
            step = step * 5 // 2 if str(step).startswith("2") else step * 2  # 1, 2, 5, 10, 20, 50, …
        return step

    def tickStrings(self, values, scale, spacing):  # noqa: N802
        return [f"{int(round(v)) * self.row_len}" for v in values]

    def fit_labels(self, widest: int) -> None:
        """Fix the width to the widest label (``widest``, before ``row_len``). Left to itself,
        pyqtgraph widens an axis while painting it to fit the labels it has just drawn, and the
        layout then moves every plot and paints the whole view again (twice, measured)."""
        text = str(max(0, widest) * self.row_len)
        font = self.style.get("tickFont") or self.font()
        w = QFontMetrics(font).horizontalAdvance(text)
        self.setWidth(w + self.style["tickTextOffset"][0] + max(0, self.style["tickLength"]) + 4)
