"""CompileView: the resource form, the IR tabs and their find box, and the interpreter message."""

import dataclasses
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest
from PySide6.QtCore import Qt

from views.compile_view import CompileView
from views.demo_results import demo_compile_facts


@pytest.fixture
def view(on_screen):
    return on_screen(CompileView(), 760, 560)


def test_facts_and_tabs(view):
    # breaks if the register count or an IR present in the facts is not shown (or one absent is)
    f = demo_compile_facts()
    view.set_facts(f)
    assert view.fields["regs"].text() == "26"
    assert view.fields["spills"].text() == "0"
    assert view.fields["warps"].text() == "4 (128 threads / program)"
    assert view.fields["waves"].text().startswith(f"{f.waves:.2f} (16,384 programs on 132 SMs")
    assert view.tab_names() == ["ttir", "ttgir", "llir", "ptx"]  # no sass in these facts
    assert view.show_ir("ptx") and not view.show_ir("sass")
    ed = view.current_editor()
    assert ed.isReadOnly() and ".target sm_90a" in ed.toPlainText()


def test_find_box_counts_and_selects(qtbot, view):
    view.set_facts(demo_compile_facts())
    view.show_ir("ptx")
    qtbot.keyClicks(view.find_edit, ".reg")
    assert view.match_count() == 4 and view.match_label.text() == "4 matches"
    qtbot.keyClick(view.find_edit, Qt.Key.Key_Return)
    assert view.current_editor().textCursor().selectedText() == ".reg"
    view.show_ir("ttir")  # counts follow the tab
    assert view.match_count() == 0


def test_spills_are_flagged(view):
    f = demo_compile_facts()
    f.n_spills = 12
    view.set_facts(f)
    assert "12 (registers spilled" in view.fields["spills"].text()
    assert "color" in view.fields["spills"].styleSheet()


def test_interpreter_message(view):
    # breaks if an interpreter run shows blank numbers instead of saying why there are none
    view.set_facts(None)
    assert view.stack.currentWidget() is view.message
    assert view.message.text().startswith("No compile facts: the interpreter does not compile")
    assert view.tab_names() == []


def test_choosing_a_target_asks_for_its_compile_and_last_run_comes_back(qtbot, view):
    # breaks if picking a GPU in the combo does not ask the app to compile for it, a compile's
    # facts are overwritten by a run meanwhile, or "last run" does not show the run's facts again
    run = demo_compile_facts()
    view.set_facts(run)
    assert view.current_target() == "" and not view.compile_button.isEnabled()
    view.target_combo.setFocus()
    with qtbot.waitSignal(view.targetRequested) as sig:
        qtbot.keyClicks(view.target_combo, "sm_89")
    assert sig.args == ["sm_89"] and view.compile_button.isEnabled()
    view.show_compiling("sm_89", "matmul")
    assert view.facts() is None and view.message.text() == "Compiling matmul for sm_89…"
    target = dataclasses.replace(run, n_regs=40, asm={"ptx": ".target sm_89"})
    view.show_target_facts("sm_90", run)  # an answer for a target no longer chosen: not shown
    assert view.facts() is None
    view.show_target_facts("sm_89", target, ["compiled here for sm_89"])
    assert view.fields["regs"].text() == "40" and view.target_note.text() == "compiled here for sm_89"
    view.set_facts(dataclasses.replace(run, n_regs=99))  # a run lands: kept for "last run"
    assert view.fields["regs"].text() == "40"
    with qtbot.waitSignal(view.targetRequested) as sig:
        qtbot.mouseClick(view.compile_button, Qt.MouseButton.LeftButton)
    assert sig.args == ["sm_89"]
    view.select_target("")
    assert view.fields["regs"].text() == "99" and view.target_note.text() == ""


def test_a_failed_target_compile_is_one_line(view):
    # breaks if a compiler error floods the tab with its traceback instead of saying why in a line
    view.select_target("sm_100")
    view.show_target_error("sm_100", "compiling k for sm_100 failed: arange's range must be a power of 2\n"
                                     "Traceback (most recent call last):\n  ...")
    text = view.message.text()
    assert text == "Could not compile for sm_100: compiling k for sm_100 failed: arange's range must be a power of 2"
    assert view.stack.currentWidget() is view.message and view.facts() is None
