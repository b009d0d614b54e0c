"""The window's side of the user settings (``app.settings``): its geometry and dock layout, the
values last used, and the run timeout dialog."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QByteArray, QCoreApplication
from PySide6.QtWidgets import QInputDialog, QMainWindow, QWidget

from ..settings import Settings

__all__ = ["ask_timeout", "choose_timeout", "restore_window", "save_now", "save_window"]

#: the window's size before the user's geometry is restored (the default dock sizes follow it)
DEFAULT_SIZE = (1600, 1000)


def restore_window(win: QMainWindow, settings: Settings, apply_default_sizes: Callable[[], Any]
                   ) -> tuple[QByteArray, str]:
    """Lay the window out by default, then restore the user's geometry and dock arrangement;
    returns the default arrangement (what Reset layout puts back) and, when the saved one could
    not be restored (damaged, or from an incompatible version), a sentence saying so ("" if
    none): the window then keeps the default."""
    win.resize(*DEFAULT_SIZE)
    apply_default_sizes()
    default = win.saveState()
    problems = []
    geo = settings.window_geometry_bytes
    if geo and not win.restoreGeometry(QByteArray(geo)):
        win.resize(*DEFAULT_SIZE)
        problems.append(QCoreApplication.translate("MainWindow", "window size"))
    state = settings.window_state_bytes
    if state and not win.restoreState(QByteArray(state)):
        win.restoreState(default)
        apply_default_sizes()
        problems.append(QCoreApplication.translate("MainWindow", "panel layout"))
    if not problems:
        return default, ""
    return default, QCoreApplication.translate(
        "MainWindow", "The saved {what} could not be restored (damaged settings): the default is used.").format(
            what=QCoreApplication.translate("MainWindow", " and ").join(problems))


def save_window(win: QMainWindow, settings: Settings, *, live: bool, kernel: str | None,
                values: dict[str, Any] | None) -> None:
    """Store the window's geometry and layout, the live switch and the shown kernel's values, and
    write the settings file (a read-only config folder must not stop the window from closing)."""
    settings.window_geometry_bytes = bytes(win.saveGeometry().data())
    settings.window_state_bytes = bytes(win.saveState().data())
    settings.live = live
    if kernel and values is not None:
        settings.remember(kernel, values)
    try:
        settings.save()
    except OSError as e:
        print(f"tilescope: could not save the settings: {e}", file=sys.stderr)


def save_now(settings: Settings, banner: Any) -> bool:
    """Write the settings file now; a failure goes to the window's banner (topic "settings")."""
    try:
        settings.save()
    except OSError as e:
        banner.show_message(QCoreApplication.translate(
            "MainWindow", "Could not save the settings in {path} ({why}); they are kept for this session only.").format(
                path=settings.path, why=e.strerror or e), "warning", topic="settings")
        return False
    return True


def ask_timeout(parent: QWidget, current: float) -> float | None:
    """Ask for the run timeout in seconds; None when the user cancels."""
    v, ok = QInputDialog.getDouble(parent, QCoreApplication.translate("MainWindow", "Run timeout"),
                                   QCoreApplication.translate("MainWindow", "Seconds a run or trace may take "
                                                              "before the worker is restarted:"),
                                   current, 1.0, 86400.0, 0)
    return float(v) if ok else None


def choose_timeout(parent: QWidget, settings: Settings, banner: Any, set_timeout: Callable[[float], Any]) -> None:
    """Run timeout…: ask, keep the answer in the settings (written now: a failure is said while
    the window is up, in ``banner``) and hand it to the worker (``set_timeout``)."""
    seconds = ask_timeout(parent, settings.timeout_s)
    if seconds is not None:
        settings.timeout_s = seconds
        save_now(settings, banner)
        set_timeout(seconds)
