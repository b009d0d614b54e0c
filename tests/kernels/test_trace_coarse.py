"""A big trace reduced in the worker to what the window draws (``kernels.data.coarse``), and the
tracer's progress counting elements. Each test says what the user would see go wrong."""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pytest

from kernels.data.coarse import CoarseTrace, WindowTraceRequest, coarsen, shipped_bytes, window_request
from kernels.data.maps import load_tiles
from kernels.data.trace import NO_PROGRAM, SEVERAL, TraceRequest, TraceResult
from kernels.sources.lookup import get_spec
from kernels.trace import recorder, trace_spec
from kernels.trace.service import for_window, trace
from views.grid_view.prepare import prepare_trace


@pytest.fixture(scope="module")
def vadd():
    # 16 programs of 256 elements: 4096 per tensor
    return trace_spec(get_spec("vector_add"), {"N": 4096, "BLOCK_SIZE": 256}, workers=1)


@pytest.fixture(scope="module")
def matmul():
    # C is 64 x 64 in 16 x 16 tiles: 16 programs
    return trace_spec(get_spec("matmul"), {"M": 64, "N": 64, "K": 32, "BLOCK_M": 16, "BLOCK_N": 16, "BLOCK_K": 16,
                                           "GROUP_SIZE_M": 2, "dtype": "fp32"}, workers=1)


def test_a_small_trace_is_shipped_as_it_is(vadd):
    # breaks if a trace the window can draw whole were blurred into cells
    assert coarsen(vadd, 4096) is vadd


def test_a_reduced_1d_map_is_the_full_map_sampled_once_per_cell(vadd):
    # breaks if the window's picture of a big vector add differed from the full one: wrong
    # owners, or tiles smeared across cells
    c = coarsen(vadd, 256)
    assert isinstance(c, CoarseTrace) and c.cells == [(1, 16)] * 3
    assert [t.shape for t in c.tensors] == [(256,)] * 3 and [t.shape for t in c.full_tensors] == [(4096,)] * 3
    for full, red in zip(vadd.maps, c.maps, strict=True):
        for name in ("writer", "reader", "n_reads", "n_writes", "n_readers"):
            np.testing.assert_array_equal(getattr(red, name), getattr(full, name)[::16], err_msg=name)
    # every access now lists the distinct cells its lanes fall in
    for e in range(len(vadd.events)):
        np.testing.assert_array_equal(c.events.lanes(e), np.unique(vadd.events.lanes(e) // 16))
    np.testing.assert_array_equal(c.lanes_active, vadd.events.n_active)
    # the picture: every cell drawn in the colour the full map gives its elements
    full_p, red_p = prepare_trace(vadd, "dispatch"), prepare_trace(c, "dispatch")
    for fp, rp in zip(full_p.panels, red_p.panels, strict=True):
        np.testing.assert_array_equal(red_p.element_slots(rp), full_p.element_slots(fp)[::16])
        assert rp.block == fp.block // 16  # folded in rows of whole programs, as the full map
    # the launch panel's bytes per wave count lanes, not cells
    assert load_tiles(c).tile_bytes.sum() == load_tiles(vadd).tile_bytes.sum()


def test_a_reduced_2d_map_keeps_each_tile_whole(matmul):
    # breaks if matmul's C map, reduced, showed tiles of the wrong program or of the wrong size
    c = coarsen(matmul, 256)
    out = c.tensor_index("c_ptr")
    assert c.cells[out] == (4, 4) and c.tensors[out].shape == (16, 16)
    full_w = matmul.maps[out].writer
    np.testing.assert_array_equal(c.maps[out].writer, full_w[::4, ::4])
    assert (c.maps[out].writer >= 0).all()
    assert c.cell_elements(out, 17) == ((4, 7), (4, 7))


def test_races_and_holes_are_never_averaged_away(vadd):
    # breaks if a race or an element never written inside a cell disappeared from the reduced map
    maps = [dataclasses.replace(m) for m in vadd.maps]
    out = maps[2]
    out.writer = out.writer.copy()
    out.n_writes = out.n_writes.copy()
    out.writer[37] = SEVERAL  # a race in cell 2
    out.n_writes[37] = 2
    out.n_writes[100] = 0  # a hole in cell 6
    out.writer[100] = NO_PROGRAM
    c = coarsen(dataclasses.replace(vadd, maps=maps), 256)
    w, nw = c.maps[2].writer, c.maps[2].n_writes
    assert w[2] == SEVERAL and c.maps[2].multiply_written[2]
    assert nw[6] == 0 and w[6] == vadd.maps[2].writer[96]  # shown never written; its writer kept
    assert (nw[[0, 1, 3, 4, 5, 7]] == 1).all()


def test_the_window_gets_a_bounded_trace_of_a_big_launch():
    # breaks if the worker shipped every lane and map of a big launch to the window (300 MB at
    # N = 2^22 before): the reply must be bounded by the cells the window can draw
    req = TraceRequest(kernel="vector_add", values={"N": 1 << 16, "BLOCK_SIZE": 1024}, workers=1)
    full = trace(req)
    assert full.error is None
    max_cells = 1 << 10
    wreq = window_request(req, max_cells)
    assert isinstance(wreq, WindowTraceRequest) and wreq.values == req.values and wreq.max_cells == max_cells
    seen = []
    res = for_window(TraceResult(request=wreq, trace=full.trace), wreq.max_cells, seen.append)
    tr = res.trace
    assert isinstance(tr, CoarseTrace) and all(t.numel <= max_cells for t in tr.tensors)
    per_tensor_cell = 6 * 4 + 8  # five int32 maps, and an access touching it (element + share of a row)
    bound = len(tr.tensors) * max_cells * per_tensor_cell + 64 * 1024  # + per-program arrays
    assert shipped_bytes(tr) <= bound < shipped_bytes(full.trace) / 20
    assert tr.full_lanes == 3 * (1 << 16) and seen and "196,608 element accesses" in seen[0].text()
    # the summary the status line uses still counts the elements as they are
    assert sum(t.numel for t in tr.full_tensors) == 3 * (1 << 16)


@pytest.mark.parametrize("workers", [1, 2])
def test_the_progress_counts_elements_as_well_as_programs(workers, monkeypatch):
    # breaks if the status bar counted programs only while a big trace ran (how far along the
    # 4 million elements is it?), in the tracing process or in forked ones. Every tick is passed
    # on (no 0.1-s throttle): on a fast machine the whole trace takes less than one throttle period
    # and nothing between "0/512" and the maps would be reported (CI failed so, 2026-11-27).
    monkeypatch.setattr(recorder, "_PROGRESS_EVERY_S", 0.0)
    got = []
    tr = trace_spec(get_spec("vector_add"), {"N": 1 << 15, "BLOCK_SIZE": 64}, workers=workers,
                    progress=got.append)
    texts = [p.text() for p in got]
    counting = [t for t in texts if re.fullmatch(r"tracing [\d,]+ element accesses in [\d,]+/512 programs", t)]
    assert counting, texts
    lanes = [int(re.match(r"tracing ([\d,]+)", t).group(1).replace(",", "")) for t in counting]
    assert lanes == sorted(lanes) and 0 < lanes[-1] <= 3 * (1 << 15)
    assert f"deriving maps of {tr.events.elements.size:,} element accesses" in texts
