"""The grid view's drawing surface: one pyqtgraph layout holding the program grid and a tile map
per tensor, each an ``ImageItem`` of lookup-table slots with an overlay and a cell marker.

The plots are made once and reused by every later trace (a new PlotItem costs ~20 ms of GUI
time, reconfiguring one well under 1 ms); ``layout`` readies them for a new trace in steps.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QCoreApplication, QEvent, QPoint, QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFontMetrics, QPen
from PySide6.QtWidgets import QGraphicsRectItem

from views import theme

from .lighting import Target, pid_at
from .palette import OVERLAY_LUT
from .prepare import PAD, PreparedTrace, is_strip
from .text import grid_title, panel_title

__all__ = ["GridCanvas", "PlotSlot"]


class _IndexAxis(pg.AxisItem):
    """An axis of cell boundaries: only whole indices get a tick (a fractional row has no index);
    on the left axis of a folded map a row is labelled with the flat index of its first element
    (``row_len`` elements per row)."""

    def __init__(self, orientation: str, row_len: int = 1, **kw):
        super().__init__(orientation, **kw)
        self.row_len = row_len

    def tickValues(self, minVal, maxVal, size):  # noqa: N802 (pyqtgraph's name)
        minVal, maxVal = min(minVal, maxVal), max(minVal, maxVal)  # the axis is inverted
        lo, hi = math.ceil(max(minVal, 0)), math.floor(maxVal)
        if hi - lo <= 8:
            return [(1.0, [float(v) for v in range(lo, hi + 1)])]
        return [(sp, vals) for sp, vals in super().tickValues(minVal, maxVal, size) if sp >= 1]

    def tickStrings(self, values, scale, spacing):  # noqa: N802
        return [f"{int(round(v)) * self.row_len}" for v in values]

    def fit_labels(self, rows: int) -> None:
        """Fix the width to the widest label ``rows`` rows can get. Left to itself, pyqtgraph
        widens an axis while painting it to fit the labels it has just drawn, and the layout
        then moves every plot and paints the whole view again (twice, measured)."""
        widest = str(max(0, rows - 1) * self.row_len)
        font = self.style.get("tickFont") or self.font()
        w = QFontMetrics(font).horizontalAdvance(widest)
        self.setWidth(w + self.style["tickTextOffset"][0] + max(0, self.style["tickLength"]) + 4)


class PlotSlot:
    """One pyqtgraph plot with an image, an overlay and a cell marker, made once and reused by
    every later trace; ``configure`` readies it for a new map."""

    def __init__(self) -> None:
        self.left = _IndexAxis("left")
        self.top = _IndexAxis("top")
        # no context menu: the view box's menu alone costs a quarter of a new plot's build time
        self.plot = pg.PlotItem(viewBox=pg.ViewBox(enableMenu=False),
                                axisItems={"left": self.left, "top": self.top})
        plot = self.plot
        plot.showAxis("top")
        plot.hideAxis("bottom")
        plot.hideButtons()
        plot.setMenuEnabled(False)
        plot.invertY(True)
        for axis in (self.left, self.top):
            # no sub-minor ticks: they cost more than half of an axis's paint (1.8 -> 0.8 ms for
            # a 1024-row map, measured), and a map of indices has no use for them
            axis.setStyle(tickLength=-4, maxTickLevel=1)
        self.image = pg.ImageItem(axisOrder="row-major")
        self.overlay = pg.ImageItem(axisOrder="row-major")
        self.overlay.setZValue(5)
        self.marker = QGraphicsRectItem(0, 0, 1, 1)
        pen = QPen(QColor("#000000"))
        pen.setWidthF(2.0)
        pen.setCosmetic(True)
        self.marker.setPen(pen)
        self.marker.setZValue(10)
        self.marker.hide()
        for item in (self.image, self.overlay, self.marker):
            plot.addItem(item)
        self.scatter: pg.ScatterPlotItem | None = None  # the program grid's OOB marks
        self._sizes = (plot.minimumHeight(), plot.preferredHeight(), plot.maximumHeight(),
                       plot.minimumWidth())

    def configure(self, title: str, row_len: int, lock: bool, rows: int) -> None:
        plot = self.plot
        plot.setTitle(title)
        self.left.row_len = row_len
        for axis in (self.left, self.top):
            axis.setTicks(None)  # also drops the cached tick picture (row_len may have changed)
        self.left.fit_labels(rows)
        plot.showAxis("left")
        plot.setAspectLocked(lock)
        lo, pref, hi, min_w = self._sizes
        plot.setMinimumHeight(lo)
        plot.setPreferredHeight(pref)
        plot.setMaximumHeight(hi)
        plot.setMinimumWidth(min_w)
        self.overlay.hide()
        self.marker.hide()

    def show_overlay(self, image: np.ndarray | None) -> None:
        """Draw overlay slots ``image`` over the map (None: no overlay)."""
        if image is None:
            self.overlay.hide()
            return
        self.overlay.setImage(image, levels=(0, 255), lut=OVERLAY_LUT, autoLevels=False)
        self.overlay.show()

    def show_marker(self, row: int | None, col: int = 0, width: float | None = None) -> None:
        """Outline cell (row, col) (None: no marker); ``width``: the pen's, if it changes."""
        if row is None:
            self.marker.hide()
            return
        self.marker.setRect(QRectF(col, row, 1, 1))
        if width is not None:
            pen = self.marker.pen()
            pen.setWidthF(width)
            self.marker.setPen(pen)
        self.marker.show()


def _fix_height(item: pg.GraphicsWidget, h: int) -> None:
    item.setMinimumHeight(h)
    item.setPreferredHeight(h)
    item.setMaximumHeight(h)


class GridCanvas:
    """The ``pg.GraphicsLayoutWidget`` of a grid view and its reusable plots: ``prog`` (the
    program grid) and ``slots`` (tile maps; slot i draws panel i of the trace laid out)."""

    def __init__(self) -> None:
        self.glw = pg.GraphicsLayoutWidget()
        self.glw.setMinimumSize(420, 320)
        self.prog: PlotSlot | None = None
        self.slots: list[PlotSlot] = []
        self._label_pool: list[pg.TextItem] = []  # pid labels inside small grids' cells
        self._cell_labels: list[pg.TextItem] = []
        self._placed: list[tuple] = []  # the plots in the layout: (plot, row, col, colspan)

    # ------------------------------------------------------------------ the plot pool
    def make_slot(self) -> None:
        """Make one more reusable plot: the program grid's first (it also holds the OOB marks)."""
        slot = PlotSlot()
        if self.prog is None:
            scatter = pg.ScatterPlotItem(symbol="x", size=11, pen=pg.mkPen(theme.FAIL, width=2),
                                         brush=pg.mkBrush(theme.FAIL))
            scatter.setZValue(20)
            slot.plot.addItem(scatter)
            slot.scatter = scatter
            self.prog = slot
        else:
            self.slots.append(slot)

    def n_plots(self) -> int:
        return len(self.slots) + (self.prog is not None)

    def _cell_label(self, i: int) -> pg.TextItem:
        while len(self._label_pool) <= i:
            label = pg.TextItem(anchor=(0.5, 0.5))
            label.setZValue(8)
            self._label_pool.append(label)
        return self._label_pool[i]

    # ------------------------------------------------------------------ layout
    def _layout_program_grid(self, prep: PreparedTrace, ncols: int) -> None:
        small = prep.grows <= 3  # a short grid: stretched cells, its row only as tall as needed
        labelled = prep.grows * prep.gw <= 64  # few cells: write each pid inside its cell
        ps = self.prog
        ps.configure(grid_title(prep), prep.gw if prep.folded_grid and not small else 1, lock=not small,
                     rows=prep.grows)
        plot = ps.plot
        for label in self._cell_labels:
            plot.removeItem(label)
        self._cell_labels = []
        if prep.gw <= 32:  # a tick per cell, centred, labelled with x (or pid along a fold)
            plot.getAxis("top").setTicks([[(c + 0.5, str(c)) for c in range(prep.gw)]])
        if not prep.folded_grid and prep.grows <= 32:
            plot.getAxis("left").setTicks([[(r + 0.5, str(r)) for r in range(prep.grows)]])
        elif prep.folded_grid and prep.grows == 1:
            plot.hideAxis("left")
        if labelled:
            for r in range(prep.grows):
                for c in range(prep.gw):
                    label = self._cell_label(len(self._cell_labels))
                    label.setPos(c + 0.5, r + 0.5)
                    plot.addItem(label)
                    self._cell_labels.append(label)
        if small:
            _fix_height(plot, 62 + 44 * prep.grows)
            plot.setRange(xRange=(0, prep.gw), yRange=(0, prep.grows), padding=0.02)
        else:
            plot.setMinimumHeight(220)
            plot.setPreferredHeight(360)
            plot.setMaximumHeight(420)
            # the range the image will need, set now: left to auto-ranging, it is found during
            # the first paint, which then paints everything a second time
            plot.setRange(xRange=(0, prep.gw), yRange=(0, prep.grows))

    def layout(self, prep: PreparedTrace) -> Iterator[None]:
        """Title, size and range every plot for ``prep`` and lay them out; yields between plots
        (a few ms each; all of it at once was 20–50 ms for a first trace)."""
        blocks = [p for p in prep.panels if not is_strip(p)]
        ncols = max(1, min(3, len(blocks)))
        self._layout_program_grid(prep, ncols)
        placed: list[tuple[pg.PlotItem, int, int, int]] = [(self.prog.plot, 0, 0, ncols)]
        row, col = 1, 0
        for p, slot in zip(prep.panels, self.slots, strict=False):
            yield
            strip = is_strip(p)
            slot.configure(panel_title(p, theme.FAIL), p.cols if p.folded else 1, lock=not strip, rows=p.rows)
            plot = slot.plot
            if strip:
                # a short vector is a full-width strip, as tall as its rows need; squeezable to
                # 10 px a row before the view scrolls
                plot.setMinimumHeight(62 + min(10 * p.rows, 60))
                plot.setPreferredHeight(62 + 24 * p.rows)
                plot.setMaximumHeight(62 + 24 * p.rows)
                plot.setRange(xRange=(0, p.cols), yRange=(0, p.rows), padding=0.01)
                if col:
                    row, col = row + 1, 0
                placed.append((plot, row, 0, ncols))
                row += 1
                continue
            plot.setMinimumHeight(200)
            plot.setRange(xRange=(0, p.cols), yRange=(0, p.rows))
            # never narrower than its title (a title is not wrapped: it would be cut off), nor
            # than 160 px (too small to hover an element)
            plot.setMinimumWidth(max(160, int(plot.titleLabel.item.boundingRect().width()) + 12))
            placed.append((plot, row, col, 1))
            col += 1
            if col >= ncols:
                row, col = row + 1, 0
        if placed != self._placed:
            # (re)filling the layout costs a few ms per plot (pyqtgraph activates the layout on
            # every add): a trace laid out like the last one keeps the plots where they are
            yield
            self._placed = []  # a step stopped half-way must not pass for this layout
            self.glw.clear()
            for plot, r, c, span in placed:
                self.glw.addItem(plot, row=r, col=c, colspan=span)
            self._placed = placed
        need = self.glw.ci.effectiveSizeHint(Qt.SizeHint.MinimumSize)
        self.glw.setMinimumHeight(max(320, int(need.height()) + 8))
        self.glw.setMinimumWidth(max(420, int(need.width()) + 8))

    # ------------------------------------------------------------------ images
    def draw_program_grid(self, prep: PreparedTrace, pids: np.ndarray, lut: np.ndarray) -> None:
        """The cells of program ids ``pids`` [rows, cols] (-1: padding), their pid labels, and a
        red × on the programs with out-of-bounds lanes."""
        slots = np.where(pids >= 0, prep.prog_slots[np.maximum(pids, 0)], PAD).astype(np.uint8)
        self.prog.image.setImage(slots, levels=(0, 255), lut=lut, autoLevels=False)
        for label, pid, slot in zip(self._cell_labels, pids.reshape(-1), slots.reshape(-1), strict=False):
            # black on light cells, white on dark ones (Rec. 601 luma)
            r, g, b, _ = (int(v) for v in lut[slot])
            label.setText(str(int(pid)) if pid >= 0 else "")
            label.setColor("#000000" if 0.299 * r + 0.587 * g + 0.114 * b > 140 else "#ffffff")
        trace = prep.trace
        bad = np.nonzero(np.asarray(trace.stats.n_oob) > 0)[0]
        bad_pids = np.asarray(trace.programs)[bad]
        on = pids.reshape(-1)
        idx = np.nonzero(np.isin(on, bad_pids) & (on >= 0))[0]
        self.prog.scatter.setData(x=idx % prep.gw + 0.5, y=idx // prep.gw + 0.5)

    def draw_maps(self, images: list[np.ndarray], lut: np.ndarray) -> None:
        for slot, img in zip(self.slots, images, strict=False):
            slot.image.setImage(img, levels=(0, 255), lut=lut, autoLevels=False)

    # ------------------------------------------------------------------ mouse geometry
    def view_point(self, item: pg.ImageItem, x: float, y: float) -> QPoint:
        """Image point (x, y) of ``item`` in ``glw`` coordinates."""
        # settle now what the next paint would (pending layout requests, the view box's range
        # and transform), so the point is where the mouse will find the cell even when asked
        # right after a trace was applied, before its first paint
        QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
        vb = item.getViewBox()
        if isinstance(vb, pg.ViewBox):
            vb.prepareForPaint()
        scene = item.mapToScene(QPointF(x, y))
        return self.glw.mapFromScene(scene)

    def hit(self, prep: PreparedTrace, z: int, scene_pos: QPointF) -> Target | None:
        """The program or element under scene point ``scene_pos``."""
        if self.prog.plot.vb.sceneBoundingRect().contains(scene_pos):
            pt = self.prog.image.mapFromScene(scene_pos)
            pid = pid_at(prep, z, math.floor(pt.y()), math.floor(pt.x()))
            return ("program", pid) if pid is not None else None
        for p, slot in zip(prep.panels, self.slots, strict=False):
            if slot.plot.vb.sceneBoundingRect().contains(scene_pos):
                pt = slot.image.mapFromScene(scene_pos)
                r, c = math.floor(pt.y()), math.floor(pt.x())
                if 0 <= r < p.rows and 0 <= c < p.cols and r * p.cols + c < p.numel:
                    return ("element", p.index, r * p.cols + c)
                return None
        return None
