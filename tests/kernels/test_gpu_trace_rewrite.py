"""The GPU recorder's instrumented build, run under the interpreter on the CPU: its maps must equal
the interpreter recorder's element for element.

The instrumented kernel is ordinary Triton, so the CPU runs it too (``device="cpu"``): the very
rewrite, shadow arithmetic and atomics that the GPU runs, only slower. Each test compares the maps
(writer, reader, n_reads, n_writes, n_readers, n_atomic), the per-program statistics and the
out-of-bounds records with those of ``kernels.trace`` (the interpreter recorder, an independent
implementation tested against first principles in test_trace.py). The schedule (``%smid``,
``%globaltimer``) needs a GPU; ``Timeline`` is tested on made-up numbers here and on the GPU in
tests/gpu/test_gpu_trace.py.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
import triton
import triton.language as tl
from fixtures.cross_check_cases import CROSS_CHECK_CASES

import kernels.catalog  # noqa: F401  (registers the bundled kernels)
from kernels.data.errors import BackendUnavailable
from kernels.data.trace import OOB_OUTSIDE_STORAGE, OOB_OUTSIDE_VIEW, SEVERAL, TraceRequest
from kernels.gpu_trace import Timeline, gpu_trace
from kernels.gpu_trace.compare import differences
from kernels.gpu_trace.rewrite import instrument
from kernels.gpu_trace.service import gpu_trace_launch, gpu_trace_spec
from kernels.specs.spec import REGISTRY
from kernels.trace import trace_launch, trace_spec


def assert_same_trace(gpu, ref) -> None:
    """Maps, per-program statistics and out-of-bounds records agree."""
    diff = differences(gpu, ref)
    assert not diff, "\n".join(diff)


# ---------------------------------------------------------------------------------------------
# every catalog kernel

CATALOG = CROSS_CHECK_CASES


@pytest.mark.parametrize("name", list(CATALOG))
def test_instrumented_catalog_kernel_gives_the_interpreter_recorders_maps(name):
    spec = REGISTRY.get(name)
    got = gpu_trace_spec(spec, CATALOG[name], device="cpu")
    ref = trace_spec(spec, CATALOG[name], workers=1)
    assert got.trace is not None and got.timeline is None  # no schedule without a GPU
    assert_same_trace(got.trace, ref)
    assert got.info.n_sites >= 2 and got.info.map_strides == [()] * len(ref.tensors)
    assert got.trace.programs.size == ref.n_programs and got.trace.window is None


def test_the_instrumented_build_computes_what_the_kernel_computes():
    from kernels.gpu_trace.service import _CPU
    from kernels.run.prepare import prepare

    spec = REGISTRY.get("matmul")
    p = prepare(spec, CATALOG["matmul"], _CPU, 0)
    got = gpu_trace_launch(p.launch, device="cpu", kernels=tuple(spec.kernels), keep=True)
    ref = spec.reference(p.tensors, p.cfg)["c"]
    assert torch.allclose(p.tensors["c"].double(), ref, atol=0.05, rtol=0.01)
    rec = got.recording
    assert rec is not None and rec.S == sum(t.numel for t in got.trace.tensors)
    got.release()


def test_layernorm_in_one_block_and_softmax_with_fp32_agree_too():
    for name, values in (("layernorm", {"M": 4, "N": 100, "BLOCK_SIZE": 128}),
                         ("softmax", {"M": 3, "N": 50, "BLOCK_SIZE": 64, "dtype": "fp32"})):
        spec = REGISTRY.get(name)
        assert_same_trace(gpu_trace_spec(spec, values, device="cpu").trace, trace_spec(spec, values, workers=1))


# ---------------------------------------------------------------------------------------------
# ad-hoc kernels: out of bounds, atomics, helpers, views, 2-D grids


@triton.jit
def add_past_storage(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(x_ptr + offs)  # no mask: runs past the view, then past the storage
    tl.store(out_ptr + offs, v, mask=offs < N)


@triton.jit
def bin_counts(values, bins, n, CHUNK: tl.constexpr):
    me = tl.program_id(0)
    idx = tl.arange(0, CHUNK) + me * CHUNK
    bin_of = tl.load(values + idx, mask=idx < n, other=0)
    tl.atomic_add(bins + bin_of, 1, mask=idx < n)  # several programs add into one bin
    tl.atomic_max(bins + 8 + me, me)


@triton.jit
def _load_row(ptr, cols, n):
    return tl.load(ptr + cols, mask=cols < n, other=0.0)


@triton.jit
def _scaled_row(ptr, cols, n):
    return _load_row(ptr, cols, n) * 2.0


@triton.jit
def row_sums(x_ptr, out_ptr, N, s_row, s_col, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    v = _scaled_row(x_ptr + r * s_row, cols * s_col, N * s_col)
    tl.store(out_ptr + r, tl.sum(v, axis=0))  # a scalar store


@triton.jit
def overlap_grid(out_ptr, GX: tl.constexpr, STEP: tl.constexpr, BLOCK: tl.constexpr):
    x = tl.program_id(0)
    y = tl.program_id(1)
    offs = (y * GX + x) * STEP + tl.arange(0, BLOCK)  # STEP < BLOCK: neighbours overlap
    tl.store(out_ptr + offs, tl.zeros([BLOCK], tl.float32) + x, mask=offs < 40)
    old = tl.atomic_cas(out_ptr + 40 + y * GX + x, 0.0, 1.0)
    tl.store(out_ptr + 60 + y * GX + x, old)


def _both(launch, kernels) -> tuple:
    got = gpu_trace_launch(launch, device="cpu", kernels=kernels)
    ref = trace_launch(launch, workers=1, kernels=kernels)
    return got.trace, ref


def test_out_of_bounds_lanes_are_switched_off_counted_and_kept():
    big = torch.arange(16, dtype=torch.float32)
    x = big[2:10]  # a view: lanes 8..13 fall in its storage, lanes 14.. outside every storage
    out = torch.zeros(8)

    def launch(K):
        K(add_past_storage)[(2,)](x, out, 8, BLOCK=8)

    got, ref = _both(launch, (add_past_storage,))
    assert_same_trace(got, ref)
    kinds = {(r.program, r.kind): r.count for r in got.oob}
    assert kinds == {(1, OOB_OUTSIDE_VIEW): 6, (1, OOB_OUTSIDE_STORAGE): 2}
    assert got.stats.n_oob.tolist() == [0, 8] and got.stats.masked_fraction.tolist() == [0.0, 0.5]  # its store is masked off
    # every view its whole storage (the device skips the separate storage test): the same answer
    x2, out2 = torch.arange(8, dtype=torch.float32), torch.zeros(1 << 16)

    def exact(K):
        K(add_past_storage)[(2,)](x2, out2, 8, BLOCK=8)

    got, ref = _both(exact, (add_past_storage,))
    assert_same_trace(got, ref)
    assert sum(r.count for r in got.oob) == 8 and got.stats.n_oob.tolist() == [0, 8]


def test_atomics_count_as_writes_and_several_programs_accumulate():
    x = torch.tensor([0, 1, 1, 3, 7, 7, 7, 2, 0, 5], dtype=torch.int32)
    counts = torch.zeros(16, dtype=torch.int32)

    def launch(K):
        counts.zero_()
        K(bin_counts)[(3,)](x, counts, 10, CHUNK=4)

    got, ref = _both(launch, (bin_counts,))
    assert_same_trace(got, ref)
    m = got.maps_of("bins")
    assert m.n_atomic is not None and m.n_atomic[7] == 3 and m.writer[7] == 1  # three lanes of program 1
    assert m.n_atomic[0] == 2 and m.writer[0] == SEVERAL and m.writer[8:11].tolist() == [0, 1, 2]
    assert not m.multiply_written.any()  # atomics only: no conflict


def test_helpers_are_instrumented_and_strided_views_map_through_strides():
    x = torch.randn(6, 20)[:, ::2]  # (6, 10), strides (20, 2)
    out = torch.zeros(6)

    def launch(K):
        K(row_sums)[(6,)](x, out, 10, x.stride(0), x.stride(1), BLOCK=16)

    got, ref = _both(launch, (row_sums,))
    assert_same_trace(got, ref)
    assert got.maps_of("x_ptr").reader.tolist() == [[r] * 10 for r in range(6)]
    inst = instrument(row_sums)
    assert inst.n_sites == 2 and sorted(inst.helpers) == ["_load_row", "_scaled_row"]


def test_a_2d_grid_numbers_programs_x_fastest_and_overlaps_show_as_several():
    out = torch.zeros(80)

    def launch(K):
        out.zero_()
        K(overlap_grid)[(4, 3)](out, GX=4, STEP=3, BLOCK=4)

    got, ref = _both(launch, (overlap_grid,))
    assert_same_trace(got, ref)
    w = got.maps_of("out_ptr").writer
    assert w[0] == 0 and w[3] == SEVERAL and w[40 + 2 * 4 + 1] == 9  # cas of program (1, 2)


# ---------------------------------------------------------------------------------------------
# reduced maps and full-resolution regions


def test_large_maps_are_reduced_by_blocks_and_a_region_comes_at_full_resolution():
    spec = REGISTRY.get("vector_add")
    values = {"N": 4100, "BLOCK_SIZE": 512}
    got = gpu_trace_spec(spec, values, device="cpu", max_elements=1000, keep=True)
    full = trace_spec(spec, values, workers=1)
    assert got.info.map_strides == [(8,), (8,), (8,)]
    for t, (small, ref) in enumerate(zip(got.trace.maps, full.maps, strict=True)):
        pad = (-ref.writer.size) % 8
        blocks = {f: np.pad(getattr(ref, f), (0, pad), mode="edge").reshape(-1, 8)
                  for f in ("writer", "n_reads", "n_writes")}
        assert np.array_equal(small.writer, np.where((blocks["writer"] == SEVERAL).any(1), SEVERAL,
                                                     blocks["writer"][:, 0]))
        assert np.array_equal(small.n_reads, blocks["n_reads"].max(1))
        assert np.array_equal(small.n_writes, blocks["n_writes"].min(1))
        region = got.region(t, (slice(1000, 1100),))
        assert np.array_equal(region.writer, ref.writer[1000:1100])
        assert np.array_equal(region.n_reads, ref.n_reads[1000:1100])
    assert np.array_equal(got.region("out_ptr", (slice(4000, 4100),)).writer, np.repeat([7, 8], [96, 4]))
    got.release()
    with pytest.raises(ValueError, match="keep=True"):
        got.region(0, (slice(0, 4),))


# ---------------------------------------------------------------------------------------------
# the schedule, the request, and the build for a real GPU


def test_timeline_measures_residency_and_waves():
    # two SMs; SM 0 runs two programs at a time, SM 1 one: 6 programs
    sm = np.array([0, 0, 1, 0, 0, 1], np.int32)
    start = np.array([0, 0, 0, 10, 10, 10], np.int64)
    end = np.array([10, 10, 10, 20, 20, 20], np.int64)
    t = Timeline((6, 1, 1), sm, start, end, n_sms=2, programs_per_sm=2)
    assert t.resident() == 3 and t.resident_per_sm().tolist() == [2, 1]
    assert t.measured_waves() == pytest.approx(2.0) and t.formula_waves() == pytest.approx(1.5)
    assert t.waves().tolist() == [0, 0, 0, 1, 1, 1] and t.span_ns == 20
    assert any("measured 2.00" in line for line in t.summary_lines())


def test_without_cuda_the_gpu_recorder_says_so_in_one_line():
    if torch.cuda.is_available():
        pytest.skip("a CUDA device is present")
    with pytest.raises(BackendUnavailable) as e:
        gpu_trace_spec(REGISTRY.get("vector_add"), {})
    assert "CUDA" in e.value.message and "\n" not in e.value.message
    res = gpu_trace(TraceRequest("vector_add", {"N": 1000}))
    assert res.trace is None and res.error is not None and "CUDA" in res.error.message
    with pytest.raises(BackendUnavailable):
        gpu_trace_spec(REGISTRY.get("vector_add"), {}, device="cpu", timeline_only=True)


def test_the_instrumented_builds_compile_for_an_h200():
    """sm_90 machine code from this CPU-only machine: both builds compile, the maps build uses
    relaxed atomics, the timeline build reads %globaltimer and %smid and nothing else changes."""
    from kernels.compile.target import available_targets, compile_jit_for_target
    from kernels.gpu_trace.device import lanes_mask
    from kernels.gpu_trace.service import _tensor_arg
    from kernels.gpu_trace.shadow import Recording

    if "sm_90" not in available_targets():
        pytest.skip("this Triton's ptxas cannot build sm_90")
    kernel = REGISTRY.get("vector_add").kernels[0]
    x, y, out = (torch.empty(1 << 20) for _ in range(3))
    args = (x, y, out, 1 << 20)
    for mode in ("maps", "timeline"):
        inst = instrument(kernel, mode)
        rec = Recording([_tensor_arg(n, t) for n, t in zip("xyo", (x, y, out), strict=True)], 4, "cpu", 6,
                        with_maps=mode == "maps")
        kw = {"BLOCK_SIZE": 1024, "IS_MUL": False, "num_warps": 4, **rec.kwargs(time=True)}
        ptx = compile_jit_for_target(inst.fn, args, kw, target="sm_90").asm["ptx"]
        assert "%globaltimer" in ptx and "%smid" in ptx
        assert ("relaxed" in ptx and "exch" in ptx) == (mode == "maps")
        if mode == "maps":  # the first launch: tile records only, no per-lane atomics compiled in
            first = compile_jit_for_target(inst.fn, args, {**kw, "_TS_LANES": lanes_mask(0)}, target="sm_90")
            assert "exch" not in first.asm["ptx"] and "relaxed.or" in first.asm["ptx"]
