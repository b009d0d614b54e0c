"""The window's GPU trace requests, end to end through a real worker process on a CUDA device: a
Trace with the GPU backend (maps of every program and the light build's schedule) and
"Interpreter vs GPU". Skipped without CUDA.

What breaks if these fail: the window's Trace on the GPU backend shows no timeline or maps of
the wrong programs, or the compare action marks programs where the GPU and the interpreter agree.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from app.client import WorkerClient
from kernels.data.trace import TraceRequest

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")]


@pytest.fixture(scope="module")
def client():
    c = WorkerClient()
    c.start()
    assert c.wait_ready(120), c.stderr_tail()
    yield c
    c.close()


def test_a_gpu_trace_request_brings_every_programs_maps_and_the_schedule(client):
    req = TraceRequest("vector_add", {"N": 1 << 20, "BLOCK_SIZE": 1024}, backend="gpu", timeline=True)
    res = client.call("trace", req, 300)
    assert res.error is None, res.error
    tr, tl = res.trace, res.timeline
    assert tr.n_programs == 1024 and tr.programs.size == 1024 and tr.window is None
    assert np.array_equal(tr.maps_of("out_ptr").writer, np.arange(1 << 20) // 1024)
    assert tl is not None and not tl.recording_build and tl.n_programs == 1024
    assert (tl.end_ns >= tl.start_ns).all() and 0 <= tl.sm.min() and tl.sm.max() < tl.n_sms
    assert tl.measured_waves() > 0 and tl.formula_waves() > 0


def test_a_big_matmul_traces_with_maps_reduced_and_described_as_drawn(client):
    req = TraceRequest("matmul", {"M": 4096, "N": 4096, "K": 4096, "dtype": "fp16"}, backend="gpu", timeline=True)
    res = client.call("trace", req, 600)
    assert res.error is None, res.error
    for t, m in zip(res.trace.tensors, res.trace.maps, strict=True):
        assert tuple(t.shape) == m.writer.shape  # what the grid view draws, cell for cell
    assert res.timeline is not None and res.timeline.n_programs == res.trace.n_programs


def test_interpreter_vs_gpu_agrees_on_a_small_vector_add(client):
    req = TraceRequest("vector_add", {"N": 5000, "BLOCK_SIZE": 1024}, backend="gpu", compare=True)
    res = client.call("trace", req, 300)
    assert res.error is None, res.error
    assert [o.name for o in res.outputs] == ["out"] and res.outputs[0].n_elements == 5000
    assert res.n_differ == 0 and res.programs.size == 0 and res.trace.n_programs == 5
