"""The Lessons panel in the window: its work folder (the learner's files and progress, under the
data directory), its check running in the worker, and its traces shown in the grid view."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from views.lesson_view import LessonView

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


def connect_lessons(win: Any) -> None:
    """Check → the controller (worker); "show in grid" → the grid view, raised."""
    lv: LessonView = win.lessons
    lv.checkRequested.connect(lambda name, path, lang: win.controller.check_lesson(name, path, lang))

    def show_in_grid(trace: Any) -> None:
        win.draw_trace(trace)
        win.grid_stack.setCurrentWidget(win.grid)

    lv.showInGridRequested.connect(show_in_grid)
