"""ThroughputView: one point per run, live — how fast each configuration the user tried ran.

y is the kernel's metric (GB/s or TFLOP/s) for GPU runs, with the 20th–80th percentile of the
timing as error bars, torch's figure for the same inputs (timed interleaved with the kernel) as a
second series, and the device's peak as a horizontal line whose label names where it came from
(the best cuBLAS shape, or a run above it) and the data sheet's figure. The run axis counts whole
runs. A point is ringed when its run was throttled or its clock not steady (``RunResult.clocks``),
or when its median falls outside the p20–p80 spread of earlier runs of the same configuration (an
outlier); its tooltip says which, with the SM and memory clocks, temperature and power — or
"clocks unknown". Interpreter runs have no GPU speed: they plot wall-clock milliseconds under a
banner that says so, and the y axis changes with them.

Plot items are created once and updated with ``setData``; redraws are coalesced to at most
~60 per second so a burst of results (a sweep streaming in) costs one redraw, not one each, and
never come closer together than the last frame took to draw.
What a frame costs is mostly the lines' pen: an antialiased 1.5-px polyline over a few hundred
zig-zagging points takes Qt's slow path (~90 ms a frame at 250 points, measured offscreen), a
1-px one the fast path (~10 ms at 1000). So the lines are drawn 1 px from ``_THIN`` points on,
and past ``_DENSE`` the error bars and torch's markers (which only hide each other by then)
are dropped too.
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QFontMetricsF
from PySide6.QtWidgets import QFileDialog, QLabel, QPushButton, QWidget

from kernels.data.backends import GPU, INTERPRETER, is_interpreter
from kernels.data.results import RunResult

from . import theme
from .empty_plot import EmptyPlot
from .layout import column, row
from .preview import preview
from .text_fit import elided, lines_width, set_title_within

__all__ = ["ThroughputView", "format_values", "result_figures"]

_REDRAW_MS = 16  # coalesce redraws to at most ~60 per second
_REDRAW_MAX_MS = 250  # ... and, however slow a frame, at least 4 per second
_THIN = 64  # runs on screen from which the lines are drawn 1 px wide (see the module doc)
_DENSE = 300  # runs on screen beyond which error bars and torch markers are dropped
#: flags of a point (bits of the series' "flag" column)
FLAG_OUTLIER = 1
FLAG_THROTTLED = 2
#: earlier runs of a configuration needed before a point can be called an outlier
_OUTLIER_MIN_RUNS = 2
#: ... each timed with at least this many reps (its p20–p80 is a spread)
_OUTLIER_MIN_REPS = 5
#: where the peak line's label starts, as a fraction of the plot's width from its left edge
_PEAK_AT = 0.02


def format_values(values: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in values.items())


def result_figures(r: RunResult, metric: str) -> dict[str, float] | None:
    """The numbers a point of ``r`` plots, or None if the run has no timing.

    GPU: ``y`` in ``metric``, ``lo``/``hi`` the figure at the p80/p20 times (throughput is work
    over time, so the slow end is the low end), ``torch`` (NaN if absent). Interpreter: the same
    keys in milliseconds.
    """
    t = r.timing
    if t is None or not (t.median_ms and t.median_ms > 0):
        return None
    m = r.metrics
    nan = float("nan")
    if t.is_interpreter or is_interpreter(r.backend):
        torch_ms = m.torch_timing.median_ms if (m and m.torch_timing) else nan
        return {"y": t.median_ms, "lo": t.p20_ms, "hi": t.p80_ms, "torch": torch_ms}
    tflops = metric == "TFLOP/s"
    y = None
    if m is not None:
        y = m.tflops if tflops else m.gbps
        if y is None:  # derive from the work model when the engine left the figure out
            work = m.flops / 1e9 if tflops else m.bytes_moved / 1e6
            y = work / t.median_ms if work else None
    if y is None:
        return None
    lo = y * t.median_ms / t.p80_ms if t.p80_ms > 0 else y
    hi = y * t.median_ms / t.p20_ms if t.p20_ms > 0 else y
    torch = nan
    if m is not None:
        tv = m.torch_tflops if tflops else m.torch_gbps
        if tv is None and m.torch_timing is not None and m.torch_timing.median_ms > 0:
            work = m.flops / 1e9 if tflops else m.bytes_moved / 1e6
            tv = work / m.torch_timing.median_ms if work else None
        torch = tv if tv is not None else nan
    return {"y": y, "lo": min(lo, y), "hi": max(hi, y), "torch": torch}


class _Series:
    """Growable column arrays for one mode (gpu or interpreter); amortised O(1) appends."""

    FIELDS = ("x", "y", "lo", "hi", "torch", "idx", "ok", "flag")

    def __init__(self) -> None:
        self.n = 0
        self._cap = 0
        self.cols: dict[str, np.ndarray] = {}
        self._grow(64)

    def _grow(self, cap: int) -> None:
        new = {f: np.full(cap, np.nan) for f in self.FIELDS}
        for f, a in self.cols.items():
            new[f][: self.n] = a[: self.n]
        self.cols, self._cap = new, cap

    def append(self, **vals: float) -> None:
        if self.n == self._cap:
            self._grow(self._cap * 2)
        for f in self.FIELDS:
            self.cols[f][self.n] = vals[f]
        self.n += 1

    def __getitem__(self, f: str) -> np.ndarray:
        return self.cols[f][: self.n]


class ThroughputView(QWidget):
    """Live per-run throughput plot.

    Signals: pointClicked(int run_index) — index into ``results()`` of a clicked point, so the
    app can put that configuration back into the parameter panel.
    """

    pointClicked = Signal(int)

    def __init__(self, metric: str = "GB/s", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        theme.configure()
        self._metric = metric
        self._results: list[RunResult] = []
        self._series = {GPU: _Series(), INTERPRETER: _Series()}
        self._mode = GPU
        self._dense = False
        self._pens = (False, False)  # (thin, dense) the line pens are for
        self._dots: tuple[str, int] = (GPU, 0)  # (series, runs) the scatter holds
        self._shown_mode: tuple[str, str] | None = None  # (mode, metric) the labels say
        self._peak_override: float | None = None
        self._peak_from_results: float | None = None
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(_REDRAW_MS)
        self._flush_s = 0.0  # how long the last flush took (see _schedule)
        self._timer.timeout.connect(self.flush)

        self.banner = QLabel(self.tr("Interpreter wall-clock time — not GPU speed"), self)
        self.banner.setObjectName("interpreter_banner")
        self.banner.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.banner.setStyleSheet("background: #fff3c4; color: #6b4e00; border: 1px solid #e0c060;"
                                  " padding: 4px; font-weight: bold;")
        self.banner.setToolTip(self.tr("The Triton interpreter runs each program in Python on the CPU; its time "
                                       "says nothing about how fast the kernel runs on a GPU."))
        self.banner.hide()

        self.plot = _TimedPlotWidget(self, axisItems={"bottom": RunAxis("bottom")})
        pi = self.plot.getPlotItem()
        pi.showGrid(x=True, y=True, alpha=0.25)
        # no minor ticks: the axes redraw every tick and grid line on each range change, and the
        # minor ones made that ~10 ms a frame (1000-point live plot: 66 -> 23 ms per add, bench_gui live)
        for name in ("left", "bottom"):
            pi.getAxis(name).setStyle(maxTickLevel=1)
        pi.setLabel("bottom", self.tr("run"))
        # the legend is on the bottom axis' line, after "run" (``_apply_mode``), never a box over
        # the points: at 1366×768 the plot is ~110 px tall and a box in it covered the newest runs
        self.legend_names: tuple[str, str] = ("Triton", "torch")
        self.triton_line = pi.plot(pen=pg.mkPen(theme.TRITON, width=1.5), name="Triton")
        self.error_bars = pg.ErrorBarItem(pen=pg.mkPen(theme.TRITON, width=1), beam=0.35)
        pi.addItem(self.error_bars)
        self.torch_line = pi.plot(pen=pg.mkPen(theme.TORCH, width=1.5, style=Qt.PenStyle.DashLine),
                                  symbol="s", symbolSize=5, symbolBrush=theme.TORCH, symbolPen=None,
                                  name="torch")
        for line in (self.triton_line, self.torch_line):
            # no clipping, downsampling or range limiting: each makes a line rebuild its path
            # whenever the view range changes (every new run moves it), ~1 ms a frame, which a
            # few thousand points do not need
            line.setDynamicRangeLimit(None)
        self._brush_ok = pg.mkBrush(theme.TRITON)
        self._brush_bad = pg.mkBrush(theme.FAIL)
        self._pen_plain = pg.mkPen("w", width=0.8)
        self._pen_flag = pg.mkPen(theme.ACCENT_WARN, width=2.2)  # a ring: throttled, unsteady or outlier
        self._peak_source = ""
        self._peak_datasheet: float | None = None
        self.points = pg.ScatterPlotItem(size=8, pen=pg.mkPen("w", width=0.8), brush=self._brush_ok,
                                         hoverable=True, hoverSize=11, hoverBrush=pg.mkBrush("#ffd21f"),
                                         tip=self._tip)
        self.points.sigClicked.connect(self._on_click)
        pi.addItem(self.points)
        # An invisible item spanning 0 .. peak keeps both in the auto range (an InfiniteLine is
        # ignored by auto-ranging), so the peak line is always on screen and bars start at zero.
        self._bounds = pg.ScatterPlotItem(size=0, pen=None, brush=None)
        pi.addItem(self._bounds)
        self.peak_line = pg.InfiniteLine(angle=0, movable=False,
                                         pen=pg.mkPen(theme.PEAK, width=1, style=Qt.PenStyle.DotLine),
                                         label="", labelOpts={"position": _PEAK_AT, "color": theme.PEAK,
                                                              "anchors": [(0, 1), (0, 1)],
                                                              "fill": (255, 255, 255, 200)})
        self.peak_line.hide()
        pi.addItem(self.peak_line, ignoreBounds=True)
        self._titles: tuple[str, ...] = ()  # the title's wordings, longest first (_fit_title)
        self._peak_lines = 1  # lines of the peak label shown (the room above the line follows)
        pi.getViewBox().sigResized.connect(self._fit_texts)
        self.empty = EmptyPlot(pi, self.tr("No runs yet."))
        self.empty.set_empty(True)

        self.summary = QLabel(self.tr("No runs yet."), self)
        self.summary.setObjectName("summary")
        self.summary.setWordWrap(True)
        self.export_button = QPushButton(theme.icon("export"), self.tr("Export…"), self)
        self.export_button.setToolTip(self.tr("Save the plot as PNG or SVG"))
        self.export_button.clicked.connect(self._choose_export)
        theme.install_export_menu(self.plot, self._choose_export)
        self.clear_button = QPushButton(self.tr("Clear"), self)
        self.clear_button.clicked.connect(self.clear)
        column(self, self.banner, (self.plot, 1), row((self.summary, 1), self.clear_button, self.export_button))
        self._apply_mode()

    # -- public API ----------------------------------------------------------------------------
    def metric_name(self) -> str:
        return self._metric

    def set_metric(self, metric: str) -> None:
        """"GB/s" or "TFLOP/s" (the kernel's ``KernelInfo.metric``); recomputes the points."""
        if metric == self._metric:
            return
        self._metric = metric
        old = self._results
        self.clear()
        for r in old:
            self.add_result(r)
        self.flush()

    def add_result(self, result: RunResult) -> bool:
        """Add one run (run number = how many were added since ``clear``). Returns False if the
        run has nothing to plot (it failed before timing). The plot follows the backend of the
        latest timed run: GPU throughput, or interpreter milliseconds."""
        self._results.append(result)
        run_no = len(self._results)
        figs = result_figures(result, self._metric)
        if figs is None:
            self._schedule()
            return False
        mode = INTERPRETER if (is_interpreter(result.backend) or result.timing.is_interpreter) else GPU
        ok = 1.0 if (result.check is None or result.check.passed) else 0.0
        flag = self._flags(result, mode)
        self._series[mode].append(x=run_no, y=figs["y"], lo=figs["lo"], hi=figs["hi"], torch=figs["torch"],
                                  idx=run_no - 1, ok=ok, flag=flag)
        if mode == GPU and result.metrics is not None:
            peak = result.metrics.peak_tflops if self._metric == "TFLOP/s" else result.metrics.peak_gbps
            if peak:
                self._peak_from_results = peak
                self._peak_source = getattr(result.metrics, "peak_source", "") or ""
                self._peak_datasheet = getattr(result.metrics, "peak_datasheet", None)
        self._mode = mode
        self._schedule()
        return True

    def clear(self) -> None:
        self._results = []
        self._series = {GPU: _Series(), INTERPRETER: _Series()}
        self._peak_from_results = None
        self._peak_source, self._peak_datasheet = "", None
        self._mode = GPU
        self.flush()  # the empty state; auto range comes back with the next run

    def set_peak(self, value: float | None) -> None:
        """Override the peak line (default: the latest GPU result's measured peak)."""
        self._peak_override = value
        self._schedule()

    def peak(self) -> float | None:
        return self._peak_override if self._peak_override is not None else self._peak_from_results

    def mode(self) -> str:
        """"gpu" or "interpreter": which series is on screen."""
        return self._mode

    def results(self) -> list[RunResult]:
        return list(self._results)

    def point_data(self) -> dict[str, np.ndarray]:
        """The on-screen series as arrays: x, y, lo, hi, torch, idx, ok (after pending redraws)."""
        s = self._series[self._mode]
        return {f: s[f].copy() for f in _Series.FIELDS}

    def flush(self) -> None:
        """Redraw now instead of waiting for the coalescing timer."""
        t0 = time.perf_counter()
        try:
            self._flush()
        finally:
            self._flush_s = time.perf_counter() - t0

    def _flush(self) -> None:
        self._timer.stop()
        self._apply_mode()
        s = self._series[self._mode]
        x, y = s["x"], s["y"]
        self.empty.set_empty(s.n == 0)
        self.triton_line.setData(x, y)
        # Past a few hundred runs, beams and markers only hide each other (and cost paint time):
        # keep the lines and small dots, drop the error bars and torch's markers.
        dense = s.n > _DENSE
        if dense != self._dense:
            self.points.setSize(5 if dense else 8)  # every spot: only when it changes
            self.error_bars.setVisible(not dense)
            self.torch_line.setSymbol(None if dense else "s")
            self._dense = dense
        pens = (s.n >= _THIN, dense)
        if pens != self._pens:
            w = 1 if pens[0] else 1.5
            self.triton_line.setPen(pg.mkPen(theme.TRITON, width=w))
            self.torch_line.setPen(pg.mkPen(theme.TORCH, width=w,
                                            style=Qt.PenStyle.SolidLine if dense else Qt.PenStyle.DashLine))
            self._pens = pens
        # the dots: only the runs added since the last redraw are appended (re-setting a
        # thousand spots took ~3 ms a frame); anything else (another series, fewer runs) redraws all
        shown_mode, shown_n = self._dots
        k = shown_n if (shown_mode == self._mode and shown_n <= s.n) else 0
        if s.n > k:
            ok = s["ok"][k:]
            brushes = [self._brush_ok if v else self._brush_bad for v in ok] if not ok.all() else self._brush_ok
            flags = s["flag"][k:]
            pens = [self._pen_flag if f else self._pen_plain for f in flags] if flags.any() else self._pen_plain
            pts = {"x": x[k:], "y": y[k:], "data": s["idx"][k:].astype(int), "brush": brushes, "pen": pens}
            self.points.addPoints(**pts) if k else self.points.setData(**pts)
        elif k == 0:
            self.points.setData(x=[], y=[])
        self._dots = (self._mode, s.n)
        if not dense:  # hidden when dense: not worth its ~1 ms a frame
            self.error_bars.setData(x=x, y=y, top=s["hi"] - y, bottom=y - s["lo"])
        tmask = np.isfinite(s["torch"])
        self.torch_line.setData(x[tmask], s["torch"][tmask])
        peak = self.peak() if self._mode == GPU else None
        if peak:
            self.peak_line.setValue(peak)
            self.peak_line.show()  # before setFormat: a hidden label ignores text updates
            self._fit_peak()
        else:
            self.peak_line.hide()
        top = max([peak or 0.0] + ([float(np.nanmax(s["hi"]))] if s.n else []))
        if peak:
            top *= self._peak_headroom()  # room above the peak line for its label, inside the plot
        if s.n:
            self._bounds.setData(x=[x[0], x[-1]], y=[0.0, top])
        else:
            self._bounds.setData(x=[], y=[])
        self._update_summary()

    def peak_label(self) -> str:
        """The peak line's text: the figure, where it came from, the data sheet's beside it."""
        peak = self.peak()
        if not peak:
            return ""
        if self._peak_override is not None or not self._peak_source:
            text = self.tr("peak {peak} {unit}").format(peak=_fmt(peak), unit=self._metric)
        else:
            text = self.tr("peak {peak} {unit} ({source})").format(peak=_fmt(peak), unit=self._metric,
                                                                   source=self._peak_source)
        if self._peak_datasheet and self._peak_override is None:
            text += " · " + self.tr("data sheet {value}").format(value=_fmt(self._peak_datasheet))
        return text

    def _peak_wordings(self) -> list[str]:
        """The peak label as one line, then the figures over the source, then the figures alone."""
        full = self.peak_label()
        figures = self.tr("peak {peak} {unit}").format(peak=_fmt(self.peak()), unit=self._metric)
        if self._peak_datasheet and self._peak_override is None:
            figures += " · " + self.tr("data sheet {value}").format(value=_fmt(self._peak_datasheet))
        source = self._peak_source if self._peak_override is None else ""
        return [full] + ([f"{figures}\n({source})"] if source else []) + [figures]

    def _fit_peak(self) -> None:
        """The peak label's first wording that fits the plot's width (two lines only where the
        plot is tall enough), else the figures cut with "…"."""
        label, vb = self.peak_line.label, self.plot.getPlotItem().getViewBox()
        wordings = self._peak_wordings()
        text = wordings[0]
        if vb.width() > 10:  # laid out: its size means something
            font = label.textItem.font()
            room = vb.width() * (1 - _PEAK_AT) - 2 * label.textItem.document().documentMargin() - 2
            line_h = QFontMetricsF(font).lineSpacing()
            # a second line (the source) is cut to the width rather than dropped, where there is height
            fitted = [t if "\n" not in t else t.split("\n")[0] + "\n" + elided(t.split("\n")[1], font, room)
                      for t in wordings]
            text = next((t for t in fitted if lines_width(t, font) <= room
                         and (t.count("\n") == 0 or (t.count("\n") + 1) * line_h <= 0.4 * vb.height())),
                        None) or elided(wordings[-1], font, room)
        self._peak_lines = text.count("\n") + 1
        label.setFormat(text)

    def _peak_headroom(self) -> float:
        """The factor from the peak to the top of the y range: room above the line for its label."""
        vb = self.plot.getPlotItem().getViewBox()
        if vb.height() <= 10:
            return 1.25
        item = self.peak_line.label.textItem
        need = self._peak_lines * QFontMetricsF(item.font()).lineSpacing() + 2 * item.document().documentMargin() + 4
        return max(1.25, 1.0 / (1.0 - min(need / vb.height(), 0.5)))

    def _fit_title(self) -> None:
        if self._titles:
            pi = self.plot.getPlotItem()
            set_title_within(pi, self._titles, pi.width() - 8 if pi.width() > 10 else float("inf"))

    def _fit_texts(self) -> None:
        """The plot's size changed: the title and the peak label fitted again, the y range too."""
        self._fit_title()
        if self.peak_line.isVisible():
            self._fit_peak()
            self._schedule()  # the room above the peak line follows the height

    def flags_of(self, run_index: int) -> int:
        """The flag bits (FLAG_OUTLIER, FLAG_THROTTLED) of run ``run_index``'s point (0: none)."""
        for s in self._series.values():
            hit = np.nonzero(s["idx"] == run_index)[0]
            if hit.size:
                return int(s["flag"][hit[0]])
        return 0

    def _same_config_runs(self, result: RunResult) -> list[int]:
        """Indices of the earlier timed runs of ``result``'s configuration (values, backend, device)."""
        out = []
        for i, r in enumerate(self._results[:-1]):
            if (r.kernel == result.kernel and r.values == result.values and r.backend == result.backend
                    and r.device == result.device and r.timing is not None and r.ok):
                out.append(i)
        return out

    def _flags(self, result: RunResult, mode: str) -> int:
        flag = 0
        c = getattr(result, "clocks", None)
        if mode == GPU and c is not None and getattr(c, "throttled", False):
            flag |= FLAG_THROTTLED
        # a spread needs reps: an interpreter run is one launch (p20 = p80), never an outlier
        earlier = [i for i in self._same_config_runs(result) if self._results[i].timing.n_reps >= _OUTLIER_MIN_REPS]
        if (len(earlier) >= _OUTLIER_MIN_RUNS and result.timing is not None
                and result.timing.n_reps >= _OUTLIER_MIN_REPS):
            lo = min(self._results[i].timing.p20_ms for i in earlier)
            hi = max(self._results[i].timing.p80_ms for i in earlier)
            if not lo <= result.timing.median_ms <= hi:
                flag |= FLAG_OUTLIER
        return flag

    def export(self, path: str | Path) -> Path:
        """Save the plot (with its legend and peak line) as .png or .svg."""
        self.flush()
        return theme.export_plot(self.plot.getPlotItem(), path)

    def tooltip_for(self, run_index: int) -> str:
        """The hover text of the point of run ``run_index`` (0-based index into ``results()``)."""
        r = self._results[run_index]
        figs = result_figures(r, self._metric) or {}
        lines = [self.tr("Run {n}").format(n=run_index + 1) + f" · {r.backend} · {r.device}", format_values(r.values)]
        t = r.timing
        if is_interpreter(r.backend) or (t and t.is_interpreter):
            lines.append(self.tr("interpreter wall clock: {median} ms [p20 {p20}, p80 {p80}] — not GPU speed").format(
                median=_fmt(t.median_ms), p20=_fmt(t.p20_ms), p80=_fmt(t.p80_ms)))
            if math.isfinite(figs.get("torch", math.nan)):
                lines.append(self.tr("torch on CPU: {ms} ms").format(ms=_fmt(figs["torch"])))
        elif t is not None:
            y = figs.get("y")
            pct = ""
            peak = self.peak()
            if y and peak:
                pct = self.tr(" ({pct:.0f}% of peak)").format(pct=100 * min(y / peak, 1.0))
            lines.append(f"Triton: {_fmt(y)} {self._metric}{pct}; " + self.tr(
                "median {median} ms [p20 {p20}, p80 {p80}]").format(median=_fmt(t.median_ms), p20=_fmt(t.p20_ms),
                                                                    p80=_fmt(t.p80_ms)))
            tv = figs.get("torch", math.nan)
            if math.isfinite(tv):
                ratio = r.metrics.ratio_vs_torch if r.metrics else None
                rs = self.tr("; Triton/torch speed {ratio:.2f}×").format(ratio=ratio) if ratio else ""
                lines.append(f"torch: {_fmt(tv)} {self._metric}{rs}")
            lines.append(self._clocks_line(r))
        flag = self.flags_of(run_index)
        if flag & FLAG_THROTTLED:
            note = getattr(getattr(r, "clocks", None), "note", "")
            lines.append(self.tr("throttled: {why}").format(why=note or self.tr("clock below its top")))
        if flag & FLAG_OUTLIER:
            runs = ", ".join(str(i + 1) for i in self._same_config_runs_before(run_index))
            lines.append(self.tr("outlier: outside the p20–p80 spread of runs {runs} (same configuration)").format(
                runs=runs))
        if r.check is not None:
            lines.append(self.tr("check: PASS") if r.check.passed else
                         self.tr("check: FAIL — {reason}").format(reason=r.check.reason))
        if r.error is not None:
            lines.append(self.tr("error: {message}").format(message=r.error.message))
        return "\n".join(lines)

    def _clocks_line(self, r: RunResult) -> str:
        c = getattr(r, "clocks", None)
        if c is None or not getattr(c, "known", False):
            why = getattr(c, "note", "") if c is not None else ""
            return self.tr("clocks unknown") + (f" ({why})" if why and why != "clocks unknown" else "")
        parts = [self.tr("SM {sm}/{top} MHz").format(sm=c.sm_mhz, top=c.sm_max_mhz or "—"),
                 self.tr("memory {mem} MHz").format(mem=c.mem_mhz)]
        if c.temp_c is not None:
            parts.append(f"{c.temp_c} °C")
        if c.power_w is not None:
            parts.append(f"{c.power_w:.0f} W")
        if c.warm_s:
            parts.append(self.tr("warmed {ms} ms").format(ms=f"{1e3 * c.warm_s:.0f}"))
        return self.tr("clocks: ") + " · ".join(parts)

    def _same_config_runs_before(self, run_index: int) -> list[int]:
        keep = self._results
        try:
            self._results = keep[: run_index + 1]
            return self._same_config_runs(keep[run_index])
        finally:
            self._results = keep

    # -- internals -----------------------------------------------------------------------------
    def _tip(self, x: float, y: float, data: Any) -> str:
        return self.tooltip_for(int(data))

    def _on_click(self, _item: Any, points: Any, _ev: Any = None) -> None:
        if len(points):
            self.pointClicked.emit(int(points[0].data()))

    def _schedule(self) -> None:
        if not self._timer.isActive():
            # wait at least as long as the last frame took (its data update and its paint): a
            # stream of results then leaves the window at least half its time for the user,
            # whatever one frame costs (~20 ms at 1000 runs here)
            frame_ms = 1000.0 * (self._flush_s + self.plot.last_paint_s)
            self._timer.start(int(min(_REDRAW_MAX_MS, max(_REDRAW_MS, frame_ms))))

    def _apply_mode(self) -> None:
        interp = self._mode == INTERPRETER
        self.banner.setVisible(interp)
        if self._shown_mode == (self._mode, self._metric):
            return  # rich-text labels cost ~2 ms to set, even unchanged
        self._shown_mode = (self._mode, self._metric)
        pi = self.plot.getPlotItem()
        if interp:
            pi.setLabel("left", "ms")  # short: the axis is the plot's height (the title and banner say what)
            title = self.tr("Interpreter runs (CPU): milliseconds, lower is better")
            short = self.tr("ms per run (CPU), lower is better")
            self.legend_names = (self.tr("Triton interpreter (ms)"), self.tr("torch on CPU (ms)"))
        else:
            pi.setLabel("left", self._metric)
            title = self.tr("Throughput per run ({unit}, higher is better)").format(unit=self._metric)
            short = self.tr("{unit} per run, higher is better").format(unit=self._metric)
            self.legend_names = ("Triton", "torch")
        self._titles = (title, short)
        self._fit_title()
        pi.setLabel("bottom", f"{self.tr('run')}&nbsp;&nbsp;&nbsp;&nbsp;<span style='color:{theme.TRITON}'>&#9679; "
                    f"{self.legend_names[0]}</span>&nbsp;&nbsp;<span style='color:{theme.TORCH}'>&#9632; "
                    f"{self.legend_names[1]}</span>")
        for name in ("left", "bottom"):
            # pyqtgraph centres an axis' label only when the axis is resized: without this the
            # interpreter's longer legend stayed where the GPU one had been centred and ran ~40 px
            # past the plot's right edge at 1366×768
            pi.getAxis(name).resizeEvent()

    def _update_summary(self) -> None:
        s = self._series[self._mode]
        if not self._results:
            self.summary.setText(self.tr("No runs yet."))
            return
        if s.n == 0:
            self.summary.setText(self.tr("{n} runs, none timed.").format(n=len(self._results)))
            return
        i = int(s["idx"][-1])
        y = float(s["y"][-1])
        if self._mode == INTERPRETER:
            text = self.tr("Run {n}: {ms} ms (interpreter wall clock)").format(n=i + 1, ms=_fmt(y))
        else:
            text = self.tr("Run {n}").format(n=i + 1) + f": {_fmt(y)} {self._metric}"
            peak = self.peak()
            if peak:
                text += self.tr(" = {pct:.0f}% of peak").format(pct=100 * min(y / peak, 1.0))
            tv = float(s["torch"][-1])
            if math.isfinite(tv):
                text += f"; torch {_fmt(tv)} {self._metric} (Triton/torch {y / tv:.2f}×)"
        skipped = len(self._results) - self._series[GPU].n - self._series[INTERPRETER].n
        if skipped:
            text += self.tr(" · {n} run(s) without timing").format(n=skipped)
        self.summary.setText(text)

    def _choose_export(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, self.tr("Export plot"), "throughput.png",
                                              self.tr("PNG image (*.png);;SVG vector image (*.svg)"))
        if path:
            self.export(path)


class RunAxis(pg.AxisItem):
    """The run axis: whole run numbers only (never 1.5), labelled without decimals."""

    def tickValues(self, minVal: float, maxVal: float, size: float) -> list:  # noqa: N802, N803 (pyqtgraph's names)
        levels = [(sp, [v for v in vals if float(v).is_integer()])
                  for sp, vals in super().tickValues(minVal, maxVal, size) if sp >= 1]
        levels = [(sp, vals) for sp, vals in levels if vals]
        if not levels:  # a range under one run: the whole numbers in it
            vals = [float(v) for v in range(math.ceil(minVal), math.floor(maxVal) + 1)]
            levels = [(1.0, vals)] if vals else []
        return levels

    def tickStrings(self, values: list, scale: float, spacing: float) -> list[str]:  # noqa: N802
        return [str(int(round(v * scale))) for v in values]


class _TimedPlotWidget(pg.PlotWidget):
    """A PlotWidget that remembers how long its last paint took (``last_paint_s``)."""

    last_paint_s = 0.0

    def paintEvent(self, ev):  # noqa: N802 (Qt's name)
        t0 = time.perf_counter()
        try:
            return super().paintEvent(ev)
        finally:
            self.last_paint_s = time.perf_counter() - t0


def _fmt(v: float | None) -> str:
    if v is None or not math.isfinite(v):
        return "—"
    a = abs(v)
    if a >= 100:
        return f"{v:,.0f}"
    if a >= 10:
        return f"{v:.1f}"
    if a >= 1:
        return f"{v:.2f}"
    return f"{v:.3g}"


def _demo() -> QWidget:  # pragma: no cover - manual preview
    from .demo_results import demo_run_results

    w = ThroughputView("GB/s")
    results = demo_run_results(40)
    results[7].check.passed = False
    it = iter(results)
    timer = QTimer(w)  # the results arrive one by one, as from a running sweep

    def feed() -> None:
        r = next(it, None)
        if r is None:
            timer.stop()
        else:
            w.add_result(r)

    timer.timeout.connect(feed)
    timer.start(80)
    w.resize(720, 420)
    return w


if __name__ == "__main__":  # pragma: no cover
    preview(_demo)
