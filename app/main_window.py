"""The desktop window: pick a kernel, tweak its parameters, run / trace / sweep it, and see the
program grid, the throughput and the correctness side by side.

This module only assembles. The widgets are ``views/``'s; the parts of the window (``app.window``)
each take the widgets and the narrow port they need — a few callables, the event channel — and
never the window. The Qt-free controller (``app.controller``) turns what the user does into
worker requests and publishes what to show as typed events (``app.events``); each part subscribes
to the kinds it draws. ``app.gui.main`` opens the window.

Everything heavy happens in the worker process (``app.qt_worker`` over ``app.client``); this
process imports neither torch nor triton, only Qt, pyqtgraph, numpy and the plain data modules.
The window shows itself first and starts the worker right after, so it is on screen within a
second while the worker (torch + triton imports) warms up behind it; the controls stay disabled,
with "starting worker…", until the worker's hello arrives.

Layout (dock widgets, so ``saveState``/``restoreState`` keep the user's arrangement): kernels and
parameters on the left, the grid view in the middle, throughput/sweep (tabs) and correctness on
the right, source / compile / history along the bottom — at 1600×1000 the grid, the throughput
plot and the correctness check are all visible at once.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtGui import QCloseEvent, QShowEvent
from PySide6.QtWidgets import QFileDialog, QMainWindow

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
from views.words import translate

from .controller import Controller
from .events import BackendSet, StageShown, StatusShown, ValuesSet, WindowEvents
from .history import History
from .qt_worker import QtWorker
from .session import Session
from .settings import Settings
from .transport_ssh import remote_of
from .window.actions import Commands, ProgramsField, WindowActions
from .window.advice_card import AdviceCard, EvidencePlaces
from .window.compile_target import CompileTargets
from .window.docks import Docks
from .window.file_watch import KernelFileWatcher
from .window.full_res import FullResolution
from .window.grid_pane import GridPane
from .window.history_pane import HistoryPane
from .window.kernel_pane import KernelPane
from .window.kernel_traces import KernelTraces
from .window.layouts import Layouts
from .window.lessons import connect_lessons, make_lesson_view
from .window.links import CheckTraceLink
from .window.live import LIVE_DEBOUNCE_MS, LiveRuns
from .window.plot_tabs import PlotTabs
from .window.readings import WindowReadings
from .window.run_views import RunViews
from .window.settings import choose_timeout, save_window
from .window.startup import AfterFirstFrame, freeze_startup_objects
from .window.status_line import StatusLine
from .window.sweep_setup import SweepLauncher
from .window.sweep_tabs import SweepTabs
from .window.threads_tab import ThreadsTab
from .window.timeline_dock import GpuTraceViews
from .window.virtual_gpu import VirtualGpuChoice, virtual_gpu_env
from .window.widgets import StatusStrip

__all__ = ["LIVE_DEBOUNCE_MS", "MainWindow"]


class MainWindow(QMainWindow):
    """The Tilescope window. ``worker`` is the QtWorker (started after the first show);
    ``controller`` decides what the actions do (``app.controller``); ``events`` carries what it
    decides to show to the parts."""

    def __init__(self, settings: Settings | None = None, history: History | None = None,
                 worker: QtWorker | None = None, autostart: bool = True,
                 initial_kernel: str | None = None, virtual_gpu: str | None = None) -> None:
        theme.configure()
        super().__init__()
        self.settings = settings if settings is not None else Settings.load()
        self.history = history if history is not None else History.open()
        self.session = Session()
        self.worker = worker if worker is not None else QtWorker(
            timeout_s=self.settings.timeout_s, parent=self, remote=remote_of(self.settings),
            env=virtual_gpu_env(self.settings, virtual_gpu))
        self._virtual_gpu = virtual_gpu  # --virtual-gpu: this session's choice, over the settings
        self.events = WindowEvents()
        self._autostart, self._shown_once = autostart, False
        self.setWindowTitle("Tilescope")
        self.setWindowIcon(theme.icon("tilescope"))
        self.setDockOptions(QMainWindow.DockOption.AnimatedDocks | QMainWindow.DockOption.AllowTabbedDocks
                            | QMainWindow.DockOption.AllowNestedDocks)
        self._build_views()
        self.controller = Controller(
            WindowReadings.of(self.panel, self.window_edit.text, self.grid.is_loading, self.plots.best_point),
            self.worker, self.session, self.settings, self.history, initial_kernel=initial_kernel,
            events=self.events)
        self._build_parts()
        self._connect_worker()
        self.layouts.restore()  # the last session's arrangement (a damaged one: the default, said)
        self.actions.refresh()
        startup = [w for w in (self.settings.warning, self.settings.save_problem(), self.history.warning) if w]
        if startup:
            self.banner.show_message("\n".join(startup), "warning", topic="startup")

    # ------------------------------------------------------------------------------------------
    # assembly

    def _build_views(self) -> None:
        """The widgets that draw, and the parts the controller reads."""
        self.picker, self.panel, self.grid = KernelPicker(), ParamPanel(), GridView()
        self.throughput, self.correctness, self.source = ThroughputView(), CorrectnessView(), SourceView()
        self.compile_view, self.history_view, self.lessons = CompileView(), HistoryView(), make_lesson_view()
        self.window_edit = ProgramsField()
        self.plots = PlotTabs(self.throughput, self.events, lambda: getattr(self.session.info(), "metric", None),
                              self)
        self.plot_tabs = self.plots.tabs

    def _build_parts(self) -> None:
        c, ev, s = self.controller, self.events, self.session
        # the panes that follow the controller's events: the order is the order they hear them in
        self.kernel_pane = KernelPane(self.picker, self.panel, KernelFileWatcher(self), self.settings, ev,
                                      self.setWindowTitle)
        self.watcher = self.kernel_pane.watcher
        self.check_link = CheckTraceLink(s, self.grid, self.correctness)
        self.grid_pane = GridPane(self.grid, self.source, s, self.check_link, ev, self.panel.values, self)
        self.banner, self.trace_caption = self.grid_pane.banner, self.grid_pane.trace_caption
        self.grid_stack, self.grid_placeholder = self.grid_pane.grid_stack, self.grid_pane.grid_placeholder
        self.setCentralWidget(self.grid_pane.central)
        self.run_views = RunViews(self.throughput, self.correctness, self.compile_view, self.check_link, ev,
                                  c.offer_values)
        self.actions = WindowActions(self, self._commands(), ev, self.window_edit, (self.picker, self.panel))
        for name in ("run", "live", "trace", "sweep", "cancel", "resume"):
            setattr(self, f"{name}_action", getattr(self.actions, f"{name}_action"))
        self.toolbar, self.view_menu = self.actions.toolbar, self.actions.view_menu
        self.history_pane = HistoryPane(self.history_view, self.history, s, ev, self.banner, self.show_status,
                                        c.reload_run, self)
        self.docks = Docks(self, self.view_menu, kernels=self.picker, params=self.panel, plots=self.plot_tabs,
                           history=self.history_view, compile_facts=self.compile_view, source=self.source,
                           correctness=self.correctness, lessons=self.lessons)
        connect_lessons(self.lessons, ev, c.check_lesson, self.grid_pane.show_in_grid)
        # the parts that follow a sweep, a kernel, a trace or a region of their own
        self.sweep_tabs = SweepTabs(self.plot_tabs, ev, c.load_point, lambda: self.plots.sweep_view, self)
        self.compile_targets = CompileTargets(self.compile_view, self.panel, ev, c.compile_for_target,
                                              lambda: c.ready, s.info, WindowReadings.defer, self)
        self.kernel_traces = KernelTraces(self.grid, s, ev, c.show_trace)
        self.threads = ThreadsTab(self.grid_pane.tabs, self.source, self.panel, ev, c.request_layout, s.info,
                                  s.user_file, lambda: c.ready, self)
        self.full_res = FullResolution(self.grid, ev, c.request_region, self.show_status, self)
        self.gpu_views = GpuTraceViews(self, self.plot_tabs, self.grid, self.banner,
                                       (self.trace_action, self.run_action), ev, c.compare_backends, self.panel, c)
        places = EvidencePlaces(self.source, self.grid_pane.tabs, self.grid_stack, self.threads.view, self.plot_tabs,
                                self.gpu_views.timeline.stack, self.docks.compile, self.docks.plots)
        self.advice = AdviceCard(self, self.view_menu, self.docks.compile, self.panel, ev, c.request_why, s.info,
                                 s.user_file, self.panel.backend, lambda: s.gpu_available,
                                 self.compile_view.current_target, places, self)
        self.docks.add(self.advice.dock)  # Reset layout puts it back with the others
        self.layouts = Layouts(self, self.settings, self.docks, self.view_menu, self.actions.reset_layout_action,
                               self.banner)
        self.virtual_gpu = VirtualGpuChoice(self.actions.virtual_gpu_action, self.settings, ev, self.banner,
                                            self.worker.restart, self._reopen_user_file, self.show_status,
                                            self._virtual_gpu, self)
        self.status = StatusStrip.install(self)  # messages elided before the labels on the right
        self.status_line = StatusLine(self.status, self.statusBar(), self.panel, ev)
        # the labels, by name (tests and benchmarks read them)
        self.stage_label, self.progress = self.status.stage_label, self.status.progress
        self.backend_label, self.device_label = self.status.backend_label, self.status.device_label
        self.state_label, self.triton_label = self.status.state_label, self.status.triton_label
        self.live = LiveRuns(self.live_action, self.panel, self.settings, c.can_submit, lambda: c.ready, c.run, self)
        self.live_timer = self.live.timer
        self.sweep_launcher = SweepLauncher(self, s, self.panel, c.can_submit, c.start_sweep)
        self.after_first_frame = AfterFirstFrame(self)
        # the user's signals the controller answers
        self.picker.kernelSelected.connect(c.select_kernel)
        self.picker.openFileRequested.connect(c.open_kernel_file)
        self.picker.reloadRequested.connect(c.open_kernel_file)
        self.panel.valuesChanged.connect(lambda _v: self.grid_pane.update_caption())
        self.panel.backendChanged.connect(self.grid_pane.show_backend)  # the placeholder says where Trace records
        for signal in (self.panel.valuesChanged, self.panel.backendChanged):  # a check of other values: stale
            signal.connect(lambda *_: self.run_views.on_values(self.session.kernel, self.panel.values(),
                                                                self.panel.backend()))
        self.panel.validityChanged.connect(lambda _ok: self.actions.refresh())
        self.plots.sweepPointClicked.connect(c.offer_sweep_point)

    def _commands(self) -> Commands:
        c = self.controller
        return Commands(
            run=c.run, set_live=lambda on: self.live.set_live(on), trace=c.trace, open_sweep=self.open_sweep_dialog,
            cancel=c.cancel, resume_sweep=c.resume_sweep, open_file=self._choose_kernel_file,
            export_plot=lambda: self.plots.export(self, lambda text: self.banner.show_message(text, "error",
                                                                                               topic="export")),
            export_grid=lambda: self.grid_pane.export(self),
            export_history=lambda: self.history_pane.ask_export(self),
            choose_timeout=lambda: choose_timeout(self, self.settings, self.banner, self.worker.set_timeout),
            choose_virtual_gpu=lambda: self.virtual_gpu.choose(),
            reset_layout=self.reset_layout, quit=self.close, state=c.actions, window_problem=lambda: c.trace_window()[1])

    def _connect_worker(self) -> None:
        c, wk = self.controller, self.worker
        wk.hello.connect(c.on_hello)
        wk.stateChanged.connect(c.on_state)
        wk.progress.connect(c.on_progress)
        wk.point.connect(c.on_point)
        wk.result.connect(c.on_result)
        wk.error.connect(c.on_error)
        wk.log.connect(c.on_log)
        self.grid.traceApplied.connect(c.on_trace_drawn)
        self.grid.traceFailed.connect(c.on_trace_failed)

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
            self.after_first_frame.start([self.history_pane.refresh, lambda: self.plots.sweep_view,
                                          self.grid.warm_up, freeze_startup_objects])

    def start_worker(self) -> None:
        if self.controller.closing or self.worker.started:
            return
        self.set_stage(translate("MainWindow", "starting worker…"), busy=True)
        self.worker.start()

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 (Qt's name)
        self.controller.closing = True
        self.after_first_frame.stop()
        self.history_pane.close()
        self.live_timer.stop()
        save_window(self, self.settings, live=self.live_action.isChecked(), kernel=self.session.kernel,
                    values=self.panel.values() if self.panel.kernel() is not None else None)
        self.worker.close()  # stops a running request and the process: nothing is left behind
        self.history_view.close()
        super().closeEvent(event)

    def reset_layout(self) -> None:
        self.docks.reset()

    def _reopen_user_file(self) -> None:
        """Open the shown kernel's user file again (a fresh worker runs its script anew)."""
        path = self.session.user_file()
        if path:
            self.controller.open_kernel_file(path)

    def _choose_kernel_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, translate("MainWindow", "Open kernel file"), "",
                                              translate("MainWindow", "Python files (*.py);;All files (*)"))
        if path:
            self.controller.open_kernel_file(path)

    # ------------------------------------------------------------------------------------------
    # what tests, benchmarks and app.gui drive: the controller's actions and the parts' state

    def select_kernel(self, name: str, values: dict[str, Any] | None = None) -> bool:
        """Show kernel ``name`` with ``values`` (default: the values last used with it)."""
        return self.controller.select_kernel(name, values)

    def run(self) -> int | None:
        """Run the current configuration (check + time); returns the request's generation."""
        return self.controller.run()

    def trace(self) -> int | None:
        """Record the current configuration's accesses; returns the generation."""
        return self.controller.trace()

    def start_sweep(self, axes: dict[str, list[Any]]) -> int | None:
        """Sweep ``axes`` (one or two parameters) with the panel's other values."""
        return self.controller.start_sweep(axes)

    def resume_sweep(self) -> int | None:
        return self.controller.resume_sweep()

    def cancel(self) -> None:
        self.controller.cancel()

    def trace_window(self) -> tuple[str | None, str]:
        """(the Programs field as a window text or None for all, why it is invalid or "")."""
        return self.controller.trace_window()

    def load_values(self, kernel: str, values: dict[str, Any], backend: str | None = None) -> bool:
        """Put a past configuration back into the parameter panel."""
        return self.controller.load_values(kernel, values, backend)

    def reload_run(self, run_id: int) -> bool:
        return self.controller.reload_run(run_id)

    def open_kernel_file(self, path: str) -> int | None:
        """Load (or reload) a user's kernel file in the worker."""
        return self.controller.open_kernel_file(path)

    def show_trace(self, tr: Trace) -> None:
        """Draw a recorded trace in the grid view (and link it to the source and the check)."""
        self.controller.show_trace(tr)

    def open_sweep_dialog(self) -> Any:
        """Open the (window-modal, non-blocking) sweep dialog; accepting it starts the sweep."""
        return self.sweep_launcher.open()

    @property
    def sweep_dialog(self) -> Any:
        return self.sweep_launcher.dialog

    @property
    def sweep_view(self) -> SweepView:
        return self.plots.sweep_view

    def export_history(self, path: str, fmt: str) -> int:
        """Write every run to ``path`` ("csv" or "json"); the number written (0 on failure, said)."""
        return self.history_pane.export(path, fmt)

    def set_backend(self, backend: str) -> None:
        self.events.publish(BackendSet(backend))

    def set_param_values(self, values: dict[str, Any]) -> None:
        self.events.publish(ValuesSet(dict(values)))

    def set_stage(self, text: str, fraction: float | None = None, busy: bool = False) -> None:
        self.events.publish(StageShown(text, fraction, busy))

    def show_status(self, text: str, ms: int) -> None:
        self.events.publish(StatusShown(text, ms))

    def stage_text(self) -> str:
        """What the progress label says now ("starting worker…", "running", "sweep point 2/5: …")."""
        return self.status.stage()

    def is_drawing(self) -> bool:
        return self.grid.is_loading()

    def _busy_kinds(self) -> set[str]:
        return self.controller.busy_kinds()

