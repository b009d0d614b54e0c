"""The grid's placeholder says where Trace will record: under the Triton interpreter, or on the GPU
(it said "interpreter" while the backend was the GPU)."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6.QtWidgets")

from real_window import make_window  # noqa: E402


def test_the_placeholder_follows_the_backend(qapp, tmp_path):
    win = make_window(tmp_path, autostart=False)
    try:
        assert "interpreter" in win.grid_placeholder.text()
        win.panel.backendChanged.emit("gpu")  # what the panel says when the backend becomes the GPU
        assert "on the GPU" in win.grid_placeholder.text() and "interpreter" not in win.grid_placeholder.text()
        win.panel.backendChanged.emit("interpreter")
        assert "interpreter" in win.grid_placeholder.text()
    finally:
        win.close()
        win.deleteLater()
