"""A region of a reduced trace at full resolution, Qt-free: what the worker keeps behind the
reduced trace it sends the window (``kernels.engine.kept_trace``) and the rectangle maths
(``kernels.data.region``)."""

from __future__ import annotations

import numpy as np
import pytest

from kernels.data.coarse import CoarseTrace, window_request
from kernels.data.params import ValidationError
from kernels.data.region import MAP_FIELDS, MAX_REGION_ELEMENTS, RegionRequest, cells_to_region
from kernels.data.trace import TraceRequest
from kernels.engine.kept_trace import SOURCE_DEVICE, SOURCE_HOST, KeptTrace
from kernels.trace.service import trace

N = 1 << 16
VALUES = {"N": N, "BLOCK_SIZE": 1024}


@pytest.fixture(scope="module")
def full():
    """vector_add at N = 2^16, every element (what the CLI gets)."""
    res = trace(TraceRequest("vector_add", VALUES))
    assert res.error is None
    return res.trace


def _equal_to_slice(answer, full_trace, t: int) -> None:
    (r0, r1), (c0, c1) = answer.request.rows, answer.request.cols
    assert r0 == 0 and r1 == 1  # a 1-D tensor is one row
    m = full_trace.maps[t]
    for f in MAP_FIELDS:
        got, want = getattr(answer.maps, f), getattr(m, f)
        if want is None:
            # the interpreter names readers in its events, not in a last_reader map (a GPU trace does)
            assert got is None or not got.any() or f == "last_reader", f
            continue
        assert got.shape == (1, c1 - c0), f
        np.testing.assert_array_equal(got[0], want[c0:c1], err_msg=f)


def test_a_region_of_an_interpreter_trace_is_the_slice_of_the_full_maps(full):
    # breaks if the worker answered a region from the cells (64 elements a cell here), from another
    # tensor or off by a cell, or stopped keeping the full trace behind a reduced one
    kept = KeptTrace()
    res = kept.serve(window_request(TraceRequest("vector_add", VALUES), 1024))
    tr = res.trace
    assert isinstance(tr, CoarseTrace) and tr.cells[2] == (1, 64) and tr.region_key == kept.key != ""
    for t, cols in ((2, (1000, 5000)), (0, (0, 1024)), (1, (N - 777, N))):
        ans = kept.answer(RegionRequest(tr.region_key, t, (0, 1), cols))
        assert ans.source == SOURCE_HOST
        _equal_to_slice(ans, full, t)
    # the owners a click shows: program e // 1024 wrote element e of out
    ans = kept.answer(RegionRequest(tr.region_key, 2, (0, 1), (2040, 2050)))
    assert [ans.owner(0, c) for c in (2047, 2048)] == [1, 2]


def test_a_region_of_a_gpu_trace_comes_from_the_maps_kept_on_the_device(full):
    # breaks if a GPU trace's region were read from its reduced maps instead of the shadow maps
    # left on the device (the instrumented build runs under the interpreter here: no GPU)
    kept = KeptTrace()
    res = kept.serve(window_request(TraceRequest("vector_add", VALUES, backend="gpu"), 1024), device="cpu")
    assert res.error is None and isinstance(res.trace, CoarseTrace) and kept.source == SOURCE_DEVICE
    ans = kept.answer(RegionRequest(res.trace.region_key, 2, (0, 1), (3000, 9000)))
    assert ans.source == SOURCE_DEVICE
    _equal_to_slice(ans, full, 2)
    kept.release()
    with pytest.raises(ValidationError, match="no longer kept"):
        kept.answer(RegionRequest(res.trace.region_key, 2, (0, 1), (0, 10)))


def test_a_stale_or_oversized_request_is_refused_in_one_line():
    # breaks if a request for an older trace were answered from the newer one, or a huge
    # rectangle were read and shipped
    kept = KeptTrace()
    first = kept.serve(window_request(TraceRequest("vector_add", VALUES), 1024)).trace
    second = kept.serve(window_request(TraceRequest("vector_add", VALUES, seed=1), 1024)).trace
    assert first.region_key != second.region_key
    for req, words in ((RegionRequest(first.region_key, 0, (0, 1), (0, 10)), "no longer kept"),
                       (RegionRequest(second.region_key, 0, (0, 1), (0, MAX_REGION_ELEMENTS + 1)), "zoom in further"),
                       (RegionRequest(second.region_key, 0, (0, 1), (N - 5, N + 5)), "not inside")):
        with pytest.raises(ValidationError, match=words) as e:
            kept.answer(req)
        assert "\n" not in str(e.value)


def test_a_trace_small_enough_to_send_whole_keeps_nothing():
    # breaks if the worker held a full trace that no region request can ever need
    kept = KeptTrace()
    res = kept.serve(window_request(TraceRequest("vector_add", {"N": 4096, "BLOCK_SIZE": 1024}), 1024 * 64))
    assert not isinstance(res.trace, CoarseTrace) and kept.key == "" and kept.source == ""


def test_cells_in_view_become_the_elements_they_cover_capped_around_the_centre():
    # breaks if a zoomed view asked for the wrong elements, or for more than one request may fetch
    req = cells_to_region("k", 0, (N,), (1, 64), (0, 1), (10, 20))
    assert (req.rows, req.cols) == ((0, 1), (640, 1280))
    assert cells_to_region("k", 0, (N,), (1, 64), (0, 1), (N // 64, N // 64 + 5)) is None  # past the end
    big = cells_to_region("k", 1, (4096, 4096), (8, 8), (0, 512), (0, 512), centre=(100.0, 3000.0))
    assert big.numel <= MAX_REGION_ELEMENTS and big.contains(100, 3000)
    assert big.rows[0] == 0 and big.rows[1] - big.rows[0] == big.cols[1] - big.cols[0] == 512  # a square, clipped
    wide = cells_to_region("k", 0, (1 << 22,), (1, 16), (0, 1), (0, 1 << 18), centre=(0.0, 5_000_000.0))
    assert wide.numel == MAX_REGION_ELEMENTS and wide.cols[1] == 1 << 22  # held inside the tensor
