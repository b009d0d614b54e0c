"""The advisor on a GPU (skipped without CUDA), through the engine's ``why`` handler: its launch
proposals measured by the tune sweep, the spill count of the CPU-side compile equal to the
driver's, the tail read from the measured timeline, and a code suggestion measured through the
kernel's own fixed variant. Shapes are small: each test gathers on the interpreter in-process.
docs/benchmarks/advisor.md says what ran where."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from kernels.data.advice import WhyRequest
from kernels.engine.handlers import EngineState, handle

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")]

VARIANTS = str(Path(__file__).resolve().parents[2] / "benchmarks" / "advisor_variants.py")


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
    # 8 x 17 tiles of 128 x 256 at one per SM on 132 SMs: the second wave holds 4 programs
    vals = {"M": 1024, "N": 4224, "K": 1024, "BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64, "num_warps": 8,
            "num_stages": 3}
    a = handle(EngineState(), "why", WhyRequest("matmul", vals, target=_target(), backend="gpu", programs=1))
    assert a.error is None, a.error
    tail = next(f for f in a.findings if f.rule == "tail")
    assert tail.needs_gpu and 0 < tail.evidence["sm_busy"] < 0.8  # two rounds, the second of 4 programs: ~0.52


def test_a_column_walk_is_measured_through_its_own_fixed_variant():
    a = handle(EngineState(), "why", WhyRequest("column_copy", {"M": 2048, "N": 2048, "BLOCK": 2048},
                                                target=_target(), user_file=VARIANTS, try_changes=True,
                                                backend="gpu", programs=1))
    assert a.error is None, a.error
    first = a.first
    assert first.rule == "uncoalesced" and first.proposal.kind == "variant"
    assert first.proposal.changes == {"BY_ROWS": True}
    assert first.status == "measured" and first.trial.passed and first.trial.gain > 2
