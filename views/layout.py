"""Layouts written as what they hold: ``column(self, header, (body, 1), row((label, 1), button))``."""

from __future__ import annotations

from typing import Union

from PySide6.QtWidgets import QBoxLayout, QHBoxLayout, QLayout, QVBoxLayout, QWidget

__all__ = ["column", "row"]

#: a widget or a layout, or (it, stretch factor)
Item = Union[QWidget, QLayout, tuple[Union[QWidget, QLayout], int]]


def _fill(box: QBoxLayout, items: tuple[Item, ...]) -> QBoxLayout:
    for item in items:
        thing, stretch = item if isinstance(item, tuple) else (item, 0)
        if isinstance(thing, QLayout):
            box.addLayout(thing, stretch)
        else:
            box.addWidget(thing, stretch)
    return box


def row(*items: Item) -> QHBoxLayout:
    """A horizontal layout of ``items``, left to right."""
    return _fill(QHBoxLayout(), items)


def column(parent: QWidget, *items: Item, margin: int = 4) -> QVBoxLayout:
    """``parent``'s vertical layout of ``items``, top to bottom, ``margin`` pixels from its edges."""
    box = QVBoxLayout(parent)
    box.setContentsMargins(margin, margin, margin, margin)
    return _fill(box, items)
