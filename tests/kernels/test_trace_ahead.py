"""A GPU Run's trace builds compiled ahead (issue #24), on the CPU for an explicit target (sm_90):
the builds compiled ahead are the very cache entries the trace's launches look up, a GPU Run's
answer queues its config's trace builds, and a newer request drops the queued ones.

What breaks if these fail: the user's Trace right after a Run compiles its recording build again
(H200: 0.5-1.1 s of the first trace, docs/benchmarks/gpu-trace.md), or the background compiles
pile up behind the requests that replaced them.
"""

from __future__ import annotations

import time
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch
from triton.backends.compiler import GPUTarget

from kernels import engine
from kernels.compile import target as compile_target
from kernels.data.results import RunRequest
from kernels.engine.handlers import EngineState, handle
from kernels.engine.precompile import precompile_key
from kernels.engine.trace_ahead import TraceBuildsAhead, precompile_trace
from kernels.gpu_trace import service
from kernels.gpu_trace.device import lanes_mask

H100 = GPUTarget("cuda", 90, 32)


def _entries(d: Path) -> list[str]:
    return sorted(p.name for p in d.iterdir())


def _trace_launch(kernel: str, values: dict, mode: str) -> tuple:
    """The instrumented launch the trace makes (``service._record_launch``: the recording build's
    first launch, or the light timeline build), on real CPU inputs, as it would be on the GPU."""
    spec = engine.get_spec(kernel)
    cfg = spec.config(values)
    real = spec.make_inputs(dict(cfg), "cpu", torch.Generator().manual_seed(0))
    got: list[tuple] = []

    def run(fn, grid, a, kw):  # the launch itself is not made: its arguments are what is compared
        got.append((fn, a, dict(kw)))

    cap = service._Capture(0, run, lambda fn, grid, a, kw: service._record_launch(fn, grid, a, kw, mode=mode,
                                                                               device="cpu", run=run))
    spec.run_launch(cap.K, real, dict(cfg))
    fn, args, kw = got[0]
    assert kw["_TS_TIME"] is False
    kw["_TS_TIME"] = True  # the one argument a launch on the GPU sets otherwise: it reads the clocks
    return fn, args, kw


def _lookup(fn, args, kw) -> None:
    compile_target._CACHE.clear()
    compile_target.compile_jit_for_target(fn, args, kw, H100, keep_asm=False)


@pytest.mark.parametrize("kernel,values", [("vector_add", {"N": 5000, "BLOCK_SIZE": 512}),
                                           ("matmul", {"M": 128, "N": 128, "K": 128, "BLOCK_M": 64,
                                                       "BLOCK_N": 64})])
def test_the_trace_builds_compiled_ahead_are_the_entries_the_traces_launches_look_up(cache_dir, kernel, values):
    out = precompile_trace(engine.get_spec(kernel), RunRequest(kernel, values, backend="gpu"), H100)
    assert out.error == "" and out.kernels == 2
    written = _entries(cache_dir)
    assert written
    maps = _trace_launch(kernel, values, "maps")
    for launch in (maps, _trace_launch(kernel, values, "timeline")):
        _lookup(*launch)
        assert _entries(cache_dir) == written  # found: nothing compiled again
    fn, args, kw = maps  # the maps build with the per-lane path in every site is another binary
    _lookup(fn, args, {**kw, "_TS_LANES": lanes_mask(None)})
    assert len(_entries(cache_dir)) > len(written)


def _wait(pred, timeout: float = 180.0) -> None:
    deadline = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.005)


def test_a_gpu_runs_answer_queues_its_configs_trace_builds_and_an_interpreter_runs_does_not(cache_dir, monkeypatch):
    values = {"N": 4096, "BLOCK_SIZE": 256}
    answers = {"gpu": SimpleNamespace(error=None, backend="gpu"),
               "interpreter": SimpleNamespace(error=None, backend="interpreter")}
    monkeypatch.setattr(engine, "run", lambda payload, **kw: answers[payload.backend])
    state = EngineState(trace_ahead_target=H100)
    handle(state, "run", RunRequest("vector_add", values, backend="interpreter"))
    assert state.trace_ahead_started is None
    req = RunRequest("vector_add", values, backend="gpu", launch_options={"num_warps": 2})
    assert handle(state, "run", req) is answers["gpu"]
    pre = state.trace_ahead_started
    assert pre is not None and pre.idle(180)
    assert pre.done == 1 and pre.last.error == "" and pre.last.kernels == 2
    assert pre.last.key == precompile_key(RunRequest("vector_add", values))  # a trace takes no launch options
    written = _entries(cache_dir)
    _lookup(*_trace_launch("vector_add", values, "maps"))
    assert _entries(cache_dir) == written


def test_a_newer_request_drops_the_queued_trace_builds_and_the_one_compiling_finishes(cache_dir):
    pre = TraceBuildsAhead(lambda r: engine.get_spec(r.kernel))
    a = RunRequest("vector_add", {"N": 4096, "BLOCK_SIZE": 128})
    b = RunRequest("vector_add", {"N": 4096, "BLOCK_SIZE": 64})
    assert pre.submit(a, H100) == "queued"
    _wait(lambda: pre.compiling == precompile_key(a))
    assert pre.submit(b, H100) == "queued"
    pre.drop()
    assert pre.idle(180)
    assert pre.done == 1 and pre.last.key == precompile_key(a) and pre.last.error == ""


def test_the_warm_trace_runs_the_windows_trace_path_and_is_queued_on_the_trace_builds_thread():
    from kernels.engine.trace_ahead import WARM, warm_trace

    out = warm_trace("cpu")  # the GPU recorder's instrumented build under the interpreter: the same code
    assert out.error == "" and out.kernels == 1
    pre = TraceBuildsAhead(lambda r: engine.get_spec(r.kernel))
    assert pre.warm() == "queued"
    assert pre.idle(180)
    assert pre.done == 1 and pre.last.key == precompile_key(WARM)
    if not torch.cuda.is_available():
        assert "CUDA" in pre.last.error or "GPU" in pre.last.error  # it traced on the GPU, not compiled ahead


def test_the_request_right_after_hello_does_not_drop_the_queued_warm_trace():
    pre = TraceBuildsAhead(lambda r: engine.get_spec(r.kernel))
    with pre._gate:  # the thread cannot take anything off the queue meanwhile
        assert pre.warm() == "queued"
        pre.drop()
        assert pre._queued is not None
        pre.submit(RunRequest("vector_add", {"N": 4096, "BLOCK_SIZE": 128}), H100)  # a GPU Run's: newest wins
        pre.drop()
        assert pre._queued is None
