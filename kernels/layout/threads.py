"""Element <-> (warp, lane, register) and element -> shared-memory offset, from Triton's linear
layouts (``ttgir.to_linear``).

A linear layout maps each input index (a register, lane, warp or shared offset number) to an
element's coordinates by XOR-ing the bases of the input's set bits (Triton's
``LinearLayout::apply``, bit by bit over GF(2)): Triton gives the bases, this evaluates them for
every slot at once with numpy. ``tests/kernels/test_layout_threads.py`` checks the result
against Triton's own ``LinearLayout.apply`` on both Triton versions.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..data.layout import ThreadMap

__all__ = ["apply_bases", "thread_map", "shared_offsets"]


def apply_bases(bases: list[list[int]], n_in: int, rank: int) -> np.ndarray:
    """int64 [n_in, rank]: the coordinates input ``i`` maps to, XOR of the bases of ``i``'s set
    bits (``n_in`` = 2 ** len(bases))."""
    out = np.zeros((n_in, rank), dtype=np.int64)
    idx = np.arange(n_in, dtype=np.int64)
    for bit, basis in enumerate(bases):
        on = ((idx >> bit) & 1).astype(bool)
        out[on] ^= np.asarray(basis, dtype=np.int64).reshape(1, rank)
    return out


def _flat(coords: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    flat = np.zeros(coords.shape[:-1], dtype=np.int64)
    for d, n in enumerate(shape):
        flat = flat * n + coords[..., d]
    return flat


def thread_map(linear: Any, shape: tuple[int, ...], n_warps: int | None = None) -> ThreadMap:
    """The ``ThreadMap`` of a Gluon ``DistributedLinearLayout`` over ``shape``. ``n_warps``:
    the program's warps (a layout that uses fewer warp bases than the program has warps repeats
    the same elements on the others)."""
    rank = len(shape)
    regs = apply_bases(list(linear.reg_bases), 1 << len(linear.reg_bases), rank)
    lanes = apply_bases(list(linear.lane_bases), 1 << len(linear.lane_bases), rank)
    warps = apply_bases(list(linear.warp_bases), 1 << len(linear.warp_bases), rank)
    if n_warps is not None and n_warps > warps.shape[0]:
        warps = np.tile(warps, (n_warps // warps.shape[0], 1))
    coords = warps[:, None, None, :] ^ lanes[None, :, None, :] ^ regs[None, None, :, :]
    return ThreadMap(tuple(shape), _flat(coords, tuple(shape)))


def shared_offsets(linear: Any, shape: tuple[int, ...]) -> np.ndarray:
    """int64 [shape]: the shared-memory offset (in elements) of each element of a block stored
    with a shared layout (Gluon ``SharedLinearLayout``: its offset bases map offset -> element;
    a shared layout is a bijection, so this inverts it)."""
    rank = len(shape)
    bases = list(linear.offset_bases)
    coords = apply_bases(bases, 1 << len(bases), rank)
    flat = _flat(coords, tuple(shape))
    out = np.full(int(np.prod(shape)), -1, dtype=np.int64)
    out[flat] = np.arange(flat.size, dtype=np.int64)
    return out.reshape(shape)


def swizzled_offsets(shape: tuple[int, ...], vec: int, per_phase: int, max_phase: int,
                     order: list[int]) -> np.ndarray:
    """int64 [shape]: shared offsets (elements) of a ``swizzled_shared`` layout by the formula
    Triton documents for it (TritonGPUAttrDefs.td, SwizzledSharedEncodingAttr): along the
    fastest dimension ``order[0]`` groups of ``vec`` elements are XOR-ed with the phase
    ``(row // per_phase) % max_phase`` of the next dimension ``order[1]`` (modulo the
    groups a row has).

    Only for Triton 3.6, whose ``to_linear_layout`` aborts the process on a shared layout;
    ``tests/kernels/test_layout_threads.py`` checks this against Triton 3.9's linear layout."""
    rank = len(shape)
    idx = np.indices(shape, dtype=np.int64)
    fast = order[0]
    col = idx[fast]
    if rank > 1:
        row = idx[order[1]]
        phase = (row // per_phase) % max_phase
        col = (((col // vec) ^ phase) % max(1, shape[fast] // vec)) * vec + col % vec
    coords = list(idx)
    coords[fast] = col
    out = np.zeros(shape, dtype=np.int64)
    for d in reversed(order):  # the slowest dimension first
        out = out * shape[d] + coords[d]
    return out


def nvmma_offsets(shape: tuple[int, ...], swizzle_bytes: int, element_bits: int, transposed: bool) -> np.ndarray:
    """int64 [shape]: shared offsets (elements) of an ``nvmma_shared`` layout by the formula of
    the NVMMA (wgmma / TMA) swizzle modes: the contiguous dimension (the last, or the first when
    ``transposed``) is cut into columns of ``swizzle_bytes``; each column is stored whole, one
    after the other, and inside it 16-byte groups are XOR-ed with ``(row // (128 /
    swizzle_bytes)) % (swizzle_bytes / 16)``. ``swizzle_bytes`` 0: no swizzle, rows of 16-byte
    columns... treated as a plain row-major layout here.

    Only for Triton 3.6 (see ``swizzled_offsets``); checked against Triton 3.9 in the tests."""
    if len(shape) != 2:
        raise ValueError(f"nvmma_shared offsets for rank {len(shape)} are not computed here")
    rows, cols = (shape[1], shape[0]) if transposed else shape
    idx_r, idx_c = np.indices((rows, cols), dtype=np.int64)
    if swizzle_bytes == 0:
        out = idx_r * cols + idx_c
    else:
        elems = swizzle_bytes * 8 // element_bits  # elements per swizzle column
        vec = 128 // element_bits  # elements per 16 bytes
        per_phase, max_phase = 128 // swizzle_bytes, swizzle_bytes // 16
        tile, c = np.divmod(idx_c, elems)
        phase = (idx_r // per_phase) % max_phase
        c = ((c // vec) ^ phase) * vec + c % vec
        out = tile * (rows * elems) + idx_r * elems + c
    return out.T.copy() if transposed else out
