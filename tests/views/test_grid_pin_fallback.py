"""Pinning a program a big GPU trace kept no access events for lights what its maps say it did.

What breaks if these fail: a GPU trace carries per-access events for its first programs only
(``kernels.gpu_trace.footprints``: matmul 4096³ keeps programs 0..126 of 4,096), and pinning a
later program lit nothing, with no word why. Now its cells come from the maps — its own output
tile exactly (it is the writer), of what it read the cells no program read after it (the last
reader) — and the pin's text says the events stop at the kept programs and what is lit instead.
The GPU-style traces are built on the CPU as ``tests/kernels/test_gpu_trace_pin.py`` builds them
(the GPU recorder's instrumented build under the interpreter), with the events capped lower.
"""

from __future__ import annotations

import functools
import importlib.util
from pathlib import Path

import numpy as np
import pytest

from kernels.gpu_trace import footprints
from kernels.gpu_trace import service as gpu_service
from views.grid_view import GridView
from views.grid_view.lighting import panel_flags
from views.grid_view.prepare import prepare_trace


def _pin_module():
    path = Path(__file__).resolve().parents[1] / "kernels" / "test_gpu_trace_pin.py"
    spec = importlib.util.spec_from_file_location("gpu_trace_pin_helpers", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


PIN = _pin_module()  # its _trace(case, backend) and the VECTOR_ADD / MATMUL cases


def _capped(monkeypatch, case: tuple, max_events: int):
    monkeypatch.setattr(gpu_service, "tile_events", functools.partial(footprints.tile_events, max_events=max_events))
    return PIN._trace(case, "gpu")


def _interp_lit(trace, pid: int) -> dict[str, np.ndarray]:
    prep = prepare_trace(trace)
    return {p.info.name: panel_flags(p, ("program", pid), None) for p in prep.panels}


def _pinned(on_screen, qtbot, trace, pid: int) -> GridView:
    view = on_screen(GridView(), 1100, 850)
    view.set_trace(trace)
    qtbot.wait(1)
    view.hover_program(pid)
    assert view.pin() and view.selected_program() == pid
    view.hover_program(None)  # the pin alone lights
    return view


def test_a_program_past_the_kept_events_lights_its_cells_from_the_maps(monkeypatch, on_screen, qtbot):
    # 16 programs x 3 records: 7 accesses end at whole programs 0..1; program 5 has no events
    gpu = _capped(monkeypatch, PIN.VECTOR_ADD, 7)
    assert set(gpu.trace.events.program.tolist()) == {0, 1}
    want = _interp_lit(PIN._trace(PIN.VECTOR_ADD, "interpreter").trace, 5)
    view = _pinned(on_screen, qtbot, gpu.trace, 5)
    for name in view.tensor_names():  # each element has one reader or writer: the maps are exact
        got = view.lit_kinds(name).reshape(-1)
        assert int((got > 0).sum()) == 64, name  # the program's 512 elements: 64 cells
        assert np.array_equal(got, want[name]), name
    text = view.hover_text()
    assert "the trace kept them for programs 0..1 of 16 only" in text, text
    assert "out_ptr: written (from the maps)  elements 2560..3071" in text, text
    assert "x_ptr: read (from the maps)  elements 2560..3071" in text, text
    assert "masked lanes" not in text  # no lanes to count: "0 of 0" said nothing
    view.pin()  # a kept program is lit from its events, with no such note
    view.hover_program(1)
    assert view.pin() and "from the maps" not in view.hover_text()
    assert np.array_equal(view.lit_kinds("out_ptr").reshape(-1), _interp_lit(gpu.trace, 1)["out_ptr"])


@pytest.fixture(scope="module")
def matmul():
    mp = pytest.MonkeyPatch()
    try:  # 4 programs (2 x 2 tiles of C) x 5 records: 5 accesses are program 0's
        gpu = _capped(mp, PIN.MATMUL, 5)
    finally:
        mp.undo()
    return PIN._trace(PIN.MATMUL, "interpreter").trace, gpu.trace


def test_a_shared_operand_lights_only_the_cells_the_program_read_last_and_says_so(matmul, on_screen, qtbot):
    interp, gpu = matmul
    assert set(gpu.events.program.tolist()) == {0}
    prep = prepare_trace(gpu)
    for pid in (1, 2, 3):
        want = _interp_lit(interp, pid)
        got = {p.info.name: panel_flags(p, ("program", pid), None) for p in prep.panels}
        assert np.array_equal(got["c_ptr"] > 0, want["c_ptr"] > 0), pid  # its own tile: exact
        for name in ("a_ptr", "b_ptr"):  # of what it read, never a cell it did not read
            assert not np.any((got[name] > 0) & (want[name] == 0)), (pid, name)
    # (pid_m, pid_n) of programs 0..3 (GROUP_SIZE_M 8): (0, 0), (1, 0), (0, 1), (1, 1), run in that
    # order. Program 3 runs last: the last reader of all it read. Program 2 read A's rows 0..63 after
    # program 0 (lit), B's columns 64..127 before program 3 (not lit)
    want3 = _interp_lit(interp, 3)
    got3 = {p.info.name: panel_flags(p, ("program", 3), None) for p in prep.panels}
    for name in ("a_ptr", "b_ptr"):
        assert np.array_equal(got3[name] > 0, want3[name] > 0), name
    got2 = {p.info.name: panel_flags(p, ("program", 2), None) for p in prep.panels}
    assert np.array_equal(got2["a_ptr"] > 0, _interp_lit(interp, 2)["a_ptr"] > 0) and not got2["b_ptr"].any()
    view = _pinned(on_screen, qtbot, gpu, 2)
    assert view.lit_elements("c_ptr").any() and not view.lit_elements("b_ptr").any()
    text = view.hover_text()
    assert "the trace kept them for programs 0..0 of 4 only" in text, text
    assert "of those it read only the ones it read last" in text, text
