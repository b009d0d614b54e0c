"""The Lessons panel docked beside the grid on a laptop (~340 px wide): the list, the statement and
the editor stack top to bottom, so the editor gets the panel's width instead of a sliver."""

from __future__ import annotations

from PySide6.QtCore import Qt

from views.lesson_view import LessonView


def test_a_narrow_panel_stacks_and_the_editor_gets_its_width(qtbot, on_screen, tmp_path):
    # breaks if, docked at 340 px, the editor were squeezed beside the list and the statement
    view = on_screen(LessonView(tmp_path / "work", tmp_path / "progress", lang="en"), 340, 700, exposed=True)
    qtbot.waitUntil(lambda: view._split.orientation() == Qt.Orientation.Vertical, timeout=2000)
    assert view.editor.width() >= 0.8 * view.width(), (view.editor.width(), view.width())
    view.resize(1366, 768)  # wide again: side by side, as before
    qtbot.waitUntil(lambda: view._split.orientation() == Qt.Orientation.Horizontal, timeout=2000)


def test_docked_on_a_laptop_the_panel_asks_for_no_more_than_the_dock(qtbot, on_screen, tmp_path):
    # breaks if a row of the panel (the file's name, Save, Open in external editor) makes it wider
    # than a 1366×768 window's Lessons dock (341 px less its scroll bar): the dock then scrolls
    # sideways and cuts the editor and the statement at the right
    view = on_screen(LessonView(tmp_path / "work", tmp_path / "progress", lang="en"), 320, 600, exposed=True)
    assert view.select_lesson(view.lesson_names()[0])
    view.editor.set_text(view.editor.text() + "\n# typed\n")  # the name gets "(unsaved)"
    qtbot.waitUntil(lambda: view._split.orientation() == Qt.Orientation.Vertical, timeout=2000)
    assert view.minimumSizeHint().width() <= 320, view.minimumSizeHint()
