"""Sweeps never crown what cannot matter (issue 22): under the interpreter a launch option
(num_warps, num_stages) changes nothing, so its values are not ranked against each other; and
"Best" names tuned values, never a problem size."""

from __future__ import annotations

import kernels.catalog  # noqa: F401  (registers the specs)
from kernels import engine
from kernels.data.results import SweepRequest


def _grid(axes, base=None):
    return engine.sweep(SweepRequest("vector_add", {"N": 512, **(base or {})}, axes, backend="interpreter"))


def test_interpreter_sweep_over_num_warps_names_no_winner():
    # the issue: "named num_warps=1 best (25.8 vs 50.1 ms for identical programs)"
    res = _grid({"num_warps": [1, 2, 4, 8]}, {"BLOCK_SIZE": 256})
    assert res.error is None and len(res.points) == 4 and all(p.result.ok for p in res.points)
    assert res.best is None and res.ranking == []
    assert any("no winner" in v and "num_warps" in v for v in res.verdicts)
    assert any("num_warps" in n and "no effect under the interpreter" in n for n in res.notes)
    assert res.tuned_names == []


def test_interpreter_sweep_ranks_block_sizes_at_one_num_warps_only():
    res = _grid({"BLOCK_SIZE": [128, 256], "num_warps": [1, 4]})
    assert res.error is None and len(res.points) == 4
    ranked = [res.points[e.index] for e in res.ranking]
    assert len(ranked) == 2 and {p.values["num_warps"] for p in ranked} == {1}
    assert res.best is not None and res.points[res.best].values["num_warps"] == 1
    assert res.tuned_names == ["BLOCK_SIZE"]
    assert any("not ranked against each other" in n for n in res.notes)


def test_tuned_names_leave_out_problem_sizes():
    # the window's "Best: BLOCK_SIZE=512, N=1024": N is the problem, not a tuned value
    res = _grid({"BLOCK_SIZE": [128, 256], "N": [256, 512]})
    assert res.error is None and res.tuned_names == ["BLOCK_SIZE"]
    winners = [e for e in res.ranking if e.rank == 1]
    assert {e.group for e in winners} == {"N=256", "N=512"}
