"""Synthetic traces for the grid view and the source view — numpy only, never a recording.

Each demo replays, in numpy, the pointer arithmetic and masks that a Triton kernel computes (the
kernel's source is kept alongside as text, and its line numbers are the ones the events carry),
then fills a ``kernels.trace.model.Trace`` the way the tracer would: events columnar, active lanes
as logical flat element indices, masked and out-of-bounds lanes counted, and the per-element
writer/reader maps derived vectorized. ``Trace.triton_version`` says ``"synthetic (views.demo)"``
so a demo can never pass for a recording.

Memory model of the demos: every tensor is its own allocation with a gap after it, so an address
past the end of a tensor's storage lies in no tensor (an out-of-bounds lane) and its nearest
tensor is the one the pointer came from.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from kernels.trace.maps import derive  # numpy only: the same derivation the tracer uses
from kernels.trace.model import (
    OP_ATOMIC,
    OP_LOAD,
    OP_NAMES,
    OP_STORE,
    AccessTable,
    OOBRecord,
    TensorInfo,
    Trace,
)

__all__ = [
    "DEMOS",
    "SYNTHETIC",
    "demo_atomic_sum",
    "demo_copy_3d",
    "demo_matmul",
    "demo_oob",
    "demo_overlap",
    "demo_softmax",
    "demo_two_loops",
    "demo_vector_add",
]

SYNTHETIC = "synthetic (views.demo)"

_ELEMENT_SIZE = {"float32": 4, "float16": 2, "bfloat16": 2, "int32": 4, "int64": 8}


def _tensor(name: str, shape: tuple[int, ...], dtype: str = "float32") -> TensorInfo:
    strides = [1] * len(shape)
    for d in range(len(shape) - 2, -1, -1):
        strides[d] = strides[d + 1] * shape[d + 1]
    return TensorInfo(name=name, shape=tuple(shape), strides=tuple(strides), dtype=dtype,
                      storage_offset=0, element_size=_ELEMENT_SIZE[dtype])


def _line_of(source: str, first_line: int, needle: str) -> int:
    """The file line of the first source line containing ``needle`` (events must point at it)."""
    for i, text in enumerate(source.splitlines()):
        if needle in text:
            return first_line + i
    raise ValueError(f"{needle!r} not in the demo source")


def _storage_size(info: TensorInfo) -> int:
    if info.numel == 0:
        return info.storage_offset
    return info.storage_offset + sum((n - 1) * s for n, s in zip(info.shape, info.strides, strict=True)) + 1


def _logical_index(offsets: np.ndarray, info: TensorInfo) -> tuple[np.ndarray, np.ndarray]:
    """Logical flat (row-major) indices of element offsets, through the strides.

    Returns ``(flat, valid)``: ``valid`` is False where the offset lands in the storage but on no
    element of this view (a gap between strided rows). Works for any non-negative strides whose
    dims can be ordered so that each stride covers the ones inside it (contiguous, transposed,
    padded rows) — every layout the demos use.
    """
    rem = offsets - info.storage_offset
    valid = rem >= 0
    rem = np.where(valid, rem, 0)
    idx = [None] * len(info.shape)
    for d in sorted(range(len(info.shape)), key=lambda d: -info.strides[d]):
        stride = max(info.strides[d], 1)
        idx[d] = rem // stride
        rem = rem % stride
        valid &= idx[d] < info.shape[d]
    valid &= rem == 0
    if not info.shape:
        return np.zeros_like(offsets), valid
    flat = np.ravel_multi_index(tuple(np.where(valid, i, 0) for i in idx), info.shape)
    return flat.astype(np.int64), valid


class _Recorder:
    """Collects access events in batches (one event per program per batch) and builds the Trace.

    ``access`` takes what the kernel computes: for each program of the batch, the element
    offsets of every lane relative to the tensor's base pointer and the lane mask.
    """

    def __init__(self, tensors: list[TensorInfo], n_loops: int):
        self.tensors = tensors
        self.n_loops = n_loops
        self._batches: list[dict[str, np.ndarray]] = []
        self._oob: list[tuple[np.ndarray, int, int, int, np.ndarray, np.ndarray]] = []

    def access(self, programs: np.ndarray, op: int, tensor: str, line: int, offsets: np.ndarray,
               mask: np.ndarray | None = None, iters: tuple[int, ...] | None = None) -> None:
        t = [ti.name for ti in self.tensors].index(tensor)
        info = self.tensors[t]
        programs = np.asarray(programs, dtype=np.int32)
        offsets = np.asarray(offsets, dtype=np.int64).reshape(len(programs), -1)
        mask = np.ones(offsets.shape, bool) if mask is None else np.broadcast_to(mask, offsets.shape)
        in_storage = (offsets >= info.storage_offset) & (offsets < _storage_size(info))
        flat, on_element = _logical_index(offsets, info)
        active = mask & in_storage & on_element
        oob = mask & ~(in_storage & on_element)
        it = np.full((len(programs), self.n_loops), -1, np.int32)
        if iters is not None:
            it[:, : len(iters)] = iters
        n_oob = oob.sum(1).astype(np.int32)
        self._batches.append({
            "program": programs,
            "op": np.full(len(programs), op, np.int8),
            "tensor": np.full(len(programs), t, np.int16),
            "line": np.full(len(programs), line, np.int32),
            "iters": it,
            "n_active": active.sum(1).astype(np.int32),
            "n_masked": (~mask).sum(1).astype(np.int32),
            "n_oob": n_oob,
            "elements": flat[active],  # row-major over (program, lane): lanes stay grouped by event
        })
        for row in np.nonzero(n_oob)[0]:
            self._oob.append((programs[row], op, line, t, offsets[row][oob[row]], n_oob[row]))

    def build(self, kernel: str, values: dict[str, Any], grid: tuple[int, int, int],
              scalars: dict[str, Any], constexprs: dict[str, Any], source: str, source_file: str,
              first_line: int, loop_lines: list[int], t0: float, n_sms: int = 132,
              recorded: np.ndarray | None = None, loop_parents: list[int] | None = None) -> Trace:
        cols = {k: np.concatenate([b[k] for b in self._batches]) for k in self._batches[0]}
        seq = np.concatenate([np.full(len(b["program"]), i) for i, b in enumerate(self._batches)])
        # The tracer's order: program by program in dispatch order, each program's events in
        # program order (the batches were issued in program order).
        order = np.lexsort((seq, cols["program"]))
        n_active = cols["n_active"]
        batch_start = np.concatenate([[0], np.cumsum(n_active)[:-1]]).astype(np.int64)
        n = n_active[order]
        lane_start = np.concatenate([[0], np.cumsum(n)[:-1]]).astype(np.int64)
        gather = np.repeat(batch_start[order] - lane_start, n) + np.arange(int(n.sum()))
        events = AccessTable(
            program=cols["program"][order], op=cols["op"][order], tensor=cols["tensor"][order],
            line=cols["line"][order], iters=cols["iters"][order], n_active=n,
            n_masked=cols["n_masked"][order], n_oob=cols["n_oob"][order], lane_start=lane_start,
            elements=cols["elements"][gather],
        )
        t1 = time.perf_counter()
        n_programs = grid[0] * grid[1] * grid[2]
        programs = (np.arange(n_programs) if recorded is None else np.asarray(recorded)).astype(np.int32)
        window = (None if len(programs) == n_programs else
                  f"programs {programs.min()}..{programs.max()} of {n_programs}")
        maps, stats = derive(self.tensors, events, programs)
        trace = Trace(
            kernel=kernel, values=values, grid=grid, programs=programs,
            window=window, tensors=self.tensors, scalars=scalars, constexprs=constexprs,
            events=events, oob=self._oob_records(), maps=maps,
            stats=stats, source=source,
            source_file=source_file, source_first_line=first_line, loop_lines=loop_lines,
            loop_parents=loop_parents if loop_parents is not None else [-1] * len(loop_lines),
            n_sms=n_sms, programs_per_sm=1,
            wave=(programs // n_sms).astype(np.int32),
            triton_version=SYNTHETIC,
        )
        trace.record_s = t1 - t0
        trace.derive_s = time.perf_counter() - t1
        return trace

    def _oob_records(self) -> list[OOBRecord]:
        # One record per (program, op, line, tensor): a loop that overruns on every step is one
        # entry with the lanes summed, not one entry per iteration.
        merged: dict[tuple[int, int, int, int], list] = {}
        for prog, op, line, t, offs, count in self._oob:
            key = (int(prog), int(op), int(line), int(t))
            if key in merged:
                merged[key][0] += int(count)
            else:
                rel = offs - self.tensors[t].storage_offset
                merged[key] = [int(count), tuple(int(o) for o in rel[:4])]
        return [OOBRecord(program=p, op=OP_NAMES[op], line=line, count=c,
                          nearest_tensor=self.tensors[t].name, example_offsets=ex)
                for (p, op, line, t), (c, ex) in sorted(merged.items())]


# --------------------------------------------------------------------------------------------
# Vector add (and its two buggy variants)

VECTOR_ADD_SOURCE = '''\
@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)  # which block of the vectors this program handles
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements  # the last block may run past the end
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    output = x + y
    tl.store(out_ptr + offsets, output, mask=mask)
'''

OOB_SOURCE = '''\
@triton.jit
def add_kernel_no_mask(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    # BUG: no mask, so the last block reads and writes past the end of the vectors
    x = tl.load(x_ptr + offsets)
    y = tl.load(y_ptr + offsets)
    tl.store(out_ptr + offsets, x + y)
'''

OVERLAP_SOURCE = '''\
@triton.jit
def add_kernel_overlap(x_ptr, y_ptr, out_ptr, n_elements, STRIDE, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    # BUG: blocks start STRIDE apart but are BLOCK_SIZE long, so neighbouring blocks overlap
    offsets = pid * STRIDE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)
'''


def _vector_add_like(kernel: str, source: str, first_line: int, n: int, block: int,
                     step: int, masked: bool, extra_scalars: dict[str, Any],
                     window: int | None = None) -> Trace:
    t0 = time.perf_counter()
    if n < 1 or block < 1 or step < 1:
        raise ValueError("n, block and the block step must be positive")
    tensors = [_tensor("x", (n,)), _tensor("y", (n,)), _tensor("out", (n,))]
    rec = _Recorder(tensors, n_loops=0)
    n_prog = -(-n // step)
    pids = np.arange(n_prog if window is None else min(window, n_prog))
    offsets = pids[:, None] * step + np.arange(block)[None, :]
    mask = offsets < n if masked else None
    ln = lambda s: _line_of(source, first_line, s)
    rec.access(pids, OP_LOAD, "x", ln("tl.load(x_ptr"), offsets, mask)
    rec.access(pids, OP_LOAD, "y", ln("tl.load(y_ptr"), offsets, mask)
    rec.access(pids, OP_STORE, "out", ln("tl.store(out_ptr"), offsets, mask)
    return rec.build(kernel, {"N": n, "BLOCK_SIZE": block, "dtype": "fp32"}, (n_prog, 1, 1),
                     {"n_elements": n, **extra_scalars}, {"BLOCK_SIZE": block}, source,
                     f"<demo>/{kernel}.py", first_line, [], t0, recorded=pids)


def demo_vector_add(n: int = 1000, block: int = 256, window: int | None = None) -> Trace:
    """out = x + y over ``n`` fp32 elements, ``cdiv(n, block)`` programs; the last block masked.

    ``window``: record only the first ``window`` programs (``Trace.window`` says so), as the
    tracer does when the whole grid would take too long under the interpreter."""
    return _vector_add_like("vector_add", VECTOR_ADD_SOURCE, 18, n, block, block, True, {}, window)


def demo_oob(n: int = 1000, block: int = 256) -> Trace:
    """Vector add with the mask forgotten: the last program's trailing lanes are out of bounds."""
    return _vector_add_like("vector_add_no_mask", OOB_SOURCE, 18, n, block, block, False, {})


def demo_overlap(n: int = 1000, block: int = 256, stride: int = 224) -> Trace:
    """Vector add whose blocks start ``stride`` apart: elements in the overlaps are written twice."""
    return _vector_add_like("vector_add_overlap", OVERLAP_SOURCE, 18, n, block, stride, True,
                            {"STRIDE": stride})


# --------------------------------------------------------------------------------------------
# Matmul (the Triton tutorial's kernel, grouped program order)

MATMUL_SOURCE = '''\
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                  stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                  BLOCK_SIZE_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    # grouped order: GROUP_SIZE_M rows of C tiles are walked column by column (better L2 reuse)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
    offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K, other=0.0)
        accumulator = tl.dot(a, b, accumulator)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    c = accumulator.to(tl.float16)
    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)
'''


def matmul_program_tile(pid: np.ndarray, M: int, N: int, BM: int, BN: int,
                        group_m: int) -> tuple[np.ndarray, np.ndarray]:
    """(pid_m, pid_n) of linear program ids in the tutorial's grouped order."""
    num_pid_m, num_pid_n = -(-M // BM), -(-N // BN)
    in_group = group_m * num_pid_n
    first_m = (pid // in_group) * group_m
    size_m = np.minimum(num_pid_m - first_m, group_m)
    return first_m + (pid % in_group) % size_m, (pid % in_group) // size_m


def demo_matmul(M: int = 128, N: int = 128, K: int = 128, BM: int = 32, BN: int = 32, BK: int = 32,
                group_m: int = 2) -> Trace:
    """C = A @ B in fp16 with the tutorial kernel: per K step one A tile and one B tile per program."""
    t0 = time.perf_counter()
    src, first = MATMUL_SOURCE, 40
    ln = lambda s: _line_of(src, first, s)
    A, B, C = _tensor("a", (M, K), "float16"), _tensor("b", (K, N), "float16"), _tensor("c", (M, N), "float16")
    rec = _Recorder([A, B, C], n_loops=1)
    n_prog = -(-M // BM) * -(-N // BN)
    pids = np.arange(n_prog)
    pid_m, pid_n = matmul_program_tile(pids, M, N, BM, BN, group_m)
    offs_am = (pid_m[:, None] * BM + np.arange(BM)) % M  # [P, BM]
    offs_bn = (pid_n[:, None] * BN + np.arange(BN)) % N  # [P, BN]
    offs_k = np.arange(BK)
    (sam, sak), (sbk, sbn), (scm, scn) = A.strides, B.strides, C.strides
    for k in range(-(-K // BK)):
        kk = k * BK + offs_k
        a_off = offs_am[:, :, None] * sam + kk[None, None, :] * sak  # [P, BM, BK]
        b_off = kk[None, :, None] * sbk + offs_bn[:, None, :] * sbn  # [P, BK, BN]
        a_mask = np.broadcast_to((offs_k < K - k * BK)[None, None, :], a_off.shape)
        b_mask = np.broadcast_to((offs_k < K - k * BK)[None, :, None], b_off.shape)
        rec.access(pids, OP_LOAD, "a", ln("a = tl.load("), a_off, a_mask.reshape(n_prog, -1), (k,))
        rec.access(pids, OP_LOAD, "b", ln("b = tl.load("), b_off, b_mask.reshape(n_prog, -1), (k,))
    offs_cm = pid_m[:, None] * BM + np.arange(BM)
    offs_cn = pid_n[:, None] * BN + np.arange(BN)
    c_off = scm * offs_cm[:, :, None] + scn * offs_cn[:, None, :]
    c_mask = (offs_cm[:, :, None] < M) & (offs_cn[:, None, :] < N)
    rec.access(pids, OP_STORE, "c", ln("tl.store(c_ptrs"), c_off, c_mask.reshape(n_prog, -1))
    constexprs = {"BLOCK_SIZE_M": BM, "BLOCK_SIZE_N": BN, "BLOCK_SIZE_K": BK, "GROUP_SIZE_M": group_m}
    return rec.build("matmul", {"M": M, "N": N, "K": K, **constexprs, "dtype": "fp16"}, (n_prog, 1, 1),
                     {"M": M, "N": N, "K": K}, constexprs, src, "<demo>/matmul.py", first,
                     [ln("for k in range")], t0)


# --------------------------------------------------------------------------------------------
# Softmax (the tutorial's persistent kernel: each program loops over rows)

SOFTMAX_SOURCE = '''\
@triton.jit
def softmax_kernel(output_ptr, input_ptr, input_row_stride, output_row_stride, n_rows, n_cols,
                   BLOCK_SIZE: tl.constexpr):
    row_start = tl.program_id(0)
    row_step = tl.num_programs(0)  # persistent: each program takes every row_step-th row
    for row_idx in tl.range(row_start, n_rows, row_step):
        row_start_ptr = input_ptr + row_idx * input_row_stride
        col_offsets = tl.arange(0, BLOCK_SIZE)  # BLOCK_SIZE >= n_cols: a whole row in one block
        input_ptrs = row_start_ptr + col_offsets
        mask = col_offsets < n_cols
        row = tl.load(input_ptrs, mask=mask, other=-float("inf"))
        row_minus_max = row - tl.max(row, axis=0)
        numerator = tl.exp(row_minus_max)
        denominator = tl.sum(numerator, axis=0)
        softmax_output = numerator / denominator
        output_row_start_ptr = output_ptr + row_idx * output_row_stride
        output_ptrs = output_row_start_ptr + col_offsets
        tl.store(output_ptrs, softmax_output, mask=mask)
'''


def demo_softmax(rows: int = 32, cols: int = 100, block: int = 128, num_programs: int = 8) -> Trace:
    """Row softmax: program p handles rows p, p + num_programs, ... (one loop step per row)."""
    if block < cols:
        raise ValueError(f"BLOCK_SIZE={block} must cover a row of {cols} columns")
    t0 = time.perf_counter()
    src, first = SOFTMAX_SOURCE, 60
    ln = lambda s: _line_of(src, first, s)
    tensors = [_tensor("output", (rows, cols)), _tensor("input", (rows, cols))]
    rec = _Recorder(tensors, n_loops=1)
    n_prog = min(num_programs, rows)
    cols_off = np.arange(block)
    mask = cols_off < cols
    for it in range(-(-rows // n_prog)):
        pids = np.arange(n_prog)
        row = pids + it * n_prog
        pids, row = pids[row < rows], row[row < rows]
        offs = row[:, None] * cols + cols_off[None, :]
        m = np.broadcast_to(mask, offs.shape)
        rec.access(pids, OP_LOAD, "input", ln("row = tl.load("), offs, m, (it,))
        rec.access(pids, OP_STORE, "output", ln("tl.store(output_ptrs"), offs, m, (it,))
    return rec.build("softmax", {"rows": rows, "cols": cols, "BLOCK_SIZE": block, "dtype": "fp32"},
                     (n_prog, 1, 1), {"input_row_stride": cols, "output_row_stride": cols,
                                      "n_rows": rows, "n_cols": cols}, {"BLOCK_SIZE": block},
                     src, "<demo>/softmax.py", first, [ln("for row_idx in")], t0)


# --------------------------------------------------------------------------------------------
# A 3-D grid: copy a (batch, rows, cols) tensor, one program per block of a row of a batch entry

COPY_3D_SOURCE = '''\
@triton.jit
def copy3d_kernel(x_ptr, y_ptr, R, C, BLOCK: tl.constexpr):
    pid_c = tl.program_id(0)  # which block of columns
    r = tl.program_id(1)  # which row
    b = tl.program_id(2)  # which batch entry
    offs = pid_c * BLOCK + tl.arange(0, BLOCK)
    mask = offs < C
    base = (b * R + r) * C
    v = tl.load(x_ptr + base + offs, mask=mask)
    tl.store(y_ptr + base + offs, v, mask=mask)
'''


def demo_copy_3d(batch: int = 3, rows: int = 4, cols: int = 100, block: int = 32) -> Trace:
    """y = x for a (batch, rows, cols) tensor on a 3-D grid (cdiv(cols, block), rows, batch)."""
    t0 = time.perf_counter()
    src, first = COPY_3D_SOURCE, 12
    ln = lambda s: _line_of(src, first, s)
    tensors = [_tensor("x", (batch, rows, cols)), _tensor("y", (batch, rows, cols))]
    rec = _Recorder(tensors, n_loops=0)
    gx = -(-cols // block)
    grid = (gx, rows, batch)
    pids = np.arange(gx * rows * batch)
    pid_c, r, b = pids % gx, (pids // gx) % rows, pids // (gx * rows)
    offs = pid_c[:, None] * block + np.arange(block)[None, :]
    mask = offs < cols
    base = ((b * rows + r) * cols)[:, None]
    rec.access(pids, OP_LOAD, "x", ln("v = tl.load("), base + offs, mask)
    rec.access(pids, OP_STORE, "y", ln("tl.store(y_ptr"), base + offs, mask)
    return rec.build("copy_3d", {"batch": batch, "rows": rows, "cols": cols, "BLOCK": block},
                     grid, {"R": rows, "C": cols}, {"BLOCK": block}, src, "<demo>/copy_3d.py",
                     first, [], t0)


# --------------------------------------------------------------------------------------------
# Two loops one after the other: a row's mean, then the row minus its mean

TWO_LOOPS_SOURCE = '''\
@triton.jit
def center_rows_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for off in range(0, n_cols, BLOCK):  # pass 1: the row's sum, a block at a time
        cols = off + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0)
    mean = tl.sum(acc, axis=0) / n_cols
    for off in range(0, n_cols, BLOCK):  # pass 2: subtract the mean
        cols = off + tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_ptr + row * n_cols + cols, mask=mask)
        tl.store(y_ptr + row * n_cols + cols, x - mean, mask=mask)
'''


def demo_two_loops(rows: int = 8, cols: int = 200, block: int = 64) -> Trace:
    """y = x - mean(x) per row: two loops in sequence over column blocks (loop 0 reads x, loop 1
    reads x again and writes y), one program per row."""
    t0 = time.perf_counter()
    src, first = TWO_LOOPS_SOURCE, 30
    ln = lambda s: _line_of(src, first, s)
    tensors = [_tensor("x", (rows, cols)), _tensor("y", (rows, cols))]
    rec = _Recorder(tensors, n_loops=2)
    pids = np.arange(rows)
    steps = -(-cols // block)
    for k in range(steps):
        c = k * block + np.arange(block)
        offs = pids[:, None] * cols + c[None, :]
        rec.access(pids, OP_LOAD, "x", ln("acc += tl.load("), offs, np.broadcast_to(c < cols, offs.shape),
                   (k, -1))
    for k in range(steps):
        c = k * block + np.arange(block)
        offs = pids[:, None] * cols + c[None, :]
        m = np.broadcast_to(c < cols, offs.shape)
        rec.access(pids, OP_LOAD, "x", ln("x = tl.load("), offs, m, (-1, k))
        rec.access(pids, OP_STORE, "y", ln("tl.store(y_ptr"), offs, m, (-1, k))
    return rec.build("center_rows", {"rows": rows, "cols": cols, "BLOCK": block}, (rows, 1, 1),
                     {"n_cols": cols}, {"BLOCK": block}, src, "<demo>/center_rows.py", first,
                     [ln("# pass 1"), ln("# pass 2")], t0)


# --------------------------------------------------------------------------------------------
# Atomics: every program adds its block's sum into one element

ATOMIC_SUM_SOURCE = '''\
@triton.jit
def sum_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(x, axis=0))  # every program updates out[0]: atomics, no race
'''


def demo_atomic_sum(n: int = 1000, block: int = 256) -> Trace:
    """out[0] = sum(x): each program loads a block and atomically adds its partial sum."""
    t0 = time.perf_counter()
    src, first = ATOMIC_SUM_SOURCE, 50
    ln = lambda s: _line_of(src, first, s)
    tensors = [_tensor("x", (n,)), _tensor("out", (1,))]
    rec = _Recorder(tensors, n_loops=0)
    n_prog = -(-n // block)
    pids = np.arange(n_prog)
    offs = pids[:, None] * block + np.arange(block)[None, :]
    rec.access(pids, OP_LOAD, "x", ln("x = tl.load("), offs, offs < n)
    rec.access(pids, OP_ATOMIC, "out", ln("tl.atomic_add("), np.zeros((n_prog, 1), np.int64))
    return rec.build("atomic_sum", {"N": n, "BLOCK_SIZE": block}, (n_prog, 1, 1), {"n_elements": n},
                     {"BLOCK_SIZE": block}, src, "<demo>/atomic_sum.py", first, [], t0)


DEMOS: dict[str, Callable[[], Trace]] = {
    "vector add (N=1000, BLOCK=256)": demo_vector_add,
    "matmul 128³, 32×32×32 tiles, GROUP_M=2": demo_matmul,
    "softmax 32×100, 8 persistent programs": demo_softmax,
    "3-D grid: copy 3×4×100, BLOCK=32": demo_copy_3d,
    "two loops: centre 8 rows of 200": demo_two_loops,
    "atomics: sum 1000 elements into out[0]": demo_atomic_sum,
    "bug: vector add without mask (OOB)": demo_oob,
    "bug: overlapping blocks (several writers)": demo_overlap,
}
"""Name → builder, for the widgets' demo combos."""
