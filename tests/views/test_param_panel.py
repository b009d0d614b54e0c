"""ParamPanel driven as a person would: typing into fields, pressing arrows, reading the reasons."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QLabel

from views.demo_results import matmul_info, softmax_info, vector_add_info
from views.param_panel import ParamPanel


@pytest.fixture
def panel(qtbot):
    p = ParamPanel(vector_add_info())
    qtbot.addWidget(p)
    p.show()
    return p


def _retype(qtbot, widget, text):
    """Select what is in the field and type over it, as a user would."""
    line = widget.lineEdit() if hasattr(widget, "lineEdit") else widget
    line.selectAll()
    qtbot.keyClicks(line, text)


def test_defaults_are_valid_and_typed(panel):
    # breaks if the panel does not start from the kernel's defaults as typed values
    assert panel.is_valid()
    assert panel.values() == {"BLOCK_SIZE": 1024, "num_warps": 4, "num_stages": 3, "N": 98432, "dtype": "fp32"}
    assert panel.errors() == {}


def test_non_power_of_two_block_is_reported(qtbot, panel):
    # breaks if a typed BLOCK_SIZE=100 is accepted or rounded silently instead of explained
    spin = panel.editor("BLOCK_SIZE")
    with qtbot.waitSignal(panel.validityChanged) as blocker:
        _retype(qtbot, spin, "100")
    assert blocker.args == [False]
    assert spin.cleanText() == "100"
    reason = panel.error_for("BLOCK_SIZE")
    assert "power of two" in reason and "64 or 128" in reason
    label = panel.findChild(QLabel, "error_BLOCK_SIZE")
    assert label.text() == reason and not label.isHidden()
    assert panel.is_marked("BLOCK_SIZE") and not panel.is_marked("N")
    # fixing it re-enables and emits the corrected values
    emitted = []
    panel.valuesChanged.connect(emitted.append)
    with qtbot.waitSignal(panel.validityChanged):
        _retype(qtbot, spin, "128")
    assert panel.is_valid() and panel.values()["BLOCK_SIZE"] == 128
    assert emitted[-1]["BLOCK_SIZE"] == 128
    assert panel.error_for("BLOCK_SIZE") == "" and label.isHidden() and not panel.is_marked("BLOCK_SIZE")


def test_block_arrows_double_and_halve(qtbot, panel):
    # breaks if the arrows step by 1 instead of powers of two
    spin = panel.editor("BLOCK_SIZE")
    qtbot.keyClick(spin, Qt.Key.Key_Up)
    assert spin.value() == 2048
    qtbot.keyClick(spin, Qt.Key.Key_Down)
    qtbot.keyClick(spin, Qt.Key.Key_Down)
    assert spin.value() == 512
    _retype(qtbot, spin, "100")  # from a typed non-power, Up goes to the next power of two
    qtbot.keyClick(spin, Qt.Key.Key_Up)
    assert spin.value() == 128 and panel.is_valid()
    spin.setValue(65536)  # the kernel's maximum: Up stays there
    qtbot.keyClick(spin, Qt.Key.Key_Up)
    assert spin.value() == 65536


@pytest.mark.parametrize(("text", "expected"), [
    ("abc", "N: 'abc' is not an integer"),
    ("0", "N=0: a size must be positive"),
    ("-5", "N=-5: a size must be positive"),
])
def test_bad_sizes_give_reasons(qtbot, panel, text, expected):
    # breaks if a nonsense problem size is accepted, or its reason is not shown under the field
    edit = panel.editor("N")
    with qtbot.waitSignal(panel.validityChanged) as blocker:
        _retype(qtbot, edit, text)
    assert blocker.args == [False]
    assert panel.error_for("N") == expected
    assert not panel.findChild(QLabel, "error_N").isHidden()
    emitted = []
    panel.valuesChanged.connect(emitted.append)
    _retype(qtbot, edit, "2**12")  # passes through "2" and "2*" on the way
    assert emitted[-1]["N"] == 4096 and panel.is_valid() and panel.error_for("N") == ""


def test_num_warps_steps_through_allowed_values_and_rejects_3(qtbot, panel):
    # breaks if num_warps can be set to a value Triton refuses without the panel saying so
    spin = panel.editor("num_warps")
    qtbot.keyClick(spin, Qt.Key.Key_Up)
    assert spin.value() == 8
    qtbot.keyClick(spin, Qt.Key.Key_Down)
    qtbot.keyClick(spin, Qt.Key.Key_Down)
    assert spin.value() == 2
    _retype(qtbot, spin, "3")
    assert not panel.is_valid()
    assert panel.error_for("num_warps") == "num_warps=3 is not allowed (allowed: 1, 2, 4, 8, 16, 32)"


def test_only_valid_values_are_emitted(qtbot, panel):
    # breaks if the session would be handed values that do not validate
    seen = []
    panel.valuesChanged.connect(seen.append)
    _retype(qtbot, panel.editor("N"), "12x")
    # "1" and "12" were valid on the way and emitted; "12x" is not
    assert [v["N"] for v in seen] == [1, 12]
    assert not panel.is_valid() and panel.error_for("N") == "N: '12x' is not an integer"


def test_dtype_combo_lists_only_kernel_dtypes_and_emits(qtbot, panel):
    combo = panel.editor("dtype")
    assert [combo.itemText(i) for i in range(combo.count())] == ["fp32", "fp16", "bf16"]
    with qtbot.waitSignal(panel.valuesChanged) as blocker:
        combo.setCurrentIndex(1)
    assert blocker.args[0]["dtype"] == "fp16"


def test_gpu_backend_disabled_with_reason(qtbot, panel):
    # breaks if a user without a GPU can pick GPU, or is not told why it is greyed out
    assert panel.backend() == "gpu"
    with qtbot.waitSignal(panel.backendChanged) as blocker:
        panel.set_gpu_available(False, "torch.cuda.is_available() is False")
    assert blocker.args == ["interpreter"]
    item = panel.backend_combo.model().item(0)
    assert not item.isEnabled() and item.toolTip() == "torch.cuda.is_available() is False"
    assert "torch.cuda.is_available() is False" in panel.backend_note.text() and not panel.backend_note.isHidden()
    panel.set_backend("gpu")  # refused while unavailable
    assert panel.backend() == "interpreter"
    assert not panel.launch_note.isHidden()  # launch options do nothing under the interpreter
    panel.set_gpu_available(True)
    assert panel.backend() == "gpu" and panel.backend_note.isHidden() and item.isEnabled()


def test_rule_violation_marks_its_fields(qtbot):
    # breaks if a cross-parameter rule (the fused softmax's BLOCK_SIZE >= N) is not shown on
    # every field it names
    p = ParamPanel(softmax_info())
    qtbot.addWidget(p)
    p.show()
    _retype(qtbot, p.editor("N"), "1000")
    assert p.is_valid()
    with qtbot.waitSignal(p.validityChanged) as blocker:
        qtbot.keyClick(p.editor("BLOCK_SIZE"), Qt.Key.Key_Down)  # 1024 -> 512
    assert blocker.args == [False]
    assert "must cover a whole row" in p.error_for("BLOCK_SIZE")
    assert p.is_marked("BLOCK_SIZE") and p.is_marked("N") and not p.is_marked("M")
    qtbot.keyClick(p.editor("BLOCK_SIZE"), Qt.Key.Key_Up)
    assert p.is_valid() and not p.is_marked("N") and p.error_for("BLOCK_SIZE") == ""


def test_a_rule_over_one_shape_marks_that_field(qtbot, panel):
    # breaks if a rule naming one field (vector add: N + BLOCK_SIZE <= 2**31) is not shown there
    _retype(qtbot, panel.editor("N"), str(2**31 - 100))
    assert not panel.is_valid()
    assert "offsets are 32-bit" in panel.error_for("N") and panel.is_marked("N")
    assert not panel.is_marked("BLOCK_SIZE")
    _retype(qtbot, panel.editor("N"), "4096")
    assert panel.is_valid() and not panel.is_marked("N")


def test_flag_checkbox_and_set_values(qtbot):
    p = ParamPanel(matmul_info())
    qtbot.addWidget(p)
    p.show()
    box = p.editor("TF32")
    assert box.isChecked()
    with qtbot.waitSignal(p.valuesChanged) as blocker:  # click the tick box itself (left end)
        qtbot.mouseClick(box, Qt.MouseButton.LeftButton, pos=QPoint(8, box.height() // 2))
    assert blocker.args[0]["TF32"] is False
    p.set_values({"BLOCK_M": 128, "M": 4096, "unknown": 1})
    assert p.values()["BLOCK_M"] == 128 and p.values()["M"] == 4096 and p.is_valid()
    p.reset_defaults()
    assert p.values()["BLOCK_M"] == 64 and p.values()["TF32"] is True


def test_a_field_the_worker_rejects_is_marked_until_the_next_edit(qtbot, panel):
    # breaks if an error only the worker can find ("too large for this device") is not shown
    # on its field, or the mark outlives the edit that fixes it
    assert panel.mark_field("N", "N=98432 is too large for this device")
    assert panel.is_marked("N") and panel.error_for("N") == "N=98432 is too large for this device"
    assert not panel.findChild(QLabel, "error_N").isHidden()
    assert not panel.mark_field("NO_SUCH_FIELD", "x")
    panel.clear_marks()
    assert not panel.is_marked("N") and panel.error_for("N") == ""
    panel.mark_field("N", "too large")
    _retype(qtbot, panel.editor("N"), "4096")
    assert not panel.is_marked("N") and panel.values()["N"] == 4096


@pytest.mark.parametrize("width", [218, 196])  # the column in English and in Chinese at 1366×768
@pytest.mark.parametrize("info", [matmul_info, vector_add_info, softmax_info])
def test_in_a_laptops_column_the_fields_fit_without_a_sideways_scroll(on_screen, info, width):
    # breaks if a field keeps a spin box's own least width (room for its largest value, 124 px):
    # in the 218 px Parameters column of a 1366×768 window matmul's fields were cut at the right
    # under a sideways scroll bar
    p = on_screen(ParamPanel(info()), width, 500, exposed=True)
    host = p._form_host
    scroll = host.parentWidget().parentWidget()  # the scroll area's viewport's parent
    assert host.minimumSizeHint().width() <= scroll.viewport().width(), (host.minimumSizeHint(), scroll.viewport())
    assert not scroll.horizontalScrollBar().isVisible()
    for edit in host.findChildren(QLabel):
        if edit.isVisible() and edit.wordWrap():
            assert edit.geometry().right() <= host.width()
