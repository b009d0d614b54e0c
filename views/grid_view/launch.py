"""Beside the maps: the launch order played wave by wave, and what each wave loads.

A GPU starts programs in launch order, as many at once as it holds (SMs × programs per SM: a
*wave*). The panel sets how many run at once and which order is played — the kernel's own
(the recorded pids) or row-major by output tile — and steps or plays the waves; the maps light
what the wave shown touches. For each wave it counts the distinct tiles loaded per tensor (what
must come through L2 while the wave runs) in both orders, as numbers and as a small bar chart:
for matmul, grouped order against row-major (the Triton tutorial's 54 against 90 blocks). The
counting is ``kernels.data.maps.wave_loads``, Qt-free; this module only shows it.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QSignalBlocker, Qt, QTimer
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QSlider,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from kernels.data.maps import LoadTiles, WaveLoads, load_tiles, output_order, wave_loads
from kernels.data.trace import Trace

from .. import theme
from ..i18n import translate
from .controls import play_button, show_playing
from .state import GridState

__all__ = ["LaunchOrderControl", "LaunchPanel", "launch_table"]

RECORDED_COLOUR, ROW_MAJOR_COLOUR = "#1f77b4", "#b0b0b0"


def _span(pids: np.ndarray) -> str:
    if not pids.size:
        return "—"
    if pids.size > 1 and np.array_equal(pids, np.arange(pids[0], pids[0] + pids.size)):
        return f"{int(pids[0])}–{int(pids[-1])}"
    shown = ", ".join(str(int(p)) for p in pids[:6])
    return shown + (", …" if pids.size > 6 else "")


def launch_table(recorded: WaveLoads, row_major: WaveLoads, wave: int) -> str:
    """Rich text: the tiles (and bytes) wave ``wave`` loads, per tensor, in both orders."""
    w_r, w_m = min(wave, recorded.n_waves - 1), min(wave, row_major.n_waves - 1)
    # the words outside the f-strings: pyside6-lupdate does not look inside them
    rec, rm = translate("GridView", "recorded"), translate("GridView", "row-major")
    tiles, nbytes = translate("GridView", "tiles"), translate("GridView", "bytes")
    head = f"<tr><th></th><th align=right>{rec}</th><th align=right>{rm}</th></tr>"
    rows = [head]
    for t, name in enumerate(recorded.tensors):
        a, b = int(recorded.tiles[w_r, t]), int(row_major.tiles[w_m, t])
        if a or b:
            rows.append(f"<tr><td>{name}</td><td align=right>{a}</td><td align=right>{b}</td></tr>")
    ta, tb = int(recorded.total_tiles()[w_r]), int(row_major.total_tiles()[w_m])
    rows.append(f"<tr><td><b>{tiles}</b></td><td align=right><b>{ta}</b></td>"
                f"<td align=right><b>{tb}</b></td></tr>")
    ba, bb = int(recorded.total_bytes()[w_r]), int(row_major.total_bytes()[w_m])
    rows.append(f"<tr><td>{nbytes}</td><td align=right>{ba:,}</td>"
                f"<td align=right>{bb:,}</td></tr>")
    return "<table cellspacing=0 cellpadding=2>" + "".join(rows) + "</table>"


class LaunchPanel(QWidget):
    """Observes and sets the launch-order part of a ``GridState``; ``set_trace`` counts what
    the waves of a new trace load."""

    PLAY_INTERVAL_MS = 900

    def __init__(self, state: GridState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._state = state
        self._trace: Trace | None = None
        self._tiles: LoadTiles | None = None
        self._row_major_order: np.ndarray | None = None
        self.recorded: WaveLoads | None = None
        self.row_major: WaveLoads | None = None
        self.setMinimumWidth(250)
        self.setMaximumWidth(330)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Expanding)
        self._build()
        ev = state.events
        ev.wave.connect(lambda _w: self._show_wave())
        ev.waves.connect(self._recount)

    def _build(self) -> None:
        title = QLabel("<b>" + translate("GridView", "Launch order") + "</b>")
        about = QLabel(translate("GridView", "Programs start in launch order, as many at once as the GPU holds (a "
                                             "wave). Each wave loads tiles into L2: fewer distinct tiles, more reuse."))
        about.setWordWrap(True)
        about.setStyleSheet("color: #555;")
        self.per_wave_spin = QSpinBox()
        self.per_wave_spin.setRange(1, 1 << 20)
        self.per_wave_spin.setToolTip(translate("GridView", "Programs resident at once: SMs × programs per SM"))
        self.per_wave_spin.valueChanged.connect(lambda v: self._state.set_waves(per_wave=v))
        self.order_combo = QComboBox()
        self.order_combo.addItem(translate("GridView", "recorded (the kernel's pids)"), "recorded")
        self.order_combo.addItem(translate("GridView", "row-major by output tile"), "row-major")
        self.order_combo.setToolTip(translate("GridView", "Which order the waves play and the maps light"))
        self.order_combo.currentIndexChanged.connect(
            lambda i: self._state.set_waves(order=self.order_combo.itemData(i)))
        form = QFormLayout()
        form.addRow(translate("GridView", "Programs at once"), self.per_wave_spin)
        form.addRow(translate("GridView", "Order"), self.order_combo)
        self.play = play_button(translate("GridView", "Play the waves one after another"))
        self.play.toggled.connect(self._on_play)
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setToolTip(translate("GridView", "The wave shown"))
        self.slider.valueChanged.connect(lambda v: self._state.set_wave(v))
        bar = QHBoxLayout()
        bar.addWidget(self.play)
        bar.addWidget(self.slider, 1)
        self.wave_label = QLabel()
        self.wave_label.setWordWrap(True)
        self.table = QLabel()
        self.table.setTextFormat(Qt.TextFormat.RichText)
        self.table.setFont(theme.mono_font())
        self.chart = pg.PlotWidget()
        self.chart.setMinimumHeight(140)
        self.chart.setMaximumHeight(200)
        self.chart.setMenuEnabled(False)
        self.chart.setMouseEnabled(x=False, y=False)
        self.chart.hideButtons()
        self.chart.setLabel("left", translate("GridView", "tiles"))
        self.chart.setLabel("bottom", translate("GridView", "wave"))
        self.chart.getAxis("bottom").enableAutoSIPrefix(False)
        self._bars = [pg.BarGraphItem(x=[], height=[], width=0.4, brush=c) for c in (RECORDED_COLOUR, ROW_MAJOR_COLOUR)]
        for b in self._bars:
            self.chart.addItem(b)
        self._now = pg.InfiniteLine(angle=90, pen=pg.mkPen("#d62728", width=2))
        self.chart.addItem(self._now)
        key = QLabel(f"<span style='color:{RECORDED_COLOUR}'>■</span> " + translate("GridView", "recorded order")
                     + f" &nbsp; <span style='color:{ROW_MAJOR_COLOUR}'>■</span> " + translate("GridView", "row-major"))
        self.timer = QTimer(self)
        self.timer.setInterval(self.PLAY_INTERVAL_MS)
        self.timer.timeout.connect(self._state.advance_wave)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 0, 0, 0)
        for w in (title, about):
            lay.addWidget(w)
        lay.addLayout(form)
        lay.addLayout(bar)
        for w in (self.wave_label, self.table, self.chart, key):
            lay.addWidget(w)
        lay.addStretch(1)

    # ------------------------------------------------------------------ a trace
    def set_trace(self, trace: Trace) -> None:
        self._trace = trace
        self._tiles = load_tiles(trace)
        self._row_major_order = output_order(trace)
        self._recount()

    def row_major_order(self) -> np.ndarray | None:
        """The recorded pids in row-major output order (``output_order``) of the trace shown."""
        return self._row_major_order

    def _recount(self) -> None:
        trace = self._trace
        if trace is None:
            return
        per_wave = self._state.per_wave or trace.programs_per_wave
        with QSignalBlocker(self.per_wave_spin):
            self.per_wave_spin.setValue(per_wave)
        self.recorded = wave_loads(trace, per_wave, None, self._tiles)
        self.row_major = wave_loads(trace, per_wave, self._row_major_order, self._tiles)
        with QSignalBlocker(self.order_combo):
            self.order_combo.setCurrentIndex(self.order_combo.findData(self._state.order))
        n = self.recorded.n_waves
        xs = np.arange(n)
        self._bars[0].setOpts(x=xs - 0.2, height=self.recorded.total_tiles(), width=0.4)
        self._bars[1].setOpts(x=xs + 0.2, height=self.row_major.total_tiles()[:n], width=0.4)
        top = max(1, int(max(self.recorded.total_tiles().max(), self.row_major.total_tiles().max())))
        self.chart.setRange(xRange=(-0.7, n - 0.3), yRange=(0, top * 1.1), padding=0)
        # waves counted from 1 as the label under the slider counts them, whole numbers only
        # (one wave's axis read "-500 0 500, wave (x0.001)")
        step = max(1, math.ceil(n / 10))
        self.chart.getAxis("bottom").setTicks([[(i, str(i + 1)) for i in range(0, n, step)], []])
        with QSignalBlocker(self.slider):
            self.slider.setRange(0, max(n - 1, 0))
        self._show_wave()

    def _show_wave(self) -> None:
        if self.recorded is None or self._trace is None:
            return
        w = self._state.wave if self._state.wave is not None else 0
        with QSignalBlocker(self.slider):
            self.slider.setValue(w)
        order = self.row_major.order if self._state.order == "row-major" else self.recorded.order
        pw = self.recorded.per_wave
        pids = order[w * pw: (w + 1) * pw]
        self.wave_label.setText(translate("GridView", "wave {w} of {n}: programs {pids}").format(
            w=w + 1, n=self.recorded.n_waves, pids=_span(pids)))  # counted from 1: "wave 4 of 4" is the last
        self.table.setText(launch_table(self.recorded, self.row_major, w))
        self._now.setValue(w)

    def _on_play(self, on: bool) -> None:
        show_playing(self.play, on)
        if on:
            self.timer.start()
        else:
            self.timer.stop()

    def stop(self) -> None:
        self._on_play(False)


class LaunchOrderControl:
    """``GridView``'s launch-order API (a mixin: it drives the view's ``_state``, ``_launch``
    panel and ``_launch_button``)."""

    def show_launch_order(self, on: bool) -> None:
        """Show (or hide) the launch order beside the maps: the waves played in launch order,
        the maps lit by the wave shown, and the tiles each wave loads."""
        with QSignalBlocker(self._launch_button):
            self._launch_button.setChecked(bool(on))
        self._launch.setVisible(bool(on))
        if not on:
            self._launch.stop()
        self._state.set_wave(0 if on else None)

    def launch_order_shown(self) -> bool:
        return self._state.wave is not None

    def set_wave_size(self, programs: int) -> None:
        """Programs that run at once (SMs × programs per SM) in the launch order played."""
        self._state.set_waves(per_wave=programs)

    def set_launch_order(self, order: str) -> None:
        """``"recorded"`` (the kernel's pids) or ``"row-major"`` (by output tile, row by row)."""
        self._state.set_waves(order=order)

    def set_wave(self, wave: int | None) -> None:
        """Show wave ``wave`` of the launch order (it is shown beside the maps)."""
        if wave is not None and self._state.wave is None:
            self.show_launch_order(True)
        self._state.set_wave(wave)

    def wave(self) -> int | None:
        return self._state.wave

    def wave_programs(self) -> np.ndarray:
        """The pids of the wave shown, in launch order (empty when none is shown)."""
        if self._state.wave is None or self._prep is None:
            return np.zeros(0, np.int64)
        return self._prep.wave_programs(self._state.wave)

    def wave_loads(self):
        """(recorded order, row-major order): ``kernels.data.maps.WaveLoads`` of the trace shown
        for the wave size chosen — what the numbers and the chart beside the maps show."""
        return self._launch.recorded, self._launch.row_major
