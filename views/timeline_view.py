"""The schedule of a launch as the GPU ran it: one row per SM, one bar per program from its start
to its end (``%globaltimer``), coloured by wave; the measured waves beside the formula's. Pointing
at a bar names the program and emits ``programHovered(pid)`` (the window lights it in the grid).

Takes a ``kernels.data.gpu_trace.Timeline`` (numpy only). Bars are drawn as line segments, a few
curves in all (one per wave colour), so a launch of 262,144 programs stays one draw call per
colour.

    python -m views.timeline_view      # a synthetic schedule (no GPU needed to look at the widget)
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Signal
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from kernels.data.gpu_trace import Timeline

__all__ = ["TimelineView", "synthetic_timeline"]

#: wave colours, cycled (neighbouring waves differ)
_WAVE_COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b")


class TimelineView(QWidget):
    programHovered = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._timeline: Timeline | None = None
        self._rows: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        self.plot = pg.PlotWidget(background="w")
        self.plot.setLabel("left", self.tr("SM"))
        self.plot.setLabel("bottom", self.tr("time since the first program started (µs)"))
        self.plot.setMouseEnabled(x=True, y=False)
        self.plot.showGrid(x=True, y=False, alpha=0.2)
        self._curves = [self.plot.plot([], [], pen=pg.mkPen(c, width=3), connect="pairs") for c in _WAVE_COLOURS]
        self.summary = QLabel(self._empty_text())
        self.summary.setWordWrap(True)
        self.hover = QLabel("")
        lay = QVBoxLayout(self)
        lay.setContentsMargins(2, 2, 2, 2)
        lay.addWidget(self.summary)
        lay.addWidget(self.plot, 1)
        lay.addWidget(self.hover)
        self.plot.scene().sigMouseMoved.connect(self._on_mouse)

    def set_timeline(self, tl: Timeline | None) -> None:
        self._timeline = tl
        if tl is None or tl.n_programs == 0:
            for c in self._curves:
                c.setData([], [])
            self._rows = None
            self.summary.setText(self._empty_text())
            return
        sm, start_us, end_us = tl.rows()
        t0 = float(start_us.min())
        start_us, end_us = start_us - t0, end_us - t0
        self._rows = (sm, start_us, end_us)
        wave = tl.waves()
        for k, curve in enumerate(self._curves):
            sel = np.flatnonzero(wave % len(self._curves) == k)
            x = np.empty(2 * sel.size)
            x[0::2], x[1::2] = start_us[sel], end_us[sel]
            y = np.repeat(sm[sel].astype(float), 2)
            curve.setData(x, y)
        self.plot.setYRange(-1, tl.n_sms, padding=0)
        self.plot.setXRange(0, float(end_us.max()), padding=0.02)
        self.summary.setText(self._summary(tl))

    def _empty_text(self) -> str:
        return self.tr("No GPU timeline yet: trace on the GPU with the timeline on.")

    def _summary(self, tl: Timeline) -> str:
        """What the schedule says, in the user's language: programs, SMs, span, measured waves
        against the formula's."""
        used = int(np.unique(tl.sm).size)
        build = (self.tr("the recording build, slowed by its recording") if tl.recording_build
                 else self.tr("a light timeline build"))
        first = self.tr("{n} programs on {used} of {sms} SMs in {span:.1f} µs ({build})").format(
            n=tl.n_programs, used=used, sms=tl.n_sms, span=tl.span_ns / 1e3, build=build)
        waves = self.tr("waves: measured {measured:.2f} (at most {resident} programs at once) · formula "
                        "{formula:.2f} ({sms} SMs × {per_sm} per SM)").format(
            measured=tl.measured_waves(), resident=tl.resident(), formula=tl.formula_waves(), sms=tl.n_sms,
            per_sm=tl.programs_per_sm)
        return first + "\n" + waves

    def sm_rows(self) -> list[int]:
        """The SMs drawn, one row each, that ran at least one program (ascending)."""
        return [] if self._rows is None else sorted(int(v) for v in np.unique(self._rows[0]))

    def program_at(self, x_us: float, y_sm: float) -> int | None:
        """The program running on SM ``round(y_sm)`` at time ``x_us`` (None: that SM was idle)."""
        if self._rows is None:
            return None
        sm, start_us, end_us = self._rows
        hit = np.flatnonzero((sm == int(round(y_sm))) & (start_us <= x_us) & (x_us <= end_us))
        return int(hit[0]) if hit.size else None

    def _on_mouse(self, pos) -> None:  # noqa: ANN001 - a QPointF from pyqtgraph
        if self._timeline is None or not self.plot.sceneBoundingRect().contains(pos):
            return
        p = self.plot.getPlotItem().vb.mapSceneToView(pos)
        pid = self.program_at(p.x(), p.y())
        if pid is None:
            self.hover.setText("")
            return
        _, s, e = self._rows  # type: ignore[misc]
        self.hover.setText(self.tr("program {pid} on SM {sm}: {start:.1f}–{end:.1f} µs").format(
            pid=pid, sm=int(round(p.y())), start=float(s[pid]), end=float(e[pid])))
        self.programHovered.emit(pid)


def synthetic_timeline(n_programs: int = 1000, n_sms: int = 132, per_sm: int = 2, seed: int = 0) -> Timeline:
    """A made-up schedule (programs dealt to SMs in order, per_sm at a time, random lengths): for
    the preview and tests of the drawing only, never shown as a measurement."""
    rng = np.random.default_rng(seed)
    sm = np.arange(n_programs) % n_sms
    slot_end = np.zeros((n_sms, per_sm))
    start = np.zeros(n_programs)
    end = np.zeros(n_programs)
    for pid in range(n_programs):
        s = int(sm[pid])
        k = int(np.argmin(slot_end[s]))
        start[pid] = slot_end[s, k]
        end[pid] = start[pid] + rng.uniform(20_000, 40_000)
        slot_end[s, k] = end[pid]
    return Timeline(grid=(n_programs, 1, 1), sm=sm.astype(np.int32), start_ns=start.astype(np.int64),
                    end_ns=end.astype(np.int64), n_sms=n_sms, programs_per_sm=per_sm, kernel="synthetic")


if __name__ == "__main__":  # pragma: no cover
    from views.preview import preview

    def build() -> QWidget:
        w = TimelineView()
        w.setWindowTitle("Timeline (a synthetic schedule)")
        w.set_timeline(synthetic_timeline())
        return w

    preview(build)
