"""The window's "Best: …" after a sweep names tuned values only (issue 22: "Best: BLOCK_SIZE=512,
N=1024…" put a problem size among them) and no winner for launch options on the interpreter."""

from __future__ import annotations

import kernels.catalog  # noqa: F401  (registers the specs)
from app.sweep_best import best_text
from kernels import engine
from kernels.data.results import SweepRequest


def _sweep(axes, base):
    return engine.sweep(SweepRequest("vector_add", base, axes, backend="interpreter"))


def test_best_names_the_block_size_per_problem_size_never_n():
    res = _sweep({"BLOCK_SIZE": [128, 256], "N": [256, 512]}, {})
    text = best_text(res)
    assert text.startswith("Best: ")
    # one winner per N, each naming BLOCK_SIZE only: "N=…" appears only as the group label
    assert text.count("BLOCK_SIZE=") == 2 and "N=256: " in text and "N=512: " in text
    assert "N=256, " not in text and ", N=" not in text


def test_one_problem_size_gives_one_plain_best():
    res = _sweep({"BLOCK_SIZE": [128, 256]}, {"N": 512})
    text = best_text(res)
    assert text.startswith("Best: BLOCK_SIZE=") and "N=" not in text and ";" not in text


def test_num_warps_on_the_interpreter_gets_no_winner():
    res = _sweep({"num_warps": [1, 2, 4]}, {"N": 512, "BLOCK_SIZE": 128})
    text = best_text(res)
    assert text.startswith("No winner: ") and "num_warps" in text and "Best" not in text
