"""SweepHeatmap: any two axes of a sweep of any number of parameters, as a heatmap.

Each cell is the best point over the other axes (the default), or, with "a slice", the one point
at chosen values of the other axes. The cell's colour and text are the kernel's figure (GPU:
GB/s or TFLOP/s at the point's best timing, higher is better; interpreter: wall-clock ms, lower
is better); the best cell is boxed; cells whose points failed are hatched red, pruned ones grey,
with the reason in the tooltip. Clicking a cell emits the full values of the point it shows, so
the window can load them into the parameter panel.

What a cell holds is computed by ``views.sweep_data.heat_grid`` (Qt-free); this widget draws it,
at most ~30 times a second while points stream in.
"""

from __future__ import annotations

import copy
import math
from pathlib import Path
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QColor, QPen
from PySide6.QtWidgets import QComboBox, QGraphicsRectItem, QHBoxLayout, QLabel, QWidget

from kernels.data.results import SweepPoint, SweepResult

from . import theme
from .empty_plot import EmptyPlot
from .layout import column, row
from .preview import preview
from .sweep_data import (
    HeatGrid,
    axis_values,
    heat_grid,
    is_interpreter,
    point_reason,
    point_value,
    point_values,
)

__all__ = ["SweepHeatmap"]

_CELL_TEXT_MAX = 144  # values are written in the cells up to 12 x 12
_REDRAW_MS = 33
_BEST, _SLICE = "best", "slice"


def _compact(combo: QComboBox) -> None:
    """A combo as wide as its items, that may shrink to a few characters in a narrow panel (the
    controls row must not widen the window)."""
    combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
    combo.setMinimumWidth(combo.fontMetrics().horizontalAdvance("BLOCK_") + 24)


def _fmt(v: float) -> str:
    return f"{v:.3g}" if abs(v) < 1000 else f"{v:,.0f}"


class SweepHeatmap(QWidget):
    """Two axes of a sweep as a heatmap. Signals: pointClicked(dict) — every value of the point
    in the clicked cell."""

    pointClicked = Signal(dict)

    def __init__(self, metric: str = "GB/s", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        theme.configure()
        self._metric = metric
        self._names: list[str] = []
        self._prior: dict[str, list[Any]] = {}
        self._points: list[SweepPoint] = []
        self._grid: HeatGrid | None = None
        self._fixed: dict[str, Any] | None = None
        self._final = False  # the whole sweep is in (a cell without a point will stay so)
        self._labels: list[pg.TextItem] = []
        self._hatches: dict[tuple[int, int], QGraphicsRectItem] = {}
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(_REDRAW_MS)
        self._timer.timeout.connect(self.flush)

        self.title = QLabel(self.tr("No sweep yet."), self)
        self.title.setObjectName("heatmap_title")
        self.title.setWordWrap(True)
        self.x_combo, self.y_combo = QComboBox(self), QComboBox(self)
        self.x_combo.setObjectName("heatmap_x")
        self.y_combo.setObjectName("heatmap_y")
        self.others = QComboBox(self)
        self.others.setObjectName("heatmap_others")
        self.others.addItem(self.tr("best over the other axes"), _BEST)
        self.others.addItem(self.tr("a slice at…"), _SLICE)
        for combo in (self.x_combo, self.y_combo, self.others):
            _compact(combo)
        self.slice_row = QHBoxLayout()
        self._slice_combos: dict[str, QComboBox] = {}
        self.x_combo.currentIndexChanged.connect(lambda _i: self._on_axis())
        self.y_combo.currentIndexChanged.connect(lambda _i: self._on_axis())
        self.others.activated.connect(lambda _i: self._on_others())

        self.plot = pg.PlotWidget(self)
        self.plot.setMinimumSize(60, 40)  # a small dock must not push the window's minimum size up
        pi = self.plot.getPlotItem()
        pi.setMouseEnabled(x=False, y=False)
        pi.hideButtons()
        self.image = pg.ImageItem(axisOrder="row-major")
        pi.addItem(self.image)
        self._cmap = pg.colormap.get("viridis")
        # pyqtgraph caches its colormaps: reverse a copy, never the shared one (the grid view's
        # launch-order colours read the same cached viridis)
        self._cmap_reversed = copy.deepcopy(pg.colormap.get("viridis"))
        self._cmap_reversed.reverse()
        self._reversed = False
        self.colorbar = pg.ColorBarItem(values=(0, 1), colorMap=self._cmap, interactive=False, width=14,
                                        label=metric)
        self.colorbar.setImageItem(self.image, insert_in=pi)
        self.best_box = QGraphicsRectItem()
        self.best_box.setPen(pg.mkPen(theme.FAIL, width=3, cosmetic=True))
        self.best_box.setZValue(10)
        self.best_box.hide()
        pi.addItem(self.best_box)
        self.empty = EmptyPlot(pi, self.tr("No sweep yet."), auto_range=False)  # its ranges: _redraw
        self.empty.set_empty(True)
        self.plot.scene().sigMouseMoved.connect(self._on_hover)
        self.plot.scene().sigMouseClicked.connect(self._on_click)
        theme.install_export_menu(self.plot, lambda: None)

        controls = row(QLabel(self.tr("x:"), self), self.x_combo, QLabel(self.tr("y:"), self), self.y_combo,
                       QLabel(self.tr("cells:"), self), self.others, self.slice_row, (QWidget(self), 1))
        column(self, self.title, controls, (self.plot, 1))

    # -- public API ----------------------------------------------------------------------------
    def set_metric(self, metric: str) -> None:
        self._metric = metric
        self._schedule()

    def clear(self) -> None:
        self.begin([])

    def begin(self, names: list[str], axes: dict[str, list[Any]] | None = None) -> None:
        """A new sweep over ``names`` (its columns); ``axes`` (the request's values) lays the
        cells out before the points arrive."""
        self._names = list(names)
        self._prior = {k: list(v) for k, v in (axes or {}).items()}
        self._points = []
        self._final = False
        self._fixed = None
        self.others.setCurrentIndex(0)
        for combo, pick in ((self.x_combo, 0), (self.y_combo, 1)):
            combo.blockSignals(True)
            combo.clear()
            for n in self._names:
                combo.addItem(n, n)
            combo.setCurrentIndex(min(pick, max(len(self._names) - 1, 0)))
            combo.blockSignals(False)
        self._exclude_taken()
        self.others.setEnabled(len(self._names) > 2)
        self._build_slice_combos()
        self.flush()

    def add_point(self, point: SweepPoint) -> None:
        """One more point of the running sweep (drawn within ``_REDRAW_MS``)."""
        self._points.append(point)
        self._schedule()

    def set_result(self, result: SweepResult, points: list[SweepPoint] | None = None) -> None:
        """A whole sweep (``points``: all of them when the result holds only a resumed part)."""
        names = result.names or list(result.request.axes)
        if names != self._names:
            self.begin(names, dict(result.request.axes))
        self._points = list(points if points is not None else result.points)
        self._final = True
        self._build_slice_combos()
        self.flush()

    def set_axes(self, x: str, y: str) -> None:
        """Show ``x`` across and ``y`` up (two different names of the sweep)."""
        if x == y or x not in self._names or y not in self._names:
            raise ValueError(f"choose two different axes of {self._names}, got {x!r} and {y!r}")
        for combo, name in ((self.x_combo, x), (self.y_combo, y)):
            combo.blockSignals(True)
            combo.setCurrentIndex(combo.findData(name))
            combo.blockSignals(False)
        self._on_axis()

    def set_slice(self, fixed: dict[str, Any] | None) -> None:
        """None: each cell the best over the other axes; else the other axes held at ``fixed``."""
        self.others.setCurrentIndex(0 if fixed is None else 1)
        for name, value in (fixed or {}).items():
            combo = self._slice_combos.get(name)
            if combo is None:
                raise ValueError(f"{name} is not one of the other axes ({', '.join(self._slice_combos)})")
            combo.setCurrentIndex(next(i for i in range(combo.count()) if combo.itemData(i) == value))
        self._on_others()

    def axes(self) -> tuple[str | None, str | None]:
        return self.x_combo.currentData(), self.y_combo.currentData()

    def points(self) -> list[SweepPoint]:
        return list(self._points)

    def grid(self) -> HeatGrid | None:
        """What is drawn (after any pending redraw)."""
        self.flush()
        return self._grid

    def cell_point(self, ix: int, iy: int) -> SweepPoint | None:
        g = self.grid()
        if g is None or not (0 <= iy < g.index.shape[0] and 0 <= ix < g.index.shape[1]) or g.index[iy, ix] < 0:
            return None
        return self._points[int(g.index[iy, ix])]

    def cell_text(self, ix: int, iy: int) -> str:
        g = self.grid()
        k = iy * len(g.xs) + ix if g is not None else -1
        return self._labels[k].toPlainText() if 0 <= k < len(self._labels) else ""

    def cell_tooltip(self, ix: int, iy: int) -> str:
        g = self.grid()
        p = self.cell_point(ix, iy)
        if g is None:
            return ""
        y_text = f", {g.y}={g.ys[iy]}" if g.y else ""
        head = f"{g.x}={g.xs[ix]}{y_text}"
        if p is None:
            return head + "\n" + self.tr("no point here (not run yet, or removed by a constraint)")
        others = {k: v for k, v in p.values.items() if k not in (g.x, g.y)}
        lines = [head]
        if others:
            which = self.tr("the best over the others:") if g.fixed is None else self.tr("slice:")
            lines.append(f"{which} " + ", ".join(f"{k}={v}" for k, v in others.items()))
        why = point_reason(p)
        if why:
            lines.append(self.tr("no figure — {why}").format(why=why))
        else:
            v = point_value(p, self._metric, self._interp())
            t = p.timing
            lines.append(f"{_fmt(v)} {self._unit()}" if v is not None else "")
            if t is not None:
                lines.append(self.tr("median {m:.4g} ms [p20 {lo:.4g}, p80 {hi:.4g}], {n} reps").format(
                    m=t.median_ms, lo=t.p20_ms, hi=t.p80_ms, n=t.n_reps))
        if g.best == (ix, iy):
            lines.append(self.tr("★ best cell"))
        lines.append(self.tr("click: load these values into the parameters"))
        return "\n".join(s for s in lines if s)

    def flush(self) -> None:
        self._timer.stop()
        self._redraw()

    def export(self, path: str | Path) -> Path:
        self.flush()
        return theme.export_plot(self.plot.getPlotItem(), path)

    # -- internals -----------------------------------------------------------------------------
    def _schedule(self) -> None:
        if not self._timer.isActive():
            self._timer.start()

    def _interp(self) -> bool:
        return is_interpreter(self._points)

    def _unit(self) -> str:
        return self.tr("ms (interpreter wall clock)") if self._interp() else self._metric

    def _axes_now(self) -> dict[str, list[Any]]:
        return axis_values(self._points, self._names, self._prior)

    def _on_axis(self) -> None:
        self._exclude_taken()
        self._build_slice_combos()
        self.flush()

    def _exclude_taken(self) -> None:
        """Each axis combo greys out the name the other shows: x and y always differ."""
        for combo, other in ((self.x_combo, self.y_combo), (self.x_combo, self.y_combo)[::-1]):
            model = combo.model()
            for i in range(combo.count()):
                model.item(i).setEnabled(combo.itemData(i) != other.currentData())  # type: ignore[attr-defined]

    def _on_others(self) -> None:
        self._read_slice()
        self.flush()

    def _build_slice_combos(self) -> None:
        """One value chooser per axis that is neither x nor y (used by "a slice at…")."""
        x, y = self.axes()
        axes = self._axes_now()
        wanted = [n for n in self._names if n not in (x, y)]
        if list(self._slice_combos) != wanted or any(
                self._slice_combos[n].count() != len(axes.get(n, [])) for n in wanted):
            old = {n: c.currentData() for n, c in self._slice_combos.items()}
            while self.slice_row.count():
                w = self.slice_row.takeAt(0).widget()
                if w is not None:
                    w.deleteLater()
            self._slice_combos = {}
            for n in wanted:
                combo = QComboBox(self)
                combo.setObjectName(f"heatmap_slice_{n}")
                _compact(combo)
                for v in axes.get(n, []):
                    combo.addItem(f"{n}={v}", v)
                if n in old and old[n] in axes.get(n, []):
                    combo.setCurrentIndex(axes[n].index(old[n]))
                combo.activated.connect(lambda _i: self._on_others())
                self.slice_row.addWidget(combo)
                self._slice_combos[n] = combo
        self._read_slice()

    def _read_slice(self) -> None:
        slicing = self.others.currentData() == _SLICE
        for combo in self._slice_combos.values():
            combo.setEnabled(slicing)
        self._fixed = {n: c.currentData() for n, c in self._slice_combos.items()} if slicing else None

    def _redraw(self) -> None:
        x, y = self.axes()
        if x is None:
            self._grid = None
            self.image.clear()
            self.best_box.hide()
            self._draw_cells(None, 0.0, 1.0)
            self.title.setText(self.tr("No sweep yet."))
            pi = self.plot.getPlotItem()
            for side in ("bottom", "left"):  # the last sweep's parameter names and values go
                pi.setLabel(side, "")
                pi.getAxis(side).setTicks(None)
            self.empty.set_empty(True)
            return
        self.empty.set_empty(False)
        axes = self._axes_now()
        if y is None or y == x:
            y, axes = "", {**axes, "": [None]}
        interp = self._interp()
        g = heat_grid(self._points, x, y, axes, self._metric, interp, self._fixed)
        self._grid = g
        finite = g.values[np.isfinite(g.values)]
        lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
        if hi <= lo:
            lo, hi = lo - 0.5 * abs(lo or 1), hi + 0.5 * abs(hi or 1)
        ny, nx = g.values.shape
        self.image.setImage(g.values, autoLevels=False, levels=(lo, hi))
        self.image.setRect(QRectF(0, 0, nx, ny))
        if self._reversed != interp:  # interpreter: fewer ms is better, so bright is the low end
            self._reversed = interp
            self.colorbar.setColorMap(self._cmap_reversed if interp else self._cmap)
        self.colorbar.setLevels((lo, hi))
        self.colorbar.getAxis("left").setLabel(self.tr("{unit} (bright: better)").format(unit=self._unit()))
        pi = self.plot.getPlotItem()
        pi.setLabel("bottom", x)
        pi.setLabel("left", y)
        pi.getAxis("bottom").setTicks([[(i + 0.5, str(v)) for i, v in enumerate(g.xs)]])
        pi.getAxis("left").setTicks([[(i + 0.5, "" if v is None else str(v)) for i, v in enumerate(g.ys)]])
        pi.setXRange(0, nx, padding=0.02)
        pi.setYRange(0, ny, padding=0.02)
        self._draw_cells(g, lo, hi)
        if g.best is not None:
            self.best_box.setRect(QRectF(g.best[0] + 0.04, g.best[1] + 0.04, 0.92, 0.92))
            self.best_box.show()
        else:
            self.best_box.hide()
        self._update_title(g)

    def _draw_cells(self, g: HeatGrid | None, lo: float, hi: float) -> None:
        pi = self.plot.getPlotItem()
        n = 0 if g is None else g.values.size
        show_text = 0 < n <= _CELL_TEXT_MAX and g is not None and self._cells_fit_text(*g.values.shape)
        while len(self._labels) < (n if show_text else 0):
            t = pg.TextItem("", anchor=(0.5, 0.5))
            t.setZValue(5)
            pi.addItem(t, ignoreBounds=True)
            self._labels.append(t)
        for t in self._labels[n if show_text else 0:]:
            t.setText("")
        keep: set[tuple[int, int]] = set()
        if g is not None:
            ny, nx = g.values.shape
            for iy in range(ny):
                for ix in range(nx):
                    state = g.state(self._points, ix, iy)
                    if state in ("failed", "pruned", "untimed"):
                        keep.add((ix, iy))
                        self._hatch(ix, iy, state)
                    if show_text:
                        self._label(self._labels[iy * nx + ix], ix, iy, g, state, lo, hi)
        for cell in [c for c in self._hatches if c not in keep]:
            pi.removeItem(self._hatches.pop(cell))

    def _cells_fit_text(self, ny: int, nx: int) -> bool:
        """Whether a cell is large enough on screen for its number (else the numbers overlap)."""
        vb = self.plot.getPlotItem().vb
        fm = self.fontMetrics()
        return vb.height() / ny >= fm.height() + 2 and vb.width() / nx >= fm.horizontalAdvance("0000") + 4

    def resizeEvent(self, ev: Any) -> None:  # noqa: N802 (Qt's name): cell text may fit now, or no longer
        super().resizeEvent(ev)
        self._schedule()

    def _label(self, t: pg.TextItem, ix: int, iy: int, g: HeatGrid, state: str, lo: float, hi: float) -> None:
        v = g.values[iy, ix]
        if np.isfinite(v):
            frac = (v - lo) / (hi - lo) if hi > lo else 0.5
            if self._interp():
                frac = 1.0 - frac
            text, colour = _fmt(float(v)), ("k" if frac > 0.6 else "w")
        else:
            text, colour = {"failed": (self.tr("failed"), theme.FAIL), "pruned": (self.tr("pruned"), "#444444"),
                            "untimed": (self.tr("no time"), "#444444"),
                            # the sweep is over: a constraint removed it (or it was cancelled first)
                            "empty": (self.tr("not run") if self._final else "", "#888888")}.get(state, ("", "k"))
        t.setPos(ix + 0.5, iy + 0.5)
        t.setText(text)
        t.setColor(colour)

    def _hatch(self, ix: int, iy: int, state: str) -> None:
        r = self._hatches.get((ix, iy))
        if r is None:
            r = QGraphicsRectItem(ix, iy, 1, 1)
            r.setPen(QPen(Qt.PenStyle.NoPen))
            r.setZValue(1)
            self.plot.getPlotItem().addItem(r)
            self._hatches[(ix, iy)] = r
        colour = theme.FAIL if state == "failed" else theme.MASKED
        pattern = Qt.BrushStyle.BDiagPattern if state == "failed" else Qt.BrushStyle.Dense6Pattern
        r.setBrush(QBrush(QColor(colour), pattern))

    def _update_title(self, g: HeatGrid) -> None:
        others = [n for n in self._names if n not in (g.x, g.y)]
        how = ""
        if others and g.fixed is None:
            how = self.tr(", each cell the best over {names}").format(names=", ".join(others))
        elif g.fixed:
            how = self.tr(", slice at {values}").format(values=", ".join(f"{k}={v}" for k, v in g.fixed.items()))
        where = f"{g.x} × {g.y}" if g.y else g.x
        unit = self.tr("ms") if self._interp() else self._metric
        text = self.tr("{where}{how} · {unit}").format(where=where, how=how, unit=unit)
        if g.best is not None:
            p = self._points[int(g.index[g.best[1], g.best[0]])]
            v = point_value(p, self._metric, self._interp())
            text += " · " + self.tr("best {value} at {values}").format(
                value=_fmt(v) if v is not None else "-", values=", ".join(f"{k}={v}" for k, v in p.values.items()))
        if self._interp():
            text += " · " + self.tr("interpreter wall clock, not GPU speed")
        self.title.setText(text)

    # -- interaction -----------------------------------------------------------------------------
    def _cell_at(self, scene_pos: QPointF) -> tuple[int, int] | None:
        g = self._grid
        vb = self.plot.getPlotItem().vb
        if g is None or not vb.sceneBoundingRect().contains(scene_pos):
            return None
        p = vb.mapSceneToView(scene_pos)
        ix, iy = int(math.floor(p.x())), int(math.floor(p.y()))
        ny, nx = g.values.shape
        return (ix, iy) if 0 <= ix < nx and 0 <= iy < ny else None

    def _on_hover(self, scene_pos: QPointF) -> None:
        cell = self._cell_at(scene_pos)
        self.plot.setToolTip(self.cell_tooltip(*cell) if cell else "")

    def _on_click(self, ev: Any) -> None:
        cell = self._cell_at(ev.scenePos())
        p = self.cell_point(*cell) if cell is not None else None
        if p is not None:
            self.pointClicked.emit(point_values(p))


def _demo() -> QWidget:  # pragma: no cover - manual preview
    from .sweep_demo import demo_sweep_tune

    w = SweepHeatmap("TFLOP/s")
    w.set_result(demo_sweep_tune())
    w.resize(760, 520)
    return w


if __name__ == "__main__":  # pragma: no cover
    preview(_demo)
