"""KernelPicker: filtering, choosing, opening a user file and reloading it."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog

from views.demo_results import demo_kernels, vector_add_info
from views.kernel_picker import KernelPicker


@pytest.fixture
def picker(on_screen):
    return on_screen(KernelPicker(demo_kernels()), 320, 420)


def test_lists_every_kernel_in_order(picker):
    assert picker.kernel_names() == ["vector_add", "vector_mul", "softmax", "matmul", "my_add"]


def test_typing_filters_by_title_summary_and_file(qtbot, picker):
    # breaks if the search box does not narrow the list, or ignores the summary / file name
    qtbot.keyClicks(picker.search, "vector")
    assert picker.kernel_names() == ["vector_add", "vector_mul", "my_add"]  # my_add: "my copy of vector add"
    picker.search.clear()
    qtbot.keyClicks(picker.search, "my_add.py")
    assert picker.kernel_names() == ["my_add"]
    picker.search.clear()
    qtbot.keyClicks(picker.search, "row softmax")  # words in any order
    assert picker.kernel_names() == ["softmax"]
    qtbot.keyClicks(picker.search, "zzz")
    assert picker.kernel_names() == [] and not picker.empty_label.isHidden()


def test_click_selects_and_emits(qtbot, picker):
    # breaks if clicking a kernel does not tell the app which one
    idx = picker.list.model().index(3, 0)
    rect = picker.list.visualRect(idx)
    with qtbot.waitSignal(picker.kernelSelected) as blocker:
        qtbot.mouseClick(picker.list.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert blocker.args == ["matmul"] and picker.current_name() == "matmul"


def test_enter_in_search_picks_first_match(qtbot, picker):
    qtbot.keyClicks(picker.search, "mul")
    with qtbot.waitSignal(picker.kernelSelected) as blocker:
        qtbot.keyClick(picker.search, Qt.Key.Key_Return)
    assert blocker.args == ["vector_mul"]


def test_programmatic_select_is_silent_and_clears_hiding_filter(qtbot, picker):
    seen = []
    picker.kernelSelected.connect(seen.append)
    qtbot.keyClicks(picker.search, "matrix")
    assert picker.select("vector_add")
    assert picker.current_name() == "vector_add" and picker.search.text() == "" and seen == []
    assert not picker.select("nope")
    assert picker.select("softmax", emit=True) and seen == ["softmax"]


def test_open_file_emits_chosen_path(qtbot, picker, monkeypatch):
    # breaks if the chosen file is not handed to the app (cancel must emit nothing)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: ("/home/me/k.py", "Python files (*.py)"))
    with qtbot.waitSignal(picker.openFileRequested) as blocker:
        qtbot.mouseClick(picker.open_button, Qt.MouseButton.LeftButton)
    assert blocker.args == ["/home/me/k.py"]
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: ("", ""))
    with qtbot.assertNotEmitted(picker.openFileRequested):
        qtbot.mouseClick(picker.open_button, Qt.MouseButton.LeftButton)


def test_reload_only_with_a_user_file_and_shows_changed_state(qtbot):
    # breaks if Reload is offered without a user file, or a changed file is not flagged
    w = KernelPicker([vector_add_info()])
    qtbot.addWidget(w)
    assert not w.reload_button.isEnabled()
    w.set_kernels(demo_kernels())
    assert w.reload_button.isEnabled() and w.reload_button.text() == "Reload"
    w.set_file_changed(True)
    assert "changed on disk" in w.reload_button.text()
    with qtbot.waitSignal(w.reloadRequested) as blocker:
        qtbot.mouseClick(w.reload_button, Qt.MouseButton.LeftButton)
    assert blocker.args == ["/home/me/kernels/my_add.py"]
    w.set_file_changed(False)
    assert w.reload_button.text() == "Reload"


def test_set_kernels_keeps_selection(picker):
    picker.select("matmul")
    picker.set_kernels(list(reversed(demo_kernels())))
    assert picker.current_name() == "matmul"
