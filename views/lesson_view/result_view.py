"""LessonResultView: what a lesson check answered, drawn from a ``LessonResult``.

A badge (passed / not yet), the one-sentence message, where the check stopped, every other
finding, the wrong elements of each tensor (which program wrote or read them in the learner's run
and in the reference's, or the two values), the per-program load/store budgets, the lesson's own
figures and, for the autotune lesson, the ``@triton.autotune(...)`` text to copy. When the result
carries traces, "Show in grid" hands them on: ``showInGridRequested(trace)``.
"""

from __future__ import annotations

import html
import math

import numpy as np
from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QTableWidget,
    QTableWidgetItem,
    QWidget,
)

from kernels.data.lessons.result import BudgetFigure, LessonResult, WrongElements

from .. import theme
from ..i18n import translate
from ..layout import column, row
from .language import Retranslating, set_texts

__all__ = ["LessonResultView", "KIND_TEXTS", "STAGE_TEXTS"]

_CTX = "LessonResultView"
#: what is wrong with some elements (``WrongElements.kind``), as the table says it
KIND_TEXTS = {
    "never written": QT_TRANSLATE_NOOP("LessonResultView", "never written"),
    "written by another program": QT_TRANSLATE_NOOP("LessonResultView", "written by another program"),
    "written by several programs": QT_TRANSLATE_NOOP("LessonResultView", "written by several programs"),
    "written, not in the reference": QT_TRANSLATE_NOOP("LessonResultView", "written, not in the reference"),
    "never read": QT_TRANSLATE_NOOP("LessonResultView", "never read"),
    "read by another program": QT_TRANSLATE_NOOP("LessonResultView", "read by another program"),
    "read by several programs": QT_TRANSLATE_NOOP("LessonResultView", "read by several programs"),
    "read, not in the reference": QT_TRANSLATE_NOOP("LessonResultView", "read, not in the reference"),
    "wrong value": QT_TRANSLATE_NOOP("LessonResultView", "wrong value"),
}
#: where a check stopped (``LessonResult.stage``)
STAGE_TEXTS = {
    "load": QT_TRANSLATE_NOOP("LessonResultView", "loading your file"),
    "run": QT_TRANSLATE_NOOP("LessonResultView", "running it"),
    "lesson-first": QT_TRANSLATE_NOOP("LessonResultView", "the lesson's question"),
    "bounds": QT_TRANSLATE_NOOP("LessonResultView", "out-of-bounds accesses"),
    "written": QT_TRANSLATE_NOOP("LessonResultView", "which program wrote each element"),
    "read": QT_TRANSLATE_NOOP("LessonResultView", "which program read each element"),
    "values": QT_TRANSLATE_NOOP("LessonResultView", "the output values"),
    "budget": QT_TRANSLATE_NOOP("LessonResultView", "loads and stores per program"),
    "lesson": QT_TRANSLATE_NOOP("LessonResultView", "the lesson's question"),
    "done": QT_TRANSLATE_NOOP("LessonResultView", "every check"),
}
_SHOWN_INDICES = 4  # element indices listed per row of the table


def _t(text: str) -> str:
    """``text`` (a word of ``KIND_TEXTS`` or ``STAGE_TEXTS``) in the user's language."""
    return QCoreApplication.translate(_CTX, text)


def _program(p: int) -> str:
    if p == -1:
        return translate("LessonResultView", "none")
    if p == -2:
        return translate("LessonResultView", "several")
    return str(p)


def _values(w: WrongElements, which: np.ndarray) -> str:
    """The learner's (or the reference's) programs or values for the listed elements; one
    value for all of them said once."""
    def one(v: object) -> str:
        if w.kind == "wrong value":
            return "NaN" if isinstance(v, float) and math.isnan(v) else f"{float(v):.4g}"
        return _program(int(v))

    vals = which.tolist()
    if vals and all(v == vals[0] or (v != v and vals[0] != vals[0]) for v in vals):
        return translate("LessonResultView", "{value} (all)").format(value=one(vals[0])) if len(vals) > 1 else one(vals[0])
    return ", ".join(one(v) for v in vals[:_SHOWN_INDICES]) + (", …" if len(vals) > _SHOWN_INDICES else "")


def _where(w: WrongElements) -> str:
    idx = w.indices[:_SHOWN_INDICES].tolist()
    if len(w.shape) > 1:
        text = ", ".join(str(tuple(int(i) for i in np.unravel_index(int(k), w.shape))) for k in idx)
    else:
        text = ", ".join(str(int(k)) for k in idx)
    return text + (", …" if w.count > _SHOWN_INDICES else "")


def _series(values: list) -> str:
    shown = ", ".join(str(v) for v in values[:8]) + (", …" if len(values) > 8 else "")
    return translate("LessonResultView", "{values} (mean {mean:.1f})").format(values=shown, mean=float(np.mean(values)) if values else 0.0)


def _candidates_html(rows: list[dict]) -> str:
    head = "".join(f"<th align='left'>{h}</th>" for h in (
        translate("LessonResultView", "Config"), translate("LessonResultView", "Programs"), translate("LessonResultView", "Masked lanes"), translate("LessonResultView", "Interpreter time")))
    body = "".join(
        f"<tr><td>{html.escape(str(c.get('config', '')))}</td><td>{c.get('programs', '')}</td>"
        f"<td>{100 * float(c.get('masked_lanes', 0.0)):.0f}%</td><td>{float(c.get('interpreter_s', 0.0)):.3f} s</td></tr>"
        for c in rows)
    return f"<table cellspacing='0' cellpadding='2'><tr>{head}</tr>{body}</table>"


def _figures_html(figures: dict) -> list[str]:
    """The lesson's own figures as lines; the known ones named in the user's language."""
    out, rest = [], dict(figures)
    if "tiles_per_wave" in rest:
        mine, ref = rest.pop("tiles_per_wave"), rest.pop("reference_tiles_per_wave", [])
        out.append(translate("LessonResultView", "<b>Tiles loaded per wave</b>: yours {mine}; the reference {ref}").format(
            mine=_series(list(mine)), ref=_series(list(ref))))
    if "tile" in rest:
        out.append(translate("LessonResultView", "<b>Tile</b> (BLOCK_M × BLOCK_N × BLOCK_K): {tile}").format(
            tile=" × ".join(str(v) for v in rest.pop("tile"))))
    if "programs_per_wave" in rest:
        out.append(translate("LessonResultView", "<b>Programs per wave</b>: {n}").format(n=rest.pop("programs_per_wave")))
    if "candidates" in rest:
        out.append(translate("LessonResultView", "<b>Candidates</b>") + _candidates_html(list(rest.pop("candidates"))))
    if "timed" in rest:
        rest.pop("timed")
        out.append(translate("LessonResultView", "Timed by the interpreter's wall clock: it says nothing about a GPU."))
    out += [f"<b>{html.escape(str(k))}</b>: {html.escape(str(v))}" for k, v in rest.items()]
    return out


def _table(parent: QWidget, stretch: tuple[int, ...]) -> QTableWidget:
    """A read-only table as tall as its rows; columns ``stretch`` share the width left (their
    text elided, the whole row in its tooltip), the others fit their text."""
    t = QTableWidget(parent)
    t.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    t.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    t.setWordWrap(False)
    t.verticalHeader().hide()
    t.setColumnCount(6)
    head = t.horizontalHeader()
    for c in range(6):
        head.setSectionResizeMode(c, QHeaderView.ResizeMode.Stretch if c in stretch
                                  else QHeaderView.ResizeMode.ResizeToContents)
    t.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    t.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    t.hide()
    return t


def _fill(table: QTableWidget, rows: list[list[str]], tips: list[str] | None = None) -> None:
    table.setRowCount(len(rows))
    for r, cells in enumerate(rows):
        for c, text in enumerate(cells):
            item = QTableWidgetItem(text)
            if tips and tips[r]:
                item.setToolTip(tips[r])
            table.setItem(r, c, item)
    table.setVisible(bool(rows))
    table.resizeRowsToContents()
    h = table.horizontalHeader().sizeHint().height() + sum(table.rowHeight(r) for r in range(len(rows)))
    table.setFixedHeight(h + 2 * table.frameWidth())


class LessonResultView(Retranslating, QWidget):
    """A ``LessonResult`` on screen. Signal: ``showInGridRequested(object trace)`` — the learner's
    trace ("Show in grid") or the reference's ("Show the reference in grid")."""

    showInGridRequested = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._result: LessonResult | None = None
        self._state = "empty"  # empty | checking | result | error
        self._error = ""
        self.badge = QLabel(self)
        self.badge.setObjectName("badge")
        self.badge.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.badge.setMinimumWidth(110)
        self.message = self._label("message")
        self.message.setStyleSheet("font-size: 11pt;")
        self.stage = self._label("stage")
        self.stage.setStyleSheet("color: #666;")
        self.details = self._label("details")
        self.wrong_title = self._label("wrong_title", bold=True)
        self.wrong_table = _table(self, stretch=(3, 4, 5))
        self.budget_title = self._label("budget_title", bold=True)
        self.budget_table = _table(self, stretch=(3,))
        self.figures = self._label("figures")
        self.export_title = self._label("export_title", bold=True)
        self.export_text = QPlainTextEdit(self)
        self.export_text.setReadOnly(True)
        self.export_text.setFont(theme.mono_font())
        self.export_text.setFixedHeight(110)
        self.grid_button = QPushButton(self)
        self.grid_button.clicked.connect(lambda: self._emit_trace(reference=False))
        self.reference_button = QPushButton(self)
        self.reference_button.clicked.connect(lambda: self._emit_trace(reference=True))
        self.elapsed = self._label("elapsed")
        self.elapsed.setStyleSheet("color: #777;")
        self.elapsed.setWordWrap(False)
        column(self, row(self.badge, (self.message, 1)), self.stage, self.details, self.wrong_title,
               self.wrong_table, self.budget_title, self.budget_table, self.figures, self.export_title,
               self.export_text, row(self.grid_button, self.reference_button, (self.elapsed, 1)), margin=0)
        self.layout().addStretch(1)
        self.retranslate()

    def _label(self, name: str, bold: bool = False) -> QLabel:
        lab = QLabel(self)
        lab.setObjectName(name)
        lab.setWordWrap(True)
        lab.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        lab.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        if bold:
            lab.setStyleSheet("font-weight: bold;")
        return lab

    # ------------------------------------------------------------------ public API
    def result(self) -> LessonResult | None:
        return self._result

    def show_result(self, result: LessonResult | None) -> None:
        """Draw ``result`` (None: nothing checked yet)."""
        self._result = result
        self._state = "empty" if result is None else "result"
        self._redraw()

    def set_checking(self) -> None:
        """Say that a check is running (the previous result stays below the badge)."""
        self._state = "checking"
        self._draw_badge()

    def show_error(self, message: str) -> None:
        """The check could not run at all (the worker failed): say so; no result."""
        self._result = None
        self._state = "error"
        self._error = message
        self._redraw()

    def state(self) -> str:
        """"empty", "checking", "result" or "error"."""
        return self._state

    def retranslate(self) -> None:
        set_texts(
            (self.grid_button, self.tr("Show in grid"), self.tr("Draw your kernel's recorded accesses in the grid view")),
            (self.reference_button, self.tr("Show the reference in grid"),
             self.tr("Draw the reference solution's accesses in the grid view")),
        )
        self.wrong_table.setHorizontalHeaderLabels(
            [self.tr("Tensor"), self.tr("Problem"), self.tr("Count"), self.tr("Elements"), self.tr("Yours"),
             self.tr("Reference")])
        self.budget_table.setHorizontalHeaderLabels(
            [self.tr("Tensor"), self.tr("Operation"), self.tr("Limit"), self.tr("Your worst program"),
             self.tr("Reference"), self.tr("Your mean")])
        self._redraw()

    # ------------------------------------------------------------------ drawing
    def _draw_badge(self) -> None:
        r = self._result
        if self._state == "checking":
            text, colour = self.tr("Checking…"), "#777777"
        elif self._state == "error":
            text, colour = self.tr("Error"), theme.FAIL
        elif r is None:
            text, colour = self.tr("Not checked"), "#9a9a9a"
        elif r.passed:
            text, colour = self.tr("Passed"), theme.PASS
        else:
            text, colour = self.tr("Not yet"), theme.FAIL
        self.badge.setText(text)
        self.badge.setStyleSheet(f"font-size: 13pt; font-weight: bold; color: white; background: {colour};"
                                 " border-radius: 6px; padding: 6px 10px;")

    def _redraw(self) -> None:
        self._draw_badge()
        r = self._result
        if r is None:
            self.message.setText(self._error if self._state == "error" else
                                 self.tr("Edit your file, then press Check."))
            for w in (self.stage, self.details, self.wrong_title, self.wrong_table, self.budget_title,
                      self.budget_table, self.figures, self.export_title, self.export_text, self.grid_button,
                      self.reference_button, self.elapsed):
                w.hide()
            return
        self.message.setText(html.escape(r.message).replace("\n", "<br>"))
        self.message.setStyleSheet(f"font-size: 11pt; color: {theme.PASS if r.passed else theme.FAIL};")
        where = _t(STAGE_TEXTS.get(r.stage, r.stage))
        line = self.tr(", line {line}").format(line=r.line) if r.line else ""
        self.stage.setText(self.tr("Checked up to: {stage}{line}").format(stage=where, line=line)
                           if not r.passed else "")
        self.stage.setVisible(not r.passed)
        others = [d for d in r.details if d != r.message]
        self.details.setText("<ul style='margin-left:-20px'>" + "".join(
            f"<li>{html.escape(d)}</li>" for d in others) + "</ul>" if others else "")
        self.details.setVisible(bool(others))
        self._draw_wrong(r.wrong)
        self._draw_budget(r.budget)
        self._draw_figures(r)
        self.grid_button.setVisible(r.trace is not None)
        self.reference_button.setVisible(r.reference_trace is not None)
        self.elapsed.setText(self.tr("checked in {s:.1f} s").format(s=r.elapsed_s) if r.elapsed_s else "")
        self.elapsed.setVisible(bool(r.elapsed_s))

    def _draw_wrong(self, wrong: list[WrongElements]) -> None:
        rows, tips = [], []
        for w in wrong:
            tensor = f"{w.tensor} ({w.case})" if w.case else w.tensor
            rows.append([tensor, _t(KIND_TEXTS.get(w.kind, w.kind)), f"{w.count:,}", _where(w),
                         _values(w, w.got), _values(w, w.expected)])
            tips.append(w.text)
        self.wrong_title.setText(self.tr("Wrong elements") if rows else "")
        self.wrong_title.setVisible(bool(rows))
        _fill(self.wrong_table, rows, tips)

    def _draw_budget(self, budget: list[BudgetFigure]) -> None:
        rows = []
        for b in budget:
            tensor = f"{b.tensor} ({b.case})" if b.case else b.tensor
            op = self.tr("load") if b.op == "load" else self.tr("store") if b.op == "store" else b.op
            worst = self.tr("{n} (program {p})").format(n=b.worst, p=b.worst_program)
            rows.append([tensor, op, str(b.limit), ("✓ " if b.ok else "✗ ") + worst, str(b.reference),
                         f"{b.mean:.1f}"])
        self.budget_title.setText(self.tr("Loads and stores per program") if rows else "")
        self.budget_title.setVisible(bool(rows))
        _fill(self.budget_table, rows)

    def _draw_figures(self, r: LessonResult) -> None:
        figs = _figures_html(r.figures)
        self.figures.setText("<br>".join(figs))
        self.figures.setVisible(bool(figs))
        self.export_title.setText(self.tr("Put this above your kernel on a GPU:") if r.export else "")
        self.export_title.setVisible(bool(r.export))
        self.export_text.setPlainText(r.export)
        self.export_text.setVisible(bool(r.export))

    def _emit_trace(self, reference: bool) -> None:
        r = self._result
        trace = None if r is None else (r.reference_trace if reference else r.trace)
        if trace is not None:
            self.showInGridRequested.emit(trace)
