"""Sweeps through a real local Ray cluster (two workers, the interpreter): no mock.

If these fail, ``tilescope sweep … --ray`` / ``--gpus`` ranks differently from the sweep on one
device, loses points, does not stream them, or a worker that dies takes its points with it.
Skipped without Ray (``pip install -e ".[cluster]"``; ``.ci/run`` installs it).
"""

from __future__ import annotations

import os
import signal

import pytest

from kernels.data.results import SweepRequest
from kernels.engine import ray_sweep
from kernels.engine.sweep import sweep

pytestmark = pytest.mark.skipif(not ray_sweep.available(), reason="Ray is not installed (the cluster extra)")

#: block sizes 8x apart: under the interpreter 256, 32 and 4 programs, far apart in time; tune
#: mode re-measures all of them interleaved (on one worker, for the Ray sweep)
SIZES = [32, 256, 2048]


def _request(**kw) -> SweepRequest:
    return SweepRequest("vector_add", {"N": 8192}, {"BLOCK_SIZE": SIZES}, backend="interpreter",
                        torch_baseline=False, mode="tune", remeasure_top=3, remeasure_rounds=3, **kw)


def _order(result) -> list[int]:
    return [result.points[e.index].values["BLOCK_SIZE"] for e in sorted(result.ranking, key=lambda e: e.rank)]


@pytest.fixture(scope="module")
def cluster():
    yield
    ray_sweep.shutdown(ray_too=True)


def test_a_sweep_through_two_ray_workers_ranks_as_the_local_sweep(cluster):
    here = sweep(_request())
    streamed: list[dict] = []
    there = sweep(_request(cluster="local", ray_workers=2), on_point=lambda p: streamed.append(dict(p.values)))
    assert here.error is None and there.error is None, (here.error, there.error)
    assert _order(there) == _order(here) == [2048, 256, 32]
    assert there.points[there.best].values == here.points[here.best].values == {"BLOCK_SIZE": 2048}
    assert sorted(v["BLOCK_SIZE"] for v in streamed) == SIZES  # each point streamed once, as it landed
    assert all(p.result.ok and p.result.check.passed for p in there.points)
    assert all(p.remeasured is not None for p in there.points)  # the final re-measure ran
    assert any("ran on 2 Ray worker(s)" in n for n in there.notes), there.notes
    assert len(set(ray_sweep.actor_pids())) == 2 and os.getpid() not in ray_sweep.actor_pids()
    assert there.exports.get("autotune")  # the winner exported as from a local sweep


def test_a_ray_worker_that_dies_is_reported_and_its_points_run_on_the_other(cluster):
    killed: list[int] = []

    def kill_one(_point) -> None:
        if not killed:
            killed.append(ray_sweep.actor_pids()[0])
            os.kill(killed[0], signal.SIGKILL)

    got = sweep(SweepRequest("vector_add", {"N": 4096}, {"BLOCK_SIZE": [32, 64, 128, 256, 512, 1024]},
                             backend="interpreter", torch_baseline=False, cluster="local", ray_workers=2),
                on_point=kill_one)
    assert killed and got.error is None, got.error
    assert sorted(p.values["BLOCK_SIZE"] for p in got.points) == [32, 64, 128, 256, 512, 1024]
    assert all(p.result.ok for p in got.points)
    assert any(f"Ray worker {killed[0]}" in n and "died" in n for n in got.notes), got.notes
    assert got.best is not None


def test_a_cluster_sweep_without_ray_is_refused_with_the_install_line(monkeypatch):
    monkeypatch.setattr(ray_sweep, "available", lambda: False)
    got = sweep(_request(cluster="local"))
    assert got.error is not None and ".[cluster]" in got.error.message and not got.points
