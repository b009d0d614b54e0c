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


def test_before_any_trace_the_launch_grid_is_shown_from_its_expression(qapp, tmp_path):
    # breaks if the grid a launch will have were known only after a trace (the panel's values and
    # the kernel's grid expression say it: cdiv(N, BLOCK_SIZE) programs)
    from real_window import wait_ready, wait_until

    win = make_window(tmp_path)
    win.show()
    try:
        wait_ready(win)
        assert win.select_kernel("vector_add", {"BLOCK_SIZE": 256, "N": 1000})
        caption = win.grid_pane.trace_caption
        wait_until(lambda: "4 programs" in caption.text(), 5, "the grid before a trace")
        assert caption.isVisibleTo(win) and "cdiv(N, BLOCK_SIZE)" in caption.text() and "4 × 1 × 1" in caption.text()
        win.set_param_values({"BLOCK_SIZE": 128})
        wait_until(lambda: "8 programs" in caption.text(), 5, "the grid following BLOCK_SIZE")
    finally:
        win.close()
        win.deleteLater()
