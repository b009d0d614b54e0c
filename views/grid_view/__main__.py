"""``python -m views.grid_view``: the grid view alone, with the recorded demo traces."""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QVBoxLayout, QWidget

from views.demo import DEMOS
from views.grid_view import GridView
from views.preview import preview


def main() -> QWidget:  # pragma: no cover - manual preview
    top = QWidget()
    top.setWindowTitle("Tilescope — grid view (recorded demo traces)")
    combo = QComboBox()
    combo.addItems(list(DEMOS))
    view = GridView()
    combo.currentTextChanged.connect(lambda name: view.set_trace(DEMOS[name]()))
    lay = QVBoxLayout(top)
    lay.addWidget(combo)
    lay.addWidget(view, 1)
    view.set_trace(DEMOS[combo.currentText()]())
    top.resize(1100, 850)
    return top


if __name__ == "__main__":  # pragma: no cover
    preview(main)
