"""The engine on the interpreter: runs, errors, unwritten outputs, sweeps, benches, compile facts.

Runs without a GPU (the interpreter backend) on both Triton 3.9 and 3.6.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch
import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget

from kernels import engine
from kernels.catalog.elementwise import vector_add
from kernels.compile import facts as compiled
from kernels.data.errors import to_error_info
from kernels.data.results import RunRequest, SweepRequest
from kernels.run import backends
from kernels.run.device import DeviceLimits, limits_for_capability
from kernels.specs.spec import REGISTRY

NO_CUDA = not torch.cuda.is_available()


# ---------------------------------------------------------------------------------------------
# test kernels


@triton.jit
def _skip_last_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    stored = (tl.num_programs(0) - 1) * BLOCK_SIZE  # the bug: the last block never stores
    mask = (offs < n) & (offs < stored)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


@triton.jit
def _add_helper(a, b):
    return a + b


@triton.jit
def _helper_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    # tl.cdiv is itself a @triton.jit function of triton.language; _add_helper is ours
    mask = (offs < n) & (offs < tl.cdiv(n, BLOCK_SIZE) * BLOCK_SIZE)
    tl.store(out_ptr + offs, _add_helper(tl.load(x_ptr + offs, mask=mask), tl.load(y_ptr + offs, mask=mask)),
             mask=mask)


@triton.jit
def _broken_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
    offs = tl.arange(0, BLOCK_SIZE)
    tl.store(out_ptr + offs, undefined_name(offs))  # noqa: F821 - the bug under test


def _launcher(kernel):
    def launch(K, t, cfg):
        grid = (triton.cdiv(cfg["N"], cfg["BLOCK_SIZE"]),)
        cfg["_grid"] = grid
        return K(kernel)[grid](t["x"], t["y"], t["out"], cfg["N"], BLOCK_SIZE=cfg["BLOCK_SIZE"],
                               num_warps=cfg["num_warps"])
    return launch


@pytest.fixture
def test_specs():
    """Register vector-add variants for the test and remove them afterwards."""
    made = {
        "test_skip_last": dataclasses.replace(vector_add, name="test_skip_last", kernels=(_skip_last_kernel,),
                                              launch=_launcher(_skip_last_kernel)),
        "test_helper": dataclasses.replace(vector_add, name="test_helper", kernels=(_helper_kernel,),
                                           launch=_launcher(_helper_kernel)),
        "test_broken": dataclasses.replace(vector_add, name="test_broken", kernels=(_broken_kernel,),
                                           launch=_launcher(_broken_kernel)),
    }
    for s in made.values():
        REGISTRY(s)
    yield made
    for name in made:
        REGISTRY.remove(name)


def _run(kernel="vector_add", backend="interpreter", **values):
    return engine.run(RunRequest(kernel, values, backend=backend))


# ---------------------------------------------------------------------------------------------
# a good run


def test_vector_add_on_the_interpreter_passes_and_is_labelled():
    stages = []
    r = engine.run(RunRequest("vector_add", {"N": 1000, "BLOCK_SIZE": 256}, backend="interpreter"),
                   progress=lambda p: stages.append((p.stage, p.fraction)))
    assert r.error is None and r.ok
    assert r.backend == "interpreter" and r.device == "CPU (Triton interpreter)"
    assert r.grid == (4,)  # cdiv(1000, 256)
    assert r.values["N"] == 1000 and r.values["BLOCK_SIZE"] == 256 and r.values["dtype"] == "fp32"
    c = r.check
    assert c.passed and c.n_elements == 1000 and c.n_unwritten == 0 and c.n_mismatch == 0
    assert c.max_abs_err < 1e-6 and c.error_map.shape == (1000,) and c.error_map.dtype == np.float32
    assert backends.INTERPRETER_NOTE in r.notes
    assert r.timing.is_interpreter and "interpreter wall clock" in r.timing.method
    assert "not GPU speed" in r.timing.method
    # GB/s from the spec's bytes model: 3 fp32 vectors of 1000 over the measured time
    assert r.metrics.bytes_moved == 12000
    assert r.metrics.gbps == pytest.approx(12000 / r.timing.median_ms / 1e6)
    assert r.metrics.torch_timing is not None and r.metrics.ratio_vs_torch == pytest.approx(
        r.metrics.torch_timing.median_ms / r.timing.median_ms)
    assert [s for s, _ in stages[:4]] == ["compiling", "running", "checking", "timing"]
    assert [f for _, f in stages] == sorted(f for _, f in stages)
    assert r.triton_version == triton.__version__


@pytest.mark.skipif(not NO_CUDA, reason="checks the fallback when no GPU is present")
def test_auto_uses_the_interpreter_and_gpu_is_refused_without_cuda():
    assert _run(backend="auto", N=100, BLOCK_SIZE=64).backend == "interpreter"
    r = _run(backend="gpu", N=100)
    assert r.error.kind == "validation" and r.error.field == "backend"
    assert r.error.message.startswith("no CUDA device") and "--backend interpreter" in r.error.message
    d = engine.describe_backends()
    assert d["gpu_available"] is False and d["gpu_reason"] and d["default"] == "interpreter"
    assert d["triton_version"] == triton.__version__


# ---------------------------------------------------------------------------------------------
# bad input becomes ErrorInfo with the field


@pytest.mark.parametrize("values, field, words", [
    ({"BLOCK_SIZE": 100}, "BLOCK_SIZE", "power of two"),
    ({"N": 0}, "N", "must be positive"),
    ({"N": -3}, "N", "must be positive"),
    ({"N": "12x"}, "N", "not an integer"),
    ({"FOO": 1}, "FOO", "unknown parameter"),
    ({"dtype": "int8"}, "dtype", "not supported"),
    ({"num_warps": 3}, "num_warps", "not allowed"),
    ({"N": 2_000_000_000}, "N", "too large for host memory"),  # 24 GiB of vectors, ~90 GiB to check
])
def test_bad_values_give_validation_errors_naming_the_field(values, field, words):
    r = _run(**values)
    assert r.error is not None and r.error.kind == "validation"
    assert r.error.field == field and words in r.error.message
    assert r.check is None and not r.ok


def test_unknown_kernel_names_the_known_ones():
    r = _run("vector_sub")
    assert r.error.kind == "validation" and r.error.field == "kernel"
    assert "vector_add" in r.error.message


def test_bf16_on_the_interpreter_is_refused_with_the_probe_result():
    r = _run(N=100, dtype="bf16")
    probe = backends.bf16_probe()
    assert not probe.ok  # wrong on 3.9, raises on 3.6: both versions we support
    assert r.error.field == "dtype" and r.error.kind == "interpreter"
    assert f"Triton {triton.__version__}" in r.error.message and probe.detail in r.error.message


def test_fp16_on_the_interpreter_is_checked_with_fp16_tolerance():
    r = _run(N=500, BLOCK_SIZE=128, dtype="fp16")
    assert r.ok and r.check.atol == 1e-2 and r.check.dtype == "fp16"


def test_cancel_between_stages():
    r = engine.run(RunRequest("vector_add", {"N": 100}, backend="interpreter"), cancel=lambda: True)
    assert r.error.kind == "cancelled" and r.check is None


def test_input_plan_knows_every_tensor_without_allocating():
    cfg = vector_add.config({"N": 1 << 30, "dtype": "fp16"})  # 6 GiB if it were allocated
    plan = engine.plan_inputs(vector_add, cfg)
    assert plan.final_bytes == 3 * 2 * (1 << 30)
    assert plan.tensors["x"] == ((1 << 30,), "float16", 2 << 30)
    assert plan.largest_temp == 4 << 30  # drawn in float32, then cast
    assert plan.check_bytes == (8 + 8 + 32) << 30  # float64: x and y upcast; out, ref and diff


def test_allocation_guard_refuses_before_allocating():
    from kernels.data.errors import ResourceError

    with engine.AllocationGuard({"cpu": 10_000}, field="N") as g:
        x = torch.randn(1000, generator=torch.Generator())  # 4000 bytes
        y = x.to(torch.float16)  # 2000 more
        assert g.used["cpu"] == 6000
        with pytest.raises(ResourceError) as ei:
            torch.empty((50, 50), dtype=torch.float64)  # 20000 bytes: refused before allocation
    assert ei.value.field == "N" and "too large for host memory" in ei.value.message
    assert "empty(50, 50) float64" in ei.value.message and y.dtype == torch.float16


# ---------------------------------------------------------------------------------------------
# kernels that are wrong


def test_unwritten_last_block_is_counted_exactly(test_specs):
    r = _run("test_skip_last", N=1000, BLOCK_SIZE=256)
    assert r.error is None and r.grid == (4,)
    c = r.check
    assert not c.passed and not r.ok
    # programs 0..2 store elements 0..767; program 3's 232 elements stay NaN-poisoned
    assert c.n_unwritten == 232 and c.n_mismatch == 232 and c.n_nan == 232
    assert np.isinf(c.error_map[768:]).all() and (c.error_map[:768] < 1e-6).all()
    assert "232 of 1000" in c.reason and "never written" in c.reason


def test_helpers_and_triton_language_jit_functions_run_under_the_interpreter(test_specs):
    # without the swap, a nested @triton.jit call refuses to run outside a compiled kernel
    from triton.runtime.interpreter import InterpretedFunction

    x = torch.ones(64)
    with pytest.raises(Exception, match="outside of the scope of a kernel"):
        InterpretedFunction(_helper_kernel.fn)[(1,)](x, x, torch.empty(64), 64, BLOCK_SIZE=64)
    r = _run("test_helper", N=1000, BLOCK_SIZE=128)
    assert r.error is None and r.check.passed and r.grid == (8,)
    # and again: the interpreter caches its rewrite of tl.cdiv, which must still work
    r = _run("test_helper", N=500, BLOCK_SIZE=64)
    assert r.error is None and r.check.passed and r.grid == (8,)
    # the module's globals and triton.language are restored after the run
    from triton.runtime.jit import JITFunction

    assert isinstance(globals()["_add_helper"], JITFunction) and isinstance(tl.cdiv, JITFunction)


def test_a_kernel_that_raises_gives_an_interpreter_error(test_specs):
    r = _run("test_broken", N=64, BLOCK_SIZE=64)
    assert r.error.kind == "interpreter" and "undefined_name" in r.error.message
    assert "NameError" in r.error.message and r.error.detail


def test_a_failing_reference_is_an_internal_error_naming_the_stage(test_specs):
    spec = dataclasses.replace(vector_add, name="test_bad_ref", reference=lambda t, cfg: 1 / 0)
    REGISTRY(spec)
    try:
        r = _run("test_bad_ref", N=64, BLOCK_SIZE=64)
    finally:
        REGISTRY.remove("test_bad_ref")
    assert r.error.kind == "internal" and "checking" in r.error.message
    assert "ZeroDivisionError" in r.error.message


# ---------------------------------------------------------------------------------------------
# sweeps and bench


def test_sweep_over_block_size_gives_one_point_per_value_and_the_fastest_passing_best():
    seen = []
    res = engine.sweep(SweepRequest("vector_add", {"N": 1000}, {"BLOCK_SIZE": [64, "128", 256, 100]},
                                    backend="interpreter"), on_point=seen.append)
    assert res.error is None and len(res.points) == 4 and len(seen) == 4
    assert [p.values["BLOCK_SIZE"] for p in res.points] == [64, 128, 256, 100]
    assert [p.result.grid for p in res.points[:3]] == [(16,), (8,), (4,)]
    bad = res.points[3].result  # an invalid combination is a point with an error, not an abort
    assert bad.error.field == "BLOCK_SIZE"
    ok = [i for i, p in enumerate(res.points) if p.result.ok]
    assert ok == [0, 1, 2]
    assert res.best in ok
    assert res.points[res.best].result.timing.median_ms == min(res.points[i].result.timing.median_ms for i in ok)


def test_sweep_skips_points_already_done_and_rejects_three_axes():
    res = engine.sweep(SweepRequest("vector_add", {"N": 300}, {"BLOCK_SIZE": [64, 128], "num_warps": [1, 2]},
                                    backend="interpreter", skip=[{"BLOCK_SIZE": "64", "num_warps": 1}]))
    assert [(p.values["BLOCK_SIZE"], p.values["num_warps"]) for p in res.points] == [(64, 2), (128, 1), (128, 2)]
    res3 = engine.sweep(SweepRequest("vector_add", {}, {"BLOCK_SIZE": [64], "num_warps": [1], "N": [9]}))
    assert res3.error.kind == "validation" and "one or two" in res3.error.message and not res3.points


def test_bench_all_on_the_interpreter_shrinks_and_says_so():
    rows = engine.bench_all("interpreter", names=["vector_add"])
    assert len(rows) == len(vector_add.bench_cases)
    row = rows[0]
    assert row["passed"] is True and row["backend"] == "interpreter"
    assert row["values"]["N"] == vector_add.param("N").default  # 2**28 would take hours
    assert any("shrunk for the interpreter" in n for n in row["notes"])
    assert row["triton_ms"] > 0 and row["torch_ms"] > 0
    assert row["ratio"] == pytest.approx(row["torch_ms"] / row["triton_ms"])


def test_infos_lists_the_catalog():
    names = [i.name for i in engine.infos()]
    assert "vector_add" in names and "vector_mul" in names


# ---------------------------------------------------------------------------------------------
# occupancy (H200: 132 SMs, 64K registers, 228 KiB shared memory, 64 warps, 32 blocks per SM)

H200 = DeviceLimits()


def test_occupancy_light_kernel_is_limited_by_warps():
    # 32 regs: a warp takes 1024 registers, 16 per partition -> 64 warps -> 16 programs of 4 warps;
    # 64 warps / 4 = 16 as well: the tie goes to warps
    occ = compiled.occupancy(32, 4, 0, H200)
    assert occ.programs_per_sm == 16 and occ.limiter == "warps" and occ.warps_pct == 100.0
    assert occ.by_limit == {"warps": 16, "blocks": 32, "registers": 16, "shared memory": 228}


def test_occupancy_register_heavy_kernel():
    # 255 regs: 255*32 = 8160 -> 8192 per warp; 16384 per partition holds 2 warps -> 8 warps per SM
    occ = compiled.occupancy(255, 4, 0, H200)
    assert occ.by_limit["registers"] == 2 and occ.programs_per_sm == 2 and occ.limiter == "registers"
    assert occ.warps_pct == pytest.approx(12.5)
    # 128 regs, 8 warps: 4096 per warp, 4 per partition -> 16 warps -> 2 programs
    assert compiled.occupancy(128, 8, 0, H200).programs_per_sm == 2
    # 255 regs and 16 warps need 131072 registers: more than a block may have, it cannot launch
    assert compiled.occupancy(255, 16, 0, H200).programs_per_sm == 0


def test_occupancy_shared_memory_and_block_limits():
    # 100 KiB per program (+1 KiB reserved): floor(233472 / 103424) = 2
    occ = compiled.occupancy(64, 4, 100 * 1024, H200)
    assert occ.by_limit["shared memory"] == 2 and occ.limiter == "shared memory"
    # 1 warp per program: 64 warps allow 64, the hardware's 32 resident blocks bind
    assert compiled.occupancy(16, 1, 0, H200).limiter == "blocks"
    assert compiled.occupancy(None, 4, 0, H200).by_limit.keys() == {"warps", "blocks", "shared memory"}
    # too much shared memory for one block
    assert compiled.occupancy(32, 4, 300 * 1024, H200).programs_per_sm == 0


def test_waves_and_capability_table():
    assert compiled.waves(98432 // 1024 + 1, 132, 16) == pytest.approx(97 / 2112)
    assert compiled.waves(4224, 132, 16) == pytest.approx(2.0)
    assert compiled.waves(10, 132, 0) is None
    a100 = limits_for_capability(8, 0, 108)
    assert a100.shared_per_sm == 167936 and a100.max_warps_per_sm == 64 and a100.n_sms == 108
    assert limits_for_capability(8, 9, 128).max_warps_per_sm == 48


def _compile_for_sm90(fn, signature, constexprs, num_warps=4):
    src = triton.compiler.ASTSource(fn=fn, signature=signature, constexprs=constexprs)
    return triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": num_warps})


def test_compile_facts_from_a_real_compiled_kernel_without_a_gpu():
    # Triton compiles for sm_90 on the CPU; the driver would report n_regs once it loads the
    # binary, without one the count comes from the cubin (cuobjdump, bundled with Triton)
    ck = _compile_for_sm90(_helper_kernel, {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32",
                                            "n": "i32", "BLOCK_SIZE": "constexpr"}, {"BLOCK_SIZE": 1024})
    facts, notes = compiled.compile_facts(ck, n_programs=97, limits=H200)
    assert facts.num_warps == 4 and facts.num_stages == 3 and facts.shared_bytes == 0
    assert {"ttir", "ttgir", "llir", "ptx"} <= facts.asm.keys()
    assert ".visible .entry _helper_kernel" in facts.asm["ptx"]
    assert "tt.load" in facts.asm["ttir"] and "tt.store" in facts.asm["ttir"]
    if compiled._cuobjdump() is None:
        pytest.skip("no cuobjdump: SASS and the cubin's register count are unavailable")
    sass = facts.asm["sass"]
    assert "LDG.E" in sass and "STG.E" in sass and "EXIT" in sass
    assert "/* 0x" not in sass  # the hex encodings are stripped: one line per instruction
    assert 8 <= facts.n_regs <= 64  # a vector add needs a couple dozen registers
    # occupancy from those registers: 4 warps, so at most 16 programs per SM on an H200
    assert facts.programs_per_sm == compiled.occupancy(facts.n_regs, 4, 0, H200).programs_per_sm == 16
    assert facts.waves == pytest.approx(97 / (132 * 16))


def test_compile_errors_carry_tritons_message_without_a_traceback():
    @triton.jit
    def bad(x_ptr, BLOCK: tl.constexpr):
        tl.store(x_ptr + tl.arange(0, BLOCK), tl.arange(0, BLOCK) @ 3)

    with pytest.raises(Exception) as ei:
        _compile_for_sm90(bad, {"x_ptr": "*fp32", "BLOCK": "constexpr"}, {"BLOCK": 100})
    info = to_error_info(ei.value, "launch")
    assert info.kind == "compile" and info.message.startswith("compile error:")
    assert "Traceback" not in info.message and "\n" not in info.message
    assert info.detail

    from triton.runtime.errors import OutOfResources

    info = to_error_info(OutOfResources(262144, 232448, "shared memory"), "launch")
    assert info.kind == "compile" and "262144" in info.message and "shared memory" in info.message


def test_error_kinds_for_memory_and_unknown_failures():
    assert to_error_info(MemoryError()).kind == "oom"
    info = to_error_info(RuntimeError("unspecified launch failure"), "launch")
    assert info.kind == "launch" and "unspecified launch failure" in info.message
    info = to_error_info(KeyError("x"), "checking")
    assert info.kind == "internal" and "while checking" in info.message
