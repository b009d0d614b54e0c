"""Tilescope in Chinese: the translator is chosen from the setting or the system locale, the
translation files are complete and compiled, and no view is left half in English."""

from __future__ import annotations

import os
import re
import string
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QWidget

from kernels.data.lessons.texts import list_lessons
from views import demo_results as demo
from views import i18n
from views.demo import demo_matmul, demo_oob, demo_vector_add
from views.i18n_check import english_words, visible_texts

ROOT = Path(__file__).resolve().parents[2]
TS = i18n.ts_path("zh_CN")


@pytest.fixture
def app(qapp):
    """The application; English again after the test, whatever it installed."""
    yield qapp
    i18n.install_translator(qapp, "en")


def _run(code: str, **env: str) -> str:
    full = dict(os.environ, PYTHONPATH=str(ROOT), QT_QPA_PLATFORM="offscreen", **env)
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=full, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip().splitlines()[-1]


def test_the_i18n_module_and_the_grid_texts_load_without_qt():
    # breaks if the Qt-free modules (the grid view's texts) pull Qt in through translate()
    code = ("import sys; import views.i18n as m, views.grid_view.text as t\n"
            "print(m.translate('GridView', 'read'), 'PySide6' in sys.modules)")
    assert _run(code) == "read False"


@pytest.mark.parametrize(("locale", "expected"), [("zh_CN.UTF-8", "zh_CN"), ("en_US.UTF-8", "en")])
def test_no_setting_follows_the_system_locale(locale, expected):
    # breaks if a Chinese desktop gets an English window (or an English one a Chinese window)
    code = ("from PySide6.QtWidgets import QApplication\nfrom views.i18n import install_translator\n"
            "app = QApplication([])\nlang = install_translator(app, None)\n"
            "from PySide6.QtCore import QCoreApplication\n"
            "print(lang, QCoreApplication.translate('LessonView', 'Check'))")
    word = "检查" if expected == "zh_CN" else "Check"
    assert _run(code, LC_ALL=locale, LANG=locale, LANGUAGE="") == f"{expected} {word}"


def test_an_explicit_setting_wins_and_switching_back_restores_english(app):
    # breaks if the user's choice is ignored, or "English" after "中文" leaves Chinese words behind
    assert i18n.install_translator(app, "zh-CN") == "zh_CN" == i18n.current_language()
    assert QCoreApplication.translate("LessonView", "Check") == "检查"
    assert i18n.install_translator(app, "en") == "en"
    assert QCoreApplication.translate("LessonView", "Check") == "Check"


def test_a_missing_translation_file_falls_back_to_english(app, monkeypatch, tmp_path):
    # breaks if a broken install (no .qm) shows untranslated widgets while claiming Chinese
    monkeypatch.setattr(i18n, "TRANSLATIONS_DIR", tmp_path)
    assert i18n.install_translator(app, "zh_CN") == "en"
    assert QCoreApplication.translate("LessonView", "Check") == "Check"


def _messages(ts: Path) -> dict[tuple[str, str], ET.Element]:
    root = ET.parse(ts).getroot()
    return {(ctx.findtext("name"), m.findtext("source")): m.find("translation")
            for ctx in root.iter("context") for m in ctx.iter("message")}


def _fields(text: str) -> list[str]:
    return sorted(f for _, f, _, _ in string.Formatter().parse(text) if f is not None)


def test_every_entry_is_translated_with_the_same_placeholders():
    # breaks if a word shows in English for want of a translation, or a "{n}" lost in translation
    # makes .format() raise (or drop a number) in Chinese only
    msgs = _messages(TS)
    assert len(msgs) > 300
    for (ctx, src), tr in msgs.items():
        assert tr.get("type") is None and tr.text, (ctx, src)
        assert _fields(tr.text) == _fields(src), (ctx, src, tr.text)
        assert re.search(r"[\u4e00-\u9fff]", tr.text) or tr.text in ("GPU",), (ctx, src, tr.text)


def test_the_ts_file_holds_every_marked_word_and_the_qm_is_compiled_from_it(tmp_path):
    # breaks if a string was wrapped (or changed) without running "python -m views.i18n update",
    # or the .ts was edited without "python -m views.i18n release"
    copy = tmp_path / TS.name
    copy.write_bytes(TS.read_bytes())
    i18n.lupdate(copy, "zh_CN")
    before, after = _messages(TS), _messages(copy)
    assert set(after) - set(before) == set(), "words marked in the code but missing from the .ts"
    assert set(before) - set(after) == set(), "words in the .ts no longer in the code"
    from PySide6.QtCore import QTranslator

    qm = QTranslator()
    assert qm.load(str(i18n.qm_path("zh_CN")))
    stale = [(ctx, src) for (ctx, src), tr in before.items() if qm.translate(ctx, src) != tr.text]
    assert not stale, "the .qm differs from the .ts: run python -m views.i18n release"


# ------------------------------------------------------------------------------ no English left
# what is looked at and which Latin words are allowed: views.i18n_check (the window's test uses it too)


def _widgets(tmp: Path) -> list[tuple[QWidget, list[str]]]:
    """Every views widget, empty and with demo data, and the data strings each shows as given."""
    import numpy as np

    from kernels.data.lessons.result import LessonResult, WrongElements
    from views.compile_view import CompileView
    from views.correctness_view import CorrectnessView
    from views.grid_view import GridView
    from views.history_view import HistoryView
    from views.kernel_picker import KernelPicker
    from views.lesson_view import LessonView
    from views.param_panel import ParamPanel
    from views.source_view import SourceView
    from views.sweep_view import SweepView
    from views.throughput_view import ThroughputView

    made: list[tuple[QWidget, list[str]]] = []
    info = demo.matmul_info()
    made.append((KernelPicker(demo.demo_kernels()), []))
    panel = ParamPanel(info)
    panel.set_gpu_available(False, "—")
    made += [(ParamPanel(), []), (panel, [info.title, info.name])]
    compiled, interp = CompileView(), CompileView()
    compiled.set_facts(demo.demo_compile_facts())
    interp.set_facts(None)
    made += [(CompileView(), []), (compiled, []), (interp, [])]
    check = demo.demo_check(passed=False)
    correct = CorrectnessView()
    correct.set_check(check)
    made += [(CorrectnessView(), []), (correct, [check.reason])]
    history, rows = HistoryView(), demo.demo_history_rows(4)
    history.set_rows(rows)
    made += [(HistoryView(), []), (history, []), (history.show_comparison(rows[0], rows[1]), [])]
    for sweep, metric in ((demo.demo_sweep_1d(), "GB/s"), (demo.demo_sweep_2d(), "TFLOP/s")):
        sv = SweepView(metric)
        sv.set_sweep(sweep)
        sv.flush()
        made.append((sv, []))
    made.append((SweepView(), []))
    for backend in ("gpu", "interpreter"):
        tv = ThroughputView("GB/s")
        for r in demo.demo_run_results(4, backend=backend):
            tv.add_result(r)
        tv.flush()
        made.append((tv, []))
    made.append((ThroughputView(), []))
    for trace in (demo_matmul(), demo_oob(), demo_vector_add(window=2)):
        gv = GridView()
        gv.set_trace(trace)
        gv.hover_program(0)
        made.append((gv, [ln.split("#")[0].strip() for ln in trace.source.splitlines() if ln.strip()]))
    made.append((SourceView(), []))
    from views.threads_view import ThreadsView
    from views.threads_view.demo import demo_result
    from views.threads_view.tile import access_name, header_text

    threads, layouts = ThreadsView(), demo_result(4)
    threads.set_result(layouts)
    made += [(ThreadsView(), []), (threads, [access_name(a) for a in layouts.accesses]
                                   + [header_text(a.layout) for a in layouts.accesses])]
    lv = LessonView(tmp / "work", tmp / "progress", "zh_CN")
    lv.request_check()
    wrong = WrongElements("out", "never written", (100,), np.arange(4), np.full(4, -1), np.full(4, 1))
    lv.show_result(LessonResult(name=lv.current_lesson(), passed=False, message="消息", stage="written",
                                wrong=[wrong], trace=demo_vector_add(), reference_trace=demo_vector_add(),
                                elapsed_s=1.0))
    lv.next_hint()
    lv.solution_button.click()
    made.append((lv, [i.title("zh_CN") for i in list_lessons()]))
    return made


def test_no_view_is_left_in_english_under_the_chinese_translator(qtbot, app):
    # breaks if a label, button, tab, header or plot label of any view was not wrapped for
    # translation (or not translated): a Chinese user would meet English in the middle of the UI
    assert i18n.install_translator(app, "zh_CN") == "zh_CN"
    with tempfile.TemporaryDirectory() as tmp:
        made = _widgets(Path(tmp))
        found, seen = [], 0
        for w, data in made:
            qtbot.addWidget(w)
            w.resize(1200, 800)
            w.show()
            for what, text in visible_texts(w):
                seen += 1
                words = english_words(text, data)
                if words:
                    found.append(f"{type(w).__name__} {what}: {text[:120]!r} -> {words}")
    assert seen > 250  # the walk sees the views' words (an empty walk would pass anything)
    assert not found, "\n".join(found)


def test_the_same_walk_finds_english_in_english(qtbot, app):
    # breaks if the English detector above cannot see English at all (then it proves nothing)
    assert i18n.install_translator(app, "en") == "en"
    with tempfile.TemporaryDirectory() as tmp:
        made = _widgets(Path(tmp))
        words = []
        for w, data in made:
            qtbot.addWidget(w)
            w.show()
            words += [x for _, t in visible_texts(w) for x in english_words(t, data)]
    assert {"Check", "Backend", "Reload", "Programs", "Hints"} <= set(words)
