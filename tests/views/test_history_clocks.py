"""HistoryView and issue 22: each run's p20–p80 spread (a bar and ±%) and the SM clock it was
timed at (flagged when throttled; "?" when unknown), with the clocks in the tooltip."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import dataclasses

import numpy as np
import pytest
from PySide6.QtCore import Qt

from kernels.data.results import Clocks, Timing
from views.demo_results import demo_run_result
from views.history_view import COLUMNS, HistoryView, history_row

HOT = Clocks(source="nvml", sm_mhz=1665, sm_max_mhz=1980, mem_mhz=3201, temp_c=54, power_w=235.0,
             reasons=["power cap"], throttled=True, note="SM clock 1665 of 1980 MHz (power cap)")


def _row(i, median, p20, p80, clocks):
    r = demo_run_result({"BLOCK_SIZE": 256 * i})
    r.timing = Timing("gpu", median, p20, p80, 100)
    r.clocks = clocks
    return history_row(i, r, "GB/s", when=1e9 + i)


@pytest.fixture
def view(on_screen):
    v = on_screen(HistoryView(), 1100, 300)
    v.set_rows([_row(1, 0.200, 0.199, 0.201, dataclasses.replace(HOT, sm_mhz=1980, throttled=False, reasons=[],
                                                                     note="")),
                _row(2, 0.200, 0.180, 0.220, HOT),
                _row(3, 0.200, 0.199, 0.201, Clocks(note="clocks unknown: pynvml is not installed"))])
    return v


def _cell(view, run_id, key, role=Qt.ItemDataRole.DisplayRole):
    m = view.table.model()
    col = [k for k, _ in COLUMNS].index(key)
    r = next(r for r in range(m.rowCount()) if m.index(r, 0).data(Qt.ItemDataRole.UserRole + 2) == run_id)
    return m.index(r, col).data(role)


def test_spread_and_clock_columns(view):
    assert _cell(view, 1, "spread") == "±0.5%" and _cell(view, 2, "spread") == "±10.0%"
    assert _cell(view, 1, "clock") == "1980 MHz" and _cell(view, 2, "clock") == "1665 MHz *"
    assert _cell(view, 3, "clock") == "?"  # a GPU run whose clocks are unknown says so
    tip = _cell(view, 2, "ms", Qt.ItemDataRole.ToolTipRole)
    assert "p20–p80 0.18–0.22 ms" in tip and "SM 1665/1980 MHz" in tip and "235 W" in tip
    assert "throttled: SM clock 1665 of 1980 MHz (power cap)" in tip
    assert "clocks unknown: pynvml is not installed" in _cell(view, 3, "ms", Qt.ItemDataRole.ToolTipRole)


def test_the_noisy_run_has_the_longer_spread_bar(view, tmp_path):
    # the bar is painted by the spread column's delegate: the ±10 % run's bar is wider than the ±0.5 % one's
    view.table.resizeColumnToContents([k for k, _ in COLUMNS].index("spread"))
    view.table.setColumnWidth([k for k, _ in COLUMNS].index("spread"), 90)
    img = view.table.viewport().grab().toImage()
    col = [k for k, _ in COLUMNS].index("spread")
    widths = {}
    for run_id in (1, 2):
        m = view.table.model()
        r = next(r for r in range(m.rowCount()) if m.index(r, 0).data(Qt.ItemDataRole.UserRole + 2) == run_id)
        rect = view.table.visualRect(m.index(r, col))
        y = rect.bottom() - 3
        row = np.array([img.pixelColor(x, y).name() for x in range(rect.left(), rect.right())])
        bg = img.pixelColor(rect.right() - 1, y).name()
        widths[run_id] = int((row != bg).sum())
    assert widths[2] > 3 * max(widths[1], 1)
    view.grab().save(str(tmp_path / "history_clocks.png"))
