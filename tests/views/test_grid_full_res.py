"""A reduced map at full resolution in the grid view: zoomed in until its cells are a few pixels
wide (or double-clicked), the view asks for the elements in view; given the answer it draws them
over the cells, and hovering one there names the exact element and the program that wrote it."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QToolTip

from kernels.data.coarse import CoarseTrace, window_request
from kernels.data.trace import TraceRequest
from kernels.engine.kept_trace import KeptTrace
from kernels.trace.service import trace
from views.grid_view import GridView
from views.grid_view.detail import MIN_CELL_PX

N = 1 << 16
VALUES = {"N": N, "BLOCK_SIZE": 1024}


@pytest.fixture(scope="module")
def traces():
    """(what the worker keeps, the reduced trace it sends: 4 elements a cell, under 4 pixels
    wide at first; the full trace)."""
    kept = KeptTrace()
    reduced = kept.serve(window_request(TraceRequest("vector_add", VALUES), N // 4)).trace
    assert isinstance(reduced, CoarseTrace) and reduced.cells[0] == (1, 4)
    return kept, reduced, trace(TraceRequest("vector_add", VALUES)).trace


@pytest.fixture
def view(on_screen):
    return on_screen(GridView(), 1100, 850, exposed=True)


def _no_tooltip(qtbot) -> None:
    """The last hover's tooltip gone (offscreen, a pointer moved onto it is the tooltip's)."""
    QToolTip.hideText()
    qtbot.waitUntil(lambda: not QToolTip.isVisible(), timeout=2000)


def _drawn(qtbot, view, reduced):
    with qtbot.waitSignal(view.traceApplied, timeout=20000):
        view.set_trace(reduced, background=True)
    view._canvas.settle()


def test_zooming_in_fetches_the_region_and_hovering_names_the_exact_owner(qtbot, view, traces):
    # breaks if zooming a reduced map never asked for its elements, asked for the wrong ones, drew
    # the answer nowhere, or the hover still spoke of the 4-element cell instead of the element
    kept, reduced, full = traces
    _drawn(qtbot, view, reduced)
    out = next(p for p in view._prep.panels if p.info.name == full.tensors[2].name)
    name, slot = out.info.name, view._canvas.slots[out.index]
    assert view.region_shown(name) is None
    assert view._cell_px(out.index) < MIN_CELL_PX  # nothing asked for before the zoom
    with qtbot.waitSignal(view.regionWanted, timeout=5000, check_params_cb=lambda r: r.tensor == out.index) as got:
        slot.vb.setRange(xRange=(250, 262), yRange=(0, 1), padding=0)  # cells ~80 px wide, elements ~20 px
    req = got.args[0]
    assert slot.px_per_cell()[0] >= MIN_CELL_PX and req.key == reduced.region_key
    assert req.rows == (0, 1) and req.cols == (250 * 4, 262 * 4)  # the cells in view, in elements
    assert view.set_region(kept.answer(req))
    assert view.region_shown(name) == req
    for e in (262 * 4 - 1, 1025, 1024, 1023, 1022, 1000):
        _no_tooltip(qtbot)
        qtbot.mouseMove(view.graphics_view().viewport(), view.region_element_pos(name, 0, e))
        qtbot.waitUntil(lambda e=e: f"{name}[{e}]" in view.hover_text(), timeout=2000)
        text = view.hover_text()
        owner = int(full.maps[2].writer[e])
        assert f"{name}[{e}]" in text and "(at full resolution)" in text, text
        assert f"written by program {owner} " in text and owner == e // 1024, text
    # zoomed back out: the region is dropped, the hover speaks of cells again
    slot.vb.autoRange(padding=0)
    qtbot.waitUntil(lambda: view.region_shown(name) is None, timeout=5000)
    _no_tooltip(qtbot)
    qtbot.mouseMove(view.graphics_view().viewport(), view.element_pos(name, 3))
    qtbot.waitUntil(lambda: "1 cell = 4 elements" in view.hover_text(), timeout=2000)
    assert "(at full resolution)" not in view.hover_text() and "1 cell = 4 elements" in view.hover_text()


def test_a_double_click_asks_for_full_resolution_and_a_new_trace_drops_it(qtbot, view, traces):
    # breaks if the double-click's "show at full resolution" asked nothing, or a region of the
    # last trace stayed drawn over (or was accepted for) the next one
    kept, reduced, full = traces
    _drawn(qtbot, view, reduced)
    name = full.tensors[0].name
    pos = view.element_pos(name, 7)
    with qtbot.waitSignal(view.regionWanted, timeout=5000) as got:
        qtbot.mouseDClick(view.graphics_view().viewport(), Qt.MouseButton.LeftButton, pos=pos)
    # QTest's double-click leaves Qt believing the button is still down (a later test's moves
    # would be drags, not hovers): let it go
    qtbot.mouseRelease(view.graphics_view().viewport(), Qt.MouseButton.LeftButton, pos=pos)
    answer = kept.answer(got.args[0])
    np.testing.assert_array_equal(answer.maps.reader[0], full.maps[0].reader[slice(*answer.request.cols)])
    assert view.set_region(answer) and view.region_shown(name) is not None
    _drawn(qtbot, view, full)  # another trace
    assert view.region_shown(name) is None and not view.set_region(answer)
