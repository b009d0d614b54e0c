"""The grid view drawing a trace the worker reduced to cells (``kernels.data.coarse``): the user
hovers the real elements and programs, and the titles say a cell is several elements."""

from __future__ import annotations

import numpy as np
import pytest

from kernels.data.coarse import coarsen
from views.demo import demo_vector_add
from views.grid_view import GridView


@pytest.fixture
def view(on_screen):
    return on_screen(GridView(), 1100, 850, exposed=True)


def test_a_reduced_trace_is_drawn_and_hovered_in_elements(qtbot, view):
    # breaks if the window, given a reduced trace, spoke of cells as if they were elements: the
    # wrong indices in the hover, the cells' shape in the title, or bytes and lanes of cells
    full = demo_vector_add(4096, 128)  # 32 programs
    tr = coarsen(full, 256)  # 16 elements a cell
    with qtbot.waitSignal(view.traceApplied, timeout=10000):
        view.set_trace(tr, background=True)
    assert view.trace() is tr
    assert view.map_shape("out_ptr")[0] * view.map_shape("out_ptr")[1] >= 256
    title = view._tile_plot("out_ptr").titleLabel.text  # the tensor as it is, and the cell's size
    assert "[4096]" in title and "1 cell = 16 elements" in title, title
    view.hover_element("out_ptr", 20)  # cell 20: elements 320..335, written by program 2
    text = view.hover_text()
    assert "out_ptr[elements 320..335]" in text and "1 cell = 16 elements" in text
    assert "written by program 2" in text
    view.hover_element(None)
    view.hover_program(3)
    text = view.hover_text()
    assert "elements 384..511  (128 elements)" in text  # program 3's block, in elements
    assert "masked lanes: 0 of 384" in text and "bytes loaded 1,024   stored 512" in text
    # program 3 lights exactly the cells of its block
    np.testing.assert_array_equal(np.flatnonzero(view.lit_elements("out_ptr")), np.arange(24, 32))
