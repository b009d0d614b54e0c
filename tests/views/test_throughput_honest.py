"""ThroughputView and issue 22: whole run numbers, the peak's source, throttled and outlier points,
clocks in the tooltip (or "clocks unknown")."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import dataclasses

import pytest

from kernels.data.results import Clocks, Timing
from views.demo_results import demo_run_result
from views.throughput_view import FLAG_OUTLIER, FLAG_THROTTLED, RunAxis, ThroughputView


@pytest.fixture
def view(on_screen):
    return on_screen(ThroughputView("GB/s"), 720, 420)


def _with(r, median, p20=None, p80=None, clocks=None):
    r.timing = Timing("gpu", median, p20 if p20 is not None else median * 0.99, p80 if p80 is not None else median * 1.01,
                      100)
    r.metrics.gbps = r.metrics.bytes_moved / (median * 1e6)
    r.clocks = clocks
    return r


def test_run_axis_shows_whole_numbers_only(view):
    # the "run 1.0, 1.5, 2.0, 2.5": breaks if a fractional run number is ever ticked
    for _ in range(3):
        view.add_result(demo_run_result())
    view.flush()
    axis = view.plot.getPlotItem().getAxis("bottom")
    assert isinstance(axis, RunAxis)
    for lo, hi in ((0.8, 3.2), (0.5, 2.5), (1.9, 2.1), (0.0, 200.0)):
        levels = axis.tickValues(lo, hi, 600)
        ticks = [v for _, vals in levels for v in vals]
        assert ticks, (lo, hi)
        assert all(float(v).is_integer() for v in ticks), (lo, hi, ticks)
    assert axis.tickStrings([1.0, 2.0, 3.0], 1.0, 1.0) == ["1", "2", "3"]


def test_peak_line_names_its_source_and_the_data_sheet(view):
    r = demo_run_result()
    r.metrics.peak_source = "device copy 2048 MiB (best of 3 sizes)"
    r.metrics.peak_datasheet = 4800.0
    view.add_result(r)
    view.flush()
    label = view.peak_line.label.toPlainText()
    assert "peak 4,000 GB/s" in label and "device copy 2048 MiB" in label and "data sheet 4,800" in label


def test_percent_of_peak_never_prints_above_100(view):
    r = demo_run_result()
    r = _with(r, r.timing.median_ms)
    r.metrics.gbps = 4300.0  # above the 4,000 GB/s peak the result carries
    view.add_result(r)
    view.flush()
    assert "108%" not in view.summary.text() and "100%" in view.summary.text()


def test_throttled_run_is_ringed_and_says_why(view):
    warm = Clocks(source="nvml", sm_mhz=1980, sm_max_mhz=1980, mem_mhz=3201, temp_c=45, power_w=300.0, warm_s=0.15)
    hot = dataclasses.replace(warm, sm_mhz=1500, power_w=689.0, reasons=["power cap"], throttled=True,
                              note="SM clock 1500 of 1980 MHz (power cap)")
    view.add_result(_with(demo_run_result(), 0.2, clocks=warm))
    view.add_result(_with(demo_run_result({"BLOCK_SIZE": 2048}), 0.2, clocks=hot))
    view.flush()
    assert view.flags_of(0) == 0 and view.flags_of(1) & FLAG_THROTTLED
    tip0, tip1 = view.tooltip_for(0), view.tooltip_for(1)
    assert "SM 1980/1980 MHz" in tip0 and "memory 3201 MHz" in tip0 and "45 °C" in tip0 and "300 W" in tip0
    assert "throttled" not in tip0
    assert "throttled: SM clock 1500 of 1980 MHz (power cap)" in tip1
    # the ring: the second spot's pen differs from the first's
    spots = view.points.points()
    assert spots[0].pen().color().name() != spots[1].pen().color().name()


def test_a_run_without_nvml_says_clocks_unknown(view):
    view.add_result(_with(demo_run_result(), 0.2, clocks=Clocks(note="clocks unknown: pynvml is not installed")))
    assert "clocks unknown (clocks unknown: pynvml is not installed)" in view.tooltip_for(0) \
        or "clocks unknown" in view.tooltip_for(0)
    view.add_result(_with(demo_run_result(), 0.2, clocks=None))
    assert "clocks unknown" in view.tooltip_for(1)


def test_a_point_outside_the_spread_of_earlier_runs_is_an_outlier(view):
    # three clicks of one configuration at ~0.200 ms, then one at 0.300 ms: only that one is flagged
    for m in (0.200, 0.201, 0.199):
        view.add_result(_with(demo_run_result(), m, m * 0.99, m * 1.01))
    view.add_result(_with(demo_run_result(), 0.300, 0.297, 0.303))
    view.add_result(_with(demo_run_result({"BLOCK_SIZE": 64}), 0.9))  # another configuration: not compared
    view.flush()
    assert [view.flags_of(i) & FLAG_OUTLIER for i in range(5)] == [0, 0, 0, FLAG_OUTLIER, 0]
    tip = view.tooltip_for(3)
    assert "outlier" in tip and "runs 1, 2, 3" in tip
