"""The window's side of the user settings (``app.settings``): its geometry and dock layout, the
values last used, and the run timeout and virtual GPU dialogs."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QByteArray, QCoreApplication, QEvent, QObject, QRect, QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QInputDialog, QMainWindow, QWidget

from kernels.data.virtual_gpus import VIRTUAL_GPUS

from ..settings import Settings

__all__ = ["ask_timeout", "ask_virtual_gpu", "choose_timeout", "choose_virtual_gpu", "default_size", "fit_to_screen", "keep_on_screen", "restore_window",
           "save_now",
           "save_window", "screen_area"]

#: the window's size before the user's geometry is restored (the default dock sizes follow it),
#: on a screen that has room for it (``default_size``)
DEFAULT_SIZE = (1600, 1000)


#: platforms whose "screen" is a fixed stand-in (offscreen: 800×800), not a display to fit
_NO_REAL_SCREEN = ("offscreen", "minimal", "minimalegl")


def screen_area(win: QWidget) -> QRect | None:
    """The available geometry of the screen the window is on (the primary one before it is
    shown); None without a screen, or offscreen (tests and screenshots size their windows)."""
    if QGuiApplication.platformName() in _NO_REAL_SCREEN:
        return None
    screen = win.screen() or QGuiApplication.primaryScreen()
    return None if screen is None else screen.availableGeometry()


def default_size(win: QWidget) -> tuple[int, int]:
    """``DEFAULT_SIZE``, or the screen's available size where that is smaller (a 1366×768 laptop:
    the first start must not open a window larger than the screen)."""
    area = screen_area(win)
    if area is None:
        return DEFAULT_SIZE
    return min(DEFAULT_SIZE[0], area.width()), min(DEFAULT_SIZE[1], area.height())


def fit_to_screen(win: QWidget) -> bool:
    """Shrink the window to its screen's available geometry and move it inside, where it is
    larger or out of it (a geometry saved on a bigger screen); True when anything moved."""
    area = screen_area(win)
    if area is None:
        return False
    g = win.frameGeometry()
    extra_w, extra_h = g.width() - win.width(), g.height() - win.height()  # the frame a window manager adds
    w = min(win.width(), area.width() - extra_w)
    h = min(win.height(), area.height() - extra_h)
    moved = (w, h) != (win.width(), win.height())
    if moved:
        win.resize(w, h)
    g = win.frameGeometry()
    x = min(max(g.x(), area.x()), area.x() + area.width() - g.width())
    y = min(max(g.y(), area.y()), area.y() + area.height() - g.height())
    if (x, y) != (g.x(), g.y()):
        win.move(x, y)
        moved = True
    return moved


class _OnScreen(QObject):
    """Puts the window back inside its screen after a resize that *grew* it past the edge (a
    panel whose minimum grew, a trace's wider controls): later, once the layout has settled. A
    window the user drags partly off the screen is left where it was put (no Move is watched)."""

    def __init__(self, win: QWidget) -> None:
        super().__init__(win)
        self._win = win
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(lambda: fit_to_screen(self._win))
        win.installEventFilter(self)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        if obj is not self._win:
            return False
        grew = event.type() == QEvent.Type.Resize and (
            event.size().width() > event.oldSize().width() or event.size().height() > event.oldSize().height())
        if not (grew or event.type() == QEvent.Type.LayoutRequest) or self._win.isFullScreen():
            return False
        area = screen_area(self._win)
        g = self._win.frameGeometry()
        if area is None:
            return False
        too_big = g.width() > area.width() or g.height() > area.height()
        if too_big or (grew and not area.contains(g)):  # a layout pass alone never moves the window
            self._timer.start()
        return False


def keep_on_screen(win: QWidget) -> QObject:
    """Keep ``win`` within its screen's available geometry from now on (see ``_OnScreen``)."""
    return _OnScreen(win)


def restore_window(win: QMainWindow, settings: Settings, apply_default_sizes: Callable[[], Any]
                   ) -> tuple[QByteArray, str]:
    """Lay the window out by default, then restore the user's geometry and dock arrangement;
    returns the default arrangement (what Reset layout puts back) and, when the saved one could
    not be restored (damaged, or from an incompatible version), a sentence saying so ("" if
    none): the window then keeps the default."""
    win.resize(*default_size(win))
    area = screen_area(win)
    if area is not None:
        win.move(area.topLeft())
    apply_default_sizes()
    default = win.saveState()
    problems = []
    geo = settings.window_geometry_bytes
    if geo and not win.restoreGeometry(QByteArray(geo)):
        win.resize(*default_size(win))
        problems.append(QCoreApplication.translate("MainWindow", "window size"))
    fit_to_screen(win)  # a geometry saved on a larger screen
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


def ask_virtual_gpu(parent: QWidget, current: str) -> str | None:
    """Ask which virtual GPU answers a script's device checks (``current`` preselected); its key
    (``sm_80``), or None when the user cancels."""
    keys = list(VIRTUAL_GPUS)
    labels = [VIRTUAL_GPUS[k].label for k in keys]
    label, ok = QInputDialog.getItem(
        parent, QCoreApplication.translate("MainWindow", "Virtual GPU"),
        QCoreApplication.translate("MainWindow", "Without a GPU, a script's device checks (capability, SM count, "
                                   "shared memory) are answered as this GPU:"),
        labels, keys.index(current) if current in keys else 0, False)
    return keys[labels.index(label)] if ok and label in labels else None


def choose_virtual_gpu(parent: QWidget, settings: Settings, banner: Any, current: str,
                       restart: Callable[[str], Any]) -> None:
    """Virtual GPU…: ask, keep the answer in the settings (written now, a failure said in
    ``banner``) and, when it is not ``current`` (the GPU the worker answers as now), hand it to
    ``restart`` (a worker started with it)."""
    arch = ask_virtual_gpu(parent, current)
    if arch is None:
        return
    settings.virtual_gpu = arch
    save_now(settings, banner)
    if arch != current:
        restart(arch)
