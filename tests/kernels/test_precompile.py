"""Compile ahead (issue #16), on the CPU: a config compiled ahead for an explicit GPU target is the
very cache entry the JIT launch of that config looks up, and the background compiler keeps one
compile in flight, lets the newest request win and lets a run wait for its config.

What breaks if these fail: Run on the GPU compiles a config the window compiled ahead a second
time (the point appears 0.5–1.3 s late instead of ~0.1 s), or a burst of edits queues a compile
per keystroke, or a run races the compile of its own config.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import torch
from triton.backends.compiler import GPUTarget

from kernels import engine
from kernels.compile import target as compile_target
from kernels.data.results import RunRequest
from kernels.engine.precompile import Precompiler, precompile, precompile_key
from kernels.tune import pipeline

H100 = GPUTarget("cuda", 90, 32)


def _entries(d: Path) -> list[str]:
    return sorted(p.name for p in d.iterdir())


def _launch_lookup(kernel: str, values: dict, options: dict | None = None):
    """The launch the run makes, derived from real (CPU) inputs, compiled for sm_90 as the JIT's
    launch would: a cache hit writes nothing."""
    spec = engine.get_spec(kernel)
    cfg = spec.config(values)
    real = spec.make_inputs(dict(cfg), "cpu", torch.Generator().manual_seed(0))
    (fn, args, kwargs), = pipeline.launches_of(spec, cfg, pipeline.metas_of(real), options or {})
    compile_target._CACHE.clear()
    return compile_target.compile_jit_for_target(fn, args, kwargs, H100, keep_asm=False)


def test_a_config_compiled_ahead_has_its_sass_ready_for_the_runs_compile_facts(cache_dir, monkeypatch):
    # breaks if the Run's compile facts start a cuobjdump process for a binary compiled ahead
    # (about 0.5 s on the H200: most of a live run)
    from kernels.compile import facts as compiled

    if compiled._cuobjdump() is None:
        pytest.skip("no cuobjdump")
    monkeypatch.setattr(compiled, "_SASS_KEPT", {})
    values = {"M": 256, "N": 256, "K": 256, "BLOCK_M": 64, "BLOCK_N": 32}
    quiet = RunRequest("matmul", {**values, "BLOCK_N": 64}, backend="gpu", compile_facts=False)
    assert precompile(engine.get_spec("matmul"), quiet, H100).error == ""
    assert compiled._SASS_KEPT == {}  # no facts asked: nothing disassembled
    assert precompile(engine.get_spec("matmul"), RunRequest("matmul", values, backend="gpu"), H100).error == ""
    assert len(compiled._SASS_KEPT) == 1
    calls = []
    monkeypatch.setattr(compiled, "_run_cuobjdump", lambda option, data: (calls.append(option), (None, "no"))[1])
    texts = [compiled._sass(p.read_bytes(), None)[0] for p in sorted(cache_dir.rglob("*.cubin"))]
    assert len(texts) == 2 and sum(bool(t) for t in texts) == 1  # the config with facts: kept
    assert calls == ["-sass"]  # the other one would need cuobjdump


def test_a_config_compiled_ahead_is_the_entry_the_launch_looks_up(cache_dir):
    values = {"M": 256, "N": 256, "K": 256, "BLOCK_M": 64, "BLOCK_N": 32}
    out = precompile(engine.get_spec("matmul"), RunRequest("matmul", values, backend="gpu"), H100)
    assert out.error == "" and out.kernels == 1 and out.inputs == "dry run"
    written = _entries(cache_dir)
    assert written  # the binary is in Triton's on-disk cache
    facts = _launch_lookup("matmul", values)
    assert facts.num_warps > 0 and _entries(cache_dir) == written  # found: nothing compiled again
    # another num_warps is another binary: the lookup above would have written one if it missed
    _launch_lookup("matmul", values, {"num_warps": 2})
    assert len(_entries(cache_dir)) > len(written)


def test_the_live_inputs_serve_as_stand_ins_when_their_shapes_agree(cache_dir):
    spec = engine.get_spec("vector_add")
    values = {"N": 5000, "BLOCK_SIZE": 512}
    live = spec.make_inputs(spec.config({"N": 5000}), "cpu", torch.Generator().manual_seed(1))
    out = precompile(spec, RunRequest("vector_add", values, backend="gpu"), "sm_90", live)
    assert out.error == "" and out.inputs == "live"
    written = _entries(cache_dir)
    _launch_lookup("vector_add", values)
    assert _entries(cache_dir) == written
    other = precompile(spec, RunRequest("vector_add", {"N": 6000}, backend="gpu"), "sm_90", live)
    assert other.error == "" and other.inputs == "dry run"  # N changed: not the live inputs' shapes


def test_a_config_that_does_not_compile_is_reported_not_raised(cache_dir):
    out = precompile(engine.get_spec("vector_add"), RunRequest("vector_add", {"BLOCK_SIZE": 96}), H100)
    assert out.error and out.kernels == 0


def _wait(pred, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.005)


MATMUL = {"M": 256, "N": 256, "K": 256}


def _req(**values) -> RunRequest:
    return RunRequest("matmul", {**MATMUL, **values}, backend="gpu")


def test_one_compile_in_flight_the_newest_queued_wins_and_a_run_waits_for_its_config(cache_dir):
    pre = Precompiler(lambda r: engine.get_spec(r.kernel))
    a, b, c = _req(BLOCK_M=32), _req(BLOCK_M=64), _req(BLOCK_M=128)
    assert pre.submit(a, H100) == "queued"
    _wait(lambda: pre.compiling == precompile_key(a))
    assert pre.submit(a, H100) == "compiling already"
    assert pre.submit(b, H100) == "queued" and pre.submit(c, H100) == "queued"  # c replaces b
    assert pre.wait_for(a) is True  # the run of a waited for its compile
    assert pre.compiling != precompile_key(a) and pre.last is not None and pre.last.key == precompile_key(a)
    assert pre.idle(120)
    assert pre.done == 2 and pre.last.key == precompile_key(c) and pre.last.error == ""
    # b was never compiled: its launch misses the cache (writes), c's hits it (writes nothing)
    before = _entries(cache_dir)
    _launch_lookup("matmul", c.values)
    assert _entries(cache_dir) == before
    _launch_lookup("matmul", b.values)
    assert len(_entries(cache_dir)) > len(before)


def test_a_run_of_a_queued_config_takes_it_off_the_queue_and_the_interpreter_waits_for_a_compile(cache_dir):
    pre = Precompiler(lambda r: engine.get_spec(r.kernel))
    a, b = _req(BLOCK_N=64), _req(BLOCK_N=128)
    pre.submit(a, H100)
    _wait(lambda: pre.compiling == precompile_key(a))
    pre.submit(b, H100)
    assert pre.wait_for(b) is False  # not compiling yet: the run compiles it, the queue forgets it
    with pre.exclusive():  # an interpreter request: no compile beside it
        assert pre.compiling is None
        assert pre.submit(b, H100) == "queued"
        time.sleep(0.3)
        assert pre.compiling is None  # queued, but not started while the interpreter may run
    assert pre.idle(120) and pre.last.key == precompile_key(b) and pre.done == 2
