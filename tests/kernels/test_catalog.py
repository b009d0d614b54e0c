"""The bundled kernels, run on the CPU through Triton's interpreter at small shapes.

Each case builds the spec's inputs, poisons the outputs with NaN, launches through the spec's own
launcher with an interpreted twin of the kernel, and compares every output with the spec's
float64 reference under the spec's tolerance. If one fails, that kernel gives wrong numbers (or
leaves elements unwritten) for the sizes named in the test id.
"""

from __future__ import annotations

import math

import pytest
import torch
import triton.language as tl
from triton.runtime.jit import JITFunction

import kernels.catalog  # noqa: F401  (registers every spec)
from kernels.catalog._common import next_pow2
from kernels.data.params import ValidationError
from kernels.run import backends
from kernels.specs.spec import REGISTRY, KernelSpec

NAN = float("nan")


# -- helpers --------------------------------------------------------------------------------------


def build(name: str, seed: int = 0, **values) -> tuple[KernelSpec, dict, dict]:
    spec = REGISTRY.get(name)
    cfg = spec.config(values)
    t = spec.make_inputs(cfg, "cpu", torch.Generator().manual_seed(seed))
    for out in spec.outputs:
        t[out].fill_(NAN)  # anything the kernel fails to write stays NaN
    return spec, cfg, t


def launch(spec: KernelSpec, t: dict, cfg: dict) -> tuple[int, ...]:
    """Launch under the engine's interpreter backend (interpreted twins of the jit helpers,
    guarded accesses); the grid the launch really ran."""
    be = backends.resolve("interpreter")
    with be.activate(spec.kernels) as K:
        spec.run_launch(K, t, cfg)
    assert len(be.grids) == 1
    return be.grids[0]


def assert_matches_reference(spec: KernelSpec, cfg: dict, t: dict) -> None:
    ref = spec.reference(t, cfg)
    atol, rtol = spec.tolerance(cfg)
    for out in spec.outputs:
        got, want = t[out].double(), ref[out]
        assert got.shape == want.shape, f"{out}: shape {tuple(got.shape)} != {tuple(want.shape)}"
        unwritten = int(torch.isnan(got).sum())
        assert unwritten == 0, f"{spec.name}.{out}: {unwritten} elements never written"
        err = (got - want).abs()
        bad = err > atol + rtol * want.abs()
        assert not bad.any(), (
            f"{spec.name}.{out}: {int(bad.sum())}/{bad.numel()} elements off, max |err| "
            f"{float(err.max()):.3g} (atol {atol:.3g}, rtol {rtol:.3g})")


def run_and_check(name: str, seed: int = 0, **values) -> dict:
    spec, cfg, t = build(name, seed, **values)
    launch(spec, t, cfg)
    assert_matches_reference(spec, cfg, t)
    return cfg


# -- correctness under the interpreter --------------------------------------------------------------

CASES = [
    # elementwise: N not a multiple of BLOCK_SIZE, so the last block is partial
    ("vector_add", dict(N=1000, BLOCK_SIZE=128, dtype="fp32")),
    ("vector_add", dict(N=777, BLOCK_SIZE=256, dtype="fp16")),
    ("vector_mul", dict(N=1000, BLOCK_SIZE=64, dtype="fp32")),
    ("vector_mul", dict(N=333, BLOCK_SIZE=512, dtype="fp16")),
    ("gelu", dict(N=1000, BLOCK_SIZE=128, dtype="fp32", APPROX_TANH=False)),
    ("gelu", dict(N=1000, BLOCK_SIZE=128, dtype="fp32", APPROX_TANH=True)),
    ("gelu", dict(N=999, BLOCK_SIZE=256, dtype="fp16", APPROX_TANH=False)),
    ("gelu", dict(N=999, BLOCK_SIZE=256, dtype="fp16", APPROX_TANH=True)),
    # softmax: rows narrower than the block (masked lanes), odd row counts
    ("softmax", dict(M=7, N=100, BLOCK_SIZE=128, dtype="fp32")),
    ("softmax", dict(M=9, N=200, BLOCK_SIZE=256, dtype="fp16")),
    ("softmax", dict(M=3, N=3, BLOCK_SIZE=4, dtype="fp32")),
    ("softmax", dict(M=4, N=64, BLOCK_SIZE=64, dtype="fp32")),
    # looped softmax: partial last chunk, row narrower than one chunk, exact multiple
    ("softmax_looped", dict(M=5, N=300, BLOCK_SIZE=64, dtype="fp32")),
    ("softmax_looped", dict(M=4, N=50, BLOCK_SIZE=64, dtype="fp16")),
    ("softmax_looped", dict(M=3, N=256, BLOCK_SIZE=64, dtype="fp32")),
    # layernorm: whole row in one block, and rows swept in chunks (partial last chunk)
    ("layernorm", dict(M=5, N=100, BLOCK_SIZE=128, dtype="fp32")),
    ("layernorm", dict(M=6, N=100, BLOCK_SIZE=128, dtype="fp16")),
    ("layernorm", dict(M=5, N=300, BLOCK_SIZE=128, dtype="fp32")),
    ("layernorm", dict(M=4, N=300, BLOCK_SIZE=64, dtype="fp16")),
    # matmul: M, N, K not multiples of the tiles; GROUP_SIZE_M > 1 with a short last group
    ("matmul", dict(M=70, N=50, K=40, BLOCK_M=32, BLOCK_N=16, BLOCK_K=16, GROUP_SIZE_M=2, dtype="fp32")),
    ("matmul", dict(M=70, N=50, K=40, BLOCK_M=32, BLOCK_N=16, BLOCK_K=16, GROUP_SIZE_M=2, dtype="fp16")),
    ("matmul", dict(M=96, N=48, K=64, BLOCK_M=32, BLOCK_N=16, BLOCK_K=32, GROUP_SIZE_M=2, dtype="fp16")),
    ("matmul", dict(M=33, N=17, K=19, BLOCK_M=16, BLOCK_N=16, BLOCK_K=16, GROUP_SIZE_M=4, dtype="fp32",
                    TF32=False)),
    ("matmul", dict(M=40, N=40, K=24, BLOCK_M=16, BLOCK_N=32, BLOCK_K=16, GROUP_SIZE_M=1, dtype="fp16")),
    # attention: causal and not, ragged N_CTX, N_CTX below one block, BLOCK_M > BLOCK_N
    ("attention", dict(BATCH=2, HEADS=2, N_CTX=40, HEAD_DIM=16, BLOCK_M=32, BLOCK_N=16, CAUSAL=False,
                       dtype="fp32")),
    ("attention", dict(BATCH=2, HEADS=2, N_CTX=40, HEAD_DIM=16, BLOCK_M=32, BLOCK_N=16, CAUSAL=True,
                       dtype="fp32")),
    ("attention", dict(BATCH=1, HEADS=2, N_CTX=40, HEAD_DIM=16, BLOCK_M=32, BLOCK_N=16, CAUSAL=False,
                       dtype="fp16")),
    ("attention", dict(BATCH=1, HEADS=2, N_CTX=40, HEAD_DIM=16, BLOCK_M=32, BLOCK_N=16, CAUSAL=True,
                       dtype="fp16")),
    ("attention", dict(BATCH=1, HEADS=2, N_CTX=64, HEAD_DIM=32, BLOCK_M=16, BLOCK_N=16, CAUSAL=True,
                       dtype="fp32")),
    ("attention", dict(BATCH=1, HEADS=1, N_CTX=10, HEAD_DIM=16, BLOCK_M=16, BLOCK_N=32, CAUSAL=False,
                       dtype="fp32")),
    ("attention", dict(BATCH=1, HEADS=1, N_CTX=100, HEAD_DIM=16, BLOCK_M=64, BLOCK_N=32, CAUSAL=True,
                       dtype="fp16")),
    # BLOCK_N > BLOCK_M: the causal diagonal starts inside a key block
    ("attention", dict(BATCH=1, HEADS=2, N_CTX=70, HEAD_DIM=16, BLOCK_M=16, BLOCK_N=32, CAUSAL=True,
                       dtype="fp32")),
]


def _case_id(case) -> str:
    name, values = case
    return name + "-" + "-".join(f"{k}{v}" for k, v in values.items())


@pytest.mark.parametrize("name,values", CASES, ids=[_case_id(c) for c in CASES])
def test_kernel_matches_float64_reference(name, values):
    run_and_check(name, **values)


def test_every_catalog_kernel_is_exercised():
    # a catalog spec without an interpreter case here would go untested
    catalog = {s.name for s in REGISTRY if s.origin == "catalog"}
    assert {name for name, _ in CASES} == catalog
    assert catalog >= {"vector_add", "vector_mul", "softmax", "softmax_looped", "matmul", "layernorm",
                       "gelu", "attention"}


def test_poisoned_outputs_expose_a_kernel_that_skips_elements():
    # The harness itself must notice unwritten elements: launch over only 900 of 1000 elements.
    spec, cfg, t = build("gelu", N=1000, BLOCK_SIZE=128)
    short = dict(cfg, N=900)
    launch(spec, t, short)
    with pytest.raises(AssertionError, match="100 elements never written"):
        assert_matches_reference(spec, cfg, t)


@pytest.mark.parametrize("name, values, grid", [
    ("matmul", dict(M=70, N=50, K=40, BLOCK_M=32, BLOCK_N=16, BLOCK_K=16, GROUP_SIZE_M=2, dtype="fp16"), (3 * 4,)),
    ("attention", dict(BATCH=2, HEADS=3, N_CTX=40, HEAD_DIM=16, BLOCK_M=16, BLOCK_N=16, dtype="fp16"), (3, 6)),
    ("softmax", dict(M=7, N=100, BLOCK_SIZE=128), (7,)),
    ("vector_add", dict(N=1000, BLOCK_SIZE=128), (8,)),
])
def test_grid_is_known_before_the_launch_and_is_the_launched_one(name, values, grid):
    # spec.grid (what the GUI shows before any launch) must be the grid the launcher really ran
    spec, cfg, t = build(name, **values)
    assert spec.grid(cfg) == grid
    from kernels.data.grid import as_grid3, grid_of
    assert grid_of(spec.info().grid_exprs, cfg) == as_grid3(grid)  # the GUI-safe evaluation agrees
    assert launch(spec, t, cfg) == grid
    assert_matches_reference(spec, cfg, t)


# -- numerically hard inputs ------------------------------------------------------------------------


# numpy warns when exp(-2u) overflows to inf: that overflow is the case under test
@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")
@pytest.mark.parametrize("approx", [False, True])
def test_gelu_is_finite_and_right_for_huge_inputs(approx):
    # exp(-2u) overflows for very negative x; the tanh form must give -0, not NaN
    spec, cfg, t = build("gelu", N=10, BLOCK_SIZE=16, dtype="fp32", APPROX_TANH=approx)
    t["x"] = torch.tensor([-1e30, -1e4, -100.0, -20.0, -1.0, 0.0, 1.0, 20.0, 1e4, 1e30])
    launch(spec, t, cfg)
    assert torch.isfinite(t["out"]).all(), t["out"]
    assert_matches_reference(spec, cfg, t)
    assert t["out"][0].item() == 0.0  # gelu(-1e30) is -0 in fp32
    assert math.isclose(t["out"][-1].item(), 1e30, rel_tol=1e-6)  # gelu(x) = x far to the right


@pytest.mark.parametrize("name", ["softmax", "softmax_looped"])
def test_softmax_handles_large_logits_and_a_max_that_grows_along_the_row(name):
    # logits up to 900 overflow exp() unless the max is subtracted; an ascending row makes the
    # looped kernel raise its running max in every chunk, so every rescale is exercised
    spec, cfg, t = build(name, M=3, N=200, BLOCK_SIZE=256 if name == "softmax" else 64)
    t["x"] = torch.stack([torch.linspace(-900, 900, 200), torch.linspace(0, 50, 200), torch.full((200,), 7.0)])
    launch(spec, t, cfg)
    assert_matches_reference(spec, cfg, t)
    assert torch.allclose(t["y"][2], torch.full((200,), 1 / 200))  # equal logits: uniform


def test_layernorm_of_a_constant_row_is_the_bias():
    spec, cfg, t = build("layernorm", M=2, N=50, BLOCK_SIZE=16, dtype="fp32")
    t["x"] = torch.full((2, 50), 3.0)
    launch(spec, t, cfg)
    assert torch.allclose(t["y"], t["bias"].expand(2, 50), atol=1e-6)
    assert torch.allclose(t["mean"], torch.full((2,), 3.0))
    assert torch.allclose(t["rstd"], torch.full((2,), 1 / math.sqrt(1e-5)), rtol=1e-4)


# -- cost models ------------------------------------------------------------------------------------


def _cfg(name, **values):
    return REGISTRY.get(name).config(values)


@pytest.mark.parametrize("name,values,nbytes,nflops", [
    ("vector_add", dict(N=1000, dtype="fp32"), 12000, 1000),
    ("vector_mul", dict(N=1000, dtype="fp16"), 6000, 1000),
    ("gelu", dict(N=1000, dtype="fp32"), 8000, 8000),
    ("softmax", dict(M=4, N=10, BLOCK_SIZE=16, dtype="fp32"), 320, 160),
    ("softmax_looped", dict(M=4, N=10, BLOCK_SIZE=16, dtype="fp16"), 160, 160),
    # x and y (fp16), weight and bias (fp16), mean and rstd (fp32 per row)
    ("layernorm", dict(M=4, N=10, BLOCK_SIZE=16, dtype="fp16"), 160 + 40 + 32, 320),
    ("matmul", dict(M=64, N=32, K=16, dtype="fp16"), (64 * 16 + 16 * 32 + 64 * 32) * 2, 2 * 64 * 32 * 16),
    ("matmul", dict(M=64, N=32, K=16, dtype="fp32"), (64 * 16 + 16 * 32 + 64 * 32) * 4, 65536),
    ("attention", dict(BATCH=2, HEADS=3, N_CTX=128, HEAD_DIM=64, dtype="fp16"), 393216, 25165824),
    ("attention", dict(BATCH=2, HEADS=3, N_CTX=128, HEAD_DIM=64, CAUSAL=True, dtype="fp16"), 393216, 12582912),
])
def test_bytes_and_flops_models(name, values, nbytes, nflops):
    spec = REGISTRY.get(name)
    cfg = spec.config(values)
    assert spec.bytes_moved(cfg) == nbytes
    assert spec.flops(cfg) == nflops


def test_metrics_match_the_kind_of_kernel():
    assert {s.name: s.metric for s in REGISTRY if s.name in ("matmul", "attention")} == {
        "matmul": "TFLOP/s", "attention": "TFLOP/s"}
    for name in ("softmax", "softmax_looped", "layernorm", "gelu"):
        assert REGISTRY.get(name).metric == "GB/s"


def test_matmul_tolerance_grows_with_k_and_tf32():
    spec = REGISTRY.get("matmul")
    small = spec.tolerance(_cfg("matmul", K=16, dtype="fp32"))
    big = spec.tolerance(_cfg("matmul", K=4096, dtype="fp32"))
    exact = spec.tolerance(_cfg("matmul", K=4096, dtype="fp32", TF32=False))
    assert big[0] == pytest.approx(small[0] * 16)  # sqrt(4096 / 16)
    assert exact[0] < big[0] / 50  # IEEE fp32 is held to a far tighter bound than TF32


# -- parameter validation ---------------------------------------------------------------------------


CATALOG = [s for s in REGISTRY if s.origin == "catalog"]


def _block_params(spec):
    return [p.name for p in spec.params if p.kind == "constexpr" and p.pow2]


@pytest.mark.parametrize("spec", CATALOG, ids=lambda s: s.name)
def test_non_power_of_two_block_is_rejected_naming_the_field(spec):
    blocks = _block_params(spec)
    assert blocks, f"{spec.name} has no power-of-two block parameter"
    for name in blocks:
        with pytest.raises(ValidationError) as err:
            spec.config({name: 48})
        assert err.value.field == name
        assert name in str(err.value) and "power of two" in str(err.value)


@pytest.mark.parametrize("spec", CATALOG, ids=lambda s: s.name)
def test_unsupported_dtype_is_rejected_naming_the_field(spec):
    with pytest.raises(ValidationError) as err:
        spec.config({"dtype": "fp64"})
    assert err.value.field == "dtype"
    assert "fp64" in str(err.value) and "dtype" in str(err.value)


@pytest.mark.parametrize("spec", CATALOG, ids=lambda s: s.name)
def test_bf16_is_offered_and_its_interpreter_fault_declared_where_dots_use_it(spec):
    assert "bf16" in spec.param("dtype").choices
    if spec.name in ("matmul", "attention"):  # bf16 tl.dot is wrong under Triton 3.9's interpreter
        assert "bf16" in spec.interpreter_faults


def test_softmax_block_must_cover_the_row():
    spec = REGISTRY.get("softmax")
    with pytest.raises(ValidationError) as err:
        spec.config({"N": 1000, "BLOCK_SIZE": 512})
    assert err.value.field == "BLOCK_SIZE" and "BLOCK_SIZE >= N" in str(err.value)
    # the looped variant takes any width
    assert REGISTRY.get("softmax_looped").config({"N": 100_000, "BLOCK_SIZE": 512})["N"] == 100_000


def test_attention_head_dim_is_one_of_the_compiled_choices():
    with pytest.raises(ValidationError) as err:
        REGISTRY.get("attention").config({"HEAD_DIM": 48})
    assert err.value.field == "HEAD_DIM" and "16, 32, 64, 128" in str(err.value)


# -- GPU rows: they must at least be valid configurations --------------------------------------------


@pytest.mark.parametrize("spec", CATALOG, ids=lambda s: s.name)
def test_bench_cases_and_autotune_configs_validate(spec):
    assert spec.bench_cases, f"{spec.name} has no GPU benchmark rows"
    for case in spec.bench_cases:
        spec.config(case)
        for tuned in spec.autotune_configs:
            spec.config({**case, **tuned})


def test_bench_rows_are_the_agreed_problems():
    soft = REGISTRY.get("softmax").bench_cases
    assert [(c["M"], c["N"], c["BLOCK_SIZE"], c["dtype"]) for c in soft] == [
        (4096, n, n, "fp32") for n in (1024, 2048, 4096, 8192, 16384)]
    assert [c["num_warps"] for c in soft] == [4, 8, 16, 16, 16]
    mm = REGISTRY.get("matmul")
    assert sorted(c["dtype"] for c in mm.bench_cases) == ["bf16", "fp16"]
    assert all((c["M"], c["N"], c["K"]) == (4096, 4096, 4096) for c in mm.bench_cases)
    assert len(mm.autotune_configs) == 11 and all(c["GROUP_SIZE_M"] == 8 for c in mm.autotune_configs)
    att = REGISTRY.get("attention").bench_cases
    assert {(c["BATCH"], c["HEADS"], c["N_CTX"], c["HEAD_DIM"], c["dtype"], c["CAUSAL"]) for c in att} == {
        (4, 32, 4096, 64, "fp16", False), (4, 32, 4096, 64, "fp16", True)}
    assert all(c["N"] == 1 << 28 for c in REGISTRY.get("gelu").bench_cases)
    assert [c["N"] for c in REGISTRY.get("layernorm").bench_cases] == [1024, 2048, 4096, 8192, 16384]
    assert next_pow2(1000) == 1024 and next_pow2(1024) == 1024 and next_pow2(1) == 1


# -- inputs -----------------------------------------------------------------------------------------

SMALL = {
    "vector_add": dict(N=100), "vector_mul": dict(N=100), "gelu": dict(N=100),
    "softmax": dict(M=3, N=20, BLOCK_SIZE=32), "softmax_looped": dict(M=3, N=20),
    "layernorm": dict(M=3, N=20), "matmul": dict(M=8, N=8, K=8),
    "attention": dict(BATCH=1, HEADS=1, N_CTX=8, HEAD_DIM=16),
}


@pytest.mark.parametrize("name", sorted(SMALL))
def test_inputs_are_fresh_random_and_reproducible(name):
    spec = REGISTRY.get(name)
    cfg = spec.config(SMALL[name])
    a = spec.make_inputs(cfg, "cpu", torch.Generator().manual_seed(1))
    b = spec.make_inputs(cfg, "cpu", torch.Generator().manual_seed(1))
    c = spec.make_inputs(cfg, "cpu", torch.Generator().manual_seed(2))
    inputs = [k for k in a if k not in spec.outputs]
    assert inputs and set(spec.outputs) <= set(a)
    for k in inputs:
        assert torch.equal(a[k], b[k]), f"{k}: same seed, different values"
        assert not torch.equal(a[k], c[k]), f"{k}: different seeds, same values"
        assert a[k].abs().sum() > 0 and a[k].unique().numel() > 1, f"{k} is constant"


# -- the interpreter shim ---------------------------------------------------------------------------


def test_interpreter_backend_leaves_triton_language_as_it_found_it():
    # a compiled kernel launched after an interpreted one must see the real tl.max / tl.core.load
    before_max, before_load, before_reduce = tl.max, tl.core.load, tl.core.reduce
    run_and_check("softmax_looped", M=2, N=40, BLOCK_SIZE=16)
    assert tl.max is before_max and isinstance(tl.max, JITFunction)
    assert tl.core.load is before_load and tl.core.reduce is before_reduce
    assert "__index__" not in vars(tl.core.tensor)
