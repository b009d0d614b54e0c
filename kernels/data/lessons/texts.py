"""The lessons on disk: texts, hints, the solution and the starter made from it — no torch, no triton.

Each lesson is a folder ``resources/lessons/<nn>_<name>/``:

- ``lesson.en.md`` and ``lesson.zh_CN.md``: the statement; its first ``# `` heading is the title;
- ``hints.en.md`` and ``hints.zh_CN.md``: one hint per ``- `` item (an item may go on over
  indented lines), shown one at a time;
- ``solution.py``: the reference solution, a plain Triton script. It also carries the starter,
  so that the two never drift apart: a line ending in ``# starter: CODE`` reads ``CODE`` in the
  starter (the same indentation; nothing after ``starter:`` drops the line), and a line
  ``# starter+ CODE`` exists only in the starter. ``starter_text`` applies the markers,
  ``solution_text`` removes them.
- ``starter.zh_CN.md``: the Chinese of the file's docstrings and comments (``starter_words``);
  ``starter_text(name, "zh_CN")`` and ``solution_text(name, "zh_CN")`` read in Chinese, the code
  the same.

The learner's file (a copy of the starter, ``write_starter``) defines the kernel and a
``launch(...)`` function that the check calls with CPU tensors; each lesson text says which.
"""

from __future__ import annotations

import os
import re
from functools import lru_cache
from pathlib import Path

from resources import RESOURCES_DIR

from .result import LessonInfo
from .starter_words import load_words, translate_source

__all__ = ["LANGS", "LESSONS_DIR", "list_lessons", "lesson_info", "lesson_dir", "lesson_text", "hints",
           "solution_path", "solution_text", "starter_text", "write_starter", "normalize_lang"]

LANGS = ("en", "zh_CN")
LESSONS_DIR: Path = RESOURCES_DIR / "lessons"

_FOLDER = re.compile(r"(\d+)_([a-z0-9_]+)")
_INLINE = re.compile(r"^(?P<indent>\s*)(?P<code>.*?)\s+# starter:(?P<alt>.*)$")
_ADDED = re.compile(r"^(?P<indent>\s*)# starter\+ ?(?P<code>.*)$")


def normalize_lang(lang: str | None) -> str:
    """"zh", "zh-CN", "zh_Hans", "zh_CN.UTF-8" -> "zh_CN"; anything else -> "en"."""
    low = (lang or "en").replace("-", "_").lower()
    return "zh_CN" if low.startswith("zh") else "en"


@lru_cache(maxsize=1)
def _catalog() -> tuple[LessonInfo, ...]:
    out = []
    for d in sorted(LESSONS_DIR.iterdir()) if LESSONS_DIR.is_dir() else ():
        m = _FOLDER.fullmatch(d.name)
        if not m or not d.is_dir():
            continue
        titles = {lang: _title(d / f"lesson.{lang}.md") for lang in LANGS}
        out.append(LessonInfo(name=m.group(2), number=int(m.group(1)), folder=d.name,
                              titles={k: v for k, v in titles.items() if v}))
    return tuple(sorted(out, key=lambda i: i.number))


def _title(path: Path) -> str:
    try:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.startswith("# "):
                return line[2:].strip()
    except OSError:
        pass
    return ""


def list_lessons() -> list[LessonInfo]:
    """Every lesson, in order."""
    return list(_catalog())


def lesson_info(name: str) -> LessonInfo:
    """A lesson by name ("masks"), folder ("02_masks") or number ("2"). Raises KeyError."""
    key = str(name).strip()
    for info in _catalog():
        if key in (info.name, info.folder) or (key.isdigit() and int(key) == info.number):
            return info
    names = ", ".join(i.name for i in _catalog())
    raise KeyError(f"no lesson {name!r} (lessons: {names})")


def lesson_dir(name: str) -> Path:
    return LESSONS_DIR / lesson_info(name).folder


def _read(name: str, stem: str, lang: str) -> str:
    d = lesson_dir(name)
    for candidate in (normalize_lang(lang), "en"):
        p = d / f"{stem}.{candidate}.md"
        if p.is_file():
            return p.read_text(encoding="utf-8")
    raise FileNotFoundError(f"lesson {name!r} has no {stem}.en.md")


def lesson_text(name: str, lang: str = "en") -> str:
    """The lesson's statement (Markdown) in ``lang``; English where that language is missing."""
    return _read(name, "lesson", lang)


def hints(name: str, lang: str = "en") -> list[str]:
    """The hints, one per item, in the order to show them."""
    items: list[list[str]] = []
    for line in _read(name, "hints", lang).splitlines():
        if line.startswith("- "):
            items.append([line[2:].strip()])
        elif items and line.strip() and line[:1].isspace():
            items[-1].append(line.strip())
    return [" ".join(parts) for parts in items]


def solution_path(name: str) -> Path:
    """The reference solution: runnable as it is (the starter markers are comments)."""
    return lesson_dir(name) / "solution.py"


def _variants(name: str) -> tuple[str, str]:
    """(starter, solution) texts from the marked solution file."""
    starter, solution = [], []
    for line in solution_path(name).read_text(encoding="utf-8").splitlines():
        added = _ADDED.match(line)
        if added:
            starter.append(added.group("indent") + added.group("code"))
            continue
        inline = _INLINE.match(line)
        if inline:
            solution.append(inline.group("indent") + inline.group("code"))
            alt = inline.group("alt").strip()
            if alt:
                starter.append(inline.group("indent") + alt)
            continue
        starter.append(line)
        solution.append(line)
    return "\n".join(starter) + "\n", "\n".join(solution) + "\n"


def _in_language(text: str, name: str, lang: str) -> str:
    lang = normalize_lang(lang)
    if lang == "en":
        return text
    return translate_source(text, load_words(lesson_dir(name) / f"starter.{lang}.md"))


def starter_text(name: str, lang: str = "en") -> str:
    """The file the learner starts from, its docstrings and comments in ``lang``."""
    return _in_language(_variants(name)[0], name, lang)


def solution_text(name: str, lang: str = "en") -> str:
    """The reference solution as a learner reads it (markers removed), its words in ``lang``."""
    return _in_language(_variants(name)[1], name, lang)


def write_starter(name: str, directory: str | os.PathLike, overwrite: bool = False, lang: str = "en") -> Path:
    """Write the starter in ``lang`` to ``directory/<nn>_<name>.py`` (folders made as needed) and
    return its path. An existing file is kept (the learner's work) unless ``overwrite``, or unless
    it is an untouched starter of another language (it then follows the language)."""
    info = lesson_info(name)
    d = Path(directory).expanduser()
    d.mkdir(parents=True, exist_ok=True)
    p = d / f"{info.folder}.py"
    text = starter_text(name, lang)
    if overwrite or not p.exists() or _untouched_other_language(p, name, text):
        p.write_text(text, encoding="utf-8")
    return p


def _untouched_other_language(path: Path, name: str, text: str) -> bool:
    try:
        have = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    return have != text and have in {starter_text(name, lang) for lang in LANGS}
