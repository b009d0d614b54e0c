"""The Chinese window at each state the laptop screenshots reach (benchmarks/laptop_screenshots.py):
matmul traced, softmax with a program pinned, attention, layernorm, and a docked lesson with its
file open — every visible word is Chinese, apart from what the window shows as given (names,
values, source) and the proper names the Chinese catalog keeps (Softmax, FlashAttention).

Shares the walk of ``test_main_window_i18n`` (``views.i18n_check``); kernels at their defaults, so
the traces are short (the screenshots' sizes draw the same words).
"""

from __future__ import annotations

import ast
import io
import re
import tokenize

import pytest

pytest.importorskip("PySide6.QtWidgets")
pytest.importorskip("pytestqt")

from real_window import make_window, wait_ready, wait_until  # noqa: E402
from test_main_window_i18n import data_strings, english_left, window_texts  # noqa: E402

from kernels.data.lessons.texts import starter_text  # noqa: E402
from views import i18n  # noqa: E402
from views.kernel_texts import kernel_text  # noqa: E402

_LATIN = re.compile(r"[A-Za-z]+")


@pytest.fixture(scope="module")
def win(qapp, tmp_path_factory):
    before = i18n.current_language()
    assert i18n.install_translator(qapp, "zh_CN") == "zh_CN"
    w = make_window(tmp_path_factory.mktemp("zh-states-home"))
    w.resize(1366, 768)
    w.show()
    wait_ready(w)
    w.set_backend("interpreter")
    yield w
    w.close()
    i18n.install_translator(qapp, before)


def shown_as_given(win) -> list[str]:
    """Besides ``data_strings``: the trace's tensor names, the panel's values (True, False), the
    source lines as the loop chooser cuts them, and the Latin names the Chinese catalog titles
    keep from the English (Softmax, FlashAttention, LayerNorm)."""
    out = list(data_strings(win))
    tr = win.grid.trace()
    if tr is not None:
        out += [t.name for t in tr.tensors]
        for line in tr.source.splitlines():
            code = line.split("#")[0].strip()
            out += [code[:32], code[:48]]
    out += [str(v) for v in win.panel.values().values() if isinstance(v, bool)]  # (a number would be cut out of "fp32")
    for info in win.session.infos.values():
        english = set(_LATIN.findall(info.title))
        out += [w for w in _LATIN.findall(kernel_text(info.title)) if w in english]
    return sorted({s for s in out if s}, key=len, reverse=True)


def _trace(win, name: str) -> None:
    assert win.select_kernel(name)
    win.trace()
    wait_until(lambda: win.grid.trace() is not None and win.grid.trace().kernel == name
               and not win.grid.is_loading() and not win._busy_kinds(), 300, f"the trace of {name}")


@pytest.mark.parametrize("state", ["matmul", "softmax pinned", "attention", "layernorm", "lesson docked"])
def test_every_visible_word_is_chinese(qtbot, win, state):
    # breaks if a word the window shows at this state (a map's title, the hover text of a pinned
    # program, the loop chooser, the lesson's file) stayed English in the Chinese window
    kernel = {"softmax pinned": "softmax", "lesson docked": "vector_add"}.get(state, state)
    _trace(win, kernel)
    texts = window_texts(win) + [("trace caption", win.trace_caption.text())]
    if state == "softmax pinned":
        win.grid.hover_program(5)
        assert win.grid.pin()
        texts.append(("hover", win.grid.hover_text()))
    if state == "lesson docked":
        win.docks.lessons.show()
        win.docks.lessons.raise_()
        lessons = win.lessons
        assert lessons.select_lesson(lessons.lesson_names()[0])
        qtbot.waitUntil(lambda: win.docks.lessons.isVisible(), timeout=5000)
        texts = window_texts(win)
        # the file's own words: its docstrings and comments (its code is data)
        source = lessons.editor.text()
        assert source == starter_text(lessons.lesson_names()[0], "zh_CN")
        texts += [("lesson file", t.string) for t in tokenize.generate_tokens(io.StringIO(source).readline)
                  if t.type in (tokenize.COMMENT, tokenize.STRING)]
    given = shown_as_given(win)
    if state == "lesson docked":  # the words name the file's own functions and variables (launch, out)
        given += [n.id if isinstance(n, ast.Name) else n.name for n in ast.walk(ast.parse(lessons.editor.text()))
                  if isinstance(n, (ast.Name, ast.FunctionDef))
                  and len(n.id if isinstance(n, ast.Name) else n.name) > 2]  # ("x" would be cut out of "max")
    found = english_left(texts, sorted(set(given), key=len, reverse=True))
    assert not found, "\n".join(found)
    if state == "softmax pinned":
        win.grid.unpin()
