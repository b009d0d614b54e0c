"""The desktop window: pick a kernel, tweak its parameters, run / trace / sweep it, and see the
program grid, the throughput and the correctness side by side.

This module assembles the widgets (``views/`` and ``app.window``) and wires them to the Qt-free
controller (``app.controller``), which turns what the user does into worker requests and routes
the answers back: the window implements the controller's ``WindowView`` — small methods that read
the panel and put results on screen — and forwards its actions (Run, Trace, Sweep…) to it. Its
parts live in ``app.window``: the dock layout, the saved geometry, the history table's background
reads, the kernel file watcher, exports, what runs after the first frame. ``app.gui.main`` opens
it.

Everything heavy happens in the worker process (``app.qt_worker`` over ``app.client``); this
process imports neither torch nor triton, only Qt, pyqtgraph, numpy and the plain data modules.
The window shows itself first and starts the worker right after, so it is on screen within a
second while the worker (torch + triton imports, ~3 s) warms up behind it; the controls stay
disabled, with "starting worker…", until the worker's hello arrives.

Layout (dock widgets, so ``saveState``/``restoreState`` keep the user's arrangement): kernels and
parameters on the left, the grid view in the middle, throughput/sweep (tabs) and correctness on
the right, source / compile / history along the bottom — at 1600×1000 the grid, the throughput
plot and the correctness check are all visible at once.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QCoreApplication, Qt, QTimer
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence, QShowEvent
from PySide6.QtWidgets import (
    QFileDialog,
    QLabel,
    QLineEdit,
    QMainWindow,
    QStackedWidget,
    QStyle,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from kernels.data.results import KernelInfo, RunResult, SweepPoint
from kernels.data.trace import Trace
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

from .controller import Actions, Controller
from .history import History
from .qt_worker import QtWorker
from .session import Session, history_row_from_record, trace_caption
from .settings import Settings
from .window.compile_target import CompileTargets
from .window.dialogs import SweepDialog
from .window.docks import Docks
from .window.exports import ask_history_export, export_history, export_image
from .window.file_watch import KernelFileWatcher
from .window.full_res import FullResolution
from .window.history_reader import HistoryReader
from .window.kernel_traces import KernelTraces
from .window.layouts import Layouts
from .window.lessons import connect_lessons, make_lesson_view
from .window.links import CheckTraceLink
from .window.settings import ask_timeout, save_now, save_window
from .window.startup import AfterFirstFrame, freeze_startup_objects
from .window.sweep_setup import TuneSweepDialog
from .window.sweep_tabs import SweepTabs
from .window.timeline_dock import GpuTraceViews
from .window.widgets import MessageBanner, StatusStrip

__all__ = ["LIVE_DEBOUNCE_MS", "MainWindow"]

#: Live mode re-runs this long after the last valid parameter change
LIVE_DEBOUNCE_MS = 300


class MainWindow(QMainWindow):
    """The Tilescope window. ``worker`` is the QtWorker (started after the first show);
    ``controller`` decides what the actions do (``app.controller``)."""

    def __init__(self, settings: Settings | None = None, history: History | None = None,
                 worker: QtWorker | None = None, autostart: bool = True,
                 initial_kernel: str | None = None) -> None:
        theme.configure()
        super().__init__()
        self.settings = settings if settings is not None else Settings.load()
        self.history = history if history is not None else History.open()
        self.session = Session()
        self.worker = worker if worker is not None else QtWorker(timeout_s=self.settings.timeout_s, parent=self)
        self.controller = Controller(self, self.worker, self.session, self.settings, self.history,
                                     initial_kernel=initial_kernel)
        self._autostart = autostart
        self._shown_once = False
        self.sweep_dialog: SweepDialog | None = None

        self.setWindowTitle("Tilescope")
        self.setWindowIcon(theme.icon("tilescope"))
        self.setDockOptions(QMainWindow.DockOption.AnimatedDocks | QMainWindow.DockOption.AllowTabbedDocks
                            | QMainWindow.DockOption.AllowNestedDocks)
        self._build_widgets()
        self._build_actions()
        self.docks = Docks(self, self.view_menu, kernels=self.picker, params=self.panel, plots=self.plot_tabs,
                           history=self.history_view, compile_facts=self.compile_view, source=self.source,
                           correctness=self.correctness, lessons=self.lessons)
        connect_lessons(self)
        self.gpu_views = GpuTraceViews(self)  # the Timeline tab and Interpreter vs GPU (beside Trace)
        self.layouts = Layouts(self, self.settings, self.docks, self.view_menu, self.reset_layout_action)
        self.status = StatusStrip.install(self)  # messages elided before the labels on the right
        # the labels, by name (tests and benchmarks read them)
        self.stage_label, self.progress = self.status.stage_label, self.status.progress
        self.backend_label, self.device_label = self.status.backend_label, self.status.device_label
        self.state_label, self.triton_label = self.status.state_label, self.status.triton_label
        self._connect()
        self.layouts.restore()  # the last session's arrangement (a damaged one: the default, said)
        self.live_action.blockSignals(True)
        self.live_action.setChecked(bool(self.settings.live))
        self.live_action.blockSignals(False)
        self.update_actions()
        startup = [w for w in (self.settings.warning, self.settings.save_problem(), self.history.warning) if w]
        if startup:
            self.banner.show_message("\n".join(startup), "warning", topic="startup")

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
        self.lessons = make_lesson_view()

        self.plot_tabs = QTabWidget()
        self.plot_tabs.setObjectName("plot_tabs")
        self.plot_tabs.addTab(self.throughput, self.tr("Throughput"))
        self._sweep_placeholder = QLabel(self.tr("Run a sweep (Sweep…) to see throughput against the swept parameters."))
        self._sweep_placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.plot_tabs.addTab(self._sweep_placeholder, self.tr("Sweep"))
        self.plot_tabs.currentChanged.connect(lambda i: self.sweep_view if i == 1 else None)

        self.banner = MessageBanner()
        self.grid_placeholder = QLabel(self.tr(
            "No trace yet.\n\nPress Trace (Ctrl+T) to run the kernel under the Triton interpreter and "
            "record which program touches which element of which tensor."))
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

        self.after_first_frame = AfterFirstFrame(self)
        self.watcher = KernelFileWatcher(self)
        self.history_reader = HistoryReader(
            self.history, lambda: {name: info.metric for name, info in self.session.infos.items()}, self)
        self.live_timer = QTimer(self)
        self.live_timer.setSingleShot(True)
        self.live_timer.setInterval(LIVE_DEBOUNCE_MS)
        self.check_link = CheckTraceLink(self.session, self.grid, self.correctness)
        self.sweep_tabs = SweepTabs(self)  # the Heatmap, Ranking and Roofline tabs
        self.compile_targets, self.kernel_traces, self.full_res = CompileTargets(self), KernelTraces(self), FullResolution(self)

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
        self.run_action = self._action(self.tr("Run"), self.run, "Ctrl+R", self.tr("Run the kernel: check it and time it"),
                                       name="run")
        self.live_action = self._action(self.tr("Live"), self.set_live, "Ctrl+L",
                                        self.tr("Re-run automatically whenever a parameter changes"), checkable=True,
                                        name="live")
        self.trace_action = self._action(self.tr("Trace"), self.trace, "Ctrl+T",
                                         self.tr("Record which program touches which element"),
                                         name="trace")
        self.sweep_action = self._action(self.tr("Sweep…"), self.open_sweep_dialog, "Ctrl+Shift+S",
                                         self.tr("Run every combination of one or two parameters"), name="sweep")
        self.cancel_action = self._action(self.tr("Cancel"), self.cancel, Qt.Key.Key_Escape,
                                          self.tr("Stop the running request"), name="cancel")
        self.resume_action = self._action(self.tr("Resume sweep"), self.resume_sweep, None,
                                          self.tr("Run the points an interrupted sweep did not reach"),
                                          name="resume_sweep")
        self.open_action = self._action(self.tr("Open kernel file…"), self._choose_kernel_file, QKeySequence.StandardKey.Open,
                                        self.tr("Load a Python file that registers Triton kernels"), name="open_file")
        self.export_plot_action = self._action(self.tr("Export plot…"), self._export_plot, None,
                                               self.tr("Save the throughput or sweep plot as PNG / SVG"),
                                               name="export_plot")
        self.export_grid_action = self._action(self.tr("Export grid view…"), self._export_grid, None,
                                               self.tr("Save the program grid and tile maps as PNG / SVG"),
                                               name="export_grid")
        self.export_history_action = self._action(self.tr("Export history…"),
                                                  lambda: ask_history_export(self, self.export_history), None,
                                                  self.tr("Save every run as CSV or JSON"), name="export_history")
        self.timeout_action = self._action(self.tr("Run timeout…"), self._choose_timeout, None,
                                           self.tr("How long a run may take before the worker is restarted"),
                                           name="timeout")
        self.reset_layout_action = self._action(self.tr("Reset layout"), self.reset_layout, None,
                                                self.tr("Put every panel back where it started"), name="reset_layout")
        self.quit_action = self._action(self.tr("Quit"), self.close, QKeySequence.StandardKey.Quit, self.tr("Close Tilescope"),
                                        name="quit")

        sp = QStyle.StandardPixmap
        for a, pix in ((self.run_action, sp.SP_MediaPlay), (self.live_action, sp.SP_BrowserReload),
                       (self.trace_action, sp.SP_FileDialogContentsView), (self.sweep_action, sp.SP_FileDialogDetailedView),
                       (self.cancel_action, sp.SP_MediaStop), (self.resume_action, sp.SP_MediaSeekForward)):
            a.setIcon(self.style().standardIcon(pix))
        self.open_action.setIcon(theme.icon("open"))
        tb = self.addToolBar(self.tr("Actions"))
        tb.setObjectName("toolbar_actions")
        tb.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        for a in (self.run_action, self.live_action, self.trace_action):
            tb.addAction(a)
        # which programs Trace records: empty = all; "A:B" linear ids; "x0:x1,y0:y1" a box
        self.window_label = QLabel(" " + self.tr("Programs:") + " ")
        self.window_edit = QLineEdit()
        self.window_edit.setObjectName("trace_window")
        self.window_edit.setPlaceholderText(self.tr("all"))
        self.window_edit.setClearButtonEnabled(True)
        self.window_edit.setMaximumWidth(130)
        self.window_edit.setToolTip(self.tr(
            "Which programs Trace records (empty: all of them).\n"
            "A:B — program ids A to B−1 (e.g. 0:256)\n"
            "x0:x1,y0:y1 — a box of a 2-D grid (e.g. 0:8,0:4)\n"
            "The other programs do not run under the tracer; their elements show as not recorded."))
        self.window_edit.textChanged.connect(self._on_window_text)
        self.window_edit.returnPressed.connect(lambda: self.trace_action.isEnabled() and self.trace())
        self.window_label.setBuddy(self.window_edit)
        tb.addWidget(self.window_label)
        tb.addWidget(self.window_edit)
        for a in (self.sweep_action, self.cancel_action):
            tb.addAction(a)
        self.toolbar = tb

        mb = self.menuBar()
        m = mb.addMenu(self.tr("&File"))
        for a in (self.open_action, None, self.export_plot_action, self.export_grid_action,
                  self.export_history_action, None, self.quit_action):
            m.addSeparator() if a is None else m.addAction(a)
        m = mb.addMenu(self.tr("&Run"))
        for a in (self.run_action, self.live_action, self.trace_action, self.sweep_action, self.resume_action,
                  None, self.cancel_action, None, self.timeout_action):
            m.addSeparator() if a is None else m.addAction(a)
        self.view_menu = mb.addMenu(self.tr("&View"))

    def _connect(self) -> None:
        c, wk = self.controller, self.worker
        wk.hello.connect(c.on_hello)
        wk.stateChanged.connect(c.on_state)
        wk.progress.connect(c.on_progress)
        wk.point.connect(c.on_point)
        wk.result.connect(c.on_result)
        wk.error.connect(c.on_error)
        wk.log.connect(c.on_log)

        self.picker.kernelSelected.connect(self.select_kernel)
        self.picker.openFileRequested.connect(self.open_kernel_file)
        self.picker.reloadRequested.connect(self.open_kernel_file)
        self.panel.valuesChanged.connect(self._on_values_changed)
        self.panel.validityChanged.connect(lambda _ok: self.update_actions())
        self.panel.backendChanged.connect(self._on_backend_changed)
        self.grid.accessLineHovered.connect(self._on_access_line)
        self.grid.traceApplied.connect(c.on_trace_drawn)
        self.grid.traceFailed.connect(c.on_trace_failed)
        self.throughput.pointClicked.connect(self._on_throughput_point)
        self.history_view.reloadRequested.connect(self.reload_run)
        self.history_view.compareRequested.connect(self._compare_runs)
        self.history_view.exportRequested.connect(self.export_history)
        self.watcher.changed.connect(lambda _path: self.picker.set_file_changed(True))
        self.live_timer.timeout.connect(self._live_run)
        self.history_reader.rowsRead.connect(self.history_view.set_rows)
        self.history_reader.failed.connect(
            lambda why: self.statusBar().showMessage(self.tr("could not read the run history: {why}").format(why=why), 10000))

    @property
    def sweep_view(self) -> SweepView:
        """The sweep plot. Built on first use, or right after the first frame: its two plots cost
        a tenth of a second or more that the window's first appearance need not wait for."""
        if self._sweep_view is None:
            view = SweepView()
            view.pointClicked.connect(self.controller.offer_sweep_point)
            info = self.session.info()
            if info is not None:
                view.set_metric(info.metric)
            current = self.plot_tabs.currentIndex()
            self.plot_tabs.blockSignals(True)
            self.plot_tabs.removeTab(1)
            self.plot_tabs.insertTab(1, view, self.tr("Sweep"))
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
            self.after_first_frame.start([self.start_worker] if self._autostart else [])
            self.after_first_frame.start([self.history_reader.refresh, lambda: self.sweep_view,
                                          self.grid.warm_up, freeze_startup_objects])

    def start_worker(self) -> None:
        if self.controller.closing or self.worker.started:
            return
        self.set_stage(self.tr("starting worker…"), busy=True)
        self.worker.start()

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 (Qt's name)
        self.controller.closing = True
        self.after_first_frame.stop()
        self.history_reader.close()
        self.live_timer.stop()
        save_window(self, self.settings, live=self.live_action.isChecked(), kernel=self.session.kernel,
                    values=self.panel.values() if self.panel.kernel() is not None else None)
        self.worker.close()  # stops a running request and the process: nothing is left behind
        self.history_view.close()
        super().closeEvent(event)

    def reset_layout(self) -> None:
        self.docks.reset()

    # ------------------------------------------------------------------------------------------
    # actions (what they do is the controller's)

    def select_kernel(self, name: str, values: dict[str, Any] | None = None) -> bool:
        """Show kernel ``name`` with ``values`` (default: the values last used with it)."""
        return self.controller.select_kernel(name, values)

    def run(self) -> int | None:
        """Run the current configuration (check + time); returns the request's generation."""
        return self.controller.run()

    def trace(self) -> int | None:
        """Record the current configuration's accesses (interpreter); returns the generation."""
        return self.controller.trace()

    def trace_window(self) -> tuple[str | None, str]:
        """(the Programs field as a window text or None for all, why it is invalid or "")."""
        return self.controller.trace_window()

    def start_sweep(self, axes: dict[str, list[Any]]) -> int | None:
        """Sweep ``axes`` (one or two parameters) with the panel's other values."""
        return self.controller.start_sweep(axes)

    def resume_sweep(self) -> int | None:
        return self.controller.resume_sweep()

    def cancel(self) -> None:
        self.controller.cancel()

    def open_kernel_file(self, path: str) -> int | None:
        """Load (or reload) a user's kernel file in the worker."""
        return self.controller.open_kernel_file(path)

    def load_values(self, kernel: str, values: dict[str, Any], backend: str | None = None) -> bool:
        """Put a past configuration back into the parameter panel."""
        return self.controller.load_values(kernel, values, backend)

    def reload_run(self, run_id: int) -> bool:
        return self.controller.reload_run(run_id)

    def show_trace(self, tr: Trace) -> None:
        """Draw a recorded trace in the grid view (and link it to the source and the check)."""
        self.controller.show_trace(tr)

    def open_sweep_dialog(self) -> SweepDialog | None:
        """Open the (window-modal, non-blocking) sweep dialog; accepting it starts the sweep."""
        info = self.session.info()
        if info is None or not self.controller.can_submit():
            return None
        dlg = TuneSweepDialog(info, self.panel.values(), self,
                              interpreter=self.panel.backend() == "interpreter" or not self.session.gpu_available)
        dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dlg.accepted.connect(lambda: self.controller.start_sweep(dlg.axes(), dlg.where(), dlg.mode()))
        self.sweep_dialog = dlg
        dlg.destroyed.connect(lambda *_: setattr(self, "sweep_dialog", None))
        dlg.open()
        return dlg

    def set_live(self, on: bool) -> None:
        self.settings.live = bool(on)
        if on and self.controller.can_submit():
            self.live_timer.start()
        elif not on:
            self.live_timer.stop()

    def _live_run(self) -> None:
        if self.live_action.isChecked() and self.controller.can_submit():
            self.run()

    def _on_values_changed(self, _values: dict) -> None:
        self._update_trace_caption()
        if self.live_action.isChecked():
            self.live_timer.start()  # restarts: only the last of a burst of edits runs

    def _on_backend_changed(self, backend: str) -> None:
        self.settings.backend = backend
        self._update_backend_label()
        if self.live_action.isChecked() and self.controller.ready:
            self.live_timer.start()

    def _on_window_text(self, _text: str) -> None:
        _, why = self.controller.trace_window()
        self.window_edit.setStyleSheet(f"QLineEdit {{ border: 2px solid {theme.FAIL}; }}" if why else "")
        self.window_edit.setToolTip(self.window_edit.toolTip().split("\n\n⚠")[0]
                                    + (f"\n\n⚠ {why}" if why else ""))
        self.update_actions()

    def _busy_kinds(self) -> set[str]:
        return self.controller.busy_kinds()

    def stage_text(self) -> str:
        """What the progress label says now ("starting worker…", "running", "sweep point 2/5: …")."""
        return self.status.stage()

    # ------------------------------------------------------------------------------------------
    # files, exports, settings

    def _choose_kernel_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, self.tr("Open kernel file"), "",
                                              self.tr("Python files (*.py);;All files (*)"))
        if path:
            self.open_kernel_file(path)

    def _report_export(self, text: str) -> None:
        self.banner.show_message(text, "error", topic="export")

    def _export_plot(self) -> None:
        view = self.plot_tabs.currentWidget()
        name = "sweep" if view is self.sweep_view else "throughput"
        export_image(self, self.tr("Export plot"), f"{name}.png", view.export, self.tr("plot"), self._report_export)

    def _export_grid(self) -> None:
        if self.session.trace is None:
            self.banner.show_message(self.tr("Nothing to export: trace the kernel first."), "info", topic="export")
            return
        export_image(self, self.tr("Export grid view"), "grid.png",
                     lambda path: theme.export_plot(self.grid.graphics_view().scene(), path), self.tr("grid view"),
                     self._report_export)

    def export_history(self, path: str, fmt: str) -> int:
        """Write every run to ``path`` ("csv" or "json"); the number written (0 on failure, said)."""
        try:
            n = export_history(self.history, path, fmt)
        except OSError as e:
            self.banner.show_message(self.tr("Could not export the history: {error}").format(error=e), "error",
                                     topic="export")
            return 0
        self.statusBar().showMessage(self.tr("exported {n} runs to {path}").format(n=n, path=path), 8000)
        return n

    def _compare_runs(self, a: int, b: int) -> None:
        ra, rb = self.history.get(a), self.history.get(b)
        if ra is None or rb is None:
            return
        unit = lambda rec: getattr(self.session.infos.get(rec["kernel"]), "metric", None)  # noqa: E731
        self.history_view.show_comparison(history_row_from_record(ra, unit(ra)), history_row_from_record(rb, unit(rb)))

    def _choose_timeout(self) -> None:
        seconds = ask_timeout(self, self.settings.timeout_s)
        if seconds is not None:
            self.settings.timeout_s = seconds
            save_now(self.settings, self.banner)  # now: a failure is said while the window is up
            self.worker.set_timeout(seconds)

    # ------------------------------------------------------------------------------------------
    # links between the views

    def _on_access_line(self, line: int) -> None:
        if line >= 0:
            self.source.mark_line(line)
        else:
            self.source.clear_mark()

    def _on_throughput_point(self, index: int) -> None:
        results = self.throughput.results()
        if 0 <= index < len(results):
            r = results[index]
            self.controller.offer_values(self.tr("Run {n}").format(n=index + 1), r.kernel, r.values, r.backend)

    def _update_trace_caption(self) -> None:
        tr = self.session.trace
        if tr is None:
            self.trace_caption.hide()
            return
        text, stale = trace_caption(tr, self.session.info(tr.kernel), self.panel.values())
        self.trace_caption.setText(text)
        style = f"color: {theme.ACCENT_WARN};" if stale else "color: #333;"
        if self.trace_caption.styleSheet() != style:  # a style sheet re-polishes: ~5 ms each time
            self.trace_caption.setStyleSheet(style)
        self.trace_caption.show()

    def _update_backend_label(self) -> None:
        b = self.panel.backend()
        self.backend_label.setText(self.tr("backend: GPU") if b == "gpu" else self.tr("backend: interpreter (CPU)"))

    # ------------------------------------------------------------------------------------------
    # WindowView: what the controller reads and shows (see app.controller)

    def param_values(self) -> dict[str, Any]:
        return self.panel.values()

    def params_shown(self) -> bool:
        return self.panel.kernel() is not None

    def params_valid(self) -> bool:
        return self.panel.is_valid()

    def backend(self) -> str:
        return self.panel.backend()

    def window_text(self) -> str:
        return self.window_edit.text()

    def set_window_text(self, text: str) -> None:
        self.window_edit.setText(text)

    def focus_window_text(self) -> None:
        self.window_edit.setFocus()

    def show_kernels(self, infos: list[KernelInfo]) -> None:
        self.picker.set_kernels(infos)

    def show_kernel(self, info: KernelInfo, values: dict[str, Any], new: bool) -> None:
        if self.picker.current_name() != info.name:
            self.picker.select(info.name)
        self.panel.set_kernel(info, values)
        self.setWindowTitle(f"Tilescope — {info.title}")
        if not new:
            return
        self.source.set_source(info.source, info.source_first_line)
        self.throughput.clear()
        self.throughput.set_metric(info.metric)
        self.sweep_view.clear()
        self.sweep_view.set_metric(info.metric)
        self.correctness.set_check(None)
        self.correctness.set_programs_for_elements(None)
        self.compile_view.set_facts(None, self.tr("No run yet."))
        self.grid_stack.setCurrentWidget(self.grid_placeholder)
        self.trace_caption.hide()
        self.window_edit.clear()  # another kernel has another grid

    def show_source(self, source: str, first_line: int) -> None:
        self.source.set_source(source, first_line)

    def set_param_values(self, values: dict[str, Any]) -> None:
        self.panel.set_values(values)

    def set_backend(self, backend: str) -> None:
        self.panel.set_backend(backend)
        self._update_backend_label()

    def mark_field(self, name: str, message: str) -> None:
        if self.panel.mark_field(name, message):
            self.panel.editor(name).setFocus()

    def clear_marks(self) -> None:
        self.panel.clear_marks()

    def watch_file(self, path: str | None) -> None:
        self.watcher.watch(path)

    def set_file_changed(self, changed: bool) -> None:
        self.picker.set_file_changed(changed)

    def show_worker(self, session: Session) -> None:
        self.panel.set_gpu_available(session.gpu_available, session.gpu_reason)
        self.device_label.setText(self.tr("device: {name}").format(name=session.device_name))
        self.triton_label.setText(f"Triton {session.triton_version or '?'}")
        self._update_backend_label()

    def show_worker_state(self, state: str) -> None:
        self.state_label.setText(QCoreApplication.translate("StatusStrip", "worker: {state}").format(
            state=QCoreApplication.translate("StatusStrip", state)))

    def show_message(self, text: str, level: str = "error", *, details: str = "", topic: str = "",
                     actions: Actions = ()) -> None:
        self.banner.show_message(text, level, details=details, topic=topic, actions=actions)

    def clear_message(self, *topics: str) -> None:
        self.banner.clear(*topics)

    def show_status(self, text: str, ms: int) -> None:
        self.statusBar().showMessage(text, ms)

    def set_stage(self, text: str, fraction: float | None = None, busy: bool = False) -> None:
        self.status.set_stage(text, fraction, busy)

    def defer(self, fn: Callable[[], Any]) -> None:
        QTimer.singleShot(0, fn)

    def show_run(self, r: RunResult) -> None:
        self.throughput.add_result(r)
        self.correctness.set_check(r.check)
        if r.backend == "interpreter":
            self.compile_view.set_facts(None)
        else:
            self.compile_view.set_facts(r.compile, None if r.compile is not None else
                                        self.tr("No compile facts: {why}").format(
                                            why=r.error.message if r.error else self.tr("none reported")))
        self.check_link.update()

    def draw_trace(self, tr: Trace) -> None:
        # prepared on a thread and drawn in short steps (a 4096-program trace would otherwise hold
        # the window for a fifth of a second); the grid's traceApplied follows
        self.grid.set_trace(tr, background=True)

    def trace_shown(self, tr: Trace) -> None:
        self.grid_stack.setCurrentWidget(self.grid)
        if tr.source and (tr.source != self.source.text() or tr.source_first_line != self.source.first_line()):
            self.source.set_source(tr.source, tr.source_first_line)
        self._update_trace_caption()
        self.check_link.update()

    def is_drawing(self) -> bool:
        return self.grid.is_loading()

    def begin_sweep(self, metric: str | None) -> None:
        if metric is not None:
            self.sweep_view.clear()
            self.sweep_view.set_metric(metric)
        self.plot_tabs.setCurrentWidget(self.sweep_view)

    def show_sweep_point(self, point: SweepPoint, axes: dict[str, list[Any]]) -> None:
        if len(axes) <= 2:  # more: the Heatmap and Ranking tabs only (app.window.sweep_tabs)
            self.sweep_view.add_point(point, axes)

    def best_sweep_point(self) -> tuple[int, ...] | None:
        return self.sweep_view.best_index()

    def history_changed(self) -> None:
        self.history_reader.refresh_soon()

    def show_lesson_result(self, result: Any) -> None:
        self.lessons.show_result(result)

    def lesson_check_failed(self, message: str) -> None:
        self.lessons.show_check_error(message)

    def update_actions(self) -> None:
        a = self.controller.actions()
        self.run_action.setEnabled(a.run)
        self.sweep_action.setEnabled(a.sweep)
        self.trace_action.setEnabled(a.trace)
        self.trace_action.setToolTip(self.tr("Record which program touches which element") + " (Ctrl+T)"
                                     + (" — " + self.tr("the Programs field is not a window of programs")
                                        if a.window_bad else ""))
        self.run_action.setToolTip(self.tr("Run the kernel: check it and time it") + " (Ctrl+R)"
                                   + (f" — {a.run_blocked}" if a.run_blocked else ""))
        self.cancel_action.setEnabled(a.cancel)
        self.resume_action.setEnabled(a.resume)
        self.picker.setEnabled(a.inputs)
        self.panel.setEnabled(a.inputs)
