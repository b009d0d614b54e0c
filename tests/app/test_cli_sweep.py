"""``tilescope sweep`` with more than two parameters (a tune sweep) on the interpreter.

The 3-axis sweep is run as a user runs it (a subprocess); the other cases go through
``main(argv)`` in this process, which is the same code path.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import kernels.engine  # noqa: F401  (the in-process tests run the engine: torch and triton load here)
from app.cli import main

ROOT = Path(__file__).resolve().parents[2]
#: vector_add over BLOCK_SIZE x N x dtype (12 combinations); the constraint removes BLOCK_SIZE=128 at N=64
THREE_AXES = ["sweep", "vector_add", "-p", "BLOCK_SIZE=32,64,128", "-s", "N=64,256", "--dtype", "fp32,fp16",
              "--where", "BLOCK_SIZE <= N", "-b", "interpreter"]


@pytest.fixture(scope="module")
def three_axes() -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "app", *THREE_AXES], cwd=ROOT, env=env, text=True,
                          capture_output=True, timeout=300)


def test_three_axes_print_each_point_then_the_ranking_and_verdicts(three_axes):
    # breaks if points are not streamed in order, the ranking loses its spread, or a data group
    # (N, dtype) gets no verdict
    r = three_axes
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "tune sweep of vector_add on CPU (Triton interpreter) [interpreter] (3 parameters vary, --where)" in out
    points = [ln for ln in out.splitlines() if re.match(r"\[\s*\d+/10\]", ln)]
    assert [int(re.match(r"\[\s*(\d+)", ln).group(1)) for ln in points] == list(range(1, 11))
    assert all("  pass  " in ln and " ms" in ln for ln in points)
    assert out.index(points[-1]) < out.index("ranking (fastest first, per data group)")
    header = next(ln for ln in out.splitlines() if ln.startswith("rank "))
    assert header.split()[:5] == ["rank", "group", "BLOCK_SIZE", "N", "dtype"] and "p20–p80 ms" in header
    verdicts = [ln for ln in out.splitlines() if ln.startswith("verdict: ")]
    assert len(verdicts) == 4 and all("winner BLOCK_SIZE=" in v for v in verdicts)
    assert re.search(r"10 configs run in [\d.]+ s: [\d,.]+ configs/minute", out)
    assert "pruned before compiling: 0; removed by --where: 2" in out


def test_where_removes_the_combinations_it_excludes(three_axes):
    # breaks if --where is ignored (BLOCK_SIZE=128 would run at N=64) or miscounted
    out = three_axes.stdout
    assert "space: BLOCK_SIZE (3) × N (2) × dtype (2) = 12 combinations, 2 removed by --where: 10 to run" in out
    ran = [ln for ln in out.splitlines() if ln.startswith("[")]
    assert not [ln for ln in ran if "BLOCK_SIZE=128" in ln and re.search(r"\bN=64\b", ln)]
    assert len([ln for ln in ran if "BLOCK_SIZE=128" in ln]) == 2


def test_export_autotune_writes_a_decorator_that_compiles_and_tunes(tmp_path, capsys):
    # breaks if the exported text is not Python, names configs the kernel does not take, or
    # cannot drive Triton's own autotuner
    out = tmp_path / "tuned.py"
    code = main(["sweep", "vector_add", "-p", "BLOCK_SIZE=64,128", "-s", "N=300", "--export", "autotune",
                 "--out", str(out), "-b", "interpreter"])
    printed = capsys.readouterr().out
    assert code == 0 and f"@triton.autotune decorator written to {out}" in printed
    text = out.read_text()
    assert text.count("triton.Config(") == 2 and "key=['n_elements']" in text
    check = textwrap.dedent(f"""
        import inspect, textwrap, torch, triton, triton.language as tl
        from kernels.catalog.elementwise import binary_kernel
        src = open({str(out)!r}).read() + textwrap.dedent(inspect.getsource(binary_kernel.fn))
        ns = {{"triton": triton, "tl": tl}}
        exec(compile(src, "tuned.py", "exec"), ns)
        k = ns["binary_kernel"]
        assert type(k).__name__ == "Autotuner" and [c.kwargs["BLOCK_SIZE"] for c in k.configs]
        k._do_bench = lambda call, quantiles: (call(), [1.0, 1.0, 1.0])[1]  # no GPU timer on the CPU
        x, y, o = torch.randn(300), torch.randn(300), torch.empty(300)
        k[lambda m: (triton.cdiv(300, m["BLOCK_SIZE"]),)](x, y, o, 300, IS_MUL=False)
        assert torch.allclose(o, x + y)
        print("ok", k.best_config.kwargs)
    """)
    env = dict(os.environ, PYTHONPATH=str(ROOT), TRITON_INTERPRET="1")
    r = subprocess.run([sys.executable, "-c", check], cwd=ROOT, env=env, text=True, capture_output=True, timeout=300)
    assert r.returncode == 0 and r.stdout.startswith("ok "), r.stderr[-2000:]


def test_export_triton_op_prints_the_module(capsys):
    code = main(["sweep", "vector_add", "-p", "BLOCK_SIZE=64,128", "-s", "N=300", "--mode", "tune",
                 "--export", "triton_op", "-b", "interpreter"])
    out = capsys.readouterr().out
    assert code == 0 and "# --export triton_op: torch.library.triton_op module" in out
    module = out.split("# --export triton_op: torch.library.triton_op module\n", 1)[1]
    compile(module, "tuned_op.py", "exec")  # a whole module, as printed


def test_num_warps_axis_is_refused_on_the_interpreter(capsys):
    # breaks if the interpreter times num_warps values that cannot differ, or says so in more than one line
    code = main(["sweep", "vector_add", "-p", "BLOCK_SIZE=64,128", "--num-warps", "2,4,8", "-s", "N=256",
                 "--mode", "tune", "-b", "interpreter"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1
    assert err[0].startswith("error: num_warps has no effect under the interpreter") and "on a GPU" in err[0]


def test_json_has_the_ranking_and_the_counts(capsys):
    code = main(["sweep", "matmul", "-p", "BLOCK_M=16,32", "-p", "BLOCK_N=16,32", "-p", "BLOCK_K=16,32", "-s", "M=32",
                 "-s", "N=32", "-s", "K=32", "--where", "BLOCK_M * BLOCK_N * BLOCK_K <= 8192", "--json",
                 "-b", "interpreter"])
    d = json.loads(capsys.readouterr().out)
    assert code == 0 and d["request"]["mode"] == "tune" and d["filtered"] == 4 and len(d["points"]) == 4
    assert d["names"] == ["BLOCK_M", "BLOCK_N", "BLOCK_K"] and [e["rank"] for e in d["ranking"]] == [1, 2, 3, 4]
    assert set(d["exports"]) == {"autotune", "triton_op"} and d["verdicts"][0].startswith("winner ")


def test_target_prunes_what_cannot_fit_and_says_why(capsys):
    # breaks if a config too large for the named GPU is compiled anyway, or pruned without its reason
    code = main(["sweep", "matmul", "-p", "BLOCK_M=16,256", "-p", "BLOCK_N=16,256", "-p", "BLOCK_K=16", "-s", "M=32",
                 "-s", "N=32", "-s", "K=32", "--where", "BLOCK_M == BLOCK_N", "--target", "sm_90",
                 "-b", "interpreter"])
    out = capsys.readouterr().out
    assert code == 0
    line = next(ln for ln in out.splitlines() if "BLOCK_M=256" in ln and ln.startswith("["))
    assert "pruned: registers: the 256x256 fp32 accumulator alone needs" in line
    assert "pruned before compiling: 1" in out and "1 of them pruned before compiling" in out


BAD = [
    (["sweep", "vector_add", "--config", "BLOCK_SIZE"], "--config expects NAME=VALUE"),
    (["sweep", "vector_add", "-p", "BLOCK_SIZE=64,128", "--out", "x.py"], "--out writes an export"),
    (["sweep", "vector_add", "-p", "BLOCK_SIZE=64,128", "--where", "BLOCK_SIZE <", "-b", "interpreter"],
     "not an expression"),
    (["sweep", "vector_add", "-p", "BLOCK_SIZE=64,128", "--mode", "grid", "--where", "N > 0"],
     "--where, --config and --export are for a tune sweep"),
    (["sweep", "vector_add", "-p", "BLOCK_SIZE=64,128", "--where", "FOO > 1", "-b", "interpreter"], "FOO"),
    (["sweep", "vector_add", "-p", "BLOCK_SIZE=64,128", "--target", "sm_999x", "-b", "interpreter"],
     "unknown target"),
]


@pytest.mark.parametrize("argv, words", BAD, ids=[" ".join(a[2:]) for a, _ in BAD])
def test_bad_tune_input_is_one_error_line_and_exit_2(argv, words, capsys):
    code = main(argv)
    lines = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith("error: ") and words in lines[0], lines


def test_a_grid_sweep_of_num_warps_on_the_interpreter_warns_in_one_line(capsys):
    # breaks if the interpreter times num_warps values that cannot differ without saying so (or says
    # it more than once, or on a GPU-free sweep of a parameter that does matter)
    code = main(["sweep", "vector_add", "--num-warps", "2,4", "-s", "N=256", "-p", "BLOCK_SIZE=64",
                 "-b", "interpreter"])
    captured = capsys.readouterr()
    warnings = [ln for ln in captured.err.splitlines() if ln.startswith("warning:")]
    assert code == 0 and len(warnings) == 1, captured.err
    assert "num_warps has no effect under the interpreter" in warnings[0] and "on a GPU" in warnings[0]
    assert len(re.findall(r"^\s*[24]\s", captured.out, re.M)) >= 2  # the table is still printed
    main(["sweep", "vector_add", "-p", "BLOCK_SIZE=64,128", "-s", "N=256", "-b", "interpreter"])
    assert "warning:" not in capsys.readouterr().err
