"""Finding English left in a translated window: what the i18n tests walk and what they accept.

``visible_texts(widget)`` lists the words a widget shows (labels, buttons, group titles, tabs,
placeholders, list / combo items, table headers, dock titles, plot labels); ``menu_texts(bar)``
the titles and actions of a menu bar; ``english_words(text, data)`` the English words of one
text, leaving out the names, units and formula notation that stay in Latin letters (``PROPER``)
and the data strings a widget shows as given (kernel names, source lines).

Used by ``tests/views/test_i18n.py`` (every view widget) and ``tests/app/test_main_window_i18n.py``
(the whole window). Not used by the app itself.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QComboBox,
    QDockWidget,
    QGroupBox,
    QLabel,
    QLineEdit,
    QListWidget,
    QMenu,
    QMenuBar,
    QTableView,
    QTabWidget,
    QWidget,
)

__all__ = ["PROPER", "english_words", "menu_texts", "visible_texts"]

#: words allowed to stay in Latin letters: names, units and the notation of formulas
PROPER = {"Triton", "torch", "NaN", "Inf", "SMs", "GB", "TFLOP", "ms", "atol", "rtol", "dtype", "ref", "out",
          "max", "rms", "pid", "py", "ttir", "ttgir", "llir", "ptx", "sass", "Enter", "Shift", "Esc", "Ctrl",
          "fp16", "bf16", "fp32", "TF32", "warp", "Python", "Tilescope"}
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_VERSION = re.compile(r"\b\d+(?:\.\d+)+(?:[+.-][A-Za-z0-9.]+)?")


def english_words(text: str, data: Iterable[str] = ()) -> list[str]:
    """The English words of ``text`` (markup and the ``data`` strings left out): words of two
    letters or more that are not in ``PROPER``, not all capitals (PASS, GPU, CPU), not
    identifiers (BLOCK_SIZE) and hold no digit (x0, fp32)."""
    plain = html.unescape(re.sub(r"<[^>]+>", " ", text))
    plain = _VERSION.sub(" ", plain)  # "2.13.0+cpu", "3.6.0", "12.8": versions, not words
    for d in sorted(data, key=len, reverse=True):
        if d:
            plain = plain.replace(d, " ")
    return [w for w in _WORD.findall(plain) if len(w) > 1 and not (
        w in PROPER or w.isupper() or "_" in w or any(ch.isdigit() for ch in w))]


def visible_texts(top: QWidget) -> list[tuple[str, str]]:
    """(what, text) of every label, button, group title, tab, header, placeholder, list and combo
    item, dock title, plot title, axis and legend label that ``top`` shows."""
    import pyqtgraph as pg

    out: list[tuple[str, str]] = []
    for w in [top, *top.findChildren(QWidget)]:
        if w is not top and not w.isVisibleTo(top):
            continue
        name = type(w).__name__
        if isinstance(w, (QLabel, QAbstractButton)):
            out.append((name, w.text()))
        elif isinstance(w, QGroupBox):
            out.append((name, w.title()))
        elif isinstance(w, QDockWidget):
            out.append((name, w.windowTitle()))
        elif isinstance(w, QTabWidget):
            out += [(name, w.tabText(i)) for i in range(w.count())]
        elif isinstance(w, QLineEdit):
            out.append((name, w.placeholderText()))
        elif isinstance(w, QComboBox):
            out += [(name, w.itemText(i)) for i in range(w.count())]
        elif isinstance(w, QListWidget):
            out += [(name, w.item(i).text()) for i in range(w.count())]
        elif isinstance(w, QTableView):
            m = w.model()
            out += [(name, str(m.headerData(c, Qt.Orientation.Horizontal) or "")) for c in range(m.columnCount())]
        elif isinstance(w, pg.GraphicsView):
            for it in w.scene().items():
                if isinstance(it, pg.AxisItem):
                    out.append(("axis", it.labelText))
                elif isinstance(it, pg.LabelItem):
                    out.append(("plot label", it.text))
                elif isinstance(it, pg.TextItem):
                    out.append(("plot text", it.toPlainText()))
    return [(k, t) for k, t in out if t]


def menu_texts(bar: QMenuBar | QMenu) -> list[tuple[str, str]]:
    """(what, text) of every menu title and action (with its tooltip) in ``bar``, submenus too;
    separators left out."""
    out: list[tuple[str, str]] = []
    for a in bar.actions():
        if a.isSeparator():
            continue
        sub = a.menu()
        out.append(("menu" if sub is not None else "action", a.text()))
        if sub is not None:
            out += menu_texts(sub)
    return [(k, t) for k, t in out if t]
