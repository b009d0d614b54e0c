"""SweepView: the 1-D curve, the 2-D heatmap with its best cell, failures, live filling."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import numpy as np
import pytest
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication

from views.demo_results import demo_sweep_1d, demo_sweep_2d
from views.sweep_view import SweepView


@pytest.fixture
def view(on_screen):
    return on_screen(SweepView("GB/s"), 720, 440)


def test_one_axis_sweep_fills_the_curve(view):
    # breaks if points are lost, the axis is not log2 for block sizes, or a failure is hidden
    sweep = demo_sweep_1d()
    view.set_sweep(sweep)
    assert view.mode() == "1d" and view.stack.currentWidget() is view.curve_plot
    x, y = view.triton_curve.getData()
    assert len(x) == 13 and list(x) == list(range(4, 17))  # log2(16) .. log2(65536)
    gbps = [p.result.metrics.gbps if p.result.metrics else np.nan for p in sweep.points]
    assert np.allclose(y, gbps, equal_nan=True)
    assert np.isnan(y[-1])  # 65536 failed to compile: a gap, not a zero
    tx, _ = view.torch_curve.getData()
    assert len(tx) == 12
    fx = [p.pos().x() for p in view.failed_marks.points()]
    assert fx == [16.0]
    assert "required registers exceed" in view.cell_tooltip(12)
    ticks = view.curve_plot.getPlotItem().getAxis("bottom")._tickLevels[0]
    assert [t[1] for t in ticks][:3] == ["16", "32", "64"] and ticks[-1][1] == "65536"
    best = int(np.nanargmax(y))
    assert view.best_index() == (best,)
    assert view.best_mark.points()[0].pos().x() == x[best]
    assert "13/13 points, 1 failed" in view.title.text()
    # the "best …" label stays inside the plot when the best point is the last one
    (name, values), = sweep.request.axes.items()
    view.clear()
    for p in sweep.points[:best + 1]:
        view.add_point(p, {name: values[:best + 1]})
    view.flush()
    QApplication.processEvents()
    assert view.best_index() == (best,)
    label = view.best_text.sceneBoundingRect()
    box = view.curve_plot.getPlotItem().vb.sceneBoundingRect()
    assert box.left() <= label.left() and label.right() <= box.right() + 1, (label, box)


def test_two_axis_sweep_heatmap_and_best_cell(view):
    # breaks if the heatmap is transposed, the best cell is boxed in the wrong place, or a failed
    # cell shows a number
    sweep = demo_sweep_2d()
    view.set_metric("TFLOP/s")
    view.set_sweep(sweep)
    assert view.mode() == "2d" and view.stack.currentWidget() is view.heat_plot
    img = view.heatmap()
    assert img.shape == (5, 5) and view.image.image.shape == (5, 5)
    # row = BLOCK_N index, column = BLOCK_M index
    p = next(p for p in sweep.points if p.values == {"BLOCK_M": 16, "BLOCK_N": 256})
    assert img[4, 0] == pytest.approx(p.result.metrics.tflops)
    assert np.isnan(img[4, 4])  # 256 x 256 ran out of shared memory
    assert view.best_index() == (3, 3)
    assert img[3, 3] == np.nanmax(img)
    box = view.best_box.rect()
    assert box.center().x() == pytest.approx(3.5) and box.center().y() == pytest.approx(3.5)
    assert view.best_box.isVisible()
    assert view.cell_text(3, 3) == f"{img[3, 3]:,.0f}"
    assert view.cell_text(4, 4) == "failed"
    assert len(view._hatches) == 1
    assert "shared memory" in view.cell_tooltip(4, 4)
    assert "best of the sweep" in view.cell_tooltip(3, 3)
    lo, hi = view.colorbar.levels()
    assert lo == pytest.approx(np.nanmin(img)) and hi == pytest.approx(np.nanmax(img))
    ticks = view.heat_plot.getPlotItem().getAxis("left")._tickLevels[0]
    assert [t[1] for t in ticks] == ["16", "32", "64", "128", "256"]


def test_live_filling(qtbot, view):
    # breaks if points arriving one by one are not drawn as they come
    sweep = demo_sweep_2d()
    view.set_metric("TFLOP/s")
    axes = sweep.request.axes
    for p in sweep.points[:3]:
        view.add_point(p, axes)
    img = view.heatmap()
    assert np.isfinite(img).sum() == 3 and "3/25 points" in view.title.text()
    assert "not run yet" in view.cell_tooltip(4, 4)
    # the plot follows within a frame or two (redraws are coalesced, see the next test)
    ix, iy = next(iter(k for k, v in np.ndenumerate(img.T) if np.isfinite(v)))
    qtbot.waitUntil(lambda: view.cell_text(ix, iy) != "", timeout=2000)
    assert float(view.cell_text(ix, iy).replace(",", "")) == pytest.approx(img[iy, ix], rel=0.01)
    assert np.isfinite(view.image.image).sum() == 3
    with pytest.raises(ValueError):  # a point that is not on the axes it claims
        view.add_point(sweep.points[0], {"BLOCK_M": [1, 2], "BLOCK_N": [16]})
    view.clear()
    assert view.mode() == "empty"


def test_a_burst_of_points_costs_one_redraw(qtbot, view, monkeypatch):
    # breaks if every arriving point redraws the heatmap: a sweep streaming its points in then
    # holds the window for tens of milliseconds per point
    sweep = demo_sweep_2d()
    view.set_metric("TFLOP/s")
    drawn = []
    real = view.image.setImage
    monkeypatch.setattr(view.image, "setImage", lambda *a, **k: (drawn.append(1), real(*a, **k))[1])
    for p in sweep.points:
        view.add_point(p, sweep.request.axes)
    assert "25/25 points" in view.title.text() and not drawn  # nothing drawn inside the burst
    qtbot.waitUntil(lambda: bool(drawn), timeout=2000)
    once = len(drawn)  # what one redraw does (the colour bar sets the image too)
    qtbot.wait(100)
    assert len(drawn) == once and once <= 3
    assert view.best_index() == (3, 3) and view.best_box.isVisible()
    assert view.cell_text(4, 4) == "failed"


def test_export_png(view, tmp_path):
    view.set_sweep(demo_sweep_2d())
    out = view.export(tmp_path / "s.png")
    assert not QImage(str(out)).isNull()
    view.clear()
    with pytest.raises(ValueError):
        view.export(tmp_path / "e.png")


def test_hovering_a_cell_and_clicking_it(qtbot, view):
    # breaks if the mouse-to-cell mapping is off (wrong cell's numbers in the tooltip)
    from PySide6.QtCore import QPointF, Qt
    from PySide6.QtWidgets import QApplication

    view.set_metric("TFLOP/s")
    view.set_sweep(demo_sweep_2d())
    QApplication.processEvents()
    vb = view.heat_plot.getPlotItem().vb
    pos = view.heat_plot.mapFromScene(vb.mapViewToScene(QPointF(4.5, 4.5)))  # BLOCK_M=256, BLOCK_N=256
    qtbot.mouseMove(view.heat_plot.viewport(), pos)
    qtbot.waitUntil(lambda: "BLOCK_M=256, BLOCK_N=256" in view.heat_plot.toolTip())
    assert "shared memory" in view.heat_plot.toolTip()
    pos = view.heat_plot.mapFromScene(vb.mapViewToScene(QPointF(3.5, 1.5)))
    with qtbot.waitSignal(view.pointClicked) as blocker:
        qtbot.mouseClick(view.heat_plot.viewport(), Qt.MouseButton.LeftButton, pos=pos)
    assert blocker.args == [{"BLOCK_M": 128, "BLOCK_N": 32}]


def test_failed_is_in_the_legend_only_when_a_point_failed(view):
    # breaks if the curve's legend lists "failed" for a sweep where nothing failed
    sweep = demo_sweep_1d()
    ok = [p for p in sweep.points if p.result.ok and p.result.metrics is not None]
    legend = view.curve_plot.getPlotItem().legend

    def labels() -> list[str]:
        return [label.text for _, label in legend.items]

    for p in ok[:3]:
        view.add_point(p, sweep.request.axes)
    view.flush()
    assert not any("failed" in t for t in labels()) and any("Triton" in t for t in labels())
    view.set_sweep(sweep)  # this one has a point that failed to compile
    assert any("failed" in t for t in labels())
    view.clear()
    view.add_point(ok[0], sweep.request.axes)
    view.flush()
    assert not any("failed" in t for t in labels())
