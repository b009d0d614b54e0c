"""The whole window in Chinese: menus, toolbar, docks, tabs, placeholders, the status bar and the
messages of a run and a trace — against a real worker running the Triton interpreter.

The views are checked one by one in ``tests/views/test_i18n.py``; this checks what the window adds
around them (``app/``). It shares that test's walk and its allow-list (``views.i18n_check``). The
tests share one window (one worker start) and run in file order; the last one closes it.
"""

from __future__ import annotations

import re

import pytest

pytest.importorskip("PySide6.QtWidgets")
pytest.importorskip("pytestqt")

from real_window import make_window, wait_ready, wait_until  # noqa: E402

from app.main_window import MainWindow  # noqa: E402
from app.window.dialogs import SweepDialog  # noqa: E402
from kernels.data.lessons.texts import list_lessons  # noqa: E402
from views import i18n  # noqa: E402
from views.i18n_check import english_words, menu_texts, visible_texts  # noqa: E402

_CJK = re.compile(r"[\u4e00-\u9fff]")


def window_texts(win: MainWindow) -> list[tuple[str, str]]:
    """Every word the window shows around its views, and the views' own visible words."""
    texts = visible_texts(win) + menu_texts(win.menuBar())
    texts += [("tooltip", a.toolTip()) for a in win.toolbar.actions() if not a.isSeparator()]
    texts += [("grid placeholder", win.grid_placeholder.text()),
              ("toolbar title", win.toolbar.windowTitle()),
              ("status message", win.statusBar().currentMessage()),
              ("stage", win.stage_text())]
    texts += [("status label", w.text()) for w in (win.backend_label, win.device_label, win.state_label,
                                                   win.triton_label)]
    return [(k, t) for k, t in texts if t]


def data_strings(win: MainWindow) -> list[str]:
    """What the window shows as given, not as its own words: the catalog's kernel names, teaching
    texts and parameter names (English data of ``kernels/``), the kernel source's lines and the
    lesson titles (their own Markdown files, keeping the English term beside the Chinese). The
    catalog's titles and summaries and why the worker has no GPU are translated
    (``views.kernel_texts``, ``views.engine_words``): the walk checks them."""
    out: list[str] = []
    for info in win.session.infos.values():
        out += [info.name, info.teaching]
        out += [p.name for p in info.params]
    out += [ln.split("#")[0].strip() for ln in win.source.text().splitlines() if ln.strip()]
    out += [lesson.title("zh_CN") for lesson in list_lessons()]  # Markdown files, not Qt strings
    return [s for s in out if s]


def english_left(texts: list[tuple[str, str]], data: list[str]) -> list[str]:
    return [f"{what}: {text[:120]!r} -> {words}" for what, text in texts
            if (words := english_words(text, data))]


@pytest.fixture(scope="module")
def zh(qapp):
    """Chinese for this module's window; English again after it."""
    before = i18n.current_language()
    assert i18n.install_translator(qapp, "zh_CN") == "zh_CN"
    yield
    i18n.install_translator(qapp, before)


@pytest.fixture(scope="module")
def win(qapp, zh, tmp_path_factory):
    w = make_window(tmp_path_factory.mktemp("gui-zh-home"))
    w.resize(1366, 768)
    w.show()
    yield w
    w.close()


# ---------------------------------------------------------------------------------------------


def test_the_window_speaks_chinese_before_the_worker_answers(win):
    # breaks if a menu, an action, a dock, a tab, the grid placeholder or the status bar was left
    # unwrapped (or untranslated): a Chinese learner's first screen would be half English
    texts = window_texts(win)
    kinds = {k for k, _ in texts}
    assert {"menu", "action", "QDockWidget", "QToolButton", "status label", "grid placeholder"} <= kinds, kinds
    assert len(texts) > 40  # an empty walk would pass anything
    menus = [t for k, t in texts if k == "menu"]
    assert menus[:3] == ["文件(&F)", "运行(&R)", "视图(&V)"], menus
    assert _CJK.search(win.grid_placeholder.text()) and "Ctrl+T" in win.grid_placeholder.text()
    found = english_left(texts, data_strings(win))
    assert not found, "\n".join(found)


def test_after_a_run_and_a_trace_nothing_is_left_in_english(qtbot, win):
    # breaks if the controller's messages (stage, status line, trace caption) or the labels the
    # worker's hello fills in (device, worker state) stay English once the window is at work
    wait_ready(win)
    assert win.select_kernel("vector_add", {"BLOCK_SIZE": 256, "N": 1000})
    win.panel.set_backend("interpreter")
    win.run()
    wait_until(lambda: len(win.throughput.results()) == 1, 60, "the run's result")
    wait_until(lambda: not win._busy_kinds(), 30, "the run to finish")
    assert win.throughput.results()[0].error is None
    assert "vector_add" in win.statusBar().currentMessage()  # "vector_add: PASS · … ms（解释器墙钟时间）"
    win.trace()
    wait_until(lambda: win.grid.trace() is not None and not win.grid.is_loading(), 60, "the trace")
    wait_until(lambda: win.statusBar().currentMessage().startswith("已追踪"), 10, "the trace's status line")
    assert win.trace_caption.isVisible() and "记录了 4 个程序" in win.trace_caption.text()
    assert win.stage_text() == "就绪" and win.state_label.text() == "工作进程：就绪"
    assert win.backend_label.text() == "后端：解释器（CPU）"
    texts = window_texts(win) + [("trace caption", win.trace_caption.text())]
    found = english_left(texts, data_strings(win))
    assert not found, "\n".join(found)


def test_the_banner_and_the_sweep_dialog_speak_chinese(qtbot, win):
    # breaks if the banner's Details… button or the sweep dialog (titles, fields, the point count
    # under the fields, the Run sweep button) were left in English
    win.banner.show_message("消息", "error", details="traceback…", topic="test")
    assert win.banner.button_labels() == ["详情…"]
    win.banner.dismiss()
    dlg = SweepDialog(win.session.info(), win.panel.values(), win)
    qtbot.addWidget(dlg)
    dlg.show()
    texts = visible_texts(dlg) + [("title", dlg.windowTitle()), ("message", dlg.message.text())]
    assert dlg.ok_button().text() == "开始扫描" and dlg.message.text().endswith("个点。")
    found = english_left(texts, data_strings(win))
    assert not found, "\n".join(found)
    dlg.close()


def test_the_same_walk_finds_english_in_an_english_window(qapp, tmp_path):
    # breaks if the walk cannot see the window's English at all (then the tests above prove nothing)
    before = i18n.current_language()
    i18n.install_translator(qapp, "en")
    w = make_window(tmp_path, autostart=False)  # no worker needed: the window's own words
    try:
        w.resize(1366, 768)
        w.show()
        words = {x for _, t in window_texts(w) + visible_texts(w) for x in english_words(t)}
    finally:
        w.close()
        w.deleteLater()
        i18n.install_translator(qapp, before)
    assert {"File", "View", "Kernels", "Parameters", "Correctness", "Sweep", "Programs", "trace"} <= words, words

