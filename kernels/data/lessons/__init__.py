"""The lessons' data, GUI-safe (numpy and the standard library; no torch, no triton): what a
check answers (``result``), a learner's progress file (``progress``), and the lesson texts, hints
and starters on disk (``texts``). The Lessons panel (``views.lesson_view``) draws these; the
checks that run a learner's kernel (``kernels.lessons``) build on them."""

from __future__ import annotations

from .progress import (
    PROGRESS_FILE,
    LessonState,
    Progress,
    load_progress,
    next_lesson,
    progress_path,
    record_hint,
    record_result,
    save_progress,
)
from .result import STAGES, WRONG_KINDS, BudgetFigure, LessonInfo, LessonResult, WrongElements
from .texts import (
    LANGS,
    LESSONS_DIR,
    hints,
    lesson_dir,
    lesson_info,
    lesson_text,
    list_lessons,
    normalize_lang,
    solution_path,
    solution_text,
    starter_text,
    write_starter,
)

__all__ = ["LANGS", "LESSONS_DIR", "PROGRESS_FILE", "STAGES", "WRONG_KINDS", "BudgetFigure", "LessonInfo",
           "LessonResult", "LessonState", "Progress", "WrongElements", "hints", "lesson_dir", "lesson_info",
           "lesson_text", "list_lessons", "load_progress", "next_lesson", "normalize_lang", "progress_path",
           "record_hint", "record_result", "save_progress", "solution_path", "solution_text", "starter_text",
           "write_starter"]
