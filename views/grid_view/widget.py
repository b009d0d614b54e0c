"""GridView: the program grid and a tile map per tensor of one ``Trace``, with hover, pin, a loop
slider and colour modes.

The parts: ``prepare`` (numpy: the trace grouped for fast hovers), ``fold`` (numpy: where each
element is drawn, fitted to the panel), ``regions`` (numpy: the labels), ``colouring`` (numpy:
neighbour-apart colours), ``lighting`` (numpy: what a selection lights), ``text`` (the words),
``state`` (the interaction state, Qt-free, with events), ``palette`` (colours), ``canvas`` (the
pyqtgraph plots), ``controls`` (the bar above), ``launch`` (the launch order beside the maps),
``loader`` (the background preparation). This widget wires them: it observes the state and
redraws the lighting, refits the maps when its size changes, and turns the mouse into state
changes.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject, QPointF, QRect, Qt, QTimer, Signal
from PySide6.QtGui import QCursor, QKeyEvent, QShowEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QScrollArea,
    QSizePolicy,
    QToolButton,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from kernels.data.trace import OOBRecord, Trace

from .. import theme
from ..i18n import translate
from .canvas import GridCanvas
from .controls import GridControls
from .full_res import FullResolutionControl
from .launch import LaunchOrderControl, LaunchPanel
from .lighting import (
    Target,
    access_line,
    cell_of,
    in_slice,
    panel_flags,
    panel_overlay,
    program_flags,
    program_overlay,
    slice_pids,
)
from .loader import Preparer, Stepper
from .palette import auto_words, legend_html, mode_lut
from .prepare import CLEAR, Panel, PreparedTrace, auto_reason, prepare_trace
from .queries import DrawnQueries
from .state import GridState
from .text import info_text, oob_header, oob_line, window_text

__all__ = ["GridView"]


class GridView(DrawnQueries, LaunchOrderControl, FullResolutionControl, QWidget):
    """Program grid + per-tensor tile maps of one ``Trace``, with hover, pin and a loop slider.

    Signals: ``programHovered(pid)`` (-1 when none), ``elementHovered(tensor, flat_index)``
    (``("", -1)`` when none), ``accessLineHovered(line)`` (the source line of the selected
    access; -1 when none), ``pinnedChanged(bool)``, ``traceApplied(Trace)`` (a trace is drawn
    and can be hovered: at the end of ``set_trace``, or later with ``background=True``),
    ``traceFailed(str)`` (a background preparation raised; the previous trace stays),
    ``regionWanted(RegionRequest)`` (a reduced map zoomed in wants its elements: ``full_res``).
    """

    programHovered = Signal(int)
    elementHovered = Signal(str, int)
    accessLineHovered = Signal(int)
    pinnedChanged = Signal(bool)
    traceApplied = Signal(object)
    traceFailed = Signal(str)
    regionWanted = Signal(object)

    #: plots made ahead, one per event-loop turn after the view is first shown: a program grid
    #: and three tile maps cover most kernels, so the first trace need not build any
    WARM_PLOTS = 4

    PLAY_INTERVAL_MS = GridControls.PLAY_INTERVAL_MS

    def __init__(self, parent: QWidget | None = None):
        theme.configure()
        super().__init__(parent)
        self._state = GridState()
        self._prep: PreparedTrace | None = None  # the trace drawn, or being drawn
        self._lut = mode_lut(self._state.mode)
        self._flags: list[np.ndarray | None] = []  # per panel: lit bits of its elements, or None
        self._prog_flags: np.ndarray | None = None
        self._last_line = -1
        self._show_tooltips = False  # only when the mouse drives the hover
        self._oob_records: list[OOBRecord] = []
        self._gen = 0  # bumped by every set_trace: a preparation of an older one is dropped
        self._shown: Trace | None = None  # the trace fully drawn (what trace() returns)
        self._applying = False  # a background trace is being applied step by step
        self._loading: Trace | None = None  # the trace a background set_trace is drawing
        self._warming = False
        self._preparer = Preparer(self)
        self._preparer.done.connect(self._on_prepared)
        self._stepper = Stepper(self)
        self._warm_timer = QTimer(self)  # makes plots ahead, one per turn (see Stepper)
        self._warm_timer.setSingleShot(True)
        self._warm_timer.setInterval(0)
        self._warm_timer.timeout.connect(self._warm_next)
        self._fit_timer = QTimer(self)  # refits the maps once a resize has settled
        self._fit_timer.setSingleShot(True)
        self._fit_timer.setInterval(80)
        self._fit_timer.timeout.connect(self._refit)
        self._fitted_size = (0, 0)

        self._controls = GridControls(self._state)
        self._canvas = GridCanvas()
        self._glw = self._canvas.glw
        self._init_full_res()
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
        self._scroll.viewport().installEventFilter(self)  # to refit the maps to a new size
        self._build_labels()
        self._launch = LaunchPanel(self._state)
        self._launch.hide()
        self._launch_button = QToolButton()
        self._launch_button.setText(translate("GridView", "Launch order"))
        self._launch_button.setCheckable(True)
        self._launch_button.setToolTip(translate("GridView", "Play the programs wave by wave in launch order, and "
                                                             "count the tiles each wave loads"))
        self._launch_button.toggled.connect(self.show_launch_order)

        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        top = QHBoxLayout()
        top.addWidget(self._controls, 1)
        top.addWidget(self._launch_button)
        lay.addLayout(top)
        lay.addWidget(self._window_label)
        middle = QHBoxLayout()
        middle.addWidget(self._scroll, 1)
        middle.addWidget(self._launch)
        lay.addLayout(middle, 1)
        lay.addWidget(self._legend)
        lay.addWidget(self._oob_header)
        lay.addWidget(self._oob_list)
        lay.addWidget(self._info)
        self._window_label.hide()
        self._oob_header.hide()
        self._oob_list.hide()
        self._update_legend()

        ev = self._state.events
        ev.mode.connect(self._on_mode)
        ev.hover.connect(self._on_hover)
        ev.pinned.connect(self._on_pinned)
        ev.loop.connect(self._on_loop)
        ev.step.connect(lambda _step: self._refresh())
        ev.z.connect(self._on_z)
        ev.wave.connect(lambda _wave: self._refresh())
        ev.waves.connect(self._on_waves)

    def _build_labels(self) -> None:
        self._window_label = QLabel()
        self._window_label.setStyleSheet(f"color: {theme.ACCENT_WARN};")
        self._window_label.setWordWrap(True)
        self._legend = QLabel()
        self._legend.setWordWrap(True)
        self._legend.setTextFormat(Qt.TextFormat.RichText)
        self._info_text = translate("GridView", "Hover a program or an element.")
        self._info_lines, self._info_pinned = 8, False
        self._info = QLabel(self._info_text)
        self._info.setFont(theme.mono_font())
        self._info.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self._info.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        # a fixed height: a hover text of another length must not resize the maps under the mouse
        self._set_info_lines(8)
        self._info.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self._info.setWordWrap(True)  # a long hover text must not widen the window
        self._oob_header = QLabel()
        self._oob_header.setStyleSheet(f"color: {theme.FAIL}; font-weight: bold;")
        self._oob_header.setWordWrap(True)
        self._oob_list = QListWidget()
        self._oob_list.setMaximumHeight(90)
        self._oob_list.itemClicked.connect(self._on_oob_clicked)

    # ------------------------------------------------------------------ public API: the trace
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
        # a background trace half applied is finished first (a few ms), so that the view stays
        # whole, and usable, while the next one is prepared
        self._stepper.finish()
        self._gen += 1
        gen = self._gen
        if not background:
            self._loading = None
            for _ in self._apply_steps(prepare_trace(trace, self._state.mode), gen):
                pass
            return
        self._loading = trace
        self._preparer.submit(gen, trace, self._state.mode)

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
        self._stepper.start(self._apply_steps(result, gen))

    def _apply_steps(self, prep: PreparedTrace, gen: int) -> Iterator[None]:
        """Install a prepared trace; yields between steps of at most ~20 ms each: every plot
        still to be made, the layout, the images, lists and lighting, ``traceApplied``, and
        last the painting (updates stay off until then, so no half-made state is ever shown)."""
        canvas = self._canvas
        while len(canvas.slots) < len(prep.panels) or canvas.prog is None:
            canvas.make_slot()
            yield
        if prep.requested != self._state.mode:  # the colour mode changed while it was being prepared
            prep.recolour(self._state.mode)
            yield
        trace = prep.trace
        self._applying = True
        self._state.set_playing(False)
        self._state.reset(prep.loop_steps, trace.grid[2])
        self._prep = prep
        self._clear_regions()
        self._flags = [None] * len(prep.panels)
        self._last_line = -1
        self._lut = mode_lut(prep.mode)
        # the labels around the maps first: they take from the room the maps are fitted to
        self._controls.set_trace(trace)
        self._controls.show_auto(prep.mode, auto_reason(trace))
        self._window_label.setVisible(trace.window is not None)
        self._window_label.setText(window_text(trace))
        self._fill_oob_list(trace)
        self._update_legend()
        self.layout().activate()
        # the layout next, then (next turn) everything else; the plots are not painted in
        # between, where they would show the last trace's images under the new titles
        self._glw.setUpdatesEnabled(False)
        try:
            yield from canvas.layout(prep, *self._view_size())
        except Exception:
            self._glw.setUpdatesEnabled(True)
            raise
        yield
        self._fitted_size = self._view_size()
        self._launch.set_trace(trace)
        self._set_waves(prep)
        canvas.fit(prep)  # the grid and the maps folded to the size their plots got
        canvas.draw_program_grid(prep, slice_pids(prep, 0), self._lut)
        canvas.draw_maps(prep.images, self._lut)
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

    # ------------------------------------------------------------------ public API: the state
    def color_mode(self) -> str:
        """The mode chosen (``"auto"`` by default; see ``shown_color_mode``)."""
        return self._state.mode

    def shown_color_mode(self) -> str:
        """The mode the maps are drawn in: the chosen one, or what ``"auto"`` resolved to."""
        return self._prep.mode if self._prep is not None else self._state.mode

    def set_color_mode(self, mode: str) -> None:
        """``"program"``, ``"wave"``, ``"dispatch"`` (launch order), ``"readers"`` or ``"masked"``
        (see ``COLOR_MODES``)."""
        self._state.set_mode(mode)

    def set_z_slice(self, z: int) -> None:
        if self._prep is None:
            return
        self._state.set_z(z)

    def hover_program(self, pid: int | None) -> None:
        """Hover program ``pid`` (None or -1: nothing) as the mouse would; ignored while pinned."""
        if pid is None or pid < 0:
            self._set_hover(None)
            return
        prep = self._checked()
        if not 0 <= pid < prep.P:
            raise ValueError(f"program {pid} is outside the grid of {prep.P} programs")
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
        return self._state.pin()

    def unpin(self) -> None:
        self._state.unpin()

    def is_pinned(self) -> bool:
        return self._state.pinned is not None

    def selected_program(self) -> int | None:
        """The program whose accesses are lit (pinned first, else hovered), if any."""
        return self._state.selected_program()

    def loop_steps(self) -> int:
        """Iterations of the loop the slider steps (0 when the kernel has no loop)."""
        return self._state.n_steps

    def loops(self) -> list[tuple[int, int]]:
        """(source line, iterations) of every loop of the kernel, in source order (-1: unknown)."""
        lines = list(self._prep.trace.loop_lines) if self._prep is not None else []
        return [(lines[j] if j < len(lines) else -1, n) for j, n in enumerate(self._state.loop_steps)]

    def current_loop(self) -> int:
        return self._state.loop

    def set_loop(self, index: int) -> None:
        """Step through loop ``index`` (source order; 0 = the first, the outermost of a nest)."""
        self._state.set_loop(index)

    def loop_step(self) -> int | None:
        return self._state.step

    def set_loop_step(self, step: int | None) -> None:
        """Show only the accesses of loop iteration ``step`` (None or -1: all iterations)."""
        self._state.set_step(step)

    def is_playing(self) -> bool:
        return self._controls.timer.isActive()

    def set_play_interval(self, ms: int) -> None:
        """Milliseconds between loop steps while playing."""
        self._controls.timer.setInterval(int(ms))

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 (Qt's name)
        if event.key() == Qt.Key.Key_Escape and self._state.pinned is not None:
            self.unpin()
            event.accept()
            return
        super().keyPressEvent(event)

    def _set_info_lines(self, lines: int) -> None:
        # ``lines`` lines of the mono font; a line as the window's language draws it may be taller
        # (Chinese falls back to a CJK font: 18 px where the metrics say 14, and 6 lines of 14 px
        # showed 5 of them): as many whole lines as fit, the maps keeping their height
        fm = self._info.fontMetrics()
        sample = "Ag" + translate("GridView", "program {pid}").format(pid=0)
        drawn = max(fm.height(), fm.boundingRect(QRect(0, 0, 10000, 1000), 0, sample).height())
        self._info_lines = max(2, lines * fm.height() // drawn)
        self._info.setFixedHeight(lines * fm.height() + 4)
        self._show_info()

    def _show_info(self) -> None:
        """The hover text in the lines the info box has: a longer one cut at a whole line (the
        tooltip, and ``hover_text``, hold all of it), a pinned target's last line (how to unpin) kept."""
        lines = self._info_text.split("\n")
        if len(lines) > self._info_lines:
            last = lines[-1:] if self._info_pinned else []
            lines = (lines[: self._info_lines - 1 - len(last)]
                     + ["… " + translate("GridView", "(the rest in the tooltip)")] + last)
        self._info.setText("\n".join(lines))

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        # a short view (the window's middle column on a laptop) keeps more room for the maps;
        # the whole text is in the tooltip
        self._set_info_lines(8 if event.size().height() >= 700 else 6)
        super().resizeEvent(event)

    # ------------------------------------------------------------------ plots made ahead
    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 (Qt's name)
        super().showEvent(event)
        self.warm_up()

    def warm_up(self) -> None:
        """Make the plots a first trace will need (``WARM_PLOTS``), one per event-loop turn,
        so that drawing the first trace does not have to (the window calls this after its first
        frame; showing the view does too)."""
        if self._warming or self._loading is not None or self._stepper.busy():
            return  # one chain at a time; a trace being applied makes what it needs itself
        if self._canvas.n_plots() < self.WARM_PLOTS:
            self._canvas.make_slot()
            self._warming = True
            self._warm_timer.start()

    def _warm_next(self) -> None:
        self._warming = False
        self.warm_up()

    # ------------------------------------------------------------------ lookups
    def _checked(self) -> PreparedTrace:
        if self._prep is None:
            raise RuntimeError("no trace: call set_trace first")
        return self._prep

    def _panel(self, tensor: str) -> Panel:
        return self._checked().panel(tensor)

    def _tile_plot(self, tensor: str) -> pg.PlotItem:
        """The plot drawing ``tensor``'s tile map."""
        return self._canvas.slots[self._panel(tensor).index].plot

    def _cell_shown(self, pid: int) -> tuple[int, int]:
        """(row, column) of program ``pid``'s cell, switching to its z slice if need be."""
        r, c, z = cell_of(self._checked(), pid)
        if not self._prep.folded_grid and z != self._state.z:
            self.set_z_slice(z)
        return r, c

    # ------------------------------------------------------------------ following the state
    def _redraw(self) -> None:
        """The program grid and the maps drawn again from ``_prep``'s slots and images."""
        prep, z = self._prep, self._state.z
        self._canvas.draw_program_grid(prep, slice_pids(prep, z), self._lut, z)
        self._canvas.draw_maps(prep.images, self._lut)
        self._redraw_regions()

    def _on_mode(self, mode: str) -> None:
        prep = self._prep
        self._lut = mode_lut(mode)
        if prep is not None:
            prep.recolour(mode)
            self._lut = mode_lut(prep.mode)
            self._redraw()
        self._update_legend()

    def _on_z(self, z: int) -> None:
        if self._prep is None:
            return
        self._canvas.draw_program_grid(self._prep, slice_pids(self._prep, z), self._lut, z)
        self._refresh()

    def _set_waves(self, prep: PreparedTrace) -> None:
        """The wave model of ``prep`` from the state: programs per wave, launch order."""
        st = self._state
        if st.per_wave or st.order != "recorded":
            order = self._launch.row_major_order() if st.order == "row-major" else None
            prep.set_waves(st.per_wave or prep.trace.programs_per_wave, order)
        st.n_waves = prep.n_waves()
        if st.wave is not None and st.wave >= st.n_waves:
            st.wave = max(0, st.n_waves - 1)

    def _on_waves(self) -> None:
        prep = self._prep
        if prep is None:
            return
        self._set_waves(prep)
        if prep.mode == "wave":
            self._redraw()
        self._refresh()

    # ------------------------------------------------------------------ fitting to the size
    def _view_size(self) -> tuple[int, int]:
        """Pixels the maps have: the scroll area's viewport (a guess before it is laid out)."""
        vp = self._scroll.viewport()
        w, h = vp.width(), vp.height()
        if w < 200 or h < 150:
            w, h = max(self.width(), 640) - 16, max(self.height(), 480) - 190
        return w, h

    def _refit(self) -> None:
        """Lay the plots out for the size the view has now and fold the maps to fill them."""
        self._fit_timer.stop()
        prep = self._prep
        if prep is None or self._applying or self._stepper.busy():
            return
        size = self._view_size()
        if size == self._fitted_size:
            return
        self._fitted_size = size
        for _ in self._canvas.layout(prep, *size):
            pass
        if self._canvas.fit(prep):
            self._redraw()
        self._refresh()

    def _ensure_fitted(self) -> None:
        """A refit waiting for the resize to settle is done now (a position asked for must be
        where the mouse will find it)."""
        if self._fit_timer.isActive():
            self._refit()

    def _on_loop(self, index: int) -> None:
        if self._prep is None:
            return
        self._prep.select_loop(index)
        self._refresh()

    def _set_hover(self, target: Target | None) -> None:
        if self._prep is None or self._applying:
            return
        self._state.set_hover(target)

    def _on_hover(self, old: Target | None, new: Target | None) -> None:
        old_pid = old[1] if old and old[0] == "program" else -1
        new_pid = new[1] if new and new[0] == "program" else -1
        if new_pid != old_pid:
            self.programHovered.emit(new_pid)
        if new and new[0] == "element":
            self.elementHovered.emit(self._prep.panels[new[1]].info.name, new[2])
        elif old and old[0] == "element":
            self.elementHovered.emit("", -1)
        self._refresh()

    def _on_pinned(self, on: bool) -> None:
        self._refresh()
        self.pinnedChanged.emit(on)

    def _refresh(self) -> None:
        """Recompute what is lit from the selection, the loop step and the wave, and redraw the
        overlays."""
        prep = self._prep
        if prep is None:
            return
        st = self._state
        sel, step = st.selection, st.step
        wave = prep.wave_programs(st.wave) if st.wave is not None and sel is None else None
        for p, slot in zip(prep.panels, self._canvas.slots, strict=False):
            flags = self._flags[p.index] = panel_flags(p, sel, step, wave)
            slot.show_overlay(None if flags is None else p.to_image(panel_overlay(p, flags, sel), CLEAR))
            if sel is not None and sel[0] == "element" and sel[1] == p.index:
                slot.show_marker(*p.cell_of(sel[2]))
            else:
                slot.show_marker(None)
        self._prog_flags = program_flags(prep, sel, step, wave)
        prog = self._canvas.prog
        if self._prog_flags is None:
            prog.show_overlay(None)
        else:
            done = None
            if wave is not None:  # the waves before the one shown have run
                done = np.zeros(prep.P, bool)
                done[np.concatenate([prep.wave_programs(w) for w in range(st.wave)] or [np.zeros(0, np.int64)])] = True
            prog.show_overlay(program_overlay(slice_pids(prep, st.z), self._prog_flags, sel, done))
        if sel is not None and sel[0] == "program" and in_slice(prep, sel[1], st.z):
            r, c, _ = cell_of(prep, sel[1])
            prog.show_marker(r, c, width=3.0 if st.pinned is not None else 2.0)
        else:
            prog.show_marker(None)
        self._update_info()
        line = access_line(prep, sel, st.hover, step)
        if line != self._last_line:
            self._last_line = line
            self.accessLineHovered.emit(line)

    def _update_info(self) -> None:
        st = self._state
        exact = self._exact_text()
        text = exact or info_text(self._prep, st.hover, st.pinned, st.step, st.loop)
        self._info_text = text
        self._info_pinned = not exact and st.pinned is not None  # its last line: how to unpin
        self._show_info()
        if self._show_tooltips and st.hover is not None:
            QToolTip.showText(QCursor.pos(), text, self._glw)

    def _update_legend(self) -> None:
        windowed = self._prep is not None and self._prep.trace.window is not None
        prep = self._prep
        present = None
        if prep is not None:  # the slots the maps use: only their meanings are listed
            used = np.zeros(256, bool)
            for img in prep.images:
                used |= np.bincount(img.reshape(-1), minlength=256)[:256] > 0
            present = set(np.flatnonzero(used).tolist())
        loops = prep is not None and any(n > 0 for n in prep.loop_steps)
        shown = prep.mode if prep is not None else self._state.mode
        auto = (auto_words(auto_reason(prep.trace), prep.P) if prep is not None and self._state.mode == "auto"
                else None)
        by_last = prep is not None and any(p.shared_by_last for p in prep.panels)
        self._legend.setText(legend_html(shown, windowed, present, loops, auto=auto, by_last=by_last))

    # ------------------------------------------------------------------ OOB list
    def _fill_oob_list(self, trace: Trace) -> None:
        self._oob_list.clear()
        self._oob_records = list(trace.oob)
        for r in self._oob_records:
            self._oob_list.addItem(oob_line(trace, r))
        n = len(self._oob_records)
        self._oob_header.setText(oob_header(n))
        self._oob_header.setVisible(n > 0)
        self._oob_list.setVisible(n > 0)

    def _on_oob_clicked(self, item) -> None:
        r = self._oob_records[self._oob_list.row(item)]
        self._state.pin_target(("program", r.program))
        self._last_line = r.line
        self.accessLineHovered.emit(r.line)

    # ------------------------------------------------------------------ mouse
    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        if obj is self._glw.viewport() and event.type() == QEvent.Type.Leave:
            self._set_hover(None)
        elif obj is self._scroll.viewport() and event.type() == QEvent.Type.Resize and self._prep is not None:
            (w0, h0), (w1, h1) = self._fitted_size, self._view_size()
            # a scroll bar coming or going changes the width a little: no refit for that (it
            # would change the heights, and so the scroll bar, again)
            if abs(w1 - w0) > 24 or abs(h1 - h0) > 8:
                self._fit_timer.start()
        return super().eventFilter(obj, event)

    def _hit(self, scene_pos: QPointF) -> Target | None:
        if self._prep is None:
            return None
        return self._canvas.hit(self._prep, self._state.z, scene_pos)

    def _on_mouse_moved(self, scene_pos: QPointF) -> None:
        self._show_tooltips = True
        try:
            exact, self._exact = self._exact, self._exact_at(scene_pos)
            target = self._hit(scene_pos)
            if target == self._state.hover and exact != self._exact and self._prep is not None:
                self._update_info()  # another element of one cell, seen at full resolution
            self._set_hover(target)
        finally:
            self._show_tooltips = False

    def _on_mouse_clicked(self, ev) -> None:
        if ev.button() != Qt.MouseButton.LeftButton or self._prep is None:
            return
        target = self._hit(ev.scenePos())
        if ev.double() and target is not None and target[0] == "element":  # "Show at full resolution"
            self.unpin()  # the first click of the two pinned it
            self.show_full_resolution(self._prep.panels[target[1]].info.name)
            return
        pinned = self._state.pinned
        if pinned is not None and (target is None or target == pinned):
            self.unpin()
            self._set_hover(target)
            return
        if target is not None:
            self._set_hover(target)
            self._state.pinned = None
            self.pin()
