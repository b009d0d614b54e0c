"""The grid's info box in a short view (a laptop's middle column), in English and in Chinese: a
pinned program's long hover text is cut at whole lines that are all drawn, and its last line —
how to unpin — is kept.

What breaks if this fails: in Chinese (a CJK fallback font, 18 px a line where the mono font's
metrics say 14) the box showed 5 of its 6 lines and the learner lost the "… (the rest in the
tooltip)" line; in both languages a long text lost the line saying how to unpin.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRect

from views import i18n
from views.demo import demo_matmul
from views.grid_view import GridView


@pytest.mark.parametrize("lang", ["en", "zh_CN"])
def test_a_pinned_programs_text_is_cut_at_whole_lines_and_keeps_how_to_unpin(qapp, qtbot, on_screen, lang):
    i18n.install_translator(qapp, lang)
    try:
        view = on_screen(GridView(), 1100, 600, exposed=True)  # under 700 px tall: the short box
        view.set_trace(demo_matmul())
        qtbot.wait(1)
        view._state.pin_target(("program", 1))
        info = view._info
        whole = view._info_text.split("\n")
        shown = info.text().split("\n")
        assert len(whole) > len(shown), "the text should be longer than the box (else nothing is cut)"
        pinned_line = whole[-1]
        assert "Esc" in pinned_line and shown[-1] == pinned_line
        assert shown[:-2] == whole[:len(shown) - 2] and shown[-2].startswith("… ")
        # every line drawn whole: the text as drawn (fallback fonts included) fits the box
        drawn = info.fontMetrics().boundingRect(QRect(0, 0, 100000, 100000), 0, info.text()).height()
        assert drawn <= info.height(), f"{len(shown)} lines need {drawn} px, the box is {info.height()}"
    finally:
        i18n.install_translator(qapp, "en")
