"""The desktop window: pick a kernel, tweak its parameters, run / trace / sweep it, and see the
program grid, the throughput and the correctness side by side.

Everything heavy happens in the worker process (``app.qt_worker`` over ``app.client``); this
process imports neither torch nor triton, only Qt, pyqtgraph, numpy and the plain data modules.
The window shows itself first and starts the worker right after, so it is on screen within a
second while the worker (torch + triton imports, ~3 s) warms up behind it; the controls stay
disabled, with "starting worker…", until the worker's hello arrives.

Layout (dock widgets, so ``saveState``/``restoreState`` keep the user's arrangement): kernels and
parameters on the left, the grid view in the middle, throughput/sweep (tabs) and correctness on
the right, source / compile / history along the bottom — at 1600×1000 the grid, the throughput
plot and the correctness check are all visible at once.

``main(argv)`` is what ``python -m app`` / ``tilescope`` (no verb) calls.
"""

from __future__ import annotations

import argparse
import gc
import os
import re
import sys
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
from PySide6.QtCore import QByteArray, QFileSystemWatcher, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence, QPaintEvent, QShowEvent
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QStackedWidget,
    QStyle,
    QStyleOptionProgressBar,
    QStylePainter,
    QTabWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from kernels.results import ErrorInfo, KernelInfo, RunResult, SweepPoint, SweepResult
from kernels.trace.model import Trace, TraceResult, Window
from views import theme
from views.compile_view import CompileView
from views.correctness_view import CorrectnessView
from views.grid_view import GridView
from views.history_view import HistoryView
from views.kernel_picker import KernelPicker
from views.param_panel import ParamPanel
from views.source_view import SourceView
from views.sweep_view import SweepView
from views.throughput_view import ThroughputView

from .dialogs import SweepDialog
from .history import History
from .qt_worker import QtWorker
from .session import (
    Session,
    format_values,
    history_row_from_record,
    output_tensor_index,
    square_fold,
    writer_text,
)
from .settings import Settings

__all__ = ["LIVE_DEBOUNCE_MS", "LazyProgressBar", "MainWindow", "MessageBanner", "TRACE_SUGGEST_PROGRAMS",
           "TRACE_SUGGESTED_WINDOW", "main"]

#: Live mode re-runs this long after the last valid parameter change
LIVE_DEBOUNCE_MS = 300
#: a trace of more programs than this gets a window of programs suggested (or applied, when the
#: grid is known from a run of the same values): the interpreter records a few thousand
#: programs a second, so a grid of a million takes minutes and a map nobody can read whole
TRACE_SUGGEST_PROGRAMS = 16384
#: the window offered then: the first this many programs
TRACE_SUGGESTED_WINDOW = 4096
_TRACING_RE = re.compile(r"tracing \d+/(\d+) programs")
#: history rows shown (the file keeps all of them; export writes all)
HISTORY_ROWS = 500
_WORK_KINDS = ("run", "trace", "sweep", "load_file")
_background_pool: ThreadPoolExecutor | None = None


def _background() -> ThreadPoolExecutor:
    """One thread for the window's own slow reads (the history): jobs run in order."""
    global _background_pool
    if _background_pool is None:
        _background_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tilescope-window")
    return _background_pool

_STATE_TEXT = {"starting": "starting worker…", "ready": "ready", "busy": "busy",
               "crashed": "worker crashed", "restarting": "restarting worker…", "stopped": "stopped"}





# ---------------------------------------------------------------------------------------------
# small widgets


class MessageBanner(QFrame):
    """A non-modal message strip above the grid: level colour, one line of text, optional action
    buttons ("Resume sweep", "Load these values", "Details…") and a close button."""

    closed = Signal()

    _STYLES = {
        "error": ("#fdecea", "#8a1c14", theme.FAIL),
        "warning": ("#fff6d6", "#6b4e00", "#e0c060"),
        "info": ("#e8f1fb", "#0d3c6e", "#90b8e0"),
    }

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("message_banner")
        self._level = ""
        self._topic = ""
        self._details = ""
        self.label = QLabel(self)
        self.label.setObjectName("banner_text")
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self._buttons: list[QPushButton] = []
        self._button_row = QHBoxLayout()
        self._button_row.setContentsMargins(0, 0, 0, 0)
        close = QToolButton(self)
        close.setText("✕")
        close.setAutoRaise(True)
        close.setToolTip("Dismiss")
        close.clicked.connect(self.dismiss)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(8, 4, 4, 4)
        lay.addWidget(self.label, 1)
        lay.addLayout(self._button_row)
        lay.addWidget(close, 0, Qt.AlignmentFlag.AlignTop)
        self.hide()

    def show_message(self, text: str, level: str = "error", *, details: str = "", topic: str = "",
                     actions: Sequence[tuple[str, Callable[[], Any]]] = ()) -> None:
        bg, fg, border = self._STYLES.get(level, self._STYLES["info"])
        self.setStyleSheet(f"QFrame#message_banner {{ background: {bg}; border: 1px solid {border}; "
                           f"border-radius: 4px; }} QLabel#banner_text {{ color: {fg}; }}")
        self._level, self._topic, self._details = level, topic, details
        self.label.setText(text)
        for b in self._buttons:
            b.deleteLater()
        self._buttons = []
        for label, fn in actions:
            self._add_button(label, fn)
        if details:
            self._add_button("Details…", self._show_details)
        self.show()

    def _add_button(self, label: str, fn: Callable[[], Any]) -> None:
        b = QPushButton(label, self)
        b.clicked.connect(lambda _=False, f=fn: f())
        self._button_row.addWidget(b)
        self._buttons.append(b)

    def _show_details(self) -> None:
        box = QMessageBox(QMessageBox.Icon.Information, "Details", self.label.text(), parent=self)
        box.setDetailedText(self._details)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()

    def dismiss(self) -> None:
        self.hide()
        self._topic = ""
        self.closed.emit()

    def clear(self, *topics: str) -> None:
        """Hide the banner if it shows one of ``topics`` (any message when none are given)."""
        if not topics or self._topic in topics:
            self.hide()
            self._topic = ""

    def text(self) -> str:
        return self.label.text() if self.isVisibleTo(self.parentWidget()) else ""

    def level(self) -> str:
        return self._level if not self.isHidden() else ""

    def topic(self) -> str:
        return self._topic if not self.isHidden() else ""

    def button(self, label: str) -> QPushButton | None:
        """The action button ``label`` of the message shown (None when hidden or absent)."""
        if self.isHidden():
            return None
        return next((b for b in self._buttons if b.text() == label), None)

    def button_labels(self) -> list[str]:
        return [] if self.isHidden() else [b.text() for b in self._buttons]


class LazyProgressBar(QProgressBar):
    """A progress bar whose ``setValue`` repaints with the next frame, not at once.

    ``QProgressBar.setValue`` repaints synchronously whenever the bar moves by a pixel, and a
    synchronous repaint paints every pending update of the window first (the sweep plot, a
    history table just refilled): measured here, 30–75 ms inside the slot of each sweep point.
    This one keeps the value itself and asks for an ordinary ``update()``."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._shown_value = 0

    def setValue(self, value: int) -> None:  # noqa: N802 (Qt's name)
        v = max(self.minimum(), min(self.maximum(), int(value)))
        if v != self._shown_value:
            self._shown_value = v
            self.update()

    def value(self) -> int:
        return self._shown_value

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 (Qt's name)
        opt = QStyleOptionProgressBar()
        self.initStyleOption(opt)
        opt.progress = self._shown_value
        painter = QStylePainter(self)
        painter.drawControl(QStyle.ControlElement.CE_ProgressBar, opt)
        painter.end()


# ---------------------------------------------------------------------------------------------


class MainWindow(QMainWindow):
    """The Tilescope window. ``worker`` is the QtWorker (started after the first show)."""

    # internal: history rows read on the background thread, queued to the GUI thread
    _history_read = Signal(int, object)

    def __init__(self, settings: Settings | None = None, history: History | None = None,
                 worker: QtWorker | None = None, autostart: bool = True,
                 initial_kernel: str | None = None) -> None:
        theme.configure()
        super().__init__()
        self.settings = settings if settings is not None else Settings.load()
        self.history = history if history is not None else History.open()
        self.session = Session()
        self.worker = worker if worker is not None else QtWorker(timeout_s=self.settings.timeout_s, parent=self)
        self._autostart = autostart
        self._initial_kernel = initial_kernel
        self._ready = False
        self._shown_once = False
        self._closing = False
        self._stage = ""
        self._progress_gen = 0
        self._startup_messages: list[str] = []
        self._trace_windows: dict[int, str | None] = {}  # trace generation -> its window (None: all)
        self._window_offered: set[int] = set()  # trace generations a window was offered for
        self._history_gen = 0  # the latest history refresh (an older one's rows are dropped)
        self.sweep_dialog: SweepDialog | None = None

        self.setWindowTitle("Tilescope")
        self.setWindowIcon(theme.icon("tilescope"))
        self.setDockOptions(QMainWindow.DockOption.AnimatedDocks | QMainWindow.DockOption.AllowTabbedDocks
                            | QMainWindow.DockOption.AllowNestedDocks)
        self._build_widgets()
        self._build_actions()
        self._build_docks()
        self._build_status()
        self._connect()
        self._restore_window()
        self._update_actions()
        for w in (self.settings.warning, self.history.warning):
            if w:
                self._startup_messages.append(w)
        if self._startup_messages:
            self.banner.show_message("\n".join(self._startup_messages), "warning", topic="startup")

    # ------------------------------------------------------------------------------------------
    # construction

    def _build_widgets(self) -> None:
        self.picker = KernelPicker()
        self.panel = ParamPanel()
        # a long kernel title must wrap, not widen the left column and squeeze the grid
        self.panel.title.setWordWrap(True)
        self.grid = GridView()
        self.throughput = ThroughputView()
        self._sweep_view: SweepView | None = None  # built after the first frame (see sweep_view)
        self.correctness = CorrectnessView()
        self.source = SourceView()
        self.compile_view = CompileView()
        self.history_view = HistoryView()

        self.plot_tabs = QTabWidget()
        self.plot_tabs.setObjectName("plot_tabs")
        self.plot_tabs.addTab(self.throughput, "Throughput")
        self._sweep_placeholder = QLabel("Run a sweep (Sweep…) to see throughput against the swept parameters.")
        self._sweep_placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.plot_tabs.addTab(self._sweep_placeholder, "Sweep")
        self.plot_tabs.currentChanged.connect(lambda i: self.sweep_view if i == 1 else None)

        self.banner = MessageBanner()
        self.grid_placeholder = QLabel(
            "No trace yet.\n\nPress Trace (Ctrl+T) to run the kernel under the Triton interpreter and "
            "record which program touches which element of which tensor.")
        self.grid_placeholder.setObjectName("grid_placeholder")
        self.grid_placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.grid_placeholder.setWordWrap(True)
        self.grid_placeholder.setStyleSheet("color: #555; font-size: 11pt; padding: 40px;")
        self.grid_stack = QStackedWidget()
        self.grid_stack.addWidget(self.grid_placeholder)
        self.grid_stack.addWidget(self.grid)
        self.trace_caption = QLabel("")
        self.trace_caption.setObjectName("trace_caption")
        self.trace_caption.setWordWrap(True)
        self.trace_caption.hide()

        central = QWidget()
        lay = QVBoxLayout(central)
        lay.setContentsMargins(4, 4, 4, 0)
        lay.setSpacing(4)
        lay.addWidget(self.banner)
        lay.addWidget(self.trace_caption)
        lay.addWidget(self.grid_stack, 1)
        self.setCentralWidget(central)

        # what runs after the first frame (see showEvent): a zero-interval QTimer fires after the
        # paints waiting, which QTimer.singleShot(0, f) — a posted call in Qt 6 — does not
        self._later: deque[Callable[[], Any]] = deque()
        self._later_timer = QTimer(self)
        self._later_timer.setInterval(0)
        self._later_timer.timeout.connect(self._run_later)
        self.watcher = QFileSystemWatcher(self)
        self.live_timer = QTimer(self)
        self.live_timer.setSingleShot(True)
        self.live_timer.setInterval(LIVE_DEBOUNCE_MS)
        self.history_timer = QTimer(self)  # a sweep adds rows quickly: refresh the table at most 2×/s
        self.history_timer.setSingleShot(True)
        self.history_timer.setInterval(500)

    def _action(self, text: str, slot: Callable[..., Any], shortcut: Any = None, tip: str = "",
                checkable: bool = False, name: str = "") -> QAction:
        a = QAction(text, self)
        if shortcut is not None:
            a.setShortcut(QKeySequence(shortcut))
        if tip:
            a.setToolTip(tip + (f" ({a.shortcut().toString()})" if shortcut is not None else ""))
            a.setStatusTip(tip)
        a.setCheckable(checkable)
        a.setObjectName(name or re.sub(r"\W+", "_", text.lower()).strip("_"))
        (a.toggled if checkable else a.triggered).connect(slot)
        self.addAction(a)  # shortcuts work wherever the focus is in the window
        return a

    def _build_actions(self) -> None:
        self.run_action = self._action("Run", self.run, "Ctrl+R", "Run the kernel: check it and time it",
                                       name="run")
        self.live_action = self._action("Live", self.set_live, "Ctrl+L",
                                        "Re-run automatically whenever a parameter changes", checkable=True,
                                        name="live")
        self.trace_action = self._action("Trace", self.trace, "Ctrl+T",
                                         "Record which program touches which element (interpreter)",
                                         name="trace")
        self.sweep_action = self._action("Sweep…", self.open_sweep_dialog, "Ctrl+Shift+S",
                                         "Run every combination of one or two parameters", name="sweep")
        self.cancel_action = self._action("Cancel", self.cancel, Qt.Key.Key_Escape,
                                          "Stop the running request", name="cancel")
        self.resume_action = self._action("Resume sweep", self.resume_sweep, None,
                                          "Run the points an interrupted sweep did not reach",
                                          name="resume_sweep")
        self.open_action = self._action("Open kernel file…", self._choose_kernel_file, QKeySequence.StandardKey.Open,
                                        "Load a Python file that registers Triton kernels", name="open_file")
        self.export_plot_action = self._action("Export plot…", self._export_plot, None,
                                               "Save the throughput or sweep plot as PNG / SVG",
                                               name="export_plot")
        self.export_grid_action = self._action("Export grid view…", self._export_grid, None,
                                               "Save the program grid and tile maps as PNG / SVG",
                                               name="export_grid")
        self.export_history_action = self._action("Export history…", self._export_history_dialog, None,
                                                  "Save every run as CSV or JSON", name="export_history")
        self.timeout_action = self._action("Run timeout…", self._choose_timeout, None,
                                           "How long a run may take before the worker is restarted",
                                           name="timeout")
        self.reset_layout_action = self._action("Reset layout", self.reset_layout, None,
                                                "Put every panel back where it started", name="reset_layout")
        self.quit_action = self._action("Quit", self.close, QKeySequence.StandardKey.Quit, "Close Tilescope",
                                        name="quit")

        sp = QStyle.StandardPixmap
        for a, pix in ((self.run_action, sp.SP_MediaPlay), (self.live_action, sp.SP_BrowserReload),
                       (self.trace_action, sp.SP_FileDialogContentsView), (self.sweep_action, sp.SP_FileDialogDetailedView),
                       (self.cancel_action, sp.SP_MediaStop), (self.resume_action, sp.SP_MediaSeekForward)):
            a.setIcon(self.style().standardIcon(pix))
        self.open_action.setIcon(theme.icon("open"))
        tb = self.addToolBar("Actions")
        tb.setObjectName("toolbar_actions")
        tb.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        for a in (self.run_action, self.live_action, self.trace_action):
            tb.addAction(a)
        # which programs Trace records: empty = all; "A:B" linear ids; "x0:x1,y0:y1" a box
        self.window_label = QLabel(" Programs: ")
        self.window_edit = QLineEdit()
        self.window_edit.setObjectName("trace_window")
        self.window_edit.setPlaceholderText("all")
        self.window_edit.setClearButtonEnabled(True)
        self.window_edit.setMaximumWidth(130)
        self.window_edit.setToolTip(
            "Which programs Trace records (empty: all of them).\n"
            "A:B — program ids A to B−1 (e.g. 0:256)\n"
            "x0:x1,y0:y1 — a box of a 2-D grid (e.g. 0:8,0:4)\n"
            "The other programs do not run under the tracer; their elements show as not recorded.")
        self.window_edit.textChanged.connect(self._on_window_text)
        self.window_edit.returnPressed.connect(lambda: self.trace_action.isEnabled() and self.trace())
        self.window_label.setBuddy(self.window_edit)
        tb.addWidget(self.window_label)
        tb.addWidget(self.window_edit)
        for a in (self.sweep_action, self.cancel_action):
            tb.addAction(a)
        self.toolbar = tb

        mb = self.menuBar()
        m = mb.addMenu("&File")
        for a in (self.open_action, None, self.export_plot_action, self.export_grid_action,
                  self.export_history_action, None, self.quit_action):
            m.addSeparator() if a is None else m.addAction(a)
        m = mb.addMenu("&Run")
        for a in (self.run_action, self.live_action, self.trace_action, self.sweep_action, self.resume_action,
                  None, self.cancel_action, None, self.timeout_action):
            m.addSeparator() if a is None else m.addAction(a)
        self.view_menu = mb.addMenu("&View")

    def _dock(self, title: str, name: str, widget: QWidget, area: Qt.DockWidgetArea) -> QDockWidget:
        d = QDockWidget(title, self)
        d.setObjectName(name)  # saveState/restoreState find docks by object name
        d.setWidget(widget)
        d.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable
                      | QDockWidget.DockWidgetFeature.DockWidgetFloatable
                      | QDockWidget.DockWidgetFeature.DockWidgetClosable)
        self.addDockWidget(area, d)
        self.view_menu.addAction(d.toggleViewAction())
        return d

    def _build_docks(self) -> None:
        L, R, B = (Qt.DockWidgetArea.LeftDockWidgetArea, Qt.DockWidgetArea.RightDockWidgetArea,
                   Qt.DockWidgetArea.BottomDockWidgetArea)
        # The left column runs the full height; the bottom strip runs under the grid and the right
        # column. The correctness panel (a form beside an error map) is wide and short, so it
        # sits in the bottom strip next to the source; the right column keeps the plots and the
        # history. At 1600 px the grid then has room for three 128-wide tile maps side by side.
        self.setCorner(Qt.Corner.TopLeftCorner, L)
        self.setCorner(Qt.Corner.BottomLeftCorner, L)
        self.setCorner(Qt.Corner.TopRightCorner, R)
        self.setCorner(Qt.Corner.BottomRightCorner, B)
        self.kernels_dock = self._dock("Kernels", "dock_kernels", self.picker, L)
        self.params_dock = self._dock("Parameters", "dock_params", self.panel, L)
        self.plots_dock = self._dock("Throughput / Sweep", "dock_plots", self.plot_tabs, R)
        self.history_dock = self._dock("History", "dock_history", self.history_view, R)
        self.compile_dock = self._dock("Compile", "dock_compile", self.compile_view, R)
        self.source_dock = self._dock("Source", "dock_source", self.source, B)
        self.correctness_dock = self._dock("Correctness", "dock_correctness", self.correctness, B)
        self.splitDockWidget(self.kernels_dock, self.params_dock, Qt.Orientation.Vertical)
        self.splitDockWidget(self.plots_dock, self.history_dock, Qt.Orientation.Vertical)
        self.tabifyDockWidget(self.history_dock, self.compile_dock)
        self.history_dock.raise_()
        self.splitDockWidget(self.source_dock, self.correctness_dock, Qt.Orientation.Horizontal)
        self.view_menu.addSeparator()
        self.view_menu.addAction(self.reset_layout_action)
        self._default_state = QByteArray()

    def _apply_default_sizes(self) -> None:
        w, h = max(self.width(), 1200), max(self.height(), 800)
        self.resizeDocks([self.kernels_dock], [int(w * 0.17)], Qt.Orientation.Horizontal)
        self.resizeDocks([self.plots_dock], [int(w * 0.3)], Qt.Orientation.Horizontal)
        self.resizeDocks([self.kernels_dock, self.params_dock], [int(h * 0.3), int(h * 0.7)],
                         Qt.Orientation.Vertical)
        self.resizeDocks([self.plots_dock, self.history_dock], [int(h * 0.38), int(h * 0.3)],
                         Qt.Orientation.Vertical)
        self.resizeDocks([self.source_dock], [int(h * 0.29)], Qt.Orientation.Vertical)
        self.resizeDocks([self.source_dock, self.correctness_dock], [int(w * 0.4), int(w * 0.43)],
                         Qt.Orientation.Horizontal)

    def _build_status(self) -> None:
        sb = self.statusBar()
        self.stage_label = QLabel("starting worker…")
        self.stage_label.setObjectName("stage_label")
        # a label whose size follows its text would re-lay out the whole window (docks, plots) on
        # every progress message: a fixed-size label keeps a progress update a label repaint
        self.stage_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.stage_label.setMinimumWidth(360)
        self.progress = LazyProgressBar()
        self.progress.setObjectName("progress")
        self.progress.setMaximumWidth(220)
        self.progress.setTextVisible(False)
        sb.addWidget(self.progress)
        sb.addWidget(self.stage_label, 1)
        self._set_stage("starting worker…", busy=True)  # until the worker says hello
        self.backend_label = QLabel("backend: —")
        self.device_label = QLabel("device: —")
        self.state_label = QLabel("worker: stopped")
        self.triton_label = QLabel("Triton —")
        for w in (self.backend_label, self.device_label, self.state_label, self.triton_label):
            w.setObjectName(w.text().split(":")[0].split()[0].lower() + "_status")
            sb.addPermanentWidget(w)

    def _connect(self) -> None:
        wk = self.worker
        wk.hello.connect(self._on_hello)
        wk.stateChanged.connect(self._on_state)
        wk.progress.connect(self._on_progress)
        wk.point.connect(self._on_point)
        wk.result.connect(self._on_result)
        wk.error.connect(self._on_error)
        wk.log.connect(self._on_log)

        self.picker.kernelSelected.connect(self.select_kernel)
        self.picker.openFileRequested.connect(self.open_kernel_file)
        self.picker.reloadRequested.connect(self.open_kernel_file)
        self.panel.valuesChanged.connect(self._on_values_changed)
        self.panel.validityChanged.connect(lambda _ok: self._update_actions())
        self.panel.backendChanged.connect(self._on_backend_changed)
        self.grid.accessLineHovered.connect(self._on_access_line)
        self.grid.traceApplied.connect(self._trace_drawn)
        self.grid.traceFailed.connect(self._trace_failed)
        self.correctness.elementHovered.connect(self._on_check_element)
        self.throughput.pointClicked.connect(self._on_throughput_point)
        self.history_view.reloadRequested.connect(self.reload_run)
        self.history_view.compareRequested.connect(self._compare_runs)
        self.history_view.exportRequested.connect(self.export_history)
        self.watcher.fileChanged.connect(self._on_file_changed)
        self.live_timer.timeout.connect(self._live_run)
        self.history_timer.timeout.connect(self._refresh_history)
        self._history_read.connect(self._on_history_read)

    def _restore_window(self) -> None:
        self.resize(1600, 1000)
        self._apply_default_sizes()
        self._default_state = self.saveState()
        geo = self.settings.window_geometry_bytes
        if geo:
            self.restoreGeometry(QByteArray(geo))
        state = self.settings.window_state_bytes
        if state:
            self.restoreState(QByteArray(state))
        self.live_action.blockSignals(True)
        self.live_action.setChecked(bool(self.settings.live))
        self.live_action.blockSignals(False)

    @property
    def sweep_view(self) -> SweepView:
        """The sweep plot. Built on first use, or right after the first frame: its two plots cost
        a tenth of a second or more that the window's first appearance need not wait for."""
        if self._sweep_view is None:
            view = SweepView()
            view.pointClicked.connect(self._on_sweep_point)
            info = self.session.info()
            if info is not None:
                view.set_metric(info.metric)
            current = self.plot_tabs.currentIndex()
            self.plot_tabs.blockSignals(True)
            self.plot_tabs.removeTab(1)
            self.plot_tabs.insertTab(1, view, "Sweep")
            self.plot_tabs.setCurrentIndex(current)
            self.plot_tabs.blockSignals(False)
            self._sweep_placeholder.deleteLater()
            self._sweep_view = view
        return self._sweep_view

    # ------------------------------------------------------------------------------------------
    # lifecycle

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 (Qt's name)
        super().showEvent(event)
        if not self._shown_once:
            self._shown_once = True
            # after the first frame, one per event-loop turn: the worker (the window is up
            # before it starts), the history (read on a thread), the sweep plot (~0.1 s to
            # build, not on screen yet), the grid's plots (before a trace needs them)
            if self._autostart:
                self._later.append(self.start_worker)
            self._later.extend([self._refresh_history, lambda: self.sweep_view, self.grid.warm_up,
                                _freeze_startup_objects])
            self._later_timer.start()

    def _run_later(self) -> None:
        if not self._later or self._closing:
            self._later_timer.stop()
            self._later.clear()
            return
        self._later.popleft()()

    def start_worker(self) -> None:
        if self._closing or self.worker.started:
            return
        self._set_stage("starting worker…", busy=True)
        self.worker.start()

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 (Qt's name)
        self._closing = True
        self.live_timer.stop()
        self._save_settings()
        self.worker.close()  # stops a running request and the process: nothing is left behind
        self.history_view.close()
        super().closeEvent(event)

    def _save_settings(self) -> None:
        s = self.settings
        s.window_geometry_bytes = bytes(self.saveGeometry().data())
        s.window_state_bytes = bytes(self.saveState().data())
        s.live = self.live_action.isChecked()
        if self.session.kernel and self.panel.kernel() is not None:
            s.remember(self.session.kernel, self.panel.values())
        try:
            s.save()
        except OSError as e:  # a read-only config dir must not stop the window from closing
            print(f"tilescope: could not save the settings: {e}", file=sys.stderr)

    def reset_layout(self) -> None:
        if not self._default_state.isEmpty():
            self.restoreState(self._default_state)
        for d in (self.kernels_dock, self.params_dock, self.plots_dock, self.correctness_dock,
                  self.source_dock, self.history_dock, self.compile_dock):
            d.show()
        self._apply_default_sizes()

    # ------------------------------------------------------------------------------------------
    # worker events

    def _on_hello(self, hello: dict) -> None:
        first = not self._ready
        # after a crash the client loads the user's kernel files into the new worker again, but
        # its hello lists the catalog only: keep the user's kernels meanwhile
        kept = [i for i in self.session.infos.values() if i.origin and i.origin != "catalog"]
        self.session.set_hello(hello)
        for i in kept:
            self.session.infos.setdefault(i.name, i)
        infos = list(self.session.infos.values())
        self.picker.set_kernels(infos)
        self.panel.set_gpu_available(self.session.gpu_available, self.session.gpu_reason)
        self.device_label.setText(f"device: {self.session.device_name}")
        self.triton_label.setText(f"Triton {self.session.triton_version or '?'}")
        self._ready = True
        if first:
            if self.settings.backend in ("gpu", "interpreter"):
                self.panel.set_backend(self.settings.backend)
            name = next((n for n in (self._initial_kernel, self.settings.last_kernel, "vector_add")
                         if n and n in self.session.infos), infos[0].name if infos else None)
            if name:
                self.select_kernel(name)
            self._set_stage("ready")
        elif self.session.kernel and self.session.kernel not in self.session.infos:
            self._set_stage("the worker restarted without your kernel file's kernels")
        self._update_backend_label()
        self._update_actions()

    def _on_state(self, state: str) -> None:
        self.state_label.setText(f"worker: {state}")
        if state in ("starting", "restarting"):
            self._set_stage(_STATE_TEXT[state], busy=True)
        elif state == "crashed":
            self._set_stage("the worker crashed — restarting it", busy=True)
            if not self._ready:
                QTimer.singleShot(0, self._check_start_failure)
        elif state in ("ready", "busy") and not self._busy_kinds():
            self._set_stage("ready" if self._ready else "starting worker…", busy=not self._ready)
        self._update_actions()

    def _check_start_failure(self) -> None:
        # the client gives up after three failed starts; say why instead of spinning forever
        if self.worker.state == "crashed" and not self._ready:
            client = self.worker.client
            tail = "\n".join(client.stderr_tail(20)) if client is not None else ""
            self.banner.show_message("The worker process could not start, so nothing can run. "
                                     "Its last output is under Details.", "error", details=tail,
                                     topic="worker")
            self._set_stage("worker not running")

    def _on_log(self, _gen: int, level: str, text: str) -> None:
        if level == "error":
            self.banner.show_message(text, "error", topic="worker")
        else:
            self.statusBar().showMessage(f"worker {level}: {text}", 8000)

    def _on_progress(self, gen: int, stage: str, frac: float) -> None:
        kind = self.worker.kind_of(gen)
        if kind is None:
            return
        if kind == "sweep" and self.session.sweep is not None:
            s = self.session.sweep
            inner = re.sub(r"\s*\(\d+/\d+\)\s*$", "", stage)
            text = f"sweep point {min(s.done + 1, s.total)}/{s.total}: {inner}"
            frac = s.done / max(s.total, 1)  # whole points: the bar never runs backwards on a resume
        else:
            text = stage
            if kind == "trace":
                self._suggest_window(gen, stage)
        self._set_stage(text, fraction=frac)

    def _on_point(self, gen: int, point: SweepPoint) -> None:
        s = self.session.sweep
        if self.worker.kind_of(gen) != "sweep" or s is None:
            return
        s.add(point)
        self.sweep_view.add_point(point, s.axes)
        self._store(point.result)
        self._set_stage(f"sweep point {s.done}/{s.total} done", fraction=s.done / max(s.total, 1))

    def _on_result(self, gen: int, kind: str, payload: Any) -> None:
        if kind == "run":
            self._show_run(payload)
        elif kind == "trace":
            self._show_trace_result(payload)
        elif kind == "sweep":
            self._sweep_done(payload)
        elif kind == "load_file":
            self._file_loaded(payload)
        elif kind == "infos":
            self.session.set_infos(payload)
            self.picker.set_kernels(list(self.session.infos.values()))
        self._after_request()

    def _on_error(self, gen: int, kind: str, err: ErrorInfo) -> None:
        if kind == "sweep":
            self._sweep_interrupted(err)
        elif kind == "load_file":
            self.banner.show_message(f"Could not load the kernel file: {err.message}", "error",
                                     details=err.detail, topic="file")
        elif err.kind == "cancelled":
            self.statusBar().showMessage(f"{kind} cancelled", 5000)
        else:
            self._show_error(err, topic=kind)
        self._after_request()

    def _after_request(self) -> None:
        if not self._busy_kinds() and not self.grid.is_loading():
            self._set_stage("ready")
        self._update_actions()

    # ------------------------------------------------------------------------------------------
    # kernel and parameters

    def select_kernel(self, name: str, values: dict[str, Any] | None = None) -> bool:
        """Show kernel ``name`` with ``values`` (default: the values last used with it)."""
        info = self.session.infos.get(name)
        if info is None:
            return False
        old = self.session.kernel
        if old and self.panel.kernel() is not None and old != name:
            self.settings.remember(old, self.panel.values())
        changed = old != name
        self.session.select(name)
        if self.picker.current_name() != name:
            self.picker.select(name)
        self.panel.set_kernel(info, values if values is not None else self.settings.values_for(name))
        self.setWindowTitle(f"Tilescope — {info.title}")
        if changed:
            self.source.set_source(info.source, info.source_first_line)
            self.throughput.clear()
            self.throughput.set_metric(info.metric)
            self.sweep_view.clear()
            self.sweep_view.set_metric(info.metric)
            self.correctness.set_check(None)
            self.correctness.set_programs_for_elements(None)
            self.compile_view.set_facts(None, "No run yet.")
            self.grid_stack.setCurrentWidget(self.grid_placeholder)
            self.trace_caption.hide()
            self.window_edit.clear()  # another kernel has another grid
            self.banner.clear("run", "trace", "sweep", "point")
        self._watch_user_file(info)
        self._update_actions()
        return True

    def _on_values_changed(self, _values: dict) -> None:
        self._update_trace_caption()
        if self.live_action.isChecked():
            self.live_timer.start()  # restarts: only the last of a burst of edits runs

    def _on_backend_changed(self, backend: str) -> None:
        self.settings.backend = backend
        self._update_backend_label()
        if self.live_action.isChecked() and self._ready:
            self.live_timer.start()

    def _update_backend_label(self) -> None:
        b = self.panel.backend()
        self.backend_label.setText("backend: GPU" if b == "gpu" else "backend: interpreter (CPU)")

    def set_live(self, on: bool) -> None:
        self.settings.live = bool(on)
        if on and self._can_submit():
            self.live_timer.start()
        elif not on:
            self.live_timer.stop()

    def _live_run(self) -> None:
        if self.live_action.isChecked() and self._can_submit():
            self.run()

    # ------------------------------------------------------------------------------------------
    # requests

    def _can_submit(self) -> bool:
        return (self._ready and not self._closing and self.session.info() is not None
                and self.panel.kernel() is not None and self.panel.is_valid())

    def run(self) -> int | None:
        """Run the current configuration (check + time); returns the request's generation."""
        if not self._can_submit():
            return None
        values = self.panel.values()
        req = self.session.run_request(values, self.panel.backend())
        self.settings.remember(req.kernel, values)
        self.banner.clear("run", "validation", "point")
        self.panel.clear_marks()
        gen = self.worker.submit("run", req)
        self._progress_gen = gen
        self._set_stage("queued: run", fraction=0.0)
        self._update_actions()
        return gen

    def trace(self) -> int | None:
        """Record the current configuration's accesses (interpreter); returns the generation.

        The Programs field chooses which programs run under the tracer (empty: all). When the
        grid is known from a run of these values and is larger than ``TRACE_SUGGEST_PROGRAMS``,
        an empty field is filled with the first ``TRACE_SUGGESTED_WINDOW`` programs and a
        message says so (with a button to trace them all)."""
        if not self._can_submit():
            return None
        window, why = self.trace_window()
        if why:
            self._show_error(ErrorInfo("validation", f"Programs: {why}"), topic="trace")
            self.window_edit.setFocus()
            return None
        values = self.panel.values()
        known = self._known_programs(values)
        if window is None and known is not None and known > TRACE_SUGGEST_PROGRAMS:
            window = f"0:{TRACE_SUGGESTED_WINDOW}"
            self.window_edit.setText(window)
            self.banner.show_message(
                f"This launch has {known:,} programs: recording all of them under the interpreter takes "
                f"a long time, so only programs 0..{TRACE_SUGGESTED_WINDOW - 1} are traced (see the "
                "Programs field beside Trace).", "info", topic="trace_window",
                actions=[(f"Trace all {known:,}", self._trace_all)])
        else:
            self.banner.clear("trace_window")
        return self._submit_trace(values, window)

    def _trace_all(self) -> int | None:
        self.window_edit.clear()
        self.banner.clear("trace_window")
        return self._submit_trace(self.panel.values(), None) if self._can_submit() else None

    def _submit_trace(self, values: dict[str, Any], window: str | None) -> int:
        req = self.session.trace_request(values, window)
        self.banner.clear("trace", "validation")
        self.panel.clear_marks()
        gen = self.worker.submit("trace", req)
        self._trace_windows[gen] = window
        self._set_stage("queued: trace", fraction=0.0)
        self._update_actions()
        return gen

    def trace_window(self) -> tuple[str | None, str]:
        """(the Programs field as a window text or None for all, why it is invalid or "")."""
        text = self.window_edit.text().strip()
        if not text:
            return None, ""
        try:
            Window.parse(text)
        except ValueError as e:
            return None, str(e)
        return text, ""

    def _on_window_text(self, _text: str) -> None:
        _, why = self.trace_window()
        self.window_edit.setStyleSheet(f"QLineEdit {{ border: 2px solid {theme.FAIL}; }}" if why else "")
        self.window_edit.setToolTip(self.window_edit.toolTip().split("\n\n⚠")[0]
                                    + (f"\n\n⚠ {why}" if why else ""))
        self._update_actions()

    def _known_programs(self, values: dict[str, Any]) -> int | None:
        """Programs in the launch grid of ``values``, when a run of exactly these values told."""
        r = self.session.last_run
        if r is None or r.kernel != self.session.kernel or not r.grid:
            return None
        if any(r.values.get(k) != v for k, v in values.items()):
            return None
        return int(np.prod(r.grid))

    def _suggest_window(self, gen: int, stage: str) -> None:
        """A trace of all programs of a huge grid is under way: offer to trace a window instead."""
        m = _TRACING_RE.search(stage)
        if (m is None or gen in self._window_offered or self._trace_windows.get(gen, "") is not None
                or int(m.group(1)) <= TRACE_SUGGEST_PROGRAMS):
            return
        self._window_offered.add(gen)
        total = int(m.group(1))
        window = f"0:{TRACE_SUGGESTED_WINDOW}"

        def trace_window() -> None:
            self.window_edit.setText(window)
            self.banner.clear("trace_window")
            self.trace()  # supersedes the running trace of every program

        self.banner.show_message(
            f"This trace records all {total:,} programs, which takes a while under the interpreter. "
            f"Programs 0..{TRACE_SUGGESTED_WINDOW - 1} alone show the pattern in a fraction of the time.",
            "info", topic="trace_window", actions=[(f"Trace programs {window} only", trace_window)])

    def open_sweep_dialog(self) -> SweepDialog | None:
        """Open the (window-modal, non-blocking) sweep dialog; accepting it starts the sweep."""
        info = self.session.info()
        if info is None or not self._can_submit():
            return None
        dlg = SweepDialog(info, self.panel.values(), self)
        dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dlg.accepted.connect(lambda: self.start_sweep(dlg.axes()))
        self.sweep_dialog = dlg
        dlg.destroyed.connect(lambda *_: setattr(self, "sweep_dialog", None))
        dlg.open()
        return dlg

    def start_sweep(self, axes: dict[str, list[Any]]) -> int | None:
        """Sweep ``axes`` (one or two parameters) with the panel's other values."""
        info = self.session.info()
        if info is None or not axes or not self._can_submit():
            return None
        req = self.session.start_sweep(self.panel.values(), axes, self.panel.backend())
        self.sweep_view.clear()
        self.sweep_view.set_metric(info.metric)
        self.plot_tabs.setCurrentWidget(self.sweep_view)
        self.banner.clear("sweep", "point")
        gen = self.worker.submit("sweep", req)
        self._set_stage(f"sweep point 1/{self.session.sweep.total}: queued", fraction=0.0)
        self._update_actions()
        return gen

    def resume_sweep(self) -> int | None:
        """Run the points an interrupted sweep did not reach (``SweepRequest.skip``)."""
        req = self.session.resume_sweep()
        if req is None:
            return None
        self.banner.clear("sweep")
        self.plot_tabs.setCurrentWidget(self.sweep_view)
        gen = self.worker.submit("sweep", req)
        s = self.session.sweep
        self._set_stage(f"sweep point {s.done + 1}/{s.total}: resuming", fraction=s.done / max(s.total, 1))
        self._update_actions()
        return gen

    def cancel(self) -> None:
        if self.worker.cancel():
            self._set_stage("cancelling…", busy=True)

    def open_kernel_file(self, path: str) -> int | None:
        """Load (or reload) a user's kernel file in the worker."""
        if not path:
            return None
        self.banner.clear("file")
        gen = self.worker.submit("load_file", os.path.abspath(os.path.expanduser(path)))
        self._set_stage(f"loading {os.path.basename(path)}…", busy=True)
        self._update_actions()
        return gen

    # ------------------------------------------------------------------------------------------
    # answers

    def _store(self, r: RunResult) -> None:
        # validation errors and cancels are not runs: keep them out of the history
        if r.error is not None and r.error.kind in ("validation", "cancelled"):
            return
        self.history.add(r)
        if not self.history_timer.isActive():
            self.history_timer.start()

    def _show_run(self, r: RunResult) -> None:
        if r.kernel != self.session.kernel:
            self._store(r)  # the user moved on to another kernel meanwhile: keep it in the history only
            return
        self.session.last_run = r
        self.throughput.add_result(r)
        self.correctness.set_check(r.check)
        if r.backend == "interpreter":
            self.compile_view.set_facts(None)
        else:
            self.compile_view.set_facts(r.compile, None if r.compile is not None else
                                        f"No compile facts: {r.error.message if r.error else 'none reported'}")
        self._link_check_to_trace()
        self._store(r)
        if r.error is not None:
            self._show_error(r.error, topic="run")
            return
        bits = [f"{r.kernel}: " + ("PASS" if r.check is None or r.check.passed else "FAIL")]
        if r.timing is not None:
            bits.append(f"{r.timing.median_ms:.4g} ms" + (" (interpreter wall clock)" if r.timing.is_interpreter
                                                          else ""))
        self.statusBar().showMessage(" · ".join(bits) + ("  —  " + "; ".join(r.notes) if r.notes else ""), 10000)

    def _show_trace_result(self, res: TraceResult) -> None:
        if res.error is not None or res.trace is None:
            self._show_error(res.error or ErrorInfo("internal", "the trace came back empty"), topic="trace")
            return
        tr = res.trace
        if tr.kernel != self.session.kernel:
            return
        self.show_trace(tr)

    def show_trace(self, tr: Trace) -> None:
        """Draw a recorded trace in the grid view (and link it to the source and the check).

        The grid prepares it on a thread and draws it in short steps (a 4096-program trace
        would otherwise hold the window for a fifth of a second); ``_trace_drawn`` follows."""
        self.session.trace = tr
        self._set_stage(f"drawing the trace ({tr.programs.size:,} programs)…", busy=True)
        self.grid.set_trace(tr, background=True)

    def _trace_drawn(self, tr: Trace) -> None:
        if tr is not self.session.trace:
            return  # an older trace finished drawing as a newer one arrived
        self.grid_stack.setCurrentWidget(self.grid)
        if tr.source and (tr.source != self.source.text() or tr.source_first_line != self.source.first_line()):
            self.source.set_source(tr.source, tr.source_first_line)
        self._update_trace_caption()
        self._link_check_to_trace()
        if not self._busy_kinds():
            self._set_stage("ready")
        recorded = (f"{tr.programs.size:,} of {tr.n_programs:,} programs ({tr.window})" if tr.window
                    else f"all {tr.n_programs:,} programs")
        self.statusBar().showMessage(f"traced {recorded} in {tr.record_s:.2f} s", 8000)

    def _trace_failed(self, message: str) -> None:
        self.banner.show_message(f"The trace came back but cannot be drawn: {message}", "error", topic="trace")
        if not self._busy_kinds():
            self._set_stage("ready")

    def _update_trace_caption(self) -> None:
        tr = self.session.trace
        if tr is None:
            self.trace_caption.hide()
            return
        values = {k: v for k, v in tr.values.items() if k not in ("num_warps", "num_stages")}
        text = (f"Trace of {tr.kernel} ({format_values(values)}): grid {'×'.join(map(str, tr.grid))}, "
                f"{tr.programs.size} program{'s' if tr.programs.size != 1 else ''} recorded")
        if tr.window:
            text += f" ({tr.window})"
        now = self.panel.values()
        stale = any(k in now and now[k] != v for k, v in values.items())
        if stale:
            text += " — the parameters changed since: Trace again to update"
        self.trace_caption.setText(text)
        style = f"color: {theme.ACCENT_WARN};" if stale else "color: #333;"
        if self.trace_caption.styleSheet() != style:  # a style sheet re-polishes: ~5 ms each time
            self.trace_caption.setStyleSheet(style)
        self.trace_caption.show()

    def _trace_output(self) -> tuple[Trace, int] | None:
        """The trace and the index of its tensor that the shown check is about, if they match."""
        tr, check = self.session.trace, self.correctness.shown_check()
        if tr is None or check is None or check.error_map is None:
            return None
        i = output_tensor_index(tr, check.output, int(np.size(check.error_map)))
        return None if i is None else (tr, i)

    def _link_check_to_trace(self) -> None:
        """Fold the error map like the grid's tile map, and name the writing program in its
        tooltip, when the trace is of the same output size."""
        check = self.correctness.shown_check()
        link = self._trace_output()
        if link is not None:
            tr, i = link
            self.correctness.set_programs_for_elements(lambda _out, flat, tr=tr, i=i: writer_text(tr, i, flat))
        else:
            self.correctness.set_programs_for_elements(None)
        if check is not None and check.error_map is not None and np.ndim(check.error_map) == 1:
            self.correctness.set_fold_width(square_fold(int(np.size(check.error_map))))

    def _sweep_done(self, res: SweepResult) -> None:
        s = self.session.sweep
        if s is None:
            return
        for p in res.points:  # normally streamed already; a point whose message was lost is kept
            if p.values not in s.done_values():
                s.add(p)
                self.sweep_view.add_point(p, s.axes)
                self._store(p.result)
        if res.error is not None:
            self._sweep_interrupted(res.error)
            return
        s.finished = True
        best = self.sweep_view.best_index()
        text = f"Sweep done: {s.done} points."
        if best is not None:
            names = list(s.axes)
            best_vals = {n: s.axes[n][best[k]] for k, n in enumerate(names)}
            text += f" Best: {format_values(best_vals)}."
        self.statusBar().showMessage(text, 15000)

    def _sweep_interrupted(self, err: ErrorInfo) -> None:
        s = self.session.sweep
        if s is None:
            return
        s.interrupted = err.message
        left = s.total - s.done
        if s.can_resume:
            self.banner.show_message(
                f"The sweep stopped after {s.done} of {s.total} points ({err.kind}: {err.message}). "
                f"The {s.done} finished points are kept; {left} remain.", "warning" if err.kind == "cancelled"
                else "error", details=err.detail, topic="sweep", actions=[("Resume sweep", self.resume_sweep)])
        else:
            self.banner.show_message(f"Sweep: {err.kind}: {err.message}", "error", details=err.detail,
                                     topic="sweep")
        self._update_actions()

    def _file_loaded(self, payload: dict) -> None:
        infos: list[KernelInfo] = list(payload.get("infos") or [])
        loaded: list[KernelInfo] = list(payload.get("loaded") or [])
        self.session.set_infos(infos)
        self.picker.set_kernels(infos)
        self.picker.set_file_changed(False)
        if loaded:
            names = ", ".join(i.name for i in loaded)
            self.statusBar().showMessage(f"loaded {names} from {loaded[0].origin}", 10000)
            cur = self.session.kernel
            target = cur if cur in {i.name for i in loaded} else loaded[0].name
            if target == cur:
                # reloaded: the source (and maybe the parameters) changed; keep the values typed
                info = self.session.infos[target]
                self.panel.set_kernel(info, self.panel.values())
                self.source.set_source(info.source, info.source_first_line)
            else:
                self.select_kernel(target)
            for i in loaded:
                self._watch_user_file(i)

    def _show_error(self, err: ErrorInfo, topic: str) -> None:
        text = f"{err.kind}: {err.message}"
        if err.kind == "cancelled":  # what the user asked for: say so quietly
            self.statusBar().showMessage(f"{topic} cancelled", 5000)
            return
        if err.kind == "validation" and err.field:
            if self.panel.mark_field(err.field, err.message):
                self.panel.editor(err.field).setFocus()
            topic = "validation"
        self.banner.show_message(text, "error", details=err.detail, topic=topic)
        self.statusBar().showMessage(text, 10000)

    # ------------------------------------------------------------------------------------------
    # links between the views

    def _on_access_line(self, line: int) -> None:
        if line >= 0:
            self.source.mark_line(line)
        else:
            self.source.clear_mark()

    def _on_check_element(self, _output: str, flat: int) -> None:
        link = self._trace_output()
        if link is None or self.grid.trace() is not link[0]:
            return
        tr, i = link
        if 0 <= flat < tr.tensors[i].numel:
            self.grid.hover_element(tr.tensors[i].name, flat)

    def _on_throughput_point(self, index: int) -> None:
        results = self.throughput.results()
        if 0 <= index < len(results):
            r = results[index]
            self._offer_values(f"Run {index + 1}", r.kernel, r.values, r.backend)

    def _on_sweep_point(self, values: dict) -> None:
        s = self.session.sweep
        if s is None:
            return
        full = {**s.request.base, **values}
        self._offer_values("Sweep point", s.request.kernel, full, s.request.backend)

    def _offer_values(self, what: str, kernel: str, values: dict[str, Any], backend: str) -> None:
        self.banner.show_message(f"{what}: {kernel} — {format_values(values)} ({backend})", "info",
                                 topic="point",
                                 actions=[("Load these values", lambda: self.load_values(kernel, values, backend))])

    def load_values(self, kernel: str, values: dict[str, Any], backend: str | None = None) -> bool:
        """Put a past configuration back into the parameter panel."""
        if kernel not in self.session.infos:
            self.banner.show_message(f"The kernel {kernel} is not loaded (open its file first).", "warning",
                                     topic="history")
            return False
        if kernel != self.session.kernel:
            self.select_kernel(kernel, values)
        else:
            self.panel.set_values(values)
        if backend in ("gpu", "interpreter"):
            self.panel.set_backend(backend)
        self.banner.clear("point")
        return True

    # ------------------------------------------------------------------------------------------
    # history

    def _refresh_history(self) -> None:
        """Refill the history table. Reading and decoding 500 rows takes 20–50 ms, so it runs on
        a background thread (History is thread-safe) and only the table update runs here."""
        self.history_timer.stop()
        self._history_gen += 1
        gen, history = self._history_gen, self.history
        metrics = {name: info.metric for name, info in self.session.infos.items()}

        def job() -> None:
            try:
                rows: object = [history_row_from_record(rec, metrics.get(rec["kernel"]))
                                for rec in history.list(limit=HISTORY_ROWS)]
            except Exception as e:  # noqa: BLE001 — a closed or broken database: say so there
                rows = e
            try:
                self._history_read.emit(gen, rows)
            except RuntimeError:  # the window is gone
                pass

        _background().submit(job)

    def _on_history_read(self, gen: int, rows: object) -> None:
        if gen != self._history_gen or self._closing:
            return  # a newer refresh is on its way
        if isinstance(rows, BaseException):
            self.statusBar().showMessage(f"could not read the run history: {rows}", 10000)
            return
        self.history_view.set_rows(rows)  # type: ignore[arg-type]

    def reload_run(self, run_id: int) -> bool:
        rec = self.history.get(run_id)
        if rec is None:
            return False
        return self.load_values(rec["kernel"], rec["values"], rec.get("backend"))

    def _compare_runs(self, a: int, b: int) -> None:
        ra, rb = self.history.get(a), self.history.get(b)
        if ra is None or rb is None:
            return
        unit = lambda rec: getattr(self.session.infos.get(rec["kernel"]), "metric", None)  # noqa: E731
        self.history_view.show_comparison(history_row_from_record(ra, unit(ra)), history_row_from_record(rb, unit(rb)))

    def export_history(self, path: str, fmt: str) -> int:
        try:
            n = self.history.export_json(path) if fmt == "json" else self.history.export_csv(path)
        except OSError as e:
            self.banner.show_message(f"Could not export the history: {e}", "error", topic="export")
            return 0
        self.statusBar().showMessage(f"exported {n} runs to {path}", 8000)
        return n

    # ------------------------------------------------------------------------------------------
    # files and exports

    def _choose_kernel_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open kernel file", "", "Python files (*.py);;All files (*)")
        if path:
            self.open_kernel_file(path)

    def _watch_user_file(self, info: KernelInfo) -> None:
        origin = info.origin
        if origin and origin != "catalog" and os.path.exists(origin) and origin not in self.watcher.files():
            self.watcher.addPath(origin)

    def _on_file_changed(self, path: str) -> None:
        self.picker.set_file_changed(True)
        # editors save by replacing the file, which ends the watch: watch the new file again
        if path not in self.watcher.files():
            QTimer.singleShot(300, lambda: os.path.exists(path) and path not in self.watcher.files()
                              and self.watcher.addPath(path))

    def _export_plot(self) -> None:
        view = self.plot_tabs.currentWidget()
        name = "sweep" if view is self.sweep_view else "throughput"
        path, _ = QFileDialog.getSaveFileName(self, "Export plot", f"{name}.png",
                                              "PNG image (*.png);;SVG vector image (*.svg)")
        if path:
            try:
                view.export(path)
            except (OSError, ValueError) as e:
                self.banner.show_message(f"Could not export the plot: {e}", "error", topic="export")

    def _export_grid(self) -> None:
        if self.session.trace is None:
            self.banner.show_message("Nothing to export: trace the kernel first.", "info", topic="export")
            return
        path, _ = QFileDialog.getSaveFileName(self, "Export grid view", "grid.png",
                                              "PNG image (*.png);;SVG vector image (*.svg)")
        if path:
            try:
                theme.export_plot(self.grid.graphics_view().scene(), path)
            except (OSError, ValueError) as e:
                self.banner.show_message(f"Could not export the grid: {e}", "error", topic="export")

    def _export_history_dialog(self) -> None:
        path, chosen = QFileDialog.getSaveFileName(self, "Export history", "tilescope-history.csv",
                                                   "CSV table (*.csv);;JSON (*.json)")
        if path:
            fmt = "json" if (path.lower().endswith(".json") or "json" in chosen.lower()) else "csv"
            self.export_history(path, fmt)

    def _choose_timeout(self) -> None:
        v, ok = QInputDialog.getDouble(self, "Run timeout", "Seconds a run or trace may take before the "
                                       "worker is restarted:", self.settings.timeout_s, 1.0, 86400.0, 0)
        if ok:
            self.settings.timeout_s = float(v)
            self.worker.set_timeout(float(v))

    # ------------------------------------------------------------------------------------------
    # progress and enabling

    def _busy_kinds(self) -> set[str]:
        return self.worker.pending_kinds() & set(_WORK_KINDS)

    def _set_stage(self, text: str, fraction: float | None = None, busy: bool = False) -> None:
        self._stage = text
        self.stage_label.setText(text)
        if busy:
            self.progress.setRange(0, 0)
            self.progress.show()
        elif fraction is not None:
            self.progress.setRange(0, 1000)
            self.progress.setValue(int(max(0.0, min(1.0, fraction)) * 1000))
            self.progress.show()
        else:
            self.progress.setRange(0, 1000)
            self.progress.setValue(0)
            self.progress.hide()

    def stage_text(self) -> str:
        """What the progress label says now ("starting worker…", "running", "sweep point 2/5: …")."""
        return self._stage

    def _update_actions(self) -> None:
        ok = self._can_submit()
        for a in (self.run_action, self.trace_action, self.sweep_action):
            a.setEnabled(ok)
        window_bad = bool(self.trace_window()[1])
        self.trace_action.setEnabled(ok and not window_bad)
        self.trace_action.setToolTip("Record which program touches which element (interpreter) (Ctrl+T)"
                                     + (" — the Programs field is not a window of programs" if window_bad else ""))
        reason = ("starting worker…" if not self._ready else "no kernel selected" if self.session.info() is None
                  else "fix the marked parameter first" if not self.panel.is_valid() else "")
        self.run_action.setToolTip("Run the kernel: check it and time it (Ctrl+R)"
                                   + (f" — {reason}" if reason else ""))
        busy = self._busy_kinds() & {"run", "trace", "sweep"}
        self.cancel_action.setEnabled(bool(busy))
        s = self.session.sweep
        self.resume_action.setEnabled(bool(s is not None and s.can_resume and "sweep" not in busy and self._ready))
        self.picker.setEnabled(self._ready)
        self.panel.setEnabled(self._ready)


# ---------------------------------------------------------------------------------------------


_frozen = False


def _freeze_startup_objects() -> None:
    """Once per process, when the window is up: move every object alive now (Qt wrappers,
    pyqtgraph items, modules: ~76,000) out of the garbage collector's reach. Otherwise each full
    collection walks them all and holds the GUI thread ~30 ms (measured during a sweep); after
    this it walks only what was made since. (``warm_up`` runs first: its plots live as long as
    the window.) No ``gc.collect()`` first: a collection forced here, just after other Qt
    widgets were dropped, cleared a pyqtgraph item that Qt still held, and a new item made at
    its address then called into the emptied one (AttributeError in ``sizeHint``, seen in
    bench_gui ``all``); what garbage exists now is little and stays."""
    global _frozen
    if _frozen:
        return
    _frozen = True
    gc.freeze()


def main(argv: Sequence[str] | None = None) -> int:
    """Open the window (``tilescope`` with no verb); returns the exit status."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(prog="tilescope", description="Open the Tilescope window.")
    parser.add_argument("--kernel", "-k", help="kernel to show first (default: the last one used)")
    parser.add_argument("--reset-layout", action="store_true", help="ignore the saved window layout")
    args, qt_args = parser.parse_known_args(args_list)
    app = QApplication.instance() or QApplication([sys.argv[0], *qt_args])
    app.setApplicationName("Tilescope")
    app.setOrganizationName("tilescope")
    settings = Settings.load()
    if args.reset_layout:
        settings.window_geometry = settings.window_state = ""
    win = MainWindow(settings=settings, initial_kernel=args.kernel)
    win.show()
    code = int(app.exec())
    win.worker.close()  # closeEvent did it, unless the loop ended another way (a signal, quit())
    # delete the window while Qt is still whole: left to the interpreter's teardown, PySide may
    # destroy the Qt objects in an order that crashes on exit
    win.deleteLater()
    app.processEvents()
    del win
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
