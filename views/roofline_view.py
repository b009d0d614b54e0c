"""RooflineView: every run and sweep point by arithmetic intensity, under the device's measured roofs.

x is the arithmetic intensity, FLOPs per byte moved, from the kernel's own bytes and FLOP model
(``flops / bytes = tflops * 1e3 / gbps``); y the attained TFLOP/s; both axes logarithmic. The
roofs are the device's *measured* peaks that the runs carry (``Metrics.peak_gbps``, the best of
three device-to-device copies, and ``Metrics.peak_tflops``, the best of three cuBLAS matmul shapes
in the run's dtype: ``kernels.run.peaks``): the memory roof
``y = copy GB/s × x / 1000`` up to the ridge, the compute roof after it. A point far under its
roof has headroom; one on the slanted roof is bound by memory bandwidth.

Under the interpreter there is no GPU and no peak: the roofs are unavailable (the title says
so) and the points, hollow, sit at their wall-clock rate, which says nothing of GPU speed; their
intensity (x) is the kernel's own and still tells memory-bound from compute-bound.

Clicking a point emits its values (``pointClicked``) so the window can load them.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, Signal
from PySide6.QtWidgets import QLabel, QWidget

from kernels.data.backends import is_interpreter
from kernels.data.results import RunResult, SweepPoint

from . import theme
from .empty_plot import EmptyPlot
from .layout import column
from .preview import preview
from .sweep_data import Roofs, point_values, roofline_point, roofs_of

__all__ = ["RooflineView"]

_PICK_PX = 10  # a click or hover this close to a point picks it
_SWEEP = "#8c564b"


def _plain(v: float) -> str:
    """1.5e-06 -> "1.5e-06", 0.02 -> "0.02", 40 -> "40", 2000 -> "2k", 3e6 -> "3M"."""
    for div, unit in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if v >= div:
            return f"{v / div:.3g}{unit}"
    if v >= 1e-3:
        return f"{v:.3g}"
    mant, exp = f"{v:.0e}".split("e")
    return f"{mant}e{int(exp)}"  # 2e-6, not 2e-06


def _span(lo: float, hi: float, decades: float = 1.0) -> tuple[float, float]:
    """(lo, hi) widened to at least ``decades`` around its middle (log10 units): one point alone
    still gets ticks on both sides."""
    mid, half = (lo + hi) / 2, max((hi - lo) / 2, decades / 2)
    return mid - half, mid + half


class _LogAxis(pg.AxisItem):
    """Log-axis ticks as plain numbers; between decades only 2 and 5 are labelled (all nine
    crowded into each other on a plot a few hundred pixels wide)."""

    def logTickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:  # noqa: N802
        out = []
        for lv in values:
            v = 10 ** float(lv) * scale
            mant = v / 10 ** math.floor(math.log10(v) + 1e-9) if v > 0 else 0
            out.append(_plain(v) if len(values) <= 6 or round(mant) in (1, 2, 5) else "")
        return out


class RooflineView(QWidget):
    """Runs and sweep points on a roofline. Signals: pointClicked(dict) — the clicked point's values."""

    pointClicked = Signal(dict)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        theme.configure()
        self._runs: list[RunResult] = []
        self._sweep: list[SweepPoint] = []
        self._best: int | None = None  # into the sweep points
        self._hollow = False
        # what is drawn, for picking: (kind, index into runs / sweep points, log10 x, log10 y)
        self._placed: list[tuple[str, int, float, float]] = []

        self.title = QLabel(self.tr("No runs yet."), self)
        self.title.setObjectName("roofline_title")
        self.title.setWordWrap(True)
        self.plot = pg.PlotWidget(self, axisItems={"bottom": _LogAxis("bottom"), "left": _LogAxis("left")})
        pi = self.plot.getPlotItem()
        pi.setLogMode(x=True, y=True)
        pi.showGrid(x=True, y=True, alpha=0.2)
        pi.setLabel("bottom", self.tr("arithmetic intensity (FLOP / byte)"))
        pi.setLabel("left", self.tr("attained TFLOP/s"))
        for side in ("bottom", "left"):
            pi.getAxis(side).enableAutoSIPrefix(False)  # the ticks say the numbers themselves
        self.legend = pi.addLegend(offset=(-10, -10))  # bottom right: high intensity, low rate is rarely anyone
        self.roof = pi.plot(pen=pg.mkPen(theme.PEAK, width=2))
        self._roof_in_legend = False
        self.runs_item = pi.plot(pen=None, symbol="o", symbolSize=9, symbolBrush=theme.TRITON, symbolPen="w",
                                 name=self.tr("runs"))
        self.sweep_item = pi.plot(pen=None, symbol="s", symbolSize=7, symbolBrush=pg.mkBrush(_SWEEP),
                                  symbolPen=None, name=self.tr("sweep points"))
        self.best_item = pi.plot(pen=None, symbol="star", symbolSize=16, symbolBrush="#ffd21f",
                                 symbolPen=pg.mkPen("k"), name=self.tr("best of the sweep"))
        self.mem_text = pg.TextItem("", color=theme.PEAK, anchor=(0, 1))
        self.cpu_text = pg.TextItem("", color=theme.PEAK, anchor=(1, 1))
        for t in (self.mem_text, self.cpu_text):
            pi.addItem(t, ignoreBounds=True)
        self.empty = EmptyPlot(pi, self.tr("No runs yet."), auto_range=False)  # its ranges: _set_range
        self.empty.set_empty(True)
        self.plot.scene().sigMouseMoved.connect(self._on_hover)
        self.plot.scene().sigMouseClicked.connect(self._on_click)
        theme.install_export_menu(self.plot, lambda: None)
        column(self, self.title, (self.plot, 1))

    # -- public API ----------------------------------------------------------------------------
    def clear(self) -> None:
        self._runs, self._sweep, self._best = [], [], None
        self._redraw()

    def add_run(self, r: RunResult) -> None:
        self._runs.append(r)
        self._redraw()

    def set_runs(self, runs: list[RunResult]) -> None:
        self._runs = list(runs)
        self._redraw()

    def set_sweep(self, points: list[SweepPoint], best: int | None = None) -> None:
        """The sweep's points (``best``: index of the winner among them)."""
        self._sweep, self._best = list(points), best
        self._redraw()

    def add_sweep_point(self, p: SweepPoint) -> None:
        self._sweep.append(p)
        self._redraw()

    def roofs(self) -> Roofs:
        return roofs_of([*self._runs, *(p.result for p in self._sweep)])

    def point_data(self) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """The points placed, in data units (intensity FLOP/byte, TFLOP/s): "runs" and "sweep"."""
        out = {}
        for kind in ("runs", "sweep"):
            pts = [(10 ** lx, 10 ** ly) for k, _i, lx, ly in self._placed if k == kind]
            out[kind] = (np.array([p[0] for p in pts]), np.array([p[1] for p in pts]))
        return out

    def placed(self) -> list[tuple[str, int, float, float]]:
        """(kind, index, intensity, TFLOP/s) of each point drawn."""
        return [(k, i, 10 ** lx, 10 ** ly) for k, i, lx, ly in self._placed]

    def tooltip_for(self, kind: str, index: int) -> str:
        r = self._runs[index] if kind == "runs" else self._sweep[index].result
        pt = roofline_point(r)
        vals = self._sweep[index].values if kind == "sweep" else r.values
        head = ", ".join(f"{k}={v}" for k, v in vals.items())
        if pt is None:
            return head
        lines = [head, self.tr("intensity {i:.3g} FLOP/byte, {t:.3g} TFLOP/s").format(i=pt.intensity, t=pt.tflops)]
        roofs = self.roofs()
        if roofs.ok and not pt.interp:
            cap = float(roofs.attainable(np.array([pt.intensity]))[0])
            bound = self.tr("memory") if pt.intensity < (roofs.ridge or 0) else self.tr("compute")
            lines.append(self.tr("{pct:.0f}% of the {bound} roof ({cap:.3g} TFLOP/s)").format(
                pct=100 * pt.tflops / cap, bound=bound, cap=cap))
        if pt.interp:
            lines.append(self.tr("interpreter wall clock, not GPU speed"))
        lines.append(self.tr("click: load these values into the parameters"))
        return "\n".join(lines)

    def export(self, path: str | Path) -> Path:
        return theme.export_plot(self.plot.getPlotItem(), path)

    # -- drawing -------------------------------------------------------------------------------
    def _redraw(self) -> None:
        self._placed = []
        runs = self._place("runs", self._runs)
        sweep = self._place("sweep", [p.result for p in self._sweep])
        self._set(self.runs_item, runs)
        self._set(self.sweep_item, sweep)
        best = [(lx, ly) for k, i, lx, ly in self._placed if k == "sweep" and i == self._best]
        self._set(self.best_item, best)
        interp = any(is_interpreter(r.backend) for r in self._runs) or any(
            is_interpreter(p.result.backend) for p in self._sweep)
        if interp != self._hollow:  # interpreter points: hollow, they are no GPU speed
            self._hollow = interp
            for item, colour in ((self.runs_item, theme.TRITON), (self.sweep_item, _SWEEP)):
                item.setSymbolBrush(pg.mkBrush(0, 0, 0, 0) if interp else pg.mkBrush(colour))
                item.setSymbolPen(pg.mkPen(colour, width=2) if interp else pg.mkPen("w"))
        self._draw_roofs()
        self.empty.set_empty(not self._placed and not self.roofs().ok)
        self._set_range()
        self._update_title()

    def _set_range(self) -> None:
        """Decades around the points and the roofs, so the ridge and the headroom are in view."""
        xs = [lx for _k, _i, lx, _ly in self._placed]
        ys = [ly for _k, _i, _lx, ly in self._placed]
        roofs = self.roofs()
        if roofs.ok:
            x, y = self.roof.getData()  # log10 of the roof's corners
            xs, ys = xs + list(x), ys + list(y)
        if xs:
            pi = self.plot.getPlotItem()
            pi.setXRange(*_span(min(xs) - 0.15, max(xs) + 0.15), padding=0)
            pi.setYRange(*_span(min(ys) - 0.3, max(ys) + 0.3), padding=0)

    def _place(self, kind: str, results: list[RunResult]) -> list[tuple[float, float]]:
        out = []
        for i, r in enumerate(results):
            pt = roofline_point(r)
            if pt is not None and pt.intensity > 0 and pt.tflops > 0:
                lx, ly = math.log10(pt.intensity), math.log10(pt.tflops)
                self._placed.append((kind, i, lx, ly))
                out.append((lx, ly))
        return out

    @staticmethod
    def _set(item: pg.PlotDataItem, logs: list[tuple[float, float]]) -> None:
        # the plot is in log mode: it takes data units and draws their log10
        item.setData([10 ** x for x, _ in logs], [10 ** y for _, y in logs])

    def _draw_roofs(self) -> None:
        roofs = self.roofs()
        if roofs.ok != self._roof_in_legend:  # listed only when there are roofs to draw
            self._roof_in_legend = roofs.ok
            if roofs.ok:
                self.legend.addItem(self.roof, self.tr("roofs (measured peaks)"))
            else:
                self.legend.removeItem(self.roof)
        if not roofs.ok:
            self.roof.setData([], [])
            self.mem_text.setText("")
            self.cpu_text.setText("")
            return
        ridge = roofs.ridge or 1.0
        xs = [10 ** lx for _k, _i, lx, _ly in self._placed] or [ridge]
        lo, hi = min(min(xs), ridge) / 4, max(max(xs), ridge) * 4
        x = np.array([lo, ridge, hi])
        self.roof.setData(x, roofs.attainable(x))
        self.mem_text.setText(self.tr("copy {gbps:,.0f} GB/s").format(gbps=roofs.copy_gbps))
        self.mem_text.setPos(math.log10(lo * 1.2), math.log10(float(roofs.attainable(np.array([lo * 1.2]))[0])))
        self.cpu_text.setText(self.tr("matmul {tflops:,.0f} TFLOP/s").format(tflops=roofs.matmul_tflops))
        self.cpu_text.setPos(math.log10(hi / 1.2), math.log10(roofs.matmul_tflops or 1.0))

    def _update_title(self) -> None:
        n_runs = sum(1 for k, *_ in self._placed if k == "runs")
        n_sweep = sum(1 for k, *_ in self._placed if k == "sweep")
        left = len(self._runs) + len(self._sweep) - n_runs - n_sweep
        if not self._runs and not self._sweep:
            self.title.setText(self.tr("No runs yet: run the kernel (or sweep it) to place it on the roofline."))
            return
        roofs = self.roofs()
        parts = [(self.tr("1 run") if n_runs == 1 else self.tr("{n} runs").format(n=n_runs)) + ", "
                 + (self.tr("1 sweep point") if n_sweep == 1 else self.tr("{n} sweep points").format(n=n_sweep))]
        if left:
            parts.append(self.tr("{n} not placed (failed, untimed, or no FLOP model)").format(n=left))
        if roofs.ok:
            parts.append(self.tr("roofs measured on this device: copy {gbps:,.0f} GB/s, matmul {tflops:,.0f} "
                                 "TFLOP/s, ridge at {ridge:.3g} FLOP/byte").format(
                gbps=roofs.copy_gbps, tflops=roofs.matmul_tflops, ridge=roofs.ridge))
        else:
            parts.append(self.tr("roofs unavailable: no measured peaks (the interpreter has no GPU; a GPU run "
                                 "measures the copy bandwidth and matmul rate) — points sit at interpreter wall "
                                 "clock, not GPU speed"))
        self.title.setText(" · ".join(parts))

    # -- interaction -----------------------------------------------------------------------------
    def _pick(self, scene_pos: QPointF) -> tuple[str, int] | None:
        vb = self.plot.getPlotItem().vb
        if not self._placed or not vb.sceneBoundingRect().contains(scene_pos):
            return None
        best, best_d = None, float(_PICK_PX)
        for kind, i, lx, ly in self._placed:
            p = vb.mapViewToScene(QPointF(lx, ly))
            d = math.hypot(p.x() - scene_pos.x(), p.y() - scene_pos.y())
            if d <= best_d:
                best, best_d = (kind, i), d
        return best

    def _on_hover(self, scene_pos: QPointF) -> None:
        hit = self._pick(scene_pos)
        self.plot.setToolTip(self.tooltip_for(*hit) if hit else "")

    def _on_click(self, ev: Any) -> None:
        hit = self._pick(ev.scenePos())
        if hit is None:
            return
        kind, i = hit
        self.pointClicked.emit(dict(self._runs[i].values) if kind == "runs" else point_values(self._sweep[i]))


def _demo() -> QWidget:  # pragma: no cover - manual preview
    from .sweep_demo import demo_run, demo_sweep_tune

    w = RooflineView()
    res = demo_sweep_tune()
    w.set_sweep(res.points, res.best)
    for n in (512, 1024, 4096):
        w.add_run(demo_run({"M": n, "N": n, "K": n, "BLOCK_M": 128, "BLOCK_N": 128}, 2 * n**3 / 3e11))
    w.resize(760, 520)
    return w


if __name__ == "__main__":  # pragma: no cover
    preview(_demo)
