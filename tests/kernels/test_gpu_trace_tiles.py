"""The GPU recorder's tile records (``device._note_tile``, ``tiles.fold``), run under the
interpreter on the CPU: an access that is one whole injective affine tile is written as one record
and folded into the maps after the launch; everything else goes lane by lane. Both paths must
leave the maps the interpreter recorder makes, element for element, alone or mixed."""

from __future__ import annotations

import pytest
import torch
import triton
import triton.language as tl
from fixtures.cross_check_cases import CROSS_CHECK_CASES

import kernels.catalog  # noqa: F401  (registers the bundled kernels)
from kernels.gpu_trace import tiles as tiles_
from kernels.gpu_trace.compare import differences
from kernels.gpu_trace.service import gpu_trace_launch, gpu_trace_spec
from kernels.specs.spec import REGISTRY
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
    # 5 records for each of the 4 programs: its five loads; its store (one writer per element) takes
    # the per-lane path, compiled in by a second launch
    got, ref = _traces(capacity=18, monkeypatch=monkeypatch)
    assert not differences(got.trace, ref), "\n".join(differences(got.trace, ref))
    assert got.recording.fold() == 20 and got.info.passes == 2 and got.info.lane_sites == 1


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
    rows = [(0, 1, 0, 0), (0, 1, 0, 0), (0, 1, 0, 1), (0, 1, 0, 1), (6, 1, 0, 2), (99, 1, 0, 2)]
    tiles = torch.zeros(8 + 6 * len(rows), dtype=torch.int64)
    tiles[1] = 2  # records per program: program p's at rows 2p, 2p + 1
    for k, (base, s0, s1, pid) in enumerate(rows):
        tiles[8 + 6 * k:14 + 6 * k] = torch.tensor([base, s0, s1, pid, 8, 1])  # loads of 8 lanes
    claimed = torch.tensor([2, 2, 1])  # program 2's second row (base 99) was never written
    assert tiles_.fold(tiles, maps, 3, claimed) == 5
    n_reads, last, changes = maps[0].numpy(), maps[1].numpy(), maps[2].numpy()
    assert n_reads.tolist() == [4] * 6 + [5, 5] + [1] * 6
    readers = (n_reads > 0) + changes
    assert readers.tolist() == [2] * 6 + [3, 3] + [1] * 6
    assert last[8:].tolist() == [2] * 6
    assert (maps[3] == 0).all() and (maps[4] == -1).all() and (maps[5] == 0).all()  # no write touched


# ---------------------------------------------------------------------------------------------
# launches: the per-lane path only where a site asked for it (service._maps_passes)


@triton.jit
def bump_gathered(x_ptr, idx_ptr, B: tl.constexpr):
    r = tl.program_id(0) * B + tl.arange(0, B)
    i = tl.load(idx_ptr + r)  # a tile
    tl.store(x_ptr + i, tl.load(x_ptr + i) + 1.0)  # a gather and a scatter: lane by lane, in place


@triton.jit
def gather_then_maybe(x_ptr, idx_ptr, y_ptr, B: tl.constexpr):
    r = tl.program_id(0) * B + tl.arange(0, B)
    v = tl.load(x_ptr + tl.load(idx_ptr + r))  # a gather: off in a launch without its per-lane path
    if tl.sum(v) > 0:  # reached only when the gather really loaded x
        tl.store(y_ptr + tl.load(idx_ptr + r), v)


def _gather_case(kernel, **extra):
    perm = torch.tensor([5, 2, 7, 0, 3, 6, 1, 4])
    x = torch.arange(1, 9, dtype=torch.float32)
    tensors = {"x_ptr": x, "idx_ptr": perm, **extra}

    def launch(K):
        K(kernel)[(2,)](*tensors.values(), B=4)
    return launch, tensors


def test_a_kernel_of_tiles_only_is_launched_once_without_the_per_lane_path():
    got = gpu_trace_spec(REGISTRY.get("vector_add"), CROSS_CHECK_CASES["vector_add"], device="cpu")
    assert got.info.passes == 1 and got.info.lane_sites == 0 and not got.info.notes


def test_a_gather_is_recorded_lane_by_lane_in_a_second_launch_on_restored_inputs():
    # breaks if the second launch runs on what the first left (x bumped twice), if the first
    # launch's records leak into the maps, or if the flagged sites are not given the per-lane path
    launch, t = _gather_case(bump_gathered)
    x0 = t["x_ptr"].clone()
    got = gpu_trace_launch(launch, device="cpu", kernels=(bump_gathered,))
    assert torch.equal(t["x_ptr"], x0 + 1), t["x_ptr"]
    t["x_ptr"].copy_(x0)
    ref = trace_launch(launch, workers=1, kernels=(bump_gathered,))
    assert_same(got.trace, ref)
    assert got.info.passes == 2 and got.info.lane_sites == 2 and got.info.n_sites == 3
    assert "2 of 3 access sites recorded lane by lane" in got.info.notes[0]


def test_a_site_reached_only_on_real_data_gets_the_per_lane_path_in_a_third_launch():
    # the first launch switches the gather off (zeros), so the store behind `if sum > 0` is not
    # reached and cannot ask; the second launch reaches it without its per-lane path
    launch, _ = _gather_case(gather_then_maybe, y_ptr=torch.zeros(8))
    got = gpu_trace_launch(launch, device="cpu", kernels=(gather_then_maybe,))
    ref = trace_launch(launch, workers=1, kernels=(gather_then_maybe,))
    assert_same(got.trace, ref)
    assert got.info.passes == 3 and got.info.lane_sites == got.info.n_sites == 4
    assert (got.trace.maps_of("y_ptr").n_writes == 1).all()


def assert_same(gpu, ref) -> None:
    diff = differences(gpu, ref)
    assert not diff, "\n".join(diff)
