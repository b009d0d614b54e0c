"""AdviceView: why is it slow — the advisor's findings, most severe first, each with its evidence.

A button asks for the findings (``adviceRequested(try_changes)``: the window sends a ``why``
request); a check box asks for the launch proposals to be tried as well. Each finding is a row:
its severity (coloured), its title and source line, and what became of its advice — *measured*
(timed on a GPU, with the gain), *checked* (compiled for the target, not timed), *not tried* or
*suggestion* (a code change at a line). Selecting a row shows its detail, evidence, proposal and
trial below and emits ``findingActivated(finding)``: the window shows the evidence (the source
line, the timeline, the Threads tab's access). Under the list, what could not be checked here
(on the CPU: what needs a GPU).

Takes ``kernels.data.advice.Advice``; imports no engine. ``python -m views.advice_view`` opens it
with demo data.
"""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QTextBrowser,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from kernels.data.advice import Advice, Finding, Proposal, Trial
from kernels.data.backends import GPU, INTERPRETER

from .elided_label import ElidedLabel
from .engine_words import advice_text, engine_text, evidence_row
from .i18n import translate
from .preview import preview

__all__ = ["AdviceView", "SEVERITY_COLOURS", "demo_advice"]

SEVERITY_COLOURS = {"high": "#d0342c", "medium": "#e08a00", "low": "#3b7dd8", "info": "#777777"}
#: the words for severities and statuses, shown translated
WORDS = (QT_TRANSLATE_NOOP("AdviceView", "high"), QT_TRANSLATE_NOOP("AdviceView", "medium"),
         QT_TRANSLATE_NOOP("AdviceView", "low"), QT_TRANSLATE_NOOP("AdviceView", "info"),
         QT_TRANSLATE_NOOP("AdviceView", "measured"), QT_TRANSLATE_NOOP("AdviceView", "checked"),
         QT_TRANSLATE_NOOP("AdviceView", "not tried"), QT_TRANSLATE_NOOP("AdviceView", "suggestion"))


class AdviceView(QWidget):
    """The Advice card. ``set_advice(advice)`` fills it; ``set_busy(text)`` / ``set_error(text)``
    say what is going on instead."""

    adviceRequested = Signal(bool)  # try the launch proposals too
    findingActivated = Signal(object)  # the Finding selected

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.advice: Advice | None = None
        self.ask = QPushButton(translate("AdviceView", "Why is it slow?"))
        self.ask.setObjectName("advice_ask")
        self.try_box = QCheckBox(translate("AdviceView", "Try the launch proposals"))
        self.try_box.setToolTip(translate("AdviceView", "On a GPU each launch change is timed against the current values; "
                                   "on the CPU each is compiled for the target and checked"))
        self.status = QLabel(translate("AdviceView", "Ask for the likely causes of slowness, with their evidence."))
        self.status.setWordWrap(True)
        self.list = QTreeWidget()
        self.list.setObjectName("advice_findings")
        self.list.setHeaderLabels([translate("AdviceView", "Severity"), translate("AdviceView", "Finding"), translate("AdviceView", "Line"), translate("AdviceView", "Advice")])
        self.list.setRootIsDecorated(False)
        head = self.list.header()  # the finding takes what the other three leave
        head.setStretchLastSection(False)
        for column, mode in enumerate((QHeaderView.ResizeMode.ResizeToContents, QHeaderView.ResizeMode.Stretch,
                                       QHeaderView.ResizeMode.ResizeToContents,
                                       QHeaderView.ResizeMode.ResizeToContents)):
            head.setSectionResizeMode(column, mode)
        self.detail = QTextBrowser()
        self.detail.setObjectName("advice_detail")
        self.gpu = ElidedLabel("")  # one line, elided; the whole list in its tooltip
        self.gpu.setStyleSheet("color: #555;")
        top = QHBoxLayout()
        top.addWidget(self.ask)
        top.addWidget(self.try_box)
        top.addStretch(1)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.list)
        split.addWidget(self.detail)
        split.setSizes([220, 200])
        lay = QVBoxLayout(self)
        lay.addLayout(top)
        lay.addWidget(self.status)
        lay.addWidget(split, 1)
        lay.addWidget(self.gpu)
        self.ask.clicked.connect(lambda: self.adviceRequested.emit(self.try_box.isChecked()))
        self.list.currentItemChanged.connect(self._on_current)

    # -- what the window calls --------------------------------------------------------------------
    def set_busy(self, text: str) -> None:
        self.ask.setEnabled(False)
        self.status.setText(text)

    def set_error(self, text: str) -> None:
        self.ask.setEnabled(True)
        self.status.setText(translate("AdviceView", "No findings: {why}").format(why=text))

    def set_advice(self, advice: Advice | None) -> None:
        """Show ``advice`` (None: empty)."""
        self.advice = advice
        self.ask.setEnabled(True)
        self.list.clear()
        self.detail.clear()
        self.gpu.setText("")
        self.gpu.setToolTip("")
        if advice is None:
            return
        if advice.error is not None:
            self.set_error(getattr(advice.error, "message", str(advice.error)))
            return
        n_high = len(advice.high())
        self.status.setText(translate("AdviceView", "{kernel} on {target}: {n} finding(s), {h} high").format(
            kernel=advice.kernel, target=advice.target, n=len(advice.findings), h=n_high) if advice.findings
            else translate("AdviceView", "{kernel} on {target}: nothing Tilescope can see holds it back").format(
                kernel=advice.kernel, target=advice.target))
        for f in advice.findings:
            item = QTreeWidgetItem([translate("AdviceView", f.severity), self.text(f, "title"),
                                    str(f.line) if f.line >= 0 else "", self.status_text(f)])
            item.setForeground(0, QBrush(QColor(SEVERITY_COLOURS.get(f.severity, "#000"))))
            item.setData(0, Qt.ItemDataRole.UserRole, f)
            item.setToolTip(1, self.text(f, "detail"))
            self.list.addTopLevelItem(item)
        if advice.not_checked:
            lines = [engine_text(n) for n in advice.not_checked]
            self.gpu.setText(translate("AdviceView", "Not checked here: {what}").format(what="; ".join(lines)))
            self.gpu.setToolTip("\n".join(lines))
        if self.list.topLevelItemCount():
            self.list.setCurrentItem(self.list.topLevelItem(0))

    @staticmethod
    def text(f: Finding, field: str) -> str:
        """The finding's ``field`` ("title", "detail", "proposal") in the window's language."""
        english = (f.proposal.text if f.proposal is not None else "") if field == "proposal" else getattr(f, field)
        return advice_text(f.words.get(field), english)

    @staticmethod
    def status_text(f: Finding) -> str:
        """"measured 1.84x", "checked", "not tried" or "suggestion" (translated)."""
        s = f.status
        if s == "measured" and f.trial is not None and f.trial.gain is not None:
            return translate("AdviceView", "measured {gain:.2f}x").format(gain=f.trial.gain)
        return translate("AdviceView", s)

    def select(self, index: int) -> None:
        """Select the ``index``-th finding (what a click does)."""
        self.list.setCurrentItem(self.list.topLevelItem(index))

    def current(self) -> Finding | None:
        item = self.list.currentItem()
        return item.data(0, Qt.ItemDataRole.UserRole) if item is not None else None

    # -- inside --------------------------------------------------------------------------------------
    def _on_current(self, item: QTreeWidgetItem | None, _prev: Any = None) -> None:
        f = item.data(0, Qt.ItemDataRole.UserRole) if item is not None else None
        if f is None:
            self.detail.clear()
            return
        self.detail.setHtml(self.detail_html(f))
        self.findingActivated.emit(f)

    @staticmethod
    def detail_html(f: Finding) -> str:
        e = html.escape
        rows = "".join(f"<tr><td>{e(label)}</td><td><b>{e(value)}</b></td></tr>"
                       for label, value in (evidence_row(k, v) for k, v in f.evidence.items() if v is not None))
        evidence = translate("AdviceView", "Evidence")
        parts = [f"<p><b>{e(AdviceView.text(f, 'title'))}</b></p>", f"<p>{e(AdviceView.text(f, 'detail'))}</p>",
                 f"<p>{e(evidence)}:</p><table cellspacing='4'>{rows}</table>"]
        if f.proposal is not None:
            kind = (translate("AdviceView", "the kernel's own fixed variant") if f.proposal.kind == "variant"
                    else translate("AdviceView", "launch change") if f.proposal.measurable
                    else translate("AdviceView", "suggestion only"))
            proposal = translate("AdviceView", "Proposal")
            parts.append(f"<p>{e(proposal)} ({e(kind)}): {e(AdviceView.text(f, 'proposal'))}</p>")
        t = f.trial
        if t is not None:
            change = ", ".join(f"{k}={v}" for k, v in t.changes.items())
            if t.measured and t.current_ms and t.proposed_ms:
                parts.append("<p>" + e(translate("AdviceView", "Measured: {change}: {a:.4f} ms -> {b:.4f} ms ({g:.2f}x)").format(
                    change=change, a=t.current_ms, b=t.proposed_ms, g=t.gain or 0.0)) + "</p>")
            elif t.checked:
                after = translate("AdviceView", "the finding is gone") if t.after.get("resolved") else \
                    ", ".join(f"{label} {value}" for label, value in (evidence_row(k, v) for k, v in t.after.items()))
                parts.append("<p>" + e(translate("AdviceView", "Checked by compiling {change} (not timed): {after}").format(
                    change=change, after=after)) + "</p>")
            if t.note:
                parts.append(f"<p style='color:#666'>{e(engine_text(t.note))}</p>")
        return "".join(parts)


def demo_advice() -> Advice:
    """Findings shaped like the advisor's for vector add at BLOCK_SIZE 64 and a spilling matmul
    (demo data for the preview, not a measurement)."""
    narrow = Finding(
        rule="vector_width", severity="high", title="line 24: 64 elements for 128 threads, 32-bit accesses",
        detail="each thread moves 32 bits per instruction (128 is the widest) and every element is held by two "
               "threads", evidence={"elements": 64, "threads": 128, "vector_bits": 32, "duplicated": 1.0},
        line=24, shows="threads", access=0,
        proposal=Proposal("a larger block (BLOCK_SIZE 64 -> 1024): 128-bit accesses, two per thread", "launch",
                          {"BLOCK_SIZE": 1024}),
        trial=Trial({"BLOCK_SIZE": 1024}, checked=True, after={"resolved": True}, backend="compile",
                    note="compiled for sm_90; not timed (no GPU): 1 candidate(s) checked"))
    tail = Finding(rule="tail", severity="medium", title="1.27 waves: the last keeps 27% of the GPU busy",
                   detail="168 programs on 132 SMs x 1 per SM (formula)", shows="timeline",
                   evidence={"programs": 168, "waves": 1.273, "efficiency": 0.636},
                   proposal=Proposal("more, smaller programs", "launch", {"BLOCK_M": 64}),
                   trial=Trial({"BLOCK_M": 64}, measured=True, current_ms=1.20, proposed_ms=0.95, backend=GPU))
    masked = Finding(rule="masked_lanes", severity="low", title="12% of the lanes of loads and stores are masked off",
                     line=25, shows="grid", evidence={"masked_fraction": 0.12},
                     proposal=Proposal("a block closer to the size it covers"))
    return Advice(kernel="vector_add", values={"BLOCK_SIZE": 64, "N": 65536}, target="sm_90", backend=INTERPRETER,
                  findings=[narrow, tail, masked],
                  not_checked=["roofline position (needs GPU timing against the measured roofs)"])


def _demo() -> QWidget:  # pragma: no cover - manual preview
    w = AdviceView()
    w.set_advice(demo_advice())
    w.resize(720, 560)
    return w


if __name__ == "__main__":  # pragma: no cover
    preview(_demo)
