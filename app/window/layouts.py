"""The window's layouts: the arrangement of its panels (docks, tabs, sizes) as ``QMainWindow``
saves it, kept between sessions and by name.

- At start the last session's geometry and arrangement come back (``app.window.settings``
  stores them on close); a damaged saved state leaves the default in place and the status bar
  says so.
- View > Save layout as… stores the arrangement under a name (``Settings.layouts``); View >
  Restore layout lists the saved ones; View > Delete layout forgets one; View > Reset layout puts
  back the default one (every panel shown, where it starts, sized for the window).
"""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QObject
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QInputDialog, QLineEdit, QMainWindow, QMenu

from ..settings import Settings
from .docks import Docks
from .settings import keep_on_screen, restore_window, save_now
from .widgets import MessageBanner

__all__ = ["Layouts"]

#: how long the status bar shows what a layout action did (ms)
STATUS_MS = 10000


class Layouts(QObject):
    """Adds the layout actions to ``menu`` (after the docks' toggles) and restores the saved
    arrangement at start (``restore``). ``win`` is the main window; ``banner`` says when the
    settings cannot be written; ``docks`` is ``app.window.docks.Docks``."""

    def __init__(self, win: QMainWindow, settings: Settings, docks: Docks, menu: QMenu, reset_action: QAction,
                 banner: MessageBanner) -> None:
        super().__init__(win)
        self._win, self._settings, self._docks, self._banner = win, settings, docks, banner
        self.dialog: QInputDialog | None = None
        menu.addSeparator()
        self.save_action = QAction(self.tr("Save layout as…"), win)
        self.save_action.setObjectName("save_layout")
        self.save_action.setStatusTip(self.tr("Keep this arrangement of the panels under a name"))
        self.save_action.triggered.connect(self.ask_name)
        menu.addAction(self.save_action)
        self.restore_menu = menu.addMenu(self.tr("Restore layout"))
        self.restore_menu.setObjectName("restore_layout_menu")
        self.delete_menu = menu.addMenu(self.tr("Delete layout"))
        self.delete_menu.setObjectName("delete_layout_menu")
        menu.addAction(reset_action)
        self._fill_menus()

    # -- start-up ------------------------------------------------------------------------------
    def restore(self) -> bool:
        """Restore the last session's geometry and arrangement (and note the default one for
        Reset layout); False, with a status message, when the saved state was damaged."""
        default, problem = restore_window(self._win, self._settings, self._docks.apply_default_sizes)
        self._docks.default_state = default
        self._on_screen = keep_on_screen(self._win)  # and never past the screen's edge after that

        if problem:
            self._status(problem, 20000)
        return not problem

    # -- named layouts -------------------------------------------------------------------------
    def names(self) -> list[str]:
        return sorted(self._settings.layouts, key=str.casefold)

    def ask_name(self) -> QInputDialog:
        """Ask for a name (a window-modal dialog that does not block); OK saves the layout."""
        dlg = QInputDialog(self._win)
        dlg.setObjectName("save_layout_dialog")
        dlg.setWindowTitle(self.tr("Save layout"))
        dlg.setLabelText(self.tr("Name of this layout:"))
        dlg.setInputMode(QInputDialog.InputMode.TextInput)
        dlg.setTextEchoMode(QLineEdit.EchoMode.Normal)
        dlg.textValueSelected.connect(self.save_as)
        dlg.finished.connect(lambda _r: dlg.deleteLater())
        dlg.destroyed.connect(lambda *_: setattr(self, "dialog", None))
        self.dialog = dlg
        dlg.open()
        return dlg

    def save_as(self, name: str) -> bool:
        """Store the current arrangement as ``name`` (replacing one of that name)."""
        name = name.strip()
        if not name:
            self._status(self.tr("A layout needs a name: nothing was saved."))
            return False
        replaced = name in self._settings.layouts
        self._settings.layouts[name] = bytes(self._win.saveState().toBase64().data()).decode("ascii")
        self._fill_menus()
        save_now(self._settings, self._banner)
        self._status((self.tr("Layout “{name}” replaced.") if replaced else self.tr("Layout “{name}” saved.")).format(
            name=name))
        return True

    def restore_named(self, name: str) -> bool:
        """Arrange the panels as layout ``name``; a damaged one leaves the default, said."""
        text = self._settings.layouts.get(name)
        if text is None:
            return False
        state = QByteArray.fromBase64(text.encode("ascii"))
        if state.isEmpty() or not self._win.restoreState(state):
            self.reset()
            self._status(self.tr("Layout “{name}” could not be restored (damaged): the default layout is shown.")
                         .format(name=name))
            return False
        self._status(self.tr("Layout “{name}” restored.").format(name=name))
        return True

    def delete(self, name: str) -> bool:
        if self._settings.layouts.pop(name, None) is None:
            return False
        self._fill_menus()
        save_now(self._settings, self._banner)
        self._status(self.tr("Layout “{name}” deleted.").format(name=name))
        return True

    def reset(self) -> None:
        """The default arrangement: every panel shown, where it starts, at its default size."""
        self._docks.reset()

    # -- internals -----------------------------------------------------------------------------
    def _fill_menus(self) -> None:
        names = self.names()
        for menu, slot in ((self.restore_menu, self.restore_named), (self.delete_menu, self.delete)):
            menu.clear()
            for name in names:
                a = menu.addAction(name)
                a.setData(name)
                a.triggered.connect(lambda _=False, n=name, f=slot: f(n))
            if not names:
                none = menu.addAction(self.tr("(no saved layouts)"))
                none.setEnabled(False)

    def _status(self, text: str, ms: int = STATUS_MS) -> None:
        self._win.statusBar().showMessage(text, ms)

