"""The real main window in the app tests: built on settings and history of its own folder, and
waited on while its event loop turns (a worker start, an answer drawn), never slept on.

Imported by the window tests as ``hostile`` is (``tests/app`` is on the path of its tests). A
module-scoped window with its worker stays each test file's own fixture: the files differ in what
the window starts with (its kernel, its size, Chinese, damaged settings)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hostile import poll
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from app.history import History
from app.main_window import MainWindow
from app.settings import Settings

__all__ = ["START_S", "make_window", "open_window", "pick", "wait_ready", "wait_until"]

START_S = 60  # a worker start is ~3 s here; CI machines can be much slower


def wait_until(pred, timeout: float = 30.0, what: str = "") -> None:
    """Turn the event loop in 20 ms steps until ``pred()`` holds; AssertionError naming ``what``
    after ``timeout`` seconds."""
    poll(pred, timeout, what, step=lambda: QTest.qWait(20))


def make_window(home: Path, **kwargs: Any) -> MainWindow:
    """A window whose settings and history live in ``home`` (not shown; its worker starting unless
    ``autostart=False``)."""
    return MainWindow(settings=Settings.load(home / "settings.json"), history=History.open(home / "history.db"),
                      **kwargs)


def open_window(qtbot, home: Path, size: tuple[int, int] | None = None) -> MainWindow:
    """A shown window on the settings and history in ``home``, without a worker (layouts, docks
    and menus need none), at ``size`` when given."""
    w = make_window(home, autostart=False)
    qtbot.addWidget(w)
    if size is not None:
        w.resize(*size)
    w.show()
    qtbot.waitExposed(w)
    return w


def wait_ready(win: MainWindow) -> None:
    """Wait for the worker's hello: Run is enabled."""
    wait_until(lambda: win.run_action.isEnabled(), START_S, "the worker's hello (Run enabled)")


def pick(qtbot, win: MainWindow, name: str) -> None:
    """Click a kernel in the picker list, as a person would, and wait until it is the session's."""
    lst = win.picker.list
    index = lst.model().index(win.picker.kernel_names().index(name), 0)
    lst.scrollTo(index)
    qtbot.mouseClick(lst.viewport(), Qt.MouseButton.LeftButton, pos=lst.visualRect(index).center())
    wait_until(lambda: win.session.kernel == name, 5, f"{name} selected")
