"""Words that follow the application's language: the lesson panel's widgets re-set theirs on
Qt's ``LanguageChange`` event (sent to every widget when ``views.i18n.install_translator``
switches language), so a switch shows at once, without a restart."""

from __future__ import annotations

from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QWidget

__all__ = ["Retranslating", "set_texts"]


class Retranslating:
    """Mixin for a QWidget subclass (listed before it) with a ``retranslate()`` method that sets
    all its words; runs it again whenever the language changes."""

    def retranslate(self) -> None:  # pragma: no cover - every user defines it
        raise NotImplementedError

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt's name)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)  # type: ignore[misc]


def set_texts(*items: tuple) -> None:
    """``(widget, text)`` or ``(widget, text, tooltip)``: the widget's ``setText`` (and
    ``setToolTip``) with those words."""
    for widget, text, *tip in items:
        widget.setText(text)
        if tip:
            assert isinstance(widget, QWidget)
            widget.setToolTip(tip[0])
