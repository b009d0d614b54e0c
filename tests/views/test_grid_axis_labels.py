"""The grid view's axis labels never run into each other: a short axis of many rows (softmax's
1823 programs folded into 11 rows of 166 in a 44 px band) is labelled every few rows, not every
other one with each label over the next."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QFontMetrics

from views.grid_view.index_axis import IndexAxis


def _spacing_px(axis: IndexAxis, lo: float, hi: float, size: float) -> float:
    values = sorted(v for _, vals in axis.tickValues(lo, hi, size) for v in vals)
    assert len(values) >= 2, values
    return min(b - a for a, b in zip(values, values[1:], strict=False)) * size / (hi - lo)


@pytest.mark.parametrize(("rows", "px"), [(11, 44), (8, 30), (30, 60), (12, 300)])
def test_a_vertical_axis_keeps_a_line_between_labels(qapp, rows, px):
    # breaks if labels of a short axis are placed closer than a line of text (they overlapped)
    axis = IndexAxis("left", row_len=166)
    line = QFontMetrics(axis.style.get("tickFont") or axis.font()).height()
    assert _spacing_px(axis, 0, rows, px) >= line


def test_a_roomy_axis_still_labels_every_row(qapp):
    # breaks if the spacing rule thinned out an axis that has room for a label per row
    axis = IndexAxis("left")
    values = [v for _, vals in axis.tickValues(0, 6, 300) for v in vals]
    assert values == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0]


def test_a_horizontal_axis_keeps_its_labels_apart(qapp):
    # breaks if the column labels of a wide map (233472 columns in 680 px) touch each other
    axis = IndexAxis("top")
    width = QFontMetrics(axis.style.get("tickFont") or axis.font()).horizontalAdvance("233472")
    assert _spacing_px(axis, 0, 233472, 680) >= width
