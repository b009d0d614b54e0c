"""EmptyPlot: what a plot shows before it has data — a short text in its middle, the range 0..1
(or 0..``span``) on both axes, and no SI prefix on the axes.

Left to itself a pyqtgraph plot with nothing in it (or with items whose data was emptied)
auto-ranges to −0.5…0.5 and labels the axes "−400 … 400 (×0.001)": a meaningless scale that
reads like data. A view calls ``set_empty(True)`` when it has nothing to draw and
``set_empty(False)`` before it draws; the plot's own settings (auto range, SI prefixes, a locked
aspect ratio) come back on the second call.
"""

from __future__ import annotations

import pyqtgraph as pg

__all__ = ["EmptyPlot"]

#: the colour of the empty-state text: readable, clearly not data
TEXT_COLOUR = "#888888"


class EmptyPlot:
    """The empty state of one ``pg.PlotItem`` (see the module doc). ``text``: already translated."""

    def __init__(self, plot: pg.PlotItem, text: str, auto_range: bool = True, span: float = 1.0) -> None:
        self._plot = plot
        self._span = span  # the empty range is 0..span on both axes
        self._auto_range = auto_range  # False: the view sets its ranges itself once it has data
        self._aspect: float | bool = False
        self._empty: bool | None = None
        self._si = {side: plot.getAxis(side).autoSIPrefix for side in ("left", "bottom")}
        self.text = pg.TextItem(text, color=TEXT_COLOUR, anchor=(0.5, 0.5))
        self.text.setZValue(20)
        plot.addItem(self.text, ignoreBounds=True)

    def is_empty(self) -> bool:
        return bool(self._empty)

    def set_text(self, text: str) -> None:
        self.text.setText(text)

    def set_empty(self, empty: bool) -> None:
        """Show the empty state, or give the plot back to its data (cheap when unchanged)."""
        if empty == self._empty:
            return
        self._empty = empty
        plot, vb = self._plot, self._plot.vb
        self.text.setVisible(empty)
        for side, si in self._si.items():
            plot.getAxis(side).enableAutoSIPrefix(si and not empty)
        if empty:
            self._aspect = vb.state["aspectLocked"]
            if self._aspect:  # a locked aspect would widen one axis past 0..1 (to below zero)
                plot.setAspectLocked(False)
            vb.disableAutoRange()
            plot.setRange(xRange=(0.0, self._span), yRange=(0.0, self._span), padding=0)
            self.text.setPos(self._span / 2, self._span / 2)
            return
        if self._aspect:
            plot.setAspectLocked(True, ratio=self._aspect)
        if self._auto_range:
            plot.enableAutoRange()
