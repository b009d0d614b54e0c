"""Plots with no data: the range 0..1, no "×0.001" axis prefix, and a short text saying why.

A pyqtgraph plot left alone with nothing in it (or after its data was cleared) ranged itself to
−0.5…0.5 and labelled the axes "−400 … 400 (×0.001)", which reads like data (issue #16).
"""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pyqtgraph as pg
import pytest

from views import demo_results as demo
from views.correctness_view import CorrectnessView
from views.roofline_view import RooflineView
from views.sweep_heatmap import SweepHeatmap
from views.sweep_view import SweepView
from views.throughput_view import ThroughputView
from views.timeline_view import TimelineView


def _plots(widget):
    """(view box, its axes) of every plot of ``widget`` on screen (colour bars aside: their scale
    is the data's levels, 0..1 or 0..256 before any)."""
    out = []
    for gv in widget.findChildren(pg.GraphicsView):
        if not gv.isVisible():
            continue
        for item in gv.scene().items():
            if isinstance(item, pg.PlotItem) and not isinstance(item, pg.ColorBarItem) and item.isVisible():
                axes = [item.getAxis(s) for s in ("left", "bottom") if item.getAxis(s).isVisible()]
                out.append((item.vb, axes))
    return out


def _assert_clean_and_empty(widget, empty_texts=()):
    plots = _plots(widget)
    assert plots, "no plot on screen"
    for vb, axes in plots:
        (x0, x1), (y0, y1) = vb.viewRange()
        span = 100.0 if isinstance(widget, CorrectnessView) else 1.0  # the map's rows and columns: 0..100
        assert x0 >= 0 and y0 >= 0 and x1 <= span * 1.0001 and y1 <= span * 1.0001, vb.viewRange()
        for ax in axes:
            assert ax.autoSIPrefixScale == 1.0 and "(x0.001)" not in ax.labelString(), ax.labelString()
    for text in empty_texts:
        assert text.isVisible() and text.pos().x() == text.pos().y() == 0.5 * span


def _show(qtbot, w):
    qtbot.addWidget(w)
    w.resize(640, 400)
    w.show()
    qtbot.waitExposed(w)
    return w


@pytest.mark.parametrize("make", [ThroughputView, CorrectnessView, RooflineView, SweepHeatmap, SweepView,
                                  TimelineView])
def test_a_fresh_view_has_a_clean_empty_plot(qtbot, make):
    # breaks if an empty plot shows a negative range or an SI prefix ("-400 … 400 (×0.001)")
    w = _show(qtbot, make())
    texts = [w.empty.text] if hasattr(w, "empty") else [w.map_empty.text] if hasattr(w, "map_empty") else []
    if isinstance(w, SweepView):  # its empty page is a label over the plots
        assert w.empty.isVisible() and "Run a sweep" in w.empty.text()
        return
    _assert_clean_and_empty(w, texts)


def test_cleared_views_go_back_to_the_clean_empty_state(qtbot):
    # breaks if "Clear" (or a new kernel) leaves the plot auto-ranged around nothing
    tv = _show(qtbot, ThroughputView("GB/s"))
    for r in demo.demo_run_results(4):
        tv.add_result(r)
    tv.flush()
    assert not tv.empty.text.isVisible()
    qtbot.waitUntil(lambda: tv.plot.getPlotItem().vb.viewRange()[1][1] > 100)  # auto range is back
    tv.clear()
    _assert_clean_and_empty(tv, [tv.empty.text])
    cv = _show(qtbot, CorrectnessView())
    cv.set_check(demo.demo_check(passed=False))
    assert not cv.map_empty.text.isVisible()
    qtbot.waitUntil(lambda: cv.map_plot.vb.viewRange()[0][1] > 10)
    cv.set_check(None)
    _assert_clean_and_empty(cv, [cv.map_empty.text])
    hm = _show(qtbot, SweepHeatmap("TFLOP/s"))
    hm.set_result(demo.demo_sweep_2d())
    assert hm.plot.getPlotItem().getAxis("bottom").labelString() != ""
    hm.clear()
    _assert_clean_and_empty(hm, [hm.empty.text])
    assert "BLOCK" not in hm.plot.getPlotItem().getAxis("bottom").labelString()
    rv = _show(qtbot, RooflineView())
    rv.set_runs(demo.demo_run_results(3))
    assert not rv.empty.text.isVisible()
    rv.clear()
    _assert_clean_and_empty(rv, [rv.empty.text])
