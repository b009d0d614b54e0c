"""A pooled plot resized after the grid's layout widget was deleted (the window closing) must not
raise: the soak of the GUI tests under load caught ``QTimer already deleted`` from
``GridCanvas._range_changed`` in a lesson-dock test's teardown."""

from __future__ import annotations

import shiboken6

from views.demo import demo_vector_add
from views.grid_view import GridView


def test_a_resize_after_the_layout_is_gone_is_ignored(qtbot):
    view = GridView()
    qtbot.addWidget(view)
    view.set_trace(demo_vector_add())
    canvas = view._canvas
    slot = canvas.prog
    shiboken6.delete(canvas._label_timer)  # what deleting the layout widget does to its child timer
    slot.vb.sigResized.emit(slot.vb)  # pytest-qt fails the test on an exception raised in a slot
    slot.vb.sigRangeChanged.emit(slot.vb, [[0, 1], [0, 1]], [True, True])
