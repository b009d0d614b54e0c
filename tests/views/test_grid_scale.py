"""The grid view at real sizes: the colours read when a drawn cell holds many elements, the axes
count elements, and a pinned program's row is seen among 1823.

The softmax trace here is what the tracer records for the catalog's fused softmax at its default
1823×781 (one program per row: one load of its input row, one store of its output row, BLOCK_SIZE
1024 with 243 lanes masked), built with the trace model's own ``derive`` so the test needs no
interpreter; the window gets it reduced by ``coarsen`` as the worker sends it."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtWidgets import QComboBox

from kernels.data.coarse import MAX_CELLS, coarsen
from kernels.data.maps import derive
from kernels.data.trace import OP_LOAD, OP_STORE, AccessTable, TensorInfo, Trace
from views.demo import demo_matmul, demo_vector_add
from views.grid_view import GridView
from views.grid_view.palette import TINT, mode_lut
from views.grid_view.prepare import FIRST, LIT_LOAD, LIT_STORE, N_SEQ


def softmax_trace(rows: int = 1823, cols: int = 781, block: int = 1024) -> Trace:
    """Program p loads row p of ``in_ptr`` and stores row p of ``out_ptr`` (see the module doc)."""
    p = np.repeat(np.arange(rows, dtype=np.int32), 2)
    op = np.tile(np.array([OP_LOAD, OP_STORE], np.int8), rows)
    tensor = np.tile(np.array([1, 0], np.int16), rows)
    n = np.full(2 * rows, cols, np.int32)
    elements = (p.astype(np.int64)[:, None] * cols + np.arange(cols)).reshape(-1).astype(np.int32)
    events = AccessTable(program=p, op=op, tensor=tensor, line=np.tile(np.array([10, 14], np.int32), rows),
                         iters=np.zeros((2 * rows, 0), np.int32), n_active=n,
                         n_masked=np.full(2 * rows, block - cols, np.int32), n_oob=np.zeros(2 * rows, np.int32),
                         lane_start=np.arange(2 * rows, dtype=np.int64) * cols, elements=elements)
    tensors = [TensorInfo("out_ptr", (rows, cols), (cols, 1), "float32", 0, 4),
               TensorInfo("in_ptr", (rows, cols), (cols, 1), "float32", 0, 4)]
    programs = np.arange(rows, dtype=np.int32)
    maps, stats = derive(tensors, events, programs)
    return Trace(kernel="softmax", values={"M": rows, "N": cols, "BLOCK_SIZE": block}, grid=(rows, 1, 1),
                 programs=programs, window=None, tensors=tensors, scalars={}, constexprs={"BLOCK_SIZE": block},
                 events=events, oob=[], maps=maps, stats=stats, source="", source_file="", source_first_line=1)


@pytest.fixture
def view(on_screen):
    return on_screen(GridView(), 1100, 850, exposed=True)


def _show(qtbot, view, tr):
    with qtbot.waitSignal(view.traceApplied, timeout=20000):
        view.set_trace(tr, background=True)


def _axis_labels(view, tensor: str, side: str) -> list[int]:
    """The numbers pyqtgraph draws on a map's axis, over the whole map."""
    plot = view._tile_plot(tensor)
    axis = plot.getAxis(side)
    (x0, x1), (y0, y1) = plot.vb.viewRange()
    lo, hi = (y0, y1) if side == "left" else (x0, x1)
    size = axis.height() if side == "left" else axis.width()
    values = [v for _, vals in axis.tickValues(lo, hi, size) for v in vals]
    return sorted(int(s) for s in axis.tickStrings(values, 1.0, 1.0))


def test_axes_count_elements_of_a_reduced_map(qtbot, view):
    # breaks if the axes counted drawn cells: softmax's 1823 rows ended near 450 on the axis and
    # row 900 sat at y=225
    tr = coarsen(softmax_trace(), MAX_CELLS)
    _show(qtbot, view, tr)
    for name in ("out_ptr", "in_ptr"):
        rows, cols = _axis_labels(view, name, "left"), _axis_labels(view, name, "top")
        assert 1600 <= rows[-1] <= 1823, rows
        assert 600 <= cols[-1] <= 781, cols


def test_hovering_a_softmax_program_reports_its_own_row(qtbot, view):
    # breaks if a reduced map cut cells across rows (4 × 2 elements): program 900 then reported
    # "rows 900..903" though each program owns exactly one row
    tr = coarsen(softmax_trace(), MAX_CELLS)
    _show(qtbot, view, tr)
    view.hover_program(900)
    text = view.hover_text()
    assert "out_ptr: store ×1  rows 900, cols 0..780  (781 elements)" in text, text
    assert "in_ptr: load ×1  rows 900, cols 0..780  (781 elements)" in text, text
    lit = np.flatnonzero(view.lit_elements("out_ptr"))
    panel = view._prep.panel("out_ptr")
    rows = {panel.cell_span(int(c) // panel.info.shape[1], int(c) // panel.info.shape[1], 0) for c in lit}
    assert rows == {(900, 900)}, rows


def test_a_pinned_row_is_framed_in_the_colour_of_what_it_did(qtbot, view):
    # breaks if program 900's one row among 1823 (under a pixel tall) could not be seen once
    # pinned, or its stored row took the loaded colour
    tr = coarsen(softmax_trace(), MAX_CELLS)
    _show(qtbot, view, tr)
    view.hover_program(900)
    assert view.pin()
    kr = view._prep.panel("out_ptr").cell[0]
    for name, bits in (("out_ptr", LIT_STORE), ("in_ptr", LIT_LOAD)):
        slot = view._canvas.slots[view._prep.panel(name).index]
        assert slot.lit_box.isVisible(), name
        assert slot.lit_box.pen().color().name() == TINT[bits], name
        rect = slot.lit_box.rect()
        assert rect.top() * kr <= 900 < rect.bottom() * kr, (name, rect)
        assert rect.width() == view.map_shape(name)[1]
    view.unpin()
    view.hover_program(None)
    assert not any(s.lit_box.isVisible() for s in view._canvas.slots[:2])


def test_many_programs_are_coloured_by_launch_order_named_in_the_view(qtbot, view):
    # breaks if 2048 programs were drawn in 20 cycling colours (a moiré at this size) or the
    # view did not say which colouring it chose and why
    tr = demo_vector_add(4096 * 64, 128)  # 2048 programs
    _show(qtbot, view, tr)
    assert view.color_mode() == "auto" and view.shown_color_mode() == "dispatch"
    combo = view.findChild(QComboBox)
    assert combo.currentData() == "auto" and combo.currentText() == "automatic: by launch order"
    assert "dispatch order" in view._legend.text() and "2,048 programs" in view._legend.text()
    ramp = mode_lut("dispatch")[FIRST: FIRST + N_SEQ, :3].astype(int)

    def rank(c):  # where on the launch-order ramp a drawn colour sits
        return int(np.abs(ramp - (c.red(), c.green(), c.blue())).sum(axis=1).argmin())

    ranks = [rank(view.element_color("out_ptr", e)) for e in range(0, 4096 * 64, 128 * 64)]
    assert ranks == sorted(ranks) and ranks[-1] - ranks[0] > N_SEQ // 2, ranks
    # few programs, one element a cell: each program its own colour, as before
    _show(qtbot, view, demo_matmul())
    assert view.shown_color_mode() == "program"
    assert combo.currentText() == "automatic: by program"
    # a reduced map (a cell = 16 elements): launch order, whatever the count of programs
    _show(qtbot, view, coarsen(demo_vector_add(4096, 128), 256))
    assert view.shown_color_mode() == "dispatch"
    assert "holds several elements" in view._legend.text()
    # chosen by hand, a mode stays
    view.set_color_mode("program")
    assert view.shown_color_mode() == "program"
    _show(qtbot, view, demo_vector_add(4096 * 64, 128))
    assert view.shown_color_mode() == "program"
