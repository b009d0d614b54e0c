"""The engine on a CUDA device: timing agrees with do_bench, every catalog kernel is correct in
every dtype it takes, compile facts are there, and an interpreter run does not break the next
GPU compile in the same process. Skipped without CUDA."""

from __future__ import annotations

import json
import statistics
import time

import pytest
import torch
import triton
import triton.testing

import kernels.catalog  # noqa: F401  (registers the specs parametrized below)
from kernels import engine
from kernels.data.results import RunRequest
from kernels.run import device
from kernels.specs.spec import REGISTRY

pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")]


def _dtypes(spec) -> list[str]:
    p = next((p for p in spec.params if p.kind == "dtype"), None)
    return [d for d in ("fp32", "fp16", "bf16") if p is None or d in (p.choices or ())]


CASES = [(s.name, d) for s in REGISTRY if s.origin == "catalog" for d in _dtypes(s)]


@pytest.mark.parametrize("name, dtype", CASES, ids=[f"{n}-{d}" for n, d in CASES])
def test_every_catalog_kernel_is_correct_on_cuda(name, dtype):
    r = engine.run(RunRequest(name, {"dtype": dtype}, backend="gpu", bench=False, keep_asm=False))
    assert r.error is None, r.error
    assert r.backend == "gpu" and r.check.passed, r.check.reason
    assert r.check.n_unwritten == 0 and r.check.n_mismatch == 0


def _reference_median(spec, values: dict, reps: int = 3) -> float:
    """do_bench(return_mode="median") on the same launch, outside the engine; the median of a
    few calls so one noisy call does not decide the comparison. The GPU is first kept busy with
    the launch for half a second, as the engine's timing policy does before its reps (a power-
    hungry matmul runs its first ~0.1 s at a clock the power cap then takes back)."""
    cfg = spec.config(values)
    gen = torch.Generator().manual_seed(0)
    t = spec.make_inputs(dict(cfg), "cuda", gen)
    fn = lambda: spec.run_launch(lambda f: f, t, dict(cfg))  # noqa: E731
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < 0.5:
        for _ in range(20):
            fn()
        torch.cuda.synchronize()
    return statistics.median(triton.testing.do_bench(fn, return_mode="median") for _ in range(reps))


@pytest.mark.parametrize("name, values", [
    ("vector_add", {"N": 1 << 24, "BLOCK_SIZE": 1024, "dtype": "fp32"}),
    ("matmul", {"M": 2048, "N": 2048, "K": 2048, "dtype": "fp16"}),
])
def test_engine_median_agrees_with_do_bench_within_3_percent(name, values):
    if name not in REGISTRY:
        pytest.skip(f"{name} is not in the catalog")
    spec = REGISTRY.get(name)
    r = engine.run(RunRequest(name, values, backend="gpu", torch_baseline=False, keep_asm=False))
    assert r.error is None and r.check.passed
    assert r.timing.method.startswith("gpu: warmed") and not r.timing.is_interpreter
    ref = _reference_median(spec, values)
    assert abs(r.timing.median_ms - ref) / ref < 0.03, (r.timing.median_ms, ref)
    assert r.timing.p20_ms <= r.timing.median_ms <= r.timing.p80_ms and r.timing.n_reps >= 10


def test_compile_facts_and_metrics_on_cuda():
    r = engine.run(RunRequest("vector_add", {"N": 1 << 20, "BLOCK_SIZE": 1024}, backend="gpu"))
    cf = r.compile
    assert cf is not None and cf.n_regs > 0 and cf.n_spills == 0 and cf.num_warps == 4
    assert ".entry" in cf.asm["ptx"] and "ttgir" in cf.asm
    props = torch.cuda.get_device_properties(0)
    assert cf.n_sms == props.multi_processor_count and cf.programs_per_sm >= 1
    assert cf.n_programs == 1024 and cf.waves == pytest.approx(1024 / (cf.n_sms * cf.programs_per_sm))
    m = r.metrics
    assert m.gbps == pytest.approx(3 * 4 * (1 << 20) / r.timing.median_ms / 1e6)
    assert m.peak_gbps and m.pct_peak_bw == pytest.approx(100 * m.gbps / m.peak_gbps)
    assert m.torch_timing is not None and m.ratio_vs_torch > 0


def test_peaks_are_measured_once_and_cached(tmp_path, monkeypatch):
    monkeypatch.setenv("TILESCOPE_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(device, "_PEAKS", {})
    p = device.peaks()
    assert 100 < p.copy_gbps < 20_000 and 10 < p.matmul_tflops < 5_000
    stored = json.loads((tmp_path / "device_peaks.json").read_text())
    assert any(v["copy_gbps"] == p.copy_gbps for v in stored.values())
    monkeypatch.setattr(device, "_PEAKS", {})
    monkeypatch.setattr(device, "measure_peaks", lambda *a, **k: pytest.fail("measured again"))
    assert device.peaks().measured_at == p.measured_at  # read back from the file


def test_an_interpreter_run_leaves_the_next_gpu_compile_working():
    # the interpreter patches triton.language during a launch; nested helpers (tl.max in
    # softmax) used to leave it patched, and the next GPU compile failed
    name = "softmax" if "softmax" in REGISTRY else "vector_add"
    ri = engine.run(RunRequest(name, {"dtype": "fp32"}, backend="interpreter", bench=False))
    assert ri.error is None and ri.check.passed
    rg = engine.run(RunRequest(name, {"dtype": "fp32", "num_warps": 2}, backend="gpu", bench=False))
    assert rg.error is None and rg.check.passed and rg.compile.n_regs > 0


def test_too_much_shared_memory_is_a_compile_error_with_tritons_numbers():
    if "matmul" not in REGISTRY:
        pytest.skip("matmul is not in the catalog")
    # 8 stages of a 64x256 and a 256x64 fp32 tile: about 1 MiB of shared memory per program
    values = {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 256, "num_stages": 8, "dtype": "fp32",
              "M": 512, "N": 512, "K": 512}
    r = engine.run(RunRequest("matmul", values, backend="gpu"))
    assert r.error is not None and r.error.kind == "compile", r.error
    assert "shared memory" in r.error.message and "Traceback" not in r.error.message
    # the worker's CUDA context is still usable afterwards
    assert engine.run(RunRequest("vector_add", {"N": 4096}, backend="gpu", bench=False)).ok
