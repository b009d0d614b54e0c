"""Lessons: learn Triton's block/grid mapping by fixing small kernels, checked from their traces.

Importing this package imports neither torch nor triton (the GUI lists lessons, shows texts and
hints, keeps progress and draws a ``LessonResult``); ``check_lesson`` loads them when called, and
belongs in the worker process.

- ``list_lessons() -> list[LessonInfo]``; ``lesson_info(name)``: by name, folder or number;
- ``lesson_text(name, lang="en") -> str`` (Markdown), ``hints(name, lang="en") -> list[str]``;
  languages ``"en"`` and ``"zh_CN"`` (``"zh"``, ``"zh-CN"`` … are read as ``"zh_CN"``);
- ``starter_text(name)``, ``write_starter(name, directory, overwrite=False) -> Path``: the file
  the learner edits; ``solution_path(name)``, ``solution_text(name)``: the reference solution;
- ``check_lesson(name, path, lang="en", cancel=None) -> LessonResult``;
- progress: ``load_progress(directory)``, ``save_progress(directory, progress)``,
  ``record_result(progress, result)``, ``record_hint(progress, name, shown)``,
  ``next_lesson(progress, names)``.

The learner's file is a plain Triton script: a ``@triton.jit`` kernel and ``launch(...)``, which
the check calls with CPU tensors (outputs filled with NaN) and which launches the kernel once as
``kernel[grid](...)``. Each lesson's text names launch's arguments.
"""

from __future__ import annotations

import os
from typing import Any

from ..data.lessons.progress import (
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
from ..data.lessons.result import STAGES, WRONG_KINDS, BudgetFigure, LessonInfo, LessonResult, WrongElements
from ..data.lessons.texts import (
    LANGS,
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

__all__ = [
    "LANGS", "STAGES", "WRONG_KINDS", "PROGRESS_FILE", "LessonInfo", "LessonResult", "WrongElements",
    "BudgetFigure", "LessonState", "Progress", "list_lessons", "lesson_info", "lesson_dir", "lesson_text",
    "hints", "solution_path", "solution_text", "starter_text", "write_starter", "normalize_lang",
    "check_lesson", "load_progress", "save_progress", "record_result", "record_hint", "next_lesson",
    "progress_path",
]


def check_lesson(name: str, path: str | os.PathLike, lang: str = "en", *, cancel: Any = None) -> LessonResult:
    """Run the learner's file for lesson ``name`` under the tracer and compare it with the
    reference solution (see ``kernels.lessons.check``). Imports torch and triton."""
    from .check import check_lesson as _check

    return _check(name, path, lang, cancel=cancel)
