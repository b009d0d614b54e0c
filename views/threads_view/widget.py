"""The Threads view: one program's tile for one access, each element coloured by the warp that
holds it and labelled with its lane (and register, where the cell is big enough), the layout's
parameters above, the vector width and the access's coalescing numbers beside it; the pointer on
an element names its (warp, lane, register) and its address and sector.

Takes the layout engine's ``LayoutResult`` (``kernels.data.layout``, numpy only): ``set_result``
gives the accesses of a compiled launch (the picker lists them, ``select_line`` picks the one on a
source line); ``accessChanged(i)`` when the user picks another.
"""

from __future__ import annotations

import html
import re

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QPushButton, QSpinBox, QVBoxLayout, QWidget

from kernels.data.layout import AccessLayout, LayoutResult

from .canvas import ThreadsCanvas
from .palette import warp_colour
from .tile import (
    Tile,
    access_name,
    access_tile,
    coalescing_text,
    header_text,
    hover_text,
    legend_counts,
    vector_text,
)

__all__ = ["ThreadsView"]


class ThreadsView(QWidget):
    accessChanged = Signal(int)  # the user picked access i of the result (its ``index`` order)
    elementHovered = Signal(int)  # flat element index under the pointer (-1: none)
    programChanged = Signal(int)  # the program whose addresses the coalescing numbers are of
    targetChanged = Signal(str)  # the GPU architecture to compile for ("sm_90")

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.result: LayoutResult | None = None
        self._layout: AccessLayout | None = None
        self.tile: Tile | None = None
        self.picker = QComboBox()
        self.picker.setObjectName("threads_access")
        self.picker.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.picker.setMinimumContentsLength(24)
        self.picker.currentIndexChanged.connect(self._on_pick)
        self.fit = QPushButton()
        self.fit.clicked.connect(lambda: self.canvas.show_all())
        self.access_label = QLabel()
        self.program_label, self.target_label = QLabel(), QLabel()
        self.program = QSpinBox()
        self.program.setObjectName("threads_program")
        self.program.setRange(0, 0)
        self.program.valueChanged.connect(self.programChanged)
        self.target = QComboBox()
        self.target.setObjectName("threads_target")
        self.set_targets(["sm_90"])
        self.target.currentTextChanged.connect(lambda t: self.targetChanged.emit(t) if t else None)
        self.status = QLabel()
        self.status.setObjectName("threads_status")
        self.status.setStyleSheet("color: #555;")
        self.header = QLabel()
        self.header.setWordWrap(True)
        self.header.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.vector = QLabel()
        self.vector.setWordWrap(True)
        self.coalescing = QLabel()
        self.coalescing.setWordWrap(True)
        self.legend = QLabel()
        self.legend.setWordWrap(True)
        self.canvas = ThreadsCanvas()
        self.canvas.cellHovered.connect(self._on_cell)
        self.hover = QLabel()
        self.hover.setObjectName("threads_hover")
        self.hover.setWordWrap(True)
        self.hover.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        top = QHBoxLayout()
        top.addWidget(self.access_label)
        top.addWidget(self.picker, 1)
        top.addWidget(self.program_label)
        top.addWidget(self.program)
        top.addWidget(self.target_label)
        top.addWidget(self.target)
        top.addWidget(self.fit)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.setSpacing(3)
        lay.addLayout(top)
        for w in (self.status, self.header, self.vector, self.coalescing, self.legend):
            lay.addWidget(w)
        self.status.hide()
        lay.addWidget(self.canvas, 1)
        lay.addWidget(self.hover)
        self._retranslate()
        self._show(None, keep_view=False)

    # -- the request's choices ---------------------------------------------------------------------------
    def set_targets(self, targets: list[str], current: str = "sm_90") -> None:
        """The architectures the target box offers (the window's: those this machine can compile for)."""
        self.target.blockSignals(True)
        self.target.clear()
        self.target.addItems(list(targets))
        self.target.setCurrentText(current if current in targets else (targets[0] if targets else ""))
        self.target.blockSignals(False)

    def set_programs(self, n_programs: int) -> None:
        """The launch has ``n_programs`` programs: the program box ranges over them (unknown: 0)."""
        self.program.blockSignals(True)
        self.program.setRange(0, max(0, n_programs - 1))
        self.program.blockSignals(False)

    def set_busy(self, text: str) -> None:
        """A line above the picture while the layouts are read ("" hides it); the picture stays."""
        self.status.setText(text)
        self.status.setVisible(bool(text))

    # -- data ---------------------------------------------------------------------------------------
    def set_result(self, result: LayoutResult | None, current: int | None = None) -> None:
        """The accesses of one compiled launch; access ``current`` is drawn (None: the one drawn
        before if the new result has it — a num_warps, block size or dtype change redraws the same
        access and keeps the zoom when the block keeps its shape — else the first)."""
        before = self._layout
        self.result = result
        accesses = result.accesses if result is not None else []
        if result is not None and result.n_programs and result.grid:
            g = result.grid
            self.set_programs(int(g[0]) * int(g[1]) * int(g[2]))
        if current is None:
            current = 0
            if before is not None:
                for i, a in enumerate(accesses):
                    if (a.op, a.tensor, a.line) == (before.op, before.tensor, before.line):
                        current = i
                        break
        self.picker.blockSignals(True)
        self.picker.clear()
        for a in accesses:
            self.picker.addItem(access_name(a))
        current = min(max(0, current), len(accesses) - 1) if accesses else -1
        self.picker.setCurrentIndex(current)
        self.picker.blockSignals(False)
        now = accesses[current] if current >= 0 else None
        same = before is not None and now is not None and (before.op, before.tensor, before.line) == \
            (now.op, now.tensor, now.line)
        self._show(now, keep_view=same)

    def current(self) -> AccessLayout | None:
        """The access drawn."""
        return self._layout

    def select_line(self, line: int) -> bool:
        """Pick the first access on source line ``line`` (a click in the source view); False if none."""
        for i, a in enumerate(self.result.accesses if self.result is not None else []):
            if a.line == line:
                self.picker.setCurrentIndex(i)
                return True
        return False

    def _on_pick(self, i: int) -> None:
        if self.result is not None and 0 <= i < len(self.result.accesses):
            self._show(self.result.accesses[i], keep_view=False)
            self.accessChanged.emit(i)

    def _show(self, a: AccessLayout | None, *, keep_view: bool) -> None:
        self._layout = a
        self.tile = access_tile(a) if a is not None else None
        self.canvas.set_tile(self.tile, keep_view=keep_view)
        for w in (self.header, self.vector, self.coalescing, self.legend, self.hover):
            w.setText("")
        if a is None:
            err = getattr(self.result, "error", None)
            if err is not None:
                self.header.setText(self.tr("The layouts could not be read: {why}").format(
                    why=getattr(err, "message", str(err))))
                return
            self.header.setText(self.tr("No layout yet: choose a kernel. Changing num_warps, a block size or the "
                                        "dtype redraws it."))
            return
        self.header.setText(f"<b>{header_text(a.layout)}</b>")
        n_warps = self.result.num_warps if self.result is not None else 0
        shape = " × ".join(str(s) for s in a.shape)
        self.vector.setText(vector_text(a) + " · " + self.tr("block {shape} · {w} warps × 32 lanes").format(
            shape=shape, w=n_warps))
        self.coalescing.setText(self._costs_html(a))
        if self.tile is None:
            self.legend.setText(self.tr("A shared-memory layout whose offsets could not be read: nothing to draw."))
            return
        if self.tile.kind == "banks":
            self.legend.setText(self._banks_html(legend_counts(self.tile, 8)))
            self.hover.setText(self.tr("Point at an element: its offset in shared memory and its bank."))
            return
        legend = self._legend_html(legend_counts(self.tile, max(n_warps, a.threads.n_warps)))
        if self.tile.masked is not None and self.tile.masked.any() and a.coalescing is not None:
            legend += "&nbsp;&nbsp; <span style='color:#555'>" + self.tr(
                "faded: {n} elements masked off in program {p}").format(
                n=int(self.tile.masked.sum()), p=a.coalescing.sample_program) + "</span>"
        self.legend.setText(legend)
        self.hover.setText(self.tr("Point at an element: its warp, lane, register and its instruction's sectors."))

    def _costs_html(self, a: AccessLayout) -> str:
        c, b = a.coalescing, a.bank_conflicts
        if c is not None and c.requests:
            colour = "#2e7d32" if c.sectors <= c.ideal_sectors else "#b8860b"
            return f"<span style='color:{colour}'>" + coalescing_text(c) + "</span>"
        if b is not None:
            colour = "#2e7d32" if b.conflicts == 0 else "#b8860b"
            return f"<span style='color:{colour}'>" + self.tr(
                "shared memory: {wf} wavefronts over {n} instructions (ideal {ideal}) · {c} bank conflicts").format(
                wf=b.wavefronts, n=b.instructions, ideal=b.ideal_wavefronts, c=b.conflicts) + "</span>"
        if a.op in ("load", "store", "atomic"):
            return self.tr("coalescing: not measured (no trace of this access)")
        return ""

    def _legend_html(self, counts: list[int]) -> str:
        items = [f"<span style='color:{warp_colour(w)}; font-size:14pt'>■</span>&nbsp;"
                 + self.tr("warp {w} ({n})").format(w=w, n=n).replace(" ", "&nbsp;")  # wrap between items only
                 for w, n in enumerate(counts)]
        return "&nbsp;&nbsp; ".join(items) + "&nbsp;&nbsp; <span style='color:#555'>" + self.tr(
            "cells: lane (and registers); odd lanes lighter") + "</span>"

    def legend_words(self) -> str:
        """The legend as the user reads it: plain text, one space between words."""
        plain = html.unescape(re.sub(r"<[^>]+>", " ", self.legend.text())).replace("\xa0", " ")
        return " ".join(plain.split())

    def _banks_html(self, counts: list[int]) -> str:
        items = [f"<span style='color:{warp_colour(g)}; font-size:14pt'>■</span>&nbsp;"
                 + self.tr("banks {lo}–{hi} ({n})").format(lo=4 * g, hi=4 * g + 3, n=n).replace(" ", "&nbsp;")
                 for g, n in enumerate(counts)]
        return "&nbsp;&nbsp; ".join(items) + "&nbsp;&nbsp; <span style='color:#555'>" + self.tr(
            "cells: bank and offset; a row's colours in another order = the swizzle") + "</span>"

    # -- pointer ------------------------------------------------------------------------------------
    def text_for(self, flat: int) -> str:
        """What the pointer on element ``flat`` of the drawn access shows."""
        if self._layout is None or self.tile is None:
            return ""
        return hover_text(self._layout, self.tile, flat)

    def _on_cell(self, row: int, col: int) -> None:
        flat = self.tile.element(row, col) if self.tile is not None and row >= 0 else None
        if flat is None:
            self.elementHovered.emit(-1)
            return
        self.hover.setText(self.text_for(flat))
        self.elementHovered.emit(flat)

    # -- language -----------------------------------------------------------------------------------
    def _retranslate(self) -> None:
        self.access_label.setText(self.tr("Access:"))
        self.program_label.setText(self.tr("Program:"))
        self.program.setToolTip(self.tr("The program whose addresses give the sectors per instruction"))
        self.target_label.setText(self.tr("Target:"))
        self.target.setToolTip(self.tr("The GPU architecture the kernel is compiled for (on this machine, no GPU "
                                       "needed): its layouts can differ"))
        self.fit.setText(self.tr("Whole tile"))
        self.fit.setToolTip(self.tr("Zoom out to the whole tile (wheel zooms, drag pans)"))

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt's name)
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
            if self.result is not None:
                self.set_result(self.result, self.picker.currentIndex())
        super().changeEvent(event)
