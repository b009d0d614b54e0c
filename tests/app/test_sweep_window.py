"""A sweep of three parameters from the window, against a real worker on the interpreter.

Driven as a person would: the Sweep dialog with an added parameter and a constraint, the tuning
tabs filling, a click on a ranked row putting that point's values into the parameter panel.
"""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6.QtWidgets")
pytest.importorskip("pytestqt")

from PySide6.QtCore import Qt  # noqa: E402

from app.history import History  # noqa: E402
from app.main_window import MainWindow  # noqa: E402
from app.settings import Settings  # noqa: E402
from app.window.sweep_setup import TuneSweepDialog  # noqa: E402
from views.demo_results import vector_add_info  # noqa: E402


@pytest.fixture
def win(qtbot, tmp_path):
    w = MainWindow(settings=Settings.load(tmp_path / "settings.json"), history=History.open(tmp_path / "history.db"))
    w.show()
    qtbot.waitUntil(w.run_action.isEnabled, timeout=120_000)  # the worker's hello
    yield w
    w.close()


def _type(qtbot, edit, text: str) -> None:
    edit.selectAll()
    qtbot.keyClicks(edit, text)


def test_the_dialog_takes_a_third_parameter_and_a_constraint(qtbot):
    # breaks if a third parameter or a constraint cannot be given, or the count ignores the constraint
    dlg = TuneSweepDialog(vector_add_info(), {"BLOCK_SIZE": 64, "N": 128, "dtype": "fp32"}, None, interpreter=True)
    qtbot.addWidget(dlg)
    dlg.set_param(0, "BLOCK_SIZE")
    _type(qtbot, dlg.values_edit[0], "32, 64")
    dlg.second.setChecked(True)
    dlg.set_param(1, "N")
    _type(qtbot, dlg.values_edit[1], "32, 128")
    qtbot.mouseClick(dlg.add_button, Qt.MouseButton.LeftButton)
    dlg.set_param(2, "dtype")
    _type(qtbot, dlg.values_edit[2], "fp32, fp16")
    assert "8 points" in dlg.message.text() and dlg.tune_check.isChecked() and not dlg.tune_check.isEnabled()
    qtbot.keyClicks(dlg.where_edit, "BLOCK_SIZE <= N")
    assert "6 points" in dlg.message.text() and "2 combinations removed" in dlg.message.text()
    dlg.set_param(2, "num_warps")  # a launch option, on the interpreter: refused here
    _type(qtbot, dlg.values_edit[2], "2, 4")
    assert not dlg.ok_button().isEnabled() and "no effect under the interpreter" in dlg.message.text()
    qtbot.mouseClick(dlg.findChild(type(dlg.add_button), "sweep_remove_2"), Qt.MouseButton.LeftButton)
    assert dlg.ok_button().isEnabled() and dlg.axes() == {"BLOCK_SIZE": [32, 64], "N": [32, 128]}
    assert dlg.where() == ["BLOCK_SIZE <= N"] and dlg.mode() == "tune"


def test_a_three_axis_sweep_fills_the_tuning_tabs_and_a_row_loads_its_values(qtbot, win):
    # breaks if the window cannot run more than two axes, a view stays empty, or a click loads nothing
    win.select_kernel("vector_add")
    win.set_backend("interpreter")
    win.panel.set_values({"N": 128, "BLOCK_SIZE": 64, "dtype": "fp32"})
    n_runs = win.history.count()
    win.run()
    qtbot.waitUntil(lambda: win.history.count() > n_runs and not win._busy_kinds(), timeout=60_000)
    dlg = win.open_sweep_dialog()
    dlg.set_param(0, "BLOCK_SIZE")
    _type(qtbot, dlg.values_edit[0], "32, 64")
    dlg.second.setChecked(True)
    dlg.set_param(1, "N")
    _type(qtbot, dlg.values_edit[1], "32, 128")
    dlg.add_param("dtype")
    _type(qtbot, dlg.values_edit[2], "fp32, fp16")
    qtbot.keyClicks(dlg.where_edit, "BLOCK_SIZE <= N")
    qtbot.mouseClick(dlg.ok_button(), Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: win.session.sweep is not None and win.session.sweep.finished, timeout=120_000)
    tabs = win.sweep_tabs
    assert win.plot_tabs.currentWidget() is tabs.heatmap  # more than two axes: the heatmap comes forward
    assert win.session.sweep.total == 6 and win.session.sweep.done == 6
    g = tabs.heatmap.grid()
    assert (g.x, g.y) == ("BLOCK_SIZE", "N") and g.index.shape == (2, 2)
    rows = tabs.table.rows()
    assert len(rows) == 6 and sum(r.rank == 1 for r in rows) == 4  # one winner per (N, dtype) group
    assert all("winner" in v for v in tabs.table.summary.text().splitlines()[1:])
    assert tabs.roofline.point_data()["runs"][0].size == 1 and tabs.roofline.point_data()["sweep"][0].size == 6
    assert "roofs unavailable" in tabs.roofline.title.text()
    tabs.show("table")
    last = len(rows) - 1
    want = rows[last].values
    rect = tabs.table.view.visualRect(tabs.table.proxy.index(last, 1))
    qtbot.mouseClick(tabs.table.view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    got = win.panel.values()
    assert {k: got[k] for k in want} == want, (got, want)
    assert "loaded" in win.statusBar().currentMessage()
