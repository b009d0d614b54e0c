"""The lesson's file in Chinese: the starter's and the solution's docstrings and comments read in
Chinese in a Chinese window, their code the same as the English; an untouched starter follows a
language switch, a learner's work never does."""

from __future__ import annotations

import ast
import re

import pytest
from PySide6.QtWidgets import QApplication

from kernels.data.lessons.starter_words import load_words, untranslated, unused
from kernels.data.lessons.texts import lesson_dir, list_lessons, solution_text, starter_text, write_starter
from views.i18n import install_translator
from views.lesson_view import LessonView

CJK = re.compile(r"[\u4e00-\u9fff]")
LESSONS = [i.name for i in list_lessons()]


def _code(text: str) -> str:
    """The program without its docstrings (comments are not in the tree)."""
    tree = ast.parse(text)
    for node in [tree, *ast.walk(tree)]:
        if isinstance(node, (ast.Module, ast.FunctionDef)) and node.body and isinstance(node.body[0], ast.Expr) \
                and isinstance(node.body[0].value, ast.Constant) and isinstance(node.body[0].value.value, str):
            node.body[0].value.value = ""
    return ast.dump(tree)


def _words(text: str) -> list[str]:
    """Every docstring and comment of ``text``, as a reader sees it."""
    import io
    import tokenize

    tree = ast.parse(text)
    docs = [ast.get_docstring(n) for n in [tree, *ast.walk(tree)]
            if isinstance(n, (ast.Module, ast.FunctionDef)) and ast.get_docstring(n)]
    comments = [t.string for t in tokenize.generate_tokens(io.StringIO(text).readline) if t.type == tokenize.COMMENT]
    return docs + comments


@pytest.mark.parametrize("name", LESSONS)
def test_every_docstring_and_comment_of_the_file_has_its_chinese(name):
    # breaks if a lesson's file gains an English docstring or comment with no Chinese beside it
    # (the Chinese window showed the starter's English docstrings), or the Chinese file keeps an
    # entry the lesson's file no longer has
    words = load_words(lesson_dir(name) / "starter.zh_CN.md")
    starter, solution = starter_text(name), solution_text(name)
    assert untranslated(starter, words) == [] and untranslated(solution, words) == []
    assert [w for w in unused(starter, words) if w in unused(solution, words)] == []
    for text in (starter_text(name, "zh_CN"), solution_text(name, "zh_CN")):
        english = [w for w in _words(text) if not CJK.search(w)]
        assert english == [], english


@pytest.mark.parametrize("name", LESSONS)
def test_the_chinese_file_is_the_same_program(name):
    # breaks if translating the words touched the code (a check of the Chinese starter would then
    # judge another program than the English one)
    assert _code(starter_text(name, "zh_CN")) == _code(starter_text(name))
    assert _code(solution_text(name, "zh_CN")) == _code(solution_text(name))


def test_an_untouched_starter_follows_the_language_and_work_stays(tmp_path):
    # breaks if switching to Chinese kept an English starter nobody typed in, or overwrote work
    name = LESSONS[0]
    p = write_starter(name, tmp_path)
    assert p.read_text(encoding="utf-8") == starter_text(name)
    assert write_starter(name, tmp_path, lang="zh_CN").read_text(encoding="utf-8") == starter_text(name, "zh_CN")
    p.write_text(starter_text(name, "zh_CN") + "# mine\n", encoding="utf-8")
    assert write_starter(name, tmp_path, lang="en").read_text(encoding="utf-8").endswith("# mine\n")


@pytest.fixture
def english():
    app = QApplication.instance()
    yield app
    install_translator(app, "en")


def test_the_chinese_panel_shows_the_chinese_starter_and_follows_a_switch(qtbot, on_screen, tmp_path, english):
    # breaks if the Lessons panel in a Chinese window opens the English starter, or a language
    # switch leaves an untouched starter in the other language
    install_translator(english, "zh_CN")
    view = on_screen(LessonView(tmp_path / "work", tmp_path / "progress", lang="zh_CN"), 1366, 768)
    assert view.select_lesson(LESSONS[0])
    text = view.editor.text()
    assert text == starter_text(LESSONS[0], "zh_CN") and CJK.search(text.split('"""')[1])
    install_translator(english, "en")  # the panel follows the application's language
    qtbot.waitUntil(lambda: view.language() == "en", timeout=5000)
    assert view.editor.text() == starter_text(LESSONS[0])
    view.show_solution()
    install_translator(english, "zh_CN")
    qtbot.waitUntil(lambda: view.language() == "zh_CN", timeout=5000)
    assert view.editor.text() == starter_text(LESSONS[0], "zh_CN")
    assert CJK.search(view.solution_view.text().split('"""')[1])
