"""``precompile`` through a real worker process: answered at once, compiled in a background
thread while the worker answers other requests, into the Triton cache the worker was given; an
interpreter run that arrives meanwhile waits for the compile (the interpreter patches
``triton.language`` while it runs) and is still right.

No GPU here: the compile is for an explicit target (sm_90), which needs no driver.
"""

from __future__ import annotations

import time

import pytest
import torch
from worker_env import worker_env

from app.client import WorkerClient
from kernels import engine
from kernels.compile import target as compile_target
from kernels.data.results import RunRequest
from kernels.tune import pipeline


def _ping(client: WorkerClient) -> dict:
    return client.call("ping", timeout=60)


@pytest.mark.slow
def test_the_worker_compiles_ahead_in_the_background_and_keeps_answering(tmp_path, monkeypatch):
    # breaks if a precompile blocks the worker until compiled (the window's next request waits
    # for it), if it does not land in the worker's Triton cache, or if an interpreter run beside
    # a compile breaks either of them
    cache = tmp_path / "triton-cache"
    env = worker_env(tmp_path, TRITON_CACHE_DIR=str(cache))
    values = {"M": 512, "N": 512, "K": 512, "BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64}
    with WorkerClient(env=env) as client:
        client.call("infos", timeout=300)  # started, the catalog loaded
        t0 = time.monotonic()
        ack = client.call("precompile", {"request": RunRequest("matmul", values, backend="gpu"), "target": "sm_90"},
                          timeout=60)
        assert ack == {"status": "queued"} and time.monotonic() - t0 < 2.0
        deadline = time.monotonic() + 30
        while not _ping(client)["precompiling"]:
            assert time.monotonic() < deadline, "the compile never started"
            time.sleep(0.01)
        infos = client.call("infos", timeout=60)  # answered while the compile runs
        assert any(i.name == "matmul" for i in infos) and _ping(client)["precompiling"]
        res = client.call("run", RunRequest("vector_add", {"N": 3000}, backend="interpreter", bench=False,
                                            torch_baseline=False), timeout=300)
        assert res.error is None and res.check.passed
        deadline = time.monotonic() + 300
        while _ping(client)["precompiling"]:
            assert time.monotonic() < deadline, "the compile never ended"
            time.sleep(0.05)
    written = sorted(cache.iterdir())
    assert written
    # this process, with the same cache: the launch's own lookup for sm_90 finds the binary
    monkeypatch.setenv("TRITON_CACHE_DIR", str(cache))
    spec = engine.get_spec("matmul")
    cfg = spec.config(values)
    real = spec.make_inputs(dict(cfg), "cpu", torch.Generator().manual_seed(0))
    (fn, args, kwargs), = pipeline.launches_of(spec, cfg, pipeline.metas_of(real), {})
    compile_target._CACHE.clear()
    compile_target.compile_jit_for_target(fn, args, kwargs, "sm_90", keep_asm=False)
    compile_target._CACHE.clear()
    assert sorted(cache.iterdir()) == written
