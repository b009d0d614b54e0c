"""Sectors and requests of a global access, bank conflicts of a shared one — numpy only.

A warp instruction is one vector of ``vector`` consecutive registers per thread over the 32
lanes of a warp (Triton issues a thread's registers in that order, ``vector`` at a time), so the
elements an instruction touches are ``ThreadMap.element_of`` cut along its register axis. With
each element's byte address (the interpreter's pointers for that program) the instruction
touches a set of 32-byte sectors; Nsight Compute's ``l1tex__t_requests`` counts the
instructions that some lane executes, ``l1tex__t_sectors`` the distinct sectors per instruction.

Shared memory: 32 banks of 4 bytes. An instruction moving ``b`` bytes per thread is served in
phases of ``128 / b`` lanes (all 32 lanes up to 4 bytes, 16 at 8 bytes, 8 at 16 bytes, as
``ldmatrix`` and ``ld.shared.v4`` are); a phase takes as many wavefronts as the most distinct
words one bank must deliver.
"""

from __future__ import annotations

import numpy as np

from ..data.layout import BANK_BYTES, N_BANKS, SECTOR_BYTES, BankConflicts, Coalescing, ThreadMap

__all__ = ["CoalescingCounter", "bank_conflicts", "instruction_slots", "shared_vector"]


def instruction_slots(threads: ThreadMap, vector: int) -> np.ndarray:
    """int64 [warps, instructions, 32, vector]: the block element each lane's vector slot holds
    in each warp instruction (``vector`` elements per thread per instruction)."""
    e = threads.element_of
    n_warps, n_lanes, n_regs = e.shape
    vector = max(1, min(int(vector), n_regs))
    if n_regs % vector:
        vector = 1
    return e.reshape(n_warps, n_lanes, n_regs // vector, vector).transpose(0, 2, 1, 3)


def _distinct_per_row(values: np.ndarray) -> np.ndarray:
    """Distinct non-negative values in each row of a 2-D array (negative = nothing)."""
    s = np.sort(values, axis=1)
    new = np.ones(s.shape, dtype=bool)
    new[:, 1:] = s[:, 1:] != s[:, :-1]
    return (new & (s >= 0)).sum(axis=1)


class CoalescingCounter:
    """Counts one global access over programs: ``add(ptrs, mask)`` per execution (the block's
    byte addresses and mask as the interpreter has them), ``result()`` at the end.

    ``dedupe``: stores and atomics — Triton has one thread write an element held by several
    (the others are predicated off), and loads read it in every holder."""

    def __init__(self, threads: ThreadMap, vector: int, element_size: int, dedupe: bool) -> None:
        self.slots = instruction_slots(threads, vector)
        shape = self.slots.shape
        self.rows = shape[0] * shape[1]
        self.slots2 = self.slots.reshape(self.rows, shape[2] * shape[3])
        self.esize = int(element_size)
        self.keep = None
        if dedupe:
            first = np.zeros(threads.element_of.shape, dtype=bool)
            w, ln, r = threads.warp.ravel(), threads.lane.ravel(), threads.register.ravel()
            ok = w >= 0
            first[w[ok], ln[ok], r[ok]] = True
            n_warps, n_lanes, n_regs = first.shape
            v = shape[3]
            self.keep = first.reshape(n_warps, n_lanes, n_regs // v, v).transpose(0, 2, 1, 3).reshape(self.rows, -1)
        self.requests = self.sectors = self.ideal = self.bytes_used = 0
        self.n_programs = 0
        self.sample_program = -1
        self.sample_sectors = np.zeros(0, np.int32)
        self.sample_ideal = np.zeros(0, np.int32)
        self.sample_offsets: np.ndarray | None = None

    def add(self, ptrs: np.ndarray, mask: np.ndarray | None, program: int, first_of_program: bool,
            base: int = 0) -> None:
        """One execution of the access by ``program``; ``base``: the address its tensor's storage
        starts at (for the sample program's byte offsets)."""
        flat = np.asarray(ptrs, dtype=np.int64).reshape(-1)
        addr = flat[self.slots2]
        if mask is not None:
            m = np.broadcast_to(np.asarray(mask, dtype=bool), np.shape(ptrs)).reshape(-1)[self.slots2]
        else:
            m = np.ones(addr.shape, dtype=bool)
        if self.keep is not None:
            m = m & self.keep
        issued = m.any(axis=1)
        sectors = _distinct_per_row(np.where(m, addr // SECTOR_BYTES, -1))
        used = _distinct_per_row(np.where(m, addr, -1)) * self.esize
        ideal = -(-used // SECTOR_BYTES)
        self.requests += int(issued.sum())
        self.sectors += int(sectors.sum())
        self.ideal += int(ideal.sum())
        self.bytes_used += int(used.sum())
        if first_of_program:
            self.n_programs += 1
        if self.sample_program < 0 or self.sample_program == program:
            self.sample_program = program
            self.sample_sectors = np.r_[self.sample_sectors, sectors.astype(np.int32)]
            self.sample_ideal = np.r_[self.sample_ideal, ideal.astype(np.int32)]
            if self.sample_offsets is None:
                on = (np.ones(flat.shape, dtype=bool) if mask is None else
                      np.broadcast_to(np.asarray(mask, dtype=bool), np.shape(ptrs)).reshape(-1))
                self.sample_offsets = np.where(on, flat - int(base), -1).reshape(np.shape(ptrs))

    def result(self) -> Coalescing:
        offsets = self.sample_offsets if self.sample_offsets is not None else np.zeros(0, np.int64)
        return Coalescing(self.requests, self.sectors, self.ideal, self.bytes_used, self.n_programs,
                          self.sample_program, self.sample_sectors, self.sample_ideal, offsets)


def shared_vector(threads: ThreadMap, offsets: np.ndarray, element_bits: int, max_bits: int = 128) -> int:
    """The widest vector (elements, a power of two, at most ``max_bits``) such that every thread's
    aligned groups of that many consecutive registers sit at consecutive, aligned shared
    offsets — what Triton's lowering of a shared load or store can use."""
    off = np.asarray(offsets).reshape(-1)[threads.element_of]  # [W, 32, R]
    n_regs = off.shape[2]
    best = 1
    v = 2
    while v * element_bits <= max_bits and v <= n_regs and n_regs % v == 0:
        g = off.reshape(off.shape[0], off.shape[1], n_regs // v, v)
        if not (np.all(g[..., 0] % v == 0) and np.all(np.diff(g, axis=3) == 1)):
            break
        best, v = v, v * 2
    return best


def bank_conflicts(threads: ThreadMap, offsets: np.ndarray, element_size: int, vector: int) -> BankConflicts:
    """Wavefronts of one shared access in one program: each warp instruction moves ``vector``
    elements per thread from the shared offsets (elements) ``offsets[element]``."""
    slots = instruction_slots(threads, vector)  # [W, I, 32, v]
    n_w, n_i, n_l, v = slots.shape
    byte = np.asarray(offsets).reshape(-1)[slots] * element_size  # first byte of each element
    lane_bytes = v * element_size
    # every 4-byte word each lane touches
    words_per_elem = max(1, element_size // BANK_BYTES)
    words = (byte[..., None] // BANK_BYTES + np.arange(words_per_elem)).reshape(n_w, n_i, n_l, -1)
    lanes_per_phase = max(1, min(n_l, (N_BANKS * BANK_BYTES) // max(1, lane_bytes)))
    n_ph = n_l // lanes_per_phase
    words = words.reshape(n_w * n_i, n_ph, lanes_per_phase * words.shape[-1])
    per_instr = np.zeros(n_w * n_i, dtype=np.int64)
    ideal = 0
    for p in range(n_ph):
        w = words[:, p, :]
        s = np.sort(w, axis=1)
        distinct = np.ones(s.shape, dtype=bool)
        distinct[:, 1:] = s[:, 1:] != s[:, :-1]
        banks = np.where(distinct, s % N_BANKS, -1)
        counts = np.stack([(banks == b).sum(axis=1) for b in range(N_BANKS)], axis=1)
        per_instr += counts.max(axis=1)
        ideal += int(np.sum(-(-distinct.sum(axis=1) // N_BANKS)))
    return BankConflicts(instructions=n_w * n_i, wavefronts=int(per_instr.sum()), ideal_wavefronts=ideal,
                         vector_bits=v * element_size * 8, per_instruction_wavefronts=per_instr.astype(np.int32))


def ldmatrix_conflicts(threads: ThreadMap, offsets: np.ndarray, element_size: int, contiguous_dim: int) -> BankConflicts:
    """Wavefronts of an mma.sync operand loaded with ``ldmatrix`` (16-bit elements): each warp
    reads its part of the tile as 8x8 matrices, a matrix being 8 rows of 16 bytes (8 elements
    along the shared layout's contiguous dimension) addressed by 8 lanes; one wavefront per
    matrix when its 8 rows fall in 8 different groups of 4 banks, more when rows share a group.
    ``offsets``: shared offset (elements) of each element of the 2-D tile."""
    shape = offsets.shape
    if len(shape) != 2:
        raise ValueError("ldmatrix is modelled for 2-D operands only")
    per_row = 16 // element_size  # elements in one 16-byte matrix row
    n_warps = threads.element_of.shape[0]
    per_instruction: list[int] = []  # an ldmatrix.x4 reads 4 matrices: their wavefronts summed
    n_matrices = 0
    for w in range(n_warps):
        held = np.unique(threads.element_of[w].reshape(-1))
        coords = np.stack(np.unravel_index(held, shape), axis=1)
        contig, strided = coords[:, contiguous_dim], coords[:, 1 - contiguous_dim]
        first = contig % per_row == 0  # the first element of each 16-byte row
        rows_c, rows_s = contig[first] // per_row, strided[first]
        addr = offsets.reshape(-1)[held[first]] * element_size
        group = (addr // 16) % 8
        matrix = rows_c * (shape[1 - contiguous_dim] // 8 + 1) + rows_s // 8
        waves = [int(np.bincount(group[matrix == m], minlength=8).max()) for m in np.unique(matrix)]
        n_matrices += len(waves)
        per_instruction += [sum(waves[i:i + 4]) for i in range(0, len(waves), 4)]
    counts = np.array(per_instruction, dtype=np.int32)
    return BankConflicts(instructions=len(per_instruction), wavefronts=int(counts.sum()), ideal_wavefronts=n_matrices,
                         vector_bits=128, per_instruction_wavefronts=counts)
