"""Tilescope in two languages, through Qt's own translation system.

Widgets mark their words with ``self.tr("…")`` or ``QCoreApplication.translate("Context", "…")``;
modules that must stay Qt-free (the grid view's texts) call ``translate`` from here, which asks
Qt only when Qt is already loaded (the GUI process) and otherwise returns the English text. The
translations live in ``resources/i18n/tilescope_<lang>.ts`` (the source, edited with Qt
Linguist or by hand) and ``.qm`` (compiled, what the app loads).

The app installs the translator once at start, from the user's setting or the system locale::

    from views.i18n import install_translator
    lang = install_translator(app, settings.language)  # None or "auto": QLocale.system()
    lesson_view.set_language(lang)  # the lesson texts are Markdown files, not Qt strings

Calling ``install_translator`` again switches language while the app runs: Qt sends every
widget a ``LanguageChange`` event; a widget that re-sets its words in ``changeEvent`` (the lesson
panel does) follows at once, the others on the next start.

Regenerating the translation files after changing words (the lead: the same command covers
``app/`` once its strings are wrapped; ``SOURCE_DIRS`` lists what is scanned)::

    .venv/bin/python -m views.i18n update    # pyside6-lupdate over views/ and app/ -> the .ts
    # translate the new entries (type="unfinished") in Qt Linguist: pyside6-linguist FILE.ts
    .venv/bin/python -m views.i18n release   # pyside6-lrelease: the .ts -> the .qm

Qt-free at import: PySide6 is imported inside the functions that need it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from resources import RESOURCES_DIR

from .words import QT_TRANSLATE_NOOP, translate

__all__ = [
    "LANGUAGES",
    "QT_TRANSLATE_NOOP",
    "SOURCE_DIRS",
    "TRANSLATIONS_DIR",
    "current_language",
    "install_translator",
    "normalize_language",
    "qm_path",
    "system_language",
    "translate",
    "ts_path",
]

#: the languages Tilescope speaks; English is the source language (no file)
LANGUAGES = ("en", "zh_CN")
TRANSLATIONS_DIR: Path = RESOURCES_DIR / "i18n"
ROOT = RESOURCES_DIR.parent
#: the folders pyside6-lupdate scans for marked words
SOURCE_DIRS = ("views", "app")
_PREFIX = "tilescope"

_installed: list[Any] = []  # our QTranslators in the application (kept alive: Qt does not own them)
_current = "en"


def normalize_language(lang: str | None) -> str:
    """"zh", "zh-CN", "zh_Hans", "zh_CN.UTF-8" -> "zh_CN"; other languages -> "en"."""
    low = (lang or "en").replace("-", "_").lower()
    return "zh_CN" if low.startswith("zh") else "en"


def system_language() -> str:
    """The language of the system locale (``QLocale.system()``), as one of ``LANGUAGES``."""
    from PySide6.QtCore import QLocale

    loc = QLocale.system()
    preferred = loc.uiLanguages()  # the user's order of preference ("zh-Hans-CN", "en-US", …)
    return normalize_language(preferred[0] if preferred else loc.name())


def ts_path(lang: str) -> Path:
    return TRANSLATIONS_DIR / f"{_PREFIX}_{lang}.ts"


def qm_path(lang: str) -> Path:
    return TRANSLATIONS_DIR / f"{_PREFIX}_{lang}.qm"


def current_language() -> str:
    """The language ``install_translator`` last put in use ("en" before any)."""
    return _current


def install_translator(app: Any, lang: str | None = None) -> str:
    """Put ``lang`` in use in ``app`` (a QCoreApplication) and return it.

    ``lang`` None, "" or "auto" follows the system locale; other values are read as by
    ``normalize_language``. Replaces the translators an earlier call installed, so calling it
    again switches language (every widget receives a ``LanguageChange`` event). Also loads Qt's
    own translations (standard dialog buttons) when Qt ships them. A language whose ``.qm`` is
    missing falls back to English, and English is returned."""
    global _current
    from PySide6.QtCore import QLibraryInfo, QTranslator

    chosen = system_language() if (lang or "auto").lower() == "auto" else normalize_language(lang)
    for old in _installed:
        app.removeTranslator(old)
    _installed.clear()
    if chosen != "en":
        ours = QTranslator(app)
        if not ours.load(str(qm_path(chosen))):
            chosen = "en"
        else:
            qt_own = QTranslator(app)
            if qt_own.load(f"qtbase_{chosen}", QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)):
                app.installTranslator(qt_own)
                _installed.append(qt_own)
            app.installTranslator(ours)
            _installed.append(ours)
    _current = chosen
    return chosen


# ---------------------------------------------------------------------------------------- tools
def _tool(name: str) -> str:
    """A Qt tool from the running interpreter's environment (the venv), else from PATH."""
    here = Path(sys.executable).parent / name
    found = str(here) if here.exists() else shutil.which(name)
    if not found:
        raise FileNotFoundError(f"{name} not found (install PySide6 in this environment)")
    return found


def _sources(dirs: tuple[str, ...] = SOURCE_DIRS) -> list[str]:
    files = []
    for d in dirs:
        files += sorted(str(p.relative_to(ROOT)) for p in (ROOT / d).rglob("*.py") if "__pycache__" not in p.parts)
    return files


def lupdate(ts: Path, lang: str, dirs: tuple[str, ...] = SOURCE_DIRS) -> None:
    """Run pyside6-lupdate over ``dirs`` into ``ts``: new words appear as unfinished entries,
    translated ones are kept, vanished ones dropped."""
    cmd = [_tool("pyside6-lupdate"), "-no-obsolete", "-locations", "none", "-target-language", lang,
           *_sources(dirs), "-ts", str(ts)]
    subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True, text=True)


def lrelease(ts: Path, qm: Path) -> None:
    """Compile ``ts`` into ``qm`` (pyside6-lrelease)."""
    subprocess.run([_tool("pyside6-lrelease"), str(ts), "-qm", str(qm)], cwd=ROOT, check=True,
                   capture_output=True, text=True)


def update(langs: tuple[str, ...] = LANGUAGES[1:], dirs: tuple[str, ...] = SOURCE_DIRS) -> None:
    """Bring each language's .ts up to date with the words marked in ``dirs``."""
    TRANSLATIONS_DIR.mkdir(parents=True, exist_ok=True)
    for lang in langs:
        lupdate(ts_path(lang), lang, dirs)


def release(langs: tuple[str, ...] = LANGUAGES[1:]) -> None:
    """Compile each .ts into the .qm the app loads."""
    for lang in langs:
        lrelease(ts_path(lang), qm_path(lang))


def main(argv: list[str] | None = None) -> int:  # pragma: no cover - a developer's tool
    args = sys.argv[1:] if argv is None else argv
    verb = args[0] if args else ""
    if verb == "update":
        update()
        print(f"updated {', '.join(str(ts_path(lang)) for lang in LANGUAGES[1:])}; translate the entries marked "
              "unfinished, then: python -m views.i18n release")
    elif verb == "release":
        release()
    else:
        print("usage: python -m views.i18n update|release", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":  # pragma: no cover
    os.chdir(ROOT)
    raise SystemExit(main())
