"""The tutorial matrix's own logic (benchmarks/tutorial_matrix.py, benchmarks/_plain_run.py): the
plain-Python run counts a script's Triton launches, a tutorial that launches nothing as plain Python
and in Tilescope (10 below sm_100) is counted as behaving as the script does — not as a failure —,
and a re-run of a few rows folds into the stored matrix.

What breaks if these fail: docs/plain-scripts.md and the README count tutorial 10 as a tutorial
Tilescope cannot open, or count a tutorial stopped by its budget as one that launches nothing.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("tutorial_matrix", ROOT / "benchmarks" / "tutorial_matrix.py")
matrix = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(matrix)  # benchmarks/ is no package: loaded from its file
counts, launches_nothing_as_plain, main = matrix.counts, matrix.launches_nothing_as_plain, matrix.main
H200 = json.loads((ROOT / "docs" / "benchmarks" / "tutorial-matrix-h200.json").read_text())

TWO_LAUNCHES = """
    import torch, triton, triton.language as tl

    @triton.jit
    def fill(x, BLOCK: tl.constexpr):
        tl.store(x + tl.arange(0, BLOCK), tl.arange(0, BLOCK))

    x = torch.zeros(16)
    fill[(1,)](x, BLOCK=16)
    fill[(1,)](x, BLOCK=16)
"""


def _plain(tmp_path: Path, source: str) -> str:
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent(source))
    p = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "_plain_run.py"), str(script)], text=True,
                       capture_output=True, env={**os.environ, "TRITON_INTERPRET": "1"}, timeout=300)
    return p.stdout.strip().splitlines()[-1]


def test_the_plain_run_counts_the_launches(tmp_path):
    assert _plain(tmp_path, TWO_LAUNCHES) == "plain run: ran to its end; 2 Triton launches"
    assert _plain(tmp_path, "print('⛔ needs sm_100')\n") == "plain run: ran to its end; 0 Triton launches"


def test_a_script_that_launches_only_inside_its_benchmark_has_that_function_called_once(tmp_path):
    """Gluon 01, 03, 04, 08 launch nothing before their first ``do_bench``: as plain Python they
    would "run" with no kernel run at all; the function measured is called once, as the capture does."""
    inside = TWO_LAUNCHES.replace("    fill[(1,)](x, BLOCK=16)\n    fill[(1,)](x, BLOCK=16)\n", "") + \
        "    triton.testing.do_bench(lambda: fill[(1,)](x, BLOCK=16))\n    print('measured')\n"
    assert _plain(tmp_path, inside) == ("plain run: reached its benchmark (stopped there after one call of the "
                                        "function it measures (nothing launched before it)); 1 Triton launches")
    before = TWO_LAUNCHES + "    triton.testing.do_bench(lambda: fill[(1,)](x, BLOCK=16))\n"
    assert _plain(tmp_path, before) == "plain run: reached its benchmark (stopped there); 2 Triton launches"


def _row(name: str) -> dict:
    return next(r for r in H200 if r["tutorial"] == name)


def test_a_tutorial_that_launches_nothing_as_plain_python_is_not_a_failure():
    ten, one, eight = _row("10-block-scaled-matmul.py"), _row("01-vector-add.py"), _row("08-grouped-gemm.py")
    assert launches_nothing_as_plain(ten) and not launches_nothing_as_plain(one)
    assert not launches_nothing_as_plain(eight)
    counted = {**ten, "plain": {**ten["plain"], "launches": 3}}  # the runner saw launches: not the same
    assert not launches_nothing_as_plain(counted)
    cpu = {"tutorial": ten["tutorial"], "open": {"launches": 0, "error": "", "stopped":
                                                 "it launched no Triton kernel after asking the GPU's capability"}}
    assert launches_nothing_as_plain(cpu, ten)
    budget = {"tutorial": ten["tutorial"], "open": {"launches": 0, "error": "", "stopped": "stopped after 60 s"}}
    assert not launches_nothing_as_plain(budget, ten)  # still running is not "launches nothing"
    line = counts("H200", H200, H200)
    assert "1 launches nothing, as plain Python on the H200 does (10)" in line
    assert f"of {len(H200)} open with their first launch PASS" in line


def test_a_re_run_of_a_few_rows_is_folded_in(tmp_path, capsys, monkeypatch):
    into, new = tmp_path / "all.json", tmp_path / "rerun.json"
    into.write_text(json.dumps([_row("08-grouped-gemm.py"), _row("10-block-scaled-matmul.py")]))
    new.write_text(json.dumps([{"tutorial": "08-grouped-gemm.py", "first": {"verdict": "PASS"}}]))
    monkeypatch.setattr(sys, "argv", ["tutorial_matrix.py", "--merge", str(into), str(new)])
    assert main() == 0
    rows = {r["tutorial"]: r for r in json.loads(into.read_text())}
    assert rows["08-grouped-gemm.py"]["first"] == {"verdict": "PASS"}
    assert rows["08-grouped-gemm.py"]["plain"] == _row("08-grouped-gemm.py")["plain"]  # not re-run: kept
    assert rows["10-block-scaled-matmul.py"] == _row("10-block-scaled-matmul.py")


def test_a_tutorial_in_a_subfolder_given_by_a_relative_path_runs_as_plain_python(tmp_path, monkeypatch):
    """The Gluon tutorials (``DIR/gluon/*.py``): the runner's child works in the script's folder,
    so a relative path named that folder twice and every Gluon row "failed" on the H200."""
    sub = tmp_path / "tutorials" / "gluon"
    sub.mkdir(parents=True)
    (sub / "01-intro.py").write_text("import os\nprint('ran in', os.path.basename(os.getcwd()))\n")
    monkeypatch.chdir(tmp_path)
    row = matrix.plain_row(Path("tutorials/gluon/01-intro.py"), 300)
    assert row["verdict"] == "RUNS" and row["launches"] == 0, row
    assert row["printed"] == "ran in gluon" and row["message"] == "plain run: ran to its end; 0 Triton launches"


def test_the_h200_gluon_check_writes_its_json_as_it_goes(tmp_path):
    """benchmarks/h200_gluon_tutorials.py, run on the CPU through the same path: the plain run and
    the open (a launch captured, its first re-run checked) land in one JSON."""
    tut = tmp_path / "tuts"
    tut.mkdir()
    (tut / "fill.py").write_text(textwrap.dedent(TWO_LAUNCHES))
    p = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "h200_gluon_tutorials.py"), "--out", str(tmp_path / "out"),
                        "--backend", "interpreter", "--tutorials", str(tut), "--names", "fill", "--limit", "150",
                        "--plain-limit", "120", "--budget", "60"], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    report = json.loads((tmp_path / "out" / "h200_gluon.json").read_text())
    assert report["plain"]["fill.py"]["verdict"] in ("RUNS", "FAILS")  # no GPU driver here: it may fail
    row = report["open"]["fill.py"]
    assert row["open"]["launches"] == 2 and row["first"]["verdict"] == "PASS", row
    assert report["open_status"] == "exit 0" and report["versions"]["device"] == "no GPU"
