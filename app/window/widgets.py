"""Small widgets of the main window: the message banner above the grid, a progress bar that
repaints lazily, and the status bar's stage line and labels."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import QCoreApplication, QRect, Qt, Signal
from PySide6.QtGui import QPainter, QPaintEvent
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QStatusBar,
    QStyle,
    QStyleOption,
    QStyleOptionProgressBar,
    QStylePainter,
    QToolButton,
    QWidget,
)

from views import theme
from views.elided_label import ElidedLabel
from views.i18n import QT_TRANSLATE_NOOP

__all__ = ["LazyProgressBar", "MessageBanner", "StatusBar", "StatusStrip"]

#: the worker's states (``app.client.STATES``) as the status bar says them: "worker: ready"
WORKER_STATE_WORDS = (QT_TRANSLATE_NOOP("StatusStrip", "starting"), QT_TRANSLATE_NOOP("StatusStrip", "ready"),
                      QT_TRANSLATE_NOOP("StatusStrip", "busy"), QT_TRANSLATE_NOOP("StatusStrip", "crashed"),
                      QT_TRANSLATE_NOOP("StatusStrip", "restarting"), QT_TRANSLATE_NOOP("StatusStrip", "stopped"))


class MessageBanner(QFrame):
    """A non-modal message strip above the grid: level colour, one line of text, optional action
    buttons ("Resume sweep", "Load these values", "Details…") and a close button."""

    closed = Signal()

    _STYLES = {
        "error": ("#fdecea", "#8a1c14", theme.FAIL),
        "warning": ("#fff6d6", "#6b4e00", "#e0c060"),
        "info": ("#e8f1fb", "#0d3c6e", "#90b8e0"),
    }

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("message_banner")
        self._level = ""
        self._topic = ""
        self._details = ""
        self.label = QLabel(self)
        self.label.setObjectName("banner_text")
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self._buttons: list[QPushButton] = []
        self._button_row = QHBoxLayout()
        self._button_row.setContentsMargins(0, 0, 0, 0)
        close = QToolButton(self)
        close.setText("✕")
        close.setAutoRaise(True)
        close.setToolTip(self.tr("Dismiss"))
        close.clicked.connect(self.dismiss)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(8, 4, 4, 4)
        lay.addWidget(self.label, 1)
        lay.addLayout(self._button_row)
        lay.addWidget(close, 0, Qt.AlignmentFlag.AlignTop)
        self.hide()

    def show_message(self, text: str, level: str = "error", *, details: str = "", topic: str = "",
                     actions: Sequence[tuple[str, Callable[[], Any]]] = ()) -> None:
        bg, fg, border = self._STYLES.get(level, self._STYLES["info"])
        self.setStyleSheet(f"QFrame#message_banner {{ background: {bg}; border: 1px solid {border}; "
                           f"border-radius: 4px; }} QLabel#banner_text {{ color: {fg}; }}")
        self._level, self._topic, self._details = level, topic, details
        self.label.setText(text)
        for b in self._buttons:
            b.deleteLater()
        self._buttons = []
        for label, fn in actions:
            self._add_button(label, fn)
        if details:
            self._add_button(self.tr("Details…"), self._show_details)
        self.show()

    def _add_button(self, label: str, fn: Callable[[], Any]) -> None:
        b = QPushButton(label, self)
        b.clicked.connect(lambda _=False, f=fn: f())
        self._button_row.addWidget(b)
        self._buttons.append(b)

    def _show_details(self) -> None:
        box = QMessageBox(QMessageBox.Icon.Information, self.tr("Details"), self.label.text(), parent=self)
        box.setDetailedText(self._details)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()

    def dismiss(self) -> None:
        self.hide()
        self._topic = ""
        self.closed.emit()

    def clear(self, *topics: str) -> None:
        """Hide the banner if it shows one of ``topics`` (any message when none are given)."""
        if not topics or self._topic in topics:
            self.hide()
            self._topic = ""

    def text(self) -> str:
        return self.label.text() if self.isVisibleTo(self.parentWidget()) else ""

    def level(self) -> str:
        return self._level if not self.isHidden() else ""

    def topic(self) -> str:
        return self._topic if not self.isHidden() else ""

    def button(self, label: str) -> QPushButton | None:
        """The action button ``label`` of the message shown (None when hidden or absent)."""
        if self.isHidden():
            return None
        return next((b for b in self._buttons if b.text() == label), None)

    def button_labels(self) -> list[str]:
        return [] if self.isHidden() else [b.text() for b in self._buttons]


class LazyProgressBar(QProgressBar):
    """A progress bar whose ``setValue`` repaints with the next frame, not at once.

    ``QProgressBar.setValue`` repaints synchronously whenever the bar moves by a pixel, and a
    synchronous repaint paints every pending update of the window first (the sweep plot, a
    history table just refilled): measured here, 30–75 ms inside the slot of each sweep point.
    This one keeps the value itself and asks for an ordinary ``update()``."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._shown_value = 0

    def setValue(self, value: int) -> None:  # noqa: N802 (Qt's name)
        v = max(self.minimum(), min(self.maximum(), int(value)))
        if v != self._shown_value:
            self._shown_value = v
            self.update()

    def value(self) -> int:
        return self._shown_value

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 (Qt's name)
        opt = QStyleOptionProgressBar()
        self.initStyleOption(opt)
        opt.progress = self._shown_value
        painter = QStylePainter(self)
        painter.drawControl(QStyle.ControlElement.CE_ProgressBar, opt)
        painter.end()


class StatusBar(QStatusBar):
    """A status bar whose messages (``showMessage``) end with "…" a gap before the permanent
    labels (backend, device, …) instead of running into them, and start after the progress bar
    while one runs (Qt draws them from the left edge, under a progress bar shown meanwhile)."""

    #: pixels between the end of a message and the first permanent label
    GAP = 16

    def message_rect(self) -> QRect:
        """Where a message is drawn: right of a visible progress bar, left of the permanent labels."""
        left, right = 6, self.width() - 12
        for w in self.findChildren(QWidget, options=Qt.FindChildOption.FindDirectChildrenOnly):
            if not w.isVisible() or w.objectName() == "qt_statusbar_sizegrip":
                continue
            g = w.geometry()
            if w.objectName() in _PERMANENT_NAMES:
                right = min(right, g.left() - self.GAP)
            elif w.objectName() == "progress":
                left = max(left, g.right() + 8)
        return QRect(left, 0, max(0, right - left), self.height())

    def shown_message(self) -> str:
        """The message as drawn now (elided to fit), "" when none."""
        text = self.currentMessage()
        if not text:
            return ""
        one_line = " ".join(text.split())
        return self.fontMetrics().elidedText(one_line, Qt.TextElideMode.ElideRight, self.message_rect().width())

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 (Qt's name)
        if not self.currentMessage():
            super().paintEvent(event)
            return
        painter = QPainter(self)
        opt = QStyleOption()
        opt.initFrom(self)
        self.style().drawPrimitive(QStyle.PrimitiveElement.PE_PanelStatusBar, opt, painter, self)
        painter.setPen(self.palette().windowText().color())
        painter.drawText(self.message_rect(), int(Qt.AlignmentFlag.AlignLeading | Qt.AlignmentFlag.AlignVCenter),
                         self.shown_message())
        painter.end()


#: the object names of the status bar's permanent labels (``StatusStrip``)
_PERMANENT_NAMES = ("backend_status", "device_status", "worker_status", "triton_status")


class StatusStrip:
    """The status bar's content: a progress bar and the stage ("running 12/64 programs") on the
    left; backend, device, worker state and Triton version on the right."""

    @classmethod
    def install(cls, win: QMainWindow) -> StatusStrip:
        """Give ``win`` a ``StatusBar`` and fill it."""
        bar = StatusBar(win)
        bar.setObjectName("status_bar")
        win.setStatusBar(bar)
        return cls(bar)

    def __init__(self, bar: QStatusBar) -> None:
        self.bar = bar
        self.stage_label = ElidedLabel(QCoreApplication.translate("StatusStrip", "starting worker…"))
        self.stage_label.setObjectName("stage_label")
        # a label whose size follows its text would re-lay out the whole window (docks, plots) on
        # every progress message: a fixed-size label keeps a progress update a label repaint
        self.stage_label.setMinimumWidth(240)  # (an ElidedLabel: its size never follows its text)
        self.progress = LazyProgressBar()
        self.progress.setObjectName("progress")
        self.progress.setMaximumWidth(220)
        self.progress.setTextVisible(False)
        bar.addWidget(self.progress)
        bar.addWidget(self.stage_label, 1)
        # Qt hides the progress bar while a message shows; work under way keeps it (the message
        # is drawn beside it: StatusBar)
        bar.messageChanged.connect(lambda text: text and self.progress.setVisible(self._progress_on))
        self._stage = ""
        self._progress_on = False
        self.set_stage(QCoreApplication.translate("StatusStrip", "starting worker…"), busy=True)  # until hello
        self.backend_label = QLabel(QCoreApplication.translate("StatusStrip", "backend: —"))
        self.device_label = QLabel(QCoreApplication.translate("StatusStrip", "device: —"))
        self.state_label = QLabel(QCoreApplication.translate("StatusStrip", "worker: stopped"))
        self.triton_label = QLabel("Triton —")
        # named in English whatever the language (tests and benchmarks find them by name)
        for w, name in ((self.backend_label, "backend"), (self.device_label, "device"),
                        (self.state_label, "worker"), (self.triton_label, "triton")):
            w.setObjectName(name + "_status")
            bar.addPermanentWidget(w)

    def stage(self) -> str:
        return self._stage

    def set_stage(self, text: str, fraction: float | None = None, busy: bool = False) -> None:
        """Say what the window does now: with a bar that runs (``fraction`` 0..1), or moves to and
        fro (``busy``: how long is not known), or none."""
        self._stage = text
        self.stage_label.setText(text)
        self._progress_on = busy or fraction is not None
        if busy:
            self.progress.setRange(0, 0)
            self.progress.show()
        elif fraction is not None:
            self.progress.setRange(0, 1000)
            self.progress.setValue(int(max(0.0, min(1.0, fraction)) * 1000))
            self.progress.show()
        else:
            self.progress.setRange(0, 1000)
            self.progress.setValue(0)
            self.progress.hide()
