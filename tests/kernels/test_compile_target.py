"""Compile facts for a chosen GPU without one (kernels.compile.target), on Triton 3.6 and 3.9.

Triton compiles to PTX and a cubin for any target on a CPU-only machine, and its wheel ships
ptxas and cuobjdump: registers, spills, shared memory, IR texts, SASS and the occupancy are all
computed here.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
import torch
import triton
import triton.language as tl

from kernels.compile import facts as compiled
from kernels.compile.target import available_targets, compile_for_target, compile_jit_for_target, parse_target
from kernels.data.errors import CompileError
from kernels.data.params import ValidationError
from kernels.run import device

pytestmark = pytest.mark.filterwarnings("ignore:TRITON_DEFAULT_FP_FUSION")
LIMITERS = {"warps", "blocks", "registers", "shared memory"}
HAS_CUOBJDUMP = compiled._cuobjdump() is not None
needs_cuobjdump = pytest.mark.skipif(not HAS_CUOBJDUMP, reason="Triton's bundled cuobjdump is missing")


@triton.jit
def _scale_kernel(x_ptr, out_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * alpha, mask=mask)


@triton.jit
def _broken_kernel(x_ptr, BLOCK: tl.constexpr):
    tl.store(x_ptr + tl.arange(0, BLOCK), undefined_name)  # noqa: F821 - the compile error under test


@triton.autotune(configs=[triton.Config({"BLOCK": 256}, num_warps=2), triton.Config({"BLOCK": 512}, num_warps=4)],
                 key=["n"])
@triton.jit
def _tuned_kernel(x_ptr, out_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * alpha, mask=offs < n)


@pytest.fixture(scope="module")
def vadd90():
    return compile_for_target("vector_add", {}, "sm_90")


@pytest.fixture(scope="module")
def matmul90():
    return {st: compile_for_target("matmul", {"num_stages": st}, "sm_90") for st in (2, 3, 4)}


def _ptx_target(facts) -> str:
    return next(ln.split()[1] for ln in facts.asm["ptx"].splitlines() if ln.startswith(".target"))


@needs_cuobjdump
def test_vector_add_sm90_facts(vadd90):
    facts, notes = vadd90
    assert facts.n_regs and facts.n_regs > 0
    assert facts.n_spills == 0
    assert facts.shared_bytes == 0
    assert (facts.num_warps, facts.num_stages) == (4, 3)  # the spec's launch parameters
    assert set(facts.asm) == set(compiled.ASM_KINDS)
    assert ".target sm_90" in facts.asm["ptx"]
    assert "tt.func" in facts.asm["ttir"] and "ttg." in facts.asm["ttgir"] and "define" in facts.asm["llir"]
    assert "binary_kernel" in facts.asm["sass"] and "EXIT" in facts.asm["sass"]
    assert facts.occupancy_limiter in LIMITERS
    assert facts.programs_per_sm == compiled.occupancy(
        facts.n_regs, 4, 0, device.limits_for_capability(9, 0, 132)).programs_per_sm > 0
    assert facts.n_programs == 97 and facts.n_sms == 132 and facts.waves == pytest.approx(97 / (132 * 16))
    assert any("no GPU" in n for n in notes)


@needs_cuobjdump
def test_matmul_sm90_shared_memory_grows_with_stages(matmul90):
    shared = {st: f.shared_bytes for st, (f, _) in matmul90.items()}
    assert 0 < shared[2] < shared[3] < shared[4], shared
    facts, notes = matmul90[3]
    assert facts.n_regs and facts.n_regs > 0
    assert facts.num_stages == 3 and facts.num_warps == 4
    assert _ptx_target(facts).startswith("sm_90")
    assert "HMMA" in facts.asm["sass"] or "HGMMA" in facts.asm["sass"]  # tensor-core dot in the SASS
    assert facts.occupancy_limiter in LIMITERS and facts.programs_per_sm >= 1
    limits = device.limits_for_capability(9, 0, 132)
    occ = compiled.occupancy(facts.n_regs, 4, facts.shared_bytes, limits)
    assert (facts.programs_per_sm, facts.occupancy_limiter) == (occ.programs_per_sm, occ.limiter)


@needs_cuobjdump
def test_sm80_and_sm90_differ(vadd90):
    f80, notes80 = compile_for_target("vector_add", {}, "sm_80")
    f90, _ = vadd90
    assert _ptx_target(f80) == "sm_80" and _ptx_target(f90).startswith("sm_90")
    assert ".target sm_90" not in f80.asm["ptx"]
    assert "sm_80" in f80.asm["sass"] and "sm_80" not in f90.asm["sass"]
    assert f80.n_sms == 108 and any("A100" in n for n in notes80)


def test_sm100_builds_here():
    facts, _ = compile_for_target("vector_add", {"BLOCK_SIZE": 256}, "sm_100", keep_asm=False)
    assert facts.asm == {} and facts.n_regs and facts.n_regs > 0
    assert "sm_100" in available_targets() and "sm_90" in available_targets()


@pytest.mark.parametrize("target, fragment", [("sm_95", "sm_95"), ("sm_60", "older than sm_70"),
                                              ("gpu-9000", "unknown target"), ("", "unknown target")])
def test_unknown_target_is_a_clear_error(target, fragment):
    with pytest.raises(ValidationError) as e:
        compile_for_target("vector_add", {}, target)
    assert e.value.field == "target" and fragment in str(e.value)
    if "sm_" in fragment and fragment != "sm_60":
        assert "available: " in str(e.value) and "sm_90" in str(e.value)


def test_target_spellings():
    assert {parse_target(t) for t in ("sm_90", "sm_90a", "90", "9.0", (9, 0), 90, "H100", "nvidia h200",
                                      triton.backends.compiler.GPUTarget("cuda", 90, 32))} == {90}
    assert parse_target("sm_100") == 100 and parse_target("A100") == 80


@needs_cuobjdump
def test_plain_jit_function():
    x = torch.randn(1000)
    notes: list[str] = []
    facts = compile_jit_for_target(_scale_kernel, (x, torch.empty_like(x), 1000, 2.0), {"BLOCK": 256, "num_warps": 2},
                                   target="sm_90", grid=lambda meta: (triton.cdiv(meta["n"], 256),), notes=notes)
    assert facts.n_regs > 0 and facts.n_spills == 0 and facts.shared_bytes == 0
    assert facts.num_warps == 2 and facts.num_stages == 3  # Triton's default num_stages
    assert "_scale_kernel" in facts.asm["sass"] and ".target sm_90" in facts.asm["ptx"]
    assert facts.n_programs == 4 and facts.occupancy_limiter in LIMITERS
    assert any("no GPU" in n for n in notes)
    # a second call is served from the cache, without the asm when not asked for
    again = compile_jit_for_target(_scale_kernel, (x, x, 1000, 2.0), {"BLOCK": 256, "num_warps": 2}, "sm_90", keep_asm=False)
    assert again.n_regs == facts.n_regs and again.asm == {}


def test_jit_function_through_compile_for_target_and_autotune():
    x = torch.randn(64, dtype=torch.float16)
    facts, _ = compile_for_target(_scale_kernel, ((x, x, 64, 1.5), {"BLOCK": 64}), "sm_89", keep_asm=False)
    assert facts.num_warps == 4 and facts.n_regs > 0
    notes: list[str] = []
    tuned = compile_jit_for_target(_tuned_kernel, (x, x, 64, 1.5), {}, "sm_90", keep_asm=False, notes=notes)
    assert tuned.num_warps == 2 and any("first config" in n for n in notes)


def _tiny_spec(make_inputs):
    from kernels.data.params import Param, num_warps, shape
    from kernels.specs.spec import KernelSpec

    def launch(K, t, cfg, grid):
        return K(_scale_kernel)[grid](t["x"], t["out"], cfg["N"], 0.5, BLOCK=cfg["BLOCK"], num_warps=cfg["num_warps"])

    return KernelSpec(
        name="tiny_scale", title="", summary="", kernels=(_scale_kernel,),
        params=(Param("BLOCK", "constexpr", 128, ""), num_warps(8), shape("N", 1 << 40, hi=1 << 42)),
        make_inputs=make_inputs, launch=launch, reference=lambda t, cfg: {}, outputs=("out",),
        bytes_moved=lambda cfg: 8 * cfg["N"], flops=lambda cfg: cfg["N"], grid_exprs=("cdiv(N, BLOCK)",))


def test_large_inputs_are_built_on_the_meta_device():
    seen = []

    def make_inputs(cfg, dev, gen):  # 8 TiB each: only the meta device can hold them
        seen.append(dev)
        return {"x": torch.empty(cfg["N"], device=dev), "out": torch.empty(cfg["N"], device=dev)}

    facts, _ = compile_for_target(_tiny_spec(make_inputs), {"N": (1 << 40) + 1}, "sm_90", keep_asm=False)
    assert seen == ["meta"] and facts.num_warps == 8 and facts.n_regs > 0
    assert facts.n_programs == (1 << 33) + 1
    def broken(cfg, dev, gen):
        raise RuntimeError("boom")

    with pytest.raises(CompileError, match=r"tiny_scale.*building the inputs on meta: RuntimeError: boom"):
        compile_for_target(_tiny_spec(broken), {}, "sm_90")


def test_bad_input_is_a_clear_error():
    x = torch.randn(16)
    with pytest.raises(CompileError, match="_scale_kernel"):
        compile_jit_for_target(_scale_kernel, (x, x), {"BLOCK": 16})  # n, alpha missing
    with pytest.raises(CompileError, match="NOT_AN_OPTION"):
        compile_jit_for_target(_scale_kernel, (x, x, 16, 1.0), {"BLOCK": 16, "NOT_AN_OPTION": 1})
    with pytest.raises(CompileError, match="<lambda> is not a @triton.jit function"):
        compile_jit_for_target(lambda x: x, (x,), {})
    with pytest.raises(CompileError, match="num_warps must be a power of 2"):
        compile_jit_for_target(_scale_kernel, (x, x, 16, 1.0), {"BLOCK": 16, "num_warps": 3})
    with pytest.raises(CompileError, match=r"compiling _broken_kernel for sm_90 failed: .*undefined_name"):
        compile_jit_for_target(_broken_kernel, (x,), {"BLOCK": 16}, "sm_90")
    with pytest.raises(ValidationError) as e:
        compile_for_target("matmul", {"BLOCK_M": 48}, "sm_90")  # not a power of two
    assert e.value.field == "BLOCK_M"
    with pytest.raises(ValidationError, match="unknown kernel"):
        compile_for_target("no_such_kernel", {}, "sm_90")


@needs_cuobjdump
def test_cached_and_isolated(vadd90):
    import time

    t0 = time.perf_counter()
    facts, _ = compile_for_target("vector_add", {}, "sm_90")
    assert time.perf_counter() - t0 < 0.5  # served from the in-memory cache
    assert facts.asm == vadd90[0].asm and facts.asm is not vadd90[0].asm
    facts.asm.clear()
    assert compile_for_target("vector_add", {}, "sm_90")[0].asm["sass"]


@needs_cuobjdump
def test_resource_usage_and_limits_table():
    facts, _ = compile_for_target("vector_add", {}, "sm_90", keep_asm=False)
    assert facts.n_regs == compiled.registers_from_cubin(_cubin_of_vector_add())
    assert device.capability_entry(10, 3) == (10, 3) and device.capability_entry(11, 0) == (10, 3)
    assert device.reference_gpu(10, 3) == device.reference_gpu(10, 0)


def _cubin_of_vector_add() -> bytes:
    from kernels.compile.target import _CACHE

    ck = next(e.ck for k, e in reversed(_CACHE.items()) if e.ck.name == "binary_kernel" and k[1] == 90)
    usage = compiled.resource_usage(ck.asm["cubin"])
    assert usage is not None and usage["LOCAL"] == 0
    return ck.asm["cubin"]


def test_import_is_light():
    code = ("import sys, kernels.compile.target, kernels.compile.facts; "
            "bad = [m for m in sys.modules if m.split('.')[0] in ('PySide6', 'torch', 'triton')]; "
            "assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
