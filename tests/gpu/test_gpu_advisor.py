"""The advisor on a GPU (skipped without CUDA): its launch proposals measured by the tune sweep,
the spill count of the CPU-side compile equal to the driver's, and the tail read from the measured
timeline. Not yet run on a GPU (written 2026-11-27; docs/benchmarks/advisor.md says what was)."""

from __future__ import annotations

import pytest
import torch

from kernels.data.advice import WhyRequest
from kernels.engine.handlers import EngineState, handle

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")]


def _target() -> str:
    major, minor = torch.cuda.get_device_capability()
    return f"sm_{major}{minor}"


def test_vector_add_at_block_64_is_measured_faster_with_the_proposal():
    a = handle(EngineState(), "why", WhyRequest("vector_add", {"BLOCK_SIZE": 64, "N": 1 << 24}, target=_target(),
                                                try_changes=True, backend="gpu", programs=1))
    assert a.error is None and a.first.rule == "vector_width"
    t = a.first.trial
    assert a.first.status == "measured" and t.passed and t.gain > 1.5  # H200: 0.638 -> 0.189 ms at 2^26


def test_the_cpu_side_spill_count_is_the_drivers():
    from kernels import engine
    from kernels.compile.target import compile_for_target
    from kernels.data.results import RunRequest

    vals = {"dtype": "fp32", "TF32": False, "BLOCK_M": 256, "BLOCK_N": 128, "BLOCK_K": 32, "num_warps": 4,
            "M": 512, "N": 512, "K": 512}
    cpu, _ = compile_for_target("matmul", vals, _target(), keep_asm=False)
    gpu = engine.run(RunRequest("matmul", vals, backend="gpu", bench=False, keep_asm=False)).compile
    assert cpu.n_spills and gpu is not None and cpu.n_spills == gpu.n_spills


def test_the_tail_is_read_from_the_measured_timeline():
    vals = {"M": 896, "N": 4864, "K": 16384, "BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64, "num_warps": 8,
            "num_stages": 3}
    a = handle(EngineState(), "why", WhyRequest("matmul", vals, target=_target(), backend="gpu", programs=1))
    tail = next(f for f in a.findings if f.rule == "tail")
    assert tail.needs_gpu and 0 < tail.evidence["sm_busy"] < 0.8
