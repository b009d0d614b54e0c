"""Compile ahead on a real GPU (issue #16): a repeated run with a changed block size, compiled
ahead, shows its result sooner than the same kind of change compiled by the run itself.
Skips without CUDA."""

from __future__ import annotations

import time

import pytest
import torch

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")


def test_a_changed_config_compiled_ahead_runs_sooner_than_one_compiled_by_the_run(tmp_path, monkeypatch):
    # breaks if the compile ahead does not write the binary the run's launch looks up (the run
    # then compiles again and is no faster)
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))
    from kernels import engine
    from kernels.data.results import RunRequest
    from kernels.engine.precompile import Precompiler
    from kernels.engine.run import LiveCache

    live = LiveCache()
    base = {"M": 1024, "N": 1024, "K": 1024, "BLOCK_K": 32}

    def run(**values) -> float:
        t0 = time.perf_counter()
        res = engine.run(RunRequest("matmul", {**base, **values}, backend="gpu", torch_baseline=False), _cache=live)
        assert res.error is None and res.check.passed, res.error
        return time.perf_counter() - t0

    run(BLOCK_M=64, BLOCK_N=64)  # inputs, references and CUDA warm
    cold = run(BLOCK_M=128, BLOCK_N=64)  # compiled by the run
    pre = Precompiler(lambda r: engine.get_spec(r.kernel), lambda: live.tensors)
    ahead = RunRequest("matmul", {**base, "BLOCK_M": 64, "BLOCK_N": 128}, backend="gpu", torch_baseline=False)
    pre.submit(ahead)
    assert pre.idle(120) and pre.last.error == "" and pre.last.inputs == "live"
    warm = run(BLOCK_M=64, BLOCK_N=128)
    print(f"changed config: compiled by the run {cold:.3f} s, compiled ahead {warm:.3f} s")
    assert warm < cold
