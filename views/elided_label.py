"""ElidedLabel: a one-line label that ends a text too long for it with "…" (the whole text in its
tooltip) instead of cutting it mid-letter or widening its panel."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QPainter, QPaintEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

__all__ = ["ElidedLabel"]


class ElidedLabel(QLabel):
    """``text()`` is the whole text; what is drawn is ``shown_text()``. Its width follows its
    panel (it never asks for more), so a long text does not push the layout around."""

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)

    def shown_text(self) -> str:
        """The text as drawn now: the whole of it when it fits, else cut with "…"."""
        one_line = " ".join(self.text().split())
        return self.fontMetrics().elidedText(one_line, Qt.TextElideMode.ElideRight, self.contentsRect().width())

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 (Qt's name)
        shown = self.shown_text()
        painter = QPainter(self)
        painter.drawText(self.contentsRect(), int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), shown)
        painter.end()
        full = self.text() if shown != " ".join(self.text().split()) else ""
        if self.toolTip() != full:
            self.setToolTip(full)
