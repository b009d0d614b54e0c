"""The first sweep is the fast one (issue #28): what a fresh worker's first sweep no longer waits
for, checked on the CPU (the interpreter backend, with the compile pool's pipeline driven as on
a GPU, its compiles injected).

- the compiles are submitted before the inputs are built (stand-ins from a dry run of the
  builder), and the inputs are built while the compiles run;
- those stand-ins are the ones the real inputs give (so each config compiles to the binary its
  launch looks up in Triton's cache);
- the re-measurement reuses the sweep's inputs instead of drawing them again, and the references
  are computed once per set of inputs (the check still runs at every point);
- the worker's head start (``kernels.tune.warm_start``) runs its steps once, and a sweep waits
  for it instead of doing them beside it.
"""

from __future__ import annotations

import importlib
import sys

import pytest

from kernels import engine
from kernels.data.results import SweepRequest, SweepResult
from kernels.engine.sweep import _Runner, plan_sweep
from kernels.run.prepare import prepare
from kernels.tune import pipeline, warm_start

sweep_mod = importlib.import_module("kernels.engine.sweep")  # the package exports a function of that name


def _counting(monkeypatch, spec, name: str, real_only: bool = False) -> list[int]:
    """Count calls of ``spec.<name>`` (``real_only``: not the dry runs on the meta device)."""
    calls: list[int] = []
    fn = getattr(spec, name)

    def counted(*args, **kwargs):
        if not real_only or str(args[1] if len(args) > 1 else kwargs.get("device")) != "meta":
            calls.append(1)
        return fn(*args, **kwargs)
    monkeypatch.setattr(spec, name, counted)
    return calls


def test_compiles_are_submitted_before_the_inputs_are_built(monkeypatch):
    # breaks if the pipeline built the group's inputs (seconds for a 4096^3 matmul, drawn on the
    # CPU) before handing any config to the compile pool: the compiles would wait for them
    submitted: list[int] = []
    seen_at_inputs: list[int] = []
    real_submit = pipeline.CompilePool.submit

    def submit(self, *args, **kwargs):
        submitted.append(1)
        return real_submit(self, *args, **kwargs)

    real_prepare = sweep_mod.prepare

    def prepare_counting(*args, **kwargs):
        seen_at_inputs.append(len(submitted))
        return real_prepare(*args, **kwargs)

    monkeypatch.setattr(pipeline.CompilePool, "submit", submit)
    monkeypatch.setattr(sweep_mod, "prepare", prepare_counting)
    monkeypatch.setattr(pipeline, "compile_config", lambda *a: pipeline.CompileOutcome(0.01, shared=0))
    req = SweepRequest("vector_add", {"N": 300}, {"BLOCK_SIZE": [64, 128, 256, 512]}, backend="interpreter",
                       mode="tune", torch_baseline=False)
    out = SweepResult(request=req, points=[], best=None)
    runner = _Runner(req, plan_sweep(req), out, None, None, None)
    assert runner.pipelined("threads", 4) is True
    assert seen_at_inputs and seen_at_inputs[0] == 4  # all four submitted when the inputs were built
    assert len(out.points) == 4 and all(p.result.ok for p in out.points)
    assert "inputs" in out.phases and "peaks" in out.phases


def test_inputs_that_do_not_fit_are_refused_before_anything_compiles(monkeypatch):
    # breaks if a problem too large for memory had its configs compiled (16 compiles for nothing)
    # before each point said it does not fit
    submitted: list[int] = []
    monkeypatch.setattr(pipeline.CompilePool, "submit", lambda self, *a, **k: submitted.append(1))
    monkeypatch.setattr("kernels.run.memory.host_available", lambda: 1 << 20)  # 1 MiB of host memory
    req = SweepRequest("vector_add", {"N": 1 << 20}, {"BLOCK_SIZE": [64, 128]}, backend="interpreter",
                       mode="tune", torch_baseline=False)
    out = SweepResult(request=req, points=[], best=None)
    runner = _Runner(req, plan_sweep(req), out, None, None, None)
    assert runner.pipelined("threads", 2) is True
    assert submitted == []
    assert len(out.points) == 2 and all("too large for host memory" in p.result.error.message for p in out.points)


@pytest.mark.parametrize("name", ["vector_add", "matmul", "softmax", "layernorm"])
def test_dry_run_stand_ins_are_those_of_the_real_inputs(name):
    # breaks if the stand-ins the compiles get before the inputs exist differed from the real
    # inputs' (shape, strides, dtype, offset, storage): a compile on them would build another
    # binary than the one the config's launch looks up
    spec = engine.get_spec(name)
    req = SweepRequest(name, {}, {}, backend="interpreter", mode="tune", configs=[{}])
    runner = _Runner(req, plan_sweep(req), SweepResult(request=req, points=[], best=None), None, None, None)
    job = runner.plan.jobs[0]
    dry = runner._dry_metas(job)
    real = pipeline.metas_of(prepare(spec, job.run_values, "interpreter", 0).tensors)
    assert dry is not None and dry == real


def test_remeasure_reuses_the_inputs_and_references_are_computed_once(monkeypatch):
    # breaks if each re-measurement pass drew the inputs again (~0.25 s a pass for 4096^3 on the
    # H200's host) or if every point computed the float64 reference again
    spec = engine.get_spec("vector_add")
    builds = _counting(monkeypatch, spec, "make_inputs", real_only=True)
    refs = _counting(monkeypatch, spec, "reference")
    res = engine.sweep(SweepRequest("vector_add", {"N": 200}, {"BLOCK_SIZE": [32, 64, 128, 256]},
                                    backend="interpreter", mode="tune", torch_baseline=False, remeasure_rounds=1))
    assert res.error is None and res.best is not None
    assert sum(p.remeasured is not None for p in res.points) >= 3  # the re-measurement ran
    assert all(p.result.check is not None and p.result.check.passed for p in res.points)  # every point checked
    assert len(builds) == 1
    assert len(refs) == 1


def test_each_data_group_gets_its_own_inputs_and_references_through_the_pipeline(monkeypatch):
    # breaks if the inputs built while one group compiles were reused for another group's shapes
    # (a wrong check), or if a group's points drew their inputs or references again
    spec = engine.get_spec("vector_add")
    builds = _counting(monkeypatch, spec, "make_inputs", real_only=True)
    refs = _counting(monkeypatch, spec, "reference")
    monkeypatch.setattr(pipeline, "compile_config", lambda *a: pipeline.CompileOutcome(0.01, shared=0))
    req = SweepRequest("vector_add", {}, {"N": [300, 500], "BLOCK_SIZE": [64, 128, 256]}, backend="interpreter",
                       mode="tune", torch_baseline=False)
    out = SweepResult(request=req, points=[], best=None)
    runner = _Runner(req, plan_sweep(req), out, None, None, None)
    assert runner.pipelined("threads", 3) is True
    assert len(out.points) == 6 and all(p.result.ok and p.result.check.passed for p in out.points)
    assert {p.result.values["N"] for p in out.points} == {300, 500}
    assert len(builds) == 2 and len(refs) == 2


def test_a_failed_check_drops_the_kept_reference(monkeypatch):
    # breaks if a point whose output is wrong left the reference (and inputs) behind for the next
    # point: after a failed check both are built again
    spec = engine.get_spec("vector_add")
    refs = _counting(monkeypatch, spec, "reference")
    real_launch = spec.launch
    bad = {"BLOCK_SIZE": 64}

    def launch(K, t, cfg, grid):
        ret = real_launch(K, t, cfg, grid)
        if cfg["BLOCK_SIZE"] == bad["BLOCK_SIZE"]:
            t["out"].add_(1.0)  # a wrong answer
        return ret
    monkeypatch.setattr(spec, "launch", launch)
    res = engine.sweep(SweepRequest("vector_add", {"N": 200}, {"BLOCK_SIZE": [32, 64, 128]},
                                    backend="interpreter", mode="tune", torch_baseline=False, remeasure_top=0))
    by = {p.values["BLOCK_SIZE"]: p.result for p in res.points}
    assert by[32].check.passed and not by[64].check.passed and by[128].check.passed
    assert len(refs) == 2  # 32 (kept), 64 reuses it and fails, 128 computes it again


def test_head_start_runs_once_and_a_sweep_waits_for_it():
    # breaks if the head start ran its steps again per call, or if a sweep started while it was
    # still running did not wait for it (the same imports in two threads at once)
    t = warm_start.start(gpu=False)
    assert warm_start.start(gpu=True) is t  # once per process, whatever the second call asks
    warm_start.wait()
    assert not t.is_alive()
    done = warm_start.steps_done()
    assert {"sympy", "triton"} <= set(done) and "driver" not in done  # no GPU steps asked for
    assert "sympy" in sys.modules
    assert warm_start.wait() == 0.0
    res = engine.sweep(SweepRequest("vector_add", {"N": 64}, {"BLOCK_SIZE": [32, 64]}, backend="interpreter",
                                    torch_baseline=False))
    assert res.error is None and "warm-up wait" not in res.phases  # nothing was running: no wait


def test_the_device_script_starts_its_worker_at_the_windows_nice_level():
    # breaks if benchmarks/first_sweep_gpu.py (run where PySide6 is missing, so it reads the value
    # from app/qt_worker.py's source) started its worker unlike the window does
    from pathlib import Path

    pytest.importorskip("PySide6")
    from app.qt_worker import WORKER_NICE

    spec = importlib.util.spec_from_file_location(
        "first_sweep_gpu", Path(__file__).resolve().parents[2] / "benchmarks" / "first_sweep_gpu.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod._window_nice() == WORKER_NICE


def test_the_gpu_is_kept_busy_while_the_first_compile_runs_and_never_after(monkeypatch):
    # breaks if the GPU sat idle (its clock falling to idle) while the first compile ran, or if
    # that load went on once a compile had landed (the first point would wait for it). The
    # interpreter stands in for the GPU: its load is injected, the compiles held until it ran
    import threading

    from kernels.run import timing

    go = threading.Event()
    chunks: list[int] = []
    at_first_point: list[int] = []

    def compile_held(*a):
        go.wait(30)
        return pipeline.CompileOutcome(0.01, shared=0)

    def load() -> None:
        chunks.append(1)
        if len(chunks) == 3:
            go.set()
        threading.Event().wait(0.001)

    monkeypatch.setattr(pipeline, "compile_config", compile_held)
    monkeypatch.setattr(pipeline, "torch_load", lambda *a: load)
    monkeypatch.setattr(timing, "sensor", lambda: None)
    req = SweepRequest("vector_add", {"N": 300}, {"BLOCK_SIZE": [64, 128, 256]}, backend="interpreter",
                       mode="tune", torch_baseline=False)
    out = SweepResult(request=req, points=[], best=None)
    runner = _Runner(req, plan_sweep(req), out, None, None, lambda p: at_first_point.append(len(chunks)))
    assert runner.pipelined("threads", 3) is True
    assert len(out.points) == 3 and all(p.result.ok for p in out.points)
    assert len(chunks) >= 3 and at_first_point[0] == len(chunks)  # all before the first point
    assert out.phases["gpu warm-up while compiling"] > 0
