"""Inside one program: which thread holds each element of an access, and what the access costs.

GUI-safe (numpy + standard library only). The engine (``kernels.layout``) fills these from the
compiled kernel's TTGIR (layouts through Triton's linear layouts) and the interpreter trace (the
addresses each lane touches); the Threads view and ``tilescope layout`` only read them.

Vocabulary:

- a **hardware slot** is (warp, lane, register) of one program: ``ThreadMap.element_of[w, l, r]``
  is the flat (row-major) index into the access's block shape of the element that slot holds.
  Every slot holds exactly one element; an element may be held by several slots (a broadcast
  layout, or a block smaller than what the layout covers);
- a **warp instruction** (one "request" in Nsight Compute's terms) is one vector of
  ``vector_bits`` per thread across the 32 lanes of a warp: a thread's registers are issued in
  groups of ``vector_bits / element bits`` consecutive registers;
- a **sector** is an aligned 32-byte piece of global memory; the ideal number of sectors of an
  instruction is the fewest that could hold the distinct bytes it touches;
- shared memory has 32 banks of 4 bytes; a shared access needs as many **wavefronts** as the
  most distinct 4-byte words any one bank must deliver (one wavefront when conflict-free).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["ACCESS_OPS", "LAYOUT_KINDS", "AccessLayout", "BankConflicts", "Coalescing", "LayoutInfo",
           "LayoutRequest", "LayoutResult", "ThreadMap", "SECTOR_BYTES", "N_BANKS", "BANK_BYTES"]

SECTOR_BYTES = 32
N_BANKS = 32
BANK_BYTES = 4

#: what an access does: a global ``load`` / ``store`` / ``atomic``; a ``tl.dot``'s operands
#: (``dot_a``, ``dot_b``) and its ``accumulator``; a shared-memory ``shared_load`` (local_load),
#: ``shared_store`` (local_alloc with a value, local_store); ``async_copy`` (global -> shared,
#: cp.async, what pipelined matmul loads become on sm_80+)
ACCESS_OPS = ("load", "store", "atomic", "dot_a", "dot_b", "accumulator", "shared_load", "shared_store",
              "async_copy")

#: ``LayoutInfo.kind`` values and the ``params`` keys each carries (lists of ints, one per dim):
#:
#: - ``blocked``: size_per_thread, threads_per_warp, warps_per_cta, order
#: - ``slice``: dim (the dimension removed from ``parent``)
#: - ``mma``: version (major, minor: 2 = Ampere mma.sync, 3 = Hopper wgmma), warps_per_cta,
#:   instr_shape
#: - ``dot_operand``: op_idx (0 = A, 1 = B), k_width (elements per thread along K)
#: - ``swizzled_shared``: vec, per_phase, max_phase, order
#: - ``nvmma_shared``: swizzle_bytes (0, 32, 64, 128), element_bitwidth, transposed
#: - ``linear``: reg_bases, lane_bases, warp_bases
#: - ``other``: none (``text`` is all there is)
LAYOUT_KINDS = ("blocked", "slice", "mma", "dot_operand", "swizzled_shared", "nvmma_shared", "linear", "other")


@dataclass(frozen=True)
class LayoutInfo:
    """One layout attribute of the TTGIR: ``kind`` (``LAYOUT_KINDS``), its parameters, the text
    Triton prints for it, and for ``slice`` / ``dot_operand`` the layout it is derived from."""

    kind: str
    params: dict[str, Any] = field(default_factory=dict)
    text: str = ""
    parent: LayoutInfo | None = None

    @property
    def is_shared(self) -> bool:
        return self.kind in ("swizzled_shared", "nvmma_shared")

    def describe(self) -> str:
        """One line: the kind and its parameters, parents in brackets."""
        body = ", ".join(f"{k}={v}" for k, v in self.params.items())
        inner = f" of [{self.parent.describe()}]" if self.parent is not None else ""
        return f"{self.kind}({body}){inner}"


@dataclass
class ThreadMap:
    """Which hardware slot holds each element of a block of ``shape`` in one program.

    ``element_of`` int64 [n_warps, 32, n_registers]: the flat row-major element index each
    (warp, lane, register) holds, as Triton's linear layout gives it. The per-element arrays
    (each of ``shape``) name the first holder — lowest warp, then lane, then register — and
    ``n_holders`` how many slots hold the element (1 unless the layout broadcasts)."""

    shape: tuple[int, ...]
    element_of: np.ndarray
    warp: np.ndarray = field(init=False)
    lane: np.ndarray = field(init=False)
    register: np.ndarray = field(init=False)
    n_holders: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        self.element_of = np.asarray(self.element_of, dtype=np.int64)
        n_warps, n_lanes, n_regs = self.element_of.shape
        numel = int(np.prod(self.shape)) if self.shape else 1
        flat = self.element_of.reshape(-1)
        first = np.full(numel, -1, dtype=np.int64)
        order = np.argsort(flat, kind="stable")  # slots are warp-major: the lowest slot comes first
        elems = flat[order]
        starts = np.flatnonzero(np.r_[True, elems[1:] != elems[:-1]])
        first[elems[starts]] = order[starts]
        counts = np.bincount(flat, minlength=numel)
        w, rest = np.divmod(np.where(first >= 0, first, 0), n_lanes * n_regs)
        ln, r = np.divmod(rest, n_regs)
        missing = first < 0
        self.warp = np.where(missing, -1, w).astype(np.int32).reshape(self.shape)
        self.lane = np.where(missing, -1, ln).astype(np.int32).reshape(self.shape)
        self.register = np.where(missing, -1, r).astype(np.int32).reshape(self.shape)
        self.n_holders = counts.astype(np.int32).reshape(self.shape)

    @property
    def n_warps(self) -> int:
        return int(self.element_of.shape[0])

    @property
    def n_registers(self) -> int:
        return int(self.element_of.shape[2])

    def holders(self, flat_index: int) -> list[tuple[int, int, int]]:
        """Every (warp, lane, register) that holds the element at ``flat_index``."""
        w, ln, r = np.nonzero(self.element_of == int(flat_index))
        return list(zip(w.tolist(), ln.tolist(), r.tolist(), strict=True))


@dataclass(frozen=True)
class Coalescing:
    """Global-memory cost of one access summed over the recorded programs (each program's warp
    instructions as ``AccessLayout.vector_bits`` vectors, masked-off lanes issuing nothing).

    ``requests``: warp instructions that touched memory; ``sectors``: 32-byte sectors they
    touched, counted per instruction; ``ideal_sectors``: the fewest sectors each instruction's
    distinct bytes fit in; ``bytes_used``: distinct bytes per instruction, summed.
    ``per_instruction_sectors`` / ``per_instruction_ideal`` (int32 [I]): the same for each warp
    instruction of ``sample_program`` (warp-major, then instruction order), for drawing;
    ``sample_offsets`` (int64 [block shape]): each element's byte offset in its tensor's storage in
    ``sample_program``'s first execution of the access, -1 where masked off (the Threads view's
    address and sector of an element)."""

    requests: int
    sectors: int
    ideal_sectors: int
    bytes_used: int
    n_programs: int
    sample_program: int = -1
    per_instruction_sectors: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32))
    per_instruction_ideal: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32))
    sample_offsets: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))

    @property
    def sectors_per_request(self) -> float:
        return self.sectors / self.requests if self.requests else 0.0

    @property
    def wasted_bytes(self) -> int:
        """Bytes moved in sectors that no lane asked for."""
        return self.sectors * SECTOR_BYTES - self.bytes_used

    @property
    def efficiency(self) -> float:
        """ideal / actual sectors (1.0 = perfectly coalesced)."""
        return self.ideal_sectors / self.sectors if self.sectors else 1.0


@dataclass(frozen=True)
class BankConflicts:
    """Shared-memory cost of one shared access in one program, from its shared layout's swizzle
    and the register layout that reads or writes it (32 banks x 4 bytes; each warp instruction
    moves ``vector_bits`` per thread). ``wavefronts`` summed over the program's warp
    instructions, ``ideal_wavefronts`` the fewest those bytes need; ``conflicts`` the excess."""

    instructions: int
    wavefronts: int
    ideal_wavefronts: int
    vector_bits: int
    per_instruction_wavefronts: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32))

    @property
    def conflicts(self) -> int:
        return self.wavefronts - self.ideal_wavefronts


@dataclass
class AccessLayout:
    """One access of the compiled kernel: what it is, where in the source, its layout and costs.

    ``op``: one of ``ACCESS_OPS``; ``ir_op``: the TTGIR operation (``tt.load``, ``ttg.local_load``,
    ...); ``tensor``: the kernel argument it addresses ("" when not a global access or unknown);
    ``line`` / ``column``: in ``LayoutResult.source_file`` (-1 unknown); ``shape``: the block's
    shape (the tensor value's shape in the IR); ``dtype``: element type ("float32", ...);
    ``threads``: the element -> (warp, lane, register) map (None for a shared layout, which has
    no threads); ``vector_bits``: bits per thread per instruction (128 = one 16-byte vector, 32 =
    scalar fp32); ``coalescing`` (global accesses with a trace) and ``bank_conflicts`` (shared
    accesses) when computed; ``shared_layout``: the shared layout a shared access reads/writes;
    ``shared_offsets`` (int64 [shape], for an access whose value lives in shared memory, such as a
    wgmma operand): each element's offset in its shared buffer, in elements (the Threads view
    draws its bank)."""

    index: int
    op: str
    ir_op: str
    layout: LayoutInfo
    shape: tuple[int, ...]
    dtype: str
    line: int = -1
    column: int = -1
    tensor: str = ""
    threads: ThreadMap | None = None
    vector_bits: int = 0
    coalescing: Coalescing | None = None
    bank_conflicts: BankConflicts | None = None
    shared_layout: LayoutInfo | None = None
    notes: list[str] = field(default_factory=list)
    #: times the access ran over the traced programs (the interpreter's count at its source line;
    #: a shared access takes the count of the global access on its line): 0 when not traced
    executions: int = 0
    shared_offsets: np.ndarray | None = None


@dataclass(frozen=True)
class LayoutRequest:
    """``tilescope layout`` / the Threads view: compile ``kernel`` at ``values`` for ``target``,
    read each access's layout, and (``coalescing``) trace ``programs`` (a ``Window`` text such as
    "0:4"; "" = every program) on the interpreter for the addresses."""

    kernel: str
    values: dict[str, Any] = field(default_factory=dict)
    target: str = "sm_90"
    user_file: str | None = None
    coalescing: bool = True
    programs: str = ""
    seed: int = 0
    generation: int = 0


@dataclass
class LayoutResult:
    """Every access of one compiled launch. ``num_warps`` and ``threads_per_warp`` from the
    compiled module; ``n_programs``: programs traced for the coalescing numbers (0: none) of
    the launch's ``grid``; ``error`` set (and ``accesses`` empty) when the request failed."""

    kernel: str
    target: str
    num_warps: int
    accesses: list[AccessLayout]
    source_file: str = ""
    triton_version: str = ""
    threads_per_warp: int = 32
    n_programs: int = 0
    grid: tuple[int, int, int] = (1, 1, 1)
    notes: list[str] = field(default_factory=list)
    error: Any = None  # an ``ErrorInfo`` (kernels.data.results) when the request failed

    def at_line(self, line: int) -> list[AccessLayout]:
        return [a for a in self.accesses if a.line == line]

    def worst(self, n: int = 5) -> list[AccessLayout]:
        """The ``n`` global accesses that waste most bytes (then lowest sector efficiency); an
        access that wastes nothing is never among them."""
        measured = [a for a in self.accesses if a.coalescing is not None and a.coalescing.wasted_bytes > 0]
        measured.sort(key=lambda a: (-a.coalescing.wasted_bytes, a.coalescing.efficiency))
        return measured[:n]
