"""The catalog kernels' titles and summaries in the Chinese window (the kernel list and the
parameter panel's title), and a user kernel's words shown as written."""

from __future__ import annotations

import dataclasses
import re

import pytest

from views import i18n
from views.demo import load
from views.kernel_picker import KernelPicker
from views.kernel_texts import KERNEL_TEXTS, kernel_text
from views.param_panel import ParamPanel

_CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture
def zh(qapp):
    assert i18n.install_translator(qapp, "zh_CN") == "zh_CN"
    yield
    i18n.install_translator(qapp, "en")


def _catalog() -> list:
    pytest.importorskip("triton")
    import kernels.catalog  # noqa: F401 - registers the catalog's specs

    try:
        from kernels.specs.spec import REGISTRY
    except ImportError:  # before the engine's specs/ folder
        from kernels.spec import REGISTRY
    # the catalog's own (tests elsewhere may have registered user kernels in this process)
    return [s for s in REGISTRY if getattr(s.kernels[0], "fn", s.kernels[0]).__module__.startswith("kernels.catalog")]


def test_every_catalog_title_and_summary_has_an_entry():
    # breaks if a catalog kernel's title or summary changed (or a kernel was added) without its
    # entry here: the Chinese window would show it in English
    specs = _catalog()
    assert len(specs) >= 8
    missing = [t for s in specs for t in (s.title, s.summary) if t not in KERNEL_TEXTS]
    assert not missing, missing


def test_the_chinese_window_shows_kernel_titles_and_summaries_in_chinese(qtbot, zh):
    # breaks if the kernel list or the parameter panel showed the catalog's English in Chinese
    infos = load("kernel_infos")
    picker = KernelPicker(infos)
    qtbot.addWidget(picker)
    model = picker._model
    titles = [model.item(r).text() for r in range(model.rowCount())]
    assert titles and all(_CJK.search(t) for t in titles), titles
    assert "向量加法" in titles
    panel = ParamPanel()
    qtbot.addWidget(panel)
    info = next(i for i in infos if i.name == "softmax")
    panel.set_kernel(info)
    assert panel.title.text().startswith("Softmax（融合，每个程序一行）") and panel.title.text().endswith("softmax")
    assert _CJK.search(panel.title.toolTip())
    # a user's kernel: its own words, as written
    mine = dataclasses.replace(info, name="my_kernel", title="My own kernel", summary="does a thing")
    panel.set_kernel(mine)
    assert panel.title.text() == "My own kernel  ·  my_kernel"
    assert kernel_text("does a thing") == "does a thing"


def test_why_there_is_no_gpu_is_said_in_chinese(qtbot, zh):
    # breaks if the engine's "this torch (2.13.0+cpu) is a CPU-only build" reached the Chinese
    # window in English, or a sentence no pattern knows were mangled instead of shown as it is
    from views.engine_words import engine_text

    panel = ParamPanel()
    qtbot.addWidget(panel)
    panel.set_kernel(next(i for i in load("kernel_infos") if i.name == "vector_add"))
    panel.set_gpu_available(False, "this torch (2.13.0+cpu) is a CPU-only build")
    note = panel.backend_note.text()
    assert "2.13.0+cpu" in note and _CJK.search(note) and "CPU-only" not in note, note
    assert engine_text("something else went wrong") == "something else went wrong"


def test_the_ranking_headers_are_chinese(qtbot, zh):
    # breaks if the Ranking table's headers (rank, median ms, regs, occupancy %, note …) stayed
    # English in the Chinese window; parameter names stay as the kernel spells them
    from views.sweep_demo import demo_sweep_tune
    from views.sweep_table import SweepTable

    table = SweepTable("TFLOP/s")
    qtbot.addWidget(table)
    table.set_result(demo_sweep_tune())
    titles = table.column_titles()
    assert titles[0] == "排名" and "BLOCK_M" in titles and "寄存器" in titles and "占用率 %" in titles
    assert not [t for t in titles if t in ("rank", "median ms", "reps", "regs", "spills", "note", "limited by")]
