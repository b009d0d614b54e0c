"""Correctness metrics against hand-computed arrays, and the timing/metric arithmetic."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from kernels.data.results import Timing
from kernels.run import bench, check

NAN, INF = float("nan"), float("inf")


def t(*values, dtype=torch.float32):
    return torch.tensor(values, dtype=dtype)


def test_unwritten_mismatch_and_error_metrics_by_hand():
    out = t(1.0, 2.0, NAN, 4.0)
    ref = t(1.0, 2.5, 3.0, 4.0, dtype=torch.float64)
    c = check.compare(out, ref, atol=0.1, rtol=0.0, name="out", dtype="fp32")
    assert not c.passed
    assert c.n_elements == 4 and c.n_unwritten == 1 and c.n_nan == 1 and c.n_inf == 0
    assert c.n_mismatch == 2  # 0.5 > 0.1, and the NaN
    assert c.max_abs_err == 0.5  # the NaN is reported as unwritten, not as the maximum
    # ||diff|| / ||ref|| over the elements with a value: 0.5 / sqrt(1 + 6.25 + 16)
    assert c.rel_err == pytest.approx(0.5 / math.sqrt(23.25))
    np.testing.assert_array_equal(c.error_map, np.array([0.0, 0.5, np.inf, 0.0], dtype=np.float32))
    assert c.error_map.dtype == np.float32
    assert "1 of 4 elements are still NaN" in c.reason and "1 more differ" in c.reason


def test_relative_tolerance_scales_with_the_reference():
    out, ref = t(100.5, 0.0), t(100.0, 0.0)
    assert check.compare(out, ref, atol=0.0, rtol=1e-2).passed  # 0.5 <= 0.01 * 100
    c = check.compare(out, ref, atol=0.0, rtol=1e-3)
    assert not c.passed and c.n_mismatch == 1 and c.max_abs_err == pytest.approx(0.5)
    assert "1 of 2 elements differ" in c.reason and "max abs error 0.5" in c.reason


def test_matching_non_finite_values_pass_and_mismatched_ones_do_not():
    # softmax of a fully masked row is NaN on purpose; the same infinity is a match
    out = t(NAN, INF, 1.0)
    ref = t(NAN, INF, 1.0)
    c = check.compare(out, ref, atol=1e-6, rtol=0.0)
    assert c.passed and c.n_unwritten == 0 and c.n_nan == 1 and c.n_inf == 1 and c.max_abs_err == 0.0
    c = check.compare(t(-INF, 5.0, 1.0), t(INF, INF, 1.0), atol=1e6, rtol=1e6)
    assert not c.passed and c.n_mismatch == 2 and c.max_abs_err == math.inf
    c = check.compare(t(3.0), t(NAN), atol=1.0, rtol=1.0)  # a number where NaN was expected
    assert not c.passed and c.n_mismatch == 1 and c.n_unwritten == 0


def test_shape_mismatch_is_a_failed_check_with_the_reason():
    c = check.compare(torch.zeros(2, 3), torch.zeros(3, 2), 1e-3, 1e-3, name="y")
    assert not c.passed and "shape (2, 3) differs from the reference's (3, 2)" in c.reason


def test_fp16_output_is_compared_in_float64_and_the_map_keeps_its_shape():
    ref = torch.linspace(-3, 3, 12, dtype=torch.float64).reshape(3, 4)
    out = ref.to(torch.float16)
    c = check.compare(out, ref, atol=1e-2, rtol=1e-2, dtype="fp16")
    expected = (out.double() - ref).abs()
    assert c.passed and c.max_abs_err == pytest.approx(float(expected.max()))
    assert c.error_map.shape == (3, 4)
    np.testing.assert_allclose(c.error_map, expected.numpy().astype(np.float32))


def test_compare_does_not_modify_a_float64_output():
    out = torch.tensor([1.0, 2.0], dtype=torch.float64)
    check.compare(out, torch.tensor([1.5, 2.0], dtype=torch.float64), 0.0, 0.0)
    assert out.tolist() == [1.0, 2.0]


def test_poison_fills_floating_outputs_only():
    ts = {"x": torch.ones(3), "out": torch.zeros(3), "idx": torch.zeros(3, dtype=torch.int32)}
    check.poison(ts, ("out", "idx"))
    assert torch.isnan(ts["out"]).all() and ts["x"].tolist() == [1, 1, 1] and ts["idx"].tolist() == [0, 0, 0]


def test_check_outputs_fails_when_a_secondary_output_fails():
    ts = {"y": t(1.0, 2.0), "mean": t(0.0)}
    refs = {"y": t(1.0, 2.0), "mean": t(1.0)}
    c = check.check_outputs(ts, refs, ("y", "mean"), 1e-3, 1e-3, "fp32")
    assert c.output == "y" and not c.passed and len(c.others) == 1 and not c.others[0].passed
    assert c.reason.startswith("mean:")
    with pytest.raises(ValueError, match="none of the outputs"):
        check.check_outputs(ts, {"z": t(1.0)}, ("y",), 1e-3, 1e-3)


def test_timing_quantiles_and_metrics():
    tm = bench.timing_from_samples([5.0, 1.0, 3.0, 2.0, 4.0], "m")
    assert (tm.median_ms, tm.p20_ms, tm.p80_ms, tm.n_reps) == (3.0, pytest.approx(1.8), pytest.approx(4.2), 5)
    torch_t = Timing("torch", 2.0, 2.0, 2.0, 10)
    m = bench.metrics(bytes_moved=3_000_000, flops=2_000_000_000, timing=Timing("x", 1.0, 1.0, 1.0, 1),
                      torch_timing=torch_t, peak_gbps=4.0, peak_tflops=10.0)
    assert m.gbps == pytest.approx(3.0) and m.tflops == pytest.approx(2.0)  # per ms: /1e6, /1e9
    assert m.pct_peak_bw == pytest.approx(75.0) and m.pct_peak_flops == pytest.approx(20.0)
    assert m.ratio_vs_torch == pytest.approx(2.0) and m.torch_gbps == pytest.approx(1.5)


def test_wall_time_counts_reps_and_stops_at_the_budget():
    calls = []
    tm = bench.wall_time(lambda: calls.append(1), reps=7)
    assert tm.n_reps == 7 == len(calls) and tm.is_interpreter and "not GPU speed" in tm.method
    import time

    tm = bench.wall_time(lambda: time.sleep(0.02), reps=100, budget_s=0.05)
    assert 2 <= tm.n_reps <= 4 and tm.median_ms >= 20
