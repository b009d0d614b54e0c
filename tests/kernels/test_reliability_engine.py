"""Reliability of the engine: bad input, faulting kernels and broken files each come back as
``RunResult.error`` (kind, field, one clear message) — never an exception, never a dead
process — and the next valid run works. No Qt; runs on Triton 3.9 and 3.6.

If these fail, the learner sees a crash (the interpreter writing to a wild address kills the
worker with SIGSEGV), an "internal error" where a compile error was meant, a result too large to
reach the app, or no hint of which parameter or line was wrong.
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np
import pytest
import torch
import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget

from kernels import engine
from kernels.catalog.elementwise import vector_add
from kernels.data.errors import ResourceError, to_error_info
from kernels.data.results import RunRequest
from kernels.run import backends, check, memory
from kernels.specs.spec import REGISTRY

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
FAULTY = str(FIXTURES / "faulty_kernels.py")


def _run(kernel: str = "vector_add", values: dict | None = None, **kw) -> object:
    kw.setdefault("backend", "interpreter")
    kw.setdefault("torch_baseline", False)
    return engine.run(RunRequest(kernel, dict(values or {}), **kw))


def _assert_next_run_works() -> None:
    r = _run("vector_add", {"N": 1000, "BLOCK_SIZE": 256})
    assert r.error is None and r.check.passed, r.error


def _line_of(path: str, text: str) -> int:
    lines = Path(path).read_text().splitlines()
    return next(i for i, ln in enumerate(lines, 1) if text in ln)


# ---------------------------------------------------------------------------------------------
# bad parameter values: validation errors that name the field


@pytest.mark.parametrize("values, field, words", [
    ({"BLOCK_SIZE": 100}, "BLOCK_SIZE", "power of two"),
    ({"BLOCK_SIZE": 0}, "BLOCK_SIZE", "below the minimum"),
    ({"BLOCK_SIZE": -64}, "BLOCK_SIZE", "below the minimum"),
    ({"BLOCK_SIZE": "abc"}, "BLOCK_SIZE", "not an integer"),
    ({"BLOCK_SIZE": 1 << 20}, "BLOCK_SIZE", "above the maximum"),
    ({"num_warps": 3}, "num_warps", "not allowed"),
    ({"num_warps": 64}, "num_warps", "not allowed"),
    ({"num_stages": 0}, "num_stages", "below the minimum"),
    ({"N": 0}, "N", "must be positive"),
    ({"N": -5}, "N", "must be positive"),
    ({"N": "ten"}, "N", "not an integer"),
    ({"N": 2.5}, "N", "must be an integer"),
    ({"N": 2**31}, "N", "32-bit"),
    ({"dtype": "fp64"}, "dtype", "not supported by this kernel"),
    ({"dtype": "int8"}, "dtype", "not supported by this kernel"),
])
def test_bad_values_are_validation_errors_naming_the_field(values, field, words):
    r = _run("vector_add", values)
    assert r.error is not None and r.error.kind == "validation", r.error
    assert r.error.field == field and words in r.error.message
    assert "\n" not in r.error.message and r.check is None  # nothing ran


def test_bf16_refused_on_the_interpreter_names_the_dtype():
    r = _run("vector_add", {"N": 64, "BLOCK_SIZE": 64, "dtype": "bf16"})
    if backends.bf16_probe().ok:
        pytest.skip("this Triton's interpreter computes bf16 correctly")
    assert r.error.kind == "interpreter" and r.error.field == "dtype" and "bf16" in r.error.message


def test_a_shape_too_large_for_host_memory_is_refused_before_allocating(monkeypatch):
    # 2**28 fp32 elements x 3 tensors = 3 GiB; the machine is made to have 2 GiB free
    monkeypatch.setattr(memory, "host_available", lambda: 2 << 30)
    r = _run("vector_add", {"N": 1 << 28, "BLOCK_SIZE": 1024})
    assert r.error.kind == "validation" and r.error.field == "N"
    assert "too large for host memory" in r.error.message and "3.0 GiB" in r.error.message
    assert r.grid == ()  # refused up front: nothing was launched
    monkeypatch.undo()
    _assert_next_run_works()


def test_out_of_memory_raised_anyway_is_an_oom_error_not_a_crash():
    # the plan can be wrong (another process took the memory): torch's OOM is still caught
    def launch(K, t, cfg):
        raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 8.00 GiB")

    def make_inputs(cfg, device, gen):
        raise MemoryError()

    for name, change in (("test_oom_launch", {"launch": launch}), ("test_oom_host", {"make_inputs": make_inputs})):
        REGISTRY(dataclasses.replace(vector_add, name=name, **change))
        try:
            r = _run(name, {"N": 64, "BLOCK_SIZE": 64})
        finally:
            REGISTRY.remove(name)
        assert r.error.kind == "oom", r.error
        assert ("Tried to allocate 8.00 GiB" in r.error.message) if name == "test_oom_launch" \
            else (r.error.message == "out of host memory")
    _assert_next_run_works()


# ---------------------------------------------------------------------------------------------
# user kernel files that cannot be loaded


@pytest.mark.parametrize("path, words", [
    (FIXTURES / "no_such_file.py", ["kernel file not found", "no_such_file.py"]),
    (FIXTURES / "unparsable" / "not_python.py", ["syntax error", "is this a Python file?"]),
    (FIXTURES / "unparsable" / "not_utf8.py", ["is not a Python file", "not UTF-8"]),
    (FIXTURES / "unparsable" / "syntax_error.py", ["syntax_error.py:9:", "syntax error"]),
    (FIXTURES / "missing_import.py", ["missing_import.py:5", "'triton_kernels_that_do_not_exist'",
                                      "not installed"]),
    (FIXTURES / "registers_nothing.py", ["registers no kernels", "register(KernelSpec(...))"]),
    (FIXTURES / "raises_on_import.py", ["raises_on_import.py:5", "KeyError", "medium"]),
])
def test_a_broken_kernel_file_is_one_clear_user_file_error(path, words):
    r = _run("anything", {"N": 100}, user_file=str(path))
    assert r.error is not None and r.error.kind == "user_file" and r.error.field == "user_file", r.error
    for w in words:
        assert w in r.error.message, (w, r.error.message)
    assert "\n" not in r.error.message and "Traceback" not in r.error.message
    _assert_next_run_works()


def test_a_kernel_that_raises_names_program_line_and_exception():
    r = _run("shape_mismatch", {"N": 1000, "BLOCK_SIZE": 256}, user_file=FAULTY)
    line = _line_of(FAULTY, "x + tl.arange(0, 2 * BLOCK_SIZE)")
    assert r.error.kind == "interpreter", r.error
    assert f"program 0 (0, 0, 0) at line {line}" in r.error.message
    assert "ValueError" in r.error.message and "256 and 512" in r.error.message
    _assert_next_run_works()


# ---------------------------------------------------------------------------------------------
# out-of-bounds accesses under the interpreter (unguarded: SIGSEGV of the whole process)


@pytest.mark.parametrize("kernel, op, text", [
    ("oob_store", "store", "tl.store(out_ptr + offsets + (1 << 30), x)"),
    ("oob_load", "load", "x = tl.load(x_ptr + offsets + (1 << 30))"),
])
def test_far_out_of_bounds_access_stops_the_run_cleanly(kernel, op, text):
    r = _run(kernel, {"N": 1000, "BLOCK_SIZE": 256}, user_file=FAULTY)
    e = r.error
    assert e is not None and e.kind == "out_of_bounds", e
    line = _line_of(FAULTY, text)
    # which program, which op, which line (with its text), how many lanes, what to do next
    assert e.message.startswith(f"out-of-bounds {op} in {kernel}_kernel: program 0 (0, 0, 0) at line {line}")
    assert text in e.message and "256 of 256 active lanes" in e.message
    assert "elements past the end of" in e.message and "Trace this run" in e.message
    assert "first out-of-bounds addresses: 0x" in e.detail and "x_ptr:" in e.detail
    assert r.check is None  # stopped at the first bad access: no check of a half-run kernel
    _assert_next_run_works()


def test_forgetting_the_mask_is_caught_in_the_last_program():
    # N = 1000, BLOCK_SIZE 256: program 3 reads and writes 24 elements past the end of 1000
    r = _run("no_mask", {"N": 1000, "BLOCK_SIZE": 256}, user_file=FAULTY)
    assert r.error.kind == "out_of_bounds", r.error
    assert "program 3 (3, 0, 0)" in r.error.message and "out-of-bounds load" in r.error.message
    n_bad = int(r.error.message.split(" of 256 active lanes")[0].rsplit(" ", 1)[1])
    assert 1 <= n_bad <= 24  # lanes landing in another argument's storage are not flagged
    # the same kernel where the blocks divide N has no bad access, and passes
    r = _run("no_mask", {"N": 1024, "BLOCK_SIZE": 256}, user_file=FAULTY)
    assert r.error is None and r.check.passed


def test_the_tracer_flags_the_same_lanes_the_run_refuses():
    from kernels.trace import trace_spec

    spec = engine.get_spec("oob_store", FAULTY)
    tr = trace_spec(spec, {"N": 1000, "BLOCK_SIZE": 256}, workers=1)
    line = _line_of(FAULTY, "tl.store(out_ptr + offsets + (1 << 30), x)")
    stores = [o for o in tr.oob if o.op == "store" and o.line == line]
    assert sorted(o.program for o in stores) == [0, 1, 2, 3]
    assert sum(o.count for o in stores) == 4 * 256  # every lane of every program, none dropped
    assert int(tr.stats.n_oob.sum()) == 1024


def test_a_clean_kernel_runs_guarded_and_its_results_are_unchanged():
    # every access checked, none refused: the answer is the same as unguarded (a false alarm
    # here would stop every learner's run), and no note says the guard was unavailable
    r = _run("vector_add", {"N": 1 << 16, "BLOCK_SIZE": 1024})
    assert r.error is None and r.check.passed and r.check.max_abs_err < 1e-6 and r.grid == (64,)  # fp32 rounding
    assert not any("not checked" in n for n in r.notes)
    # a strided, two-dimensional kernel with a loop and jit helpers (tl.max/tl.sum) passes too
    r = _run("softmax_looped", {"M": 8, "N": 300, "BLOCK_SIZE": 128})
    assert r.error is None and r.check.passed, r.error


# ---------------------------------------------------------------------------------------------
# compile errors are compile errors (Triton compiles inside the first launch)


_SM90 = GPUTarget("cuda", 90, 32)


@triton.jit
def _copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


def _compile(options: dict) -> None:
    src = triton.compiler.ASTSource(fn=_copy_kernel, constexprs={"BLOCK": 1024},
                                    signature={"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"})
    triton.compile(src, target=_SM90, options=options)


def test_an_assertion_inside_the_compiler_is_a_compile_error():
    # num_warps=3 (validation refuses it; a user launcher might not): Triton's compiler asserts
    with pytest.raises(AssertionError) as ei:
        _compile({"num_warps": 3})
    info = to_error_info(ei.value, "launch")
    assert info.kind == "compile" and info.message == "compile error: AssertionError: num_warps must be a power of 2"


def test_an_mlir_pass_failure_is_a_compile_error_not_a_launch_error(monkeypatch):
    # "PassManager::run failed" is a RuntimeError from a compile stage; it came back from the
    # H200 as "launch failed: RuntimeError". Here a real compile for sm_90 whose TTGIR stage fails.
    from triton.backends.nvidia.compiler import CUDABackend

    def failing_stage(*args, **kwargs):
        raise RuntimeError("PassManager::run failed")

    monkeypatch.setattr(CUDABackend, "make_ttgir", staticmethod(failing_stage))
    with pytest.raises(RuntimeError) as ei:
        _compile({"num_warps": 4})
    info = to_error_info(ei.value, "launch")
    assert info.kind == "compile" and info.message.startswith("compile error: RuntimeError: PassManager::run failed")
    assert "worker's stderr" in info.message and info.detail
    # the same error raised by a running kernel (no compiler on the stack) stays a launch error
    assert to_error_info(RuntimeError("PassManager::run failed"), "launch").kind == "launch"
    # and a sticky CUDA error keeps its launch kind, so the worker still restarts after it
    assert to_error_info(RuntimeError("CUDA error: an illegal memory access was encountered"), "launch").kind == "launch"


# ---------------------------------------------------------------------------------------------
# nothing that crosses the pipe grows without bound


def test_map_stride_keeps_maps_under_the_limit_and_their_shape():
    assert check.map_stride((1000,), 1000) == ()
    assert check.map_stride(((1 << 31) - 2048,), 1 << 24) == (128,)  # the H200 case: 16 M elements, 64 MiB
    assert check.map_stride((16384, 16384), 1 << 24) == (4, 4)
    assert check.map_stride((100, 1 << 26), 1 << 24) == (1, 512)
    for shape in ((1 << 25) + 3,), (5000, 5000), (7, 3, 1 << 22):
        stride = check.map_stride(shape)
        reduced = [math.ceil(n / s) for n, s in zip(shape, stride, strict=True)]
        assert math.prod(reduced) <= check.MAX_ERROR_MAP_ELEMENTS


def test_a_large_error_map_is_downsampled_by_block_maximum(monkeypatch):
    monkeypatch.setattr(check, "MAX_ERROR_MAP_ELEMENTS", 1000)
    ref = torch.randn(4003, dtype=torch.float64)
    out = ref.to(torch.float32)
    out[5] = float("nan")  # unwritten (poison left): block 1 of 4 elements
    out[4001] += 0.5  # a wrong value in the last, partial block
    c = check.compare(out, ref, 1e-4, 1e-4, "out")
    assert c.error_map_stride == (8,) and c.error_map.shape == (501,)  # ceil(4003 / 8)
    assert np.isinf(c.error_map[0]) and np.isfinite(c.error_map[1:]).all()
    assert c.error_map[500] == pytest.approx(0.5, rel=1e-3) and c.error_map[1:500].max() < 1e-6
    assert c.n_unwritten == 1 and c.n_mismatch == 2 and not c.passed  # the counts stay exact

    ref2 = torch.randn(50, 60, dtype=torch.float64)
    out2 = ref2.to(torch.float32)
    out2[49, 59] += 1.0
    c2 = check.compare(out2, ref2, 1e-4, 1e-4, "y")
    assert c2.error_map_stride == (2, 2) and c2.error_map.shape == (25, 30)
    assert c2.error_map[24, 29] == pytest.approx(1.0, rel=1e-3) and c2.error_map[:24].max() < 1e-6


def test_a_run_with_a_large_output_ships_a_bounded_map(monkeypatch):
    monkeypatch.setattr(check, "MAX_ERROR_MAP_ELEMENTS", 1000)
    r = _run("vector_add", {"N": 5000, "BLOCK_SIZE": 1024})
    assert r.ok and r.check.error_map.shape == (625,) and r.check.error_map_stride == (8,)
    monkeypatch.undo()
    r = _run("vector_add", {"N": 5000, "BLOCK_SIZE": 1024})
    assert r.check.error_map.shape == (5000,) and r.check.error_map_stride == ()


def test_a_trace_too_large_for_the_pipe_is_refused_before_it_is_built():
    spec = engine.get_spec("vector_add")
    with pytest.raises(ResourceError) as ei:
        engine.check_trace_size(spec, {"N": 1 << 30, "BLOCK_SIZE": 1024})
    assert ei.value.field == "N" and "too large to trace" in ei.value.message
    assert "window of programs does not shrink" in ei.value.message
    engine.check_trace_size(spec, {"N": 1 << 20, "BLOCK_SIZE": 1024})  # 60 MiB of maps: fine
