"""The grid view's drawing surface: one pyqtgraph layout holding the program grid and a tile map
per tensor, each an ``ImageItem`` of lookup-table slots with an overlay, a cell marker and labels.

The plots are made once and reused by every later trace (a new PlotItem costs ~20 ms of GUI
time, reconfiguring one well under 1 ms). ``layout`` gives every plot its height from the size
of the view (the program grid a band on top, 1-D maps full width one under the other, 2-D maps
side by side); ``fit`` then folds the grid and every map to fill the panel it got (see
``fold``). Each map keeps pyqtgraph's zoom and pan (wheel, drag, right-drag, the "A" button)
inside its own extent — never past an edge, so no axis shows a negative index — and maps drawn
alike (a vector add's x, y and out) zoom together. Labels (pids, reader counts) are placed
wherever their tile is large enough on screen, again after every zoom.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np
import pyqtgraph as pg
import shiboken6
from PySide6.QtCore import QCoreApplication, QEvent, QPoint, QPointF, QRectF, Qt, QTimer
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPen
from PySide6.QtWidgets import QGraphicsRectItem

from views import theme

from .fold import FOLD, WRAP_COLS, WRAP_ROWS, MapFold, fit_grid
from .index_axis import IndexAxis
from .lighting import Target, pid_at
from .palette import OVERLAY_LUT, TINT
from .prepare import AUTO_MAX_PROGRAMS, CLEAR, DIM, DONE, LIT_LOAD, LIT_STORE, PAD, PreparedTrace, is_strip
from .regions import label_boxes, pick_labels
from .text import grid_title, panel_title

__all__ = ["GridCanvas", "PlotSlot"]

GRID_CELL_MAX = 48  # px: program cells no taller than this
MAP_MIN_1D, MAP_MIN_2D = 96, 190  # px: the least height of a map before the view scrolls
MAP_TIGHT_2D, MAP_TIGHT_1D = 128, 72  # px: ... of a row of 2-D, 1-D maps when they would not all fit otherwise
LABEL_LIMIT = 300  # labels per plot at most
LIT_FRAME_BELOW_PX = 4  # px: lit elements thinner than this on screen get a frame


class PlotSlot:
    """One pyqtgraph plot with an image, an overlay, a cell marker and a pool of labels, made
    once and reused by every later trace; ``configure`` readies it for a new map."""

    def __init__(self, label_font: QFont) -> None:
        self.left = IndexAxis("left")
        self.top = IndexAxis("top")
        # no context menu: the view box's menu alone costs a quarter of a new plot's build time
        self.vb = pg.ViewBox(enableMenu=False)
        self.vb.setDefaultPadding(0.0)
        self.plot = pg.PlotItem(viewBox=self.vb, axisItems={"left": self.left, "top": self.top})
        plot = self.plot
        plot.showAxis("top")
        plot.hideAxis("bottom")
        plot.setMenuEnabled(False)
        plot.invertY(True)
        for axis in (self.left, self.top):
            # no sub-minor ticks: they cost more than half of an axis's paint (1.8 -> 0.8 ms for
            # a 1024-row map, measured), and a map of indices has no use for them
            axis.setStyle(tickLength=-4, maxTickLevel=1, autoExpandTextSpace=False)
            axis.enableAutoSIPrefix(False)
        self.image = pg.ImageItem(axisOrder="row-major")
        self.overlay = pg.ImageItem(axisOrder="row-major")
        self.overlay.setZValue(5)
        self.detail = pg.ImageItem(axisOrder="row-major")  # a region at full resolution (detail.Detail)
        self.detail.setZValue(2)
        self.detail.hide()
        self.marker = QGraphicsRectItem(0, 0, 1, 1)
        pen = QPen(QColor("#000000"))
        pen.setWidthF(2.0)
        pen.setCosmetic(True)
        self.marker.setPen(pen)
        self.marker.setZValue(10)
        self.marker.hide()
        self.lit_box = QGraphicsRectItem(0, 0, 1, 1)  # around thin lit elements (_outline_lit)
        pen = QPen(QColor(TINT[LIT_STORE]))
        pen.setWidthF(2.0)
        pen.setCosmetic(True)
        self.lit_box.setPen(pen)
        self.lit_box.setZValue(9)
        self.lit_box.hide()
        plot.addItem(self.image)
        for item in (self.overlay, self.detail, self.marker, self.lit_box):
            plot.addItem(item, ignoreBounds=True)
        self.scatter: pg.ScatterPlotItem | None = None  # the program grid's OOB marks
        self.labels: list[pg.TextItem] = []
        self.label_font = label_font
        self.n_labels = 0
        self._label_cells = (np.zeros(0, np.int64), np.zeros(0, np.int64))  # (rows, cols) under the labels
        self._label_dark = np.zeros(0, bool)  # the colour under each label is dark (no overlay)
        self._label_white = np.zeros(0, bool)  # each label is drawn white now
        self._overlay: np.ndarray | None = None
        self._label_extent = (0, 0)
        self.extent = (1, 1)  # (rows, cols) of the image drawn

    def configure(self, title: str, row_len: int, rows: int, cols: int) -> None:
        self.plot.setTitle(title)
        self.left.row_len = row_len
        self.top.row_len = 1
        for axis in (self.left, self.top):
            axis.setTicks(None)  # also drops the cached tick picture (row_len may have changed)
        self.left.fit_labels(rows - 1)
        self.plot.showAxis("left")
        self.plot.setAspectLocked(False)
        self.set_extent(rows, cols)
        self.overlay.hide()
        self.detail.hide()
        self.marker.hide()

    def set_extent(self, rows: int, cols: int) -> None:
        """The image is rows × cols cells: the view may zoom into it and pan across it, never
        out past its edges; the whole of it is shown (pyqtgraph's auto-range, so its "A"
        button brings it back after a zoom)."""
        rows, cols = max(1, int(rows)), max(1, int(cols))
        self.extent = (rows, cols)
        self.left.extent, self.top.extent = rows, cols
        self.vb.setLimits(xMin=0, xMax=cols, yMin=0, yMax=rows, maxXRange=cols, maxYRange=rows,
                          minXRange=min(cols, 1.0), minYRange=min(rows, 1.0))
        self.vb.setRange(xRange=(0, cols), yRange=(0, rows), padding=0, disableAutoRange=False)
        self.vb.enableAutoRange()

    def show_overlay(self, image: np.ndarray | None) -> None:
        """Draw overlay slots ``image`` over the map (None: no overlay)."""
        self._overlay = image
        if image is None:
            self.overlay.hide()
        else:
            self.overlay.setImage(image, levels=(0, 255), lut=OVERLAY_LUT, autoLevels=False)
            self.overlay.show()
        self._outline_lit(image)
        self._colour_labels()

    def _outline_lit(self, image: np.ndarray | None) -> None:
        """A frame in the lit elements' tint around them when they are thinner on screen than
        a few pixels (softmax's one row among 1823 is a fraction of a pixel: unseen without)."""
        lit = None if image is None else (image != DIM) & (image != CLEAR) & (image != DONE)
        if lit is None or not lit.any():
            self.lit_box.hide()
            return
        rows, cols = np.flatnonzero(lit.any(axis=1)), np.flatnonzero(lit.any(axis=0))
        y0, y1, x0, x1 = int(rows[0]), int(rows[-1]) + 1, int(cols[0]), int(cols[-1]) + 1
        sx, sy = self.px_per_cell()
        if min((x1 - x0) * sx, (y1 - y0) * sy) >= LIT_FRAME_BELOW_PX:
            self.lit_box.hide()
            return
        bits = int(np.bitwise_or.reduce(image[lit] & (LIT_LOAD | LIT_STORE)))
        pen = self.lit_box.pen()
        pen.setColor(QColor(TINT.get(bits, TINT[LIT_LOAD])))
        self.lit_box.setPen(pen)
        self.lit_box.setRect(QRectF(x0, y0, x1 - x0, y1 - y0))
        self.lit_box.show()

    def show_detail(self, image: np.ndarray | None, box: tuple[int, int, int, int] = (0, 0, 1, 1),
                    lut: np.ndarray | None = None) -> None:
        """Draw slots ``image`` over image cells ``box`` (x0, y0, x1, y1) of the map (None: none)."""
        if image is None:
            self.detail.hide()
            return
        self.detail.setImage(image, levels=(0, 255), lut=lut, autoLevels=False)
        x0, y0, x1, y1 = box
        self.detail.setRect(QRectF(x0, y0, x1 - x0, y1 - y0))
        self.detail.show()

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

    def px_per_cell(self) -> tuple[float, float]:
        """Screen pixels per image cell now (x, y)."""
        (x0, x1), (y0, y1) = self.vb.viewRange()
        return self.vb.width() / max(x1 - x0, 1e-9), self.vb.height() / max(y1 - y0, 1e-9)

    def set_labels(self, texts: list[str], xs: np.ndarray, ys: np.ndarray, dark: np.ndarray) -> None:
        """Show labels ``texts`` at image points (xs, ys), white on ``dark`` cells, black
        elsewhere (and on cells the overlay fades); hide the rest of the pool."""
        while len(self.labels) < len(texts):
            label = pg.TextItem(anchor=(0.5, 0.5))
            label.setFont(self.label_font)
            label.setZValue(8)
            self.plot.addItem(label, ignoreBounds=True)
            self.labels.append(label)
        rows, cols = self.extent
        self._label_extent = (rows, cols)
        self._label_cells = (np.clip(np.asarray(ys, np.float64).astype(np.int64), 0, rows - 1),
                             np.clip(np.asarray(xs, np.float64).astype(np.int64), 0, cols - 1))
        self._label_dark = np.asarray(dark, bool)
        self._label_white = np.zeros(len(texts), bool)
        for label, text, x, y in zip(self.labels, texts, xs, ys, strict=False):
            label.setText(text, color="#000000")
            label.setPos(float(x), float(y))
            label.show()
        for label in self.labels[len(texts): self.n_labels]:
            label.hide()
        self.n_labels = len(texts)
        self._colour_labels()

    def _colour_labels(self) -> None:
        """White text on dark cells and on the tints of a selection, black on light cells and
        on cells the overlay fades."""
        white = self._label_dark
        ov = self._overlay
        # labels placed for another extent (a refold since) wait for their own update
        if ov is not None and white.size and ov.shape == self._label_extent:
            under = ov[self._label_cells]
            white = np.where(under == DIM, False, np.where((under >= 1) & (under < CLEAR), True, white))
            white &= under != DONE
        for i in np.flatnonzero(white != self._label_white):
            self.labels[i].setColor("#ffffff" if white[i] else "#000000")
        self._label_white = white.copy()

    def label_texts(self) -> list[str]:
        return [self.labels[i].toPlainText() for i in range(self.n_labels)]


def _fix_height(item: pg.GraphicsWidget, h: int) -> None:
    item.setMinimumHeight(h)
    item.setPreferredHeight(h)
    item.setMaximumHeight(h)


def _dark(lut: np.ndarray, slots: np.ndarray) -> np.ndarray:
    """bool per slot: a dark colour (white text on it), by Rec. 601 luma."""
    rgb = lut[np.asarray(slots, np.int64), :3].astype(np.float64)
    return rgb @ np.array([0.299, 0.587, 0.114]) <= 140


class GridCanvas:
    """The ``pg.GraphicsLayoutWidget`` of a grid view and its reusable plots: ``prog`` (the
    program grid) and ``slots`` (tile maps; slot i draws panel i of the trace laid out)."""

    def __init__(self) -> None:
        self.glw = pg.GraphicsLayoutWidget()
        self.glw.setMinimumSize(420, 320)
        self.prog: PlotSlot | None = None
        self.slots: list[PlotSlot] = []
        self._placed: list[tuple] = []  # the plots in the layout: (plot, row, col, colspan)
        self._beside: set[int] = set()  # panels that share their row (their titles take two lines)
        self._two_line: set[int] = set()  # panels whose titles take two lines
        self._grid_two_lines = False  # the program grid's title takes two lines
        self._prep: PreparedTrace | None = None
        self._lut: np.ndarray | None = None
        self._z = 0
        font = QFont(self.glw.font())
        font.setPointSizeF(max(6.5, font.pointSizeF() * 0.85))
        self._label_font = font
        fm = QFontMetrics(font)
        self._char_px, self._line_px = fm.horizontalAdvance("0") * 1.05, fm.height()
        self._label_timer = QTimer(self.glw)  # labels after a zoom: once per event-loop turn
        self._label_timer.setSingleShot(True)
        self._label_timer.setInterval(0)
        self._label_timer.timeout.connect(self.update_labels)
        self.range_hooks: list = []  # called when any plot's range or size changes (the view's own checks)

    # ------------------------------------------------------------------ the plot pool
    def make_slot(self) -> None:
        """Make one more reusable plot: the program grid's first (it also holds the OOB marks)."""
        slot = PlotSlot(self._label_font)
        if self.prog is None:
            scatter = pg.ScatterPlotItem(symbol="x", size=11, pen=pg.mkPen(theme.FAIL, width=2),
                                         brush=pg.mkBrush(theme.FAIL))
            scatter.setZValue(20)
            slot.plot.addItem(scatter, ignoreBounds=True)
            slot.scatter = scatter
            self.prog = slot
        else:
            self.slots.append(slot)
        slot.vb.sigRangeChanged.connect(lambda *_: self._range_changed())
        slot.vb.sigResized.connect(lambda *_: self._range_changed())

    def _range_changed(self) -> None:
        # a pooled plot not in the layout can be resized after the layout (and the timer, its
        # child) was deleted at the window's close: nothing is left to label then
        if not shiboken6.isValid(self._label_timer):
            return
        self._label_timer.start()
        for hook in self.range_hooks:
            hook()

    def n_plots(self) -> int:
        return len(self.slots) + (self.prog is not None)

    # ------------------------------------------------------------------ layout
    def _grid_height(self, prep: PreparedTrace, width: int, height: int) -> int:
        """Pixel height of the program grid's plot: square-ish cells, a band of about a third
        of the view at most, a short grid only as tall as its rows need."""
        inner_w = max(60, width - 80)
        # many programs (no pid fits a cell; coloured by launch order): a thinner band, the room
        # goes to the maps (softmax's 1823 rows took a third of the view and left its maps wrapped)
        share = 0.26 if prep.P <= AUTO_MAX_PROGRAMS else 0.16
        cap = max(36, min(340, int(share * height)) - 56)
        gx, gy, _ = prep.trace.grid
        if prep.folded_grid:
            gw = fit_grid(prep.P, inner_w, cap)
            rows = math.ceil(prep.P / gw)
            cell = min(inner_w / gw, cap / rows, GRID_CELL_MAX)
        else:
            rows = gy
            cell = min(cap / gy, GRID_CELL_MAX)
        if rows <= 12:  # a short view: a few rows still get cells a pid fits in, where a pid fits across
            # (layernorm's 1151 programs in 9 rows of 128 got 18 px rows of 5 px cells: a band
            # of 218 px that pushed its Mean and Rstd below the fold on a laptop)
            cell = max(cell, min(18.0, inner_w / max(1, math.ceil(prep.P / max(rows, 1)))))
        return 56 + max(26, int(rows * cell))

    def _map_rows(self, prep: PreparedTrace, pair_strips: bool = False,
                  max_cols: int = 3) -> tuple[list[list[int]], int]:
        """The maps' rows of the layout (panel indices) and the columns a 2-D row has: a 1-D map
        alone on a full-width row, 2-D maps up to ``max_cols`` (3) a row, balanced (4 maps: 2 + 2).
        ``pair_strips``: two 1-D maps of one length (layernorm's Mean and Rstd) share a row, so
        that a tall layout fits (only beside at most two 2-D maps a row: the halves line up)."""
        two_d = [p.index for p in prep.panels if not is_strip(p)]
        ncols = max(1, math.ceil(len(two_d) / math.ceil(len(two_d) / max_cols))) if two_d else 1
        pair_strips = pair_strips and ncols <= 2 and max_cols >= 2
        rows: list[list[int]] = []
        current: list[int] = []
        for p in prep.panels:
            if is_strip(p):
                if current:
                    rows.append(current)
                    current = []
                last = prep.panels[rows[-1][0]] if rows else None
                if (pair_strips and last is not None and len(rows[-1]) == 1 and is_strip(last)
                        and last.numel == p.numel):
                    rows[-1].append(p.index)
                    ncols = 2
                else:
                    rows.append([p.index])
            else:
                current.append(p.index)
                if len(current) == ncols:
                    rows.append(current)
                    current = []
        if current:
            rows.append(current)
        return rows, ncols

    def _map_heights(self, prep: PreparedTrace, rows: list[list[int]], room: int) -> list[int]:
        """Pixel height of each row of maps: a short 1-D map as tall as its few rows need, the
        others share ``room`` (a 2-D row twice what a 1-D one gets), none below its minimum."""
        fixed: dict[int, int] = {}
        weights: dict[int, float] = {}
        for i, row in enumerate(rows):
            p = prep.panels[row[0]]
            if is_strip(p):
                blocks = math.ceil(p.numel / max(p.block, 1))
                if blocks <= 6:
                    fixed[i] = 62 + 24 * max(1, blocks)
                else:
                    weights[i] = 1.0
            else:
                weights[i] = 2.2
        left = max(0, room - sum(fixed.values()))
        # rows of 2-D maps may shrink to MAP_TIGHT_2D before the view scrolls: on a laptop every map
        # (attention's V and Out under Q and K) is then on screen, the output too
        n2 = sum(1 for i, row in enumerate(rows) if i not in fixed and not is_strip(prep.panels[row[0]]))
        n1 = len(weights) - n2
        least_2d = MAP_MIN_2D
        if n2 and n2 * MAP_MIN_2D + n1 * MAP_MIN_1D > left:
            least_2d = max(MAP_TIGHT_2D, (left - n1 * MAP_MIN_1D) // n2)
        least_1d = MAP_MIN_1D  # then 1-D rows (layernorm's Mean and Rstd under the Chinese window's longer legend)
        if n1 and n2 * least_2d + n1 * MAP_MIN_1D > left:
            least_1d = max(MAP_TIGHT_1D, (left - n2 * least_2d) // n1)
        least = {i: least_1d if is_strip(prep.panels[rows[i][0]]) else least_2d for i in weights}
        # a row whose share is below its least gets its least, and the others share what is left
        # (given their share as well, layernorm's X and Y took 18 px that its Mean and Rstd needed)
        heights = dict(fixed)
        flexible, rest = set(weights), left
        while flexible:
            total_w = sum(weights[i] for i in flexible)
            short = {i for i in flexible if rest * weights[i] / total_w < least[i]}
            if not short:
                heights.update({i: int(rest * weights[i] / total_w) for i in flexible})
                break
            for i in short:
                heights[i] = least[i]
                rest -= least[i]
            flexible -= short
        return [heights[i] for i in range(len(rows))]

    def layout(self, prep: PreparedTrace, width: int, height: int, max_cols: int = 3) -> Iterator[None]:
        """Title, size and place every plot for ``prep`` in a view of ``width`` × ``height``
        pixels; yields between plots (a few ms each). ``fit`` follows, once the layout has
        given every plot its size. 2-D maps that would not fit side by side in ``width`` (their
        titles and least widths: the launch order open beside them on a laptop) are laid out
        with fewer a row, so that the view scrolls down, never sideways, where it can."""
        self._prep = prep
        spacing = 6
        ps = self.prog
        ps.configure(grid_title(prep), 1, prep.grows, prep.gw)
        # a title wider than the view (launch order open on a laptop) takes two lines
        self._grid_two_lines = ps.plot.titleLabel.item.boundingRect().width() + 24 > width
        if self._grid_two_lines:
            ps.configure(grid_title(prep, two_lines=True), 1, prep.grows, prep.gw)
        grid_h = self._grid_height(prep, width, height) + (20 if self._grid_two_lines else 0)
        rows, ncols = self._map_rows(prep, max_cols=max_cols)
        # what the layout adds around the plots (margins, the frame) is not exactly known: 16 px
        # spare, so a view that fits does not get a scroll bar for a few pixels
        heights = self._map_heights(prep, rows, height - grid_h - spacing * (len(rows) + 1) - 16)
        if grid_h + sum(heights) + spacing * (len(rows) + 1) + 16 > height:  # taller than the view: pair 1-D maps
            paired, pcols = self._map_rows(prep, pair_strips=True, max_cols=max_cols)
            if len(paired) < len(rows):
                rows, ncols = paired, pcols
                heights = self._map_heights(prep, rows, height - grid_h - spacing * (len(rows) + 1) - 16)
        _fix_height(ps.plot, grid_h)
        ps.plot.setMinimumWidth(0)
        placed: list[tuple[pg.PlotItem, int, int, int]] = [(ps.plot, 0, 0, ncols)]
        self._beside = {i for row in rows if len(row) > 1 for i in row}
        # titles of two lines: maps beside others, and every 2-D map of a layout narrowed to fit
        self._two_line = self._beside | ({p.index for p in prep.panels if not is_strip(p)} if max_cols < 3 else set())
        for r, (row, h) in enumerate(zip(rows, heights, strict=True), start=1):
            yield
            for c, i in enumerate(row):
                p, slot = prep.panels[i], self.slots[i]
                slot.configure(panel_title(p, theme.FAIL, i in self._two_line), 1, p.rows, p.cols)
                _fix_height(slot.plot, h)
                # never narrower than its title (a title is not wrapped: it would be cut off),
                # nor than 160 px (too small to hover an element)
                slot.plot.setMinimumWidth(max(160, int(slot.plot.titleLabel.item.boundingRect().width()) + 12))
                # a map alone on its row (1-D) spans it; a pair of 1-D maps takes half each
                placed.append((slot.plot, r, c * (ncols // len(row)) if is_strip(p) else c,
                               ncols // len(row) if is_strip(p) else 1))
        if placed != self._placed:
            # (re)filling the layout costs a few ms per plot (pyqtgraph activates the layout on
            # every add): a trace laid out like the last one keeps the plots where they are
            yield
            self._placed = []  # a step stopped half-way must not pass for this layout
            self.glw.clear()
            for plot, r, c, span in placed:
                self.glw.addItem(plot, row=r, col=c, colspan=span)
            self._placed = placed
        self.glw.ci.setSpacing(spacing)
        total = grid_h + sum(heights) + spacing * (len(rows) + 1) + 16
        self.glw.setMinimumHeight(max(320, total))
        need = self.glw.ci.effectiveSizeHint(Qt.SizeHint.MinimumSize)
        if int(need.width()) + 8 > width and max_cols > 1 and any(len(row) > 1 for row in rows):
            yield from self.layout(prep, width, height, max_cols=min(max_cols, ncols) - 1)
            return
        # (a 420-px floor, less where the view is narrower: stacked maps that fit in 410 px
        # must not scroll sideways for 10 px of floor)
        self.glw.setMinimumWidth(max(min(420, width), int(need.width()) + 8))
        # a wider layout tried first grew the plots' layout to its least size, and it does not
        # shrink back by itself where the view keeps its size: give it the view's rectangle again
        self.glw.ci.setGeometry(self.glw.range)

    def settle(self) -> None:
        """Apply now what the next paint would (pending layout requests, each view box's range
        and transform), so that sizes and positions read now are the ones drawn."""
        for _ in range(2):
            QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
            self.glw.ci.layout.activate()
        for slot in [self.prog, *self.slots]:
            if slot is not None:
                slot.vb.prepareForPaint()

    def fit(self, prep: PreparedTrace) -> bool:
        """Fold the grid and every map to the size its plot got; True when a fold changed (the
        images then need drawing again)."""
        self.settle()
        vb = self.prog.vb
        panel_px = [(s.vb.width(), s.vb.height()) for s in self.slots[: len(prep.panels)]]
        changed = prep.fit((vb.width(), vb.height()), panel_px)
        self.apply_folds(prep)
        return changed

    def apply_folds(self, prep: PreparedTrace) -> None:
        """Titles, axes, extents and zoom links for the folds ``prep`` has now."""
        self._apply_grid(prep)
        groups: dict[tuple, PlotSlot] = {}
        for p, slot in zip(prep.panels, self.slots, strict=False):
            f = p.fold
            slot.plot.setTitle(panel_title(p, theme.FAIL, p.index in self._two_line))
            # the axes count elements, never drawn cells: a reduced map's cell is kr × kc of them
            kr, kc = p.cell
            slot.left.row_len = f.chunk * kc if f.kind == FOLD else kr
            slot.top.row_len = kc
            for axis in (slot.left, slot.top):
                axis.setTicks(None)
            if f.kind == WRAP_ROWS:  # a tick at each piece (each few, where they are narrow): its first row
                every = self._every(len(f"r{f.R * kr}"), slot.vb.width() * (f.C + f.gap) / max(f.cols, 1))
                slot.top.setTicks([[(k * (f.C + f.gap), f"r{k * f.chunk * kr}") for k in range(0, f.pieces, every)],
                                   []])
            elif f.kind == WRAP_COLS:
                every = self._every(1, slot.vb.height() * (f.R + f.gap) / max(f.rows, 1))
                slot.left.setTicks([[(k * (f.R + f.gap), f"c{k * f.chunk * kc}") for k in range(0, f.pieces, every)],
                                    []])
            slot.left.fit_labels(f.rows - 1 if f.kind != WRAP_COLS else f.C)
            if slot.extent != (f.rows, f.cols):
                slot.set_extent(f.rows, f.cols)
            # maps drawn alike zoom and pan together (x, y and out of a vector add)
            lead = groups.setdefault(fold_key(f), slot) if f.kind == FOLD else slot
            slot.vb.setXLink(lead.vb if lead is not slot else None)
            slot.vb.setYLink(lead.vb if lead is not slot else None)
            # one column scale is enough for maps stacked and zoomed together: room for rows (1-D
            # maps side by side keep theirs, or their heights would differ)
            slot.plot.showAxis("top", show=lead is slot or (p.index in self._beside and is_strip(p)))

    def _every(self, chars: int, piece_px: float) -> int:
        """Label every how many pieces, for labels of ``chars`` characters not to overlap."""
        if chars == 1:  # a vertical axis: one line a label
            return max(1, math.ceil((self._line_px + 2) / max(piece_px, 1e-9)))
        return max(1, math.ceil((chars * self._char_px + 8) / max(piece_px, 1e-9)))

    def _apply_grid(self, prep: PreparedTrace) -> None:
        ps = self.prog
        ps.plot.setTitle(grid_title(prep, self._grid_two_lines))
        ps.left.row_len = prep.gw if prep.folded_grid else 1  # a fold's row: its first pid
        for axis in (ps.left, ps.top):
            axis.setTicks(None)
        # a tick per cell, centred, labelled with x (or pid along a fold), where they fit
        cell_w, cell_h = ps.vb.width() / max(prep.gw, 1), ps.vb.height() / max(prep.grows, 1)
        per_col = prep.gw <= 32 and cell_w >= 3 * self._char_px
        per_row = prep.grows <= 32 and cell_h >= self._line_px
        if per_col:
            ps.top.setTicks([[(c + 0.5, str(c)) for c in range(prep.gw)]])
        if per_row:
            ps.left.setTicks([[(r + 0.5, str(r * ps.left.row_len)) for r in range(prep.grows)]])
        # a tick at a cell's centre would strike through the pid written there
        ps.top.setStyle(tickLength=0 if per_col else -4)
        ps.left.setStyle(tickLength=0 if per_row else -4)
        ps.plot.showAxis("left")
        if prep.folded_grid and prep.grows == 1:
            ps.plot.hideAxis("left")
        ps.left.fit_labels(prep.grows - 1)
        if ps.extent != (prep.grows, prep.gw):
            ps.set_extent(prep.grows, prep.gw)

    # ------------------------------------------------------------------ images
    def draw_program_grid(self, prep: PreparedTrace, pids: np.ndarray, lut: np.ndarray, z: int = 0) -> None:
        """The cells of program ids ``pids`` [rows, cols] (-1: padding) and a red × on the
        programs with out-of-bounds lanes; the pid labels follow."""
        self._prep, self._lut, self._z = prep, lut, z
        slots = np.where(pids >= 0, prep.prog_slots[np.maximum(pids, 0)], PAD).astype(np.uint8)
        self.prog.image.setImage(slots, levels=(0, 255), lut=lut, autoLevels=False)
        trace = prep.trace
        bad = np.nonzero(np.asarray(trace.stats.n_oob) > 0)[0]
        bad_pids = np.asarray(trace.programs)[bad]
        on = pids.reshape(-1)
        idx = np.nonzero(np.isin(on, bad_pids) & (on >= 0))[0]
        self.prog.scatter.setData(x=idx % pids.shape[1] + 0.5, y=idx // pids.shape[1] + 0.5)
        self._label_timer.start()

    def draw_maps(self, images: list[np.ndarray], lut: np.ndarray) -> None:
        self._lut = lut
        for slot, img in zip(self.slots, images, strict=False):
            slot.image.setImage(img, levels=(0, 255), lut=lut, autoLevels=False)
        self._label_timer.start()

    # ------------------------------------------------------------------ labels
    def update_labels(self) -> None:
        """Place the labels that fit, on every plot, for the zoom each shows now."""
        self._label_timer.stop()
        prep, lut = self._prep, self._lut
        if prep is None or lut is None or self.prog is None:
            return
        self._grid_labels(prep, lut)
        for p, slot, img in zip(prep.panels, self.slots, prep.images, strict=False):
            x0, y0, x1, y1, idx = label_boxes(p.regions, p.fold)
            reg = p.regions
            # the full label (a pid, or ×readers first–last), else on a smaller tile ×readers alone
            tiers = [(reg.text_len()[idx], lambda k, idx=idx, reg=reg: reg.text(int(idx[k]))),
                     (reg.text_len(short=True)[idx], lambda k, idx=idx, reg=reg: reg.text(int(idx[k]), short=True))]
            self._place(slot, (x0, y0, x1, y1), tiers,
                        lambda cx, cy, img=img: img[np.clip(cy.astype(np.int64), 0, img.shape[0] - 1),
                                                    np.clip(cx.astype(np.int64), 0, img.shape[1] - 1)], lut)

    def _grid_labels(self, prep: PreparedTrace, lut: np.ndarray) -> None:
        pids = prep.grid_pids(self._z)
        r, c = np.nonzero(pids >= 0)
        shown = pids[r, c]
        # cells are all one size: label all the cells in view or none (not 0..9 alone), by the
        # longest pid in view
        (vx0, vx1), (vy0, vy1) = self.prog.vb.viewRange()
        in_view = (c + 1 > vx0) & (c < vx1) & (r + 1 > vy0) & (r < vy1)
        widest = int(shown[in_view].max()) if in_view.any() else 0
        digits = np.full(shown.shape[0], len(str(widest)), np.int64)
        self._place(self.prog, (c, r, c + 1, r + 1), [(digits, lambda k: str(int(shown[k])))],
                    lambda cx, cy: prep.prog_slots[pids[cy.astype(np.int64), cx.astype(np.int64)]], lut)

    def _place(self, slot: PlotSlot, boxes: tuple[np.ndarray, ...], tiers: list, slot_at, lut: np.ndarray) -> None:
        """Show on ``slot`` the labels whose box holds them at the zoom shown; ``tiers``: (text
        lengths, text of box k) from the longest text to the shortest, each tried on the boxes
        the longer ones did not fit."""
        x0, y0, x1, y1 = boxes
        if not len(x0) or not slot.plot.isVisible():
            slot.set_labels([], np.zeros(0), np.zeros(0), np.zeros(0, bool))
            return
        (vx0, vx1), (vy0, vy1) = slot.vb.viewRange()
        sx, sy = slot.px_per_cell()
        left = np.arange(len(x0))
        texts, xs, ys = [], [], []
        for lengths, text_of in tiers:
            k, cx, cy = pick_labels(x0[left], y0[left], x1[left], y1[left], lengths[left], (vx0, vy0, vx1, vy1),
                                    sx, sy, self._char_px, self._line_px, LABEL_LIMIT - len(texts))
            texts += [text_of(int(i)) for i in left[k]]
            xs.append(cx)
            ys.append(cy)
            left = np.delete(left, k)
            if not left.size or len(texts) >= LABEL_LIMIT:
                break
        cx, cy = np.concatenate(xs), np.concatenate(ys)
        dark = _dark(lut, slot_at(cx, cy)) if len(texts) else np.zeros(0, bool)
        slot.set_labels(texts, cx, cy, dark)

    # ------------------------------------------------------------------ mouse geometry
    def view_point(self, item: pg.ImageItem, x: float, y: float) -> QPoint:
        """Image point (x, y) of ``item`` in ``glw`` coordinates."""
        # settle now what the next paint would (pending layout requests, the view box's range
        # and transform), so the point is where the mouse will find the cell even when asked
        # right after a trace was applied, before its first paint
        self.settle()
        scene = item.mapToScene(QPointF(x, y))
        return self.glw.mapFromScene(scene)

    def reveal(self, slot: PlotSlot, row: int, col: int, min_px: float = 6.0) -> None:
        """Zoom and pan ``slot`` so that cell (row, col) is in view and at least ``min_px``
        pixels on a side (as a learner zooms in to point at one element of a large map)."""
        self.settle()
        sx, sy = slot.px_per_cell()
        (x0, x1), (y0, y1) = slot.vb.viewRange()
        inside = x0 <= col and col + 1 <= x1 and y0 <= row and row + 1 <= y1
        if inside and sx >= min_px and sy >= min_px:
            return
        rows, cols = slot.extent
        w = min(cols, max(1.0, (x1 - x0) * min(1.0, sx / min_px)))
        h = min(rows, max(1.0, (y1 - y0) * min(1.0, sy / min_px)))
        nx0 = min(max(col + 0.5 - w / 2, 0.0), cols - w)
        ny0 = min(max(row + 0.5 - h / 2, 0.0), rows - h)
        slot.vb.setRange(xRange=(nx0, nx0 + w), yRange=(ny0, ny0 + h), padding=0)
        self.settle()

    def hit(self, prep: PreparedTrace, z: int, scene_pos: QPointF) -> Target | None:
        """The program or element under scene point ``scene_pos`` — at whatever zoom, the cell
        the point falls in (the image's own inverse transform, no rounding on the way)."""
        if self.prog.plot.vb.sceneBoundingRect().contains(scene_pos):
            pt = self.prog.image.mapFromScene(scene_pos)
            pid = pid_at(prep, z, math.floor(pt.y()), math.floor(pt.x()))
            return ("program", pid) if pid is not None else None
        for p, slot in zip(prep.panels, self.slots, strict=False):
            if slot.plot.vb.sceneBoundingRect().contains(scene_pos):
                pt = slot.image.mapFromScene(scene_pos)
                flat = p.flat_at(math.floor(pt.y()), math.floor(pt.x()))
                return ("element", p.index, flat) if flat >= 0 else None
        return None


def fold_key(f: MapFold) -> tuple:
    """A hashable key of a fold's shape (maps drawn alike share it)."""
    return (f.kind, f.numel, f.chunk, f.rows, f.cols)
