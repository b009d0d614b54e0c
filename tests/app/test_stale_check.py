"""A check stays on screen after the configuration changed, but marked stale: a PASS must not stand
for values it never checked (it did, unmarked, after BLOCK_SIZE was edited)."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6.QtWidgets")

from real_window import make_window, wait_ready, wait_until  # noqa: E402


def test_a_pass_is_marked_stale_once_the_values_change(qapp, tmp_path):
    win = make_window(tmp_path)
    win.show()
    try:
        wait_ready(win)
        assert win.select_kernel("vector_add", {"BLOCK_SIZE": 256, "N": 1000})
        win.set_backend("interpreter")
        win.run()
        wait_until(lambda: win.correctness.shown_check() is not None and not win._busy_kinds(), 120, "the check")
        assert win.correctness.badge.text() == "PASS" and not win.correctness.is_stale()
        assert not win.correctness.stale_label.isVisibleTo(win.correctness)
        win.set_param_values({"BLOCK_SIZE": 512})
        wait_until(lambda: win.correctness.is_stale(), 5, "the stale mark")
        assert win.correctness.stale_label.isVisibleTo(win.correctness)
        assert "#9e9e9e" in win.correctness.badge.styleSheet()  # greyed, no longer the green of a pass
        win.set_param_values({"BLOCK_SIZE": 256})  # back to what was checked
        wait_until(lambda: not win.correctness.is_stale(), 5, "the mark gone")
    finally:
        win.close()
        win.deleteLater()
