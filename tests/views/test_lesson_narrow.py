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


def test_docked_the_statement_shows_its_first_sentence_under_the_title(qtbot, on_screen, tmp_path):
    # breaks if the statement's title is drawn at Markdown's own heading size again: docked on a
    # laptop (320 px wide, a fifth of the height) the box showed the title on two lines and nothing
    # of the statement under it
    from PySide6.QtGui import QTextFormat

    view = on_screen(LessonView(tmp_path / "work", tmp_path / "progress", lang="en"), 320, 600, exposed=True)
    assert view.select_lesson(view.lesson_names()[0])
    qtbot.waitUntil(lambda: view._split.orientation() == Qt.Orientation.Vertical, timeout=2000)
    doc = view.statement.document()
    block, headings = doc.begin(), []
    while block.isValid():
        if block.blockFormat().headingLevel():
            frag = block.begin().fragment()
            headings.append(frag.charFormat().property(QTextFormat.Property.FontSizeAdjustment) or 0)
        block = block.next()
    assert headings and max(headings) <= 1, headings
    title = doc.begin()
    first_text = title.next()
    while first_text.isValid() and not first_text.text().strip():
        first_text = first_text.next()
    layout = doc.documentLayout()
    bottom_of_first_line = layout.blockBoundingRect(first_text).top() + view.statement.fontMetrics().height()
    assert bottom_of_first_line <= view.statement.viewport().height(), "only the title is on screen"
