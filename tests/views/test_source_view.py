"""The source view: real line numbers, a marked line that scrolls into view, Triton-aware
highlighting."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtGui import QColor, QFont, QTextCharFormat, QTextCursor

from views.demo import demo_matmul, demo_vector_add
from views.source_view import SourceView

# the catalog's vector add as recorded: its source text and the file line it starts at
VADD = demo_vector_add()
VADD_SOURCE, FIRST = VADD.source, VADD.source_first_line
LOAD_X = FIRST + next(i for i, ln in enumerate(VADD_SOURCE.splitlines()) if "tl.load(x_ptr" in ln)


@pytest.fixture
def view(on_screen):
    return on_screen(SourceView(), 700, 300, exposed=True)


def _formats_at(view: SourceView, block_no: int, col: int):
    block = view.editor().document().findBlockByNumber(block_no)
    # copies: the ranges' formats die with the temporary list Qt returns
    return [QTextCharFormat(r.format) for r in block.layout().formats()
            if r.start <= col < r.start + r.length]


def test_mark_line_uses_the_files_line_numbers(view):
    view.set_source(VADD_SOURCE, first_line=FIRST)
    assert view.first_line() == FIRST and view.line_count() == len(VADD_SOURCE.splitlines()) + 1
    assert view.mark_line(LOAD_X)  # a file line: block LOAD_X - FIRST of the snippet
    sels = view.editor().extraSelections()
    assert sels and all(sel.cursor.blockNumber() == LOAD_X - FIRST for sel in sels)
    assert view.editor().textCursor().blockNumber() == LOAD_X - FIRST
    assert "tl.load(x_ptr" in view.line_text(LOAD_X)
    assert view.marked_line() == LOAD_X
    assert sels[0].format.background().color() != QColor("white")
    view.clear_mark()
    assert view.editor().extraSelections() == [] and view.marked_line() is None


def _share_near(img, rect, colour: QColor, tol: int = 40) -> float:
    """Fraction of the pixels of ``rect`` within ``tol`` of ``colour`` (each channel)."""
    n = near = 0
    for x in range(rect.left() + 1, rect.right()):
        for y in range(rect.top() + 1, rect.bottom()):
            c = img.pixelColor(x, y)
            n += 1
            near += all(abs(a - b) <= tol for a, b in ((c.red(), colour.red()), (c.green(), colour.green()),
                                                        (c.blue(), colour.blue())))
    return near / max(n, 1)


def test_the_load_on_the_marked_line_stays_readable(qtbot, view):
    # breaks if the yellow line mark paints over tl.load's blue chip and leaves its white text
    # on yellow, which nobody can read
    view.set_source(VADD_SOURCE, first_line=FIRST)
    view.mark_line(LOAD_X)
    qtbot.wait(1)
    edit = view.editor()
    block = edit.document().findBlockByNumber(LOAD_X - FIRST)
    col = block.text().index("tl.load")
    cur = QTextCursor(block)
    cur.setPosition(block.position() + col)
    left = edit.cursorRect(cur)
    cur.setPosition(block.position() + col + len("tl.load"))
    right = edit.cursorRect(cur)
    token = QRect(QPoint(left.left(), left.top()), QPoint(right.left(), left.bottom()))
    img = edit.viewport().grab().toImage()
    dpr = img.devicePixelRatio()
    token = QRect(int(token.left() * dpr), int(token.top() * dpr), int(token.width() * dpr),
                  int(token.height() * dpr))
    chip, mark = QColor("#1565c0"), QColor("#fff3b0")
    assert _share_near(img, token, chip) > 0.5, "tl.load lost its chip on the marked line"
    assert _share_near(img, token, mark) < 0.05
    # the rest of the line does show the mark
    rest = QRect(token.right() + int(40 * dpr), token.top(), int(30 * dpr), token.height())
    assert _share_near(img, rest, mark) > 0.3


def test_a_line_outside_the_source_clears_the_mark(view):
    view.set_source(VADD_SOURCE, first_line=FIRST)
    view.mark_line(FIRST + 2)
    assert not view.mark_line(FIRST - 1)  # before the snippet
    assert view.editor().extraSelections() == []
    assert not view.mark_line(FIRST + 500)
    assert view.marked_line() is None


def test_marking_a_far_line_scrolls_it_into_view(qtbot, view):
    text = "\n".join(f"x{i} = {i}  # line {i}" for i in range(300))
    view.set_source(text, first_line=1000)
    assert view.editor().firstVisibleBlock().blockNumber() == 0
    view.mark_line(1250)
    qtbot.wait(1)
    assert view.editor().firstVisibleBlock().blockNumber() > 200
    assert view.editor().viewport().rect().contains(view.editor().cursorRect())
    # the gutter is wide enough for the largest number shown
    assert view.gutter_width() > view.editor().fontMetrics().horizontalAdvance("1299")


def test_highlighting_sets_loads_and_stores_apart(view):
    view.set_source('"""A docstring\nover two lines"""\n' + demo_matmul().source, first_line=1)
    lines = view.text().splitlines()
    def find(snippet):
        for i, ln in enumerate(lines):
            if snippet in ln:
                return i, ln.index(snippet)
        raise AssertionError(snippet)

    def fmt(snippet, offset=0):
        b, c = find(snippet)
        fs = _formats_at(view, b, c + offset)
        assert fs, f"{snippet!r} is not highlighted"
        return fs[-1]

    load, store, arange = fmt("tl.load("), fmt("tl.store("), fmt("tl.arange(")
    assert load.background().color() != store.background().color()
    assert load.background().style() != Qt.BrushStyle.NoBrush != store.background().style()
    assert arange.background().style() == Qt.BrushStyle.NoBrush, "an ordinary tl.* call should not look like a load"
    assert arange.foreground().color() != QColor("black")
    assert fmt("for k in").fontWeight() == QFont.Weight.Bold  # keyword
    assert fmt("# Row-major order").fontItalic()  # comment
    assert fmt("over two lines").foreground().color() == fmt('"""A docstring').foreground().color()
    assert fmt("other=0.0", 6).foreground().color() != QColor("black")  # number
