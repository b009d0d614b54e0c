"""The window's panels as dock widgets, so ``saveState``/``restoreState`` keep the user's
arrangement: where each panel sits by default, how big, and putting them all back."""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QCoreApplication, Qt
from PySide6.QtWidgets import QDockWidget, QFrame, QMainWindow, QMenu, QScrollArea, QWidget

from .settings import DEFAULT_SIZE, screen_area

__all__ = ["Docks", "compact_screen"]


def compact_screen(win: QMainWindow) -> bool:
    """The window's screen has less room than the default window (``settings.DEFAULT_SIZE``)."""
    area = screen_area(win)
    return area is not None and (area.width() < DEFAULT_SIZE[0] or area.height() < DEFAULT_SIZE[1])

_L, _R, _B = (Qt.DockWidgetArea.LeftDockWidgetArea, Qt.DockWidgetArea.RightDockWidgetArea,
              Qt.DockWidgetArea.BottomDockWidgetArea)


class Docks:
    """Kernels and parameters on the left, plots and history (tabbed with compile facts) on the
    right, source and correctness along the bottom; each has a toggle in ``menu``.

    The left column runs the full height; the bottom strip runs under the grid and the right
    column. The correctness panel (a form beside an error map) is wide and short, so it sits in
    the bottom strip next to the source; the right column keeps the plots and the history. At
    1600 px the grid then has room for three 128-wide tile maps side by side."""

    def __init__(self, win: QMainWindow, menu: QMenu, *, kernels: QWidget, params: QWidget, plots: QWidget,
                 history: QWidget, compile_facts: QWidget, source: QWidget, correctness: QWidget,
                 lessons: QWidget | None = None) -> None:
        self._win = win
        self._menu = menu
        win.setCorner(Qt.Corner.TopLeftCorner, _L)
        win.setCorner(Qt.Corner.BottomLeftCorner, _L)
        win.setCorner(Qt.Corner.TopRightCorner, _R)
        win.setCorner(Qt.Corner.BottomRightCorner, _B)
        self.kernels = self._dock(QCoreApplication.translate("MainWindow", "Kernels"), "dock_kernels", kernels, _L)
        self.params = self._dock(QCoreApplication.translate("MainWindow", "Parameters"), "dock_params", params, _L)
        self.plots = self._dock(QCoreApplication.translate("MainWindow", "Throughput / Sweep"), "dock_plots", plots, _R)
        self.history = self._dock(QCoreApplication.translate("MainWindow", "History"), "dock_history", history, _R)
        self.compile = self._dock(QCoreApplication.translate("MainWindow", "Compile"), "dock_compile", compile_facts, _R)
        self.source = self._dock(QCoreApplication.translate("MainWindow", "Source"), "dock_source", source, _B)
        self.correctness = self._dock(QCoreApplication.translate("MainWindow", "Correctness"), "dock_correctness",
                                      correctness, _B, scroll=True)
        win.splitDockWidget(self.kernels, self.params, Qt.Orientation.Vertical)
        win.splitDockWidget(self.plots, self.history, Qt.Orientation.Vertical)
        win.tabifyDockWidget(self.history, self.compile)
        self.lessons = (self._dock(QCoreApplication.translate("MainWindow", "Lessons"), "dock_lessons", lessons, _R,
                                   scroll=True)
                        if lessons is not None else None)
        if self.lessons is not None:
            win.tabifyDockWidget(self.compile, self.lessons)
        #: a screen smaller than the default window (a 1366×768 laptop): no strip under the grid —
        #: source and correctness join the right column's tabs, so the grid has the full height
        self.compact = compact_screen(win)
        if self.compact:
            win.tabifyDockWidget(self.compile if self.lessons is None else self.lessons, self.source)
            win.tabifyDockWidget(self.source, self.correctness)
        else:
            win.splitDockWidget(self.source, self.correctness, Qt.Orientation.Horizontal)
        if self.lessons is not None:  # a lesson brought to the front gets most of the column's height
            # (on the larger screen too: at 1600x1000 its editor was under the fold of a 220 px dock)
            self.lessons.visibilityChanged.connect(self._lessons_shown)
        self.history.raise_()
        #: docks other parts of the window made (the Advice card's): shown and put back by Reset too
        self._added: list[QDockWidget] = []
        #: the arrangement Reset layout puts back (set once the window has its default sizes)
        self.default_state = QByteArray()

    def _dock(self, title: str, name: str, widget: QWidget, area: Qt.DockWidgetArea,
              scroll: bool = False) -> QDockWidget:
        d = QDockWidget(title, self._win)
        d.setObjectName(name)  # saveState/restoreState find docks by object name
        if scroll:  # a panel with a tall minimum scrolls instead of forcing the window taller
            area_w = QScrollArea()
            area_w.setWidgetResizable(True)
            area_w.setFrameShape(QFrame.Shape.NoFrame)
            area_w.setWidget(widget)
            widget = area_w
        d.setWidget(widget)
        d.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable
                      | QDockWidget.DockWidgetFeature.DockWidgetFloatable
                      | QDockWidget.DockWidgetFeature.DockWidgetClosable)
        self._win.addDockWidget(area, d)
        self._menu.addAction(d.toggleViewAction())
        return d

    def _lessons_shown(self, visible: bool) -> None:
        if visible and self.lessons is not None and not self.lessons.isFloating():
            h = self._win.height()
            self._win.resizeDocks([self.plots, self.lessons], [int(h * 0.22), int(h * 0.78)], Qt.Orientation.Vertical)

    def add(self, dock: QDockWidget) -> None:
        """Count ``dock``, made and placed elsewhere (the Advice card's), among the window's
        docks, before the default arrangement is noted: Reset layout puts it back and shows it."""
        self._added.append(dock)

    def all(self) -> list[QDockWidget]:
        docks = [self.kernels, self.params, self.plots, self.correctness, self.source, self.history, self.compile]
        return docks + ([self.lessons] if self.lessons is not None else []) + self._added

    def apply_default_sizes(self) -> None:
        win = self._win
        if self.compact:
            w, h = win.width(), win.height()
            win.resizeDocks([self.kernels], [int(w * 0.16)], Qt.Orientation.Horizontal)
            win.resizeDocks([self.plots], [int(w * 0.25)], Qt.Orientation.Horizontal)
            win.resizeDocks([self.kernels, self.params], [int(h * 0.3), int(h * 0.7)], Qt.Orientation.Vertical)
            win.resizeDocks([self.plots, self.history], [int(h * 0.45), int(h * 0.55)], Qt.Orientation.Vertical)
            return
        w, h = max(win.width(), 1200), max(win.height(), 800)
        win.resizeDocks([self.kernels], [int(w * 0.17)], Qt.Orientation.Horizontal)
        win.resizeDocks([self.plots], [int(w * 0.3)], Qt.Orientation.Horizontal)
        win.resizeDocks([self.kernels, self.params], [int(h * 0.3), int(h * 0.7)], Qt.Orientation.Vertical)
        win.resizeDocks([self.plots, self.history], [int(h * 0.38), int(h * 0.3)], Qt.Orientation.Vertical)
        win.resizeDocks([self.source], [int(h * 0.29)], Qt.Orientation.Vertical)
        win.resizeDocks([self.source, self.correctness], [int(w * 0.4), int(w * 0.43)], Qt.Orientation.Horizontal)

    def reset(self) -> None:
        """Put every panel back where it started, shown, at its default size."""
        if not self.default_state.isEmpty():
            self._win.restoreState(self.default_state)
        for d in self.all():
            d.show()
        self.apply_default_sizes()
