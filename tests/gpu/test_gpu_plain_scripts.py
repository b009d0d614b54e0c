"""Plain scripts on a CUDA device: the real launches captured (Triton's own autotuner benchmarks,
only the final launch is kept), re-run with changed values against the captured outputs, and the
same launch traced under the interpreter afterwards. Skipped without CUDA."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from kernels import engine
from kernels.data.results import RunRequest
from kernels.script import open_script
from kernels.trace import trace_spec

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")]

SCRIPTS = Path(__file__).parents[1] / "kernels" / "scripts"

CASES = {
    "tuple_grid_positional.py": ({"BLOCK_SIZE": 256, "num_warps": 8}, (4,)),
    "meta_lambda_reads_arg.py": ({"ROWS": 8, "num_warps": 2}, (5,)),
    "matmul_2d.py": ({"BM": 16, "BN": 32, "num_warps": 2}, (5, 2)),
    "autotune_heuristics_two_kernels.py": ({"autotune_config": 1}, (4,)),
}


@pytest.mark.parametrize("script", sorted(CASES))
def test_a_script_captured_on_the_gpu_reruns_and_traces(script):
    changed, grid = CASES[script]
    cap, specs = open_script(str(SCRIPTS / script), "gpu")
    assert cap.backend == "gpu" and cap.error == "", cap.error
    spec = specs[0]
    first = engine.run(RunRequest(spec.name, {}, backend="gpu"))
    assert first.error is None and first.check.passed, (first.error, first.check)
    r = engine.run(RunRequest(spec.name, changed, backend="gpu"))
    assert r.error is None and r.check.passed and tuple(r.grid) == grid, (r.error, r.grid)
    assert r.timing is not None and r.timing.median_ms > 0 and r.metrics.gbps > 0
    tr = trace_spec(spec, {})  # the same launch replayed under the interpreter on the CPU
    assert tr.grid[:len(cap.launches[0].grid)] == cap.launches[0].grid
