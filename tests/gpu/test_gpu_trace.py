"""The GPU recorder on a CUDA device: for every catalog kernel, the maps of the instrumented build
run on the GPU equal the interpreter recorder's element for element (same seeded inputs); the
schedule is there and sane; out-of-bounds lanes are switched off and counted; large maps are
reduced on the device and a region comes back at full resolution. Skipped without CUDA."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import triton
import triton.language as tl
from fixtures.cross_check_cases import CROSS_CHECK_CASES

import kernels.catalog  # noqa: F401  (registers the bundled kernels)
from kernels.data.trace import OOB_OUTSIDE_STORAGE, TraceRequest
from kernels.gpu_trace import gpu_trace
from kernels.gpu_trace.compare import differences
from kernels.gpu_trace.service import gpu_trace_launch, gpu_trace_spec
from kernels.specs.spec import REGISTRY
from kernels.trace import trace_launch, trace_spec

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")]


@pytest.mark.parametrize("name", list(CROSS_CHECK_CASES))
def test_gpu_maps_equal_the_interpreter_recorders(name):
    spec = REGISTRY.get(name)
    values = CROSS_CHECK_CASES[name]
    got = gpu_trace_spec(spec, values)
    ref = trace_spec(spec, values, workers=1)
    diff = differences(got.trace, ref)
    assert not diff, "\n".join(diff)
    tl_ = got.timeline
    assert tl_ is not None and tl_.recording_build and tl_.n_programs == ref.n_programs
    assert (tl_.end_ns >= tl_.start_ns).all() and tl_.sm.min() >= 0 and tl_.sm.max() < tl_.n_sms
    assert got.info.kernel_ms is not None and got.info.kernel_ms > 0


def test_timeline_only_build_gives_the_schedule_of_a_matmul():
    spec = REGISTRY.get("matmul")
    got = gpu_trace_spec(spec, {"M": 2048, "N": 2048, "K": 2048}, timeline_only=True)
    t = got.timeline
    assert got.trace is None and t is not None and not t.recording_build
    assert t.n_programs == (2048 // 64) ** 2 and t.span_ns > 0
    assert 1 <= t.resident() <= t.n_sms * 32
    assert t.measured_waves() == pytest.approx(t.n_programs / t.resident())
    assert abs(t.measured_waves() - t.formula_waves()) < 0.5  # 1024 programs, 8 fit per SM: one wave
    assert t.waves().max() <= 1
    assert len(np.unique(t.sm)) > t.n_sms // 2  # spread over the GPU


@triton.jit
def add_past_end(x_ptr, out_ptr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs))  # no masks: the last block runs off the end


def test_out_of_bounds_lanes_are_switched_off_on_the_gpu():
    def launch_on(dev):
        x = torch.arange(1000, dtype=torch.float32, device=dev)  # small: far from the big output
        out = torch.zeros(1 << 20, device=dev)
        return lambda K: K(add_past_end)[(4,)](x, out, BLOCK=256)

    got = gpu_trace_launch(launch_on("cuda"), kernels=(add_past_end,)).trace
    ref = trace_launch(launch_on("cpu"), workers=1, kernels=(add_past_end,))
    assert not differences(got, ref)
    assert [(r.program, r.op, r.kind, r.count) for r in got.oob] == [(3, "load", OOB_OUTSIDE_STORAGE, 24)]


def test_big_maps_are_reduced_on_the_device_and_regions_come_whole():
    spec = REGISTRY.get("vector_add")
    got = gpu_trace_spec(spec, {"N": 1 << 24, "BLOCK_SIZE": 1024}, max_elements=1 << 16, keep=True)
    assert got.info.map_strides == [(256,)] * 3
    w = got.trace.maps_of("out_ptr").writer
    assert w.shape == (1 << 16,) and np.array_equal(w, np.arange(1 << 16) // 4)
    part = got.region("out_ptr", (slice(5000, 6000),))
    assert np.array_equal(part.writer, np.arange(5000, 6000) // 1024) and (part.n_writes == 1).all()
    got.release()


def test_the_request_level_call_answers_with_trace_and_timeline():
    res = gpu_trace(TraceRequest("softmax", {"M": 64, "N": 100, "BLOCK_SIZE": 128}, window="0:2"))
    assert res.error is None, res.error
    assert res.trace is not None and res.timeline is not None and res.info.events.startswith("interpreter")
    assert set(res.trace.events.program.tolist()) == {0, 1}


@pytest.mark.parametrize("script", ["tuple_grid_positional.py", "meta_lambda_reads_arg.py", "matmul_2d.py",
                                    "autotune_heuristics_two_kernels.py"])
def test_a_plain_scripts_launch_traced_on_the_gpu_equals_the_interpreter_trace(script):
    # the plain-script test kernels: captured from the script as written, then the same launch
    # traced by the GPU recorder and by the interpreter recorder
    from pathlib import Path

    from kernels.script import open_script

    cap, specs = open_script(str(Path(__file__).parents[1] / "kernels" / "scripts" / script), "gpu")
    assert cap.error == "", cap.error
    got = gpu_trace_spec(specs[0], {})
    ref = trace_spec(specs[0], {}, workers=1)
    diff = differences(got.trace, ref)
    assert not diff, "\n".join(diff)


def test_tile_records_on_the_gpu_give_the_interpreters_maps_whatever_the_order():
    # every access of tile_mix is a tile (broadcast, overlapping, reversed, a corner of its block):
    # folded after the launch, the maps do not depend on the order the GPU ran the programs in
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parents[1] / "kernels"))
    from test_gpu_trace_tiles import tile_mix

    def launch_on(dev):
        x = torch.arange(64, dtype=torch.float32, device=dev)
        out = torch.zeros(4 * 16, device=dev)
        return lambda K: K(tile_mix)[(4,)](x, out, LD=8, B=4, LANES=False)

    got = gpu_trace_launch(launch_on("cuda"), kernels=(tile_mix,), keep=True)
    ref = trace_launch(launch_on("cpu"), workers=1, kernels=(tile_mix,))
    assert not differences(got.trace, ref)
    assert got.recording.fold() == 4 * 6
