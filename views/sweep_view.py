"""SweepView: throughput across a sweep of one parameter (a curve) or two (a heatmap).

One swept parameter: Triton and torch against the parameter, block sizes on a log2 axis whose
ticks show the real values. Two: a heatmap of the first parameter (x) by the second (y) with
explicit levels, a colour bar, each cell's value written in it (small grids), the best cell
boxed, and failed cells hatched with their reason in the tooltip. Points can arrive one by one
(``add_point``) while the sweep runs.

"Best" is the highest throughput among passing points (lowest milliseconds for interpreter
sweeps): a point that failed its check has no meaningful speed, so it is shown as failed.

Points streaming in are drawn at most ~30 times a second (``add_point`` updates the data and
the title at once and schedules the plot); what does not change per point (axis labels, ticks,
ranges, the cells' text items) is set up once per sweep, so a point costs a few milliseconds
of the GUI thread, not tens.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QColor, QPen
from PySide6.QtWidgets import (
    QFileDialog,
    QGraphicsRectItem,
    QLabel,
    QPushButton,
    QStackedWidget,
    QWidget,
)

from kernels.data.backends import INTERPRETER, backend, is_interpreter
from kernels.data.params import is_pow2
from kernels.data.results import SweepPoint, SweepResult
from kernels.data.tuning.space import LAUNCH_OPTIONS

from . import theme
from .i18n import translate
from .layout import column, row
from .preview import preview
from .throughput_view import _fmt, format_values, result_figures

__all__ = ["SweepView", "point_failure"]

_CELL_TEXT_MAX = 100  # write values into cells only while the grid is small enough to read
_REDRAW_MS = 33  # points arriving faster than ~30 per second share a redraw


def point_failure(p: SweepPoint) -> str | None:
    """Why a sweep point has no usable figure, or None if it has one."""
    r = p.result
    if r.error is not None:
        return f"{r.error.kind}: {r.error.message}"
    if r.check is not None and not r.check.passed:
        return translate("SweepView", "wrong answer: {reason}").format(
            reason=r.check.reason or translate("SweepView", "check failed"))
    if r.timing is None:
        return translate("SweepView", "not timed")
    return None


def _axis_positions(values: list[Any]) -> tuple[np.ndarray, str]:
    """x positions for a swept parameter: log2 for powers of two, linear for other numbers,
    evenly spaced for anything else (dtype names…)."""
    nums = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)
    if nums and all(isinstance(v, int) and is_pow2(v) for v in values) and len(values) > 1:
        return np.log2(np.array(values, dtype=float)), "log2"
    if nums:
        return np.array(values, dtype=float), "linear"
    return np.arange(len(values), dtype=float), "category"


class SweepView(QWidget):
    """Sweep results as a curve (one axis) or a heatmap (two axes).

    Signals: pointClicked(dict) — the swept values of a clicked point or cell.
    """

    pointClicked = Signal(dict)

    def __init__(self, metric: str = "GB/s", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        theme.configure()
        self._metric = metric
        self._axes: list[tuple[str, list[Any]]] = []
        self._points: dict[tuple[int, ...], SweepPoint] = {}
        self._interp = False
        # the text in each heatmap cell, made when the cell's point arrives (a TextItem costs
        # ~1 ms to make: all of a sweep's at once held up its first point), reused afterwards
        self._cell_labels: dict[tuple[int, int], pg.TextItem] = {}
        self._label_pool: list[pg.TextItem] = []
        self._cell_state: dict[tuple[int, int], tuple[str, str]] = {}  # (text, colour) shown
        self._hatches: list[QGraphicsRectItem] = []
        self._hatched: dict[tuple[int, int], QGraphicsRectItem] = {}
        self._labels: dict[tuple[int, str], str] = {}  # (plot id, side) -> axis label shown
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(_REDRAW_MS)
        self._timer.timeout.connect(self.flush)

        self.title = QLabel(self.tr("No sweep yet."), self)
        self.title.setObjectName("sweep_title")
        self.title.setWordWrap(True)
        self.stack = QStackedWidget(self)

        # -- one axis: curve -----------------------------------------------------------------
        self.curve_plot = pg.PlotWidget(self)
        cp = self.curve_plot.getPlotItem()
        cp.showGrid(x=True, y=True, alpha=0.25)
        cp.addLegend(offset=(-10, 10))
        self.triton_curve = cp.plot(pen=pg.mkPen(theme.TRITON, width=2), symbol="o", symbolSize=7,
                                    symbolBrush=theme.TRITON, symbolPen="w", name="Triton", connect="finite")
        self.torch_curve = cp.plot(pen=pg.mkPen(theme.TORCH, width=2, style=Qt.PenStyle.DashLine), symbol="s",
                                   symbolSize=5, symbolBrush=theme.TORCH, symbolPen=None, name="torch",
                                   connect="finite")
        self.curve_hover = pg.ScatterPlotItem(size=14, pen=None, brush=pg.mkBrush(0, 0, 0, 0), hoverable=True,
                                              hoverBrush=pg.mkBrush(255, 210, 31, 120), tip=self._curve_tip)
        self.curve_hover.sigClicked.connect(self._on_curve_click)
        cp.addItem(self.curve_hover)
        self.failed_marks = pg.ScatterPlotItem(size=12, symbol="x", pen=pg.mkPen(theme.FAIL, width=2),
                                               brush=pg.mkBrush(theme.FAIL), hoverable=True, tip=self._curve_tip)
        cp.addItem(self.failed_marks)
        self._failed_in_legend = False  # listed only once a point has failed
        self.best_mark = pg.ScatterPlotItem(size=18, symbol="star", pen=pg.mkPen("k", width=1),
                                            brush=pg.mkBrush("#ffd21f"))
        cp.addItem(self.best_mark)
        self.best_text = pg.TextItem("", color="k", anchor=(0.5, 1.3), fill=(255, 255, 255, 200))
        cp.addItem(self.best_text, ignoreBounds=True)
        self.stack.addWidget(self.curve_plot)

        # -- two axes: heatmap -----------------------------------------------------------------
        self.heat_plot = pg.PlotWidget(self)
        hp = self.heat_plot.getPlotItem()
        hp.setMouseEnabled(x=False, y=False)
        hp.hideButtons()
        self.hatch_back = QGraphicsRectItem()
        self.image = pg.ImageItem(axisOrder="row-major")
        self.image.setZValue(0)
        hp.addItem(self.image)
        self.cmap = pg.colormap.get("viridis")
        self.colorbar = pg.ColorBarItem(values=(0, 1), colorMap=self.cmap, label=metric, interactive=False,
                                        width=16)
        self.colorbar.setImageItem(self.image, insert_in=hp)
        self.best_box = QGraphicsRectItem()
        self.best_box.setPen(pg.mkPen(theme.FAIL, width=3, cosmetic=True))
        self.best_box.setBrush(QBrush(Qt.BrushStyle.NoBrush))
        self.best_box.setZValue(10)
        self.best_box.hide()
        hp.addItem(self.best_box)
        self.heat_plot.scene().sigMouseMoved.connect(self._on_heat_hover)
        self.heat_plot.scene().sigMouseClicked.connect(self._on_heat_click)
        self.stack.addWidget(self.heat_plot)

        self.empty = QLabel(self.tr("Run a sweep to see throughput against the swept parameters."), self)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setWordWrap(True)  # one line of it set the right column's least width (a laptop's grid)
        self.stack.addWidget(self.empty)
        self.stack.setCurrentWidget(self.empty)

        self.export_button = QPushButton(theme.icon("export"), self.tr("Export…"), self)
        self.export_button.clicked.connect(self._choose_export)
        theme.install_export_menu(self.curve_plot, self._choose_export)
        theme.install_export_menu(self.heat_plot, self._choose_export)
        column(self, row((self.title, 1), self.export_button), (self.stack, 1))

    # -- public API ----------------------------------------------------------------------------
    def set_metric(self, metric: str) -> None:
        """"GB/s" or "TFLOP/s" (the kernel's ``KernelInfo.metric``)."""
        self._metric = metric
        self._redraw()

    def clear(self) -> None:
        self._axes = []
        self._points = {}
        self._clear_hatches()
        self.flush()

    def set_sweep(self, sweep: SweepResult) -> None:
        """Show a whole sweep (axes from ``sweep.request.axes``, in their order)."""
        self._set_axes(sweep.request.axes)
        for p in sweep.points:
            self._store(p)
        self.flush()

    def add_point(self, point: SweepPoint, axes: dict[str, list[Any]]) -> None:
        """Add one point of a running sweep; ``axes`` (name -> all values to be tried) lays out
        the plot. New axes reset the view. The data and the title follow at once; the plot
        within ``_REDRAW_MS`` (or at ``flush``)."""
        if [(k, list(v)) for k, v in axes.items()] != self._axes:
            self._set_axes(axes)
        self._store(point)
        self._update_title()
        if not self._timer.isActive():
            self._timer.start()

    def flush(self) -> None:
        """Redraw now instead of waiting for the coalescing timer."""
        self._timer.stop()
        self._redraw()

    def mode(self) -> str:
        """"empty", "1d" or "2d"."""
        return {0: "empty", 1: "1d", 2: "2d"}.get(len(self._axes), "empty")

    def curve_data(self) -> dict[str, np.ndarray]:
        """One-axis sweeps: x positions, Triton y and torch y (NaN where missing or failed)."""
        return self._curve_arrays()

    def heatmap(self) -> np.ndarray:
        """Two-axis sweeps: the values drawn, shape (len(axis 2), len(axis 1)); NaN = no value."""
        return self._heat_array()

    def best_index(self) -> tuple[int, ...] | None:
        """Axis indices of the best point (x index first), or None. On a backend that ignores
        launch options (the interpreter), points differing only in them are the same program:
        only the first value of each such axis is ranked, and a sweep over them alone has none."""
        best, best_v = None, None
        opts = []
        if self._interp and not backend(INTERPRETER).honours_launch_options:
            opts = [i for i, (n, _) in enumerate(self._axes) if n in LAUNCH_OPTIONS]
            if opts and len(opts) == len(self._axes):
                return None
        for key, p in self._points.items():
            v = self._value(p)
            if v is None or any(key[i] != 0 for i in opts):
                continue
            if best_v is None or (v < best_v if self._interp else v > best_v):
                best, best_v = key, v
        return best

    def cell_tooltip(self, *index: int) -> str:
        """Hover text of the point at axis indices ``index`` (x index first)."""
        names = [n for n, _ in self._axes]
        vals = {n: self._axes[i][1][index[i]] for i, n in enumerate(names)}
        p = self._points.get(tuple(index))
        head = format_values(vals)
        if p is None:
            return f"{head}\n" + self.tr("not run yet")
        why = point_failure(p)
        if why:
            return f"{head}\n" + self.tr("FAILED — {why}").format(why=why)
        figs = result_figures(p.result, self._metric) or {}
        unit = self._unit()
        lines = [head, f"Triton: {_fmt(figs.get('y'))} {unit}"]
        tv = figs.get("torch", math.nan)
        if math.isfinite(tv):
            lines.append(f"torch: {_fmt(tv)} {unit}")
        t = p.result.timing
        if t is not None and not self._interp:
            lines.append(self.tr("median {median} ms [p20 {p20}, p80 {p80}]").format(
                median=_fmt(t.median_ms), p20=_fmt(t.p20_ms), p80=_fmt(t.p80_ms)))
        if self.best_index() == tuple(index):
            lines.append(self.tr("★ best of the sweep"))
        return "\n".join(lines)

    def cell_text(self, *index: int) -> str:
        """The text written in the heatmap cell at axis indices ``index`` (x index first): its
        value, "failed", or "" (not run yet, or a grid too large for cell text)."""
        t = self._cell_labels.get(tuple(index))
        return t.toPlainText() if t is not None else ""

    def export(self, path: str | Path) -> Path:
        """Save the visible plot (.png or .svg)."""
        self.flush()
        w = self.stack.currentWidget()
        if not isinstance(w, pg.PlotWidget):
            raise ValueError("nothing to export: no sweep is shown")
        return theme.export_plot(w.getPlotItem(), path)

    # -- internals: data -----------------------------------------------------------------------
    def _set_axes(self, axes: dict[str, list[Any]]) -> None:
        if not 1 <= len(axes) <= 2:
            raise ValueError(f"a sweep view shows one or two swept parameters, got {len(axes)}")
        self._axes = [(k, list(v)) for k, v in axes.items()]
        self._points = {}
        self._clear_hatches()
        self._build_cells()
        self._setup_axes()

    def _store(self, p: SweepPoint) -> None:
        key = []
        for name, values in self._axes:
            if name not in p.values or p.values[name] not in values:
                raise ValueError(f"sweep point {p.values} is not on the axes {dict(self._axes)}")
            key.append(values.index(p.values[name]))
        self._points[tuple(key)] = p
        if p.result.timing is not None:
            self._interp = is_interpreter(p.result.backend) or p.result.timing.is_interpreter

    def _value(self, p: SweepPoint) -> float | None:
        if point_failure(p):
            return None
        figs = result_figures(p.result, self._metric)
        return None if figs is None else figs["y"]

    def _curve_arrays(self) -> dict[str, np.ndarray]:
        if len(self._axes) != 1:
            return {"x": np.zeros(0), "y": np.zeros(0), "torch": np.zeros(0)}
        values = self._axes[0][1]
        x, _ = _axis_positions(values)
        y = np.full(len(values), np.nan)
        t = np.full(len(values), np.nan)
        for (i,), p in self._points.items():
            v = self._value(p)
            if v is not None:
                y[i] = v
                figs = result_figures(p.result, self._metric) or {}
                t[i] = figs.get("torch", np.nan)
        return {"x": x, "y": y, "torch": t}

    def _heat_array(self) -> np.ndarray:
        if len(self._axes) != 2:
            return np.zeros((0, 0))
        nx, ny = len(self._axes[0][1]), len(self._axes[1][1])
        img = np.full((ny, nx), np.nan, dtype=np.float32)
        for (ix, iy), p in self._points.items():
            v = self._value(p)
            if v is not None:
                img[iy, ix] = v
        return img

    # -- internals: drawing --------------------------------------------------------------------
    def _build_cells(self) -> None:
        hp = self.heat_plot.getPlotItem()
        for t in self._cell_labels.values():
            hp.removeItem(t)
            self._label_pool.append(t)
        self._cell_labels = {}
        self._cell_state = {}

    def _cell_label(self, ix: int, iy: int) -> pg.TextItem:
        t = self._cell_labels.get((ix, iy))
        if t is None:
            t = self._label_pool.pop() if self._label_pool else pg.TextItem("", color="w", anchor=(0.5, 0.5))
            t.setText("")
            t.setPos(ix + 0.5, iy + 0.5)
            t.setZValue(5)
            self.heat_plot.getPlotItem().addItem(t, ignoreBounds=True)
            self._cell_labels[(ix, iy)] = t
        return t

    def _clear_hatches(self) -> None:
        hp = self.heat_plot.getPlotItem()
        for h in self._hatches:
            hp.removeItem(h)
        self._hatches = []
        self._hatched = {}

    def _setup_axes(self) -> None:
        """What stays the same for the whole sweep: ticks, axis names, the heatmap's range."""
        if len(self._axes) == 1:
            name, values = self._axes[0]
            x, kind = _axis_positions(values)
            cp = self.curve_plot.getPlotItem()
            self._set_label(cp, "bottom", name + (self.tr(" (log2 axis)") if kind == "log2" else ""))
            ticks = [(float(xi), str(v)) for xi, v in zip(x, values, strict=True)]
            cp.getAxis("bottom").setTicks(None if kind == "linear" else [ticks])
        elif len(self._axes) == 2:
            (xname, xvals), (yname, yvals) = self._axes
            hp = self.heat_plot.getPlotItem()
            self._set_label(hp, "bottom", xname)
            self._set_label(hp, "left", yname)
            hp.getAxis("bottom").setTicks([[(i + 0.5, str(v)) for i, v in enumerate(xvals)]])
            hp.getAxis("left").setTicks([[(i + 0.5, str(v)) for i, v in enumerate(yvals)]])
            hp.setXRange(0, len(xvals), padding=0.02)
            hp.setYRange(0, len(yvals), padding=0.02)

    def _set_label(self, plot: pg.PlotItem, side: str, text: str) -> None:
        # an axis label is a rich-text item: setting it costs ~0.2 ms even when unchanged
        key = (id(plot), side)
        if self._labels.get(key) != text:
            self._labels[key] = text
            plot.setLabel(side, text)

    def _redraw(self) -> None:
        n_axes = len(self._axes)
        if n_axes == 0:
            self.stack.setCurrentWidget(self.empty)
            self.title.setText(self.tr("No sweep yet."))
            return
        if n_axes == 1:
            self._draw_curve()
            self.stack.setCurrentWidget(self.curve_plot)
        else:
            self._draw_heatmap()
            self.stack.setCurrentWidget(self.heat_plot)
        self._update_title()

    def _unit(self) -> str:
        return self.tr("ms (interpreter wall clock)") if self._interp else self._metric

    def _draw_curve(self) -> None:
        _, values = self._axes[0]
        d = self._curve_arrays()
        x, y, t = d["x"], d["y"], d["torch"]
        cp = self.curve_plot.getPlotItem()
        self._set_label(cp, "left", self._unit())
        self.triton_curve.setData(x, y)
        tm = np.isfinite(t)
        self.torch_curve.setData(x[tm], t[tm]) if tm.any() else self.torch_curve.setData([], [])
        done = sorted(k[0] for k in self._points)
        ok = [i for i in done if np.isfinite(y[i])]
        self.curve_hover.setData(x=x[ok], y=y[ok], data=ok)
        failed = [i for i in done if not np.isfinite(y[i])]
        # failed points sit on the x axis (y = 0) where a missing bar would start
        self.failed_marks.setData(x=x[failed], y=np.zeros(len(failed)), data=failed)
        if bool(failed) != self._failed_in_legend:
            self._failed_in_legend = bool(failed)
            if failed:
                cp.legend.addItem(self.failed_marks, self.tr("failed (hover for why)"))
            else:
                cp.legend.removeItem(self.failed_marks)
        b = self.best_index()
        if b is not None:
            i = b[0]
            self.best_mark.setData(x=[x[i]], y=[y[i]])
            self.best_text.setText(self.tr("best {value} at {where}").format(value=_fmt(y[i]), where=values[i]))
            # anchored by where the point lies: a label centred over the last point of the
            # axis ran past the plot's right edge
            span = float(x.max() - x.min())
            self.best_text.setAnchor(((x[i] - x.min()) / span if span > 0 else 0.5, 1.3))
            self.best_text.setPos(x[i], y[i])
            self.best_text.show()
        else:
            self.best_mark.setData(x=[], y=[])
            self.best_text.hide()

    def _draw_heatmap(self) -> None:
        img = self._heat_array()
        ny, nx = img.shape
        hp = self.heat_plot.getPlotItem()
        finite = img[np.isfinite(img)]
        if finite.size:
            lo, hi = float(finite.min()), float(finite.max())
            if hi <= lo:
                lo, hi = lo - 0.5 * abs(lo or 1), hi + 0.5 * abs(hi or 1)
        else:
            lo, hi = 0.0, 1.0
        self.image.setImage(img, autoLevels=False)
        self.image.setRect(QRectF(0, 0, nx, ny))
        self.colorbar.setLevels((lo, hi))
        unit = self._unit()
        if self._labels.get((id(self.colorbar), "left")) != unit:
            self._labels[(id(self.colorbar), "left")] = unit
            self.colorbar.getAxis("left").setLabel(unit)  # a vertical bar labels its left axis
        for ix, iy in self._points:  # hatch failed cells (a point never changes once in)
            if np.isfinite(img[iy, ix]) or (ix, iy) in self._hatched:
                continue
            r = QGraphicsRectItem(ix, iy, 1, 1)
            r.setBrush(QBrush(QColor(theme.FAIL), Qt.BrushStyle.BDiagPattern))
            r.setPen(QPen(Qt.PenStyle.NoPen))
            r.setZValue(1)
            hp.addItem(r)
            self._hatches.append(r)
            self._hatched[(ix, iy)] = r
        if nx * ny <= _CELL_TEXT_MAX:
            for ix, iy in self._points:
                v = img[iy, ix]
                if np.isfinite(v):
                    # light text on the dark end of viridis, dark text on the bright end
                    frac = (v - lo) / (hi - lo) if hi > lo else 0.5
                    state = (_fmt(float(v)), "k" if frac > 0.6 else "w")
                else:
                    state = (self.tr("failed"), theme.FAIL)
                if self._cell_state.get((ix, iy)) != state:
                    self._cell_state[(ix, iy)] = state
                    t = self._cell_label(ix, iy)
                    t.setText(state[0])
                    t.setColor(state[1])
        b = self.best_index()
        if b is not None:
            self.best_box.setRect(QRectF(b[0] + 0.04, b[1] + 0.04, 0.92, 0.92))
            self.best_box.show()
        else:
            self.best_box.hide()

    def _update_title(self) -> None:
        names = " × ".join(n for n, _ in self._axes)
        total = int(np.prod([len(v) for _, v in self._axes]))
        done = len(self._points)
        failed = sum(1 for p in self._points.values() if point_failure(p))
        text = self.tr("Sweep of {names}: {done}/{total} points").format(names=names, done=done, total=total)
        if failed:
            text += self.tr(", {n} failed").format(n=failed)
        b = self.best_index()
        if b is not None:
            p = self._points[b]
            text += " · " + self.tr("best {value} {unit} at {where}").format(
                value=_fmt(self._value(p)), unit=self._unit(), where=format_values(p.values))
        if self._interp:
            text += " · " + self.tr("interpreter wall clock, not GPU speed")
        self.title.setText(text)

    # -- internals: interaction ----------------------------------------------------------------
    def _curve_tip(self, x: float, y: float, data: Any) -> str:
        return self.cell_tooltip(int(data))

    def _on_curve_click(self, _item: Any, points: Any, _ev: Any = None) -> None:
        if len(points):
            i = int(points[0].data())
            self.pointClicked.emit({self._axes[0][0]: self._axes[0][1][i]})

    def _heat_cell_at(self, scene_pos: QPointF) -> tuple[int, int] | None:
        if len(self._axes) != 2:
            return None
        vb = self.heat_plot.getPlotItem().vb
        if not vb.sceneBoundingRect().contains(scene_pos):
            return None
        p = vb.mapSceneToView(scene_pos)
        ix, iy = int(math.floor(p.x())), int(math.floor(p.y()))
        if 0 <= ix < len(self._axes[0][1]) and 0 <= iy < len(self._axes[1][1]):
            return ix, iy
        return None

    def _on_heat_hover(self, scene_pos: QPointF) -> None:
        cell = self._heat_cell_at(scene_pos)
        self.heat_plot.setToolTip(self.cell_tooltip(*cell) if cell else "")

    def _on_heat_click(self, ev: Any) -> None:
        cell = self._heat_cell_at(ev.scenePos())
        if cell is not None:
            self.pointClicked.emit({self._axes[0][0]: self._axes[0][1][cell[0]],
                                    self._axes[1][0]: self._axes[1][1][cell[1]]})

    def _choose_export(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, self.tr("Export sweep"), "sweep.png",
                                              self.tr("PNG image (*.png);;SVG vector image (*.svg)"))
        if path:
            self.export(path)


def _demo() -> list[QWidget]:  # pragma: no cover - manual preview
    from .demo_results import demo_sweep_1d, demo_sweep_2d

    one, two = SweepView("GB/s"), SweepView("TFLOP/s")
    one.set_sweep(demo_sweep_1d())
    two.set_sweep(demo_sweep_2d())
    one.resize(720, 420)
    two.resize(620, 520)
    return [one, two]


if __name__ == "__main__":  # pragma: no cover
    preview(_demo)
