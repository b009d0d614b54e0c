"""N-axis sweeps on the interpreter: the space, ``where`` constraints, pruning before compiling,
launch-option axes refused, the compile-ahead pipeline (with stand-in compiles), the honest
ranking. Small shapes: each sweep runs in about a second."""

from __future__ import annotations

import dataclasses
import time

import pytest

from kernels import engine
from kernels.catalog.matmul import matmul
from kernels.data.params import ValidationError, block, shape
from kernels.data.results import (
    ErrorInfo,
    RunRequest,
    RunResult,
    SweepPoint,
    SweepRequest,
    SweepResult,
    Timing,
)
from kernels.data.tuning.rank import rank
from kernels.data.tuning.space import build_space
from kernels.engine.sweep import _Runner, plan_sweep
from kernels.specs.spec import REGISTRY
from kernels.tune import check_fit, limits_for_target, pipeline

SMALL_MM = {"M": 32, "N": 32, "K": 32, "dtype": "fp32"}


def _tune(kernel: str, base: dict, axes: dict, **kw) -> SweepResult:
    on_point = kw.pop("on_point", None)
    kw.setdefault("backend", "interpreter")
    kw.setdefault("torch_baseline", False)
    kw.setdefault("remeasure_rounds", 2)
    return engine.sweep(SweepRequest(kernel, base, axes, mode="tune", **kw), on_point=on_point)


# ---------------------------------------------------------------------------------------------
# the space


def test_space_is_the_product_then_configs_filtered_by_where_and_skip():
    params = matmul.params
    sp = build_space(params, {"M": "64"}, {"BLOCK_M": [16, "32"], "BLOCK_N": [16, 32]},
                     configs=[{"num_warps": 2}, {"num_warps": 4, "BLOCK_K": 64}],
                     where=["BLOCK_M * BLOCK_N <= 512", "M == 64"], skip=[{"BLOCK_M": 16, "BLOCK_N": 16,
                                                                          "num_warps": 2, "BLOCK_K": 32}])
    assert sp.names == ["BLOCK_M", "BLOCK_N", "num_warps", "BLOCK_K"]
    # 8 combinations; 32x32 fails the constraint twice; one point already done
    assert sp.filtered == 2 and sp.skipped == 1 and len(sp.points) == 5
    assert sp.points[0] == {"BLOCK_M": 16, "BLOCK_N": 16, "num_warps": 4, "BLOCK_K": 64}  # "32" parsed, defaults filled
    assert sp.indices == [1, 2, 3, 4, 5]
    with pytest.raises(ValidationError, match="unknown parameter 'BLOCK_Q'"):
        build_space(params, {}, {"BLOCK_Q": [1]})
    with pytest.raises(ValidationError, match="both an axis and a key of configs"):
        build_space(params, {}, {"BLOCK_M": [16]}, configs=[{"BLOCK_M": 32}])
    with pytest.raises(ValidationError, match="only min/max/abs calls allowed"):
        build_space(params, {}, {"BLOCK_M": [16]}, where=["__import__('os')"])
    with pytest.raises(ValidationError, match="Attribute not allowed"):
        build_space(params, {}, {"BLOCK_M": [16]}, where=["BLOCK_M.__class__"])
    with pytest.raises(ValidationError, match="name 'BLOK_M' is not defined"):
        build_space(params, {}, {"BLOCK_M": [16]}, where=["BLOK_M > 1"])
    with pytest.raises(ValidationError, match="combinations"):
        build_space(params, {}, {n: list(range(1, 20)) for n in ("M", "N", "K", "BLOCK_M")})


# ---------------------------------------------------------------------------------------------
# a 3-axis sweep on the interpreter


def test_three_axis_constexpr_sweep_reports_every_point_ranks_and_exports():
    seen: list[SweepPoint] = []
    res = _tune("matmul", SMALL_MM, {"BLOCK_M": [16, 32], "BLOCK_N": [16, 32], "BLOCK_K": [16, 32]},
                where=["BLOCK_M * BLOCK_N * BLOCK_K <= 16384"], on_point=seen.append)
    assert res.error is None, res.error
    assert res.names == ["BLOCK_M", "BLOCK_N", "BLOCK_K"] and res.filtered == 1  # 32*32*32
    assert len(res.points) == len(seen) == 7
    assert [p.index for p in res.points] == list(range(7))
    for p in res.points:
        assert p.result.ok and p.result.check.passed and p.result.timing.is_interpreter
        assert p.result.values["BLOCK_M"] == p.values["BLOCK_M"] and p.estimate["shared_bytes"] > 0
    # the top 3 were re-measured (2 rounds a pass), and more when a pass found a point slower
    # than at first (then the next by their latest estimate are re-measured too, a bounded
    # number of passes); the winner is the fastest by its re-measurement
    from kernels.engine.sweep import MAX_REMEASURE_PASSES, REMEASURE_SPARE

    again = [p for p in res.points if p.remeasured is not None]
    assert 3 + REMEASURE_SPARE <= len(again) <= 3 + REMEASURE_SPARE + (MAX_REMEASURE_PASSES - 1) * 3
    assert all(p.remeasured.n_reps >= 2 and p.remeasured.n_reps % 2 == 0 for p in again)
    assert "re-measured" in again[0].remeasured.method
    win = res.points[res.best]
    assert win.remeasured is not None and win.timing.median_ms == min(p.timing.median_ms for p in again)
    assert [e.rank for e in res.ranking] == list(range(1, 8)) and res.ranking[0].index == res.best
    assert all(e.p20_ms <= e.median_ms <= e.p80_ms for e in res.ranking)
    assert len(res.verdicts) == 1 and res.verdicts[0].startswith("winner BLOCK_M=")
    assert ("noise" in res.verdicts[0]) and set(res.exports) == {"autotune", "triton_op"}
    assert {"plan", "bench", "remeasure", "total"} <= set(res.phases)


def test_data_axes_make_groups_each_with_its_winner():
    res = _tune("vector_add", {}, {"BLOCK_SIZE": [64, 256], "dtype": ["fp32", "fp16"], "N": [300, 1000]},
                remeasure_top=0)
    assert res.error is None and len(res.points) == 8 and all(p.result.ok for p in res.points)
    assert [p.values for p in res.points[:2]] == [{"BLOCK_SIZE": 64, "dtype": "fp32", "N": 300},
                                                  {"BLOCK_SIZE": 64, "dtype": "fp32", "N": 1000}]
    groups = {e.group for e in res.ranking}
    assert groups == {"dtype=fp32, N=300", "dtype=fp32, N=1000", "dtype=fp16, N=300", "dtype=fp16, N=1000"}
    assert len(res.verdicts) == 4 and all(v.startswith("[dtype=") for v in res.verdicts)
    assert sum(e.rank == 1 for e in res.ranking) == 4
    assert not any(p.remeasured for p in res.points)


def test_within_the_noise_is_said():
    def pt(i: int, med: float, lo: float, hi: float) -> SweepPoint:
        r = RunResult(request=None, kernel="k", values={}, backend="interpreter", device="cpu",  # type: ignore[arg-type]
                      timing=Timing("t", med, lo, hi, 10))
        return SweepPoint({"B": i}, r, index=i)

    points = [pt(0, 1.00, 0.95, 1.05), pt(1, 1.02, 0.99, 1.10), pt(2, 2.0, 1.9, 2.1)]
    ranking, verdicts = rank(points, [], ["B"])
    assert [(e.index, e.within_noise) for e in ranking] == [(0, False), (1, True), (2, False)]
    assert "within the noise of 1 other" in verdicts[0] and "B=1" in verdicts[0]
    ranking, verdicts = rank(points[::2], [], ["B"])
    assert "100.0% ahead of the next (B=2), outside the noise" in verdicts[0]


# ---------------------------------------------------------------------------------------------
# pruning and refusals


def test_pruning_records_the_reason_per_point_and_never_runs_it():
    res = _tune("matmul", {**SMALL_MM, "dtype": "fp16", "num_warps": 1},
                {"BLOCK_M": [16, 256], "BLOCK_N": [256], "BLOCK_K": [16, 256]}, target="sm_80", remeasure_top=0)
    assert res.error is None and res.n_pruned == 3
    by = {(p.values["BLOCK_M"], p.values["BLOCK_K"]): p for p in res.points}
    ok = by[(16, 16)]
    assert ok.result.ok and not ok.pruned
    regs = by[(256, 16)]  # 256x256 fp32 accumulator over 32 threads
    assert regs.pruned.startswith("registers") and "2048 registers per thread" in regs.pruned
    smem = by[(16, 256)]  # (16*256 + 256*256) * 2 B * 3 stages
    assert smem.pruned.startswith("shared memory") and "about 417,792 B" in smem.pruned and "166,912" in smem.pruned
    for p in (regs, smem, by[(256, 256)]):
        assert p.result.error.kind == "pruned" and p.result.timing is None and p.result.check is None
        assert "skipped before compiling" in p.result.error.message
    assert any("sm_80" in n for n in res.notes)


def test_fit_checks_block_size_and_the_specs_own_estimate():
    assert "block too large" in check_fit(matmul, {"BLOCK_M": 2048, "BLOCK_N": 1024, "BLOCK_K": 16}, None).reason
    h100 = limits_for_target("H100")
    assert h100.shared_per_block == limits_for_target("sm_90").shared_per_block == 232448
    assert limits_for_target("8.6").shared_per_block == 101376
    with pytest.raises(ValueError, match="unknown target"):
        limits_for_target("tpu")
    own = dataclasses.replace(matmul, name="own_smem")
    own.shared_memory = lambda cfg: 300_000  # type: ignore[attr-defined]
    fit = check_fit(own, {"BLOCK_M": 16, "BLOCK_N": 16, "BLOCK_K": 16}, h100)
    assert fit.reason.startswith("shared memory") and "own_smem's shared_memory()" in fit.reason
    assert check_fit(matmul, {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32, "num_stages": 3, "dtype": "fp16",
                              "num_warps": 4}, h100).estimate == {"shared_bytes": 24576, "regs_per_thread": 32}
    # maxnreg lowers the register cap
    assert check_fit(matmul, {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32, "num_warps": 4, "maxnreg": 96},
                     h100).reason.startswith("registers")


def test_launch_option_axes_are_refused_on_the_interpreter_in_tune_mode():
    res = _tune("vector_add", {"N": 300}, {"BLOCK_SIZE": [64, 128], "num_warps": [2, 4]})
    assert res.error.kind == "validation" and res.error.field == "num_warps" and not res.points
    assert "no effect under the interpreter" in res.error.message and "on a GPU" in res.error.message
    res = _tune("matmul", SMALL_MM, {}, configs=[{"BLOCK_M": 16, "num_stages": 2}, {"BLOCK_M": 32, "num_stages": 3}])
    assert res.error.field == "num_stages"
    res = _tune("vector_add", {"N": 300}, {"BLOCK_SIZE": [64, 128], "maxnreg": [64, 128]})
    assert res.error.field == "maxnreg"
    # one value is not an axis: it runs, with a note that it changes nothing here
    res = _tune("vector_add", {"N": 300, "maxnreg": 128}, {"BLOCK_SIZE": [64, 128]}, remeasure_top=0)
    assert res.error is None and len(res.points) == 2 and any("maxnreg" in n for n in res.notes)


def test_request_shape_errors():
    assert "nothing to sweep" in _tune("vector_add", {}, {}).error.message
    grid = engine.sweep(SweepRequest("vector_add", {}, {"N": [300]}, configs=[{"BLOCK_SIZE": 64}]))
    assert grid.error.field == "configs" and "mode='tune'" in grid.error.message
    bad = _tune("vector_add", {}, {"BLOCK_SIZE": [64]}, where=["BLOCK_SIZE >"])
    assert bad.error.field == "where" and "not an expression" in bad.error.message
    assert _tune("vector_add", {}, {"BLOCK_SIZE": [64]}, target="sm_x").error.field == "target"


def test_explicit_configs_and_grid_mode_where():
    res = _tune("vector_add", {"N": 500}, {}, configs=[{"BLOCK_SIZE": 64}, {"BLOCK_SIZE": 512}], remeasure_top=0)
    assert res.error is None and [p.values for p in res.points] == [{"BLOCK_SIZE": 64}, {"BLOCK_SIZE": 512}]
    grid = engine.sweep(SweepRequest("vector_add", {"N": 500}, {"BLOCK_SIZE": [64, 128, 256, 512]},
                                     backend="interpreter", torch_baseline=False, where=["BLOCK_SIZE <= 128"]))
    assert grid.error is None and [p.values["BLOCK_SIZE"] for p in grid.points] == [64, 128]
    assert grid.filtered == 2 and not any(p.remeasured for p in grid.points)  # grid mode: no re-measurement


# ---------------------------------------------------------------------------------------------
# the compile-ahead pipeline, with stand-in compiles (no GPU here)


class _FakeKernel:
    """A JITFunction stand-in: ``warmup`` notes what it was given."""

    def __init__(self) -> None:
        self.calls: list[tuple] = []

    def warmup(self, *args, grid, **kwargs):
        self.calls.append((args, grid, kwargs))
        if kwargs.get("BLOCK_SIZE") == 999:
            raise RuntimeError("boom")
        return type("K", (), {"metadata": type("M", (), {"shared": 4096})()})()


def test_compile_config_warms_up_on_meta_stand_ins():
    fake = _FakeKernel()
    spec = dataclasses.replace(engine.get_spec("vector_add"), kernels=(fake,))
    spec = dataclasses.replace(spec, launch=lambda K, t, cfg, grid: K(fake)[grid](
        t["x"], t["out"], cfg["N"], BLOCK_SIZE=cfg["BLOCK_SIZE"], num_warps=4))
    import torch

    metas = pipeline.metas_of({"x": torch.zeros(10)[2:], "out": torch.zeros(8), "eps": 0.5})
    cfg = spec.config({"N": 8, "BLOCK_SIZE": 64})
    oc = pipeline.compile_config(spec, cfg, metas, {"maxnreg": 128})
    assert oc.error is None and not oc.fallback and oc.shared == 4096
    (x, out, n), grid, kw = fake.calls[0]
    assert x.device.type == "meta" and x.shape == (8,) and x.storage_offset() == 2 and n == 8
    assert grid == (1,) and kw == {"BLOCK_SIZE": 64, "num_warps": 4, "maxnreg": 128}
    bad = pipeline.compile_config(spec, {**cfg, "BLOCK_SIZE": 999}, metas, {})
    assert bad.fallback.startswith("not compiled ahead") and "boom" in bad.fallback


def test_pipeline_streams_points_as_compiles_land_and_cancel_keeps_them(monkeypatch):
    delays = {64: 0.3, 128: 0.0, 256: 0.15, 512: 0.0}
    def fake_compile(spec, cfg, metas, options):
        time.sleep(delays[cfg["BLOCK_SIZE"]])
        if cfg["BLOCK_SIZE"] == 512:
            return pipeline.CompileOutcome(0.01, error=ErrorInfo("compile", "compile error: too big"))
        return pipeline.CompileOutcome(delays[cfg["BLOCK_SIZE"]], shared=0)

    monkeypatch.setattr(pipeline, "compile_config", fake_compile)
    req = SweepRequest("vector_add", {"N": 300}, {"BLOCK_SIZE": [64, 128, 256, 512]}, backend="interpreter",
                       mode="tune", torch_baseline=False)
    plan = plan_sweep(req)
    out = SweepResult(request=req, points=[], best=None)
    landed: list[int] = []
    runner = _Runner(req, plan, out, None, None, lambda p: landed.append(p.values["BLOCK_SIZE"]))
    assert runner.pipelined("threads", 4) is True
    assert landed[0] in (128, 512) and landed[-1] == 64  # as compiles land, not in order
    by = {p.values["BLOCK_SIZE"]: p for p in out.points}
    assert by[512].result.error.message == "compile error: too big" and by[512].result.timing is None
    assert by[64].compile_s == pytest.approx(0.3) and by[64].result.ok
    assert out.phases["compile"] >= 0.3 and any("ahead in 4 threads" in n for n in out.notes)
    # cancel after the first point: what is done is kept, the rest is dropped
    out2 = SweepResult(request=req, points=[], best=None)
    r2 = _Runner(req, plan, out2, None, lambda: len(out2.points) >= 1, None)
    assert r2.pipelined("threads", 1) is False
    assert len(out2.points) == 1 and out2.error.kind == "cancelled" and "after 1 of 4" in out2.error.message


def test_auto_compiles_in_threads_without_a_started_pool_and_a_broken_pool_falls_back():
    # breaks if "auto" started processes for one sweep (measured slower than threads unless a pool
    # was started ahead: tests/kernels/test_tune_speed.py covers the process side) or if a broken
    # pool lost the config instead of leaving its compile to the launch
    from kernels.tune import procpool

    spec = engine.get_spec("vector_add")
    if procpool.running() is None:
        assert pipeline.pool_kind(spec, "auto", None) == "threads"
    assert pipeline.pool_kind(spec, "threads", None) == "threads"
    broken = pipeline.CompilePool("threads", 1)
    broken._threads.shutdown()
    oc = broken.outcome(broken.submit(spec, None, {}, {}, {}))
    assert oc.fallback.startswith("not compiled ahead: the compile pool failed (RuntimeError")


def test_launch_options_the_spec_has_no_parameter_for_reach_every_launch():
    from kernels.run.backends import with_options

    seen = []

    class K:
        def __init__(self, fn):
            pass

        def __getitem__(self, grid):
            return lambda *a, **kw: seen.append(kw)

    spec = dataclasses.replace(engine.get_spec("vector_add"), name="overlay",
                               launch=lambda K, t, cfg, grid: K("fn")[grid](1, a=2))
    spec.run_launch(K, {}, {"N": 8, "BLOCK_SIZE": 8})
    spec.run_launch(with_options(K, {"maxnreg": 64}), {}, {"N": 8, "BLOCK_SIZE": 8})
    assert seen == [{"a": 2}, {"a": 2, "maxnreg": 64}]
    # and through a run request, on the real engine path
    r = engine.run(RunRequest("vector_add", {"N": 100}, backend="interpreter", launch_options={"maxnreg": 64}))
    assert r.ok and r.check.passed


def test_spec_params_stay_usable_in_sweeps_of_user_specs():
    # a spec without num_warps/num_stages parameters: a fixed num_warps is passed to the launch
    s = dataclasses.replace(engine.get_spec("vector_add"), name="few_params",
                            params=(block("BLOCK_SIZE", 64, lo=16), shape("N", 300)) + tuple(
                                p for p in engine.get_spec("vector_add").params if p.kind == "dtype"),
                            launch=lambda K, t, cfg, grid: K(engine.get_spec("vector_add").kernels[0])[grid](
                                t["x"], t["y"], t["out"], cfg["N"], BLOCK_SIZE=cfg["BLOCK_SIZE"], IS_MUL=False))
    REGISTRY(s)
    try:
        res = _tune("few_params", {"N": 300, "num_warps": 2}, {"BLOCK_SIZE": [64, 128]}, remeasure_top=0)
    finally:
        REGISTRY.remove("few_params")
    assert res.error is None and all(p.result.ok for p in res.points)
