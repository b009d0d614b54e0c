"""A learner's progress through the lessons: one small JSON file in a folder the caller chooses.

Plain functions on plain data: ``load_progress(directory)`` reads (a missing file is an empty
progress; a damaged one — any way — too, kept aside, with ``Progress.warning`` saying so; never an
error), ``record_result`` / ``record_hint`` return an updated copy,
``save_progress`` writes atomically (a temporary file, then a rename). The file::

    {"version": 1, "lessons": {"masks": {"passed": true, "attempts": 3, "hints_shown": 1,
                                         "last_message": "...", "passed_at": "2025-...",
                                         "updated_at": "2025-..."}}}
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path

from ..safe_json import DamagedFile, read_json_file
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
    #: a sentence for the learner when the saved file was damaged (then kept aside), else ""
    warning: str = ""

    def state(self, name: str) -> LessonState:
        return self.lessons.get(name, LessonState())

    def passed(self) -> set[str]:
        return {n for n, s in self.lessons.items() if s.passed}


def progress_path(directory: str | os.PathLike) -> Path:
    return Path(directory).expanduser() / PROGRESS_FILE


#: larger than any progress file (a few KB): not read, said damaged
MAX_BYTES = 4 << 20

_TYPES = {"passed": bool, "attempts": int, "hints_shown": int, "last_message": str, "passed_at": str,
          "updated_at": str}


def load_progress(directory: str | os.PathLike) -> Progress:
    """The saved progress; empty when there is none. Never raises: a file damaged in any way
    (not JSON, nested too deep, huge, a folder or a pipe in its place) is kept aside and the
    progress is empty, with ``warning`` saying so; lessons with wrong fields are dropped, named."""
    p = progress_path(directory)
    try:
        data = read_json_file(p, MAX_BYTES)
    except FileNotFoundError:
        return Progress()
    except DamagedFile as e:
        return Progress(warning=_damaged(p, e.why, e.movable, e.huge))
    lessons = data.get("lessons") if isinstance(data, dict) else None
    if not isinstance(lessons, dict):
        return Progress(warning=_damaged(p, "does not hold lessons", True, False))
    good: dict[str, LessonState] = {}
    bad: list[str] = []
    for name, st in lessons.items():
        fields = {f: v for f, v in st.items() if f in _TYPES} if isinstance(st, dict) else None
        if fields is None or not all(_fits(v, _TYPES[f]) for f, v in fields.items()):
            bad.append(str(name)[:80])
            continue
        good[str(name)] = LessonState(**fields)
    warning = (f"The lesson progress in {p} had unreadable entries, left out: {', '.join(bad[:10])}."
               if bad else "")
    return Progress(good, warning)


def _fits(v: object, kind: type) -> bool:
    if type(v) is not kind:  # exact: True is not a count of attempts
        return False
    return v.bit_length() <= 62 if kind is int else (len(v) <= 100_000 if kind is str else True)


def _damaged(p: Path, why: str, movable: bool, huge: bool) -> str:
    """Keep a damaged progress file aside (a copy; moved when huge) and say so."""
    msg = f"The lesson progress file {p} {why}; your progress starts empty."
    if not movable:
        return msg + " It was left where it is, and progress cannot be saved there."
    backup = p.with_name(f"{p.name}.corrupt-{datetime.now().strftime('%Y%m%d-%H%M%S')}")
    k = 1
    while backup.exists():
        backup, k = backup.with_name(f"{backup.name}-{k}"), k + 1
    try:
        if huge:
            os.replace(p, backup)
        else:
            shutil.copy2(p, backup)
    except OSError as e:
        return msg + f" It could not be kept aside ({e.strerror or e})."
    return msg + f" It was kept as {backup.name}."


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
