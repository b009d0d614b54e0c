"""The Threads view's picture, Qt-free: one access's block folded into rows and columns of cells,
each cell an element with the (warp, lane, register) that holds it, and the words around it (the
layout's header, the vector width, the coalescing numbers, the text under the pointer, the legend).

A 2-D block is drawn as it is (row ``i`` of the block is row ``i`` on screen). A 1-D block is
folded into rows of one warp instruction's footprint (32 lanes × the vector width, at most 256
elements a row), so each row is what one warp touches with one instruction and a warp's later
registers wrap onto later rows; the row labels give the flat index of each row's first element.
Blocks of more dimensions stack their leading ones into rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kernels.data.layout import SECTOR_BYTES, AccessLayout, Coalescing, LayoutInfo

from ..i18n import translate

__all__ = ["Tile", "fold", "access_tile", "shared_tile", "legend_counts", "hover_text", "header_text", "vector_text",
           "coalescing_text", "element_bits", "elements_per_vector", "access_name", "instruction_of"]

ROW_MAX_1D = 256  # elements per row of a folded 1-D block at most

# Triton's own spelling of each parameter (the TTGIR's), for the header
_TRITON_NAMES = {"size_per_thread": "sizePerThread", "threads_per_warp": "threadsPerWarp",
                 "warps_per_cta": "warpsPerCTA", "order": "order", "dim": "dim", "version": "versionMajor",
                 "instr_shape": "instrShape", "op_idx": "opIdx", "k_width": "kWidth", "vec": "vec",
                 "per_phase": "perPhase", "max_phase": "maxPhase", "swizzle_bytes": "swizzlingByteWidth",
                 "element_bitwidth": "elementBitWidth", "transposed": "transposed",
                 "reg_bases": "register", "lane_bases": "lane", "warp_bases": "warp"}
_BITS = {"float64": 64, "fp64": 64, "int64": 64, "uint64": 64, "float32": 32, "fp32": 32, "int32": 32,
         "uint32": 32, "tf32": 32, "float16": 16, "fp16": 16, "bfloat16": 16, "bf16": 16, "int16": 16,
         "uint16": 16, "int8": 8, "uint8": 8, "fp8e4nv": 8, "fp8e5": 8, "float8_e4m3fn": 8, "float8_e5m2": 8,
         "int1": 8, "bool": 8}


@dataclass
class Tile:
    """Cells of one access's block, row-major on screen. -1 in ``index`` (and the others): no
    element (the padding past the end of a folded 1-D block)."""

    shape: tuple[int, ...]  # the block's own shape
    index: np.ndarray  # int64 [rows, cols]: flat element index (row-major in ``shape``)
    warp: np.ndarray  # int32 [rows, cols]: the first holder's warp
    lane: np.ndarray
    register: np.ndarray
    holders: np.ndarray  # int32 [rows, cols]: slots holding the element (> 1: broadcast)
    row_len: int  # 1-D blocks: elements per row (a row's label is row * row_len); 2-D: 0
    kind: str = "threads"  # "banks": a shared-memory layout — warp = 16-byte bank group (bank // 4),
    #                         lane = bank, register = the element's offset in the buffer
    # bool [rows, cols]: masked off in the traced program (drawn pale); None: not traced
    masked: np.ndarray | None = None
    # int64 [rows, cols]: byte offset of the element in its tensor in the traced program (-1: masked)
    offsets: np.ndarray | None = None

    @property
    def rows(self) -> int:
        return int(self.index.shape[0])

    @property
    def cols(self) -> int:
        return int(self.index.shape[1])

    def element(self, row: int, col: int) -> int | None:
        """The flat element index drawn at (row, col), or None (outside, or padding)."""
        if not (0 <= row < self.rows and 0 <= col < self.cols):
            return None
        i = int(self.index[row, col])
        return i if i >= 0 else None

    def cell_of(self, flat: int) -> tuple[int, int]:
        """Where element ``flat`` is drawn: (row, col)."""
        width = self.row_len or self.cols
        return flat // width, flat % width


def element_bits(dtype: str) -> int:
    """Bits of one element of ``dtype`` ("float32", "fp16", "i32", …); 32 when unknown."""
    d = dtype.lower().replace("torch.", "").replace("tl.", "")
    if d in _BITS:
        return _BITS[d]
    digits = "".join(ch for ch in d if ch.isdigit())
    return int(digits) if digits in ("8", "16", "32", "64") else 32


def elements_per_vector(a: AccessLayout) -> int:
    """Elements each thread moves per instruction (1 when the access is scalar or not a memory access)."""
    return max(1, a.vector_bits // element_bits(a.dtype)) if a.vector_bits else 1


def row_length_1d(n: int, vector: int) -> int:
    """Elements per row of a folded 1-D block: one warp instruction's footprint (32 lanes × the
    vector width), at most ``ROW_MAX_1D`` and never more than the block."""
    return max(1, min(n, ROW_MAX_1D, 32 * max(1, vector)))


def fold(shape: tuple[int, ...], warp: np.ndarray, lane: np.ndarray, register: np.ndarray,
         holders: np.ndarray | None = None, vector: int = 1) -> Tile:
    """The cells of a block of ``shape`` whose element ``i`` (row-major) is held first by
    (``warp[i]``, ``lane[i]``, ``register[i]``) and by ``holders[i]`` slots in all."""
    shape = tuple(int(s) for s in shape)
    n = int(np.prod(shape)) if shape else 1
    held = np.ones(n, np.int32) if holders is None else holders
    flat = [np.asarray(x, np.int32).reshape(-1) for x in (warp, lane, register, held)]
    if len(shape) <= 1:
        cols = row_length_1d(n, vector)
        rows = -(-n // cols)
        pad = rows * cols - n
        idx = np.concatenate([np.arange(n, dtype=np.int64), np.full(pad, -1, np.int64)]).reshape(rows, cols)
        grids = [np.concatenate([x, np.full(pad, -1, np.int32)]).reshape(rows, cols) for x in flat]
        return Tile(shape, idx, *grids, row_len=cols)
    cols = shape[-1]
    rows = n // cols
    idx = np.arange(n, dtype=np.int64).reshape(rows, cols)
    return Tile(shape, idx, *(x.reshape(rows, cols) for x in flat), row_len=0)


def access_tile(a: AccessLayout) -> Tile | None:
    """The cells of access ``a`` (None: a shared layout, which no thread holds)."""
    t = a.threads
    if t is None:
        return shared_tile(a)
    tile = fold(t.shape, t.warp, t.lane, t.register, t.n_holders, vector=elements_per_vector(a))
    co = a.coalescing
    if co is not None and co.sample_offsets.size == tile.index[tile.index >= 0].size:
        flat = np.full(tile.index.shape, -1, np.int64)
        inside = tile.index >= 0
        flat[inside] = np.asarray(co.sample_offsets).reshape(-1)[tile.index[inside]]
        tile.offsets = flat
        tile.masked = inside & (flat < 0)
    return tile


def shared_tile(a: AccessLayout) -> Tile | None:
    """The cells of an access whose value lives in shared memory, by bank: each element's offset
    in the buffer (the engine's, from Triton's shared layout) -> byte -> bank (4-byte words over
    32 banks)."""
    if a.shared_offsets is None:
        return None
    offsets = np.asarray(a.shared_offsets, np.int64)
    bank = (offsets * (element_bits(a.dtype) // 8) // 4) % 32
    t = fold(a.shape, bank // 4, bank, offsets)
    t.kind = "banks"
    return t


def legend_counts(tile: Tile, num_warps: int) -> list[int]:
    """Elements each warp holds first (the colour it is drawn in), warp 0 … num_warps-1."""
    w = tile.warp[(tile.index >= 0) & (tile.warp >= 0)]
    return np.bincount(w, minlength=num_warps)[:num_warps].astype(int).tolist()


def element_name(shape: tuple[int, ...], flat: int) -> str:
    """``[r, c]`` for a 2-D block, ``[i]`` for a 1-D one."""
    if len(shape) <= 1:
        return f"[{flat}]"
    return "[" + ", ".join(str(int(v)) for v in np.unravel_index(flat, shape)) + "]"


def instruction_of(a: AccessLayout, warp: int, register: int) -> int:
    """The index, in ``Coalescing.per_instruction_*``, of the warp instruction that moves
    ``register`` of a thread of ``warp`` (warp-major, then the thread's register groups in order)."""
    n_regs = a.threads.n_registers if a.threads is not None else 1
    per_vec = max(1, min(elements_per_vector(a), n_regs))
    if n_regs % per_vec:  # the engine counts such an access one register at a time
        per_vec = 1
    return warp * (n_regs // per_vec) + register // per_vec


def hover_text(a: AccessLayout, tile: Tile, flat: int) -> str:
    """What the pointer on element ``flat`` says: its index and its (warp, lane, register); every
    holder when the layout broadcasts it; the warp instruction that moves it and that
    instruction's sectors in the sample program, when the access was traced."""
    r, c = tile.cell_of(flat)
    w, ln, reg = int(tile.warp[r, c]), int(tile.lane[r, c]), int(tile.register[r, c])
    if tile.kind == "banks":
        size = element_bits(a.dtype) // 8
        return translate("ThreadsView", "element {name} → shared offset {o} (byte {b}), bank {k}, "
                                        "16-byte group {g} of its 128-byte row").format(
            name=element_name(tile.shape, flat), o=reg, b=reg * size, k=ln, g=(reg * size // 16) % 8)
    text = translate("ThreadsView", "element {name} → warp {w}, lane {l}, register {r} (thread {t})").format(
        name=element_name(tile.shape, flat), w=w, l=ln, r=reg, t=w * 32 + ln)
    n = int(tile.holders[r, c])
    if n > 1 and a.threads is not None:
        others = a.threads.holders(flat)[1:4]
        more = ", ".join(f"w{x}/l{y}/r{z}" for x, y, z in others) + (", …" if n > 4 else "")
        text += translate("ThreadsView", " · held by {n} threads (broadcast: {more})").format(n=n, more=more)
    co = a.coalescing
    if tile.offsets is not None:
        off = int(tile.offsets[r, c])
        if off < 0:
            text += translate("ThreadsView", " · masked off in program {p}").format(p=co.sample_program)
        else:
            size = element_bits(a.dtype) // 8
            text += translate("ThreadsView", " · byte {b} of {t}, sector {s} (bytes {lo}–{hi} of it)").format(
                b=off, t=a.tensor or "?", s=off // SECTOR_BYTES, lo=off % SECTOR_BYTES,
                hi=off % SECTOR_BYTES + size - 1)
    if co is not None and co.per_instruction_sectors.size:
        i = instruction_of(a, w, reg)
        if 0 <= i < co.per_instruction_sectors.size:
            text += translate("ThreadsView", " · instruction {i} of program {p}: {s} sectors (ideal {ideal})").format(
                i=i, p=co.sample_program, s=int(co.per_instruction_sectors[i]),
                ideal=int(co.per_instruction_ideal[i]))
    return text


def _value(v: object) -> str:
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    return str(v)


def header_text(info: LayoutInfo) -> str:
    """The layout's kind and parameters in Triton's words, parents after: ``blocked ·
    sizePerThread [4] · threadsPerWarp [32] · warpsPerCTA [4] · order [0]``."""
    parts = [info.kind] + [f"{_TRITON_NAMES.get(k, k)} {_value(v)}" for k, v in info.params.items()]
    text = " · ".join(parts)
    if info.parent is not None:
        text += translate("ThreadsView", "  (of {parent})").format(parent=header_text(info.parent))
    return text


def vector_text(a: AccessLayout) -> str:
    """The width of each thread's accesses: ``128-bit vectors: 4 × float32 per thread``, scalar,
    or nothing to say (a ``tl.dot`` operand in registers)."""
    if a.threads is None:
        return translate("ThreadsView", "{dtype} in shared memory: no thread holds it; each cell is coloured by "
                                        "its 16-byte bank group and labelled with its bank").format(dtype=a.dtype)
    if not a.vector_bits:
        return translate("ThreadsView", "{dtype}, in registers (no memory instruction)").format(dtype=a.dtype)
    n = elements_per_vector(a)
    if n <= 1:
        return translate("ThreadsView", "scalar: one {dtype} ({bits}-bit) per thread per instruction").format(
            dtype=a.dtype, bits=a.vector_bits)
    return translate("ThreadsView", "{bits}-bit vectors: {n} × {dtype} per thread").format(
        bits=a.vector_bits, n=n, dtype=a.dtype)


def coalescing_text(c: Coalescing) -> str:
    """Sectors per request, ideal against actual, and the bytes fetched but not used."""
    ideal = c.ideal_sectors / c.requests if c.requests else 0.0
    where = (translate("ThreadsView", "in program {p}").format(p=c.sample_program) if c.n_programs == 1 else
             translate("ThreadsView", "over {n} programs").format(n=c.n_programs))
    return translate("ThreadsView", "sectors/request {per:.1f} (ideal {ideal:.1f}) · {req} requests, {sec} sectors "
                                    "{where} · {waste} bytes wasted ({eff:.0%} of the bytes moved were used)").format(
        per=c.sectors_per_request, ideal=ideal, req=c.requests, sec=c.sectors, where=where,
        waste=c.wasted_bytes, eff=(c.bytes_used / (c.sectors * SECTOR_BYTES)) if c.sectors else 1.0)


_OP_NAMES = {"dot_a": "tl.dot A", "dot_b": "tl.dot B", "accumulator": "tl.dot accumulator"}


def access_name(a: AccessLayout) -> str:
    """``load x_ptr · line 30``: what the picker lists."""
    what = f"{_OP_NAMES.get(a.op, a.op)} {a.tensor}".strip()
    if a.line >= 0:
        return translate("ThreadsView", "{what} · line {line}").format(what=what, line=a.line)
    return what
