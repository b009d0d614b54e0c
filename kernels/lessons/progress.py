"""A learner's progress through the lessons: one small JSON file in a folder the caller chooses.

Plain functions on plain data: ``load_progress(directory)`` reads (a missing or unreadable file is
an empty progress, never an error), ``record_result`` / ``record_hint`` return an updated copy,
``save_progress`` writes atomically (a temporary file, then a rename). The file::

    {"version": 1, "lessons": {"masks": {"passed": true, "attempts": 3, "hints_shown": 1,
                                         "last_message": "...", "passed_at": "2025-...",
                                         "updated_at": "2025-..."}}}
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path

from .result import LessonResult

__all__ = ["PROGRESS_FILE", "LessonState", "Progress", "progress_path", "load_progress", "save_progress",
           "record_result", "record_hint", "next_lesson"]

PROGRESS_FILE = "lessons-progress.json"
_VERSION = 1


@dataclass(frozen=True)
class LessonState:
    passed: bool = False
    attempts: int = 0
    hints_shown: int = 0
    last_message: str = ""
    passed_at: str = ""  # ISO time of the first pass
    updated_at: str = ""


@dataclass(frozen=True)
class Progress:
    lessons: dict[str, LessonState] = field(default_factory=dict)

    def state(self, name: str) -> LessonState:
        return self.lessons.get(name, LessonState())

    def passed(self) -> set[str]:
        return {n for n, s in self.lessons.items() if s.passed}


def progress_path(directory: str | os.PathLike) -> Path:
    return Path(directory).expanduser() / PROGRESS_FILE


def load_progress(directory: str | os.PathLike) -> Progress:
    """The saved progress; empty when there is none or the file cannot be read as ours."""
    try:
        data = json.loads(progress_path(directory).read_text(encoding="utf-8"))
        lessons = data["lessons"]
        known = set(LessonState.__dataclass_fields__)
        return Progress({str(k): LessonState(**{f: v for f, v in dict(s).items() if f in known})
                         for k, s in lessons.items()})
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return Progress()


def save_progress(directory: str | os.PathLike, progress: Progress) -> Path:
    """Write the progress (folders made as needed); returns the file's path."""
    p = progress_path(directory)
    p.parent.mkdir(parents=True, exist_ok=True)
    data = {"version": _VERSION, "lessons": {k: asdict(s) for k, s in sorted(progress.lessons.items())}}
    fd, tmp = tempfile.mkstemp(prefix=".lessons-", suffix=".json", dir=p.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f, ensure_ascii=False, indent=1)
        os.replace(tmp, p)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return p


def _now(now: datetime | None) -> str:
    return (now or datetime.now(timezone.utc)).isoformat(timespec="seconds")


def record_result(progress: Progress, result: LessonResult, now: datetime | None = None) -> Progress:
    """``progress`` with one more attempt at ``result.name``; a pass is kept once earned."""
    old = progress.state(result.name)
    t = _now(now)
    new = replace(old, attempts=old.attempts + 1, passed=old.passed or result.passed,
                  last_message=result.message, updated_at=t,
                  passed_at=old.passed_at or (t if result.passed else ""))
    return Progress({**progress.lessons, result.name: new})


def record_hint(progress: Progress, name: str, shown: int, now: datetime | None = None) -> Progress:
    """``progress`` with ``shown`` hints seen for lesson ``name`` (never fewer than before)."""
    old = progress.state(name)
    new = replace(old, hints_shown=max(old.hints_shown, int(shown)), updated_at=_now(now))
    return Progress({**progress.lessons, name: new})


def next_lesson(progress: Progress, names: list[str]) -> str | None:
    """The first of ``names`` (in lesson order) not passed yet; None when all are."""
    done = progress.passed()
    return next((n for n in names if n not in done), None)
