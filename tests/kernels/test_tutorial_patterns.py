"""The rest of Triton's tutorials, as patterns in small scripts of ours
(tests/kernels/scripts/tutorial_patterns), opened on the CPU (docs/plain-scripts.md, "The tutorial
matrix"):

- device checks (the 1-hour course's ``assert x.is_cuda``, ``x.device.type``, capability, device
  properties, ``torch.cuda.Event`` timing) answered by the virtual GPU;
- a pointer table (tutorial 08): the tensors behind ``data_ptr()`` values found, checked, restored
  and traced like arguments;
- host and device tensor descriptors (06, 09), ``tl.rand`` (04), libdevice (07), a persistent grid
  with programmatic dependent launch (09, 11), a Gluon kernel;
- the one-line answers: no launch, a package that is not installed, a GPU the virtual one is not.

What breaks if these fail: a tutorial stops before its first launch without a GPU, a grouped GEMM
re-run writes the script's own tensors and checks nothing, or a user reads "internal error"."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from kernels import engine
from kernels.data.results import RunRequest
from kernels.script import open_script
from kernels.trace import trace_spec

SCRIPTS = Path(__file__).parent / "scripts" / "tutorial_patterns"


def _open(name: str, **kw):
    return open_script(str(SCRIPTS / name), "interpreter", **kw)


def _ok(name: str):
    cap, specs = _open(name)
    assert cap.error == "" and cap.stopped == "", (cap.error, cap.stopped)
    return cap, specs


def _run(spec, **values):
    r = engine.run(RunRequest(spec.name, values, backend="interpreter", bench=False, torch_baseline=False))
    assert r.error is None, r.error
    assert r.check is not None and r.check.passed and r.check.n_unwritten == 0, r.check and r.check.reason
    return r


def _checked(r) -> set[str]:
    return {r.check.output} | {o.output for o in r.check.others}


def _writer(tr, tensor: str) -> np.ndarray:
    return tr.maps[[t.name for t in tr.tensors].index(tensor)].writer


def test_device_checks_answered_as_on_an_h200_and_another_gpu_on_request(monkeypatch):
    cap, (spec,) = _ok("device_checks.py")
    assert "sm_90, 132 SMs" in cap.log  # capability and properties of the virtual H200, Event timing harmless
    assert cap.launches[0].wrapper == "add"  # `assert x.is_cuda and y.is_cuda` passed in add()
    _run(spec)
    _run(spec, BLOCK_SIZE=128, num_warps=8)
    _run(spec, n=333)  # add() called again for new sizes: its asserts pass there too
    monkeypatch.setenv("TILESCOPE_VIRTUAL_GPU", "sm_100")
    cap, _ = _ok("device_checks.py")
    assert "sm_100, 148 SMs" in cap.log


def test_pointer_table_tensors_found_checked_and_traced():
    cap, (spec,) = _ok("pointer_table.py")
    rec = cap.launches[0]
    assert sorted(rec.written) == ["*y_ptrs[0]", "*y_ptrs[1]", "*y_ptrs[2]"]
    assert {a.name for a in rec.args} >= {"*x_ptrs[0]", "*x_ptrs[1]", "*x_ptrs[2]"}
    r = _run(spec)
    assert _checked(r) == {"*y_ptrs[0]", "*y_ptrs[1]", "*y_ptrs[2]"}
    assert r.check.n_elements + sum(o.n_elements for o in r.check.others) == 300 + 1000 + 64
    _run(spec, BLOCK=256)  # the grid stays (8,) as the script computed it: 256-wide programs cover every group
    tr = trace_spec(spec, {})
    assert not tr.oob and int(tr.events.n_oob.sum()) == 0  # no false out-of-bounds "near x_ptrs"
    w = _writer(tr, "*y_ptrs[1]")
    assert (w.reshape(-1) == np.arange(1000) // 128).all()  # program p wrote elements 128p..128p+127


def test_an_autotuned_pointer_table_kernel():
    cap, (spec,) = _ok("pointer_table_autotuned.py")
    assert sorted(cap.launches[0].written) == ["*y_ptrs[0]", "*y_ptrs[1]", "*y_ptrs[2]"]
    _run(spec)
    _run(spec, autotune_config=1)


def test_host_and_device_tensor_descriptors_rerun_and_trace():
    cap, (host, device) = _ok("tensor_descriptor.py")
    assert cap.launches[0].written == ["out_desc.base"] and cap.launches[1].written == ["y_ptr"]
    assert "descriptors match" in cap.log
    for spec in (host, device):
        _run(spec)
        r = _run(spec, BM=16)
        assert tuple(r.grid)[:2] == (6, 4)  # cdiv(M, BM), cdiv(N, BN): the descriptor's block follows BM
        tr = trace_spec(spec, {})
        assert not tr.oob and tr.grid == (3, 4, 1)
    w = _writer(trace_spec(host, {}), "out_desc.base")  # descriptor stores are traced: tile (pm, pn) by pm + 3 pn
    rows, cols = np.indices((96, 256))
    assert (w.reshape(96, 256) == rows // 32 + 3 * (cols // 64)).all()


def test_autotune_pre_hook_sets_the_descriptor_blocks_of_each_run():
    cap, (spec,) = _ok("descriptor_prehook.py")
    assert cap.launches[0].written == ["yt_desc.base"] and "transpose matches" in cap.log
    _run(spec)
    _run(spec, autotune_config=1)  # 16x64 tiles
    _run(spec, BM=64)  # the hook makes yt's block [BN, BM] = [32, 64]; matching equal values would give [64, 32]


def test_rand_dropout_is_reproducible_on_rerun():
    cap, specs = _ok("dropout_rand.py")
    assert len(specs) == 2 and "kept 0." in cap.log
    _run(specs[0])
    _run(specs[0], BLOCK_SIZE=128)  # tl.rand(seed, offsets) depends on the offsets only: same mask


def test_libdevice_function_runs_on_the_cpu():
    cap, (spec,) = _ok("libdevice_asin.py")
    assert "asin matches" in cap.log
    _run(spec, BLOCK_SIZE=64)


def test_unknown_extern_function_is_named():
    from kernels.interp import _triton

    assert _triton._extern_name("__nv_asinf") == "asin" and _triton._extern_name("__nv_fast_expf") == "exp"
    assert _triton._extern_name("__nv_fdiv_rn") == "fdiv" and _triton._extern_name("__nv_brevll") is None


def test_persistent_grid_with_programmatic_dependent_launch():
    cap, (spec,) = _ok("persistent_pdl.py")
    rec = cap.launches[0]
    assert rec.grid == (132,) and rec.options.get("launch_pdl") is True
    _run(spec)
    tr = trace_spec(spec, {})
    w = _writer(tr, "out_ptr").reshape(-1)
    assert (w == (np.arange(50_000) // 128) % 132).all()  # tile t written by program t mod 132


def test_gluon_kernel_on_the_cpu_says_what_it_needs():
    cap, specs = _open("gluon_copy.py")
    assert not specs
    assert "gluon_copy.py:20" in cap.error and "Gluon" in cap.error and "GPU" in cap.error
    assert "internal error" not in cap.error.lower()


def test_a_script_launching_only_inside_its_benchmark_gives_that_launch():
    cap, (spec,) = _open("bench_only.py")
    assert "reached its benchmark" in cap.stopped and cap.launches[0].wrapper == "scale"
    assert cap.launches[0].args[0].shape == (300,)  # the benchmark's first point, N=300
    assert any("launched nothing before its benchmark" in n for n in cap.notes)
    _run(spec)


def test_a_budget_that_ends_inside_a_launch_names_it(tmp_path):
    script = tmp_path / "slow.py"
    script.write_text(
        "import torch, triton, triton.language as tl\n"
        "@triton.jit\n"
        "def slow_kernel(out_ptr, n):\n"
        "    acc = 0\n"
        "    for i in range(n):\n"
        "        acc += i\n"
        "    tl.store(out_ptr, acc)\n"
        "out = torch.empty(1, dtype=torch.int32, device='cuda')\n"
        "slow_kernel[(1,)](out, 10_000_000)\n")
    cap, specs = open_script(str(script), "interpreter", budget_s=2)
    assert not specs
    assert "stopped after 2 s" in cap.stopped and "inside the launch of slow_kernel (grid 1×1×1) at slow.py:9" \
        in cap.stopped and "--budget" in cap.stopped, cap.stopped


@pytest.mark.parametrize(("script", "expect"), [
    ("no_launch.py", "ran to its end"),
    ("missing_package.py", "pip install tilescope_absent_pkg"),
    ("needs_blackwell.py", "--virtual-gpu sm_100 (TILESCOPE_VIRTUAL_GPU=sm_100)"),
    ("raises_without_hopper.py", "requires a Blackwell NVIDIA GPU (it had asked the GPU's capability at "
     "raises_without_hopper.py:4: the virtual GPU is sm_90, NVIDIA H200; another: --virtual-gpu sm_100 "
     "(TILESCOPE_VIRTUAL_GPU=sm_100))"),
])
def test_one_line_answers(script, expect):
    cap, specs = _open(script)
    assert not specs
    answer = cap.error or cap.stopped or "it ran to its end"
    assert expect in answer and "\n" not in answer, answer
    if script == "needs_blackwell.py":
        assert "needs_blackwell.py:13" in answer and "sm_90" in answer


def test_only_tables_of_live_tensors_addresses_are_pointer_tables():
    import torch

    from kernels.script import pointer_tables

    a, b = torch.zeros(100), torch.zeros(7, 3)[:, 1]  # b: a strided view, addressed at its first element
    table = torch.tensor([a.data_ptr(), 0, b.data_ptr()])  # a null entry is allowed
    sizes = torch.tensor([100, 300, 7])  # small integers: sizes, not addresses
    stale = torch.tensor([a.data_ptr(), (1 << 62) + 16])  # the second points at no storage
    found = pointer_tables.find({"table": table, "sizes": sizes, "stale": stale, "n": 3})
    assert [(r.name, r.offset) for r in found] == [("*table[0]", 0), ("*table[2]", 0)]
    assert found[0].tensor is a and found[1].tensor.data_ptr() == b.data_ptr()
    copies = {"*table[0]": a.clone(), "*table[2]": b.clone()}
    rebuilt = pointer_tables.rebuild({"table": table}, found, copies)["table"]
    assert rebuilt.tolist() == [copies["*table[0]"].data_ptr(), 0, copies["*table[2]"].data_ptr()]
