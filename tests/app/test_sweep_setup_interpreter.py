"""The sweep dialog under the interpreter: launch options (num_warps, num_stages) greyed out with
the reason, since every value would run the same program there; on a GPU they stay choosable."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6.QtWidgets")
pytest.importorskip("pytestqt")

from PySide6.QtCore import Qt  # noqa: E402

from app.window.sweep_setup import TuneSweepDialog  # noqa: E402
from views.demo_results import vector_add_info  # noqa: E402

VALUES = {"BLOCK_SIZE": 64, "num_warps": 4, "num_stages": 2, "N": 128, "dtype": "fp32"}


def _dialog(qtbot, interpreter: bool) -> TuneSweepDialog:
    dlg = TuneSweepDialog(vector_add_info(), VALUES, None, interpreter=interpreter)
    qtbot.addWidget(dlg)
    return dlg


def _item_state(combo, name):
    i = combo.findData(name)
    enabled = bool(combo.model().flags(combo.model().index(i, 0)) & Qt.ItemFlag.ItemIsEnabled)
    return enabled, combo.itemData(i, Qt.ItemDataRole.ToolTipRole) or ""


def test_launch_options_are_greyed_out_with_the_reason_under_the_interpreter(qtbot):
    # breaks if the interpreter's sweep offers num_warps / num_stages as if they changed anything
    dlg = _dialog(qtbot, interpreter=True)
    dlg.add_param()
    for combo in dlg.param_combo:  # the two first parameters and an added one
        for name in ("num_warps", "num_stages"):
            enabled, tip = _item_state(combo, name)
            assert not enabled and name in tip and "no effect under the interpreter" in tip, (name, tip)
        assert _item_state(combo, "BLOCK_SIZE")[0] and _item_state(combo, "N")[0]
        assert combo.currentData() not in ("num_warps", "num_stages")  # nor picked by default
    # a person stepping through the list with the keyboard passes over them
    first = dlg.param_combo[0]
    dlg.set_param(0, "BLOCK_SIZE")
    qtbot.keyClick(first, Qt.Key.Key_Down)
    assert first.currentData() == "N"


def test_a_launch_option_given_anyway_is_refused_with_the_reason(qtbot):
    # breaks if a one-axis (grid) interpreter sweep of num_warps can still be started
    dlg = _dialog(qtbot, interpreter=True)
    dlg.set_param(0, "num_warps")
    dlg.values_edit[0].setText("1, 2, 4, 8, 16, 32")
    assert not dlg.ok_button().isEnabled() and "no effect under the interpreter" in dlg.message.text()
    dlg.set_param(0, "BLOCK_SIZE")
    assert dlg.ok_button().isEnabled()


def test_on_a_gpu_launch_options_stay_choosable(qtbot):
    # breaks if the greying leaks to GPU sweeps, where num_warps matters
    dlg = _dialog(qtbot, interpreter=False)
    for name in ("num_warps", "num_stages"):
        assert _item_state(dlg.param_combo[0], name) == (True, "")
    dlg.set_param(0, "num_warps")
    dlg.values_edit[0].setText("2, 4")
    assert dlg.ok_button().isEnabled() and dlg.axes() == {"num_warps": [2, 4]}
