"""The Throughput tab's title and peak label fit the tab at the window's sizes: pyqtgraph never
shortens a title or a line's label, and in a 1366×768 window (the tab ~335 px wide) the title
lost its end ("…higher is b") and the peak label its data-sheet figure ("· data sheet 4,800")."""

from __future__ import annotations

import dataclasses

import pytest
from PySide6.QtCore import QRectF

from views.demo_results import demo_run_results
from views.throughput_view import ThroughputView

#: the Throughput tab in the real window: the right column of a first start at 1366×768 (a quarter
#: of the width, measured 335×250) and at 1920×1080 (476×426)
TAB_SIZES = {"1366x768": (335, 250), "1920x1080": (476, 426)}
#: a peak as the engine names it (kernels.run.peaks: the best cuBLAS shape, a run above it)
SOURCE = "copy 1 GiB device to device (best of 3 sizes)"


def _text_rect(item) -> QRectF:
    m = item.document().documentMargin()
    return item.sceneBoundingRect().adjusted(m, m, -m, -m)


def _with_named_peak(results, datasheet: float):
    out = []
    for r in results:
        m = dataclasses.replace(r.metrics, peak_source=SOURCE, peak_datasheet=datasheet)
        out.append(dataclasses.replace(r, metrics=m))
    return out


@pytest.mark.parametrize("window", list(TAB_SIZES))
@pytest.mark.parametrize("backend", ["gpu", "interpreter"])
def test_the_title_is_whole_or_a_shorter_wording_inside_the_plot(on_screen, backend, window):
    # breaks if the title runs past the plot's right edge (cut mid-word by the widget's edge)
    view = on_screen(ThroughputView("GB/s"), *TAB_SIZES[window], exposed=True)
    for r in demo_run_results(6, backend=backend):
        view.add_result(r)
    view.flush()
    view.plot.grab()
    pi = view.plot.getPlotItem()
    title = _text_rect(pi.titleLabel.item)
    assert view.plot.sceneRect().adjusted(-0.5, -0.5, 0.5, 0.5).contains(title), (title, view.plot.sceneRect())
    text = pi.titleLabel.text
    assert text in view._titles or text.endswith("…")
    if window == "1920x1080":
        assert text == view._titles[0]  # room for the whole title: nothing shortened
    else:  # the short wording still says which way is better
        assert "better" in text and not text.endswith("…"), text


@pytest.mark.parametrize("window", list(TAB_SIZES))
def test_the_peak_label_keeps_its_figures_inside_the_plot(on_screen, window):
    # breaks if the peak label runs past the plot (its "· data sheet 4,800" was cut at the tab's
    # edge), or a label on two lines has no room above the peak line
    view = on_screen(ThroughputView("GB/s"), *TAB_SIZES[window], exposed=True)
    for r in _with_named_peak(demo_run_results(6, backend="gpu"), 4800.0):
        view.add_result(r)
    view.flush()
    view.plot.grab()
    view.flush()  # the room above the line follows the label fitted to the laid-out plot
    view.plot.grab()
    vb = view.plot.getPlotItem().getViewBox()
    label = view.peak_line.label.textItem
    shown = label.toPlainText()
    assert "data sheet 4,800" in shown and "peak " in shown, shown
    assert vb.sceneBoundingRect().adjusted(-0.5, -0.5, 0.5, 0.5).contains(_text_rect(label)), \
        (shown, _text_rect(label), vb.sceneBoundingRect())
    if window == "1920x1080":
        assert shown == view.peak_label() or shown.count("\n") == 1
