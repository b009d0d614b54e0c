"""Compile facts from the CPU-side compile (no GPU involved) equal the real GPU compile's, for
every catalog kernel at its defaults: registers, spills, shared memory, warps and stages. Skipped
without CUDA. (benchmarks/gpu_compile_facts_check.py prints the same comparison as a table.)"""

from __future__ import annotations

import pytest
import torch

import kernels.catalog  # noqa: F401  (registers the specs parametrized below)
from kernels import engine
from kernels.data.results import RunRequest
from kernels.specs.spec import REGISTRY

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")]

NAMES = [s.name for s in REGISTRY if s.origin == "catalog"]


@pytest.mark.parametrize("name", NAMES)
def test_cpu_compile_facts_equal_the_gpu_compile(name):
    from kernels.compile.target import compile_for_target

    major, minor = torch.cuda.get_device_capability()
    cpu, _ = compile_for_target(name, {}, f"sm_{major}{minor}", keep_asm=False)
    gpu = engine.run(RunRequest(name, {}, backend="gpu", bench=False, keep_asm=False)).compile
    assert gpu is not None
    assert (cpu.n_regs, cpu.n_spills, cpu.shared_bytes, cpu.num_warps, cpu.num_stages) == \
        (gpu.n_regs, gpu.n_spills, gpu.shared_bytes, gpu.num_warps, gpu.num_stages)
