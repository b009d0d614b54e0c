"""A window's repeated runs reuse what did not change, and never a result.

What breaks if these fail: a click with another block size rebuilds seconds of inputs and
references (the 18–25 s per click on the H200), or — worse — the cache fakes correctness: a run
checked against references of other data, an output left holding the previous launch's values
so that a kernel that stores nothing still PASSes, or a wrong configuration passing because the
one before it was right."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
import torch

from kernels import engine
from kernels.catalog.elementwise import binary_kernel
from kernels.data.params import block, dtype_param, num_warps, shape
from kernels.data.results import RunRequest
from kernels.engine.run import LiveCache
from kernels.run import check
from kernels.specs.spec import REGISTRY, KernelSpec

_DT = {"fp32": torch.float32, "fp16": torch.float16}


@dataclass
class Counts:
    builds: int = 0  # real input builds (the memory planner's dry runs on "meta" are not)
    refs: int = 0
    torch_ops: int = 0


def _make_spec(counts: Counts, name: str, reference_reads_block: bool = False, inplace: tuple = ()) -> KernelSpec:
    """out = x + y with the catalog's kernel — and two bugs a user might have: BLOCK_SIZE 64
    leaves the last 10 elements unstored, BLOCK_SIZE 128 multiplies instead of adding."""

    def make_inputs(cfg, device, gen):
        if str(device) != "meta":
            counts.builds += 1
        n, dt = cfg["N"], _DT[cfg["dtype"]]
        return {"x": torch.randn(n, generator=gen).to(dt).to(device),
                "y": torch.randn(n, generator=gen).to(dt).to(device),
                "out": torch.zeros(n, dtype=dt, device=device)}

    def launch(K, t, cfg, grid):
        n = cfg["N"] - (10 if cfg["BLOCK_SIZE"] == 64 else 0)
        return K(binary_kernel)[grid](t["x"], t["y"], t["out"], n, BLOCK_SIZE=cfg["BLOCK_SIZE"],
                                      IS_MUL=cfg["BLOCK_SIZE"] == 128, num_warps=cfg["num_warps"])

    def reference(t, cfg):
        counts.refs += 1
        if reference_reads_block:
            assert cfg["BLOCK_SIZE"] > 0
        if inplace:  # x += y, as the launch did it: the reference reads what the launch left
            return {"out": t["out"].double()}
        return {"out": t["x"].double() + t["y"].double()}

    def torch_op(t, cfg):
        counts.torch_ops += 1
        return t["x"] + t["y"]

    return KernelSpec(
        name=name, title="add", summary="x + y", kernels=(binary_kernel,),
        params=(block("BLOCK_SIZE", 256, lo=16, hi=4096), num_warps(4), shape("N", 3000), dtype_param(("fp32", "fp16"))),
        make_inputs=make_inputs, launch=launch, reference=reference, torch_op=torch_op, outputs=("out",),
        bytes_moved=lambda cfg: 12 * cfg["N"], flops=lambda cfg: cfg["N"], grid_exprs=("cdiv(N, BLOCK_SIZE)",),
        origin="test", inplace=inplace)


@pytest.fixture
def add():
    counts = Counts()
    spec = REGISTRY(_make_spec(counts, "test_live_add"))
    yield spec, counts
    REGISTRY.remove(spec.name)


def _run(cache: LiveCache, kernel: str, seed: int = 0, **values):
    return engine.run(RunRequest(kernel, dict(values), backend="interpreter", seed=seed), _cache=cache)


def test_a_repeated_run_reuses_inputs_references_and_torch_timing(add):
    spec, counts = add
    cache = LiveCache()
    first = _run(cache, spec.name, BLOCK_SIZE=256)
    assert first.error is None and first.check.passed
    assert (counts.builds, counts.refs) == (1, 1) and counts.torch_ops > 0
    ops = counts.torch_ops
    for values in ({"BLOCK_SIZE": 512}, {"BLOCK_SIZE": 1024, "num_warps": 8}, {"BLOCK_SIZE": 1024, "num_warps": 8}):
        r = _run(cache, spec.name, **values)
        assert r.error is None and r.check.passed, r.check.reason
        assert r.values["BLOCK_SIZE"] == values["BLOCK_SIZE"] and r.grid == (-(-3000 // values["BLOCK_SIZE"]),)
    assert (counts.builds, counts.refs, counts.torch_ops) == (1, 1, ops)
    # the torch baseline shown is the one measured for these shapes
    assert r.metrics.torch_timing is first.metrics.torch_timing


@pytest.mark.parametrize("change, torch_again", [({"N": 2000}, True), ({"dtype": "fp16"}, True), ({"seed": 7}, False)])
def test_a_changed_shape_dtype_or_seed_rebuilds(add, change, torch_again):
    spec, counts = add
    cache = LiveCache()
    assert _run(cache, spec.name, BLOCK_SIZE=256).check.passed
    ops = counts.torch_ops
    seed = change.pop("seed", 0)
    r = _run(cache, spec.name, seed=seed, BLOCK_SIZE=512, **change)
    assert r.error is None and r.check.passed, r.check.reason
    assert (counts.builds, counts.refs) == (2, 2)
    # torch's timing depends on shapes and dtype, not on the random values
    assert (counts.torch_ops > ops) == torch_again


def test_a_wrong_configuration_fails_on_the_cached_path_and_outputs_are_still_poisoned(add):
    spec, counts = add
    cache = LiveCache()
    assert _run(cache, spec.name, BLOCK_SIZE=256).check.passed  # fills `out` with right values
    # same inputs and references (no rebuild); the kernel stores all but the last 10 elements:
    # without the NaN poison before this launch the previous run's right values would still be
    # there and it would PASS
    r = _run(cache, spec.name, BLOCK_SIZE=64)
    assert counts.builds == 1 and counts.refs == 1
    assert not r.check.passed and r.check.n_unwritten == 10 and r.check.n_mismatch == 10
    # a failed check drops the cache (the kernel may have written where it should not)
    assert cache.tensors is None and cache.refs is None
    assert _run(cache, spec.name, BLOCK_SIZE=256).check.passed and counts.builds == 2
    # and a configuration computing wrong values fails against the cached references
    r = _run(cache, spec.name, BLOCK_SIZE=128)
    assert (counts.builds, counts.refs) == (2, 2)
    assert not r.check.passed and r.check.n_unwritten == 0 and r.check.n_mismatch > 2000


def test_references_that_read_a_block_size_are_computed_again_when_it_changes():
    counts = Counts()
    spec = REGISTRY(_make_spec(counts, "test_live_reads_block", reference_reads_block=True))
    try:
        cache = LiveCache()
        for bs in (256, 256, 512, 512):
            assert _run(cache, spec.name, BLOCK_SIZE=bs).check.passed
        assert counts.builds == 1 and counts.refs == 2
        assert cache.refs is not None and cache.refs.read == ("BLOCK_SIZE",)
    finally:
        REGISTRY.remove(spec.name)


def test_in_place_outputs_get_their_reference_every_run():
    counts = Counts()
    spec = REGISTRY(_make_spec(counts, "test_live_inplace", inplace=("out",)))
    try:
        cache = LiveCache()
        for bs in (256, 512, 512):
            assert _run(cache, spec.name, BLOCK_SIZE=bs).check.passed
        assert counts.builds == 1 and counts.refs == 3 and cache.refs is None
    finally:
        REGISTRY.remove(spec.name)


def test_a_catalog_kernel_repeated_on_the_live_cache_gives_the_uncached_check():
    cache = LiveCache()
    for values in ({"BLOCK_M": 32, "BLOCK_N": 32}, {"BLOCK_M": 64, "BLOCK_N": 32}):
        live = _run(cache, "matmul", M=96, N=64, K=64, BLOCK_K=32, **values)
        plain = engine.run(RunRequest("matmul", {"M": 96, "N": 64, "K": 64, "BLOCK_K": 32, **values},
                                      backend="interpreter"))
        assert live.check.passed and plain.check.passed
        assert live.check.max_abs_err == plain.check.max_abs_err and live.check.rel_err == plain.check.rel_err
    assert cache.refs is not None and cache.refs.read == ()  # matmul's reference reads no value


def test_a_large_output_ships_an_error_map_a_screen_can_show():
    # 2^20 outputs: the map comes back as 2^18 block maxima (1 MiB), not 4 MiB of float32
    cache = LiveCache()
    r = _run(cache, "vector_add", N=1 << 20, BLOCK_SIZE=1 << 16)
    c = r.check
    assert c.passed and c.n_elements == 1 << 20
    assert c.error_map_stride == (4,) and c.error_map.size == check.MAX_ERROR_MAP_ELEMENTS == 1 << 18
    assert c.error_map.nbytes <= 1 << 20
    # the window's tolerance scale needs rms|ref| it can no longer estimate from the map: x + y of
    # two standard normals has rms ≈ sqrt(2)
    assert c.ref_rms == pytest.approx(2 ** 0.5, rel=0.01)

