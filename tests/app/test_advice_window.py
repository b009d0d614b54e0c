"""The Advice card in the real window, with its worker: vector add at BLOCK_SIZE 64 asked "why is
it slow?" gets the narrow-access finding first, and clicking it marks its source line and brings
the Threads tab to the front at that access.

What breaks if this fails: the card's request never reaches the worker, its answer never reaches
the card, or a click on a finding shows no evidence."""

from __future__ import annotations

import os

import pytest
from PySide6.QtCore import Qt
from real_window import make_window, pick, wait_ready, wait_until

SHOT = os.environ.get("TILESCOPE_ADVICE_WINDOW_SHOT")


@pytest.fixture(scope="module")
def win(qapp, tmp_path_factory):
    w = make_window(tmp_path_factory.mktemp("advice-home"))
    w.resize(1366, 768)
    w.show()
    wait_ready(w)
    yield w
    w.close()


def test_the_card_finds_the_narrow_access_and_shows_it(qtbot, win):
    pick(qtbot, win, "vector_add")
    for name, text in (("BLOCK_SIZE", "64"), ("N", "65536")):
        editor = win.panel.editor(name)
        line = editor.lineEdit() if hasattr(editor, "lineEdit") else editor
        line.setFocus()
        line.selectAll()
        qtbot.keyClicks(line, text)
    card = win.advice
    card.dock.show()
    card.dock.raise_()
    card.view.try_box.setChecked(True)
    qtbot.mouseClick(card.view.ask, Qt.MouseButton.LeftButton)
    wait_until(lambda: card.view.list.topLevelItemCount() > 0 or "No findings" in card.view.status.text(), 300,
               "the advice drawn")
    first = card.view.list.topLevelItem(0)
    assert first.text(0) == "high" and "64 elements for 128 threads" in first.text(1)
    assert first.text(3) == "checked"  # no GPU here: compiled for sm_90, not timed
    card.view.select(0)
    assert win.grid_pane.tabs.currentWidget() is win.threads.view
    assert win.source.marked_line() == card.view.current().line == 24
    # the Threads tab asks for its layouts; once they are drawn, the finding's access is picked
    threads = win.threads.view
    wait_until(lambda: threads.current() is not None and threads.current().line == 24, 300,
               "the access at line 24 picked in the Threads tab")
    assert threads.current().op == "load" and threads.current().shape == (64,)
    if SHOT:
        win.grab().save(SHOT)
