"""Qt tests run offscreen: no display on CI, and no window may pop up on a developer's desktop.

The platform must be chosen before the first Qt import of the session, hence here, at import
time of the conftest (pytest imports it before any test module of this folder).
"""

import gc
import os

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")



@pytest.fixture(autouse=True)
def _delete_widgets_now():
    """After each test: close and delete every top-level widget now, then collect Python garbage.

    Left to deferred deletion, a widget's graphics items could be freed by Qt while a Python
    wrapper still pointed at them; a new item at the same address then met the stale wrapper
    (seen once on CI: ``'LabelItem' object has no attribute '_sizeHint'`` inside a later
    ``addItem``)."""
    yield
    from PySide6.QtCore import QCoreApplication, QEvent
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    if app is None:
        return
    for w in QApplication.topLevelWidgets():
        w.close()
        w.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    gc.collect()
