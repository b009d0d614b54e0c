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

from app.window.threads_tab import DEBOUNCE_MS, LAYOUT_KIND, ThreadsTab
from kernels.data.layout import AccessLayout, LayoutInfo, LayoutResult
from views.source_view import SourceView
from views.threads_view.demo import blocked_map


class _Worker(QObject):
    result = Signal(int, str, object)
    error = Signal(int, str, object)

    def __init__(self) -> None:
        super().__init__()
        self.sent: list[tuple[int, str, object]] = []

    def submit(self, kind, payload):  # noqa: ANN001
        gen = len(self.sent) + 1
        self.sent.append((gen, kind, payload))
        return gen


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
    worker, values = _Worker(), {"BLOCK_SIZE": 1024, "num_warps": 4}
    info = SimpleNamespace(name="vector_add")  # the tab reads the shown kernel's name only
    t = ThreadsTab(tabs, source, worker, worker.submit, lambda: info, lambda: None, lambda: dict(values),
                   lambda: True, lambda: True)
    tabs.resize(1000, 700)
    tabs.show()
    return t, tabs, worker, values, source


def test_nothing_is_asked_while_the_tab_is_hidden_and_a_change_is_asked_for_once_in_front(tab, qtbot):
    t, tabs, worker, values, _ = tab
    t.changed()
    qtbot.wait(DEBOUNCE_MS + 100)
    assert worker.sent == []  # the grid is in front
    tabs.setCurrentWidget(t.view)
    assert len(worker.sent) == 1
    gen, kind, req = worker.sent[0]
    assert kind == LAYOUT_KIND and req.kernel == "vector_add" and req.values["num_warps"] == 4
    assert req.programs == "0:1" and req.target == "sm_90"
    worker.result.emit(gen, LAYOUT_KIND, _answer(4))
    assert "warpsPerCTA [4]" in t.view.header.text() and "warp 3 (256)" in t.view.legend.text()


def test_a_num_warps_change_redraws_and_a_superseded_answer_is_dropped(tab, qtbot):
    t, tabs, worker, values, _ = tab
    tabs.setCurrentWidget(t.view)
    first = worker.sent[-1][0]
    values["num_warps"] = 8
    t.changed()
    qtbot.waitUntil(lambda: len(worker.sent) == 2, timeout=5000)
    second, _, req = worker.sent[-1]
    assert req.values["num_warps"] == 8
    worker.result.emit(second, LAYOUT_KIND, _answer(8))
    worker.result.emit(first, LAYOUT_KIND, _answer(4))  # late: the 4-warp answer must not come back
    assert "warp 7 (128)" in t.view.legend.text() and "warpsPerCTA [8]" in t.view.header.text()


def test_a_failed_request_says_why_and_a_source_line_picks_its_access(tab, qtbot):
    t, tabs, worker, values, source = tab
    tabs.setCurrentWidget(t.view)
    worker.result.emit(worker.sent[-1][0], LAYOUT_KIND, _answer(4))  # a grid of 4 programs
    values["BLOCK_SIZE"] = 3000
    t.changed(now=True)
    worker.error.emit(worker.sent[-1][0], LAYOUT_KIND, type("E", (), {"message": "CompileError: no"})())
    assert "could not be read: CompileError: no" in t.view.header.text()
    t.view.program.setValue(2)  # another program: asked at once
    gen, _, req = worker.sent[-1]
    assert req.programs == "2:3"
    worker.result.emit(gen, LAYOUT_KIND, _answer(4))
    assert t.view.current().op == "load"
    cursor = source.editor().textCursor()
    cursor.setPosition(source.editor().document().findBlockByNumber(30 - 20).position())
    source.editor().setTextCursor(cursor)  # line 30: the store
    assert t.view.current().op == "store" and t.view.picker.currentText().startswith("store out_ptr")
