"""The Threads tab in the real window, with its worker: the layouts of the shown kernel compiled
for sm_90 on this CPU, drawn beside the grid, and redrawn when num_warps is typed.

What breaks if this fails: the tab shows nothing (the layout request never reaches the worker or
its answer never reaches the view), or a num_warps, block size or dtype change leaves the old
layout on screen."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from real_window import make_window, pick, wait_ready, wait_until

#: a folder: the test also saves the window there (docs/screenshots/threads/window_*.png were made so)
SHOTS = os.environ.get("TILESCOPE_THREADS_SHOTS")


@pytest.fixture(scope="module")
def win(qapp, tmp_path_factory):
    w = make_window(tmp_path_factory.mktemp("threads-home"))
    w.resize(1366, 768)
    w.show()
    wait_ready(w)
    yield w
    w.close()


def _type(qtbot, win, name: str, text: str) -> None:
    editor = win.panel.editor(name)
    line = editor.lineEdit() if hasattr(editor, "lineEdit") else editor
    line.setFocus()
    line.selectAll()
    qtbot.keyClicks(line, text)


def _shot(win, name: str) -> None:
    if SHOTS:
        for w, h in ((1366, 768), (1920, 1080)):
            win.resize(w, h)
            wait_until(lambda: True, 0.3)
            win.grab().save(str(Path(SHOTS) / f"window_{name}_{w}x{h}.png"))
        win.resize(1366, 768)


def test_the_threads_tab_draws_the_layout_and_follows_num_warps(qtbot, win):
    pick(qtbot, win, "vector_add")
    _type(qtbot, win, "num_warps", "4")
    tabs, view = win.grid_pane.tabs, win.threads.view
    qtbot.mouseClick(tabs.tabBar(), Qt.MouseButton.LeftButton, pos=tabs.tabBar().tabRect(tabs.indexOf(view)).center())
    assert tabs.currentWidget() is view
    wait_until(lambda: "warp 3 (256)" in view.legend_words(), 120, "the 4-warp layout drawn")
    assert "sizePerThread [4]" in view.header.text() and "warpsPerCTA [4]" in view.header.text()
    assert "sectors/request 16.0 (ideal 16.0)" in view.coalescing.text()
    assert view.current().op == "load"
    _shot(win, "vector_add_w4")
    _type(qtbot, win, "num_warps", "8")
    wait_until(lambda: "warp 7 (128)" in view.legend_words(), 120, "the 8-warp layout drawn")
    assert "warpsPerCTA [8]" in view.header.text()
    _shot(win, "vector_add_w8")
    # a block size and a dtype: the block's shape and the vector follow
    _type(qtbot, win, "BLOCK_SIZE", "256")
    wait_until(lambda: "block 256 ·" in view.vector.text(), 120, "the 256-element block drawn")
    assert sum(int(n) for n in re.findall(r"warp \d+ \((\d+)\)", view.legend_words())) == 256
    win.panel.editor("dtype").setCurrentText("fp16")
    wait_until(lambda: "float16" in view.vector.text(), 120, "the fp16 layout drawn")
    # a trace brings the grid back to the front
    win.panel.set_backend("interpreter")
    win.trace_action.trigger()
    wait_until(lambda: tabs.currentWidget() is win.grid_pane.grid_stack, 120, "the grid in front after Trace")
