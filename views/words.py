"""Marked words without Qt: ``translate`` asks Qt's translator only when Qt is already loaded (the
GUI process) and otherwise returns the English text; ``QT_TRANSLATE_NOOP`` marks a word where a
table defines it. For modules that must never import Qt, even inside a function — the grid view's
texts, the window's Qt-free controller (``app.controller``); ``views.i18n`` (which installs the
translator, importing Qt there) re-exports both.
"""

from __future__ import annotations

import sys

__all__ = ["QT_TRANSLATE_NOOP", "translate"]


def translate(context: str, text: str, disambiguation: str | None = None, n: int = -1) -> str:
    """``QCoreApplication.translate`` when Qt is loaded, else ``text`` unchanged: for modules
    that must not import Qt. pyside6-lupdate finds calls written ``translate("Ctx", "text")``."""
    qtcore = sys.modules.get("PySide6.QtCore")
    if qtcore is None:
        return text
    return qtcore.QCoreApplication.translate(context, text, disambiguation, n)


def QT_TRANSLATE_NOOP(context: str, text: str) -> str:  # noqa: N802 (the name pyside6-lupdate looks for)
    """Mark ``text`` for translation where it is defined (a table of words) and return it as it
    is: the code that shows it calls ``translate(context, text)``. Qt's own, without Qt."""
    return text
