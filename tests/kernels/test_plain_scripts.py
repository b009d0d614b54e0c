"""Plain Triton scripts opened as they are: launches captured, re-run with changed values, checked
against the captured outputs, traced. The scripts under tests/kernels/scripts are written the way
the tutorials write them (device='cuda', no import of Tilescope); here they run on the CPU.

What breaks if these fail: a user's own script no longer opens, relaunches with a wrong grid, is
checked against the wrong reference, or a hostile script (prints, raises, never ends) takes the
capture down with it."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from kernels import engine
from kernels.data.results import RunRequest
from kernels.script import open_script
from kernels.trace import trace_spec

SCRIPTS = Path(__file__).parent / "scripts"


def _open(name: str, **kw):
    cap, specs = open_script(str(SCRIPTS / name), "interpreter", **kw)
    return cap, specs


def _run(spec, **values):
    r = engine.run(RunRequest(spec.name, values, backend="interpreter"))
    assert r.error is None, r.error
    return r


def _writer(tr, tensor: str) -> np.ndarray:
    i = [t.name for t in tr.tensors].index(tensor)
    return tr.maps[i].writer


def test_fixed_tuple_grid_with_a_positional_wrapper_local_block_size():
    cap, (spec,) = _open("tuple_grid_positional.py")
    rec = cap.launches[0]
    assert rec.kernel == "scale_kernel" and rec.grid == (8,) and rec.wrapper == "scale"
    assert rec.grid_rule == ("cdiv(n, BLOCK_SIZE)",) and "inferred rule" in rec.grid_note
    assert rec.written == ["out_ptr"] and rec.call_site == "tuple_grid_positional.py:20"
    # a changed block size re-grids by the inferred rule and still matches the captured outputs
    r = _run(spec, BLOCK_SIZE=32, num_warps=8)
    assert r.grid == (32,) and r.check.passed and r.check.n_unwritten == 0
    # a changed size re-drives the wrapper: new random inputs, the script's own config as reference
    r = _run(spec, n=300, BLOCK_SIZE=64)
    assert r.grid == (5,) and r.check.passed and r.check.n_elements == 300
    tr = trace_spec(spec, {"BLOCK_SIZE": 256})
    w = _writer(tr, "out_ptr")
    assert tr.grid == (4, 1, 1) and w[0] == 0 and w[255] == 0 and w[256] == 1 and w[999] == 3


def test_meta_lambda_reading_a_kernel_argument_and_a_jit_helper():
    cap, (spec,) = _open("meta_lambda_reads_arg.py")
    rec = cap.launches[0]
    assert rec.grid_kind == "callable" and rec.grid == (10,)  # cdiv(37 rows, ROWS=4)
    assert spec.grid_exprs == ("cdiv(n_rows, ROWS)",)
    r = _run(spec, ROWS=8)
    assert r.grid == (5,) and r.check.passed
    tr = trace_spec(spec, {"ROWS": 8})
    w = _writer(tr, "out_ptr").reshape(37, 50)
    assert (w[:8] == 0).all() and (w[8:16] == 1).all() and (w[32:] == 4).all()


def test_module_level_launch_without_a_main_block_keeps_its_sizes():
    cap, (spec,) = _open("module_level.py")
    rec = cap.launches[0]
    assert rec.wrapper == "" and not rec.resizable and "fixed" in rec.resize_note
    assert not any(p.kind == "shape" for p in spec.params)
    assert spec.grid_exprs == ("cdiv(300, BLOCK)",)  # the GUI knows the program count before a launch
    r = _run(spec, BLOCK=128)
    assert r.grid == (3,) and r.check.passed


def test_two_d_grid_matmul_with_a_transposed_input():
    cap, (spec,) = _open("matmul_2d.py")
    rec = cap.launches[0]
    b = next(a for a in rec.args if a.name == "b_ptr")
    assert b.shape == (40, 50) and b.strides == (1, 40)  # the transposed view, as the script passed it
    assert rec.grid == (3, 4) and rec.grid_rule == ("cdiv(M, BM)", "cdiv(N, BN)")
    r = _run(spec, BM=16, BN=32)
    assert r.grid == (5, 2) and r.check.passed
    r = _run(spec, M=33, N=20, K=24)  # new sizes: the wrapper makes a transposed b again
    assert r.grid == (2, 2) and r.check.passed and r.check.n_elements == 33 * 20
    tr = trace_spec(spec, {})
    c = _writer(tr, "c_ptr").reshape(70, 50)
    # program (x=pid_m, y=pid_n) -> linear id x + 3*y writes rows 32x.., cols 16y..
    assert c[0, 0] == 0 and c[40, 0] == 1 and c[0, 20] == 3 and c[69, 49] == 2 + 3 * 3
    a_reads = tr.maps[[t.name for t in tr.tensors].index("b_ptr")]
    assert int(a_reads.n_reads.min()) >= 1  # every element of the strided b was read


def test_autotune_heuristics_and_two_kernels_in_one_script():
    cap, specs = _open("autotune_heuristics_two_kernels.py")
    assert [s.name for s in specs] == ["autotune_heuristics_two_kernels.relu_kernel",
                                       "autotune_heuristics_two_kernels.neg_kernel"]
    relu, neg = cap.launches
    assert len(relu.autotune_configs) == 2 and relu.autotune_choice == 0 and relu.heuristics == ["EVEN"]
    assert relu.grid == (16,)  # config 0: BLOCK 64
    r = _run(specs[0], autotune_config=1)  # the other config: BLOCK 256, its num_warps
    assert r.grid == (4,) and r.check.passed
    r = _run(specs[0], n=1024, BLOCK=64)  # EVEN is re-evaluated by the heuristic at the new size
    assert r.grid == (16,) and r.check.passed
    assert neg.grid == (8,) and _run(specs[1], BLOCK=512).grid == (2,)


def test_a_script_that_prints_a_hundred_thousand_lines():
    cap, (spec,) = _open("prints_a_lot.py")
    assert cap.log_lines == 100_001 and "line 0" in cap.log and "done" in cap.log
    assert len(cap.log) < 20_000  # first and last lines kept, not the flood
    assert _run(spec).check.passed


def test_a_script_that_raises_after_its_first_launch_keeps_the_launch():
    cap, (spec,) = _open("raises_after_launch.py")
    assert "raises_after_launch.py:15: RuntimeError" in cap.error
    assert len(cap.launches) == 1 and _run(spec, BLOCK=16).grid == (4,)


def test_a_script_with_while_true_is_stopped_after_its_budget():
    cap, (spec,) = _open("while_true.py", budget_s=1.0)
    assert "stopped after 1 s" in cap.stopped and len(cap.launches) == 1
    # an in-place kernel (x += 1): x is restored before each launch, not poisoned
    assert spec.inplace == ("x_ptr",) and _run(spec).check.passed


def test_user_file_loading_opens_a_plain_script(tmp_path):
    from kernels.sources import userfile

    src = (SCRIPTS / "tuple_grid_positional.py").read_text()
    p = tmp_path / "mine.py"
    p.write_text(src)
    specs = userfile.load(str(p))
    assert [s.name for s in specs] == ["mine.scale_kernel"] and specs[0].origin == os.path.realpath(p)
    r = engine.run(RunRequest("mine.scale_kernel", {"BLOCK_SIZE": 64}, backend="interpreter", user_file=str(p)))
    assert r.ok and r.check.passed and r.grid == (16,)


def test_a_script_that_launches_nothing_says_so(tmp_path):
    from kernels.data.errors import UserFileError
    from kernels.sources import userfile

    p = tmp_path / "nothing.py"
    p.write_text("import triton\nprint('hello')\n")
    with pytest.raises(UserFileError, match="launched no Triton kernel"):
        userfile.load(str(p))


def test_a_captured_launch_exports_a_reproducer_that_runs_without_tilescope(tmp_path):
    import subprocess
    import sys

    from kernels.script import live_launch
    from kernels.script.reproducer import export_reproducer

    cap, (spec,) = _open("meta_lambda_reads_arg.py")
    path = export_reproducer(live_launch(cap.path, 0), str(tmp_path), "row_sq_repro", (1e-5, 1e-5))
    text = Path(path).read_text()
    assert "def _square" in text and "row_sq_kernel[(10, 1, 1)]" in text
    assert "import kernels" not in text and "from kernels" not in text  # standalone
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = subprocess.run([sys.executable, path], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "out_ptr: matches the captured output" in out.stdout
