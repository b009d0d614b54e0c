"""The Threads view's drawing surface: one pyqtgraph plot of the tile, an ``ImageItem`` of warp
colours (one pixel a cell), the lane (and register) written in every cell large enough on screen,
a marker on the cell under the pointer.

Zoom and pan are pyqtgraph's (wheel, drag), kept inside the tile; the labels follow every zoom,
drawn by one item that paints only the cells in view (a 128×256 tile has 32,768 cells; at most
``LABEL_LIMIT`` are written, and only once each is at least ``LANE_MIN_PX`` wide).
"""

from __future__ import annotations

import math

import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QFont, QPainter, QPen

from views import theme

from .palette import cell_rgba, text_dark
from .tile import Tile

__all__ = ["ThreadsCanvas", "LANE_MIN_PX", "REG_MIN_PX"]

LANE_MIN_PX = 16  # a cell at least this wide (and 11 px tall) shows its lane
REG_MIN_PX = 30  # ... this wide and 26 px tall shows "L<lane>" and "r<register>"
LABEL_LIMIT = 6000


class _RowAxis(pg.AxisItem):
    """Whole cell indices only; on a folded 1-D tile a row is named by its first element."""

    def __init__(self, orientation: str) -> None:
        super().__init__(orientation)
        self.setStyle(tickLength=-4)  # ticks outside the plot: inside they cover the first row's labels
        self.row_len = 0
        self.extent = 1

    def tickValues(self, minVal, maxVal, size):  # noqa: N802 (pyqtgraph's name)
        lo, hi = math.ceil(max(min(minVal, maxVal), 0)), math.floor(min(max(minVal, maxVal), self.extent - 1))
        if hi < lo:
            return []
        step = max(1, 2 ** math.ceil(math.log2(max(1.0, (hi - lo + 1) / max(2.0, size / 40)))))
        first = (lo + step - 1) // step * step
        return [(float(step), [v + 0.5 for v in range(first, hi + 1, step)])]

    def tickStrings(self, values, scale, spacing):  # noqa: N802
        k = self.row_len or 1
        return [str(int(v) * k) for v in values]


class _Labels(pg.GraphicsObject):
    """Writes each visible cell's lane (and register) in the cell, in screen pixels."""

    def __init__(self) -> None:
        super().__init__()
        self.tile: Tile | None = None
        self.font = QFont(theme.mono_font())
        self.written = 0  # cells labelled by the last paint (tests, and the hint under the plot)

    def set_tile(self, tile: Tile | None) -> None:
        self.prepareGeometryChange()
        self.tile = tile
        self.update()

    def boundingRect(self) -> QRectF:  # noqa: N802 (Qt's name)
        t = self.tile
        return QRectF(0, 0, t.cols, t.rows) if t is not None else QRectF()

    def paint(self, p: QPainter, *args) -> None:
        t = self.tile
        self.written = 0
        vb = self.getViewBox()
        if t is None or vb is None:
            return
        tr = p.worldTransform()
        cw, ch = abs(tr.m11()), abs(tr.m22())
        if ch < 11:
            return
        vr = vb.viewRect()
        c0, c1 = max(0, int(vr.left())), min(t.cols, int(math.ceil(vr.right())))
        r0, r1 = max(0, int(min(vr.top(), vr.bottom()))), min(t.rows, int(math.ceil(max(vr.top(), vr.bottom()))))
        if c1 <= c0 or r1 <= r0 or (c1 - c0) * (r1 - r0) > LABEL_LIMIT * 4:
            return
        p.save()
        p.resetTransform()
        font = QFont(self.font)
        dark, light = QPen(QColor("#111111")), QPen(QColor("#ffffff"))
        for r in range(r0, r1):
            for c, k in _runs(t, r, c0, c1):
                w, lane, reg = int(t.warp[r, c]), int(t.lane[r, c]), int(t.register[r, c])
                width = k * cw
                if w < 0 or width < LANE_MIN_PX or self.written >= LABEL_LIMIT:
                    continue
                two_lines = width >= REG_MIN_PX and ch >= 26
                text = _label(t.kind, lane, reg, k, two_lines)
                chars = max(len(line) for line in text.split("\n"))
                # a monospaced digit is ~0.6 of the pixel size: the longest line fits the run's width
                px = min(13.0, ch / (2.6 if two_lines else 1.5), 0.92 * width / (0.62 * chars))
                if px < 7:
                    continue
                font.setPixelSize(int(px))
                p.setFont(font)
                left = tr.map(QPointF(c, r + 0.5))
                box = QRectF(left.x(), left.y() - ch / 2, width, ch)
                faded = t.masked is not None and bool(t.masked[r, c])
                p.setPen(dark if faded or text_dark(w, lane) else light)
                p.drawText(box, Qt.AlignmentFlag.AlignCenter, text)
                self.written += 1
        p.restore()


def _label(kind: str, lane: int, reg: int, k: int, two_lines: bool) -> str:
    """A run of ``k`` cells: ``L5`` / ``r0–3`` (a thread's lane, its registers), or for a shared
    layout ``b5`` / ``@40–41`` (the bank, the elements' offsets in the buffer)."""
    first, second = ("b", "@") if kind == "banks" else ("L", "r")
    if not two_lines:
        return f"{lane}"
    regs = f"{second}{reg}" if k == 1 else f"{second}{reg}–{reg + k - 1}"
    return f"{first}{lane}\n{regs}"


def _runs(t: Tile, r: int, c0: int, c1: int):
    """(first column, length) of each run of cells in row ``r`` held by one thread in consecutive
    registers (a thread's vector is one label, so lanes read at the overview too)."""
    warp, lane, reg = t.warp[r], t.lane[r], t.register[r]
    c = c0
    while c < c1:
        k = 1
        while (c + k < c1 and warp[c + k] == warp[c] and lane[c + k] == lane[c]
               and reg[c + k] == reg[c] + k):
            k += 1
        yield c, k
        c += k


class ThreadsCanvas(pg.GraphicsLayoutWidget):
    """The tile: ``set_tile`` draws it; ``cellHovered(row, col)`` as the pointer moves (-1, -1 off it)."""

    cellHovered = Signal(int, int)

    def __init__(self, parent=None) -> None:  # noqa: ANN001
        theme.configure()
        super().__init__(parent)
        self.setBackground("w")
        self.left, self.top = _RowAxis("left"), _RowAxis("top")
        self.plot = self.addPlot(axisItems={"left": self.left, "top": self.top})
        self.plot.hideAxis("bottom")
        self.plot.showAxis("top")
        self.plot.setMenuEnabled(False)
        self.plot.hideButtons()
        self.vb = self.plot.getViewBox()
        self.vb.invertY(True)
        self.vb.setAspectLocked(False)
        self.image = pg.ImageItem(axisOrder="row-major")
        self.plot.addItem(self.image)
        self.labels = _Labels()
        self.plot.addItem(self.labels)
        self.marker = pg.QtWidgets.QGraphicsRectItem(0, 0, 1, 1)
        self.marker.setPen(pg.mkPen("#000000", width=2, cosmetic=True))
        self.marker.setVisible(False)
        self.plot.addItem(self.marker)
        self.tile: Tile | None = None
        self.scene().sigMouseMoved.connect(self._on_mouse)

    def set_tile(self, tile: Tile | None, *, keep_view: bool = False) -> None:
        """Draw ``tile`` (None: clear). ``keep_view``: the same cells as before stay in view (a
        redraw of the same tile shape, e.g. after a num_warps change)."""
        same = keep_view and self.tile is not None and tile is not None and \
            (tile.rows, tile.cols) == (self.tile.rows, self.tile.cols)
        self.tile = tile
        self.marker.setVisible(False)
        if tile is None:
            self.image.clear()
            self.labels.set_tile(None)
            return
        self.image.setImage(cell_rgba(tile.warp, tile.lane, tile.masked), autoLevels=False, levels=(0, 255))
        self.image.setRect(QRectF(0, 0, tile.cols, tile.rows))
        self.labels.set_tile(tile)
        self.left.row_len, self.left.extent = tile.row_len, tile.rows
        self.top.row_len, self.top.extent = 0, tile.cols
        self.vb.setLimits(xMin=0, xMax=tile.cols, yMin=0, yMax=tile.rows,
                          minXRange=min(2, tile.cols), minYRange=min(2, tile.rows))
        if not same:
            self.show_all()

    def show_all(self) -> None:
        """The whole tile in view."""
        if self.tile is not None:
            self.vb.setRange(QRectF(0, 0, self.tile.cols, self.tile.rows), padding=0)

    def cell_at_scene(self, pos: QPointF) -> tuple[int, int] | None:
        if self.tile is None or not self.vb.sceneBoundingRect().contains(pos):
            return None
        p = self.vb.mapSceneToView(pos)
        r, c = int(math.floor(p.y())), int(math.floor(p.x()))
        return (r, c) if 0 <= r < self.tile.rows and 0 <= c < self.tile.cols else None

    def cell_centre_in_widget(self, row: int, col: int):  # -> QPoint
        """Where the centre of cell (row, col) is, in this widget's pixels (tests, tooltips)."""
        scene = self.vb.mapViewToScene(QPointF(col + 0.5, row + 0.5))
        return self.mapFromScene(scene)

    def cell_size_px(self) -> tuple[float, float]:
        """The on-screen width and height of one cell."""
        a = self.vb.mapViewToScene(QPointF(0, 0))
        b = self.vb.mapViewToScene(QPointF(1, 1))
        return abs(b.x() - a.x()), abs(b.y() - a.y())

    def _on_mouse(self, pos: QPointF) -> None:
        cell = self.cell_at_scene(pos)
        if cell is None or self.tile is None or self.tile.element(*cell) is None:
            self.marker.setVisible(False)
            self.cellHovered.emit(-1, -1)
            return
        self.marker.setRect(cell[1], cell[0], 1, 1)
        self.marker.setVisible(True)
        self.cellHovered.emit(*cell)

