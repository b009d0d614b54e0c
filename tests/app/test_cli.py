"""The headless CLI: `python -m app list|run|sweep|bench` output, exit codes and error lines.

The verbs are run as a user runs them (a subprocess, started together to save time); the full
list of bad inputs goes through ``main(argv)`` in-process, which is the same code path.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import kernels.engine  # noqa: F401  (the in-process tests below run the engine: torch and triton load here)
from app.cli import main
from kernels.sources import userfile

ROOT = Path(__file__).resolve().parents[2]


def _start(args: list[str]) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen([sys.executable, "-m", "app", *args], cwd=ROOT, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


@pytest.fixture(scope="module")
def cli_runs() -> dict[str, subprocess.CompletedProcess]:
    """Every subprocess invocation of this file, started at once."""
    cmds = {
        "list": ["list"],
        "run": ["run", "vector_add", "--param", "BLOCK_SIZE=256", "--shape", "N=1000", "--num-warps", "2",
                "--backend", "interpreter"],
        "sweep": ["sweep", "vector_add", "--param", "BLOCK_SIZE=64,128,256", "--shape", "N=1000",
                  "--backend", "interpreter"],
        "bad_block": ["run", "vector_add", "--param", "BLOCK_SIZE=100", "--backend", "interpreter"],
    }
    procs = {k: _start(v) for k, v in cmds.items()}
    out = {}
    for k, p in procs.items():
        stdout, stderr = p.communicate(timeout=120)
        out[k] = subprocess.CompletedProcess(cmds[k], p.returncode, stdout, stderr)
    return out


def test_list_shows_the_catalog(cli_runs):
    r = cli_runs["list"]
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].split()[:3] == ["kernel", "title", "metric"]
    row = next(ln for ln in lines if ln.startswith("vector_add "))
    assert "GB/s" in row and "fp32,fp16,bf16" in row and "N=98432" in row


def test_run_prints_correctness_timing_and_notes(cli_runs):
    r = cli_runs["run"]
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "vector_add on CPU (Triton interpreter) [interpreter]" in out
    assert "BLOCK_SIZE=256 num_warps=2" in out and "N=1000" in out
    assert "(4,) = 4 programs" in out
    assert "PASS  out:" in out and "0 of 1000 mismatched, 0 unwritten" in out
    assert "interpreter wall clock (CPU), not GPU speed" in out
    assert "num_warps and num_stages have no effect under the interpreter" in out


def test_run_json_is_machine_readable(capsys):
    assert main(["run", "vector_mul", "-p", "BLOCK_SIZE=128", "-s", "N=300", "--json", "-b", "interpreter"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["kernel"] == "vector_mul" and d["backend"] == "interpreter" and d["grid"] == [3]
    assert d["check"]["passed"] is True and d["check"]["n_elements"] == 300
    assert d["check"]["error_map"] is None  # not kept for the CLI (and arrays never go to JSON)
    assert d["timing"]["is_interpreter"] is True and d["metrics"]["bytes_moved"] == 3600
    assert d["values"] == {"BLOCK_SIZE": 128, "num_warps": 4, "num_stages": 3, "N": 300, "dtype": "fp32"}


def test_sweep_table_marks_the_best(cli_runs):
    r = cli_runs["sweep"]
    assert r.returncode == 0, r.stderr
    rows = [ln for ln in r.stdout.splitlines() if ln[:3].strip() in ("64", "128", "256")]
    assert [ln.split()[0] for ln in rows] == ["64", "128", "256"]
    assert all(" pass " in ln for ln in rows)
    assert sum("* best" in ln for ln in rows) == 1
    best_row = next(ln for ln in rows if "* best" in ln)
    assert f"best: BLOCK_SIZE={best_row.split()[0]}" in r.stdout


def test_bad_input_in_a_subprocess_is_one_error_line(cli_runs):
    r = cli_runs["bad_block"]
    assert r.returncode == 2 and r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0] == "error: BLOCK_SIZE=100 must be a power of two (e.g. 64 or 128)"


def test_to_jsonable_leaves_arrays_out_and_spells_non_finite_floats():
    import numpy as np

    from app.cli import to_jsonable
    from kernels.data.results import CheckResult

    c = CheckResult(True, "out", "fp32", float("inf"), 0.0, 1e-4, 1e-4, 3, 0, 0, 0, 0,
                    error_map=np.zeros(3, np.float32))
    d = to_jsonable(c)
    assert "error_map" not in d and d["max_abs_err"] == "inf" and d["others"] == []
    json.dumps(d, allow_nan=False)  # strict JSON


BAD = [
    (["run", "no_such_kernel"], "unknown kernel 'no_such_kernel' (known:"),
    (["run", "vector_add", "--param", "FOO=3"], "unknown parameter 'FOO'"),
    (["run", "vector_add", "--param", "BLOCK_SIZE"], "--param expects NAME=VALUE, got 'BLOCK_SIZE'"),
    (["run", "vector_add", "--param", "BLOCK_SIZE=abc"], "BLOCK_SIZE: 'abc' is not an integer"),
    (["run", "vector_add", "--param", "BLOCK_SIZE=100"], "must be a power of two (e.g. 64 or 128)"),
    (["run", "vector_add", "--shape", "N=0"], "N=0: a size must be positive"),
    (["run", "vector_add", "--shape", "N=-7"], "N=-7: a size must be positive"),
    (["run", "vector_add", "--shape", "N=2000000000", "-b", "interpreter"], "too large for host memory"),
    (["run", "vector_add", "--shape", "BLOCK_SIZE=64"], "'BLOCK_SIZE' is not a shape of vector_add"),
    (["run", "vector_add", "--dtype", "int8"], "dtype 'int8' is not supported by this kernel"),
    (["run", "vector_add", "--file", "/no/such/file.py"], "kernel file not found: /no/such/file.py"),
    (["run", "vector_add", "--param", "BLOCK_SIZE=64,128"], "use `tilescope sweep`"),
    (["sweep", "vector_add", "--shape", "N=100"], "nothing to sweep"),
    (["sweep", "vector_add", "-p", "BLOCK_SIZE=64,128", "--num-warps", "1,2", "--num-stages", "1,2"],
     "at most two parameters"),
    (["bench"], "bench needs kernel names, --file FILE or --all"),
    (["frobnicate"], "invalid choice: 'frobnicate'"),
]


@pytest.mark.parametrize("argv, words", BAD, ids=[" ".join(a) for a, _ in BAD])
def test_bad_input_gives_one_error_line_and_exit_2(argv, words, capsys):
    code = main(argv)
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert code == 2
    assert len(lines) == 1 and lines[0].startswith("error: ") and words in lines[0], captured.err


@pytest.mark.skipif(__import__("torch").cuda.is_available(), reason="checks the no-GPU message")
def test_gpu_backend_without_cuda(capsys):
    assert main(["run", "vector_add", "--backend", "gpu"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: no CUDA device") and "--backend interpreter" in err


def test_bf16_on_the_interpreter_is_refused_clearly(capsys):
    assert main(["run", "vector_add", "--dtype", "bf16", "-b", "interpreter", "-s", "N=64"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: bf16 is refused under the interpreter") and "\n" not in err


def test_a_failing_check_exits_1_with_the_table(tmp_path, capsys):
    # a user kernel that never stores its last block
    src = (ROOT / "tests" / "kernels" / "test_userfile.py").read_text()
    good = src.split("GOOD = '''", 1)[1].split("'''", 1)[0]
    bad = good.replace("NAME", "cli_bad").replace("mask = offs < n", "mask = offs < n - 7")
    f = tmp_path / "bad_kernel.py"
    f.write_text(bad)
    try:
        code = main(["run", "cli_bad", "--file", str(f), "-s", "N=100", "-b", "interpreter"])
    finally:
        userfile.unload(f)
    out = capsys.readouterr().out
    assert code == 1
    assert "FAIL  out:" in out and "7 unwritten" in out and "7 of 100 elements are still NaN" in out


def test_bench_on_the_interpreter_in_process(capsys):
    assert main(["bench", "vector_add", "-b", "interpreter"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].split()[:3] == ["kernel", "case", "check"]
    assert "vector_add" in out and "pass" in out and "shapes shrunk for the interpreter" in out


def test_no_verb_opens_the_gui_or_says_why(capsys, monkeypatch):
    import app.cli as cli

    opened = []
    fake = type(sys)("app.gui")
    fake.main = lambda argv: opened.append(argv) or 0
    monkeypatch.setitem(sys.modules, "app.gui", fake)
    assert cli.main([]) == 0 and opened == [[]]
    assert cli.main(["--kernel", "matmul"]) == 0 and opened[-1] == ["--kernel", "matmul"]
    monkeypatch.setitem(sys.modules, "app.gui", None)  # import fails
    assert cli.main([]) == 2
    assert capsys.readouterr().err.startswith("error: the GUI")


def test_trace_too_large_is_refused_up_front(capsys):
    # 6e9 elements of maps would never fit the pipe or the host: one clear line, exit 2, at once
    assert main(["trace", "vector_add", "-s", "N=2000000000"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: too large to trace")


# -- plain scripts ------------------------------------------------------------------------------------

SCRIPTS = ROOT / "tests" / "kernels" / "scripts"


def test_open_lists_a_scripts_launches_numbered(capsys):
    assert main(["open", str(SCRIPTS / "autotune_heuristics_two_kernels.py"), "-b", "interpreter"]) == 0
    out = capsys.readouterr().out
    assert "2 launch(es) captured" in out
    assert "1. autotune_heuristics_two_kernels.relu_kernel" in out and "autotune: 2 configs, #0 ran" in out
    assert "2. autotune_heuristics_two_kernels.neg_kernel" in out and "grid: inferred rule cdiv(n, BLOCK)" in out


def test_run_and_trace_take_a_file_and_a_launch_number(capsys):
    f = str(SCRIPTS / "autotune_heuristics_two_kernels.py")
    assert main(["run", "--file", f, "--launch", "2", "-b", "interpreter", "-p", "BLOCK=256", "--no-torch"]) == 0
    out = capsys.readouterr().out
    assert "autotune_heuristics_two_kernels.neg_kernel" in out and "(4,) = 4 programs" in out and "PASS" in out
    assert main(["trace", "--file", str(SCRIPTS / "matmul_2d.py"), "-p", "BM=16"]) == 0
    assert "grid 5x4x1 = 20 programs" in capsys.readouterr().out
    assert main(["run", "--file", f, "--launch", "3", "-b", "interpreter"]) == 2
    assert "--launch 3 is not one of 1..2" in capsys.readouterr().err


def test_a_script_path_opens_the_window_with_that_file(capsys, monkeypatch):
    opened = []
    fake = type(sys)("app.gui")
    fake.main = lambda argv: opened.append(argv) or 0
    monkeypatch.setitem(sys.modules, "app.gui", fake)
    f = str(SCRIPTS / "matmul_2d.py")
    assert main([f]) == 0 and opened == [["--file", f]]


def test_compile_for_a_target_without_a_gpu(capsys):
    assert main(["compile", "vector_add", "--target", "sm_90", "-p", "BLOCK_SIZE=256"]) == 0
    out = capsys.readouterr().out
    assert "vector_add for sm_90 (compiled here, no GPU needed)" in out and "n_regs" in out and "limited by" in out
    assert main(["compile", "vector_add", "--target", "sm_80", "--show", "ptx"]) == 0
    assert ".target sm_80" in capsys.readouterr().out
    assert main(["compile", "vector_add", "--target", "sm_95"]) == 2
    assert "sm_95" in capsys.readouterr().err


def test_lesson_check_exits_0_on_a_passing_file_and_1_with_the_reason(tmp_path, capsys):
    assert main(["lesson", "start", "grid", str(tmp_path)]) == 0
    starter = tmp_path / "03_grid.py"
    assert starter.exists()
    capsys.readouterr()
    assert main(["lesson", "check", "grid", str(starter)]) == 1
    assert "never written" in capsys.readouterr().out
    solution = ROOT / "resources" / "lessons" / "03_grid" / "solution.py"
    assert main(["lesson", "check", "grid", str(solution), "--lang", "zh_CN"]) == 0
    assert capsys.readouterr().out.startswith("PASS")


def test_trace_on_the_gpu_without_cuda_is_one_clear_line(capsys):
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    assert main(["trace", "vector_add", "--backend", "gpu"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: the GPU recorder needs a CUDA device") and err.count("\n") == 1
    assert main(["trace", "vector_add", "--timeline"]) == 2
    assert "--timeline needs --backend gpu" in capsys.readouterr().err
