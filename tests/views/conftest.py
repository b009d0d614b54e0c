"""Qt tests run offscreen: no display on CI, and no window may pop up on a developer's desktop.

The platform must be chosen before the first Qt import of the session, hence here, at import
time of the conftest (pytest imports it before any test module of this folder).
"""

import gc
import os
import sys

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


@pytest.fixture(autouse=True)
def _collect_garbage():
    """After each test, collect Python garbage: a closed view's wrappers, kept alive by reference
    cycles, could otherwise outlive their Qt objects into the next test, where a new item at the
    same address met the stale wrapper (seen once on CI: ``'LabelItem' object has no attribute
    '_sizeHint'`` inside a later ``addItem``). Deleting the widgets here instead crashed Qt.
    A tooltip a test left shown is hidden too: offscreen, a tooltip under the pointer takes the
    next simulated mouse move."""
    yield
    if "PySide6.QtWidgets" in sys.modules:
        from PySide6.QtWidgets import QApplication, QToolTip

        if QApplication.instance() is not None:
            QToolTip.hideText()  # starts a hide timer; the label itself is hidden now:
            for w in QApplication.topLevelWidgets():
                if w.objectName() == "qtooltip_label" and w.isVisible():
                    w.hide()
            QApplication.processEvents()
    gc.collect()


@pytest.fixture
def on_screen(qtbot):
    """``on_screen(widget, width, height)``: the widget as a test looks at it — owned by ``qtbot``
    (closed after the test), at that size, shown; with ``exposed=True`` also mapped on the
    (offscreen) screen before the test goes on, for tests that read painted positions."""

    def show(widget, width: int, height: int, *, exposed: bool = False):
        qtbot.addWidget(widget)
        widget.resize(width, height)
        widget.show()
        if exposed:
            qtbot.waitExposed(widget)
        return widget

    return show
