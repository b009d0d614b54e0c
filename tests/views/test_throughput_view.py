"""ThroughputView: points per run, torch series, peak line, interpreter mode, speed, export."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import time

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import QPointF, QRectF, QSizeF
from PySide6.QtGui import QColor, QFontMetrics, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

from kernels.data.results import ErrorInfo, RunRequest, RunResult
from views.demo_results import DEMO_PEAK_GBPS, demo_run_result, demo_run_results
from views.throughput_view import ThroughputView


@pytest.fixture
def view(on_screen):
    return on_screen(ThroughputView("GB/s"), 720, 420)


def test_three_results_three_points_torch_and_peak(view):
    # breaks if a run is not plotted, torch is missing, or the peak line is not at the device peak
    results = demo_run_results(3)
    for r in results:
        assert view.add_result(r)
    view.flush()
    xs, ys = view.triton_line.getData()
    assert list(xs) == [1, 2, 3]
    assert np.allclose(ys, [r.metrics.gbps for r in results])
    assert len(view.points.data) == 3
    tx, ty = view.torch_line.getData()
    assert len(tx) == 3 and np.allclose(ty, [r.metrics.torch_gbps for r in results])
    assert view.peak_line.isVisible() and view.peak_line.value() == DEMO_PEAK_GBPS
    assert view.peak_line.label.toPlainText() == "peak 4,000 GB/s"
    # error bars: the p20..p80 times as throughput (faster time = higher figure)
    r = results[0]
    top = view.error_bars.opts["top"][0]
    assert top == pytest.approx(r.metrics.gbps * r.timing.median_ms / r.timing.p20_ms - r.metrics.gbps)
    assert view.banner.isHidden()
    assert view.plot.getPlotItem().getAxis("left").labelText == "GB/s"
    assert "Run 3:" in view.summary.text() and "% of peak" in view.summary.text()


def test_hover_text_names_the_configuration(view):
    r = demo_run_result({"BLOCK_SIZE": 256, "num_warps": 8})
    view.add_result(r)
    tip = view.tooltip_for(0)
    assert "BLOCK_SIZE=256" in tip and "num_warps=8" in tip
    assert f"{r.metrics.gbps:,.0f} GB/s" in tip and "torch:" in tip and "check: PASS" in tip


def test_interpreter_runs_plot_milliseconds_under_a_banner(view):
    # breaks if interpreter wall-clock time could be mistaken for GPU speed
    for r in demo_run_results(3, backend="interpreter"):
        view.add_result(r)
    view.flush()
    assert view.mode() == "interpreter"
    assert not view.banner.isHidden()
    assert view.banner.text() == "Interpreter wall-clock time — not GPU speed"
    assert "ms" in view.plot.getPlotItem().getAxis("left").labelText
    assert not view.peak_line.isVisible()
    _, ys = view.triton_line.getData()
    assert np.allclose(ys, [r.timing.median_ms for r in view.results()])


def test_failed_run_counts_but_has_no_point(view):
    bad = RunResult(RunRequest("vector_add"), "vector_add", {}, "gpu", "x",
                    error=ErrorInfo("compile", "out of resources"))
    view.add_result(demo_run_result())
    assert not view.add_result(bad)
    view.add_result(demo_run_result())
    view.flush()
    xs, _ = view.triton_line.getData()
    assert list(xs) == [1, 3]  # run 2 left a gap
    assert "1 run(s) without timing" in view.summary.text()


def test_wrong_answer_point_is_red(view):
    view.add_result(demo_run_result(failed_check=True))
    view.add_result(demo_run_result())
    view.flush()
    brushes = [p.brush().color().name() for p in view.points.points()]
    assert brushes == ["#d0342c", "#1f77b4"]


def test_thousand_points_stay_fast(view, record_property):
    # breaks if adding a run costs a full redraw, or a 1000-point redraw/paint is slow (CPU time
    # of this thread: a loaded machine's other processes take wall-clock time, not this)
    results = demo_run_results(1000)
    t0 = time.thread_time()
    for r in results:
        view.add_result(r)
    t_add = time.thread_time() - t0
    t0 = time.thread_time()
    view.flush()
    t_flush = time.thread_time() - t0
    view.grab()
    t0 = time.thread_time()
    view.grab()
    t_paint = time.thread_time() - t0
    record_property("add_1000_ms", round(t_add * 1e3, 1))
    record_property("flush_1000_ms", round(t_flush * 1e3, 1))
    record_property("paint_1000_ms", round(t_paint * 1e3, 1))
    print(f"1000 add_result: {t_add * 1e3:.1f} ms, flush: {t_flush * 1e3:.1f} ms, paint: {t_paint * 1e3:.1f} ms")
    assert len(view.points.data) == 1000
    assert t_add < 0.5 and t_flush < 0.5 and t_paint < 0.5


def _gray_blocks(img: QImage, w: int, h: int) -> np.ndarray:
    img = img.convertToFormat(QImage.Format.Format_Grayscale8)
    a = np.frombuffer(img.constBits(), np.uint8).reshape(img.height(), img.bytesPerLine())[:h, :w].astype(float)
    h8, w8 = h // 8 * 8, w // 8 * 8
    return a[:h8, :w8].reshape(h8 // 8, 8, w8 // 8, 8).mean(axis=(1, 3))  # 8x8 blocks: ignore antialiasing


def test_export_png_and_svg(view, tmp_path):
    # breaks if an export is unreadable, or the SVG's items drift off their axes (what pyqtgraph's
    # own SVG exporter does with Qt 6.12: block difference ~5 grey levels instead of < 1)
    for r in demo_run_results(12):
        view.add_result(r)
    png = view.export(tmp_path / "t.png")
    img = QImage(str(png))
    item = view.plot.getPlotItem()
    src = item.sceneBoundingRect()
    w, h = int(src.width()), int(src.height())
    assert not img.isNull() and img.width() == 2 * w  # twice the screen size
    svg = view.export(tmp_path / "t.svg")
    text = svg.read_text()
    assert "<svg" in text and "GB/s" in text
    screen = QImage(w, h, QImage.Format.Format_ARGB32)
    screen.fill(QColor("white"))
    p = QPainter(screen)
    item.scene().render(p, QRectF(0, 0, w, h), src)
    p.end()
    drawn = QImage(w, h, QImage.Format.Format_ARGB32)
    drawn.fill(QColor("white"))
    p = QPainter(drawn)
    QSvgRenderer(str(svg)).render(p, QRectF(0, 0, w, h))
    p.end()
    diff = np.abs(_gray_blocks(screen, w, h) - _gray_blocks(drawn, w, h)).mean()
    assert diff < 2.0, diff
    with pytest.raises(ValueError):
        view.export(tmp_path / "t.txt")


def test_clear_and_metric_switch(view):
    for r in demo_run_results(3):
        view.add_result(r)
    view.set_metric("TFLOP/s")
    _, ys = view.triton_line.getData()
    assert np.allclose(ys, [r.metrics.tflops for r in view.results()])
    view.clear()
    view.flush()
    assert view.triton_line.getData()[0] is None and view.summary.text() == "No runs yet."


def test_right_click_export_uses_our_exporter(view, tmp_path, monkeypatch):
    # breaks if the plot's context menu still offers pyqtgraph's exporter (broken SVGs with Qt 6.12)
    from PySide6.QtWidgets import QFileDialog

    for r in demo_run_results(3):
        view.add_result(r)
    actions = view.plot.scene().contextMenu
    assert [a.text() for a in actions] == ["Export plot as PNG / SVG…"]
    target = tmp_path / "menu.svg"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(target), "SVG vector image (*.svg)"))
    actions[0].trigger()
    assert target.exists() and "<svg" in target.read_text()


def test_mouse_over_a_point_shows_its_configuration(qtbot, view):
    # breaks if hovering a point does not show which configuration it was
    from PySide6.QtWidgets import QApplication

    view.add_result(demo_run_result({"BLOCK_SIZE": 256}))
    view.add_result(demo_run_result({"BLOCK_SIZE": 4096}))
    view.flush()
    QApplication.processEvents()
    spot = view.points.points()[1]
    pos = view.plot.mapFromScene(view.points.mapToScene(spot.pos()))
    qtbot.mouseMove(view.plot.viewport(), pos)
    vb = view.plot.getPlotItem().vb
    qtbot.waitUntil(lambda: "BLOCK_SIZE=4096" in vb.toolTip())
    assert "Run 2" in vb.toolTip()


def test_lines_turn_thin_before_they_turn_slow(view):
    # breaks if the 1.5-px antialiased lines are kept past a few dozen runs: Qt draws such a
    # zig-zag polyline slowly (~90 ms a frame at 250 runs measured here, against ~10 ms at 1 px),
    # so the live plot stuttered between 200 and 300 runs
    results = demo_run_results(300)
    for r in results[:63]:
        view.add_result(r)
    view.flush()
    assert view.triton_line.opts["pen"].widthF() == 1.5 and view.error_bars.isVisible()
    view.add_result(results[63])
    view.flush()
    assert view.triton_line.opts["pen"].widthF() == 1 and view.torch_line.opts["pen"].widthF() == 1
    assert view.error_bars.isVisible()  # the error bars stay until the plot is dense
    for r in results[64:]:
        view.add_result(r)
    view.flush()
    view.grab()
    t0 = time.thread_time()  # this thread's CPU time: a loaded machine does not move it
    view.grab()
    paint_250 = time.thread_time() - t0
    assert paint_250 < 0.2, paint_250  # ~10 ms here; the thick lines took ~0.1 s
    view.clear()
    view.add_result(results[0])
    view.flush()
    assert view.triton_line.opts["pen"].widthF() == 1.5  # a new series starts with the thick line


def test_dots_added_one_redraw_at_a_time_match_the_series(view):
    # breaks if the incremental scatter update (only new runs appended) loses, repeats or
    # miscolours a point, or keeps the other backend's dots after the plot switches series
    results = demo_run_results(12)
    results[5] = demo_run_result({"BLOCK_SIZE": 64}, failed_check=True)
    for r in results:
        view.add_result(r)
        view.flush()
    d = view.point_data()
    data = view.points.data
    np.testing.assert_array_equal(data["x"], d["x"])
    np.testing.assert_array_equal(data["y"], d["y"])
    assert [int(v) for v in data["data"]] == list(range(12))
    brushes = [p.brush().color().name() for p in view.points.points()]
    assert brushes == ["#1f77b4"] * 5 + ["#d0342c"] + ["#1f77b4"] * 6
    # the interpreter series replaces them; clearing leaves none
    view.add_result(demo_run_result({"BLOCK_SIZE": 128}, backend="interpreter"))
    view.flush()
    assert len(view.points.data) == 1 and view.points.data["x"][0] == 13
    view.clear()
    assert len(view.points.data) == 0


def test_redraws_wait_at_least_as_long_as_the_last_frame_took(view):
    # breaks if a slow frame is redrawn again at once: a stream of results would then keep the
    # GUI thread busy drawing all the time
    view._flush_s, view.plot.last_paint_s = 0.002, 0.005  # a cheap frame: ~60 redraws a second at most
    view.add_result(demo_run_result())
    assert view._timer.interval() == 16
    view.flush()
    view._flush_s, view.plot.last_paint_s = 0.030, 0.070  # as if the last frame took 100 ms
    view.add_result(demo_run_result())
    assert view._timer.isActive() and view._timer.interval() == 100
    view.flush()
    view._flush_s, view.plot.last_paint_s = 0.5, 0.5  # a very slow frame: still 4 a second
    view.add_result(demo_run_result())
    assert view._timer.interval() == 250


#: the Throughput tab's size in the real window's default arrangement, measured with a worker and
#: a kernel open: (476, 252) in a 1366×768 window, (476, 426) in a 1920×1080 one (the dock's width
#: does not follow the window's)
TAB_SIZES = {"1366x768": (476, 252), "1920x1080": (476, 426)}


def _visible(what: QRectF | QPointF, within: QRectF) -> bool:
    return within.adjusted(-0.5, -0.5, 0.5, 0.5).contains(what)


def _text_rect(item) -> QRectF:
    """Where a QGraphicsTextItem's text is in the scene: its bounding box less the document's margin."""
    m = item.document().documentMargin()
    return item.sceneBoundingRect().adjusted(m, m, -m, -m)


@pytest.mark.parametrize("window", list(TAB_SIZES))
@pytest.mark.parametrize("backend", ["gpu", "interpreter"])
def test_at_the_window_sizes_the_labels_fit_and_nothing_covers_the_points(on_screen, backend, window):
    # breaks if the left axis' label is cut (it read "me (ms) — interpreter wall clo" at 1366×768),
    # the legend on the bottom axis runs past the plot's edge (it ended "torch on CPU" without its
    # "(ms)": pyqtgraph centres an axis label only on a resize, so the interpreter's longer legend
    # stayed where the GPU one had been centred), a legend sits over the points, or the peak's
    # label leaves the plot
    view = on_screen(ThroughputView("GB/s"), *TAB_SIZES[window])  # shown in its GPU form, as the app opens
    for r in demo_run_results(12, backend=backend):
        view.add_result(r)
    view.flush()
    view.plot.grab()  # a paint: the view box applies its auto range then
    pi = view.plot.getPlotItem()
    view_box = pi.getViewBox().sceneBoundingRect()
    widget_rect = view.plot.sceneRect()  # what the user sees of the plot
    left_axis, bottom_axis = pi.getAxis("left"), pi.getAxis("bottom")
    # no legend, in a box or on the axis' line, covers a plotted point's marker
    data = view.point_data()
    markers = [QRectF(view.points.mapToScene(QPointF(x, y)) - QPointF(4, 4), QSizeF(8, 8))
               for x, y in zip(data["x"], data["y"], strict=True)]
    assert len(markers) == 12 and all(_visible(m.center(), view_box) for m in markers)
    legends = [_text_rect(bottom_axis.label)] + [i.sceneBoundingRect() for i in view.plot.scene().items()
                                                 if isinstance(i, pg.LegendItem) and i.isVisible()]
    assert not [(r, m) for r in legends for m in markers if r.intersects(m)]
    # the legend: the series' names on the bottom axis' line, under the plot area, whole
    legend_rect = legends[0]
    assert all(name in bottom_axis.labelText for name in view.legend_names)
    assert legend_rect.top() >= view_box.bottom()
    assert _visible(legend_rect, bottom_axis.sceneBoundingRect()), (legend_rect, bottom_axis.sceneBoundingRect())
    assert _visible(legend_rect, widget_rect), (legend_rect, widget_rect)
    # the left axis' label and the title, whole
    assert left_axis.label.boundingRect().width() <= left_axis.geometry().height(), left_axis.labelText
    assert _visible(_text_rect(left_axis.label), widget_rect), left_axis.labelText
    assert _visible(_text_rect(pi.titleLabel.item), widget_rect)
    if backend == "gpu":  # room above the peak line for its label, inside the plot
        assert view.peak_line.isVisible()
        bottom, top = pi.getViewBox().viewRange()[1]
        above_px = (top - view.peak_line.value()) / (top - bottom) * pi.getViewBox().height()
        assert above_px >= QFontMetrics(view.peak_line.label.textItem.font()).height(), above_px
