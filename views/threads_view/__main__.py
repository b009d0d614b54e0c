"""``python -m views.threads_view``: the Threads view alone, with demo layouts."""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

from views.preview import preview
from views.threads_view.demo import demo_result
from views.threads_view.widget import ThreadsView


def build() -> QWidget:
    w = ThreadsView()
    w.setWindowTitle("Threads (demo layouts)")
    w.set_result(demo_result())
    w.resize(1200, 760)
    return w


preview(build)
