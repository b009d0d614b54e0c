"""The grid's colour box in a 1366×768 window (offscreen): whatever it names — "automatic: by
launch order", the longest "automatic: …", each mode — its text is drawn whole, the window is not
widened for it, and its tooltip holds the text too.

What breaks if this fails: on a laptop the box read "automatic: by launch c", and the learner
could not tell which colouring the automatic mode had chosen.
"""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QStyle, QStyleOptionComboBox
from real_window import make_window, wait_ready, wait_until

from views.grid_view.controls import GridControls
from views.grid_view.prepare import COLOR_MODES


@pytest.fixture(scope="module")
def win(qapp, tmp_path_factory):
    w = make_window(tmp_path_factory.mktemp("grid-colour-fit"))
    w.resize(1366, 768)
    w.show()
    wait_ready(w)
    w.panel.set_backend("interpreter")
    w.select_kernel("vector_add")
    w.trace()
    wait_until(lambda: w.session.trace is not None and not w._busy_kinds() and not w.is_drawing(), 120,
               "vector_add's trace drawn")
    yield w
    w.close()


def _room_and_need(combo) -> tuple[int, int]:
    """The px the box draws its text in, and the px its current text needs."""
    opt = QStyleOptionComboBox()
    combo.initStyleOption(opt)
    room = combo.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, opt,
                                        QStyle.SubControl.SC_ComboBoxEditField, combo).width()
    return room, combo.fontMetrics().horizontalAdvance(combo.currentText())


def test_every_colour_mode_is_named_whole_in_a_1366_window(qapp, win):
    controls = win.grid.findChild(GridControls)
    combo = controls._mode_combo
    assert combo.isVisible()
    auto = combo.findData("auto")
    for shown in ("dispatch", *[k for k in COLOR_MODES if k != "auto"]):
        controls.show_auto(shown, "")
        for i in (auto, *[combo.findData(k) for k in COLOR_MODES if k != "auto"]):
            combo.setCurrentIndex(i)
            qapp.processEvents()
            room, need = _room_and_need(combo)
            assert need <= room, f"{combo.currentText()!r} needs {need} px, the box draws {room}"
            assert combo.currentText() in combo.toolTip()
            assert win.width() == 1366, f"the window grew to {win.width()} px for {combo.currentText()!r}"
    controls.show_auto("dispatch", "")
    combo.setCurrentIndex(auto)
    qapp.processEvents()
    assert combo.currentText() == "automatic: by launch order" and combo.toolTip().startswith(combo.currentText())
