"""The Advice card: findings listed most severe first with their severity colour and what became
of the advice; selecting one shows its evidence and tells the window which finding it is.

What breaks if these fail: the card hides the first cause, calls a compile-checked proposal
"measured", or a click on a finding shows nothing in the window."""

from __future__ import annotations

import os

from PySide6.QtCore import Qt

from kernels.data.advice import Advice, WhyRequest
from kernels.data.errors import ErrorInfo
from views.advice_view import SEVERITY_COLOURS, AdviceView, demo_advice


def test_findings_are_listed_with_severity_line_and_status(qtbot, tmp_path):
    w = AdviceView()
    qtbot.addWidget(w)
    w.resize(720, 560)
    w.set_advice(demo_advice())
    assert w.list.topLevelItemCount() == 3
    first = w.list.topLevelItem(0)
    assert first.text(0) == "high" and first.text(2) == "24" and first.text(3) == "checked"
    assert first.foreground(0).color().name() == SEVERITY_COLOURS["high"]
    assert w.list.topLevelItem(1).text(3) == "measured 1.26x"  # 1.20 ms -> 0.95 ms, timed
    assert w.list.topLevelItem(2).text(3) == "suggestion"
    assert "needs GPU timing" in w.gpu.text()
    if os.environ.get("TILESCOPE_ADVICE_SHOT"):
        w.show()
        qtbot.waitExposed(w)
        w.grab().save(os.environ["TILESCOPE_ADVICE_SHOT"])


def test_selecting_a_finding_shows_its_evidence_and_tells_the_window(qtbot):
    w = AdviceView()
    qtbot.addWidget(w)
    w.set_advice(demo_advice())
    with qtbot.waitSignal(w.findingActivated) as sig:
        w.select(1)
    assert sig.args[0].rule == "tail" and sig.args[0].shows == "timeline"
    text = w.detail.toPlainText()
    assert "efficiency" in text and "0.636" in text and "Measured: BLOCK_M=64" in text


def test_the_button_asks_with_or_without_trying_the_proposals(qtbot):
    w = AdviceView()
    qtbot.addWidget(w)
    w.try_box.setChecked(True)
    with qtbot.waitSignal(w.adviceRequested) as sig:
        qtbot.mouseClick(w.ask, Qt.MouseButton.LeftButton)
    assert sig.args == [True]


def test_an_error_is_said_and_the_button_comes_back(qtbot):
    w = AdviceView()
    qtbot.addWidget(w)
    w.set_busy("asking")
    assert not w.ask.isEnabled()
    req = WhyRequest("vector_add")
    w.set_advice(Advice(kernel=req.kernel, values={}, target="sm_90", backend="interpreter",
                        error=ErrorInfo("compile", "compiling failed: out of resources")))
    assert w.ask.isEnabled() and "out of resources" in w.status.text()
    assert w.list.topLevelItemCount() == 0


def test_a_fix_the_kernels_own_source_holds_is_named_so_and_shows_its_measurement(qtbot):
    from kernels.data.advice import Finding, Proposal, Trial

    f = Finding(rule="uncoalesced", severity="high", title="line 31 load of x_ptr: 32.0 sectors per request, ideal 4.0",
                line=31, proposal=Proposal("at line 31: walk the rows", "variant", {"BY_ROWS": True}),
                trial=Trial({"BY_ROWS": True}, measured=True, current_ms=0.353, proposed_ms=0.0377, passed=True))
    w = AdviceView()
    qtbot.addWidget(w)
    w.set_advice(Advice(kernel="column_copy", values={}, target="sm_90", backend="gpu", findings=[f]))
    assert w.list.topLevelItem(0).text(3) == "measured 9.36x"
    text = w.detail.toPlainText()
    assert "the kernel's own fixed variant" in text and "Measured: BY_ROWS=True" in text
