"""The Lessons panel, driven as a learner would: pick a lesson, type, Check, read the result, ask
for hints and the solution, edit the file elsewhere. No check runs here (the panel never runs
one): the tests answer ``checkRequested`` with ``LessonResult``s made by hand."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QObject, Qt, QUrl, Slot
from PySide6.QtGui import QDesktopServices, QTextCursor
from PySide6.QtWidgets import QApplication

from kernels.data.lessons.progress import load_progress
from kernels.data.lessons.result import BudgetFigure, LessonResult, WrongElements
from kernels.data.lessons.texts import hints, list_lessons, solution_text, starter_text
from views.demo import demo_matmul, demo_vector_add
from views.i18n import install_translator
from views.lesson_view import LessonView

LESSONS = list_lessons()
CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture
def folders(tmp_path):
    return tmp_path / "work", tmp_path / "progress"


@pytest.fixture
def make_view(on_screen, folders):
    def make(lang: str = "en") -> LessonView:
        return on_screen(LessonView(*folders, lang=lang), 1366, 768, exposed=True)

    return make


@pytest.fixture
def english():
    """Whatever a test switches to, the next one starts in English."""
    app = QApplication.instance()
    yield app
    install_translator(app, "en")


def _click(qtbot, widget) -> None:
    qtbot.mouseClick(widget, Qt.MouseButton.LeftButton)


def _type(qtbot, editor, text: str) -> None:
    """Type ``text`` as keys (a newline as the Return key)."""
    for i, line in enumerate(text.split("\n")):
        if i:
            qtbot.keyClick(editor, Qt.Key.Key_Return)
        if line:
            qtbot.keyClicks(editor, line)


def _open(qtbot, view: LessonView, name: str) -> None:
    """Click lesson ``name`` in the list."""
    lst = view.lesson_list
    row = view.lesson_names().index(name)
    rect = lst.visualItemRect(lst.item(row))
    qtbot.mouseClick(lst.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert view.current_lesson() == name


def _failing(name: str, path: str, **kw) -> LessonResult:
    wrong = WrongElements(tensor="out", kind="never written", shape=(1000,), indices=np.arange(896, 1000),
                          got=np.full(104, -1), expected=np.full(104, 7), text="out 896..999 never written")
    return LessonResult(name=name, passed=False, message="elements 896..999 of out were never written",
                        stage="written", details=["elements 896..999 of out were never written", "grid is (7,)"],
                        wrong=[wrong], path=path, trace=demo_vector_add(), reference_trace=demo_matmul(),
                        elapsed_s=0.5, **kw)


def _check(qtbot, view: LessonView) -> tuple[str, str, str]:
    with qtbot.waitSignal(view.checkRequested, timeout=2000) as sig:
        _click(qtbot, view.check_button)
    return tuple(sig.args)


def test_opens_on_the_first_lesson_not_passed_with_its_starter_file(make_view, folders):
    # breaks if a learner coming back is sent to lesson 1 again, or finds no file to edit
    v = make_view()
    assert v.current_lesson() == LESSONS[0].name
    path = v.lesson_path()
    assert path.parent == folders[0] and path.read_text() == starter_text(LESSONS[0].name)
    assert v.editor.text() == path.read_text()
    assert LESSONS[0].title("en") in v.statement.toPlainText()
    assert v.lesson_list.count() == len(LESSONS)
    assert all(v.lesson_list.item(r).text().startswith("○") for r in range(len(LESSONS)))


def test_check_saves_the_typed_file_and_asks_for_a_check(qtbot, make_view):
    # breaks if Check runs an old copy of the file, or never reaches the app's worker
    v = make_view()
    v.editor.editor().moveCursor(QTextCursor.MoveOperation.End)
    _type(qtbot, v.editor.editor(), "# my edit\n")
    assert v.editor.is_modified() and "(unsaved)" in v.editor.file_label.text()
    name, path, lang = _check(qtbot, v)
    assert (name, lang) == (LESSONS[0].name, "en") and Path(path) == v.lesson_path()
    assert Path(path).read_text().endswith("# my edit\n") and not v.editor.is_modified()
    assert not v.check_button.isEnabled() and v.result_view.badge.text() == "Checking…"
    _click(qtbot, v.check_button)  # a second click while the check runs asks nothing more
    assert v.is_checking()


def test_ctrl_s_saves_the_file(qtbot, make_view):
    # breaks if the usual save key does nothing in the lesson editor
    v = make_view()
    v.activateWindow()
    qtbot.waitUntil(v.isActiveWindow, timeout=5000)  # shortcuts reach the active window only
    ed = v.editor.editor()
    ed.setFocus()
    _type(qtbot, ed, "# saved with the keyboard")
    qtbot.keyClick(ed, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    assert not v.editor.is_modified() and "# saved with the keyboard" in v.lesson_path().read_text()


def test_a_failing_result_shows_its_message_wrong_elements_and_counts_an_attempt(qtbot, make_view, folders):
    # breaks if the learner cannot see why the check failed, or the attempt is not remembered
    v = make_view()
    name, path, _ = _check(qtbot, v)
    with qtbot.waitSignal(v.progressChanged):
        v.show_result(_failing(name, path))
    rv = v.result_view
    assert rv.badge.text() == "Not yet" and "never written" in rv.message.text()
    assert rv.details.isVisible() and "grid is (7,)" in rv.details.text()
    assert "Checked up to: which program wrote each element" in rv.stage.text()
    t = rv.wrong_table
    cells = [t.item(0, c).text() for c in range(t.columnCount())]
    assert cells == ["out", "never written", "104", "896, 897, 898, 899, …", "none (all)", "7 (all)"]
    assert [t.horizontalHeaderItem(c).text() for c in range(6)] == ["Tensor", "Problem", "Count", "Elements",
                                                                    "Yours", "Reference"]
    assert v.check_button.isEnabled()
    st = load_progress(folders[1]).state(name)
    assert st.attempts == 1 and not st.passed
    assert v.lesson_list.item(0).text().startswith("✗")


def test_a_pass_is_marked_kept_and_the_next_visit_starts_at_the_next_lesson(qtbot, make_view, folders):
    # breaks if passing a lesson leaves no mark, or the progress is lost between sessions
    v = make_view()
    name, path, _ = _check(qtbot, v)
    budget = [BudgetFigure(tensor="x", op="load", limit=1, worst=1, worst_program="0", reference=1, mean=1.0)]
    v.show_result(LessonResult(name=name, passed=True, message="Passed: all good", budget=budget, path=path))
    assert v.result_view.badge.text() == "Passed"
    assert v.result_view.budget_table.item(0, 3).text() == "✓ 1 (program 0)"
    assert v.lesson_list.item(0).text().startswith("✓")
    assert load_progress(folders[1]).state(name).passed
    again = make_view()
    assert again.current_lesson() == LESSONS[1].name


def test_show_in_grid_hands_on_the_learners_trace_and_the_references(qtbot, make_view):
    # breaks if the learner cannot get from a failing check to the grid view of their kernel
    v = make_view()
    name, path, _ = _check(qtbot, v)
    result = _failing(name, path)
    v.show_result(result)
    assert v.result_view.grid_button.isVisible() and v.result_view.reference_button.isVisible()
    with qtbot.waitSignal(v.showInGridRequested) as sig:
        _click(qtbot, v.result_view.grid_button)
    assert sig.args[0] is result.trace
    with qtbot.waitSignal(v.showInGridRequested) as sig:
        _click(qtbot, v.result_view.reference_button)
    assert sig.args[0] is result.reference_trace
    _check(qtbot, v)
    v.show_result(LessonResult(name=name, passed=False, message="could not load", stage="load", path=path))
    assert not v.result_view.grid_button.isVisible()  # no trace: nothing to show


def test_the_line_an_error_points_at_is_marked_in_the_editor(qtbot, make_view):
    # breaks if a syntax error's line is named only in words, not shown in the file
    v = make_view()
    name, path, _ = _check(qtbot, v)
    v.show_result(LessonResult(name=name, passed=False, message="SyntaxError at line 5", stage="load",
                               path=path, line=5))
    assert v.editor.source_view().marked_line() == 5
    assert ", line 5" in v.result_view.stage.text()


def test_a_failed_check_request_says_so_and_lets_the_learner_retry(qtbot, make_view):
    # breaks if a worker crash leaves the Check button greyed out for good
    v = make_view()
    _check(qtbot, v)
    v.show_check_error("the worker stopped (timeout)")
    assert v.result_view.badge.text() == "Error" and "timeout" in v.result_view.message.text()
    assert v.check_button.isEnabled() and not v.is_checking()


def test_a_result_arriving_after_switching_lessons_waits_for_its_lesson(qtbot, make_view, folders):
    # breaks if lesson 1's result is drawn over lesson 2, or lost
    v = make_view()
    name, path, _ = _check(qtbot, v)
    _open(qtbot, v, LESSONS[1].name)
    assert not v.check_button.isEnabled()  # one check at a time
    v.show_result(_failing(name, path))
    assert v.result_view.badge.text() == "Not checked" and v.check_button.isEnabled()
    assert load_progress(folders[1]).state(name).attempts == 1
    _open(qtbot, v, name)
    assert v.result_view.badge.text() == "Not yet"


def test_hints_come_one_at_a_time_and_are_remembered(qtbot, make_view, folders):
    # breaks if all hints spill out at once, or seen hints vanish on the next start
    v = make_view()
    name = v.current_lesson()
    all_hints = hints(name, "en")
    assert not v.hints_label.isVisible() and v.hint_button.text() == f"Next hint (1 of {len(all_hints)})"
    _click(qtbot, v.hint_button)
    shown = v.hints_label.text()
    assert v.hints_label.isVisible() and shown.count("<li>") == 1
    assert re.sub(r"<[^>]+>", "", shown).replace("&lt;", "<").replace("&gt;", ">") == all_hints[0].replace("`", "")
    for _ in all_hints[1:]:
        _click(qtbot, v.hint_button)
    assert v.hints_label.text().count("<li>") == len(all_hints)
    assert not v.hint_button.isEnabled() and v.hint_button.text() == "No more hints"
    assert load_progress(folders[1]).state(name).hints_shown == len(all_hints)
    assert make_view().hints_label.text().count("<li>") == len(all_hints)


def test_the_solution_needs_a_confirmation(qtbot, make_view):
    # breaks if one stray click gives the answer away, or the answer cannot be had at all
    v = make_view()
    _click(qtbot, v.solution_button)
    assert v.confirm_bar.isVisible() and not v.solution_visible()
    _click(qtbot, v.confirm_no)
    assert not v.confirm_bar.isVisible() and not v.solution_visible()
    _click(qtbot, v.solution_button)
    _click(qtbot, v.confirm_yes)
    assert v.solution_visible() and v.tabs.currentWidget() is v.solution_view
    assert v.solution_view.text().strip() == solution_text(v.current_lesson()).strip()
    assert v.tabs.tabText(1) == "Solution"
    _open(qtbot, v, LESSONS[1].name)  # another lesson: its solution is not shown unasked
    assert not v.solution_visible()


def test_an_external_edit_reloads_the_editor(qtbot, make_view):
    # breaks if edits made in the learner's own editor never reach the panel (or Check runs
    # the panel's stale copy over them)
    v = make_view()
    path = v.lesson_path()
    path.write_text("# edited elsewhere\n")
    qtbot.waitUntil(lambda: v.editor.text() == "# edited elsewhere\n", timeout=5000)
    assert not v.editor.is_modified()
    # an editor that saves by renaming a new file over the old one
    tmp = path.with_suffix(".tmp")
    tmp.write_text("# saved by rename\n")
    tmp.replace(path)
    qtbot.waitUntil(lambda: v.editor.text() == "# saved by rename\n", timeout=5000)


def test_an_external_edit_over_unsaved_typing_asks_which_to_keep(qtbot, make_view):
    # breaks if the panel silently throws away the learner's typing, or the file's new text
    v = make_view()
    _type(qtbot, v.editor.editor(), "# typed here")
    path = v.lesson_path()
    path.write_text("# from outside\n")
    qtbot.waitUntil(lambda: v.editor.conflict_bar.isVisible(), timeout=5000)
    assert v.editor.text().startswith("# typed here")
    _click(qtbot, v.editor.keep_mine_button)
    assert not v.editor.conflict_bar.isVisible() and v.editor.text().startswith("# typed here")
    path.write_text("# from outside, again\n")
    qtbot.waitUntil(lambda: v.editor.conflict_bar.isVisible(), timeout=5000)
    _click(qtbot, v.editor.take_disk_button)
    assert v.editor.text() == "# from outside, again\n" and not v.editor.is_modified()


class _UrlCatcher(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.urls: list[QUrl] = []

    @Slot(QUrl)
    def open(self, url: QUrl) -> None:
        self.urls.append(url)


def test_open_in_external_editor_saves_and_opens_the_file(qtbot, make_view):
    # breaks if the external editor opens the file without the learner's latest typing
    v = make_view()
    _type(qtbot, v.editor.editor(), "# before opening\n")
    catcher = _UrlCatcher()
    QDesktopServices.setUrlHandler("file", catcher, "open")
    try:
        _click(qtbot, v.editor.external_button)
    finally:
        QDesktopServices.unsetUrlHandler("file")
    assert [u.toLocalFile() for u in catcher.urls] == [str(v.lesson_path())]
    assert v.lesson_path().read_text().startswith("# before opening\n")


def test_every_lesson_in_chinese_shows_its_chinese_statement(qtbot, make_view, english):
    # breaks if a lesson falls back to English (or shows nothing) for a Chinese learner
    install_translator(english, "zh_CN")
    v = make_view("zh_CN")
    for info in LESSONS:
        _open(qtbot, v, info.name)
        text = v.statement.toPlainText()
        assert info.titles["zh_CN"] in text and info.titles["zh_CN"] != info.titles["en"]
        assert len(CJK.findall(text)) > 50
        assert info.titles["zh_CN"] in v.lesson_list.currentItem().text()
        _click(qtbot, v.hint_button)
        assert CJK.search(v.hints_label.text())
        assert v.hint_button.text().startswith("下一条提示") or v.hint_button.text() == "没有更多提示"
    name, _, lang = _check(qtbot, v)
    assert lang == "zh_CN"  # the check's messages come back in Chinese too


def test_switching_the_language_retranslates_the_open_panel(qtbot, make_view, english):
    # breaks if a language switch leaves the panel half in the old language until a restart
    v = make_view("en")
    name, path, _ = _check(qtbot, v)
    v.show_result(_failing(name, path))
    assert v.check_button.text() == "Check" and v.result_view.badge.text() == "Not yet"
    assert install_translator(english, "zh_CN") == "zh_CN"
    qtbot.waitUntil(lambda: v.check_button.text() == "检查", timeout=2000)
    assert v.language() == "zh_CN"
    assert LESSONS[0].titles["zh_CN"] in v.statement.toPlainText()
    assert v.result_view.badge.text() == "未通过" and v.editor.save_button.text() == "保存"
    assert v.result_view.wrong_table.horizontalHeaderItem(0).text() == "张量"
    assert v.result_view.wrong_table.item(0, 1).text() == "从未写入"
    assert v.tabs.tabText(0) == "你的文件" and v.hints_title.text() == "提示"
    install_translator(english, "en")
    qtbot.waitUntil(lambda: v.check_button.text() == "Check", timeout=2000)
    assert v.language() == "en" and LESSONS[0].titles["en"] in v.statement.toPlainText()
