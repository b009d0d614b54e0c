"""The window's actions: Run, Live, Trace, Sweep…, Cancel, Resume sweep, the file and settings
actions; the toolbar (with the Programs field beside Trace) and the File and Run menus.

``WindowActions`` builds them on a ``QMainWindow`` (where their shortcuts work whatever has the
focus) and follows what may be done now: on each ``ActionsChanged`` it reads ``commands.state()``
(``app.controller.ActionState``) and enables the actions, the kernel list and the parameter panel.
What the actions *do* is the ``Commands`` given (the controller's, the window parts').
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QLabel, QLineEdit, QMainWindow, QMenu, QStyle, QWidget

from views import theme
from views.words import translate

from ..controller import ActionState
from ..events import ActionsChanged, KernelShown, ProgramsFieldFocused, ProgramsFieldSet, WindowEvents

__all__ = ["Commands", "ProgramsField", "WindowActions"]


@dataclass(frozen=True)
class Commands:
    """What each action does, and what may be done now."""

    run: Callable[[], Any]
    set_live: Callable[[bool], Any]
    trace: Callable[[], Any]
    open_sweep: Callable[[], Any]
    cancel: Callable[[], Any]
    resume_sweep: Callable[[], Any]
    open_file: Callable[[], Any]
    export_plot: Callable[[], Any]
    export_grid: Callable[[], Any]
    export_history: Callable[[], Any]
    choose_timeout: Callable[[], Any]
    choose_virtual_gpu: Callable[[], Any]
    reset_layout: Callable[[], Any]
    quit: Callable[[], Any]
    state: Callable[[], ActionState]  # what is possible now
    window_problem: Callable[[], str]  # why the Programs field is not a window of programs ("" if it is)


class ProgramsField(QLineEdit):
    """Which programs Trace records: empty = all; "A:B" linear ids; "x0:x1,y0:y1" a box."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("trace_window")
        self.setPlaceholderText(translate("MainWindow", "all"))
        self.setClearButtonEnabled(True)
        self.setMaximumWidth(130)
        self.setToolTip(translate("MainWindow",
            "Which programs Trace records (empty: all of them).\n"
            "A:B — program ids A to B−1 (e.g. 0:256)\n"
            "x0:x1,y0:y1 — a box of a 2-D grid (e.g. 0:8,0:4)\n"
            "The other programs do not run under the tracer; their elements show as not recorded."))

    def show_problem(self, why: str) -> None:
        """Frame the field in red, with ``why`` in its tooltip ("" clears both)."""
        self.setStyleSheet(f"QLineEdit {{ border: 2px solid {theme.FAIL}; }}" if why else "")
        self.setToolTip(self.toolTip().split("\n\n⚠")[0] + (f"\n\n⚠ {why}" if why else ""))


class WindowActions(QObject):
    """The actions of ``win``, the toolbar and the File and Run menus; ``view_menu`` is the View
    menu (the docks and layouts add theirs). ``inputs``: enabled only once the worker is up."""

    def __init__(self, win: QMainWindow, commands: Commands, events: WindowEvents, programs: ProgramsField,
                 inputs: Sequence[QWidget]) -> None:
        super().__init__(win)
        self._win, self._commands, self._inputs = win, commands, list(inputs)
        self.window_edit = programs
        c = commands
        self.run_action = self._action(translate("MainWindow", "Run"), c.run, "Ctrl+R", translate("MainWindow", "Run the kernel: check it and time it"),
                                       name="run")
        self.live_action = self._action(translate("MainWindow", "Live"), c.set_live, "Ctrl+L",
                                        translate("MainWindow", "Re-run automatically whenever a parameter changes"), checkable=True,
                                        name="live")
        self.trace_action = self._action(translate("MainWindow", "Trace"), c.trace, "Ctrl+T",
                                         translate("MainWindow", "Record which program touches which element"), name="trace")
        self.sweep_action = self._action(translate("MainWindow", "Sweep…"), c.open_sweep, "Ctrl+Shift+S",
                                         translate("MainWindow", "Run every combination of one or two parameters"), name="sweep")
        self.cancel_action = self._action(translate("MainWindow", "Cancel"), c.cancel, Qt.Key.Key_Escape,
                                          translate("MainWindow", "Stop the running request"), name="cancel")
        self.resume_action = self._action(translate("MainWindow", "Resume sweep"), c.resume_sweep, None,
                                          translate("MainWindow", "Run the points an interrupted sweep did not reach"),
                                          name="resume_sweep")
        self.open_action = self._action(translate("MainWindow", "Open kernel file…"), c.open_file, QKeySequence.StandardKey.Open,
                                        translate("MainWindow", "Load a Python file that registers Triton kernels"), name="open_file")
        self.export_plot_action = self._action(translate("MainWindow", "Export plot…"), c.export_plot, None,
                                               translate("MainWindow", "Save the throughput or sweep plot as PNG / SVG"),
                                               name="export_plot")
        self.export_grid_action = self._action(translate("MainWindow", "Export grid view…"), c.export_grid, None,
                                               translate("MainWindow", "Save the program grid and tile maps as PNG / SVG"),
                                               name="export_grid")
        self.export_history_action = self._action(translate("MainWindow", "Export history…"), c.export_history, None,
                                                  translate("MainWindow", "Save every run as CSV or JSON"), name="export_history")
        self.timeout_action = self._action(translate("MainWindow", "Run timeout…"), c.choose_timeout, None,
                                           translate("MainWindow", "How long a run may take before the worker is restarted"),
                                           name="timeout")
        # its text and tooltip say which GPU answers (``app.window.virtual_gpu``)
        self.virtual_gpu_action = self._action(translate("MainWindow", "Virtual GPU…"), c.choose_virtual_gpu,
                                               name="virtual_gpu")
        self.reset_layout_action = self._action(translate("MainWindow", "Reset layout"), c.reset_layout, None,
                                                translate("MainWindow", "Put every panel back where it started"), name="reset_layout")
        self.quit_action = self._action(translate("MainWindow", "Quit"), c.quit, QKeySequence.StandardKey.Quit,
                                        translate("MainWindow", "Close Tilescope"), name="quit")
        self._icons()
        self.toolbar = self._toolbar()
        self.view_menu = self._menus()
        programs.textChanged.connect(self._on_window_text)
        programs.returnPressed.connect(lambda: self.trace_action.isEnabled() and c.trace())
        events.subscribe(ActionsChanged, lambda _e: self.refresh())
        events.subscribe(ProgramsFieldSet, lambda e: programs.setText(e.text))
        events.subscribe(ProgramsFieldFocused, lambda _e: programs.setFocus())
        events.subscribe(KernelShown, lambda e: e.new and programs.clear())  # another kernel has another grid

    def _action(self, text: str, slot: Callable[..., Any], shortcut: Any = None, tip: str = "",
                checkable: bool = False, name: str = "") -> QAction:
        a = QAction(text, self._win)
        if shortcut is not None:
            a.setShortcut(QKeySequence(shortcut))
        if tip:
            a.setToolTip(tip + (f" ({a.shortcut().toString()})" if shortcut is not None else ""))
            a.setStatusTip(tip)
        a.setCheckable(checkable)
        a.setObjectName(name or re.sub(r"\W+", "_", text.lower()).strip("_"))
        (a.toggled if checkable else a.triggered).connect(lambda *args: slot(*args[:1]) if checkable else slot())
        self._win.addAction(a)  # shortcuts work wherever the focus is in the window
        return a

    def _icons(self) -> None:
        sp, style = QStyle.StandardPixmap, self._win.style()
        for a, pix in ((self.run_action, sp.SP_MediaPlay), (self.live_action, sp.SP_BrowserReload),
                       (self.trace_action, sp.SP_FileDialogContentsView), (self.sweep_action, sp.SP_FileDialogDetailedView),
                       (self.cancel_action, sp.SP_MediaStop), (self.resume_action, sp.SP_MediaSeekForward)):
            a.setIcon(style.standardIcon(pix))
        self.open_action.setIcon(theme.icon("open"))

    def _toolbar(self) -> Any:
        tb = self._win.addToolBar(translate("MainWindow", "Actions"))
        tb.setObjectName("toolbar_actions")
        tb.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        for a in (self.run_action, self.live_action, self.trace_action):
            tb.addAction(a)
        self.window_label = QLabel(" " + translate("MainWindow", "Programs:") + " ")
        self.window_label.setBuddy(self.window_edit)
        tb.addWidget(self.window_label)
        tb.addWidget(self.window_edit)
        for a in (self.sweep_action, self.cancel_action):
            tb.addAction(a)
        return tb

    def _menus(self) -> QMenu:
        mb = self._win.menuBar()
        m = mb.addMenu(translate("MainWindow", "&File"))
        for a in (self.open_action, None, self.export_plot_action, self.export_grid_action,
                  self.export_history_action, None, self.quit_action):
            m.addSeparator() if a is None else m.addAction(a)
        m = mb.addMenu(translate("MainWindow", "&Run"))
        for a in (self.run_action, self.live_action, self.trace_action, self.sweep_action, self.resume_action,
                  None, self.cancel_action, None, self.timeout_action, self.virtual_gpu_action):
            m.addSeparator() if a is None else m.addAction(a)
        return mb.addMenu(translate("MainWindow", "&View"))

    def _on_window_text(self, _text: str) -> None:
        self.window_edit.show_problem(self._commands.window_problem())
        self.refresh()

    def refresh(self) -> None:
        """Enable what may be done now; the tooltips of Run and Trace say why not."""
        a = self._commands.state()
        self.run_action.setEnabled(a.run)
        self.sweep_action.setEnabled(a.sweep)
        self.trace_action.setEnabled(a.trace)
        self.trace_action.setToolTip(translate("MainWindow", "Record which program touches which element") + " (Ctrl+T)"
                                     + (" — " + translate("MainWindow", "the Programs field is not a window of programs")
                                        if a.window_bad else ""))
        self.run_action.setToolTip(translate("MainWindow", "Run the kernel: check it and time it") + " (Ctrl+R)"
                                   + (f" — {a.run_blocked}" if a.run_blocked else ""))
        self.cancel_action.setEnabled(a.cancel)
        self.resume_action.setEnabled(a.resume)
        for w in self._inputs:
            w.setEnabled(a.inputs)
