"""The GPU recorder's tile records (``device._note_tile``, ``tiles.fold``), run under the
interpreter on the CPU: an access that is one whole injective affine tile is written as one record
and folded into the maps after the launch; everything else goes lane by lane. Both paths must
leave the maps the interpreter recorder makes, element for element, alone or mixed."""

from __future__ import annotations

import pytest
import torch
import triton
import triton.language as tl

import kernels.catalog  # noqa: F401  (registers the bundled kernels)
from kernels.gpu_trace import tiles as tiles_
from kernels.gpu_trace.compare import CROSS_CHECK_CASES, differences
from kernels.gpu_trace.service import gpu_trace_launch, gpu_trace_spec
from kernels.spec import REGISTRY
from kernels.trace import trace_launch, trace_spec


@triton.jit
def tile_mix(x_ptr, out_ptr, LD: tl.constexpr, B: tl.constexpr, LANES: tl.constexpr):
    pid = tl.program_id(0)
    r = tl.arange(0, B)
    t = tl.load(x_ptr + pid * B + r[:, None] + r[None, :] * LD)  # a tile, column-major (s0=1, s1=LD)
    b = tl.load(x_ptr + r[None, :] + r[:, None] * 0)  # every row the same lanes: a broadcast tile
    o = tl.load(x_ptr + pid * (B // 2) + r)  # 1-D tiles that overlap the next program's
    m = tl.load(x_ptr + pid * (B // 2) + r, mask=r < B - 1, other=0.0)  # the same, a corner of it active
    f = tl.load(x_ptr + 3 * B - 1 - r)  # a reversed tile (s0 = -1)
    v = t + b + o[None, :] + m[:, None] + f[None, :]
    if LANES:  # active lanes not a corner: lane by lane, by every program
        v += tl.load(x_ptr + pid * (B // 2) + r, mask=r > 0, other=0.0)[None, :]
    tl.store(out_ptr + pid * B * B + r[:, None] * B + r[None, :], v)


def _traces(lanes=False, capacity=None, monkeypatch=None):
    x = torch.arange(64, dtype=torch.float32)
    out = torch.zeros(4 * 16)
    if capacity is not None:
        monkeypatch.setattr(tiles_, "capacity", lambda S: capacity)

    def launch(K):
        K(tile_mix)[(4,)](x, out, LD=8, B=4, LANES=lanes)
    got = gpu_trace_launch(launch, device="cpu", kernels=(tile_mix,), keep=True)
    ref = trace_launch(launch, workers=1, kernels=(tile_mix,))
    return got, ref


def test_tiles_broadcast_overlapping_reversed_and_cornered_give_the_interpreters_maps():
    # breaks if a record is written for a block that is not one tile, or the fold miscounts a
    # broadcast, overlapping groups, a negative stride or a partly masked tile
    got, ref = _traces()
    assert not differences(got.trace, ref), "\n".join(differences(got.trace, ref))
    assert got.recording.fold() == 4 * 6  # every access of every program is a tile
    x = got.trace.maps_of("x_ptr")
    # element 3: t of program 0, b 4 times by each of the 4 programs, o of programs 0 and 1, m of 1
    assert x.n_reads[3] == 1 + 16 + 2 + 1 and x.n_readers[3] == 4
    # element 5: t and o of program 1 (two tile shapes), o and m of program 2
    assert x.n_reads[5] == 1 + 2 + 1 and x.n_readers[5] == 2


def test_tiles_mixed_with_lane_by_lane_reads_are_exact_but_where_several_programs_read_lane_by_lane():
    # the lane-by-lane path keeps the last reader and its changes, not the set of readers: an
    # element read lane by lane by one program is counted exactly, by several an upper bound
    got, ref = _traces(lanes=True)
    assert got.recording.fold() == 4 * 6
    diff = differences(got.trace, ref)
    assert diff == ["x_ptr.n_readers differs at [[3], [5], [7]]"], diff
    g, r = got.trace.maps_of("x_ptr").n_readers, ref.maps_of("x_ptr").n_readers
    assert (g >= r).all() and g[1] == r[1] == 4 and g[2] == r[2] == 4  # read lane by lane by program 0 alone


def test_records_past_the_capacity_go_lane_by_lane_and_stay_exact(monkeypatch):
    got, ref = _traces(capacity=5, monkeypatch=monkeypatch)
    assert not differences(got.trace, ref), "\n".join(differences(got.trace, ref))
    assert got.recording.fold() == 5


def test_with_no_capacity_at_all_every_access_goes_lane_by_lane(monkeypatch):
    got, ref = _traces(capacity=0, monkeypatch=monkeypatch)
    assert not differences(got.trace, ref)
    assert got.recording.fold() == 0


@pytest.mark.parametrize("name", ["matmul", "attention", "vector_add"])
def test_catalog_tiles_are_recorded_as_tiles(name):
    # breaks if the tile path silently stops being taken (every access lane by lane is exact too,
    # only hundreds of times slower on a GPU): full tiles of these kernels must come as records
    got = gpu_trace_spec(REGISTRY.get(name), CROSS_CHECK_CASES[name], device="cpu", keep=True)
    ref = trace_spec(REGISTRY.get(name), CROSS_CHECK_CASES[name], workers=1)
    assert not differences(got.trace, ref)
    n = got.recording.fold()
    if name == "vector_add":  # 5 programs x 3 accesses, the last program's a corner of its block
        assert n == 15
    elif name == "matmul":  # 9 programs x 3 K steps x (A, B) + 9 stores, less the tutorial's `% M`
        assert n == 54 + 9 - 9 - 9  # and `% N` wrapping the edge programs' A and B blocks: not one tile
    else:
        assert n > 39  # of 78 accesses (the causal mask's diagonal blocks are not corners)


def test_the_fold_counts_distinct_programs_per_tile_and_keeps_one_owner():
    # two programs read tile A twice each, program 2 reads tile B (overlapping A by two elements)
    S = 14
    maps = torch.zeros((6, S), dtype=torch.int32)
    maps[1] = -1
    maps[4] = -1
    rows = [(0, 1, 0, 0), (0, 1, 0, 0), (0, 1, 0, 1), (0, 1, 0, 1), (6, 1, 0, 2)]
    tiles = torch.zeros(8 + 6 * len(rows), dtype=torch.int64)
    tiles[0], tiles[1] = len(rows), len(rows)
    for k, (base, s0, s1, pid) in enumerate(rows):
        tiles[8 + 6 * k:14 + 6 * k] = torch.tensor([base, s0, s1, pid, 8, 1])  # loads of 8 lanes
    assert tiles_.fold(tiles, maps, 3) == 5
    n_reads, last, changes = maps[0].numpy(), maps[1].numpy(), maps[2].numpy()
    assert n_reads.tolist() == [4] * 6 + [5, 5] + [1] * 6
    readers = (n_reads > 0) + changes
    assert readers.tolist() == [2] * 6 + [3, 3] + [1] * 6
    assert last[8:].tolist() == [2] * 6
    assert (maps[3] == 0).all() and (maps[4] == -1).all() and (maps[5] == 0).all()  # no write touched
