"""Which program read a shared operand last, from the GPU recorder's maps (no per-access events on
the GPU): what lets the window and the PNG tell matmul's A row bands and B apart instead of
drawing them one flat grey. On the CPU: ``device="cpu"`` runs the very instrumented build the GPU
runs, under the interpreter (programs one after another, so the last to arrive is the highest)."""

from __future__ import annotations

import numpy as np

import kernels.catalog  # noqa: F401  (registers the bundled kernels)
from kernels.data.trace import OP_LOAD, TraceRequest
from kernels.gpu_trace.service import gpu_trace
from kernels.specs.spec import REGISTRY
from kernels.trace import trace_spec
from kernels.trace.service import for_window

VALS = {"M": 128, "N": 128, "K": 64, "BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 32, "GROUP_SIZE_M": 2, "dtype": "fp16"}


def _highest_reader(tr, name: str) -> np.ndarray:
    """From the interpreter's events: the highest pid that loaded each element (-1: none)."""
    t = tr.tensor_index(name)
    ev = tr.events
    rows = (ev.tensor == t) & (ev.op == OP_LOAD)
    out = np.full(tr.tensors[t].numel, -1, np.int64)
    lanes = np.repeat(rows, ev.n_active)
    np.maximum.at(out, ev.elements[lanes].astype(np.intp), np.repeat(ev.program[rows], ev.n_active[rows]))
    return out


def test_the_gpu_maps_name_the_last_reader_of_every_element():
    # breaks if the GPU trace lost the last reader (A and B then drawn one flat colour), or named
    # a program that never read the element
    res = gpu_trace(TraceRequest("matmul", VALS, backend="gpu"), device="cpu")
    assert res.error is None, res.error
    ref = trace_spec(REGISTRY.get("matmul"), VALS, workers=1)
    for name in ("a_ptr", "b_ptr"):
        got = res.trace.maps_of(name).last_reader
        assert got is not None
        np.testing.assert_array_equal(got.reshape(-1), _highest_reader(ref, name), err_msg=name)
    assert (res.trace.maps_of("c_ptr").last_reader == -1).all()  # C is only written


def test_a_reduced_gpu_trace_keeps_the_latest_reader_of_each_cell_and_draws_bands():
    # breaks if the device's or the window's reduction dropped the last readers, or the grid
    # view drew A (its row bands read by different groups) in one flat colour
    from views.grid_view.prepare import FIRST, PALE, prepare_trace

    res = for_window(gpu_trace(TraceRequest("matmul", VALS, backend="gpu"), device="cpu", max_elements=64 * 64),
                     32 * 32)
    a = res.trace.maps_of("a_ptr").last_reader
    assert a is not None and (a >= 0).all()
    prep = prepare_trace(res.trace, "dispatch")
    panel = prep.panel("a_ptr")
    assert panel.shared_by_last
    img = prep.images[panel.index]
    assert (img >= FIRST + PALE).all()  # every A cell: the pale twin of a program's colour
    assert len(np.unique(img[:, 0])) >= 2, "A's row bands are read last by different programs"
