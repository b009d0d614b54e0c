"""The grid view: which program touched which element of which tensor, drawn from a recorded Trace.

Top: the program grid, one cell per program (a 1-D grid folded into rows; a 2-D grid as x by y; a
z-slice chooser for 3-D grids). Below: a tile map per tensor argument, each element coloured by the
program that wrote it (or, for a tensor that is only read, the program that read it). Hovering a
program lights its elements in every tensor (loads blue, stores orange); hovering an element lights
the programs that touched it. A click pins the selection; a second click or Esc unpins it. The
loop slider shows one iteration of the outermost loop at a time, so a matmul's A and B tiles can
be watched walking along K.

Everything a hover needs is precomputed as numpy arrays grouped by program (CSR style), so a
hover is a few slices and one fancy-indexed assignment per tensor — never a Python loop over
elements. That precompute is a module-level pure function, ``prepare_trace`` (numpy only, no Qt),
so ``set_trace(trace, background=True)`` runs it on a worker thread and then applies the result
on the GUI thread in short steps, one event-loop turn each: a 4096-program trace arriving never
freezes the window. The pyqtgraph plots are made once and reused by every later trace (a new
PlotItem costs ~20 ms of GUI time, reconfiguring one well under 1 ms).
"""

from __future__ import annotations

import math
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QCoreApplication, QEvent, QObject, QPoint, QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QCursor, QFontMetrics, QKeyEvent, QPen, QShowEvent
from PySide6.QtWidgets import (
    QComboBox,
    QGraphicsRectItem,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QScrollArea,
    QSizePolicy,
    QSlider,
    QSpinBox,
    QStyle,
    QToolButton,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from kernels.trace.model import (
    NO_PROGRAM,
    OOB_OUTSIDE_VIEW,
    OP_ATOMIC,
    OP_LOAD,
    OP_NAMES,
    OP_STORE,
    SEVERAL,
    TensorInfo,
    TensorMaps,
    Trace,
)
from views import theme

__all__ = ["COLOR_MODES", "GridView", "LIT_LOAD", "LIT_STORE", "PreparedTrace", "fold_width", "prepare_trace"]

COLOR_MODES: dict[str, str] = {
    "program": "by program",
    "dispatch": "by dispatch order",
    "wave": "by wave",
    "masked": "by masked-lane fraction",
}

# Bits of a lit element / program: loaded by the selection, stored by it (an atomic sets both).
LIT_LOAD, LIT_STORE = 1, 2
_KIND_OF_OP = np.zeros(8, np.uint8)
_KIND_OF_OP[OP_LOAD], _KIND_OF_OP[OP_STORE], _KIND_OF_OP[OP_ATOMIC] = LIT_LOAD, LIT_STORE, 3

# Lookup-table slots shared by every colour mode; the mode's colours start at _FIRST.
_PAD, _UNTOUCHED, _MULTI_WRITE, _SHARED_READ, _NOT_RECORDED, _ACCUMULATED, _FIRST = range(7)
_SPECIAL = {
    _PAD: "#d9d9d9",  # no element: the fold's padding past the end of a 1-D tensor
    _UNTOUCHED: theme.MASKED,  # never loaded nor stored (masked lanes land here)
    _MULTI_WRITE: "#e0201b",  # stored by several programs: a race unless they agree
    _SHARED_READ: "#56616d",  # loaded by several programs: reuse, not a bug
    _NOT_RECORDED: "#6e6e6e",  # program outside the recorded window
    _ACCUMULATED: "#0f7b6c",  # updated by atomics of several programs: no conflict
}
# 13 categorical colours (a prime count, so a 2-D grid keyed x + 5y never repeats a colour on
# a neighbour); none is red or grey, which mean "several writers" and "untouched".
_CATEGORICAL = ["#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#bcbd22", "#17becf", "#e377c2",
                "#8c564b", "#aec7e8", "#ffbb78", "#98df8a", "#c5b0d5", "#f7b6d2"]
_N_SEQ = 200  # colours of the sequential maps (dispatch order, masked fraction)

# Overlay slots (RGBA): unlit elements are faded, lit ones tinted by what the selection did.
_DIM, _CLEAR = 0, 4
_TINT = {LIT_LOAD: "#1565c0", LIT_STORE: "#f57c00", LIT_LOAD | LIT_STORE: "#8e24aa"}
_OVERLAY_LUT = np.zeros((256, 4), np.uint8)
_OVERLAY_LUT[_DIM] = (255, 255, 255, 190)
for _k, _hex in _TINT.items():
    _c = QColor(_hex)
    _OVERLAY_LUT[_k] = (_c.red(), _c.green(), _c.blue(), 215)


def _rgba(hex_colour: str) -> tuple[int, int, int, int]:
    c = QColor(hex_colour)
    return c.red(), c.green(), c.blue(), 255


def _mode_lut(mode: str) -> np.ndarray:
    lut = np.zeros((256, 4), np.uint8)
    for slot, hex_colour in _SPECIAL.items():
        lut[slot] = _rgba(hex_colour)
    if mode in ("program", "wave"):
        colours = np.array([_rgba(h) for h in _CATEGORICAL], np.uint8)
    else:
        cmap = pg.colormap.get("viridis" if mode == "dispatch" else "plasma")
        colours = cmap.getLookupTable(0.0, 1.0, _N_SEQ, alpha=True)
    lut[_FIRST: _FIRST + len(colours)] = colours
    return lut


def fold_width(numel: int, block: int) -> int:
    """Row length for drawing a 1-D tensor: one access block per row, doubled while the map would
    be more than four times taller than wide (a 2M-element vector becomes 2048 rows of 1024)."""
    w = max(int(block), 1)
    while numel > 4 * w * w and w < 4096:
        w *= 2
    return w


@dataclass
class _Panel:
    """One tensor's tile map and its accesses, grouped by program for fast lookup."""

    index: int
    info: TensorInfo
    maps: TensorMaps
    who: np.ndarray  # int32 [numel]: writer where written, else reader
    rows: int
    cols: int
    folded: bool
    ev: np.ndarray  # int64 [Et]: event ids touching this tensor, sorted by program (stable)
    ev_prog: np.ndarray  # int32 [Et]
    ev_kind: np.ndarray  # uint8 [Et]: LIT_* bits
    ev_step: np.ndarray  # int32 [Et]: outermost loop iteration, -1 outside loops
    lane_ptr: np.ndarray  # int64 [Et+1]: event j's lanes are elem[lane_ptr[j]:lane_ptr[j+1]]
    elem: np.ndarray  # int32/int64 [Lt]: logical flat indices, grouped by event
    prog_ptr: np.ndarray  # int64 [P+1]: program p's events are ev[prog_ptr[p]:prog_ptr[p+1]]
    role: str
    n_oob: int
    several_at: np.ndarray  # int64: elements touched by several programs (who == SEVERAL)
    several_slot: np.ndarray  # uint8: their lookup-table slot (race, accumulated, shared read)
    plot: pg.PlotItem | None = None
    image: pg.ImageItem | None = None
    overlay: pg.ImageItem | None = None
    marker: QGraphicsRectItem | None = None
    flags: np.ndarray | None = field(default=None, repr=False)  # uint8 [numel] lit bits, or None

    @property
    def numel(self) -> int:
        return int(self.who.shape[0])

    def lanes_of_events(self, js: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(elements, kind bits) of the lanes of panel events ``js`` — vectorized gather."""
        n = self.lane_ptr[js + 1] - self.lane_ptr[js]
        total = int(n.sum())
        starts = np.repeat(self.lane_ptr[js] - (np.cumsum(n) - n), n)
        return self.elem[starts + np.arange(total)], np.repeat(self.ev_kind[js], n)

    def events_of_lanes(self, lane_pos: np.ndarray) -> np.ndarray:
        return np.searchsorted(self.lane_ptr, lane_pos, side="right") - 1

    def element_slots(self, prog_slots: np.ndarray) -> np.ndarray:
        """uint8 [numel]: every element's lookup-table slot, given every program's slot — one
        gather (``who`` shifted so NO_PROGRAM and SEVERAL index two leading entries) and one
        scatter for the elements of several programs."""
        ext = np.empty(prog_slots.shape[0] + 2, np.uint8)
        ext[SEVERAL + 2] = ext[NO_PROGRAM + 2] = _UNTOUCHED  # SEVERAL's are overwritten below
        ext[2:] = prog_slots
        out = ext[self.who + 2]
        out[self.several_at] = self.several_slot
        return out

    def to_image(self, flat_values: np.ndarray, pad_value: int) -> np.ndarray:
        """A flat per-element uint8 array as the row-major image drawn (fold padded)."""
        size = self.rows * self.cols
        if size == flat_values.shape[0]:
            return flat_values.reshape(self.rows, self.cols)
        out = np.full(size, pad_value, np.uint8)
        out[: flat_values.shape[0]] = flat_values
        return out.reshape(self.rows, self.cols)

    def multi_index(self, flat: int) -> tuple[int, ...]:
        if not self.info.shape:
            return ()
        return tuple(int(i) for i in np.unravel_index(flat, self.info.shape))


@dataclass
class PreparedTrace:
    """A trace with everything the grid view draws and hovers precomputed: plain numpy, no Qt,
    so ``prepare_trace`` can build it on a worker thread while the window keeps running."""

    trace: Trace
    mode: str  # the colour mode ``prog_slots`` and ``images`` are for
    P: int  # programs in the grid (recorded or not)
    pos: np.ndarray  # int64 [P]: position in trace.programs, -1 when not recorded
    wave: np.ndarray  # [recorded programs]: the wave each one runs in
    gw: int  # program grid columns drawn
    grows: int  # program grid rows drawn
    folded_grid: bool  # a 1-D grid folded into rows
    iters: np.ndarray  # int32 [E, loops]
    ev_step: np.ndarray  # int32 [E]: iteration of loop 0 (-1 outside, or no loop)
    ev_kind: np.ndarray  # uint8 [E]: LIT_* bits
    ev_by_prog: np.ndarray  # int64 [E]: event ids in program order
    prog_ev_ptr: np.ndarray  # int64 [P+1]
    panels: list[_Panel]
    loop_steps: list[int]  # iterations of each loop
    prog_slots: np.ndarray  # uint8 [P]: lookup-table slot of each program in ``mode``
    images: list[np.ndarray]  # uint8 [rows, cols] per panel: the tile map in ``mode``


def _grid_fold(grid: tuple[int, int, int]) -> tuple[int, int, bool]:
    """(columns, rows, folded) of the drawn program grid: a 1-D grid folded into rows so 16384
    programs stay square-ish; a 2-D grid as x by y."""
    gx, gy, gz = grid
    if gy == 1 and gz == 1:
        gw = gx if gx <= 64 else max(1, math.ceil(math.sqrt(gx)))
        return gw, math.ceil(gx / gw), True
    return gx, gy, False


def _program_slots(mode: str, trace: Trace, pos: np.ndarray, wave: np.ndarray, folded_grid: bool) -> np.ndarray:
    """uint8 [P]: lookup-table slot of every program in colour mode ``mode``."""
    P = pos.shape[0]
    pid = np.arange(P)
    recorded = pos >= 0
    at = np.where(recorded, pos, 0)
    if mode == "program":
        gx, gy, _ = trace.grid
        key = pid if folded_grid else (pid % gx) + 5 * ((pid // gx) % gy) + 3 * (pid // (gx * gy))
        slot = _FIRST + key % len(_CATEGORICAL)
    elif mode == "dispatch":
        slot = _FIRST + (pid * _N_SEQ) // max(P, 1)
    elif mode == "wave":
        slot = _FIRST + np.asarray(wave)[at] % len(_CATEGORICAL)
    else:
        frac = np.asarray(trace.stats.masked_fraction, np.float64)[at]
        slot = _FIRST + np.rint(np.clip(frac, 0, 1) * (_N_SEQ - 1)).astype(np.int64)
    return np.where(recorded, slot, _NOT_RECORDED).astype(np.uint8)


def _build_panels(trace: Trace, P: int, kind: np.ndarray, step: np.ndarray) -> list[_Panel]:
    ev = trace.events
    oob_by_tensor: dict[str, int] = {}
    for r in trace.oob:
        oob_by_tensor[r.nearest_tensor] = oob_by_tensor.get(r.nearest_tensor, 0) + r.count
    # event ids of each tensor in program order, all tensors in one stable sort
    order = np.lexsort((ev.program, ev.tensor)) if len(ev) else np.zeros(0, np.int64)
    tensor_sorted = ev.tensor[order]
    panels = []
    for t, info in enumerate(trace.tensors):
        lo, hi = np.searchsorted(tensor_sorted, [t, t + 1])
        js = order[lo:hi]
        n = ev.n_active[js].astype(np.int64)
        lane_ptr = np.zeros(len(js) + 1, np.int64)
        np.cumsum(n, out=lane_ptr[1:])
        gather = np.repeat(ev.lane_start[js] - lane_ptr[:-1], n) + np.arange(int(lane_ptr[-1]))
        numel = info.numel
        elem = ev.elements[gather]
        if numel < 2**31:
            elem = elem.astype(np.int32, copy=False)
        m = trace.maps[t]
        n_writes = m.n_writes.reshape(-1)
        written = n_writes > 0
        who = np.where(written, m.writer.reshape(-1), m.reader.reshape(-1)).astype(np.int32, copy=False)
        several_at = np.flatnonzero(who == SEVERAL)
        conflict = m.multiply_written.reshape(-1)[several_at]  # atomics accumulating are no conflict
        several_slot = np.where(written[several_at], np.where(conflict, _MULTI_WRITE, _ACCUMULATED),
                                _SHARED_READ).astype(np.uint8)
        ops = set(np.unique(ev.op[js]).tolist())
        role = " + ".join(word for op, word in ((OP_LOAD, "read"), (OP_STORE, "written"),
                                                (OP_ATOMIC, "atomics")) if op in ops) or "untouched"
        if len(info.shape) <= 1:
            lanes = ev.n_active[js] + ev.n_masked[js] + ev.n_oob[js]
            block = int(lanes.max()) if lanes.size else 64
            # one access block per row; a vector shorter than a row is one row
            cols = max(1, min(fold_width(numel, block if block >= 8 else 64), numel))
            rows, folded = max(1, math.ceil(numel / cols)), True
        else:
            cols = int(info.shape[-1])
            rows, folded = int(np.prod(info.shape[:-1])), False
        ev_prog = ev.program[js].astype(np.int32)
        panels.append(_Panel(
            index=t, info=info, maps=m, who=who, rows=rows, cols=cols, folded=folded, ev=js,
            ev_prog=ev_prog, ev_kind=kind[js], ev_step=step[js], lane_ptr=lane_ptr, elem=elem,
            prog_ptr=np.searchsorted(ev_prog, np.arange(P + 1)).astype(np.int64),
            role=role, n_oob=oob_by_tensor.get(info.name, 0), several_at=several_at,
            several_slot=several_slot))
    return panels


def prepare_trace(trace: Trace, mode: str = "program") -> PreparedTrace:
    """Precompute what the grid view needs to draw ``trace`` in colour mode ``mode``: events
    grouped by program and by tensor, per-element owners, the tile-map images. Numpy only (no
    Qt), so it may run on any thread; the big steps (sorts, gathers) release the GIL."""
    if mode not in COLOR_MODES:
        raise ValueError(f"unknown colour mode {mode!r}; one of {', '.join(COLOR_MODES)}")
    P = trace.n_programs
    pos = np.full(P, -1, np.int64)
    pos[trace.programs] = np.arange(len(trace.programs))
    wave = (trace.wave if trace.wave is not None else
            (trace.programs // max(trace.n_sms * trace.programs_per_sm, 1)))
    gw, grows, folded_grid = _grid_fold(trace.grid)
    ev = trace.events
    E = len(ev)
    iters = ev.iters.astype(np.int32) if ev.iters.ndim == 2 else np.zeros((E, 0), np.int32)
    step = iters[:, 0] if iters.shape[1] else np.full(E, -1, np.int32)
    kind = _KIND_OF_OP[ev.op.astype(np.int64)]
    # all events of a program, in program order (the tracer records program by program; the
    # stable sort keeps each program's order even if it did not)
    ev_by_prog = np.argsort(ev.program, kind="stable")
    prog_ev_ptr = np.searchsorted(ev.program[ev_by_prog], np.arange(P + 1))
    panels = _build_panels(trace, P, kind, step)
    loop_steps = [int(iters[:, j].max()) + 1 if len(iters) else 0 for j in range(iters.shape[1])]
    prog_slots = _program_slots(mode, trace, pos, wave, folded_grid)
    images = [p.to_image(p.element_slots(prog_slots), _PAD) for p in panels]
    return PreparedTrace(trace=trace, mode=mode, P=P, pos=pos, wave=wave, gw=gw, grows=grows,
                         folded_grid=folded_grid, iters=iters, ev_step=step, ev_kind=kind,
                         ev_by_prog=ev_by_prog, prog_ev_ptr=prog_ev_ptr, panels=panels,
                         loop_steps=loop_steps, prog_slots=prog_slots, images=images)


_prepare_pool: ThreadPoolExecutor | None = None
_prepare_pool_lock = threading.Lock()


def _pool() -> ThreadPoolExecutor:
    """One background thread shared by every grid view: traces are prepared one at a time, in
    the order they arrive (a stale one is dropped when it lands, by its generation)."""
    global _prepare_pool
    with _prepare_pool_lock:
        if _prepare_pool is None:
            _prepare_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tilescope-grid-prepare")
        return _prepare_pool


class _PlotSlot:
    """One pyqtgraph plot with an image, an overlay and a cell marker, made once and reused by
    every later trace (see the module doc); ``configure`` readies it for a new map."""

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


def _fmt_range(lo: int, hi: int) -> str:
    return f"{lo}" if lo == hi else f"{lo}..{hi}"


class GridView(QWidget):
    """Program grid + per-tensor tile maps of one ``Trace``, with hover, pin and a loop slider.

    Signals: ``programHovered(pid)`` (-1 when none), ``elementHovered(tensor, flat_index)``
    (``("", -1)`` when none), ``accessLineHovered(line)`` (the source line of the selected
    access; -1 when none), ``pinnedChanged(bool)``, ``traceApplied(Trace)`` (a trace is drawn
    and can be hovered: at the end of ``set_trace``, or later with ``background=True``),
    ``traceFailed(str)`` (a background preparation raised; the previous trace stays).
    """

    programHovered = Signal(int)
    elementHovered = Signal(str, int)
    accessLineHovered = Signal(int)
    pinnedChanged = Signal(bool)
    traceApplied = Signal(object)
    traceFailed = Signal(str)
    # internal: a PreparedTrace (or the exception) from the preparing thread, queued to this one
    _prepared = Signal(int, object)

    #: plots made ahead, one per event-loop turn after the view is first shown: a program grid
    #: and three tile maps cover most kernels, so the first trace need not build any
    WARM_PLOTS = 4

    PLAY_INTERVAL_MS = 700

    def __init__(self, parent: QWidget | None = None):
        theme.configure()
        super().__init__(parent)
        self._trace: Trace | None = None
        self._panels: list[_Panel] = []
        self._mode = "program"
        self._hover: tuple | None = None  # ("program", pid) | ("element", panel, flat) | None
        self._pinned: tuple | None = None
        self._step: int | None = None
        self._n_steps = 0
        self._loop = 0  # which loop the slider steps (column of AccessTable.iters)
        self._loop_steps: list[int] = []  # iterations of each loop
        self._z = 0
        self._last_line = -1
        self._show_tooltips = False  # only when the mouse drives the hover
        self._prog_flags: np.ndarray | None = None
        self._oob_records: list = []
        self._cell_labels: list[pg.TextItem] = []
        self._gen = 0  # bumped by every set_trace: a preparation of an older one is dropped
        self._shown: Trace | None = None  # the trace fully drawn (what trace() returns)
        self._applying = False  # a background trace is being applied step by step
        self._loading: Trace | None = None  # the trace a background set_trace is drawing
        self._steps: Iterator[None] | None = None
        self._slots: list[_PlotSlot] = []  # tile-map plots, reused across traces
        self._prog_slot: _PlotSlot | None = None
        self._label_pool: list[pg.TextItem] = []  # pid labels inside small grids' cells
        self._placed: list[tuple] = []  # the plots in the layout: (plot, row, col, colspan)
        self._warming = False
        self._prepared.connect(self._on_prepared)
        # Steps of drawing a trace, and of making plots ahead, each run from a zero-interval
        # QTimer: it fires after the paints and input waiting. (QTimer.singleShot(0, f) would
        # not: Qt 6 posts it as a call, run in the same batch as the paint the step before
        # asked for, so step, paint and step add up to one long freeze.)
        self._step_timer = QTimer(self)
        self._step_timer.setSingleShot(True)
        self._step_timer.setInterval(0)
        self._step_timer.timeout.connect(self._next_step)
        self._warm_timer = QTimer(self)
        self._warm_timer.setSingleShot(True)
        self._warm_timer.setInterval(0)
        self._warm_timer.timeout.connect(self._warm_next)

        # --- controls
        self._mode_combo = QComboBox()
        for key, text in COLOR_MODES.items():
            self._mode_combo.addItem(text, key)
        self._mode_combo.setToolTip("What a program's colour means, in the grid and the tile maps")
        self._mode_combo.currentIndexChanged.connect(
            lambda i: self.set_color_mode(self._mode_combo.itemData(i)))
        self._z_label = QLabel("z slice")
        self._z_spin = QSpinBox()
        self._z_spin.setToolTip("Which z layer of the 3-D program grid to draw")
        self._z_spin.valueChanged.connect(self.set_z_slice)
        self._play = QToolButton()
        self._play.setCheckable(True)
        self._play.setIcon(self.style().standardIcon(QStyle.StandardPixmap.SP_MediaPlay))
        self._play.setToolTip("Step through the loop's iterations")
        self._play.toggled.connect(self._on_play_toggled)
        self._slider = QSlider(Qt.Orientation.Horizontal)
        self._slider.setToolTip("Loop iteration to show (far left: all iterations)")
        self._slider.setMinimumWidth(160)
        self._slider.valueChanged.connect(lambda v: self.set_loop_step(None if v < 0 else v))
        self._loop_label = QLabel()
        # labels that change with the hover or the trace must never widen the window
        self._loop_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self._loop_label.setMinimumWidth(140)
        self._loop_combo = QComboBox()
        self._loop_combo.setToolTip("Which loop the slider steps through (loops in source order)")
        self._loop_combo.currentIndexChanged.connect(lambda i: self.set_loop(i) if i >= 0 else None)
        self._timer = QTimer(self)
        self._timer.setInterval(self.PLAY_INTERVAL_MS)
        self._timer.timeout.connect(self._advance)

        bar = QHBoxLayout()
        bar.addWidget(QLabel("Colour"))
        bar.addWidget(self._mode_combo)
        bar.addSpacing(12)
        bar.addWidget(self._z_label)
        bar.addWidget(self._z_spin)
        bar.addSpacing(12)
        self._loop_widgets = (self._loop_combo, self._play, self._slider, self._loop_label)
        for w in self._loop_widgets:
            bar.addWidget(w)
        bar.setStretchFactor(self._loop_label, 100)  # the label takes the room when shown
        bar.addStretch(1)

        # --- plots
        self._glw = pg.GraphicsLayoutWidget()
        self._glw.setMinimumSize(420, 320)
        # many tensors need more height than a window has: scroll rather than squash the maps
        self._scroll = QScrollArea()
        self._scroll.setWidgetResizable(True)
        self._scroll.setWidget(self._glw)
        # side-by-side maps have a minimum width (their titles): below it, scroll sideways
        # rather than clip the maps at the right edge
        self._scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self._glw.scene().sigMouseMoved.connect(self._on_mouse_moved)
        self._glw.scene().sigMouseClicked.connect(self._on_mouse_clicked)
        self._glw.viewport().installEventFilter(self)  # to drop the hover when the mouse leaves
        self._prog_plot: pg.PlotItem | None = None
        self._prog_image: pg.ImageItem | None = None
        self._prog_overlay: pg.ImageItem | None = None
        self._prog_marker: QGraphicsRectItem | None = None
        self._oob_scatter: pg.ScatterPlotItem | None = None

        self._window_label = QLabel()
        self._window_label.setStyleSheet(f"color: {theme.ACCENT_WARN};")
        self._window_label.setWordWrap(True)
        self._legend = QLabel()
        self._legend.setWordWrap(True)
        self._legend.setTextFormat(Qt.TextFormat.RichText)
        self._info = QLabel("Hover a program or an element.")
        self._info.setFont(theme.mono_font())
        self._info.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self._info.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self._info.setMinimumHeight(7 * self._info.fontMetrics().height())
        self._info.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self._info.setWordWrap(True)  # a long hover text must not widen the window
        self._oob_header = QLabel()
        self._oob_header.setStyleSheet(f"color: {theme.FAIL}; font-weight: bold;")
        self._oob_header.setWordWrap(True)
        self._oob_list = QListWidget()
        self._oob_list.setMaximumHeight(90)
        self._oob_list.itemClicked.connect(self._on_oob_clicked)

        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addLayout(bar)
        lay.addWidget(self._window_label)
        lay.addWidget(self._scroll, 1)
        lay.addWidget(self._legend)
        lay.addWidget(self._oob_header)
        lay.addWidget(self._oob_list)
        lay.addWidget(self._info)

        self._set_loop_controls(0)
        self._z_label.hide()
        self._z_spin.hide()
        self._window_label.hide()
        self._oob_header.hide()
        self._oob_list.hide()
        self._update_legend()

    # ------------------------------------------------------------------ public API
    def trace(self) -> Trace | None:
        """The trace drawn (a background ``set_trace`` replaces it once it is applied)."""
        return self._shown

    def is_loading(self) -> bool:
        """True while a background ``set_trace`` is being prepared or applied."""
        return self._loading is not None

    def graphics_view(self) -> pg.GraphicsLayoutWidget:
        """The pyqtgraph view holding the grid and the maps (for mouse-driven tests and export)."""
        return self._glw

    def set_trace(self, trace: Trace, *, background: bool = False) -> None:
        """Draw ``trace``. At once (the precompute and the drawing on this thread), or with
        ``background=True``: the precompute runs on a worker thread and the drawing is applied
        in short steps, one per event-loop turn, so the window stays responsive; the previous
        trace stays on screen until then. ``traceApplied`` is emitted either way."""
        if self._steps is not None:
            # a background trace is half applied: finish it (a few ms) so that the view stays
            # whole, and usable, while the next one is prepared
            steps, self._steps = self._steps, None
            for _ in steps:
                pass
        self._gen += 1
        gen = self._gen
        if not background:
            self._loading = None
            for _ in self._apply_steps(prepare_trace(trace, self._mode), gen):
                pass
            return
        self._loading = trace
        mode = self._mode

        def job() -> None:
            try:
                result: object = prepare_trace(trace, mode)
            except Exception as e:  # noqa: BLE001 — reported on the GUI thread, not lost here
                result = e
            try:
                self._prepared.emit(gen, result)
            except RuntimeError:  # the view was deleted meanwhile: nobody is waiting
                pass

        _pool().submit(job)

    def _on_prepared(self, gen: int, result: object) -> None:
        if gen != self._gen:
            return  # a newer trace was set meanwhile
        if isinstance(result, BaseException):
            self._loading = None
            msg = f"could not draw the trace: {type(result).__name__}: {result}"
            print(f"tilescope: {msg}", file=sys.stderr)
            self.traceFailed.emit(msg)
            return
        assert isinstance(result, PreparedTrace)
        self._steps = self._apply_steps(result, gen)
        self._step_timer.start(0)

    def _next_step(self) -> None:
        if self._steps is None:
            return
        try:
            next(self._steps)
        except StopIteration:
            self._steps = None
            return
        self._step_timer.start(0)

    def _apply_steps(self, prep: PreparedTrace, gen: int) -> Iterator[None]:
        """Install a prepared trace; yields between steps of at most ~20 ms each: every plot
        still to be made, the layout, the images, lists and lighting, ``traceApplied``, and
        last the painting (updates stay off until then, so no half-made state is ever shown)."""
        while len(self._slots) < len(prep.panels) or self._prog_slot is None:
            self._make_slot()
            yield
        if prep.mode != self._mode:  # the colour mode changed while it was being prepared
            prep.prog_slots = _program_slots(self._mode, prep.trace, prep.pos, prep.wave, prep.folded_grid)
            prep.images = [p.to_image(p.element_slots(prep.prog_slots), _PAD) for p in prep.panels]
            prep.mode = self._mode
            yield
        trace = prep.trace
        self._applying = True
        self._timer.stop()
        self._play.setChecked(False)
        self._trace = trace
        self._hover = self._pinned = None
        self._step = None
        self._z = 0
        self._last_line = -1
        self._P, self._pos, self._wave = prep.P, prep.pos, prep.wave
        self._gw, self._grows, self._folded_grid = prep.gw, prep.grows, prep.folded_grid
        self._iters, self._ev_step, self._ev_kind = prep.iters, prep.ev_step, prep.ev_kind
        self._ev_by_prog, self._prog_ev_ptr = prep.ev_by_prog, prep.prog_ev_ptr
        self._panels = prep.panels
        self._lut = _mode_lut(self._mode)
        self._prog_slots = prep.prog_slots
        # the layout first, then (next turn) everything else; the plots are not painted in
        # between, where they would show the last trace's images under the new titles
        self._glw.setUpdatesEnabled(False)
        try:
            yield from self._build_plots(trace)
        except Exception:
            self._glw.setUpdatesEnabled(True)
            raise
        yield
        gz = trace.grid[2]
        self._z_spin.blockSignals(True)
        self._z_spin.setRange(0, gz - 1)
        self._z_spin.setValue(0)
        self._z_spin.blockSignals(False)
        self._z_label.setVisible(gz > 1)
        self._z_spin.setVisible(gz > 1)
        self._window_label.setVisible(trace.window is not None)
        self._window_label.setText(f"Recorded {trace.window} — the other programs did not run "
                                   "under the tracer." if trace.window else "")
        self._fill_oob_list(trace)
        self._loop_steps = list(prep.loop_steps)
        self._loop_combo.blockSignals(True)
        self._loop_combo.clear()
        for j, n in enumerate(self._loop_steps):
            self._loop_combo.addItem(self._loop_name(j, short=True) + f" ({n} iterations)")
        self._loop_combo.setCurrentIndex(0 if self._loop_steps else -1)
        self._loop_combo.blockSignals(False)
        self._loop = 0
        self._set_loop_controls(self._loop_steps[0] if self._loop_steps else 0)
        self._draw_program_grid()
        for p, img in zip(self._panels, prep.images, strict=True):
            p.image.setImage(img, levels=(0, 255), lut=self._lut, autoLevels=False)
        self._update_legend()
        self._applying = False
        self._refresh()
        # the listeners (the window shows this view in place of its hint, marks the source, ...)
        # in a turn of their own, then the view's first paint in another: Qt paints from a 5 ms
        # update timer, after any 0 ms step, and a step and a paint back to back held the event
        # loop ~45 ms (measured)
        yield
        # done, as far as anyone asking is concerned (trace(), is_loading()): the paint follows
        self._shown, self._loading = trace, None
        if gen == self._gen:
            self.traceApplied.emit(trace)
        yield
        self._glw.setUpdatesEnabled(True)

    def color_mode(self) -> str:
        return self._mode

    def set_color_mode(self, mode: str) -> None:
        """``"program"``, ``"dispatch"``, ``"wave"`` or ``"masked"`` (see ``COLOR_MODES``)."""
        if mode not in COLOR_MODES:
            raise ValueError(f"unknown colour mode {mode!r}; one of {', '.join(COLOR_MODES)}")
        self._mode = mode
        i = self._mode_combo.findData(mode)
        if self._mode_combo.currentIndex() != i:
            self._mode_combo.blockSignals(True)
            self._mode_combo.setCurrentIndex(i)
            self._mode_combo.blockSignals(False)
        if self._trace is not None:
            self._apply_colours()
        self._update_legend()

    def set_z_slice(self, z: int) -> None:
        if self._trace is None:
            return
        self._z = int(np.clip(z, 0, self._trace.grid[2] - 1))
        if self._z_spin.value() != self._z:
            self._z_spin.setValue(self._z)
        self._draw_program_grid()
        self._refresh()

    def hover_program(self, pid: int | None) -> None:
        """Hover program ``pid`` (None or -1: nothing) as the mouse would; ignored while pinned."""
        if pid is None or pid < 0:
            self._set_hover(None)
            return
        self._check_trace()
        if not 0 <= pid < self._P:
            raise ValueError(f"program {pid} is outside the grid of {self._P} programs")
        self._set_hover(("program", int(pid)))

    def hover_element(self, tensor: str | None, flat_index: int | None = None) -> None:
        """Hover element ``flat_index`` (logical, row-major) of ``tensor``; None: nothing."""
        if tensor is None or flat_index is None or flat_index < 0:
            self._set_hover(None)
            return
        panel = self._panel(tensor)
        if not 0 <= flat_index < panel.numel:
            raise ValueError(f"{tensor} has {panel.numel} elements; no element {flat_index}")
        self._set_hover(("element", panel.index, int(flat_index)))

    def pin(self) -> bool:
        """Pin the hovered program or element: it stays lit until ``unpin`` (or Esc, or a click
        on it). Returns False when nothing is hovered."""
        if self._hover is None:
            return False
        self._pinned = self._hover
        self._refresh()
        self.pinnedChanged.emit(True)
        return True

    def unpin(self) -> None:
        if self._pinned is None:
            return
        self._pinned = None
        self._refresh()
        self.pinnedChanged.emit(False)

    def is_pinned(self) -> bool:
        return self._pinned is not None

    def selected_program(self) -> int | None:
        """The program whose accesses are lit (pinned first, else hovered), if any."""
        sel = self._selection()
        return sel[1] if sel is not None and sel[0] == "program" else None

    def loop_steps(self) -> int:
        """Iterations of the loop the slider steps (0 when the kernel has no loop)."""
        return self._n_steps

    def loops(self) -> list[tuple[int, int]]:
        """(source line, iterations) of every loop of the kernel, in source order (-1: unknown)."""
        lines = list(self._trace.loop_lines) if self._trace is not None else []
        return [(lines[j] if j < len(lines) else -1, n) for j, n in enumerate(self._loop_steps)]

    def current_loop(self) -> int:
        return self._loop

    def set_loop(self, index: int) -> None:
        """Step through loop ``index`` (source order; 0 = the first, the outermost of a nest)."""
        if not 0 <= index < len(self._loop_steps):
            raise ValueError(f"no loop {index}; the kernel has {len(self._loop_steps)}")
        self._loop = int(index)
        if self._loop_combo.currentIndex() != index:
            self._loop_combo.blockSignals(True)
            self._loop_combo.setCurrentIndex(index)
            self._loop_combo.blockSignals(False)
        self._ev_step = self._iters[:, index]
        for p in self._panels:
            p.ev_step = self._ev_step[p.ev]
        self._step = None
        self._set_loop_controls(self._loop_steps[index])
        self._refresh()

    def loop_step(self) -> int | None:
        return self._step

    def set_loop_step(self, step: int | None) -> None:
        """Show only the accesses of loop iteration ``step`` (None or -1: all iterations)."""
        if step is not None and step < 0:
            step = None
        if step is not None and not 0 <= step < self._n_steps:
            raise ValueError(f"loop step {step} outside 0..{self._n_steps - 1}")
        self._step = step
        v = -1 if step is None else step
        if self._slider.value() != v:
            self._slider.blockSignals(True)
            self._slider.setValue(v)
            self._slider.blockSignals(False)
        self._update_loop_label()
        if self._trace is not None:
            self._refresh()

    def is_playing(self) -> bool:
        return self._timer.isActive()

    def lit_elements(self, tensor: str) -> np.ndarray:
        """bool array of ``tensor``'s shape: the elements lit now (by the hover, pin or step)."""
        return self.lit_kinds(tensor) != 0

    def lit_kinds(self, tensor: str) -> np.ndarray:
        """uint8 array of ``tensor``'s shape: ``LIT_LOAD`` / ``LIT_STORE`` bits of lit elements."""
        p = self._panel(tensor)
        flags = p.flags if p.flags is not None else np.zeros(p.numel, np.uint8)
        return flags.reshape(p.info.shape)

    def highlighted_programs(self) -> np.ndarray:
        """uint8 [programs]: ``LIT_LOAD`` / ``LIT_STORE`` bits of the programs lit in the grid
        (those that read / wrote the hovered element, or ran the shown loop step)."""
        self._check_trace()
        return self._prog_flags.copy() if self._prog_flags is not None else np.zeros(self._P, np.uint8)

    def program_cell_color(self, pid: int) -> QColor:
        """The colour of program ``pid``'s cell in the current colour mode (before any hover tint)."""
        self._check_trace()
        return self._lut_colour(self._cell_slot(np.array([pid]))[0])

    def element_color(self, tensor: str, flat_index: int) -> QColor:
        """The colour of an element in its tile map (before any hover tint)."""
        p = self._panel(tensor)
        return self._lut_colour(self._element_slots(p)[flat_index])

    def tensor_names(self) -> list[str]:
        return [p.info.name for p in self._panels]

    def map_shape(self, tensor: str) -> tuple[int, int]:
        """(rows, columns) of the drawn tile map (a 1-D tensor folded into rows)."""
        p = self._panel(tensor)
        return p.rows, p.cols

    def map_image(self, tensor: str) -> np.ndarray:
        """The uint8 lookup-table indices drawn for ``tensor`` (rows x columns, fold padded)."""
        p = self._panel(tensor)
        return p.to_image(self._element_slots(p), _PAD)

    def map_cell_color(self, tensor: str, row: int, col: int) -> QColor:
        """The colour of cell (row, col) of the drawn map, padding included."""
        return self._lut_colour(int(self.map_image(tensor)[row, col]))

    def program_cell_pos(self, pid: int) -> QPoint:
        """Centre of program ``pid``'s cell in ``graphics_view()`` coordinates (for the mouse)."""
        r, c = self._cell_of(pid)
        return self._view_point(self._prog_image, c + 0.5, r + 0.5)

    def element_pos(self, tensor: str, flat_index: int) -> QPoint:
        """Centre of an element's cell in ``graphics_view()`` coordinates (an index past the end
        of a folded vector gives the padding cell where it would be)."""
        p = self._panel(tensor)
        return self._view_point(p.image, flat_index % p.cols + 0.5, flat_index // p.cols + 0.5)

    def hover_text(self) -> str:
        """The teaching text for what is hovered (also the tooltip and the info line)."""
        return self._info.text()

    def oob_entries(self) -> list[str]:
        """The lines of the out-of-bounds list (empty when every lane hit a tensor)."""
        return [self._oob_list.item(i).text() for i in range(self._oob_list.count())]

    def program_grid_shape(self) -> tuple[int, int]:
        """(rows, columns) of program cells drawn (a 1-D grid folded; one z slice of a 3-D one)."""
        self._check_trace()
        return self._grows, self._gw

    def set_play_interval(self, ms: int) -> None:
        """Milliseconds between loop steps while playing."""
        self._timer.setInterval(int(ms))

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 (Qt's name)
        if event.key() == Qt.Key.Key_Escape and self._pinned is not None:
            self.unpin()
            event.accept()
            return
        super().keyPressEvent(event)

    # ------------------------------------------------------------------ precompute
    def _check_trace(self) -> None:
        if self._trace is None:
            raise RuntimeError("no trace: call set_trace first")

    def _panel(self, tensor: str) -> _Panel:
        self._check_trace()
        for p in self._panels:
            if p.info.name == tensor:
                return p
        raise ValueError(f"no tensor {tensor!r}; the trace has {', '.join(self.tensor_names())}")

    # ------------------------------------------------------------------ plots
    def _make_slot(self) -> None:
        """Make one more reusable plot: the program grid's first (it also holds the OOB marks)."""
        slot = _PlotSlot()
        if self._prog_slot is None:
            scatter = pg.ScatterPlotItem(symbol="x", size=11, pen=pg.mkPen(theme.FAIL, width=2),
                                         brush=pg.mkBrush(theme.FAIL))
            scatter.setZValue(20)
            slot.plot.addItem(scatter)
            slot.scatter = scatter
            self._prog_slot = slot
        else:
            self._slots.append(slot)

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 (Qt's name)
        super().showEvent(event)
        self.warm_up()

    def warm_up(self) -> None:
        """Make the plots a first trace will need (``WARM_PLOTS``), one per event-loop turn,
        so that drawing the first trace does not have to (the window calls this after its first
        frame; showing the view does too)."""
        if self._warming or self._loading is not None or self._steps is not None:
            return  # one chain at a time; a trace being applied makes what it needs itself
        if self._prog_slot is None or len(self._slots) < self.WARM_PLOTS - 1:
            self._make_slot()
            self._warming = True
            self._warm_timer.start()

    def _warm_next(self) -> None:
        self._warming = False
        self.warm_up()

    def _cell_label(self, i: int) -> pg.TextItem:
        while len(self._label_pool) <= i:
            label = pg.TextItem(anchor=(0.5, 0.5))
            label.setZValue(8)
            self._label_pool.append(label)
        return self._label_pool[i]

    def _build_plots(self, trace: Trace) -> Iterator[None]:
        """Title, size and range every plot for ``trace`` and lay them out; yields between plots
        (a few ms each; all of it at once was 20–50 ms for a first trace)."""
        gx, gy, gz = trace.grid
        placed: list[tuple[pg.PlotItem, int, int, int]] = []  # (plot, row, col, colspan)
        blocks = [p for p in self._panels if not self._is_strip(p)]
        ncols = max(1, min(3, len(blocks)))
        small = self._grows <= 3  # a short grid: stretched cells, its row only as tall as needed
        labelled = self._grows * self._gw <= 64  # few cells: write each pid inside its cell
        if self._folded_grid:
            desc = (f"1-D grid ({gx},)" + (f", folded into rows of {self._gw}" if self._grows > 1
                                          else ""))
        else:
            desc = f"grid ({gx}, {gy}{', ' + str(gz) if gz > 1 else ''}): x → , y ↓"
        title = f"<b>Programs</b> — {self._P} {'program' if self._P == 1 else 'programs'}, {desc}"
        ps = self._prog_slot
        ps.configure(title, self._gw if self._folded_grid and not small else 1, lock=not small,
                     rows=self._grows)
        self._prog_plot, self._prog_image = ps.plot, ps.image
        self._prog_overlay, self._prog_marker, self._oob_scatter = ps.overlay, ps.marker, ps.scatter
        placed.append((self._prog_plot, 0, 0, ncols))
        for label in self._cell_labels:
            self._prog_plot.removeItem(label)
        self._cell_labels = []
        if self._gw <= 32:  # a tick per cell, centred, labelled with x (or pid along a fold)
            self._prog_plot.getAxis("top").setTicks([[(c + 0.5, str(c)) for c in range(self._gw)]])
        if not self._folded_grid and self._grows <= 32:
            self._prog_plot.getAxis("left").setTicks([[(r + 0.5, str(r)) for r in range(self._grows)]])
        elif self._folded_grid and self._grows == 1:
            self._prog_plot.hideAxis("left")
        if labelled:
            for r in range(self._grows):
                for c in range(self._gw):
                    label = self._cell_label(len(self._cell_labels))
                    label.setPos(c + 0.5, r + 0.5)
                    self._prog_plot.addItem(label)
                    self._cell_labels.append(label)
        if small:
            self._fix_height(self._prog_plot, 62 + 44 * self._grows)
            self._prog_plot.setRange(xRange=(0, self._gw), yRange=(0, self._grows), padding=0.02)
        else:
            self._prog_plot.setMinimumHeight(220)
            self._prog_plot.setPreferredHeight(360)
            self._prog_plot.setMaximumHeight(420)
            # the range the image will need, set now: left to auto-ranging, it is found during
            # the first paint, which then paints everything a second time
            self._prog_plot.setRange(xRange=(0, self._gw), yRange=(0, self._grows))

        row, col = 1, 0
        for p, slot in zip(self._panels, self._slots, strict=False):
            yield
            shape = "×".join(str(s) for s in p.info.shape) or "scalar"
            strip = self._is_strip(p)
            # a map beside others gets a two-line title: the layout cannot shrink a title
            title = f"<b>{p.info.name}</b> [{shape}] {p.info.dtype}{' — ' if strip else '<br>'}{p.role}"
            if p.folded and p.rows > 1:
                title += f" <span style='color:#777'>(rows of {p.cols})</span>"
            if len(p.info.shape) > 2:
                title += " <span style='color:#777'>(leading dims flattened)</span>"
            if p.n_oob:
                title += (f" <span style='color:{theme.FAIL}'><b>⚠ {p.n_oob} out-of-bounds "
                          f"lane{'s' if p.n_oob != 1 else ''}</b></span>")
            slot.configure(title, p.cols if p.folded else 1, lock=not strip, rows=p.rows)
            plot = slot.plot
            p.plot, p.image, p.overlay, p.marker = plot, slot.image, slot.overlay, slot.marker
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
            self._glw.clear()
            for plot, r, c, span in placed:
                self._glw.addItem(plot, row=r, col=c, colspan=span)
            self._placed = placed
        need = self._glw.ci.effectiveSizeHint(Qt.SizeHint.MinimumSize)
        self._glw.setMinimumHeight(max(320, int(need.height()) + 8))
        self._glw.setMinimumWidth(max(420, int(need.width()) + 8))

    @staticmethod
    def _is_strip(p: _Panel) -> bool:
        # few rows and much wider than tall: a full-width strip, not a square lost in a panel
        return p.rows <= 16 and (p.folded or p.cols >= 4 * p.rows)

    @staticmethod
    def _fix_height(item: pg.GraphicsWidget, h: int) -> None:
        item.setMinimumHeight(h)
        item.setPreferredHeight(h)
        item.setMaximumHeight(h)

    # ------------------------------------------------------------------ colours
    def _lut_colour(self, slot: int) -> QColor:
        r, g, b, a = (int(v) for v in self._lut[int(slot)])
        return QColor(r, g, b, a)

    def _current_program_slots(self) -> np.ndarray:
        """uint8 [P]: lookup-table slot of every program in the current mode."""
        return _program_slots(self._mode, self._trace, self._pos, self._wave, self._folded_grid)

    def _cell_slot(self, pids: np.ndarray) -> np.ndarray:
        return self._prog_slots[pids]

    def _element_slots(self, p: _Panel) -> np.ndarray:
        return p.element_slots(self._prog_slots)

    def _apply_colours(self) -> None:
        self._lut = _mode_lut(self._mode)
        self._prog_slots = self._current_program_slots()
        self._draw_program_grid()
        for p in self._panels:
            p.image.setImage(p.to_image(self._element_slots(p), _PAD), levels=(0, 255),
                             lut=self._lut, autoLevels=False)
        self._update_legend()

    # ------------------------------------------------------------------ program grid geometry
    def _slice_pids(self) -> np.ndarray:
        """int64 [rows, cols] of pids drawn in the program grid (-1 for fold padding)."""
        gx, gy, _ = self._trace.grid
        if self._folded_grid:
            flat = np.full(self._grows * self._gw, -1, np.int64)
            flat[:gx] = np.arange(gx)
            return flat.reshape(self._grows, self._gw)
        return (self._z * gx * gy + np.arange(gx * gy)).reshape(gy, gx)

    def _cell_of(self, pid: int) -> tuple[int, int]:
        gx, gy, _ = self._trace.grid
        if self._folded_grid:
            return pid // self._gw, pid % self._gw
        x, y, z = self._trace.pid_xyz(pid)
        if z != self._z:
            self.set_z_slice(z)
        return y, x

    def _pid_at(self, row: int, col: int) -> int | None:
        if not (0 <= row < self._grows and 0 <= col < self._gw):
            return None
        pid = int(self._slice_pids()[row, col])
        return pid if pid >= 0 else None

    def _draw_program_grid(self) -> None:
        if self._trace is None or self._prog_image is None:
            return
        pids = self._slice_pids()
        slots = np.where(pids >= 0, self._prog_slots[np.maximum(pids, 0)], _PAD).astype(np.uint8)
        self._prog_image.setImage(slots, levels=(0, 255), lut=self._lut, autoLevels=False)
        for label, pid, slot in zip(self._cell_labels, pids.reshape(-1), slots.reshape(-1), strict=False):
            # black on light cells, white on dark ones (Rec. 601 luma)
            r, g, b, _ = (int(v) for v in self._lut[slot])
            label.setText(str(int(pid)) if pid >= 0 else "")
            label.setColor("#000000" if 0.299 * r + 0.587 * g + 0.114 * b > 140 else "#ffffff")
        bad = np.nonzero(np.asarray(self._trace.stats.n_oob) > 0)[0]
        bad_pids = np.asarray(self._trace.programs)[bad]
        on = pids.reshape(-1)
        mask = np.isin(on, bad_pids) & (on >= 0)
        idx = np.nonzero(mask)[0]
        self._oob_scatter.setData(x=idx % self._gw + 0.5, y=idx // self._gw + 0.5)

    # ------------------------------------------------------------------ hover, pin, lighting
    def _selection(self) -> tuple | None:
        return self._pinned if self._pinned is not None else self._hover

    def _set_hover(self, target: tuple | None) -> None:
        if self._trace is None or self._applying:
            return
        old = self._hover
        if target == old:
            return
        self._hover = target
        old_pid = old[1] if old and old[0] == "program" else -1
        new_pid = target[1] if target and target[0] == "program" else -1
        if new_pid != old_pid:
            self.programHovered.emit(new_pid)
        if target and target[0] == "element":
            self.elementHovered.emit(self._panels[target[1]].info.name, target[2])
        elif old and old[0] == "element":
            self.elementHovered.emit("", -1)
        self._refresh()

    def _refresh(self) -> None:
        """Recompute what is lit from the selection and the loop step, and redraw the overlays."""
        if self._trace is None:
            return
        sel, step = self._selection(), self._step
        for p in self._panels:
            p.flags = self._panel_flags(p, sel, step)
            if p.flags is None:
                p.overlay.hide()
            else:
                ov = np.where(p.flags > 0, p.flags, _DIM).astype(np.uint8)
                if sel is not None and sel[0] == "element" and sel[1] == p.index:
                    ov[sel[2]] = _CLEAR if p.flags[sel[2]] == 0 else p.flags[sel[2]]
                p.overlay.setImage(p.to_image(ov, _CLEAR), levels=(0, 255), lut=_OVERLAY_LUT,
                                   autoLevels=False)
                p.overlay.show()
            if sel is not None and sel[0] == "element" and sel[1] == p.index:
                f = sel[2]
                p.marker.setRect(QRectF(f % p.cols, f // p.cols, 1, 1))
                p.marker.show()
            else:
                p.marker.hide()
        self._prog_flags = self._program_flags(sel, step)
        pids = self._slice_pids()
        if self._prog_flags is None:
            self._prog_overlay.hide()
        else:
            f = np.where(pids >= 0, self._prog_flags[np.maximum(pids, 0)], 0)
            if sel is None:  # a loop step alone: the programs that ran it keep their colours
                f = np.where(f > 0, _CLEAR, 0)
            ov = np.where(pids < 0, _CLEAR, np.where(f > 0, f, _DIM)).astype(np.uint8)
            self._prog_overlay.setImage(ov, levels=(0, 255), lut=_OVERLAY_LUT, autoLevels=False)
            self._prog_overlay.show()
        if sel is not None and sel[0] == "program" and self._in_slice(sel[1]):
            r, c = self._cell_of(sel[1])
            self._prog_marker.setRect(QRectF(c, r, 1, 1))
            pen = self._prog_marker.pen()
            pen.setWidthF(3.0 if self._pinned is not None else 2.0)
            self._prog_marker.setPen(pen)
            self._prog_marker.show()
        else:
            self._prog_marker.hide()
        self._update_info()
        line = self._access_line()
        if line != self._last_line:
            self._last_line = line
            self.accessLineHovered.emit(line)

    def _in_slice(self, pid: int) -> bool:
        return self._folded_grid or self._trace.pid_xyz(pid)[2] == self._z

    def _program_events(self, p: _Panel, pid: int, step: int | None) -> np.ndarray:
        js = np.arange(p.prog_ptr[pid], p.prog_ptr[pid + 1])
        return js if step is None else js[p.ev_step[js] == step]

    def _panel_flags(self, p: _Panel, sel: tuple | None, step: int | None) -> np.ndarray | None:
        if sel is None and step is None:
            return None
        flags = np.zeros(p.numel, np.uint8)
        if sel is not None and sel[0] == "element":
            if sel[1] == p.index:
                flags[sel[2]] = np.bitwise_or.reduce(self._element_lanes(p, sel[2])[1], initial=0)
                return flags
            return None
        if sel is not None:
            js = self._program_events(p, sel[1], step)
        else:
            js = np.nonzero(p.ev_step == step)[0]
        el, kind = p.lanes_of_events(js)
        flags[el[(kind & LIT_LOAD) != 0]] |= LIT_LOAD
        flags[el[(kind & LIT_STORE) != 0]] |= LIT_STORE
        return flags

    def _element_lanes(self, p: _Panel, flat: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(programs, kind bits, panel event positions) of every lane that touched ``flat``.

        A linear numpy scan (about 2 ms for 2M lanes) instead of a per-tensor inverse index,
        which would double set_trace's time and memory for a hover that is rarer than a
        program hover."""
        js = p.events_of_lanes(np.flatnonzero(p.elem == flat))
        return p.ev_prog[js], p.ev_kind[js], js

    def _program_flags(self, sel: tuple | None, step: int | None) -> np.ndarray | None:
        if sel is not None and sel[0] == "element":
            p = self._panels[sel[1]]
            progs, kinds, _ = self._element_lanes(p, sel[2])
            flags = np.zeros(self._P, np.uint8)
            flags[progs[(kinds & LIT_LOAD) != 0]] |= LIT_LOAD
            flags[progs[(kinds & LIT_STORE) != 0]] |= LIT_STORE
            return flags
        if sel is None and step is not None:
            flags = np.zeros(self._P, np.uint8)
            at = self._ev_step == step
            ev = self._trace.events
            flags[ev.program[at & ((self._ev_kind & LIT_LOAD) != 0)]] |= LIT_LOAD
            flags[ev.program[at & ((self._ev_kind & LIT_STORE) != 0)]] |= LIT_STORE
            return flags
        return None

    def _first_event_of_program(self, pid: int, tensor: int | None, step: int | None) -> int | None:
        ev = self._trace.events
        es = self._ev_by_prog[self._prog_ev_ptr[pid]: self._prog_ev_ptr[pid + 1]]
        if tensor is not None:
            es = es[ev.tensor[es] == tensor]
        if step is not None:
            es = es[self._ev_step[es] == step]
        return int(es[0]) if es.size else None

    def _access_line(self) -> int:
        """The source line the source view should mark for the current hover and selection."""
        sel, hov, step = self._selection(), self._hover, self._step
        ev = self._trace.events
        if sel is None:
            return -1
        e = None
        if sel[0] == "program":
            tensor = hov[1] if hov is not None and hov[0] == "element" else None
            e = self._first_event_of_program(sel[1], tensor, step)
        else:
            p = self._panels[sel[1]]
            js = self._element_lanes(p, sel[2])[2]
            if js.size:
                e = int(p.ev[js].min())
        return int(ev.line[e]) if e is not None else -1

    # ------------------------------------------------------------------ teaching text
    def _update_info(self) -> None:
        target = self._hover if self._hover is not None else self._pinned
        if target is None:
            text = ("Hover a program to light its elements, or an element to see who touched it; "
                    "click to pin.")
        elif target[0] == "program":
            text = self._program_text(target[1])
        else:
            text = self._element_text(self._panels[target[1]], target[2])
        if self._pinned is not None:
            what = (f"program {self._pinned[1]}" if self._pinned[0] == "program" else
                    f"{self._panels[self._pinned[1]].info.name}[{self._pinned[2]}]")
            text += f"\nPINNED: {what} — click it again or press Esc to unpin."
        self._info.setText(text)
        if self._show_tooltips and self._hover is not None:
            QToolTip.showText(QCursor.pos(), text, self._glw)

    def _program_text(self, pid: int) -> str:
        tr = self._trace
        x, y, z = tr.pid_xyz(pid)
        head = f"program {pid}   pid (x={x}, y={y}, z={z})"
        pos = int(self._pos[pid])
        if pos < 0:
            return f"{head}\nnot recorded: the tracer ran {tr.window}."
        head += f"   wave {int(np.asarray(self._wave)[pos])}"
        step = self._step
        lines = [head + (f"   (step {step} of the loop at {self._loop_name(self._loop)})"
                         if step is not None else "")]
        for p in self._panels:
            js = self._program_events(p, pid, step)
            if not js.size:
                continue
            el, kind = p.lanes_of_events(js)
            ops = sorted({OP_NAMES[o] for o in tr.events.op[p.ev[js]]})
            n_ev = len(js)
            what = f"{'/'.join(ops)} ×{n_ev}"
            if not el.size:
                lines.append(f"  {p.info.name}: {what}, every lane masked")
                continue
            uniq = np.unique(el)
            if len(p.info.shape) >= 2:
                idx = np.unravel_index(uniq, p.info.shape)
                ranges = ", ".join(f"{nm} {_fmt_range(int(i.min()), int(i.max()))}"
                                   for nm, i in zip(self._dim_names(p), idx, strict=True))
            else:
                ranges = f"elements {_fmt_range(int(uniq.min()), int(uniq.max()))}"
            lines.append(f"  {p.info.name}: {what}  {ranges}  ({len(uniq)} elements)")
        es = self._ev_by_prog[self._prog_ev_ptr[pid]: self._prog_ev_ptr[pid + 1]]
        ev = tr.events
        active, masked, oob = (int(ev.n_active[es].sum()), int(ev.n_masked[es].sum()),
                               int(ev.n_oob[es].sum()))
        total = active + masked + oob
        frac = 100.0 * masked / total if total else 0.0
        lines.append(f"masked lanes: {masked} of {total} ({frac:.1f}%)"
                     + (f"   out-of-bounds lanes: {oob}" if oob else ""))
        st = tr.stats
        lines.append(f"bytes loaded {int(st.bytes_loaded[pos]):,}   stored {int(st.bytes_stored[pos]):,}")
        return "\n".join(lines)

    @staticmethod
    def _dim_names(p: _Panel) -> list[str]:
        nd = len(p.info.shape)
        return ["rows", "cols"] if nd == 2 else [f"dim{d}" for d in range(nd)]

    def _element_text(self, p: _Panel, flat: int) -> str:
        idx = p.multi_index(flat)
        name = f"{p.info.name}[{', '.join(str(i) for i in idx)}]"
        head = name + (f"   (flat {flat})" if len(idx) > 1 else "")
        progs, kinds, _ = self._element_lanes(p, flat)

        def who(kind: int, verb: str) -> str:
            ps = np.unique(progs[kinds == kind])
            if ps.size == 0:
                return f"{verb} by no program"
            if ps.size == 1:
                return f"{verb} by program {int(ps[0])} {self._trace.pid_xyz(int(ps[0]))}"
            shown = ", ".join(str(int(v)) for v in ps[:8]) + (", …" if ps.size > 8 else "")
            return f"{verb} by {ps.size} programs: {shown}"

        m = p.maps
        n_reads, n_writes = int(m.n_reads.reshape(-1)[flat]), int(m.n_writes.reshape(-1)[flat])
        lines = [head, who(LIT_STORE, "written"), who(LIT_LOAD, "read")]
        if (kinds == LIT_LOAD | LIT_STORE).any():  # an atomic reads and writes in one step
            lines.append(who(LIT_LOAD | LIT_STORE, "updated atomically"))
        lines.append(f"reads: {n_reads}   writes: {n_writes}")
        if m.multiply_written.reshape(-1)[flat]:
            lines.append("⚠ written by several programs: the result depends on which store lands "
                         "last (a race) unless they all store the same value.")
        elif m.writer.reshape(-1)[flat] == SEVERAL:
            lines.append("updated by atomics of several programs: they accumulate, no race.")
        elif n_reads == 0 and n_writes == 0:
            lines.append("untouched: no program loaded or stored it (masked off or never reached"
                         + (", or its program is outside the recorded window)."
                            if self._trace.window else ")."))
        return "\n".join(lines)

    def _update_legend(self) -> None:
        def sw(hex_colour: str) -> str:
            return (f"<span style='background-color:{hex_colour}; color:{hex_colour}'>"
                    "&nbsp;■■&nbsp;</span>")

        if self._mode == "program":
            colour = "tile colour = the program that stored the element (else the one that loaded it)"
        elif self._mode == "dispatch":
            cm = pg.colormap.get("viridis")
            colour = (f"colour = dispatch order: first program {sw(cm.map(0.0, 'qcolor').name())} → "
                      f"last {sw(cm.map(1.0, 'qcolor').name())}")
        elif self._mode == "wave":
            colour = "colour = the wave a program runs in (programs ÷ (SMs × programs per SM))"
        else:
            cm = pg.colormap.get("plasma")
            colour = (f"colour = fraction of the program's lanes masked off: 0% "
                      f"{sw(cm.map(0.0, 'qcolor').name())} → 100% {sw(cm.map(1.0, 'qcolor').name())}")
        parts = [
            colour,
            f"{sw(_SPECIAL[_UNTOUCHED])} untouched",
            f"{sw(_SPECIAL[_PAD])} no element (padding)",
            f"{sw(_SPECIAL[_MULTI_WRITE])} written by several programs",
            f"{sw(_SPECIAL[_SHARED_READ])} read by several programs",
            f"{sw(_SPECIAL[_ACCUMULATED])} atomics of several programs",
            f"hover: {sw(_TINT[LIT_LOAD])} loaded {sw(_TINT[LIT_STORE])} stored "
            f"{sw(_TINT[LIT_LOAD | LIT_STORE])} both / atomic",
        ]
        if self._trace is not None and self._trace.window is not None:
            parts.append(f"{sw(_SPECIAL[_NOT_RECORDED])} not recorded")
        self._legend.setText(" &nbsp;·&nbsp; ".join(parts))

    # ------------------------------------------------------------------ loop controls
    def _set_loop_controls(self, n_steps: int) -> None:
        self._n_steps = n_steps
        any_ran = bool(self._loop_steps) and max(self._loop_steps) > 0  # loops never entered: none
        for w in self._loop_widgets:
            w.setVisible(any_ran)
        self._loop_combo.setVisible(any_ran and len(self._loop_steps) > 1)
        self._play.setEnabled(n_steps > 0)
        self._slider.setEnabled(n_steps > 0)
        self._slider.blockSignals(True)
        self._slider.setRange(-1, max(n_steps - 1, -1))
        self._slider.setValue(-1)
        self._slider.blockSignals(False)
        self._update_loop_label()

    def _update_loop_label(self) -> None:
        tr = self._trace
        if tr is None or not self._n_steps:
            self._loop_label.setText("")
            return
        # the step first: when the bar is narrow the loop's source text is what gets cut
        where = "" if len(self._loop_steps) > 1 else "   —   loop at " + self._loop_name(self._loop)
        step = "all iterations" if self._step is None else f"step {self._step} of {self._n_steps}"
        self._loop_label.setText(f"{step}{where}")

    def _loop_name(self, j: int, short: bool = False) -> str:
        tr = self._trace
        if j >= len(tr.loop_lines) or tr.loop_lines[j] < 0:
            return f"loop {j}"
        ln = tr.loop_lines[j]
        src = tr.source.splitlines()
        i = ln - tr.source_first_line
        text = src[i].split("#")[0].strip() if 0 <= i < len(src) else ""
        width = 32 if short else 48
        return f"line {ln}" + (f": {text[:width]}{'…' if len(text) > width else ''}" if text else "")

    def _on_play_toggled(self, on: bool) -> None:
        icon = QStyle.StandardPixmap.SP_MediaPause if on else QStyle.StandardPixmap.SP_MediaPlay
        self._play.setIcon(self.style().standardIcon(icon))
        if on and self._n_steps:
            self._timer.start()
        else:
            self._timer.stop()

    def _advance(self) -> None:
        if not self._n_steps:
            self._timer.stop()
            return
        self.set_loop_step(0 if self._step is None else (self._step + 1) % self._n_steps)

    # ------------------------------------------------------------------ OOB list
    def _fill_oob_list(self, trace: Trace) -> None:
        self._oob_list.clear()
        self._oob_records = list(trace.oob)
        for r in self._oob_records:
            xyz = trace.pid_xyz(r.program)
            past = ""
            if r.nearest_tensor:
                ex = ", ".join(str(o) for o in r.example_offsets)
                past = f" — near {r.nearest_tensor} (offsets {ex}{', …' if r.count > len(r.example_offsets) else ''})"
            where = "outside any tensor's view" if r.kind == OOB_OUTSIDE_VIEW else "out of bounds"
            self._oob_list.addItem(f"program {r.program} {xyz}: {r.op} at line {r.line}, "
                                   f"{r.count} lane{'s' if r.count != 1 else ''} {where}{past}")
        n = len(self._oob_records)
        self._oob_header.setText(f"⚠ {n} out-of-bounds access{'es' if n != 1 else ''} — these "
                                 "lanes hit no tensor, so no tile map can show them (click one):")
        self._oob_header.setVisible(n > 0)
        self._oob_list.setVisible(n > 0)

    def _on_oob_clicked(self, item) -> None:
        r = self._oob_records[self._oob_list.row(item)]
        self._hover = ("program", r.program)
        self._pinned = self._hover
        self._refresh()
        self.pinnedChanged.emit(True)
        self._last_line = r.line
        self.accessLineHovered.emit(r.line)

    # ------------------------------------------------------------------ mouse
    def _view_point(self, item: pg.ImageItem, x: float, y: float) -> QPoint:
        # settle now what the next paint would (pending layout requests, the view box's range
        # and transform), so the point is where the mouse will find the cell even when asked
        # right after a trace was applied, before its first paint
        QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
        vb = item.getViewBox()
        if isinstance(vb, pg.ViewBox):
            vb.prepareForPaint()
        scene = item.mapToScene(QPointF(x, y))
        return self._glw.mapFromScene(scene)

    def _hit(self, scene_pos: QPointF) -> tuple | None:
        if self._trace is None:
            return None
        if self._prog_plot.vb.sceneBoundingRect().contains(scene_pos):
            pt = self._prog_image.mapFromScene(scene_pos)
            pid = self._pid_at(math.floor(pt.y()), math.floor(pt.x()))
            return ("program", pid) if pid is not None else None
        for p in self._panels:
            if p.plot.vb.sceneBoundingRect().contains(scene_pos):
                pt = p.image.mapFromScene(scene_pos)
                r, c = math.floor(pt.y()), math.floor(pt.x())
                if 0 <= r < p.rows and 0 <= c < p.cols and r * p.cols + c < p.numel:
                    return ("element", p.index, r * p.cols + c)
                return None
        return None

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        if obj is self._glw.viewport() and event.type() == QEvent.Type.Leave:
            self._set_hover(None)
        return super().eventFilter(obj, event)

    def _on_mouse_moved(self, scene_pos: QPointF) -> None:
        self._show_tooltips = True
        try:
            self._set_hover(self._hit(scene_pos))
        finally:
            self._show_tooltips = False

    def _on_mouse_clicked(self, ev) -> None:
        if ev.button() != Qt.MouseButton.LeftButton or self._trace is None:
            return
        target = self._hit(ev.scenePos())
        if self._pinned is not None and (target is None or target == self._pinned):
            self.unpin()
            self._set_hover(target)
            return
        if target is not None:
            self._set_hover(target)
            self._pinned = None
            self.pin()


def main() -> None:  # pragma: no cover - manual preview
    import sys

    from PySide6.QtWidgets import QApplication

    from views.demo import DEMOS

    app = QApplication.instance() or QApplication(sys.argv)
    top = QWidget()
    top.setWindowTitle("Tilescope — grid view (synthetic demo traces)")
    combo = QComboBox()
    combo.addItems(list(DEMOS))
    view = GridView()
    combo.currentTextChanged.connect(lambda name: view.set_trace(DEMOS[name]()))
    lay = QVBoxLayout(top)
    lay.addWidget(combo)
    lay.addWidget(view, 1)
    view.set_trace(DEMOS[combo.currentText()]())
    top.resize(1100, 850)
    top.show()
    sys.exit(app.exec())


if __name__ == "__main__":  # pragma: no cover
    main()
