"""The tracer: recorded maps against maps worked out independently here, from first principles.

Every expected map below is computed in the test with numpy (block formulas, the grouped pid ->
tile formula, brute-force loops over programs), never by calling the tracer's own helpers. If a
test fails, the grid view would show a user the wrong program for an element.
"""

from __future__ import annotations

import inspect
import json
import pickle

import numpy as np
import pytest
import torch
import triton
import triton.language as tl

import kernels.catalog  # noqa: F401  (registers the bundled kernels)
from kernels.data.trace import OOB_OUTSIDE_STORAGE, OOB_OUTSIDE_VIEW
from kernels.specs.spec import REGISTRY
from kernels.trace import (
    NO_PROGRAM,
    OP_ATOMIC,
    OP_LOAD,
    OP_STORE,
    SEVERAL,
    TraceCancelled,
    TraceRequest,
    TraceUnsupported,
    Window,
    footprint,
    rewave,
    summary_lines,
    trace,
    trace_launch,
    trace_spec,
    wave_footprint,
)


def _line(jit_fn, text: str, nth: int = 0) -> int:
    """File line number of the nth source line of ``jit_fn`` containing ``text``."""
    lines, first = inspect.getsourcelines(jit_fn.fn)
    hits = [first + i for i, ln in enumerate(lines) if text in ln]
    return hits[nth]


def _lanes(tr, e: int) -> np.ndarray:
    return tr.events.lanes(e)


# ---------------------------------------------------------------------------------------------
# ad-hoc kernels


@triton.jit
def copy_rows(in_ptr, out_ptr, N, s_row, s_col, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    m = c < N
    v = tl.load(in_ptr + r * s_row + c * s_col, mask=m)
    tl.store(out_ptr + r * N + c, v, mask=m)


@triton.jit
def add_nomask(x_ptr, y_ptr, out_ptr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)  # no mask: the last block runs off the end
    y = tl.load(y_ptr + offs)
    tl.store(out_ptr + offs, x + y)


@triton.jit
def read_past_end(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs))


@triton.jit
def overlap_store(out_ptr, N, BLOCK: tl.constexpr, STEP: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * STEP + tl.arange(0, BLOCK)  # STEP < BLOCK: neighbours overlap
    tl.store(out_ptr + offs, tl.zeros([BLOCK], tl.float32) + pid, mask=offs < N)


@triton.jit
def histogram(x_ptr, counts_ptr, N, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < N
    v = tl.load(x_ptr + offs, mask=m, other=0)
    tl.atomic_add(counts_ptr + v, 1, mask=m)


@triton.jit
def nested_sum(x_ptr, out_ptr, A: tl.constexpr, B: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    acc = tl.zeros([BLOCK], tl.float32)
    for i in range(A):
        for j in range(B):
            acc += tl.load(x_ptr + (i * B + j) * BLOCK + tl.arange(0, BLOCK))
    tl.store(out_ptr + pid * BLOCK + tl.arange(0, BLOCK), acc)


@triton.jit
def one_per_program(out_ptr, GX: tl.constexpr):
    x = tl.program_id(0)
    y = tl.program_id(1)
    tl.store(out_ptr + y * GX + x, 1.0)


@triton.jit
def overflow_index(x_ptr, out_ptr, SCALE: tl.constexpr):
    i = tl.arange(0, 4)
    j = i * SCALE  # 2 * 2**30 overflows int32
    tl.store(out_ptr + i, tl.load(x_ptr + j // SCALE))


@triton.jit
def fails_midway(x_ptr, BLOCK: tl.constexpr):
    v = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.static_assert(BLOCK < 0, "deliberate failure")
    tl.store(x_ptr + tl.arange(0, BLOCK), v)


# ---------------------------------------------------------------------------------------------
# vector add (catalog): the partial boundary block


@pytest.fixture(scope="module")
def vadd():
    return trace_spec(REGISTRY.get("vector_add"), {"N": 1000, "BLOCK_SIZE": 256, "dtype": "fp32"})


def test_vector_add_writer_reader_and_masked_lanes(vadd):
    tr = vadd
    i = np.arange(1000)
    assert tr.grid == (4, 1, 1) and tr.window is None
    assert [t.name for t in tr.tensors] == ["x_ptr", "y_ptr", "out_ptr"]
    assert tr.tensors[0].shape == (1000,) and tr.tensors[0].dtype == "float32"
    assert tr.scalars == {"n_elements": 1000} and tr.constexprs == {"BLOCK_SIZE": 256, "IS_MUL": False}
    out, x = tr.maps_of("out_ptr"), tr.maps_of("x_ptr")
    assert np.array_equal(out.writer, i // 256)  # element i is written by program i // 256
    assert np.array_equal(x.reader, i // 256) and np.all(x.n_reads == 1) and np.all(x.n_readers == 1)
    assert np.all(x.writer == NO_PROGRAM) and x.never_written.all() and not out.never_written.any()
    ev = tr.events
    assert len(ev) == 12  # load x, load y, store out in each of 4 programs
    assert ev.program.tolist() == [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3]
    assert ev.op.tolist() == [OP_LOAD, OP_LOAD, OP_STORE] * 4
    assert ev.n_masked.tolist() == [0] * 9 + [24, 24, 24]  # 4*256 - 1000 = 24 lanes off in program 3
    assert ev.n_active.tolist() == [256] * 9 + [232] * 3
    kern = REGISTRY.get("vector_add").kernels[0]
    lines = [_line(kern, "x = tl.load(x_ptr"), _line(kern, "y = tl.load(y_ptr"), _line(kern, "tl.store(out_ptr")]
    assert ev.line.tolist() == lines * 4
    assert ev.iters.shape == (12, 0) and tr.loop_lines == []
    assert np.array_equal(_lanes(tr, 9), np.arange(768, 1000))
    np.testing.assert_allclose(tr.stats.masked_fraction, [0, 0, 0, 24 / 256])
    assert tr.stats.bytes_loaded.tolist() == [2048, 2048, 2048, 2 * 232 * 4]
    assert tr.stats.bytes_stored.tolist() == [1024, 1024, 1024, 232 * 4]
    assert tr.oob == [] and tr.stats.n_oob.tolist() == [0, 0, 0, 0]
    assert tr.wave.tolist() == [0, 0, 0, 0]


def test_trace_pickles_small_and_summary_reads_right(vadd):
    blob = pickle.dumps(vadd, protocol=5)
    arrays = sum(v.nbytes for v in vars(vadd.events).values() if isinstance(v, np.ndarray))
    arrays += sum(a.nbytes for m in vadd.maps for a in vars(m).values() if isinstance(a, np.ndarray))
    assert len(blob) < arrays + 30_000  # arrays plus a little metadata: no per-element objects
    back = pickle.loads(blob)
    assert np.array_equal(back.maps[2].writer, vadd.maps[2].writer)
    text = "\n".join(summary_lines(vadd))
    assert "grid 4x1x1 = 4 programs" in text and "masked lanes: 72 of 3072" in text
    assert "out of bounds: none" in text


# ---------------------------------------------------------------------------------------------
# softmax (catalog): rows, and the looped kernel's two passes


def test_softmax_rows_one_program_per_row():
    tr = trace_spec(REGISTRY.get("softmax"), {"M": 6, "N": 100, "BLOCK_SIZE": 128, "dtype": "fp32"})
    rows = np.repeat(np.arange(6)[:, None], 100, axis=1)
    assert np.array_equal(tr.maps_of("in_ptr").reader, rows)
    assert np.array_equal(tr.maps_of("out_ptr").writer, rows)
    assert set(tr.events.n_masked.tolist()) == {28}  # 128 lanes, 100 columns
    assert tr.stats.bytes_loaded.tolist() == [400] * 6


def test_softmax_looped_iterations_follow_the_chunks():
    spec = REGISTRY.get("softmax_looped")
    n, block = 300, 128
    tr = trace_spec(spec, {"M": 3, "N": n, "BLOCK_SIZE": block, "dtype": "fp32"})
    kern = spec.kernels[0]
    assert tr.loop_lines == [_line(kern, "for start in range", 0), _line(kern, "for start in range", 1)]
    assert tr.loop_parents == [-1, -1]
    ev = tr.events
    for e in range(len(ev)):
        lanes = _lanes(tr, e)
        chunk = (lanes % n) // block
        assert np.all(chunk == chunk[0])
        it = ev.iters[e].tolist()
        in_first = ev.line[e] < tr.loop_lines[1]
        assert it == ([int(chunk[0]), -1] if in_first else [-1, int(chunk[0])])
        assert np.all(lanes // n == ev.program[e])  # program r touches row r only
        assert ev.n_masked[e] == (3 * block - n if chunk[0] == 2 else 0)
    x = tr.maps_of("in_ptr")
    assert np.all(x.n_reads == 2) and np.all(x.n_readers == 1)  # two passes, one reader
    assert np.all(tr.maps_of("out_ptr").n_writes == 1)


# ---------------------------------------------------------------------------------------------
# matmul (catalog): K loop and grouped program order


def _grouped_tiles(n_prog, num_pid_m, num_pid_n, group):
    pid = np.arange(n_prog)
    in_group = group * num_pid_n
    first_m = (pid // in_group) * group
    size_m = np.minimum(num_pid_m - first_m, group)
    return first_m + (pid % in_group) % size_m, (pid % in_group) // size_m


def test_matmul_grouped_order_k_steps_and_wave_footprint():
    m_, n_, k_, bs, group = 64, 48, 64, 16, 2
    vals = {"M": m_, "N": n_, "K": k_, "BLOCK_M": bs, "BLOCK_N": bs, "BLOCK_K": bs, "GROUP_SIZE_M": group,
            "dtype": "fp32"}
    tr = trace_spec(REGISTRY.get("matmul"), vals, n_sms=4)
    num_pid_m, num_pid_n = m_ // bs, n_ // bs
    pid_m, pid_n = _grouped_tiles(num_pid_m * num_pid_n, num_pid_m, num_pid_n, group)
    expected = np.empty((m_, n_), np.int64)
    for p in range(num_pid_m * num_pid_n):
        expected[pid_m[p] * bs:(pid_m[p] + 1) * bs, pid_n[p] * bs:(pid_n[p] + 1) * bs] = p
    assert np.array_equal(tr.maps_of("c_ptr").writer, expected)
    assert not np.array_equal(expected.ravel() // 1, np.arange(m_ * n_) // 1)  # sanity: grouping matters
    # each A/B load happens at the K step of the slab it reads
    a_t, b_t = tr.tensor_index("a_ptr"), tr.tensor_index("b_ptr")
    ev = tr.events
    assert tr.loop_lines == [_line(REGISTRY.get("matmul").kernels[0], "for k in range")]
    n_checked = 0
    for e in np.flatnonzero(ev.op == OP_LOAD).tolist():
        lanes = _lanes(tr, e)
        p = int(ev.program[e])
        if ev.tensor[e] == a_t:
            rows, cols = lanes // k_, lanes % k_
            assert np.all(rows // bs == pid_m[p])
            step = cols // bs
        else:
            assert ev.tensor[e] == b_t
            rows, cols = lanes // n_, lanes % n_
            assert np.all(cols // bs == pid_n[p])
            step = rows // bs
        assert np.all(step == ev.iters[e, 0])
        n_checked += 1
    assert n_checked == 2 * (k_ // bs) * num_pid_m * num_pid_n
    # wave 0 (4 SMs): the first four programs in dispatch order, and exactly what they read
    fps = {f.tensor: f for f in wave_footprint(tr, 0)}
    want_rows = {r for p in range(4) for r in range(pid_m[p] * bs, (pid_m[p] + 1) * bs)}
    want_cols = {c for p in range(4) for c in range(pid_n[p] * bs, (pid_n[p] + 1) * bs)}
    a_read = np.zeros((m_, k_), bool)
    a_read[sorted(want_rows), :] = True
    b_read = np.zeros((k_, n_), bool)
    b_read[:, sorted(want_cols)] = True
    assert np.array_equal(fps["a_ptr"].read, a_read) and np.array_equal(fps["b_ptr"].read, b_read)
    assert set(fps["a_ptr"].rows_read().tolist()) == want_rows
    c_written = np.isin(expected, [0, 1, 2, 3])
    assert np.array_equal(fps["c_ptr"].written, c_written)
    # the compile facts' occupancy (2 programs/SM on 4 SMs): wave 0 holds the first 8 programs
    tr2 = rewave(tr, 4, 2)
    assert tr2.wave.tolist() == [p // 8 for p in range(12)] and tr.wave.tolist() == [p // 4 for p in range(12)]
    assert np.array_equal(next(f for f in wave_footprint(tr2, 0) if f.tensor == "c_ptr").written,
                          np.isin(expected, range(8)))
    # one K step only: the slab of A at step 2
    step2 = {f.tensor: f for f in footprint(tr, [0], iters={0: 2})}
    assert np.flatnonzero(step2["a_ptr"].read.any(axis=0)).tolist() == list(range(2 * bs, 3 * bs))


# ---------------------------------------------------------------------------------------------
# views: transposed input, strided slice, and a kernel that ignores the view's stride


def test_transposed_input_maps_to_logical_rows():
    base = torch.arange(60, dtype=torch.float32).reshape(6, 10)
    xt = base.t()  # (10, 6), strides (1, 10)
    out = torch.full((10, 6), float("nan"))
    tr = trace_launch(lambda K: K(copy_rows)[(10,)](xt, out, 6, xt.stride(0), xt.stride(1), BLOCK=8))
    assert torch.equal(out, xt)
    info = tr.tensors[0]
    assert info.shape == (10, 6) and info.strides == (1, 10)
    assert np.array_equal(tr.maps_of("in_ptr").reader, np.repeat(np.arange(10)[:, None], 6, axis=1))
    loads = np.flatnonzero(tr.events.op == OP_LOAD)
    for r, e in enumerate(loads.tolist()):
        assert np.array_equal(_lanes(tr, e), r * 6 + np.arange(6))  # logical, not storage, order
    assert tr.oob == []


def test_strided_slice_maps_to_logical_elements():
    base = torch.arange(60, dtype=torch.float32).reshape(6, 10)
    xs = base[1:, ::2]  # (5, 5), strides (10, 2), storage offset 10
    out = torch.full((5, 5), float("nan"))
    tr = trace_launch(lambda K: K(copy_rows)[(5,)](xs, out, 5, xs.stride(0), xs.stride(1), BLOCK=8))
    assert torch.equal(out, xs)
    info = tr.tensors[0]
    assert (info.shape, info.strides, info.storage_offset) == ((5, 5), (10, 2), 10)
    assert np.array_equal(tr.maps_of("in_ptr").reader, np.repeat(np.arange(5)[:, None], 5, axis=1))
    assert np.all(tr.maps_of("in_ptr").n_reads == 1)
    assert tr.oob == []


def test_ignoring_the_view_stride_reads_gaps_outside_the_view():
    base = torch.arange(60, dtype=torch.float32).reshape(6, 10)
    xs = base[1:, ::2]
    out = torch.full((5, 5), float("nan"))
    # column stride 1 instead of 2: columns 1 and 3 of each row land in the slice's gaps
    tr = trace_launch(lambda K: K(copy_rows)[(5,)](xs, out, 5, xs.stride(0), 1, BLOCK=8))
    loads = np.flatnonzero(tr.events.op == OP_LOAD)
    assert tr.events.n_active[loads].tolist() == [3] * 5 and tr.events.n_oob[loads].tolist() == [2] * 5
    for r, e in enumerate(loads.tolist()):
        assert np.array_equal(_lanes(tr, e), r * 5 + np.array([0, 1, 2]))  # storage cols 0, 2, 4
    recs = [o for o in tr.oob if o.op == "load"]
    assert [(o.program, o.count, o.kind, o.nearest_tensor) for o in recs] == \
        [(r, 2, OOB_OUTSIDE_VIEW, "in_ptr") for r in range(5)]
    assert recs[0].example_offsets == (1, 3) and recs[2].example_offsets == (21, 23)
    assert torch.equal(out, base[1:, :5])  # gaps are memory-safe: they ran as written


@triton.jit
def read_span(x_ptr, y_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs))  # runs past x, into y


def test_one_access_spanning_two_tensors_is_attributed_lane_by_lane():
    buf = torch.randn(1024)
    x, y = buf[:512], buf[512:]  # two arguments, one storage
    out = torch.full((1024,), float("nan"))
    tr = trace_launch(lambda K: K(read_span)[(1,)](x, y, out, BLOCK=1024))
    ev = tr.events
    loads = np.flatnonzero(ev.op == OP_LOAD).tolist()
    assert [tr.tensors[ev.tensor[e]].name for e in loads] == ["x_ptr", "y_ptr"]
    assert ev.line[loads].tolist() == [_line(read_span, "tl.load")] * 2
    for e in loads:
        assert np.array_equal(_lanes(tr, e), np.arange(512))
    assert np.all(tr.maps_of("y_ptr").reader == 0) and np.all(tr.maps_of("x_ptr").n_reads == 1)
    assert torch.equal(out, buf) and tr.oob == []


# ---------------------------------------------------------------------------------------------
# out of bounds: the mask removed


def _storages(*ts):
    return [(t.untyped_storage().data_ptr(), t.untyped_storage().data_ptr() + t.untyped_storage().nbytes())
            for t in ts]


def test_mask_removed_is_flagged_with_lines_and_counts_and_does_not_crash():
    n, block = 1000, 256
    # guards between the arguments make "past x" land outside every argument (checked below)
    x = torch.randn(n)
    _g1 = torch.zeros(8192)
    y = torch.randn(n)
    _g2 = torch.zeros(8192)
    out = torch.full((n,), float("nan"))
    _g3 = torch.zeros(8192)
    tr = trace_launch(lambda K: K(add_nomask)[(4,)](x, y, out, BLOCK=block))
    assert torch.equal(out, x + y)
    spans = _storages(x, y, out)
    lines = [_line(add_nomask, "x = tl.load"), _line(add_nomask, "y = tl.load"), _line(add_nomask, "tl.store")]
    for base_t, line, op in ((x, lines[0], "load"), (y, lines[1], "load"), (out, lines[2], "store")):
        addrs = [base_t.data_ptr() + 4 * i for i in range(n, 4 * block)]
        outside = sum(not any(lo <= a < hi for lo, hi in spans) for a in addrs)
        recs = [o for o in tr.oob if o.line == line]
        assert sum(o.count for o in recs) == len(addrs) == 24  # never dropped
        assert all(o.program == 3 and o.op == op for o in recs)
        assert sum(o.count for o in recs if o.kind == OOB_OUTSIDE_STORAGE) == outside
        storage_rec = [o for o in recs if o.kind == OOB_OUTSIDE_STORAGE]
        if outside == 24:
            assert storage_rec[0].example_offsets == (1000, 1001, 1002, 1003)
    assert tr.stats.n_oob.tolist() == [0, 0, 0, 72]
    assert "OUT OF BOUNDS: 72 lane(s)" in "\n".join(summary_lines(tr))


def test_out_of_bounds_loads_return_zero_instead_of_memory():
    x = torch.randn(1000)
    _guard = torch.zeros(8192)
    out = torch.full((1024,), float("nan"))
    tr = trace_launch(lambda K: K(read_past_end)[(1,)](x, out, BLOCK=1024))
    spans = _storages(x, out)
    outside = np.array([not any(lo <= x.data_ptr() + 4 * i < hi for lo, hi in spans) for i in range(1000, 1024)])
    assert outside.any()
    assert torch.equal(out[:1000], x)
    assert np.all(out[1000:].numpy()[outside] == 0.0)  # switched off: `other` (0), not garbage
    assert tr.stats.n_oob.tolist() == [24]


# ---------------------------------------------------------------------------------------------
# overlapping writes and atomics


def test_overlapping_writes_are_flagged_several():
    n, block, step = 512, 128, 64
    out = torch.full((n,), float("nan"))
    tr = trace_launch(lambda K: K(overlap_store)[(8,)](out, n, BLOCK=block, STEP=step))
    count = np.zeros(n, np.int64)
    last = np.full(n, -1)
    for p in range(8):
        idx = np.arange(p * step, min(n, p * step + block))
        count[idx] += 1
        last[idx] = p
    m = tr.maps_of("out_ptr")
    assert np.array_equal(m.n_writes, count)
    assert np.array_equal(m.writer, np.where(count > 1, SEVERAL, last))
    assert int(m.multiply_written.sum()) == int((count > 1).sum()) == 448
    assert "MULTIPLY WRITTEN: out_ptr: 448 element(s)" in "\n".join(summary_lines(tr))


def test_atomics_accumulate_without_being_a_conflict():
    gen = torch.Generator().manual_seed(1)
    x = torch.randint(0, 8, (300,), generator=gen, dtype=torch.int32)
    counts = torch.zeros(8, dtype=torch.int32)
    tr = trace_launch(lambda K: K(histogram)[(3,)](x, counts, 300, BLOCK=128))
    want = np.bincount(x.numpy(), minlength=8)
    assert counts.numpy().tolist() == want.tolist()
    m = tr.maps_of("counts_ptr")
    assert m.n_atomic.tolist() == want.tolist() and m.n_writes.tolist() == want.tolist()
    assert not m.multiply_written.any()
    assert int(np.count_nonzero(tr.events.op == OP_ATOMIC)) == 3


# ---------------------------------------------------------------------------------------------
# loops, windows, failure paths


def test_nested_loops_give_iteration_vectors():
    a, b, block = 2, 3, 16
    x = torch.randn(a * b * block)
    out = torch.empty(block)
    tr = trace_launch(lambda K: K(nested_sum)[(1,)](x, out, A=a, B=b, BLOCK=block))
    assert tr.loop_lines == [_line(nested_sum, "for i in range"), _line(nested_sum, "for j in range")]
    assert tr.loop_parents == [-1, 0]
    ev = tr.events
    loads = np.flatnonzero(ev.op == OP_LOAD)
    got = [tuple(ev.iters[e]) for e in loads]
    assert got == [(i, j) for i in range(a) for j in range(b)]
    for e in loads.tolist():
        i, j = ev.iters[e]
        assert np.array_equal(_lanes(tr, e), (i * b + j) * block + np.arange(block))
    store = int(np.flatnonzero(ev.op == OP_STORE)[0])
    assert ev.iters[store].tolist() == [-1, -1]
    torch.testing.assert_close(out, x.reshape(a * b, block).sum(0))


def test_linear_window_runs_only_those_programs():
    tr = trace_spec(REGISTRY.get("vector_add"), {"N": 4096, "BLOCK_SIZE": 256}, window=(4, 8))
    assert tr.programs.tolist() == [4, 5, 6, 7] and set(tr.events.program.tolist()) == {4, 5, 6, 7}
    assert tr.window == "programs 4..7 of 16"
    i = np.arange(4096)
    want = np.where((i >= 1024) & (i < 2048), i // 256, NO_PROGRAM)
    assert np.array_equal(tr.maps_of("out_ptr").writer, want)
    assert tr.stats.bytes_stored.tolist() == [1024] * 4


def test_box_window_on_a_2d_grid():
    out = torch.zeros(3, 4)
    win = Window.parse("1:3,0:2")
    tr = trace_launch(lambda K: K(one_per_program)[(4, 3)](out, GX=4), window=win)
    assert tr.grid == (4, 3, 1) and tr.programs.tolist() == [1, 2, 5, 6]
    assert tr.window == "programs x 1..2, y 0..1 (4 of 12)"
    want = np.full((3, 4), NO_PROGRAM)
    for y in range(2):
        for x in (1, 2):
            want[y, x] = y * 4 + x
    assert np.array_equal(tr.maps_of("out_ptr").writer, want)
    assert out.sum().item() == 4.0


def test_launch_index_records_a_later_launch_after_running_the_earlier_one():
    a = torch.zeros(3, 4)
    b = torch.full((3, 4), float("nan"))

    def launch(K):
        K(one_per_program)[(4, 3)](a, GX=4)  # launch 0: runs unrecorded, fills a with ones
        K(copy_rows)[(3,)](a, b, 4, 4, 1, BLOCK=4)  # launch 1: recorded

    tr = trace_launch(launch, launch_index=1)
    assert tr.kernel_fn == "copy_rows" and tr.launch_index == 1 and tr.grid == (3, 1, 1)
    assert torch.equal(b, torch.ones(3, 4))
    with pytest.raises(ValueError, match="launch 5 never happened"):
        trace_launch(launch, launch_index=5)


def test_window_text_forms():
    assert Window.parse("0:256") == Window(start=0, stop=256)
    assert Window.parse("2:4,1:3").pids((8, 4, 1)).tolist() == [10, 11, 18, 19]
    assert Window.parse(Window.parse("2:4,1:3").text()) == Window.parse("2:4,1:3")
    with pytest.raises(ValueError, match="bad window"):
        Window.parse("a:b")
    with pytest.raises(ValueError, match="holds none"):
        Window(start=20, stop=30).pids((16, 1, 1))


def _pristine():
    """The interpreter's state, to check that every patch was undone."""
    import triton.runtime.interpreter as interp

    return (tl.load, tl.store, tl.core.load, interp.InterpretedFunction.__dict__["__call__"],
            interp._get_np_dtype, sorted(k for k in vars(interp.interpreter_builder) if k.startswith("create_")),
            tl.cdiv, interp._patch_lang_tensor, "__index__" in vars(tl.core.tensor),
            interp.interpreter_builder.options)


def test_missing_hook_raises_trace_unsupported_naming_it(monkeypatch):
    import triton.runtime.interpreter as interp

    before = _pristine()
    monkeypatch.delattr(interp.InterpreterBuilder, "create_masked_store")
    with pytest.raises(TraceUnsupported, match="create_masked_store") as info:
        trace_spec(REGISTRY.get("vector_add"), {"N": 1000, "BLOCK_SIZE": 256})
    assert info.value.hook == "InterpreterBuilder.create_masked_store"
    monkeypatch.undo()
    assert _pristine() == before
    monkeypatch.delattr(interp, "_implicit_cvt")
    with pytest.raises(TraceUnsupported, match="_implicit_cvt"):
        trace_spec(REGISTRY.get("vector_add"), {"N": 1000, "BLOCK_SIZE": 256})


def test_kernel_failure_names_program_and_line_and_restores_everything():
    from kernels.data.errors import InterpreterFault

    before = _pristine()
    x = torch.randn(16)
    with pytest.raises(InterpreterFault, match=rf"program 0 \(0, 0, 0\) at line {_line(fails_midway, 'static_assert')}"):
        trace_launch(lambda K: K(fails_midway)[(2,)](x, BLOCK=16))
    assert _pristine() == before
    trace_spec(REGISTRY.get("matmul"), {"M": 16, "N": 16, "K": 16, "BLOCK_M": 16, "BLOCK_N": 16,
                                        "BLOCK_K": 16, "dtype": "fp32"})
    assert _pristine() == before  # also after a kernel calling jit helpers (tl.cdiv)


def test_int32_overflow_wraps_as_on_gpu_unless_checked():
    # the plain interpreter (debug off) wraps too; check_overflow=True is a debug run that raises
    from kernels.data.errors import InterpreterFault

    x = torch.arange(4, dtype=torch.float32)
    _guard = torch.zeros(8192)
    out = torch.full((4,), float("nan"))
    tr = trace_launch(lambda K: K(overflow_index)[(1,)](x, out, SCALE=2 ** 30))
    # i = 2, 3 wrap to negative offsets (-2, -1): in front of x, flagged, and switched off
    assert out[:2].tolist() == [0.0, 1.0]
    assert sum(r.count for r in tr.oob) == 2 and tr.oob[0].line == _line(overflow_index, "tl.load")
    with pytest.raises(InterpreterFault, match="overflow"):
        trace_launch(lambda K: K(overflow_index)[(1,)](x, out, SCALE=2 ** 30), check_overflow=True)


def test_cancel_and_progress():
    calls = []
    n_checks = [0]

    def cancel():
        n_checks[0] += 1
        return n_checks[0] > 5

    with pytest.raises(TraceCancelled, match="after 5 of 16 programs"):
        trace_spec(REGISTRY.get("vector_add"), {"N": 4096, "BLOCK_SIZE": 256},
                   progress=lambda p: calls.append((p.text(), p.fraction)), cancel=cancel)
    assert calls[0] == ("tracing 0/16 programs", 0.0)  # the grid size is known from the first report
    calls.clear()
    trace_spec(REGISTRY.get("vector_add"), {"N": 4096, "BLOCK_SIZE": 256}, progress=lambda p: calls.append((p.text(), p.fraction)))
    assert calls[0] == ("tracing 0/16 programs", 0.0) and calls[-1] == ("deriving maps of 12,288 element accesses", 1.0)


def test_request_round_trip_and_errors():
    res = trace(TraceRequest(kernel="vector_add", values={"N": "1000", "BLOCK_SIZE": "256"}, window="1:3"))
    assert res.error is None and res.trace.programs.tolist() == [1, 2]
    back = pickle.loads(pickle.dumps(res))
    assert back.trace.window == "programs 1..2 of 4"
    bad = trace(TraceRequest(kernel="vector_add", values={"BLOCK_SIZE": "3"}))
    assert bad.trace is None and bad.error.kind == "validation" and bad.error.field == "BLOCK_SIZE"
    badw = trace(TraceRequest(kernel="vector_add", values={"N": "1000", "BLOCK_SIZE": "256"}, window="9:12"))
    assert badw.error.kind == "validation" and "holds none" in badw.error.message
    unknown = trace(TraceRequest(kernel="no_such_kernel"))
    assert unknown.error is not None and "no_such_kernel" in unknown.error.message


# ---------------------------------------------------------------------------------------------
# rendering and the CLI


def test_render_colours_writers_conflicts_and_untouched(tmp_path, vadd):
    from PIL import Image

    from kernels.trace.render import GREY, PALETTE, RED, render_png, tensor_rgb

    rgb, _ = tensor_rgb(vadd, vadd.tensor_index("out_ptr"))
    flat = rgb.reshape(-1, 3)
    assert flat[0].tolist() == PALETTE[0].tolist() and flat[300].tolist() == PALETTE[1].tolist()
    assert flat[999].tolist() == PALETTE[3].tolist()
    out = torch.full((512,), float("nan"))
    tr = trace_launch(lambda K: K(overlap_store)[(8,)](out, 400, BLOCK=128, STEP=64))
    rgb, bad = tensor_rgb(tr, 0)
    flat = rgb.reshape(-1, 3)
    assert flat[10].tolist() == PALETTE[0].tolist()  # written by program 0 only
    assert flat[100].tolist() == RED.tolist() and bad.reshape(-1)[100]  # programs 0 and 1
    assert flat[450].tolist() == GREY.tolist()  # past N: nobody wrote it
    path = render_png(tr, str(tmp_path / "t.png"))
    img = np.asarray(Image.open(path).convert("RGB"))
    assert img.shape[0] > 100 and (img == RED).all(axis=2).any()


def test_cli_trace_prints_summary_and_writes_files(tmp_path, capsys):
    from app.cli import main

    png, js, npz = tmp_path / "v.png", tmp_path / "v.json", tmp_path / "v.npz"
    rc = main(["trace", "vector_add", "--shape", "N=1000", "--param", "BLOCK_SIZE=256", "--png", str(png),
               "--json", str(js), "--npz", str(npz)])
    out = capsys.readouterr().out
    assert rc == 0 and "masked lanes: 72 of 3072" in out and "out_ptr" in out
    data = json.loads(js.read_text())
    assert data["grid"] == [4, 1, 1] and data["tensors"][2]["elements_written"] == 1000
    assert data["programs"]["masked_fraction"][3] == pytest.approx(24 / 256)
    arrays = np.load(npz)
    assert np.array_equal(arrays["out_ptr_writer"], np.arange(1000) // 256)
    assert png.stat().st_size > 1000
    rc = main(["trace", "vector_add", "--param", "BLOCK_SIZE=3"])
    err = capsys.readouterr().err
    assert rc == 2 and err.startswith("error:") and "BLOCK_SIZE" in err and len(err.strip().splitlines()) == 1
    rc = main(["trace", "vector_add", "--window", "x"])
    assert rc == 2 and "bad window" in capsys.readouterr().err


# ---------------------------------------------------------------------------------------------
# recording in forked processes


def _same_trace(a, b):
    for k in ("program", "op", "tensor", "line", "iters", "n_active", "n_masked", "n_oob", "lane_start", "elements"):
        assert np.array_equal(getattr(a.events, k), getattr(b.events, k)), k
    for ma, mb in zip(a.maps, b.maps, strict=True):
        for k in ("writer", "reader", "n_reads", "n_writes", "n_readers", "n_atomic"):
            assert np.array_equal(getattr(ma, k), getattr(mb, k)), k
    assert a.oob == b.oob


@pytest.mark.skipif(not __import__("kernels.trace.parallel", fromlist=["x"]).available(), reason="needs fork")
def test_forked_workers_record_the_same_trace_and_their_stores_land():
    spec = REGISTRY.get("softmax_looped")
    vals = {"M": 8, "N": 300, "BLOCK_SIZE": 128, "dtype": "fp32"}
    one = trace_spec(spec, vals, workers=1)
    two = trace_spec(spec, vals, workers=2)
    assert (one.workers, two.workers) == (1, 2)
    _same_trace(one, two)
    # outputs written by the children reach the parent (shared memory), atomics included
    x = torch.randint(0, 8, (1000,), generator=torch.Generator().manual_seed(2), dtype=torch.int32)
    counts = torch.zeros(8, dtype=torch.int32)
    trace_launch(lambda K: K(histogram)[(8,)](x, counts, 1000, BLOCK=128), workers=2)
    assert counts.numpy().tolist() == np.bincount(x.numpy(), minlength=8).tolist()
    a, b, o = torch.randn(1000), torch.randn(1000), torch.full((1000,), float("nan"))
    _g = torch.zeros(8192)
    t1 = trace_launch(lambda K: K(add_nomask)[(4,)](a, b, o, BLOCK=256), workers=2)
    assert torch.equal(o, a + b) and sum(r.count for r in t1.oob) == 72


@pytest.mark.skipif(not __import__("kernels.trace.parallel", fromlist=["x"]).available(), reason="needs fork")
def test_forked_workers_report_errors_and_cancel():
    from kernels.data.errors import InterpreterFault

    before = _pristine()
    x = torch.randn(16)
    with pytest.raises(InterpreterFault, match=r"program \d+ .* at line"):
        trace_launch(lambda K: K(fails_midway)[(4,)](x, BLOCK=16), workers=2)
    assert _pristine() == before
    with pytest.raises(TraceCancelled):
        trace_spec(REGISTRY.get("vector_add"), {"N": 1 << 16, "BLOCK_SIZE": 256}, workers=2, cancel=lambda: True)
    assert _pristine() == before
