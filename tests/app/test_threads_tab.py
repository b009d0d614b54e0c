"""The Threads tab's requests and answers: asked when in front and something changed, the latest
answer drawn, a superseded one dropped, a source line picking its access.

What breaks if these fail: changing num_warps leaves the old layout on screen (or draws a late
answer over a newer one), the worker is kept busy compiling layouts nobody looks at, or a click
on a source line does not show that line's access. The worker is a stand-in here (its answers
are layouts made in the test); tests/app/test_main_window.py drives the real one."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QLabel, QTabWidget

from app.events import LayoutAnswered, LayoutFailed, WindowEvents
from app.window.threads_tab import DEBOUNCE_MS, ThreadsTab
from kernels.data.layout import AccessLayout, LayoutInfo, LayoutResult
from views.source_view import SourceView
from views.threads_view.demo import blocked_map

LAYOUT_KIND = "layout"


class _Panel(QObject):
    """The parameter panel as the tab reads it: its values, whether they are valid, their changes."""

    valuesChanged = Signal(dict)

    def __init__(self, values: dict) -> None:
        super().__init__()
        self.v = values

    def values(self) -> dict:
        return dict(self.v)

    def is_valid(self) -> bool:
        return True

    def set(self, name: str, value) -> None:  # noqa: ANN001
        self.v[name] = value
        self.valuesChanged.emit(dict(self.v))


class _Worker:
    """Takes requests (a generation each); the test answers them as the controller would, with events."""

    def __init__(self, events: WindowEvents) -> None:
        self.events, self.sent = events, []

    def send(self, req):  # noqa: ANN001
        self.sent.append((len(self.sent) + 1, LAYOUT_KIND, req))
        return len(self.sent)

    def answer(self, gen: int, result) -> None:  # noqa: ANN001
        self.events.publish(LayoutAnswered(gen, result))

    def fail(self, gen: int, err) -> None:  # noqa: ANN001
        self.events.publish(LayoutFailed(gen, err))


def _answer(num_warps: int, lines=(24, 30)) -> LayoutResult:
    tm = blocked_map((1024,), [4], [32], [num_warps], [0])
    info = LayoutInfo("blocked", {"size_per_thread": [4], "threads_per_warp": [32], "warps_per_cta": [num_warps],
                                  "order": [0]})
    accesses = [AccessLayout(i, op, "tt." + op, info, (1024,), "float32", line=ln, tensor=t, threads=tm,
                             vector_bits=128) for i, (op, ln, t) in enumerate(
        [("load", lines[0], "x_ptr"), ("store", lines[1], "out_ptr")])]
    return LayoutResult("vector_add", "sm_90", num_warps, accesses, grid=(4, 1, 1), n_programs=1)


@pytest.fixture
def tab(qtbot):
    tabs = QTabWidget()
    tabs.addTab(QLabel("grid"), "Grid")
    qtbot.addWidget(tabs)
    source = SourceView()
    qtbot.addWidget(source)
    source.set_source("\n".join(f"line {i}" for i in range(20, 40)), first_line=20)
    events = WindowEvents()
    worker, panel = _Worker(events), _Panel({"BLOCK_SIZE": 1024, "num_warps": 4})
    info = SimpleNamespace(name="vector_add")  # the tab reads the shown kernel's name only
    t = ThreadsTab(tabs, source, panel, events, worker.send, lambda: info, lambda: None, lambda: True)
    tabs.resize(1000, 700)
    tabs.show()
    return t, tabs, worker, panel, source


def test_nothing_is_asked_while_the_tab_is_hidden_and_a_change_is_asked_for_once_in_front(tab, qtbot):
    t, tabs, worker, panel, _ = tab
    panel.set("num_warps", 4)
    qtbot.wait(DEBOUNCE_MS + 100)
    assert worker.sent == []  # the grid is in front
    tabs.setCurrentWidget(t.view)
    assert len(worker.sent) == 1
    gen, kind, req = worker.sent[0]
    assert kind == LAYOUT_KIND and req.kernel == "vector_add" and req.values["num_warps"] == 4
    assert req.programs == "0:1" and req.target == "sm_90"
    worker.answer(gen, _answer(4))
    assert "warpsPerCTA [4]" in t.view.header.text() and "warp 3 (256)" in t.view.legend_words()


def test_a_num_warps_change_redraws_and_a_superseded_answer_is_dropped(tab, qtbot):
    t, tabs, worker, panel, _ = tab
    tabs.setCurrentWidget(t.view)
    first = worker.sent[-1][0]
    panel.set("num_warps", 8)
    qtbot.waitUntil(lambda: len(worker.sent) == 2, timeout=5000)
    second, _, req = worker.sent[-1]
    assert req.values["num_warps"] == 8
    worker.answer(second, _answer(8))
    worker.answer(first, _answer(4))  # late: the 4-warp answer must not come back
    assert "warp 7 (128)" in t.view.legend_words() and "warpsPerCTA [8]" in t.view.header.text()


def test_a_failed_request_says_why_and_a_source_line_picks_its_access(tab, qtbot):
    t, tabs, worker, panel, source = tab
    tabs.setCurrentWidget(t.view)
    worker.answer(worker.sent[-1][0], _answer(4))  # a grid of 4 programs
    panel.v["BLOCK_SIZE"] = 3000
    t.changed(now=True)
    worker.fail(worker.sent[-1][0], type("E", (), {"message": "CompileError: no"})())
    assert "could not be read: CompileError: no" in t.view.header.text()
    t.view.program.setValue(2)  # another program: asked at once
    gen, _, req = worker.sent[-1]
    assert req.programs == "2:3"
    worker.answer(gen, _answer(4))
    assert t.view.current().op == "load"
    cursor = source.editor().textCursor()
    cursor.setPosition(source.editor().document().findBlockByNumber(30 - 20).position())
    source.editor().setTextCursor(cursor)  # line 30: the store
    assert t.view.current().op == "store" and t.view.picker.currentText().startswith("store out_ptr")
    t.view.picker.setCurrentIndex(0)  # picking the load marks its line (24) in the source view
    assert source.marked_line() == 24
