"""A pinned program of a GPU trace lights what it touched, as in an interpreter trace.

What breaks if these fail: a GPU trace carried maps but no per-access events, so pinning (or
hovering) a program in the window lit nothing. Its accesses now come from the recording's tile
records (``kernels.gpu_trace.footprints``), over the cells the window draws. On the CPU the GPU
recorder's instrumented build runs under the interpreter (``device="cpu"``): the same records."""

from __future__ import annotations

import functools

import numpy as np
import pytest

import kernels.catalog  # noqa: F401  (registers the bundled kernels)
from kernels.data.coarse import CoarseTrace, window_request
from kernels.data.trace import TraceRequest
from kernels.engine.kept_trace import KeptTrace
from kernels.gpu_trace import footprints
from kernels.gpu_trace import service as gpu_service
from views.grid_view.lighting import panel_flags
from views.grid_view.prepare import prepare_trace

VECTOR_ADD = ("vector_add", {"N": 8192, "BLOCK_SIZE": 512}, 1024)  # 16 programs, cells of 8 elements
MATMUL = ("matmul", {"M": 128, "N": 128, "K": 64, "BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32, "dtype": "fp16"}, 4096)


def _trace(case: tuple, backend: str):
    kernel, values, cells = case
    kept = KeptTrace()
    res = kept.serve(window_request(TraceRequest(kernel, dict(values), backend=backend), cells), device="cpu")
    kept.release()
    assert res.error is None, res.error
    return res


def _accesses(tr) -> set[tuple[int, int, int, int, int]]:
    """(program, tensor, op, line, cell) of every lane of every access."""
    ev = tr.events
    n = ev.n_active.astype(np.int64)
    lanes = ev.elements[np.repeat(ev.lane_start, n) + np.arange(int(n.sum())) - np.repeat(np.cumsum(n) - n, n)]
    cols = [np.repeat(a.astype(np.int64), n) for a in (ev.program, ev.tensor, ev.op, ev.line)]
    return set(zip(*(c.tolist() for c in cols), lanes.tolist(), strict=True))


@pytest.fixture(scope="module")
def vector_add():
    return _trace(VECTOR_ADD, "interpreter"), _trace(VECTOR_ADD, "gpu")


def test_a_pinned_program_of_a_gpu_trace_lights_what_the_interpreter_trace_does(vector_add):
    interp, gpu = vector_add
    assert isinstance(gpu.trace, CoarseTrace) and gpu.info.map_strides == [(8,)] * 3  # reduced on the device
    assert len(gpu.trace.events) and gpu.info.events.startswith("the tile records")
    a, b = prepare_trace(interp.trace), prepare_trace(gpu.trace)
    for pid in (0, 3, 15):
        for pa, pb in zip(a.panels, b.panels, strict=True):
            want, got = panel_flags(pa, ("program", pid), None), panel_flags(pb, ("program", pid), None)
            assert int((got > 0).sum()) == 64  # the program's 512 elements: 64 cells of each tensor
            assert np.array_equal(want, got), (pid, pa.info.name)
    assert _accesses(gpu.trace) == _accesses(interp.trace)  # lines too (the record carries its line)
    assert np.array_equal(gpu.trace.lanes_active, interp.trace.lanes_active)  # 512 elements an access


def test_a_gpu_matmul_trace_has_each_programs_row_band_column_band_and_tile():
    interp, gpu = _trace(MATMUL, "interpreter"), _trace(MATMUL, "gpu")
    assert gpu.info.map_strides == [(2, 1), (1, 2), (2, 2)]
    assert _accesses(gpu.trace) == _accesses(interp.trace)
    b = prepare_trace(gpu.trace)
    a_flags = panel_flags(b.panels[0], ("program", 3), None)  # program 3 = (pid_m 1, pid_n 1): A's rows 64..127
    assert np.flatnonzero(a_flags).min() == 32 * 64 and int((a_flags > 0).sum()) == 32 * 64


def test_past_the_budget_the_first_programs_keep_theirs_and_the_note_says_so(monkeypatch):
    # 16 programs x 3 accesses x 64 cells: a budget of 200 cells is whole programs 0 (192 cells)
    monkeypatch.setattr(gpu_service, "tile_events", functools.partial(footprints.tile_events, max_lanes=200))
    gpu = _trace(VECTOR_ADD, "gpu")
    assert set(gpu.trace.events.program.tolist()) == {0}
    assert any("programs 0..0 only" in n for n in gpu.info.notes), gpu.info.notes
    b = prepare_trace(gpu.trace)
    assert int((panel_flags(b.panels[2], ("program", 0), None) > 0).sum()) == 64


def test_past_the_access_budget_the_records_taken_apart_first_give_the_same_first_programs(monkeypatch):
    # 16 programs x 3 records: a budget of 7 accesses takes apart 8 records first (the records come
    # grouped by program), enough to end at whole programs 0..1 — what all 48 would give for them
    full = _accesses(_trace(VECTOR_ADD, "gpu").trace)
    monkeypatch.setattr(gpu_service, "tile_events", functools.partial(footprints.tile_events, max_events=7))
    gpu = _trace(VECTOR_ADD, "gpu")
    assert set(gpu.trace.events.program.tolist()) == {0, 1}
    assert any("programs 0..1 only" in n for n in gpu.info.notes), gpu.info.notes
    assert _accesses(gpu.trace) == {a for a in full if a[0] < 2}
