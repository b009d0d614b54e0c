"""What an instrumented kernel runs besides its own code: the ``@triton.jit`` functions that the
rewritten source (``rewrite``) calls, and the layout of the buffers they write.

Every load, store and atomic of the kernel first calls ``record(pointer, mask, ...)``, which

- turns the lanes' pointers into integer addresses (``pointer.to(tl.int64)``) and finds, for each
  lane, the tensor whose view holds it (a table of address ranges, ``meta``; one unsigned compare
  per tensor, and a second for its storage only when some view does not cover its whole storage)
  and its element offset there, i.e. its place in the shadow arrays. A strided view's shadow
  spans its footprint, so a lane in a gap of the view counts as on it (the interpreter recorder
  calls it "outside view"); the host reads the logical elements through the strides;
- updates the int32 shadow maps with relaxed atomics (``red``/``atom`` on the GPU): loads count
  reads (``n_reads``) and swap the program id into "last reader", counting the times it changed
  from one program to another (not the first time: the common single-reader element costs two
  atomics). Readers = 1 + changes: the number of distinct readers when a program's reads of an
  element are not interleaved with another program's (always under the interpreter, which runs
  programs one after the other; on a GPU an upper bound, and 1 exactly when one program read it);
  stores and atomics do the same for writes, atomics also count ``n_atomic``;
- but first, for a 1-D or 2-D block whose active lanes are a corner rectangle of it (the lanes
  ``i < r0, j < r1``: what a mask ``offs < N`` leaves), all on a view, at shadow indices exactly
  ``base + i * s0 + j * s1`` with no index twice but along a broadcast axis (stride 0) (checked
  lane by lane: one reduction per corner and for the edges, one for the check), writes one *tile*
  record instead — ``(base, s0, s1, program, op, r0, r1)`` in ``tiles`` — and no per-lane atomic: a matmul
  reads each element of A and B from dozens of programs, and one record per tile access instead
  of three atomics per lane is what keeps the recording near the kernel's own speed. The host
  folds the records into the same maps after the launch (``tiles.fold``); atomics, gathers, other
  masks, out-of-bounds lanes, scalars, 3-D blocks and records past ``tiles``' capacity take the
  per-lane path — where it is compiled in: a launch's constexpr ``LANES`` says which access sites
  have it (a site without it that meets such an access flags itself in ``tiles[TILE_FLAGS]`` and
  runs the access with every lane off; the host launches again with the path compiled into the
  flagged sites, ``service._maps_passes``). Compiled into every site, the per-lane path is most of
  the build's registers and compile time, and a matmul never takes it;
- adds the program's bytes, lanes, masked lanes and out-of-bounds lanes to its row of ``stats``
  (the three lane counts of an access come from one reduction);
- notes out-of-bounds lanes (addresses in no tensor's storage: switched off, as the interpreter
  recorder does; in a storage but on no tensor's view: run) in ``oob`` records, the lowest bad
  address kept;
- returns the mask the real access then uses (the original mask, less the lanes outside storage).

``begin_clock`` / ``begin_sm`` / ``finish`` read the program's SM (``%smid``) and ``%globaltimer`` at its start and end
through ``tl.inline_asm_elementwise``; the interpreter cannot run inline assembly, so the rewritten
kernel calls them only under the constexpr ``_TS_TIME`` (False there).

Triton 3.6 and 3.9 run all of this unchanged: the one difference that touches the GPU recorder,
``tl.load``/``tl.store``'s parameters (3.6 has ``boundary_check``/``padding_option``, 3.9 makes
the cache options keyword-only), is met in ``rewrite`` by forwarding each call site's own
arguments by name, never a fixed list.
"""

from __future__ import annotations

import triton
import triton.language as tl

__all__ = ["record", "begin_clock", "begin_sm", "finish", "linear_pid", "META_ROW", "MAP_NAMES",
           "N_STATS", "FLAG_SITES", "OOB_CAP", "OOB_HEADER", "OOB_ROW", "TIMELINE_ROW", "STAT_NAMES", "TILE_HEADER",
           "TILE_FLAGS", "TILE_ROW", "lanes_mask"]

# -- buffer layouts (host and device agree on these) -------------------------------------------------
#: int64 ``meta`` table: row 0 = [S (elements per shadow map), ...]; row 1 + t = tensor t:
#: [view lo, view bytes, storage lo, storage bytes, shadow base (elements), log2(element size)]
META_ROW = 8
_ROW = tl.constexpr(META_ROW)
#: the int32 shadow maps, ``maps[m * S + shadow index]``
MAP_NAMES = ("n_reads", "last_reader", "reader_changes", "n_writes", "last_writer", "writer_changes", "n_atomic")
_R_COUNT, _R_LAST, _R_CHANGES = tl.constexpr(0), tl.constexpr(1), tl.constexpr(2)
_W_COUNT, _W_LAST, _W_CHANGES, _A_COUNT = tl.constexpr(3), tl.constexpr(4), tl.constexpr(5), tl.constexpr(6)
#: int64 ``stats[pid * N_STATS + k]``; lanes and masked lanes share a word (lanes in the low 32 bits:
#: a program of 2**32 lanes or more would spill into the masked count)
STAT_NAMES = ("bytes_loaded", "bytes_stored", "lanes + (masked << 32)", "oob", "tile records")
N_STATS = 8
_NS = tl.constexpr(N_STATS)
#: int64 ``oob``: [0] = records claimed; record r at OOB_HEADER + r * OOB_ROW:
#: [pid, op, line, lanes outside storage, lanes outside every view (in storage), lowest bad address]
OOB_HEADER, OOB_ROW, OOB_CAP = 8, 8, 4096
_OH, _OR, _OCAP = tl.constexpr(OOB_HEADER), tl.constexpr(OOB_ROW), tl.constexpr(OOB_CAP)
#: int64 ``timeline[pid * TIMELINE_ROW + k]``: start ns, end ns, SM
TIMELINE_ROW = 4
_TR = tl.constexpr(TIMELINE_ROW)
#: int64 ``tiles``: [1] = records per program (C); program p's record r (r < C; p's claimed count
#: is ``stats[p, 4]``, which may pass C: those past it took the per-lane path) at
#: TILE_HEADER + (p * C + r) * TILE_ROW: [base, s0, s1, pid | op << 32 | line << 40, r0, r1] — the access's
#: active lanes are i < r0, j < r1 of its block, lane (i, j) at shadow index base + i * s0 + j * s1
#: (a 1-D block: r1 = 1). Each program counts its own records: no atomic is shared by programs
TILE_HEADER, TILE_ROW = 8, 6
_TH, _TROW = tl.constexpr(TILE_HEADER), tl.constexpr(TILE_ROW)
#: ``tiles[TILE_FLAGS]``: bit s set = access site s (s < FLAG_SITES) met an access that is not a
#: tile while its per-lane path was not compiled in (``LANES``); the host then launches again with
#: it compiled in (``service``). Sites from FLAG_SITES on always have it (their ``LANES`` bits are
#: set by every launch: ``lanes_mask``)
TILE_FLAGS, FLAG_SITES = 2, 62
_TFLAGS = tl.constexpr(TILE_FLAGS)
_LOAD, _STORE, _ATOMIC = tl.constexpr(0), tl.constexpr(1), tl.constexpr(2)  # kernels.data.trace.OP_*


def lanes_mask(sites: int | None) -> int:
    """``LANES`` for a launch with the per-lane path compiled into the flagged ``sites`` (a bit
    mask of ``tiles[TILE_FLAGS]``; None: into every site), always into sites from FLAG_SITES on."""
    return -1 if sites is None else (int(sites) & ((1 << FLAG_SITES) - 1)) | -(1 << FLAG_SITES)


@triton.jit
def linear_pid():
    """The program's linear id, x fastest (``kernels.data.trace``'s numbering)."""
    return tl.program_id(0) + tl.num_programs(0) * (tl.program_id(1) + tl.num_programs(1) * tl.program_id(2))


@triton.jit
def _counts(valid, act, outside):
    """(lanes set in each of three bool arrays of one shape, a scalar too) from one reduction: a
    block has at most 2**20 elements, so three 21-bit fields fit in an int64."""
    packed = valid.to(tl.int64) + (act.to(tl.int64) << 21) + (outside.to(tl.int64) << 42)
    total = tl.sum(packed + tl.zeros([1], tl.int64))
    field = (1 << 21) - 1
    return total & field, (total >> 21) & field, total >> 42


@triton.jit
def _within(addr, lo, span):
    """lo <= addr < lo + span, as one unsigned comparison."""
    return (addr - lo).to(tl.uint64, bitcast=True) < span.to(tl.uint64, bitcast=True)


@triton.jit
def _locate(addr, meta, NT: tl.constexpr, CHECK_STORAGE: tl.constexpr):
    """(shadow index or -1, inside some tensor's storage) of every address."""
    inside = addr != addr
    sidx = addr * 0 - 1
    for i in tl.static_range(NT):
        row = meta + (NT - i) * _ROW  # last tensor first: where views overlap, the first one wins
        lo = tl.load(row)
        sidx = tl.where(_within(addr, lo, tl.load(row + 1)), tl.load(row + 4) + ((addr - lo) >> tl.load(row + 5)), sidx)
        if CHECK_STORAGE:
            inside = inside | _within(addr, tl.load(row + 2), tl.load(row + 3))
    if not CHECK_STORAGE:  # every view covers its whole storage: inside a storage = on a view
        inside = sidx >= 0
    return sidx, inside


@triton.jit
def _note_program(stats, pid, n_bytes, n_masked, n_lanes, OP: tl.constexpr):
    row = stats + pid.to(tl.int64) * _NS
    if OP != _STORE:
        tl.atomic_add(row, n_bytes, sem="relaxed")
    if OP != _LOAD:
        tl.atomic_add(row + 1, n_bytes, sem="relaxed")
    tl.atomic_add(row + 2, n_lanes + (n_masked << 32), sem="relaxed")


@triton.jit
def _note_maps(maps, S, si, valid, pid, OP: tl.constexpr):
    if OP == _LOAD:
        tl.atomic_add(maps + _R_COUNT * S + si, 1, mask=valid, sem="relaxed")
        old = tl.atomic_xchg(maps + _R_LAST * S + si, pid, mask=valid, sem="relaxed")
        tl.atomic_add(maps + _R_CHANGES * S + si, 1, mask=valid & (old != pid) & (old >= 0), sem="relaxed")
    else:
        tl.atomic_add(maps + _W_COUNT * S + si, 1, mask=valid, sem="relaxed")
        old = tl.atomic_xchg(maps + _W_LAST * S + si, pid, mask=valid, sem="relaxed")
        tl.atomic_add(maps + _W_CHANGES * S + si, 1, mask=valid & (old != pid) & (old >= 0), sem="relaxed")
        if OP == _ATOMIC:
            tl.atomic_add(maps + _A_COUNT * S + si, 1, mask=valid, sem="relaxed")


@triton.jit
def _note_oob(oob, stats, pid, addr, bad, n_outside, n_view, OP: tl.constexpr, LINE: tl.constexpr):
    tl.atomic_add(stats + pid.to(tl.int64) * _NS + 3, n_outside + n_view, sem="relaxed")
    slot = tl.atomic_add(oob, 1, sem="relaxed")
    if slot < _OCAP:
        rec = oob + _OH + slot * _OR
        tl.store(rec, pid.to(tl.int64))
        tl.store(rec + 1, OP)
        tl.store(rec + 2, LINE)
        tl.store(rec + 3, n_outside)
        tl.store(rec + 4, n_view)
        tl.store(rec + 5, tl.min(tl.where(bad, addr, 0x7FFFFFFFFFFFFFFF) + tl.zeros([1], tl.int64)))


@triton.jit
def _add4(a0, a1, a2, a3, b0, b1, b2, b3):
    return a0 + b0, a1 + b1, a2 + b2, a3 + b3


@triton.jit
def _tile_of(addr, act):
    """(the active lanes are one tile, base, s0, s1, r0, r1) of a 1-D or 2-D block of byte
    addresses: the active lanes are the lanes i < r0, j < r1 (a 1-D block: r1 = 1), lane (i, j)
    at base + i * s0 + j * s1, no two lanes on one address but along a broadcast axis (stride 0).
    Two reductions over the block: the corners and the edges' lengths together, then the check."""
    if len(addr.shape) == 1:
        i = tl.arange(0, addr.shape[0])
        zero = addr * 0
        base, at1, r0, _ = tl.reduce((tl.where(i == 0, addr, 0), tl.where(i == 1, addr, 0), act.to(tl.int64), zero),
                                     0, _add4)
        s0 = base * 0
        s1 = base * 0
        if addr.shape[0] > 1:
            s0 = at1 - base
        r1 = r0 * 0 + 1
        inside = i < r0
        expect = base + i.to(tl.int64) * s0
        injective = True  # s0 = 0: every lane the same element (folded as one element read r0 times)
    else:
        i = tl.arange(0, addr.shape[0])[:, None]
        j = tl.arange(0, addr.shape[1])[None, :]
        edges = tl.where(j == 0, act, 0).to(tl.int64) + (tl.where(i == 0, act, 0).to(tl.int64) << 32)
        flat: tl.constexpr = addr.shape[0] * addr.shape[1]
        base, at_i, at_j, edges = tl.reduce(
            (tl.reshape(tl.where((i == 0) & (j == 0), addr, 0), [flat]),
             tl.reshape(tl.where((i == 1) & (j == 0), addr, 0), [flat]),
             tl.reshape(tl.where((i == 0) & (j == 1), addr, 0), [flat]), tl.reshape(edges, [flat])), 0, _add4)
        s0 = base * 0
        s1 = base * 0
        if addr.shape[0] > 1:
            s0 = at_i - base
        if addr.shape[1] > 1:
            s1 = at_j - base
        r0, r1 = edges & 0xFFFFFFFF, edges >> 32
        inside = (i < r0) & (j < r1)
        expect = base + i.to(tl.int64) * s0 + j.to(tl.int64) * s1
        a0 = tl.where(s0 < 0, -s0, s0)
        a1 = tl.where(s1 < 0, -s1, s1)
        # a zero stride is a broadcast (folded as the other axis read r times); two non-zero
        # strides must not land two lanes of the tile on one address
        injective = (a0 == 0) | (a1 == 0) | (a0 >= a1 * r1) | (a1 >= a0 * r0)
    good = tl.min(tl.where(inside, addr == expect, ~act).to(tl.int32)) == 1
    return good & injective & (r0 > 0), base, s0, s1, r0, r1


@triton.jit
def _tile_shadow(meta, ok, base, s0, s1, r0, r1, NT: tl.constexpr):
    """(ok, shadow base, shadow strides) of a tile of byte addresses (scalars): ok when the first
    tensor whose view touches the tile's bounding box holds all of it (so every lane is where the
    per-lane ``_locate`` would put it) and the tile is aligned to its elements."""
    lo_a = base + tl.minimum(s0 * (r0 - 1), 0) + tl.minimum(s1 * (r1 - 1), 0)
    hi_a = base + tl.maximum(s0 * (r0 - 1), 0) + tl.maximum(s1 * (r1 - 1), 0)
    holds = ok & False
    lo_k = base * 0
    sh_k = base * 0
    shift = base * 0
    for i in tl.static_range(NT):
        row = meta + (NT - i) * _ROW  # last tensor first: the first one touching wins
        lo = tl.load(row)
        span = tl.load(row + 1)
        touches = (hi_a >= lo) & (lo_a < lo + span)
        holds = tl.where(touches, _within(lo_a, lo, span) & _within(hi_a, lo, span), holds)
        lo_k = tl.where(touches, lo, lo_k)
        sh_k = tl.where(touches, tl.load(row + 4), sh_k)
        shift = tl.where(touches, tl.load(row + 5), shift)
    mis = (1 << shift) - 1
    aligned = (((base - lo_k) | s0 | s1) & mis) == 0
    ok = ok & holds & aligned
    return ok, sh_k + ((base - lo_k) >> shift), s0 >> shift, s1 >> shift


@triton.jit
def _note_tile(tiles, stats, meta, addr, act, pid, NT: tl.constexpr, OP: tl.constexpr, LINE: tl.constexpr):
    """Write the access as one tile record when it is one (``_tile_of``, ``_tile_shadow``) and
    the program has room left: (it was, its active lanes)."""
    ok, base, s0, s1, r0, r1 = _tile_of(addr, act)
    ok, base, s0, s1 = _tile_shadow(meta, ok, base, s0, s1, r0, r1, NT)
    per = tl.load(tiles + 1)
    slot = tl.atomic_add(stats + pid.to(tl.int64) * _NS + 4, ok.to(tl.int64), sem="relaxed")  # 0 claims nothing
    ok = ok & (slot < per)
    if ok:
        row = tiles + _TH + (pid.to(tl.int64) * per + slot) * _TROW
        tl.store(row, base)
        tl.store(row + 1, s0)
        tl.store(row + 2, s1)
        tl.store(row + 3, pid.to(tl.int64) + (OP << 32) + (LINE << 40))
        tl.store(row + 4, r0)
        tl.store(row + 5, r1)
    return ok, r0 * r1


@triton.jit
def _lane_by_lane(pointer, addr, act, pid, meta, maps, stats, oob, TABLE: tl.constexpr, OP: tl.constexpr,
                  LINE: tl.constexpr):
    """The per-lane path: shadow maps, statistics and out-of-bounds records; the mask to run with."""
    sidx, inside = _locate(addr, meta, TABLE // 2, TABLE % 2)
    valid = act & (sidx >= 0)
    n_valid, n_on, n_outside = _counts(valid, act, act & ~inside)
    n_all = n_on * 0 + addr.numel  # a tensor (a constexpr minus a tensor is not one)
    n_bytes = n_valid * (pointer.dtype.element_ty.primitive_bitwidth // 8)
    _note_program(stats, pid, n_bytes, n_all - n_on, n_all, OP)
    _note_maps(maps, tl.load(meta), tl.where(valid, sidx, 0), valid, pid, OP)
    if n_on > n_valid:
        _note_oob(oob, stats, pid, addr, act & (sidx < 0), n_outside, n_on - n_valid - n_outside, OP, LINE)
    return act & inside


@triton.jit
def record(pointer, mask, pid, meta, maps, stats, oob, tiles, TABLE: tl.constexpr, LANES: tl.constexpr,
           OP: tl.constexpr, SITE: tl.constexpr, LINE: tl.constexpr):
    """Record one access of program ``pid`` at access site ``SITE``; returns the mask the access
    must run with. ``TABLE`` = tensors * 2 + (1 when some view does not cover its whole storage);
    ``LANES``: bit ``SITE`` set = the per-lane path is compiled into this site (see ``FLAG_SITES``)."""
    addr = pointer.to(tl.int64)
    if mask is None:
        act = addr == addr
    else:
        addr, act = tl.broadcast(addr, mask)
        act = act != 0
    if OP != _ATOMIC and len(addr.shape) >= 1 and len(addr.shape) <= 2:
        tiled, n_tile = _note_tile(tiles, stats, meta, addr, act, pid, TABLE // 2, OP, LINE)
        if tiled:
            n_all = n_tile * 0 + addr.numel
            _note_program(stats, pid, n_tile * (pointer.dtype.element_ty.primitive_bitwidth // 8), n_all - n_tile,
                          n_all, OP)
            keep = act
        elif ((LANES >> SITE) & 1) == 1:
            keep = _lane_by_lane(pointer, addr, act, pid, meta, maps, stats, oob, TABLE, OP, LINE)
        else:  # not compiled here: say the site needs it, and run the access with every lane off
            tl.atomic_or(tiles + _TFLAGS, tl.zeros([], tl.int64) + (1 << SITE), sem="relaxed")
            keep = act & False
    else:
        keep = _lane_by_lane(pointer, addr, act, pid, meta, maps, stats, oob, TABLE, OP, LINE)
    return keep


# -- the schedule ---------------------------------------------------------------------------------------


@triton.jit
def begin_clock():
    return tl.inline_asm_elementwise("mov.u64 $0, %globaltimer;", "=l", [], dtype=tl.int64, is_pure=False, pack=1)


@triton.jit
def begin_sm():
    return tl.inline_asm_elementwise("mov.u32 $0, %smid;", "=r", [], dtype=tl.int32, is_pure=False, pack=1)


@triton.jit
def finish(timeline, pid, t0, sm):
    t1 = begin_clock()
    row = timeline + pid.to(tl.int64) * _TR
    tl.store(row, t0)
    tl.store(row + 1, t1)
    tl.store(row + 2, sm.to(tl.int64))
