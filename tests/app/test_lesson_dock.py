"""The Lessons dock brought to the front gets most of its column's height, on a laptop screen and
on a larger one alike: its editor must be on screen to be used."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6.QtWidgets")
pytest.importorskip("pytestqt")

from real_window import open_window  # noqa: E402


def test_a_lesson_brought_forward_takes_most_of_the_column(qtbot, tmp_path):
    # breaks if the docked lesson keeps the tab group's share under the plots (at 1600x1000 it had
    # 220 px: the editor below the fold, only its file name on screen)
    w = open_window(qtbot, tmp_path, (1600, 1000))
    w.docks.history.raise_()
    w.docks.lessons.show()
    w.docks.lessons.raise_()
    column = lambda: w.docks.lessons.height() + w.docks.plots.height()  # noqa: E731
    qtbot.waitUntil(lambda: w.docks.lessons.height() >= 0.6 * column(), timeout=5000)
    assert w.lessons.select_lesson(w.lessons.lesson_names()[0])
    editor = w.lessons.editor
    qtbot.waitUntil(lambda: editor.isVisible() and editor.height() >= 100, timeout=5000)
    w.close()
