"""The Lessons panel over a damaged progress file: it opens, says the progress was damaged,
and a check's result is shown even where the progress cannot be saved.

If these fail: a learner whose lessons-progress.json was damaged sees the panel fail to open
(a RecursionError/ValueError traceback), or sees no word about their lost progress, or a check
raises in the slot when a folder sits in the file's place.
"""

from __future__ import annotations

from kernels.data.lessons.progress import progress_path
from kernels.data.lessons.result import LessonResult
from kernels.data.lessons.texts import list_lessons
from views.lesson_view import LessonView

NAME = list_lessons()[0].name


def test_a_damaged_progress_file_is_said_in_the_panel(on_screen, tmp_path):
    work, prog = tmp_path / "work", tmp_path / "progress"
    prog.mkdir()
    progress_path(prog).write_text("[" * 200_000 + "]" * 200_000)
    view = on_screen(LessonView(work, prog, lang="en"), 1366, 768)  # was: RecursionError
    text = view.status.text()
    assert "lesson progress" in text and "nested too deeply" in text, text
    view.show_result(LessonResult(name=NAME, passed=True, message="Passed"))
    assert view.result_view.state() == "result"
    assert view.status.text() == ""  # saved: the message is gone


def test_a_check_where_the_progress_cannot_be_saved_is_shown_and_said(on_screen, tmp_path):
    work, prog = tmp_path / "work", tmp_path / "progress"
    progress_path(prog).mkdir(parents=True)  # a folder in the file's place
    view = on_screen(LessonView(work, prog, lang="en"), 1366, 768)
    assert "not a regular file" in view.status.text()
    view.show_result(LessonResult(name=NAME, passed=True, message="Passed"))  # was: IsADirectoryError in the slot
    assert view.result_view.state() == "result"
    assert "could not be saved" in view.status.text(), view.status.text()
