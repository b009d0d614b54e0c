"""The Lessons panel in the window: its work folder (the learner's files and progress, under the
data directory), its check running in the worker, and its traces shown in the grid view."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from views.lesson_view import LessonView

from ..events import LessonChecked, LessonCheckFailed, WindowEvents
from ..paths import data_dir

__all__ = ["make_lesson_view", "connect_lessons"]


def make_lesson_view() -> LessonView:
    work = data_dir(create=False) / "lessons"
    try:
        work.mkdir(parents=True, exist_ok=True)
    except OSError:  # the data folder cannot be created (the banner says so): lessons work from /tmp
        import tempfile

        work = Path(tempfile.gettempdir()) / f"tilescope-lessons-{os.getuid() if hasattr(os, 'getuid') else 0}"
    return LessonView(str(work), str(work))


def connect_lessons(lessons: LessonView, events: WindowEvents, check: Callable[[str, str, str], Any],
                    show_in_grid: Callable[[Any], Any]) -> None:
    """Check → ``check(name, path, lang)`` (the controller's: the worker runs it), its answer
    (``LessonChecked`` / ``LessonCheckFailed``) → the panel; "show in grid" → ``show_in_grid``."""
    lessons.checkRequested.connect(lambda name, path, lang: check(name, path, lang))
    lessons.showInGridRequested.connect(show_in_grid)
    events.subscribe(LessonChecked, lambda e: lessons.show_result(e.result))
    events.subscribe(LessonCheckFailed, lambda e: lessons.show_check_error(e.message))
