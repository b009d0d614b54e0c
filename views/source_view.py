"""The source view: a kernel's Triton source, read-only, with its file's line numbers.

The grid view reports which source line an access came from; ``mark_line(line)`` highlights that
line and scrolls to it. ``tl.load`` and ``tl.store`` are highlighted apart from the other
``tl.*`` calls because they are what the grid view draws: white on a blue (load) or orange
(store) chip. The marked line's background would cover those chips and leave white text on
yellow, so the mark re-draws them on top of itself.
"""

from __future__ import annotations

import keyword

from PySide6.QtCore import QRect, QRegularExpression, QSize, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontDatabase,
    QPainter,
    QPalette,
    QSyntaxHighlighter,
    QTextBlock,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
)
from PySide6.QtWidgets import QPlainTextEdit, QTextEdit, QVBoxLayout, QWidget

from .preview import preview

__all__ = ["PythonHighlighter", "SourceView"]

# Colours for a light base and for a dark one (picked from the editor's palette at build time).
_SCHEMES = {
    "light": {
        "keyword": ("#0033b3", True), "builtin": ("#7a3e9d", False), "tl": ("#00627a", False),
        "load": ("#ffffff", True, "#1565c0"), "store": ("#ffffff", True, "#e65100"),
        "string": ("#067d17", False), "comment": ("#8c8c8c", False, None, True),
        "number": ("#1750eb", False), "decorator": ("#9e880d", False), "mark": "#fff3b0",
        "gutter": "#f0f0f0", "gutter_text": "#999999", "gutter_mark": "#000000",
    },
    "dark": {
        "keyword": ("#cc7832", True), "builtin": ("#c77dbb", False), "tl": ("#56a8f5", False),
        "load": ("#ffffff", True, "#1e63c4"), "store": ("#ffffff", True, "#d35400"),
        "string": ("#6aab73", False), "comment": ("#7a7e85", False, None, True),
        "number": ("#2aacb8", False), "decorator": ("#b3ae60", False), "mark": "#5c4f16",
        "gutter": "#2b2d30", "gutter_text": "#6f737a", "gutter_mark": "#ffffff",
    },
}

_BUILTINS = ("range", "min", "max", "len", "abs", "int", "float", "print", "True", "False", "None")
# the chips of the accesses the grid view draws (the highlighter's rules for them, too)
_LOAD_RE = r"\btl\.(?:load|atomic_\w+)\b"
_STORE_RE = r"\btl\.store\b"


def _fmt(spec: tuple) -> QTextCharFormat:
    f = QTextCharFormat()
    f.setForeground(QColor(spec[0]))
    if spec[1]:
        f.setFontWeight(QFont.Weight.Bold)
    if len(spec) > 2 and spec[2]:
        f.setBackground(QColor(spec[2]))
    if len(spec) > 3 and spec[3]:
        f.setFontItalic(True)
    return f


class PythonHighlighter(QSyntaxHighlighter):
    """Python + Triton highlighting: keywords, builtins, ``tl.*`` names, strings (triple-quoted
    ones across lines), comments, numbers, decorators; ``tl.load`` / ``tl.store`` stand out."""

    _IN_TRIPLE = {1: '"""', 2: "'''"}

    def __init__(self, document: QTextDocument, dark: bool = False):
        super().__init__(document)
        sch = _SCHEMES["dark" if dark else "light"]
        kw = "|".join(keyword.kwlist)
        # Later rules win where they overlap: strings and comments are applied last.
        self._rules: list[tuple[QRegularExpression, QTextCharFormat]] = [
            (QRegularExpression(rf"\b(?:{kw})\b"), _fmt(sch["keyword"])),
            (QRegularExpression(rf"\b(?:{'|'.join(_BUILTINS)})\b"), _fmt(sch["builtin"])),
            (QRegularExpression(r"\b(?:\d+\.?\d*(?:[eE][+-]?\d+)?|0[xX][0-9a-fA-F]+)\b"),
             _fmt(sch["number"])),
            (QRegularExpression(r"^\s*@[\w.]+"), _fmt(sch["decorator"])),
            (QRegularExpression(r"\btl\.\w+(?:\.\w+)*"), _fmt(sch["tl"])),
            (QRegularExpression(_LOAD_RE), _fmt(sch["load"])),
            (QRegularExpression(_STORE_RE), _fmt(sch["store"])),
        ]
        self._string = _fmt(sch["string"])
        self._comment = _fmt(sch["comment"])
        # a comment | a triple quote | a one-line string (backslash escapes skipped)
        self._token = QRegularExpression(
            r"""(#.*$)|(\"\"\"|''')|("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')""")

    def highlightBlock(self, text: str) -> None:  # noqa: N802 (Qt's name)
        for rx, fmt in self._rules:
            it = rx.globalMatch(text)
            while it.hasNext():
                m = it.next()
                self.setFormat(m.capturedStart(), m.capturedLength(), fmt)
        self.setCurrentBlockState(0)
        pos = 0
        prev = self.previousBlockState()
        if prev in self._IN_TRIPLE:  # inside a docstring that started on an earlier line
            end = text.find(self._IN_TRIPLE[prev])
            if end < 0:
                self.setFormat(0, len(text), self._string)
                self.setCurrentBlockState(prev)
                return
            self.setFormat(0, end + 3, self._string)
            pos = end + 3
        while pos < len(text):
            m = self._token.match(text, pos)
            if not m.hasMatch():
                break
            start = m.capturedStart()
            if m.capturedLength(1):  # comment to the end of the line
                self.setFormat(start, len(text) - start, self._comment)
                break
            if m.capturedLength(2):  # a triple quote opens a (maybe multi-line) string
                quote = m.captured(2)
                end = text.find(quote, start + 3)
                if end < 0:
                    self.setFormat(start, len(text) - start, self._string)
                    self.setCurrentBlockState(1 if quote == '"""' else 2)
                    return
                self.setFormat(start, end + 3 - start, self._string)
                pos = end + 3
                continue
            self.setFormat(start, m.capturedLength(), self._string)
            pos = m.capturedEnd()


class _Gutter(QWidget):
    """Line numbers beside the editor (Qt's code-editor example, with a first-line offset)."""

    def __init__(self, view: SourceView):
        super().__init__(view.editor())
        self._view = view

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(self._view.gutter_width(), 0)

    def paintEvent(self, event) -> None:  # noqa: N802
        self._view._paint_gutter(self, event)


class SourceView(QWidget):
    """Read-only, highlighted kernel source with real line numbers and a marked line."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._first_line = 1
        self._marked: int | None = None  # file line
        self._edit = QPlainTextEdit()
        self._edit.setReadOnly(True)
        self._edit.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self._edit.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self._edit.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse
                                           | Qt.TextInteractionFlag.TextSelectableByKeyboard)
        self._dark = self._edit.palette().color(QPalette.ColorRole.Base).lightness() < 128
        self._scheme = _SCHEMES["dark" if self._dark else "light"]
        self._highlighter = PythonHighlighter(self._edit.document(), dark=self._dark)
        self._gutter = _Gutter(self)
        self._edit.blockCountChanged.connect(self._update_gutter_width)
        self._edit.updateRequest.connect(self._on_update_request)
        self._edit.installEventFilter(self)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self._edit)
        self._update_gutter_width()

    # ------------------------------------------------------------------ public API
    def editor(self) -> QPlainTextEdit:
        return self._edit

    def set_source(self, text: str, first_line: int = 1) -> None:
        """Show ``text``, numbering its first line ``first_line`` (its line in the file)."""
        self._first_line = int(first_line)
        self._marked = None
        self._edit.setPlainText(text)
        self._edit.setExtraSelections([])
        self._update_gutter_width()
        self._gutter.update()

    def text(self) -> str:
        return self._edit.toPlainText()

    def first_line(self) -> int:
        return self._first_line

    def line_count(self) -> int:
        return self._edit.blockCount()

    def mark_line(self, file_line: int) -> bool:
        """Highlight ``file_line`` (a line number of the file) and scroll it into view.

        A line outside the shown source clears the mark and returns False."""
        block_no = int(file_line) - self._first_line
        if file_line < 0 or not 0 <= block_no < self._edit.blockCount():
            self.clear_mark()
            return False
        self._marked = int(file_line)
        block = self._edit.document().findBlockByNumber(block_no)
        sel = QTextEdit.ExtraSelection()
        sel.format.setBackground(QColor(self._scheme["mark"]))
        sel.format.setProperty(QTextFormat.Property.FullWidthSelection, True)
        sel.cursor = QTextCursor(block)
        self._edit.setExtraSelections([sel, *self._chips(block)])
        self._edit.setTextCursor(QTextCursor(block))
        self._edit.centerCursor()
        self._gutter.update()
        return True

    def _chips(self, block: QTextBlock) -> list[QTextEdit.ExtraSelection]:
        """The load/store chips of ``block`` as selections drawn over the line mark (a later
        extra selection paints over an earlier one), so they keep their own colours."""
        out = []
        text = block.text()
        for key, pattern in (("load", _LOAD_RE), ("store", _STORE_RE)):
            it = QRegularExpression(pattern).globalMatch(text)
            while it.hasNext():
                m = it.next()
                sel = QTextEdit.ExtraSelection()
                sel.format = _fmt(self._scheme[key])
                cur = QTextCursor(block)
                cur.setPosition(block.position() + m.capturedStart())
                cur.setPosition(block.position() + m.capturedEnd(), QTextCursor.MoveMode.KeepAnchor)
                sel.cursor = cur
                out.append(sel)
        return out

    def clear_mark(self) -> None:
        self._marked = None
        self._edit.setExtraSelections([])
        self._gutter.update()

    def marked_line(self) -> int | None:
        """The marked file line, or None."""
        return self._marked

    def line_text(self, file_line: int) -> str:
        block = self._edit.document().findBlockByNumber(int(file_line) - self._first_line)
        return block.text() if block.isValid() else ""

    # ------------------------------------------------------------------ gutter
    def gutter_width(self) -> int:
        last = self._first_line + max(self._edit.blockCount(), 1) - 1
        digits = max(3, len(str(last)))
        return 10 + self._edit.fontMetrics().horizontalAdvance("9") * digits

    def _update_gutter_width(self, *_: object) -> None:
        self._edit.setViewportMargins(self.gutter_width(), 0, 0, 0)
        self._place_gutter()

    def _place_gutter(self) -> None:
        cr = self._edit.contentsRect()
        self._gutter.setGeometry(QRect(cr.left(), cr.top(), self.gutter_width(), cr.height()))

    def _on_update_request(self, rect: QRect, dy: int) -> None:
        if dy:
            self._gutter.scroll(0, dy)
        else:
            self._gutter.update(0, rect.y(), self._gutter.width(), rect.height())

    def eventFilter(self, obj, event) -> bool:  # noqa: N802
        if obj is self._edit and event.type() == event.Type.Resize:
            self._place_gutter()
        return super().eventFilter(obj, event)

    def _paint_gutter(self, gutter: QWidget, event) -> None:
        p = QPainter(gutter)
        p.fillRect(event.rect(), QColor(self._scheme["gutter"]))
        block = self._edit.firstVisibleBlock()
        top = round(self._edit.blockBoundingGeometry(block).translated(self._edit.contentOffset()).top())
        height = round(self._edit.blockBoundingRect(block).height())
        fm_h = self._edit.fontMetrics().height()
        font = p.font()
        while block.isValid() and top <= event.rect().bottom():
            line = self._first_line + block.blockNumber()
            if block.isVisible() and top + height >= event.rect().top():
                marked = line == self._marked
                font.setBold(marked)
                p.setFont(font)
                p.setPen(QColor(self._scheme["gutter_mark" if marked else "gutter_text"]))
                p.drawText(0, top, gutter.width() - 5, fm_h, Qt.AlignmentFlag.AlignRight, str(line))
            block = block.next()
            top += height
            height = round(self._edit.blockBoundingRect(block).height())
        p.end()


def main() -> QWidget:  # pragma: no cover - manual preview
    from PySide6.QtWidgets import QComboBox, QSpinBox

    from views.demo import DEMOS

    top = QWidget()
    top.setWindowTitle("Tilescope — source view (recorded demo kernels)")
    combo, spin, view = QComboBox(), QSpinBox(), SourceView()
    combo.addItems(list(DEMOS))
    traces = {}

    def show(name: str) -> None:
        tr = traces.setdefault(name, DEMOS[name]())
        view.set_source(tr.source, tr.source_first_line)
        spin.setRange(tr.source_first_line, tr.source_first_line + view.line_count() - 1)
        first = int(tr.events.line[0]) if len(tr.events) else tr.source_first_line
        spin.setValue(first)
        view.mark_line(first)

    combo.currentTextChanged.connect(show)
    spin.valueChanged.connect(view.mark_line)
    lay = QVBoxLayout(top)
    lay.addWidget(combo)
    lay.addWidget(spin)
    lay.addWidget(view, 1)
    show(combo.currentText())
    top.resize(900, 700)
    return top


if __name__ == "__main__":  # pragma: no cover
    preview(main)
