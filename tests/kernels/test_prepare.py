"""The request service: every launch starts from fresh inputs and reset outputs.

What breaks if these fail: a sweep that reuses inputs from point to point leaves an accumulating
kernel's integer output holding the last point's counts, so a correct kernel FAILs on every other
point; or a float output keeps the last run's values and unwritten elements go unnoticed."""

from __future__ import annotations

import pytest
import torch
import triton
import triton.language as tl

from kernels import engine
from kernels.data.params import block, shape
from kernels.data.results import RunRequest, SweepRequest
from kernels.run.prepare import InputCache, prepare
from kernels.sources.lookup import get_spec
from kernels.specs.spec import REGISTRY, KernelSpec


@triton.jit
def histogram_kernel(x_ptr, hist_ptr, n, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    tl.atomic_add(hist_ptr + x, tl.full((BLOCK_SIZE,), 1, tl.int32), mask=mask)


def _inputs(cfg, device, gen):
    return {"x": torch.randint(0, 16, (cfg["N"],), generator=gen).to(torch.int32).to(device),
            "hist": torch.zeros(16, dtype=torch.int32, device=device)}


@pytest.fixture
def histogram():
    spec = KernelSpec(
        name="test_histogram", title="histogram", summary="atomics into 16 bins", kernels=(histogram_kernel,),
        params=(block("BLOCK_SIZE", 64, lo=16, hi=1024), shape("N", 1000)),
        make_inputs=_inputs,
        launch=lambda K, t, cfg, grid: K(histogram_kernel)[grid](t["x"], t["hist"], cfg["N"],
                                                                  BLOCK_SIZE=cfg["BLOCK_SIZE"]),
        reference=lambda t, cfg: {"hist": torch.bincount(t["x"].long(), minlength=16).double()},
        outputs=("hist",), bytes_moved=lambda cfg: 4 * cfg["N"], flops=lambda cfg: 0,
        grid_exprs=("cdiv(N, BLOCK_SIZE)",), origin="test")
    REGISTRY(spec)
    yield spec
    REGISTRY.remove(spec.name)


def test_a_sweep_of_an_accumulating_kernel_passes_at_every_point(histogram):
    res = engine.sweep(SweepRequest(kernel="test_histogram", base={}, axes={"BLOCK_SIZE": [16, 32, 64, 128, 256]},
                                    backend="interpreter"))
    assert res.error is None
    assert [p.result.check.passed for p in res.points] == [True] * 5, [p.result.check.reason for p in res.points]


def test_reused_inputs_get_their_integer_outputs_reset_and_floats_poisoned(histogram):
    cache = InputCache()
    p1 = prepare(histogram, {"BLOCK_SIZE": 64}, "interpreter", 0, cache)
    p1.tensors["hist"] += 5  # what a launch leaves behind
    p2 = prepare(histogram, {"BLOCK_SIZE": 128}, "interpreter", 0, cache)
    assert p2.reused and p2.tensors["hist"] is p1.tensors["hist"]
    assert int(p2.tensors["hist"].sum()) == 0  # back to what make_inputs made
    assert p2.grid == (8,)

    add = get_spec("vector_add")
    q1 = prepare(add, {"N": 100}, "interpreter", 0, cache)
    q1.tensors["out"].fill_(1.0)
    q2 = prepare(add, {"N": 100, "BLOCK_SIZE": 32}, "interpreter", 0, cache)
    assert q2.reused and bool(torch.isnan(q2.tensors["out"]).all())


def test_the_run_grid_is_the_one_launched(histogram):
    r = engine.run(RunRequest("test_histogram", {"N": 500, "BLOCK_SIZE": 32}, backend="interpreter"))
    assert r.ok and r.grid == (16,) and r.check.passed


@pytest.mark.parametrize("text, words", [
    ("9" * 10**7, "too long"),  # a pasted 10^7-digit number: refused at once, not parsed for seconds
    ("2**99999999", "out of range"),
    ("1e400", "not an integer"),
])
def test_absurd_numbers_are_refused_quickly_with_the_field(text, words):
    import time

    t0 = time.perf_counter()
    r = engine.run(RunRequest("vector_add", {"N": text}, backend="interpreter"))
    assert time.perf_counter() - t0 < 1.0
    assert r.error.kind == "validation" and r.error.field == "N" and words in r.error.message


def test_a_seed_too_large_is_a_validation_error_not_an_internal_one():
    r = engine.run(RunRequest("vector_add", {"N": 100}, seed=99999999999999999999999, backend="interpreter"))
    assert r.error.kind == "validation" and r.error.field == "seed" and "out of range" in r.error.message
    assert engine.run(RunRequest("vector_add", {"N": 100}, seed=7, backend="interpreter")).ok
