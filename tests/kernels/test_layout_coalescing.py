"""Requests and 32-byte sectors per access, and shared-memory bank conflicts, without a GPU.

The expected figures are the H200's (Nsight Compute, docs/benchmarks/layout.md) and counts worked
out by hand. What breaks if these fail: ``tilescope layout`` and the Threads view report
coalescing that the hardware does not show (the column-walk lesson's budget check with them)."""

from __future__ import annotations

import numpy as np
import torch
import triton
import triton.language as tl

from kernels.data.layout import SECTOR_BYTES
from kernels.layout.coalescing import bank_conflicts
from kernels.layout.service import layout_jit
from kernels.layout.threads import thread_map
from kernels.layout.ttgir import IRValue, shared_offsets_of, to_linear


@triton.jit
def _contiguous_copy(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


@triton.jit
def _column_walk(x_ptr, out_ptr, stride, ROWS: tl.constexpr):
    rows = tl.arange(0, ROWS)
    tl.store(out_ptr + rows, tl.load(x_ptr + rows * stride))


def _by_op(result):
    return {a.op: a for a in result.accesses}


def test_contiguous_fp32_load_is_16_sectors_per_request_as_on_the_h200():
    # H200 (ncu): 1024 fp32 per program at 4 warps over 1024 programs = 8,192 requests, 131,072 sectors
    n = 1024 * 1024
    x, out = torch.randn(n), torch.empty(n)
    res = layout_jit(_contiguous_copy, (1024,), (x, out, n), {"BLOCK": 1024, "num_warps": 4}, "sm_90")
    acc = _by_op(res)
    for op in ("load", "store"):
        c = acc[op].coalescing
        assert (c.requests, c.sectors) == (8192, 131072), op
        assert c.sectors_per_request == 16.0 and c.wasted_bytes == 0 and c.n_programs == 1024
    assert acc["load"].vector_bits == 128 and acc["load"].tensor == "x_ptr"
    assert res.worst() == []  # nothing wasted: no "worst accesses"


def test_unaligned_length_makes_scalar_loads_and_more_requests():
    # n not a multiple of 16: Triton cannot prove the mask is uniform per 16 bytes and emits scalar
    # loads (read from the PTX); each warp instruction then spans 512 bytes for 128 useful ones
    n = 1000 * 1024 + 8
    x, out = torch.randn(n), torch.empty(n)
    res = layout_jit(_contiguous_copy, (4,), (x, out, n), {"BLOCK": 1024, "num_warps": 4}, "sm_90")
    load = _by_op(res)["load"]
    assert load.vector_bits == 32
    c = load.coalescing
    assert c.requests == 4 * 4 * 8  # programs x warps x 8 scalar instructions per thread (8 registers)
    assert c.sectors == c.requests * 16 and c.ideal_sectors == c.requests * 4
    assert c.wasted_bytes == (c.sectors - c.ideal_sectors) * SECTOR_BYTES


def test_column_walk_is_32_sectors_per_request_as_on_the_h200():
    # H200 (ncu): 1024 rows at a 1024-element stride = 32 requests, 1,024 sectors
    x, out = torch.randn(1024, 1024), torch.empty(1024)
    res = layout_jit(_column_walk, (1,), (x, out, 1024), {"ROWS": 1024, "num_warps": 4}, "sm_90")
    load = _by_op(res)["load"]
    c = load.coalescing
    assert (c.requests, c.sectors) == (32, 1024) and c.sectors_per_request == 32.0
    assert c.ideal_sectors == 1024 * 4 // SECTOR_BYTES and c.wasted_bytes == 1024 * 32 - 1024 * 4
    assert res.worst(1) == [load]
    assert res.worst(1)[0].line == load.line > 0


def test_an_unswizzled_shared_layout_has_32_way_conflicts_and_a_swizzle_removes_them():
    # a warp reading a row-major 64x32 fp32 buffer down a column: 32 lanes on 32 rows of 32 words
    # each hit the same bank without a swizzle; XOR-ing the column with the row spreads them
    import triton.experimental.gluon.language as gl

    shape = (64, 32)
    reg = gl.BlockedLayout([1, 1], [32, 1], [4, 1], [0, 1])  # lanes along rows, one element each
    threads = thread_map(to_linear(reg, shape), shape, 4)
    plain = IRValue(shape, "float32", gl.SwizzledSharedLayout(1, 1, 1, [1, 0]), True, "")
    swizzled = IRValue(shape, "float32", gl.SwizzledSharedLayout(1, 1, 32, [1, 0]), True, "")
    conflicted = bank_conflicts(threads, shared_offsets_of(plain), 4, 1)
    clean = bank_conflicts(threads, shared_offsets_of(swizzled), 4, 1)
    # 32 lanes x 4 warps cover 128 rows: the 64-row block is held twice (warps 2, 3 repeat 0, 1),
    # and each thread holds a row of 32 columns: 4 warps x 32 registers = 128 warp instructions
    assert threads.n_holders.min() == 2 and threads.n_registers == 32
    n_instructions = 4 * 32
    assert conflicted.instructions == clean.instructions == n_instructions
    assert np.all(conflicted.per_instruction_wavefronts == 32) and conflicted.conflicts == 31 * n_instructions
    assert np.all(clean.per_instruction_wavefronts == 1) and clean.conflicts == 0


def test_gluon_transpose_through_unswizzled_shared_memory_has_bank_conflicts():
    # a Gluon kernel (layouts written by hand) compiled on the CPU: writing rows is conflict-free,
    # reading columns of an unswizzled 64x64 fp32 buffer puts a warp's 32 words in one bank
    # (4 warps x 32 loads x 32 wavefronts); the swizzled buffer reads in one wavefront each
    from fixtures.gluon_kernels import transpose_through_shared

    x, out = torch.randn(64, 64), torch.empty(64, 64)
    got = {}
    for swizzle in (False, True):
        res = layout_jit(transpose_through_shared, (1,), (x, out), {"N": 64, "SWIZZLE": swizzle, "num_warps": 4},
                         "sm_90")
        acc = _by_op(res)
        assert "does not run under Triton's interpreter" in " ".join(res.notes)
        assert acc["load"].coalescing is None
        got[swizzle] = (acc["shared_store"].bank_conflicts, acc["shared_load"].bank_conflicts)
    (st, ld), (st_sw, ld_sw) = got[False], got[True]
    assert st.wavefronts == st.ideal_wavefronts == 128 and st_sw.conflicts == 0
    assert (ld.instructions, ld.wavefronts, ld.conflicts) == (128, 4096, 3968)
    assert (ld_sw.wavefronts, ld_sw.conflicts) == (128, 0)
    assert acc["shared_load"].shared_layout.params["max_phase"] == 32


def test_ldmatrix_operands_are_conflict_free_only_with_the_swizzle():
    # an mma.sync A operand (64x32 fp16, 2 warps) from Triton's swizzled layout: one wavefront per
    # 8x8 matrix; the same read from an unswizzled buffer (rows of 64 bytes: rows r and r+2 share
    # banks) needs 4 wavefronts per matrix
    import triton.experimental.gluon.language as gl

    from kernels.layout.coalescing import ldmatrix_conflicts

    shape = (64, 32)
    mma = gl.NVMMADistributedLayout(version=[2, 0], warps_per_cta=[1, 2], instr_shape=[16, 8])
    threads = thread_map(to_linear(gl.DotOperandLayout(0, mma, 2), shape), shape, 2)
    swizzled = shared_offsets_of(IRValue(shape, "float16", gl.SwizzledSharedLayout(8, 2, 4, [1, 0]), True, ""))
    plain = shared_offsets_of(IRValue(shape, "float16", gl.SwizzledSharedLayout(8, 1, 1, [1, 0]), True, ""))
    good, bad = ldmatrix_conflicts(threads, swizzled, 2, 1), ldmatrix_conflicts(threads, plain, 2, 1)
    assert good.ideal_wavefronts == bad.ideal_wavefronts == 2 * 32  # each warp reads all 32 matrices of A
    assert good.wavefronts == 64 and good.conflicts == 0
    assert bad.wavefronts == 4 * 64 and bad.conflicts == 3 * 64


def test_layout_request_reports_progress_and_stops_on_cancel():
    # the window's worker serves layout requests: a long interpreter run says how far it got and
    # stops when asked, answering with an error instead of numbers
    from kernels.data.layout import LayoutRequest
    from kernels.layout.service import layout

    seen = []
    res = layout(LayoutRequest("vector_add", {"N": 64 * 1024, "BLOCK_SIZE": 1024}), progress=seen.append)
    assert res.error is None and res.n_programs == 64
    assert seen and seen[0].stage == "tracing addresses" and seen[-1].total == 64 and seen[-1].unit == "programs"
    assert [p.done for p in seen] == sorted(p.done for p in seen)
    stopped = layout(LayoutRequest("vector_add", {"N": 64 * 1024, "BLOCK_SIZE": 1024}), cancel=lambda: True)
    assert stopped.error is not None and stopped.accesses == []
    assert "cancelled" in stopped.error.message
