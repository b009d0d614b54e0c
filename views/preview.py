"""Opening a widget alone, with demo data: what each ``python -m views.<widget>`` does."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence

from PySide6.QtWidgets import QApplication, QWidget

__all__ = ["preview"]


def preview(build: Callable[[], QWidget | Sequence[QWidget]]) -> None:  # pragma: no cover - manual
    """Make the application, then the widget(s) ``build`` returns; show them until closed."""
    app = QApplication.instance() or QApplication(sys.argv)
    made = build()
    windows = [made] if isinstance(made, QWidget) else list(made)
    for w in windows:
        w.show()
    sys.exit(app.exec())
