"""RooflineView: runs and sweep points placed by arithmetic intensity under the measured roofs.

The intensities are computed here from each run's bytes and FLOP model; the roofs from the peak
fields the runs carry. A click on a drawn point must give that point's values.
"""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import math

import numpy as np
import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtWidgets import QApplication

from kernels.data.results import Metrics, RunRequest, RunResult, SweepPoint, Timing
from views.roofline_view import RooflineView
from views.sweep_demo import DEMO_PEAK_GBPS, DEMO_PEAK_TFLOPS, demo_sweep_tune


def _run(values: dict, nbytes: int, flops: int, ms: float, backend: str = "gpu", peaks: bool = True) -> RunResult:
    """A run whose figures follow from its work model and time, as the engine computes them."""
    interp = backend == "interpreter"
    m = Metrics(bytes_moved=nbytes, flops=flops, gbps=nbytes / ms / 1e6, tflops=flops / ms / 1e9,
                peak_gbps=DEMO_PEAK_GBPS if peaks else None, peak_tflops=DEMO_PEAK_TFLOPS if peaks else None)
    return RunResult(RunRequest("k", values), "k", dict(values), backend, "test device",
                     timing=Timing("test", ms, ms, ms, 10, is_interpreter=interp), metrics=m)


@pytest.fixture
def view(on_screen):
    return on_screen(RooflineView(), 800, 560, exposed=True)


def test_points_sit_at_their_arithmetic_intensity(view):
    # breaks if x is not flops / bytes (e.g. bytes / flops, or GB/s), or a point is dropped
    runs = [_run({"N": 1 << 20}, 12 << 20, 1 << 20, 0.01),  # vector add: 1 FLOP per 12 bytes
            _run({"M": 1024}, 6 * 1024**2, 2 * 1024**3, 0.01),  # matmul 1024^3 in fp16
            _run({"M": 8}, 100, 0, 0.01)]  # no FLOP model: not placed
    view.set_runs(runs)
    sweep = demo_sweep_tune()
    view.set_sweep(sweep.points, sweep.best)
    x, y = view.point_data()["runs"]
    np.testing.assert_allclose(x, [1 / 12, 2 * 1024**3 / (6 * 1024**2)], rtol=1e-9)
    np.testing.assert_allclose(y, [(1 << 20) / 0.01 / 1e9, 2 * 1024**3 / 0.01 / 1e9], rtol=1e-9)
    # what is drawn: the log10 of those, on a log-log plot
    dx, dy = view.runs_item.getData()
    np.testing.assert_allclose(dx, np.log10(x), rtol=1e-9)
    np.testing.assert_allclose(dy, np.log10(y), rtol=1e-9)
    placed = [p for p in sweep.points if not p.pruned and p.result.error is None]
    sx, _ = view.point_data()["sweep"]
    want = [p.result.metrics.flops / p.result.metrics.bytes_moved for p in placed]
    np.testing.assert_allclose(sx, want, rtol=1e-9)
    assert "4 not placed" in view.title.text()  # a run without FLOPs, 2 pruned and 1 failed point
    bx, by = view.best_item.getData()
    best = sweep.points[sweep.best].result.metrics
    assert bx[0] == pytest.approx(math.log10(best.flops / best.bytes_moved))
    assert by[0] == pytest.approx(math.log10(best.tflops))


def test_roofs_are_the_measured_peaks(view):
    # breaks if the roofs come from anything but the runs' measured peaks, or bend at the wrong place
    view.set_runs([_run({"M": 1024}, 6 * 1024**2, 2 * 1024**3, 0.01)])
    ridge = DEMO_PEAK_TFLOPS * 1e3 / DEMO_PEAK_GBPS
    rx, ry = view.roof.getData()
    x, y = 10 ** rx, 10 ** ry
    assert x[1] == pytest.approx(ridge) and y[1] == pytest.approx(DEMO_PEAK_TFLOPS)
    assert y[0] == pytest.approx(DEMO_PEAK_GBPS * x[0] / 1e3)  # the memory roof: bandwidth × intensity
    assert y[2] == pytest.approx(DEMO_PEAK_TFLOPS)
    assert "copy 4,000 GB/s" in view.title.text() and "ridge at 175 FLOP/byte" in view.title.text()
    assert "% of the compute roof" in view.tooltip_for("runs", 0)


def test_interpreter_runs_have_no_roofs(view):
    # breaks if roofs are drawn from nothing, or the interpreter's wall clock passes for GPU speed
    view.set_runs([_run({"N": 4096}, 12 * 4096, 4096, 5.0, backend="interpreter", peaks=False)])
    rx, _ = view.roof.getData()
    assert rx is None or len(rx) == 0
    assert "roofs unavailable" in view.title.text()
    x, _ = view.point_data()["runs"]
    np.testing.assert_allclose(x, [1 / 12])
    assert "interpreter wall clock, not GPU speed" in view.tooltip_for("runs", 0)


def test_clicking_a_point_emits_its_values(qtbot, view):
    # breaks if picking maps the click to another point (or none) on the log-log plot
    runs = [_run({"BLOCK_SIZE": 256, "N": 1 << 20}, 12 << 20, 1 << 20, 0.01),
            _run({"BLOCK_M": 64, "M": 1024}, 6 * 1024**2, 2 * 1024**3, 0.01)]
    view.set_runs(runs)
    sweep_point = SweepPoint({"BLOCK_M": 128}, _run({"BLOCK_M": 128, "M": 2048}, 6 * 2048**2, 2 * 2048**3, 0.05))
    view.set_sweep([sweep_point], 0)
    QApplication.processEvents()
    vb = view.plot.getPlotItem().vb
    for (kind, i, x, y), want in zip(view.placed(), [runs[0].values, runs[1].values,
                                                       {**sweep_point.result.values, **sweep_point.values}],
                                      strict=True):
        pos = view.plot.mapFromScene(vb.mapViewToScene(QPointF(math.log10(x), math.log10(y))))
        with qtbot.waitSignal(view.pointClicked, timeout=2000) as blocker:
            qtbot.mouseClick(view.plot.viewport(), Qt.MouseButton.LeftButton, pos=pos)
        assert blocker.args == [want], (kind, i)
