"""The one routing of a trace request (``kernels.engine.trace_router.serve_trace``) and "interpreter vs GPU"
(``compare_backends`` and the numpy comparison under it), on the CPU.

What breaks if these fail: the window's (or the CLI's) GPU trace goes to the wrong recorder, a
machine without CUDA answers with a traceback instead of one line, or the compare action marks
the wrong tiles (or none) where the GPU and the interpreter disagree.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import kernels.catalog  # noqa: F401  (registers the bundled kernels)
from kernels.data.gpu_trace import GpuTraceResult
from kernels.data.trace import NO_PROGRAM, SEVERAL, TraceRequest, TraceResult
from kernels.engine.trace_router import compare_backends, serve_trace
from kernels.gpu_trace.compare import (
    BackendComparison,
    OutputDiff,
    differing_elements,
    programs_of,
    writer_of,
)
from kernels.specs.spec import REGISTRY
from kernels.trace import trace_spec

NO_CUDA = not torch.cuda.is_available()


# ---------------------------------------------------------------------------------------------
# the comparison itself (numpy)


def test_differing_elements_use_the_tolerance_and_treat_two_nans_as_agreeing():
    a = np.array([1.0, 2.0, np.nan, np.nan, 5.0, np.inf])
    b = np.array([1.0 + 1e-7, 2.5, np.nan, 3.0, 5.0, np.inf])
    assert differing_elements(a, b, atol=1e-6, rtol=0.0).tolist() == [False, True, False, True, False, False]
    assert differing_elements(np.array([1, 2, 3]), np.array([1, 2, 4])).tolist() == [False, False, True]
    with pytest.raises(ValueError, match="different shapes"):
        differing_elements(np.zeros(3), np.zeros(4))


def test_the_programs_that_wrote_a_deliberately_changed_output_are_found():
    # a vector_add-like launch: 8 programs of 16 elements; change elements of programs 2 and 5
    writer = np.repeat(np.arange(8, dtype=np.int32), 16)
    ref = np.arange(128, dtype=np.float32)
    out = ref.copy()
    out[2 * 16 + 3] += 1.0
    out[5 * 16 + 15] = np.nan
    pids, several, unwritten = programs_of(differing_elements(out, ref, 1e-5, 1e-5), writer)
    assert pids.tolist() == [2, 5] and several == 0 and unwritten == 0


def test_elements_of_several_programs_or_none_are_counted_not_attributed():
    writer = np.array([0, SEVERAL, NO_PROGRAM, 1], np.int32)
    differ = np.array([False, True, True, True])
    pids, several, unwritten = programs_of(differ, writer)
    assert pids.tolist() == [1] and several == 1 and unwritten == 1


def test_output_diff_reports_counts_and_the_largest_gap():
    writer = np.repeat(np.arange(4, dtype=np.int32), 2)
    interp = np.zeros(8)
    gpu = interp.copy()
    gpu[7] = 0.5
    d = OutputDiff.of("out", interp, gpu, writer, atol=1e-3, rtol=0.0)
    assert (d.n_elements, d.n_differ, d.max_abs, d.programs.tolist()) == (8, 1, 0.5, [3])
    comp = BackendComparison(request=None, outputs=[d, OutputDiff.of("y", interp, interp, writer, 1e-3, 0.0)])
    assert comp.programs.tolist() == [3] and comp.n_differ == 1


def test_the_output_is_found_among_the_traces_tensors_by_its_argument_name():
    tr = trace_spec(REGISTRY.get("vector_add"), {"N": 300, "BLOCK_SIZE": 128}, workers=1)
    w = writer_of(tr, "out", (300,))
    assert w is not None and w[0] == 0 and w[299] == 2  # out is passed as out_ptr
    assert writer_of(tr, "out", (301,)) is None


# ---------------------------------------------------------------------------------------------
# the routing


def test_interpreter_requests_go_to_the_interpreter_recorder():
    res = serve_trace(TraceRequest("vector_add", {"N": 300, "BLOCK_SIZE": 128}, workers=1))
    assert isinstance(res, TraceResult) and res.error is None
    assert res.trace.n_programs == 3 and len(res.trace.events) > 0  # the replay records per access


def test_a_timeline_or_a_compare_on_the_interpreter_is_refused_with_a_reason():
    for req in (TraceRequest("vector_add", timeline=True), TraceRequest("vector_add", compare=True),
                TraceRequest("vector_add", backend="tpu")):
        res = serve_trace(req)
        assert res.error is not None and res.error.kind == "validation" and res.error.field == "backend"
        assert "\n" not in res.error.message


@pytest.mark.skipif(not NO_CUDA, reason="this machine has a GPU")
def test_a_gpu_request_without_cuda_is_one_line():
    res = serve_trace(TraceRequest("vector_add", backend="gpu", timeline=True))
    assert isinstance(res, GpuTraceResult) and res.trace is None and res.timeline is None
    assert res.error.message.startswith("the GPU recorder needs a CUDA device") and "\n" not in res.error.message


def test_a_gpu_request_runs_the_instrumented_build_and_gives_full_maps():
    # device="cpu": the very instrumented build the GPU runs, under the interpreter
    req = TraceRequest("vector_add", {"N": 1000, "BLOCK_SIZE": 256}, backend="gpu", timeline=True)
    res = serve_trace(req, device="cpu")
    ref = trace_spec(REGISTRY.get("vector_add"), {"N": 1000, "BLOCK_SIZE": 256}, workers=1)
    assert isinstance(res, GpuTraceResult) and res.error is None and res.timeline is None
    assert np.array_equal(res.trace.maps_of("out_ptr").writer, ref.maps_of("out_ptr").writer)
    assert any("no schedule" in n for n in res.info.notes)


def test_reduced_maps_come_as_cells_of_the_real_tensor():
    # breaks if a map reduced on the device is described as a smaller tensor (the window titled
    # matmul 4096² as 2048² on the H200) or loses how many elements a cell holds
    from kernels.data.coarse import CoarseTrace
    from kernels.gpu_trace.service import gpu_trace

    req = TraceRequest("vector_add", {"N": 4100, "BLOCK_SIZE": 512}, backend="gpu")
    res = gpu_trace(req, device="cpu", max_elements=1000)
    assert res.info.map_strides == [(8,)] * 3
    tr = res.trace
    assert isinstance(tr, CoarseTrace) and tr.cells == [(1, 8)] * 3
    for t, full, m in zip(tr.tensors, tr.full_tensors, tr.maps, strict=True):
        assert t.shape == m.writer.shape == (513,) and full.shape == (4100,)
    ref = trace_spec(REGISTRY.get("vector_add"), {"N": 4100, "BLOCK_SIZE": 512}, workers=1)
    # a tile of 512 is whole cells of 8: each cell's writer is its elements' writer
    assert np.array_equal(tr.maps_of("out_ptr").writer[:512], ref.maps_of("out_ptr").writer[:4096:8])


def test_a_device_reduced_matmul_reduced_again_for_the_window_keeps_its_shape_and_reads():
    # breaks if the window's reduction of a device-reduced trace forgot the first factor, or if
    # tiles read by several programs (no per-access events on the GPU) lost their readers
    from kernels.data.coarse import CoarseTrace
    from kernels.gpu_trace.service import gpu_trace
    from kernels.trace.service import for_window

    vals = {"M": 128, "N": 128, "K": 64, "BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 32, "dtype": "fp16"}
    res = gpu_trace(TraceRequest("matmul", vals, backend="gpu"), device="cpu", max_elements=64 * 64)
    assert isinstance(res.trace, CoarseTrace) and res.trace.cells[0] == (2, 1)  # A: 128×64 on 64×64
    win = for_window(res, 32 * 32)
    tr = win.trace
    assert isinstance(tr, CoarseTrace) and tr.full_tensors[0].shape == (128, 64)
    (kr, kc), (fr, fc) = win.trace.cells[0], (2, 1)
    assert tr.tensors[0].shape == (128 // kr, 64 // kc) and tr.tensors[0].numel <= 32 * 32
    assert kr % fr == 0 and kc % fc == 0 and kr * kc > fr * fc  # both reductions, composed
    a = tr.maps[0]
    assert (a.n_readers > 1).all() and (a.n_reads > 0).all()  # every A tile is read by 4 programs


def test_interpreter_vs_itself_finds_no_difference_and_names_every_output():
    # the GPU side under the interpreter too: the same numbers, so nothing may be marked
    req = TraceRequest("matmul", {"M": 64, "N": 48, "K": 32, "BLOCK_M": 32, "BLOCK_N": 16, "BLOCK_K": 32},
                       backend="gpu", compare=True)
    res = compare_backends(req, device="cpu")
    assert res.error is None, res.error
    assert [o.name for o in res.outputs] == ["c"] and res.outputs[0].n_elements == 64 * 48
    assert res.n_differ == 0 and res.programs.size == 0
    assert res.trace is not None and res.trace.n_programs == 2 * 3
    assert res.atol > 0 and res.rtol > 0


@pytest.mark.skipif(not NO_CUDA, reason="this machine has a GPU")
def test_compare_without_cuda_is_refused_in_one_line():
    res = serve_trace(TraceRequest("vector_add", backend="gpu", compare=True))
    assert res.error is not None and res.error.message.startswith("the GPU recorder needs a CUDA device")


def test_a_device_reduced_trace_without_events_is_drawn_with_its_reads():
    # breaks if the grid view's preparation indexes first readers that no event names (an
    # IndexError on int32 max: the window could not draw matmul 4096³ traced on the H200) or
    # titles tensors read only through maps as "untouched"
    from kernels.gpu_trace.service import gpu_trace
    from kernels.trace.service import for_window
    from views.grid_view.prepare import prepare_trace

    vals = {"M": 128, "N": 128, "K": 64, "BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 32, "dtype": "fp16"}
    res = for_window(gpu_trace(TraceRequest("matmul", vals, backend="gpu"), device="cpu", max_elements=64 * 64),
                     32 * 32)
    assert len(res.trace.events) == 0
    for mode in ("program", "readers"):
        prep = prepare_trace(res.trace, mode)
        assert [p.role for p in prep.panels] == ["read", "read", "written"]
        assert all(img.size for img in prep.images)
