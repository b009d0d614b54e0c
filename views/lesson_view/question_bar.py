"""QuestionBar: a yellow bar that asks the learner to choose before something is lost or given
away (the file changed on disk under unsaved edits; the solution)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QFrame, QLabel, QPushButton, QWidget

from ..layout import column, row

__all__ = ["QuestionBar"]


class QuestionBar(QFrame):
    """The question (``label``) and two answers (``yes_button``, ``no_button``), each wired to
    its callable; hidden until ``show()``. ``stacked``: the buttons under the question (for a
    narrow column) rather than beside it."""

    def __init__(self, yes: Callable[[], object], no: Callable[[], object], parent: QWidget | None = None,
                 stacked: bool = False) -> None:
        super().__init__(parent)
        self.setObjectName("question_bar")
        self.setStyleSheet("#question_bar { background: #fff3cd; border: 1px solid #e0c060; }")
        self.label = QLabel(self)
        self.label.setWordWrap(True)
        self.yes_button = QPushButton(self)
        self.yes_button.clicked.connect(yes)
        self.no_button = QPushButton(self)
        self.no_button.clicked.connect(no)
        if stacked:
            column(self, self.label, row((QWidget(self), 1), self.no_button, self.yes_button))
        else:
            column(self, row((self.label, 1), self.yes_button, self.no_button))
        self.hide()
