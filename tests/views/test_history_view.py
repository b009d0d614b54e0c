"""HistoryView: rows, selecting two to compare, reload, export, and the comparison itself."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog

from views.demo_results import demo_history_rows, demo_run_result
from views.history_view import COLUMNS, HistoryView, history_row


@pytest.fixture
def view(on_screen):
    v = on_screen(HistoryView(), 1000, 360)
    v.set_rows(demo_history_rows(3))
    return v


def _click_row(qtbot, view, row, modifier=Qt.KeyboardModifier.NoModifier):
    rect = view.table.visualRect(view.table.model().index(row, 1))
    qtbot.mouseClick(view.table.viewport(), Qt.MouseButton.LeftButton, modifier, rect.center())


def test_rows_shown_newest_first(view):
    assert view.table.model().rowCount() == 3 and view.count_label.text() == "3 runs"
    assert [view.table.model().index(r, 0).data(Qt.ItemDataRole.UserRole + 2) for r in range(3)] == [3, 2, 1]
    metric = view.table.model().index(2, COLUMNS.index(("metric", "Metric"))).data()
    assert metric.endswith("GB/s")


def test_select_two_then_compare(qtbot, view):
    # breaks if two selected runs cannot be compared, or the wrong ids are sent
    assert not view.compare_button.isEnabled()
    _click_row(qtbot, view, 0)
    assert view.reload_button.isEnabled() and not view.compare_button.isEnabled()
    _click_row(qtbot, view, 2, Qt.KeyboardModifier.ControlModifier)
    assert view.compare_button.isEnabled() and not view.reload_button.isEnabled()
    with qtbot.waitSignal(view.compareRequested) as blocker:
        qtbot.mouseClick(view.compare_button, Qt.MouseButton.LeftButton)
    assert blocker.args == [1, 3]


def test_reload_by_button_and_double_click(qtbot, view):
    _click_row(qtbot, view, 1)
    with qtbot.waitSignal(view.reloadRequested) as blocker:
        qtbot.mouseClick(view.reload_button, Qt.MouseButton.LeftButton)
    assert blocker.args == [2]
    rect = view.table.visualRect(view.table.model().index(0, 2))
    # QTest's double click alone is not seen as one by item views: press/release first, as a hand does
    qtbot.mouseClick(view.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    with qtbot.waitSignal(view.reloadRequested) as blocker:
        qtbot.mouseDClick(view.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert blocker.args == [3]


def test_export_asks_for_a_file(qtbot, view, monkeypatch):
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: ("/tmp/runs", "JSON (*.json)"))
    with qtbot.waitSignal(view.exportRequested) as blocker:
        qtbot.mouseClick(view.export_button, Qt.MouseButton.LeftButton)
    assert blocker.args == ["/tmp/runs.json", "json"]
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: ("/tmp/runs.csv", "CSV table (*.csv)"))
    with qtbot.waitSignal(view.exportRequested) as blocker:
        qtbot.mouseClick(view.export_button, Qt.MouseButton.LeftButton)
    assert blocker.args == ["/tmp/runs.csv", "csv"]


def test_filter(qtbot, view):
    qtbot.keyClicks(view.filter_edit, "interpreter")
    assert view.row_count() == 1


def test_comparison_highlights_differences(view):
    # breaks if the comparison does not point at what changed between two runs
    a = history_row(7, demo_run_result({"BLOCK_SIZE": 512}), "GB/s", when=1.0)
    b = history_row(8, demo_run_result({"BLOCK_SIZE": 2048}), "GB/s", when=2.0)
    dlg = view.show_comparison(a, b)
    diff = dlg.differing()
    assert "BLOCK_SIZE" in diff and "num_warps" not in diff and "ms" in diff
    t = dlg.table
    row = next(r for r in range(t.rowCount()) if t.item(r, 0).text() == "BLOCK_SIZE")
    assert (t.item(row, 1).text(), t.item(row, 2).text()) == ("512", "2048")
    assert t.item(row, 1).background().color().name() == "#fff1b8"
    ms_row = next(r for r in range(t.rowCount()) if t.item(r, 0).text() == "ms")
    expected = 100 * (b["ms"] - a["ms"]) / a["ms"]
    assert t.item(ms_row, 3).text() == f"{expected:+.1f}%"
    assert "BLOCK_SIZE changed" in dlg.summary.text()
    view.close()  # closing the panel closes its comparison window
    assert not dlg.isVisible()


def test_history_row_from_interpreter_result():
    r = history_row(1, demo_run_result({"N": 4096}, backend="interpreter"), "GB/s", when=0.0)
    assert r["metric"] is None and r["metric_unit"] == "ms" and r["ratio_vs_torch"] is None
    assert r["check"] == "pass" and r["values"]["N"] == 4096


def test_new_runs_keep_the_selection_and_drop_the_oldest(qtbot, view):
    # breaks if each refresh (every run, every sweep point) re-sorts from scratch: the user's
    # selection of two runs to compare would vanish while a sweep streams in
    rows = demo_history_rows(5)
    view.set_rows(rows[:3])  # runs 1..3
    _click_row(qtbot, view, 0)
    _click_row(qtbot, view, 2, Qt.KeyboardModifier.ControlModifier)
    assert view.selected_ids() == [3, 1]
    view.set_rows(rows[1:])  # runs 4 and 5 are new  # the oldest (id 1) drops out, as past the window's limit
    assert view.row_count() == 4 and view.count_label.text() == "4 runs"
    assert [view.table.model().index(r, 0).data(Qt.ItemDataRole.UserRole + 2) for r in range(4)] == [5, 4, 3, 2]
    assert view.selected_ids() == [3]  # run 1 left, run 3 still selected
    changed = [dict(r) for r in rows[1:]]
    changed[0]["kernel"] = "renamed"  # a row that changed: redrawn from scratch, still right
    view.set_rows(changed)
    assert sorted(r["kernel"] for r in view.rows()).count("renamed") == 1


def test_columns_are_wide_enough_for_their_text(qtbot, view):
    # breaks if a column is cut ("2026-11-…") because it was sized before wider rows arrived
    rows = demo_history_rows(40)
    view.set_rows(rows[:2])
    rows[-1] = {**rows[-1], "kernel": "a_kernel_with_a_much_longer_name"}
    view.set_rows(rows)
    hh, fm, model = view.table.horizontalHeader(), view.table.fontMetrics(), view.table.model()
    for c in range(model.columnCount()):
        if COLUMNS[c][0] == "params":  # at most PARAMS_MAX_WIDTH wide: the unchanged ones may elide
            continue
        widest = max(fm.horizontalAdvance(str(model.index(r, c).data())) for r in range(model.rowCount()))
        assert hh.sectionSize(c) >= widest, (c, hh.sectionSize(c), widest)


# the history dock's width in a 1366-wide window: app.window.docks gives the right column 0.3 of it
DOCK_WIDTH_AT_1366 = int(1366 * 0.3)


def _matmul_rows(block_k_values):
    base = {"M": 2048, "N": 2048, "K": 2048, "BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 128, "GROUP_SIZE_M": 8,
            "num_warps": 8, "num_stages": 4, "dtype": "fp16"}
    rows = []
    for i, bk in enumerate(block_k_values):
        res = demo_run_result({**base, "BLOCK_SIZE_K": bk}, metric="TFLOP/s")
        rows.append({**history_row(i + 1, res, "TFLOP/s", when=1000.0 + i), "kernel": "matmul"})
    return rows


def test_the_parameter_that_differs_and_the_time_are_in_sight(qtbot):
    # breaks if the history hides what changed between runs (BLOCK_SIZE_K, the last of ten
    # parameters) behind the nine that did not, or pushes ms past the dock's right edge
    view = HistoryView()
    qtbot.addWidget(view)
    view.resize(DOCK_WIDTH_AT_1366, 300)
    view.show()
    view.set_rows(_matmul_rows([32, 64]))
    model, params_col = view.table.model(), COLUMNS.index(("params", "Parameters"))
    text = model.index(0, params_col).data()
    assert text.startswith("BLOCK_SIZE_K=64 · "), text
    assert "M=2048" in text and "num_stages=4" in text  # the rest is still there, after
    # the cell shows at least its first 16 characters (elided on the right, never on the left)
    shown = view.table.columnWidth(params_col)
    assert shown >= view.table.fontMetrics().horizontalAdvance(text[:16] + "…"), shown
    viewport = view.table.viewport().width()
    for key in ("ms", "metric"):
        c = [k for k, _ in COLUMNS].index(key)
        right = view.table.columnViewportPosition(c) + view.table.columnWidth(c)
        assert 0 <= view.table.columnViewportPosition(c) and right <= viewport, (key, right, viewport)
        assert model.index(0, c).data() not in ("", "—")
    # a third run changing num_warps as well: both lead every row, the older rows' cells too
    view.set_rows(_matmul_rows([32, 64]) + [{**_matmul_rows([128])[0], "id": 3, "time": 1002.0,
                                            "values": {**_matmul_rows([128])[0]["values"], "num_warps": 4}}])
    cells = [model.index(r, params_col).data() for r in range(3)]
    lead = sorted(sorted(c.split(" · ")[0].split()) for c in cells)
    assert lead == [["BLOCK_SIZE_K=128", "num_warps=4"], ["BLOCK_SIZE_K=32", "num_warps=8"],
                    ["BLOCK_SIZE_K=64", "num_warps=8"]], cells
