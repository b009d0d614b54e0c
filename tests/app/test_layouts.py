"""The window's layouts and status bar, without a worker: the panel arrangement kept between
sessions, named layouts saved and restored from the View menu, Reset layout, a damaged saved
layout falling back to the default, and a long status message that stops short of the labels on
the right."""

from __future__ import annotations

import base64
import json

import numpy as np
import pytest

pytest.importorskip("PySide6.QtWidgets")
pytest.importorskip("pytestqt")

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtWidgets import QDialogButtonBox, QLineEdit  # noqa: E402
from real_window import open_window  # noqa: E402

from app.main_window import MainWindow  # noqa: E402


def arrangement(w: MainWindow) -> dict[str, tuple]:
    """Per dock: shown, its area, the docks tabbed with it (what a person sees of the layout)."""
    return {d.objectName(): (d.isVisible(), w.dockWidgetArea(d).name,
                             sorted(t.objectName() for t in w.tabifiedDockWidgets(d)))
            for d in w.docks.all()}


def view_action(w: MainWindow, text: str):
    return next(a for a in w.view_menu.actions() if a.text() == text)


def rearrange(w: MainWindow) -> None:
    """Hide the correctness panel (its View menu toggle) and tab the source with the plots."""
    view_action(w, "Correctness").trigger()
    w.tabifyDockWidget(w.docks.plots, w.docks.source)


def test_the_arrangement_is_kept_from_one_session_to_the_next(qtbot, tmp_path):
    # breaks if closing and reopening Tilescope loses where the user put the panels
    w = open_window(qtbot, tmp_path)
    default = arrangement(w)
    rearrange(w)
    moved = arrangement(w)
    assert moved != default and not moved["dock_correctness"][0]
    assert "dock_source" in moved["dock_plots"][2]
    w.close()
    w2 = open_window(qtbot, tmp_path)
    assert arrangement(w2) == moved
    w2.close()


def test_reset_layout_puts_back_the_default(qtbot, tmp_path):
    # breaks if View > Reset layout leaves a panel hidden or tabbed where the user put it
    w = open_window(qtbot, tmp_path)
    default = arrangement(w)
    rearrange(w)
    view_action(w, "Reset layout").trigger()
    assert arrangement(w) == default
    assert all(d.isVisible() for d in w.docks.all())


def test_a_named_layout_is_saved_from_the_view_menu_and_restored(qtbot, tmp_path):
    # breaks if Save layout as… does not keep the arrangement under its name (also on disk), or
    # Restore layout does not bring it back after a reset
    w = open_window(qtbot, tmp_path)
    rearrange(w)
    moved = arrangement(w)
    view_action(w, "Save layout as…").trigger()
    dlg = w.layouts.dialog
    assert dlg is not None and dlg.isVisible()
    qtbot.keyClicks(dlg.findChild(QLineEdit), "reading")
    ok = dlg.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Ok)
    qtbot.mouseClick(ok, Qt.MouseButton.LeftButton)
    assert "saved" in w.statusBar().currentMessage()
    stored = json.loads((tmp_path / "settings.json").read_text())
    assert list(stored["layouts"]) == ["reading"]

    view_action(w, "Reset layout").trigger()
    assert arrangement(w) != moved
    restore = [a for a in w.layouts.restore_menu.actions() if a.text() == "reading"]
    assert len(restore) == 1
    restore[0].trigger()
    assert arrangement(w) == moved
    assert "restored" in w.statusBar().currentMessage()

    # another session lists it too, and deleting it forgets it
    w.close()
    w2 = open_window(qtbot, tmp_path)
    assert [a.text() for a in w2.layouts.restore_menu.actions()] == ["reading"]
    next(a for a in w2.layouts.delete_menu.actions() if a.text() == "reading").trigger()
    assert not w2.layouts.restore_menu.actions()[0].isEnabled()  # "(no saved layouts)"
    assert json.loads((tmp_path / "settings.json").read_text())["layouts"] == {}


def test_a_damaged_saved_layout_gives_the_default_and_says_so(qtbot, tmp_path):
    # breaks if a corrupt window state in the settings crashes the start, leaves panels missing,
    # or passes silently
    reference = open_window(qtbot, tmp_path / "fresh")
    default = arrangement(reference)
    reference.close()
    junk = base64.b64encode(b"\x00\x00\x00\xffnot a window state at all" * 3).decode()
    (tmp_path / "settings.json").write_text(json.dumps({"window_state": junk, "window_geometry": junk,
                                                        "layouts": {"broken": junk}}))
    w = open_window(qtbot, tmp_path)
    assert arrangement(w) == default
    assert "could not be restored" in w.statusBar().currentMessage()
    rearrange(w)
    next(a for a in w.layouts.restore_menu.actions() if a.text() == "broken").trigger()
    assert arrangement(w) == default
    assert "could not be restored" in w.statusBar().currentMessage()


def _dark_columns(img, x0: int, x1: int) -> int:
    """How many columns between x0 and x1 hold text-dark pixels."""
    a = np.array([[img.pixelColor(x, y).lightness() for x in range(x0, x1)] for y in range(img.height())])
    return int((a < 110).any(axis=0).sum())


def test_a_long_status_message_stops_before_the_backend_label(qtbot, tmp_path):
    # breaks if a long message is drawn into "backend: …" (unreadable, both of them), or under a
    # progress bar shown meanwhile, at the 1366×768 of a laptop
    w = open_window(qtbot, tmp_path)
    w.resize(1366, 768)
    qtbot.waitUntil(lambda: w.width() == 1366)
    w.set_backend("interpreter")
    w.set_stage("sweep point 3/64", 0.3)
    long = "vector_add: PASS · 12.34 ms (interpreter wall clock)  —  " + "num_warps has no effect; " * 12
    w.show_status(long, 60000)
    bar = w.statusBar()
    img = bar.grab().toImage()
    backend = w.backend_label.geometry()
    assert backend.left() > 700 and w.backend_label.isVisible()
    assert bar.shown_message().endswith("…") and bar.shown_message() != long
    # the gap before the label is empty, and the text runs up to near it
    assert _dark_columns(img, backend.left() - 12, backend.left() - 1) == 0
    assert _dark_columns(img, backend.left() - 80, backend.left() - 16) > 20
    # and the message starts right of the progress bar, which stays visible
    progress = w.progress.geometry()
    assert w.progress.isVisible() and bar.message_rect().left() > progress.right()
