"""A trace after the window's Run traces the inputs that Run drew (the worker's live cache), and
leaves them as they were: the next Run reuses them and its check stays right.

What breaks if these fail: every GPU trace of vector add 2^26 draws its inputs again on the CPU
(~1 s of the worker's 1.3 s on the H200: docs/benchmarks/gpu-trace.md), or — worse — a trace
writes into the live inputs and the next Run is checked against references of other data. The
GPU recorder runs here as its instrumented build under the interpreter (``device="cpu"``): the
very code the GPU runs, on the same prepared inputs."""

from __future__ import annotations

import pytest
import torch

import kernels.catalog  # noqa: F401  (registers the bundled kernels)
from kernels.data.coarse import window_request
from kernels.data.results import RunRequest
from kernels.data.trace import TraceRequest
from kernels.engine.handlers import EngineState, handle
from kernels.engine.kept_trace import KeptTrace
from kernels.sources.lookup import get_spec

VALUES = {"N": 4096, "BLOCK_SIZE": 512}


@pytest.fixture
def builds(monkeypatch):
    """The devices vector add's inputs were really built on (the planner's dry runs on "meta" are not)."""
    spec = get_spec("vector_add")
    made: list[str] = []
    make = spec.make_inputs

    def counted(cfg, device, gen):
        if str(device) != "meta":
            made.append(str(device))
        return make(cfg, device, gen)

    monkeypatch.setattr(spec, "make_inputs", counted)
    return made


def _run(state: EngineState, **values):
    res = handle(state, "run", RunRequest("vector_add", {**VALUES, **values}, backend="interpreter"))
    assert res.error is None, res.error
    assert res.check.passed
    return res


def _inputs(state: EngineState) -> dict[str, torch.Tensor]:
    return {k: t.clone() for k, t in state.live_cache.tensors.items() if k != "out"}


def test_an_interpreter_trace_after_a_run_traces_the_runs_inputs(builds):
    state = EngineState()
    _run(state)
    before = _inputs(state)
    res = handle(state, "trace", window_request(TraceRequest("vector_add", dict(VALUES)), 1024))
    assert res.error is None, res.error
    assert len(builds) == 1  # the Run's alone: the trace drew none
    assert all(torch.equal(before[k], state.live_cache.tensors[k]) for k in before)
    _run(state, BLOCK_SIZE=256)  # the next Run: the same inputs and references, checked again
    assert len(builds) == 1


def test_a_gpu_trace_after_a_run_traces_the_runs_inputs_and_leaves_them(builds):
    # the GPU recorder's instrumented build on the live cache's tensors (here the interpreter
    # Run's CPU tensors; on a GPU the GPU Run's): nothing drawn, nothing of the inputs changed
    state = EngineState()
    _run(state)
    before = _inputs(state)
    req = window_request(TraceRequest("vector_add", dict(VALUES), backend="gpu"), 1024)
    res = KeptTrace().serve(req, device="cpu", cache=state.live_cache)
    assert res.error is None, res.error
    assert len(builds) == 1
    assert (res.trace.maps_of("out_ptr").writer[:8] == 0).all()  # it did record (program 0's cells)
    assert all(torch.equal(before[k], state.live_cache.tensors[k]) for k in before)
    assert torch.isfinite(state.live_cache.tensors["out"]).all()  # the trace's own launch wrote out
    _run(state, BLOCK_SIZE=1024)  # poisoned again by prepare and checked against the kept references
    assert len(builds) == 1


def test_a_trace_of_other_data_draws_its_own_and_the_next_run_of_it_reuses_them(builds):
    state = EngineState()
    _run(state)
    res = handle(state, "trace", window_request(TraceRequest("vector_add", dict(VALUES), seed=7), 1024))
    assert res.error is None, res.error
    assert len(builds) == 2  # another seed: its own inputs, drawn once, and kept in place of the Run's
    assert state.live_cache.refs is None  # the Run's references went with its inputs
    res = handle(state, "run", RunRequest("vector_add", dict(VALUES), backend="interpreter", seed=7))
    assert res.error is None and res.check.passed
    assert len(builds) == 2
    _run(state)  # back to seed 0: drawn again
    assert len(builds) == 3
