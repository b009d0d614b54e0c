"""``tilescope why``: the findings printed most severe first with their line, evidence and what
became of the advice; ``--json`` carries each finding's status; a user's kernel file works
through the worker.

What breaks if these fail: the command prints nothing useful for a known slow kernel, calls a
compile-checked proposal measured, or cannot read a kernel file."""

from __future__ import annotations

import json
from pathlib import Path

from app.cli import main

VARIANTS = str(Path(__file__).resolve().parents[2] / "benchmarks" / "advisor_variants.py")


def test_why_names_the_narrow_access_first_and_checks_the_proposal(capsys):
    assert main(["why", "vector_add", "-p", "BLOCK_SIZE=64", "-s", "N=65536", "--programs", "2", "--try"]) == 0
    out = capsys.readouterr().out
    first = next(ln for ln in out.splitlines() if ln.startswith("1. "))
    assert first == "1. [high] line 24: 64 elements for 128 threads, 32-bit accesses (line 24)"
    assert "proposal: a larger block (BLOCK_SIZE 64 -> 1024)" in out
    assert "advice: checked by compiling BLOCK_SIZE=1024: the finding is gone (not timed)" in out
    assert "not checked: roofline position (needs GPU timing" in out


def test_why_json_and_a_kernel_file(capsys):
    assert main(["why", "column_copy", "--file", VARIANTS, "-s", "M=256", "-s", "N=256", "-p", "BLOCK=256",
                 "--programs", "2", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    first = data["findings"][0]
    assert first["rule"] == "uncoalesced" and first["severity"] == "high" and first["status"] == "not tried"
    assert first["proposal"]["kind"] == "variant" and first["proposal"]["changes"] == {"BY_ROWS": True}
    assert first["evidence"]["sectors_per_request"] == 32.0 and first["evidence"]["lane_stride_bytes"] == 1024


def test_why_refuses_a_bad_value_in_one_line(capsys):
    assert main(["why", "vector_add", "-p", "BLOCK_SIZE=banana"]) == 2
    assert capsys.readouterr().err.startswith("error:")


def test_why_on_the_gpu_backend_without_a_gpu_is_refused_in_one_line(capsys):
    import torch

    if torch.cuda.is_available():
        return  # the GPU path runs (tests/gpu/test_gpu_advisor.py)
    assert main(["why", "vector_add", "--backend", "gpu"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and "no GPU here" in err and len(err.strip().splitlines()) == 1
