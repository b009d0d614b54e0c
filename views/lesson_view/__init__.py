"""The Lessons panel: learn Triton's block/grid mapping by fixing small kernels.

``LessonView`` (``panel``) lists the lessons with the learner's progress, shows a lesson's
statement and hints, edits the learner's file (``editor``: ``LessonEditor``) and draws what a
check answered (``result_view``: ``LessonResultView``). It never runs a check itself: the app's
controller runs ``kernels.lessons.check_lesson`` in its worker on ``checkRequested`` and calls
``show_result``. ``python -m views.lesson_view`` opens it alone, with a stand-in for the worker.
"""

from __future__ import annotations

from .editor import LessonEditor
from .panel import LessonView
from .result_view import LessonResultView

__all__ = ["LessonEditor", "LessonResultView", "LessonView"]
