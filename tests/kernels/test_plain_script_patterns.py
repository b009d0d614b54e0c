"""The patterns Triton's own tutorials use that a plain-script capture has to take as they are
(docs/plain-scripts.md, "Triton tutorials, tried as they are"), each in a small script of ours
under tests/kernels/scripts, run on the CPU:

- a fused softmax's ``kernel.warmup(..., grid=(1,))`` → ``n_regs`` / ``metadata.shared`` →
  occupancy arithmetic on ``driver.active`` device properties → the compiled kernel launched with
  constexprs passed positionally, one of them named ``num_stages`` (a ``tl.range`` persistent loop);
- a layer norm's ``torch.autograd.Function``: ``forward(ctx, ...)`` as the wrapper, its grid a
  local row count, ``num_ctas=1``; ``backward`` with ``tl.atomic_cas`` locks;
- a matmul's square operands (M, N, K told apart by calling the wrapper again), autotune configs
  chosen by ``is_cuda()``, a second launch in fp8 with a transposed operand.

What breaks if these fail: one of the tutorials no longer opens as it is, re-runs with a wrong
grid, offers sizes that cannot change independently, or shows two parameters of one name."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from kernels import engine
from kernels.data.results import RunRequest
from kernels.script import open_script
from kernels.trace import trace_spec

SCRIPTS = Path(__file__).parent / "scripts"


def _open(name: str):
    cap, specs = open_script(str(SCRIPTS / name), "interpreter")
    assert cap.error == "" and cap.stopped == "", (cap.error, cap.stopped)
    return cap, specs


def _run(spec, **values):
    r = engine.run(RunRequest(spec.name, values, backend="interpreter"))
    assert r.error is None, r.error
    assert r.check.passed and r.check.n_unwritten == 0, r.check.reason
    return r


def _map(tr, tensor: str) -> np.ndarray:
    return tr.maps[[t.name for t in tr.tensors].index(tensor)].writer


def _params(spec) -> dict:
    return {p.name: p for p in spec.params}


def test_warmup_then_the_compiled_kernel_launched_with_positional_constexprs():
    cap, (spec,) = _open("warmup_persistent.py")
    rec = cap.launches[0]
    # min(NUM_SM * occupancy, n_rows // 4) on the emulated H200's properties and the warmup's facts
    assert rec.grid == (50, 1, 1) and rec.wrapper == "row_scale" and rec.call_site == "warmup_persistent.py:49"
    assert rec.grid_rule == () and "as the script computed it" in rec.grid_note  # not cdiv(n_rows, num_stages)
    assert any(n.startswith("kernel.warmup: row_scale_kernel") for n in cap.notes)
    p = _params(spec)
    # BLOCK_SIZE and num_stages came positionally; num_warps from the warmup; num_stages is one parameter
    assert [x.name for x in spec.params].count("num_stages") == 1
    assert p["num_stages"].default == 4 and p["num_warps"].default == 4 and p["BLOCK_SIZE"].default == 64
    assert p["n_rows"].default == 200 and p["n_cols"].default == 45  # not the strides of the same value
    assert _run(spec, BLOCK_SIZE=128, num_warps=8).grid == (50, 1, 1)
    assert _run(spec, num_stages=2).check.passed
    # new sizes: the wrapper runs again — warmup, arithmetic, launch — and its grid follows
    r = _run(spec, n_rows=120, n_cols=20)
    assert r.grid == (30, 1, 1) and r.check.n_elements == 120 * 20
    # the persistent loop: program p writes rows p, p + 50, p + 100, ...
    tr = trace_spec(spec, {})
    w = _map(tr, "out_ptr").reshape(200, 45)
    assert tr.grid == (50, 1, 1) and (w == (np.arange(200) % 50)[:, None]).all()


def test_warmup_without_a_compiler_gives_a_stand_in_the_script_can_divide_by(monkeypatch):
    import kernels.compile.target

    def refuse(*a, **k):
        raise RuntimeError("no ptxas here")

    monkeypatch.setattr(kernels.compile.target, "compile_jit_for_target", refuse)
    cap, (spec,) = _open("warmup_persistent.py")
    assert any("stand-in's 32 registers" in n and "no ptxas here" in n for n in cap.notes)
    assert cap.launches[0].grid == (50, 1, 1) and _run(spec).grid == (50, 1, 1)


def test_driver_active_device_lookups_are_the_emulated_gpu_and_put_back():
    import triton

    from kernels.script.cuda_on_cpu import EMULATED_GPU, cuda_on_cpu

    before = triton.runtime.driver.__dict__.get("_active")
    with cuda_on_cpu():
        drv = triton.runtime.driver.active
        assert drv.get_active_torch_device() == torch.device("cpu")
        assert drv.utils.get_device_properties(None)["multiprocessor_count"] == EMULATED_GPU["multiprocessor_count"]
        target = drv.get_current_target()
        assert (target.backend, target.arch, target.warp_size) == ("cuda", 90, 32)
        assert torch.randn(3, device="cuda").device.type == "cpu"
    assert triton.runtime.driver.__dict__.get("_active") is before


def test_autograd_function_forward_is_the_wrapper_and_backward_locks():
    cap, (fwd, bwd) = _open("autograd_wrapper.py")
    f, b = cap.launches
    assert f.wrapper == "forward" and f.grid == (24,) and f.options["num_ctas"] == 1
    assert f.grid_rule == ("M",) and fwd.grid_exprs == ("M",)  # M: forward()'s local row count
    assert f.written == ["Y", "Mean"] and {"M", "N"} <= set(_params(fwd))
    assert _run(fwd, BLOCK_SIZE=128, num_warps=4).grid == (24,)
    r = _run(fwd, M=10, N=33)  # forward(ctx, ...) called again with a stand-in ctx
    assert r.grid == (10,) and r.check.n_elements == 10 * 33
    tr = trace_spec(fwd, {})
    assert (_map(tr, "Y").reshape(24, 40) == np.arange(24)[:, None]).all()
    # backward needs ctx.saved_tensors: its sizes stay fixed, and the record says why
    assert b.wrapper == "backward" and not b.resizable and "backward() could not be called again" in b.resize_note
    assert not any(p.kind == "shape" for p in bwd.params)
    assert set(bwd.inplace) == {"DB", "Lock"}  # the partial sums and the locks are restored before each run
    assert _run(bwd).grid == (24,) and _run(bwd, num_warps=8).check.passed
    tr = trace_spec(bwd, {})
    assert (_map(tr, "DX").reshape(24, 40) == np.arange(24)[:, None]).all()


def test_square_matmul_sizes_told_apart_and_a_later_fp8_launch():
    cap, (f16, f8) = _open("square_matmul_autotune.py")
    p = _params(f16)
    assert [(n, p[n].default) for n in ("M", "N", "K")] == [("M", 48), ("N", 48), ("K", 48)]
    assert "a.shape[1], b.shape[0]" in p["K"].help
    assert f16.grid_exprs == ("cdiv(M, BLOCK_SIZE_M) * cdiv(N, BLOCK_SIZE_N)",)
    assert cap.launches[0].autotune_choice == 0 and len(cap.launches[0].autotune_configs) == 2  # is_cuda(): yes
    assert _run(f16, BLOCK_SIZE_M=16, num_warps=2).grid == (9,)
    r = _run(f16, M=32, N=16, K=40)
    assert r.grid == (1,) and r.check.n_elements == 32 * 16
    b8 = next(a for a in cap.launches[1].args if a.name == "b_ptr")
    assert b8.dtype == "float8_e5m2" and b8.strides == (1, 48)
    assert _run(f8, N=32).grid == (4,)
    tr = trace_spec(f16, {})
    c = _map(tr, "c_ptr").reshape(48, 48)
    assert c[0, 0] == 0 and c[0, 16] == 1 and c[0, 47] == 2 and c[32, 0] == 3 and c[47, 47] == 5


def test_sizes_the_wrapper_cannot_tell_apart_change_together(tmp_path):
    src = (SCRIPTS / "square_matmul_autotune.py").read_text()
    p = tmp_path / "mm.py"
    p.write_text(src.replace('assert a.shape[1] == b.shape[0], "Incompatible dimensions"', "pass"))
    _, specs = open_script(str(p), "interpreter")
    # without the assert, a's K cannot be told from b's K by calling the wrapper: one size for all
    assert [x.name for x in specs[0].params if x.kind == "shape"] == ["M"]
    assert _run(specs[0], M=32).grid == (2,)


def test_a_wrapper_that_never_returns_when_called_again_keeps_its_sizes(tmp_path, monkeypatch):
    from kernels.script import specs as script_specs

    src = (SCRIPTS / "tuple_grid_positional.py").read_text()
    p = tmp_path / "again.py"
    p.write_text(src.replace("def scale(x, factor):\n", "calls = []\n\n\ndef scale(x, factor):\n"
                             "    calls.append(1)\n    while len(calls) > 1:\n        pass\n"))
    monkeypatch.setattr(script_specs, "_PROBE_BUDGET_S", 0.5)
    cap, (spec,) = open_script(str(p), "interpreter")
    rec = cap.launches[0]
    assert not rec.resizable and "scale() took over 0.5 s to call again here" in rec.resize_note
    assert _run(spec, BLOCK_SIZE=64).grid == (16,)
