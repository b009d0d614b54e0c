"""View > Reset layout puts back every panel, the Advice dock too (it is built by the Advice card,
after the other docks): shown, tabbed with Compile, where it started."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6.QtWidgets")
pytest.importorskip("pytestqt")

from PySide6.QtCore import Qt  # noqa: E402
from real_window import open_window  # noqa: E402


def test_the_docks_include_the_advice_dock(qtbot, tmp_path):
    # breaks if the Advice dock is left out of the window's docks (Reset layout, the laptop tests'
    # dock walk and the keep-on-screen checks go over docks.all())
    w = open_window(qtbot, tmp_path)
    assert w.advice.dock in w.docks.all()
    w.close()


def test_reset_layout_brings_back_a_hidden_and_moved_advice_dock(qtbot, tmp_path):
    # breaks if View > Reset layout leaves the Advice dock hidden, floating, or where the user put it
    w = open_window(qtbot, tmp_path)
    advice = w.advice.dock
    tabbed = sorted(d.objectName() for d in w.tabifiedDockWidgets(advice))
    assert "dock_compile" in tabbed
    w.removeDockWidget(advice)
    w.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, advice)
    advice.show()
    assert w.dockWidgetArea(advice) == Qt.DockWidgetArea.LeftDockWidgetArea
    advice.toggleViewAction().trigger()  # hidden from the View menu
    assert not advice.isVisible()
    next(a for a in w.view_menu.actions() if a.text() == "Reset layout").trigger()
    assert advice.isVisible() and not advice.isFloating()
    assert w.dockWidgetArea(advice) == Qt.DockWidgetArea.RightDockWidgetArea
    assert sorted(d.objectName() for d in w.tabifiedDockWidgets(advice)) == tabbed
    w.close()
