"""The advisor's findings in Chinese: every sentence template a rule builds its title, detail and
proposal from has a finished zh_CN translation with the same placeholders, the window's list of
marked strings is the engine's, and the Advice card shows a real rule's finding translated.

What breaks if these fail: a Chinese window shows the advisor's findings half in English (a new
template nobody translated), or a translation drops a number the English carries."""

from __future__ import annotations

import ast
import string
import xml.etree.ElementTree as ET

import pytest

from kernels.advisor import words
from kernels.advisor.gather import Gathered, MaskSample, target_limits
from kernels.advisor.rules import RULE_FUNCTIONS, masked_lanes, occupancy_finding, roofline
from kernels.data.results import CompileFacts, Metrics, RunRequest, RunResult
from kernels.sources.lookup import get_spec
from views import i18n
from views.advice_view import AdviceView
from views.engine_words import ADVISOR_ARGUMENT_WORDS, ADVISOR_EVIDENCE_LABELS, ADVISOR_TEMPLATES, advice_text


def _translations(context: str) -> dict[str, str]:
    root = ET.parse(i18n.ts_path("zh_CN")).getroot()
    out = {}
    for c in root.iter("context"):
        if c.findtext("name") != context:
            continue
        for m in c.iter("message"):
            t = m.find("translation")
            if t.get("type") not in ("unfinished", "obsolete", "vanished") and t.text:
                out[m.findtext("source")] = t.text
    return out


def _fields(text: str) -> list[str]:
    return sorted(f for _, f, _, _ in string.Formatter().parse(text) if f)


def test_the_window_marks_exactly_the_engines_templates():
    assert list(ADVISOR_TEMPLATES) == list(words.TEMPLATES)
    assert list(ADVISOR_ARGUMENT_WORDS) == list(words.ARGUMENT_WORDS)


def test_every_template_and_word_has_chinese_with_the_same_placeholders():
    zh = _translations("Advisor")
    for text in (*words.TEMPLATES, *words.ARGUMENT_WORDS):
        assert text in zh, f"no zh_CN for {text!r}"
        assert _fields(zh[text]) == _fields(text), text
        assert zh[text] != text


def _gathered(**facts) -> Gathered:
    spec = get_spec("softmax")
    f = CompileFacts(n_regs=255, n_spills=0, shared_bytes=0, num_warps=4, num_stages=3, **facts)
    return Gathered(spec=spec, cfg=spec.config({"num_warps": 4}), target="sm_90", facts=f,
                    limits=target_limits("sm_90"), n_programs=1024)


def _findings():
    """Findings of three rules on hand-made facts (no compile): masked lanes, occupancy, roofline."""
    g = _gathered(programs_per_sm=1, occupancy_limiter="registers", occupancy_warps_pct=6.2)
    g.masks = MaskSample(by_line={25: (600, 424)}, programs=2, total=64, first_programs=1, first_masked=424,
                         first_lanes=1024, last_programs=1, last_masked=424, last_lanes=1024)
    g.run = RunResult(request=RunRequest("x"), kernel="x", values={}, backend="gpu", device="H200",
                      metrics=Metrics(bytes_moved=3 << 30, flops=1 << 30, gbps=1200.0, peak_gbps=4800.0,
                                      peak_tflops=800.0, pct_peak_bw=25.0, peak_source="measured"))
    return [*masked_lanes(g), *occupancy_finding(g), *roofline(g)]


def test_each_findings_fragments_are_its_english_text():
    found = _findings()
    assert {f.rule for f in found} == {"masked_lanes", "occupancy", "roofline"}
    for f in found:
        assert advice_text(f.words["title"], "") == f.title  # no translator: the English
        assert advice_text(f.words["detail"], "") == f.detail
        assert all(t in words.TEMPLATES for field in f.words.values() for t, _ in field)
    assert set(RULE_FUNCTIONS) >= {"masked_lanes", "occupancy", "roofline"}


@pytest.fixture
def chinese(qapp):
    assert i18n.install_translator(qapp, "zh_CN") == "zh_CN"
    yield qapp
    i18n.install_translator(qapp, "en")


def test_the_card_shows_a_rules_finding_in_chinese(qtbot, chinese):
    from kernels.data.advice import Advice

    w = AdviceView()
    qtbot.addWidget(w)
    found = _findings()
    w.set_advice(Advice(kernel="softmax", values={}, target="sm_90", backend="gpu", findings=found))
    titles = [w.list.topLevelItem(i).text(1) for i in range(w.list.topLevelItemCount())]
    # 424 of 1024 lanes masked: 41 %; registers hold the SM to one program; 25 % of the copy roof
    assert titles == ["加载与存储中有 41% 的通道被掩码关闭", "寄存器把每个 SM 限制为 1 个程序（其 warp 的 6%）",
                      "访存受限，达到实测拷贝带宽峰值的 25%"]
    w.select(1)
    html = w.detail.toHtml()
    assert "占用率受寄存器限制" in html and "occupancy is limited" not in html
    assert all(t != f.title for t, f in zip(titles, found, strict=True))



def _evidence_keys_the_rules_write() -> set[str]:
    """The keys of every ``evidence`` a rule builds (dict literals passed or assigned as
    ``evidence``, ``evidence["key"] = ...``) and of the measured tail it merges in, read from
    kernels/advisor/rules.py."""
    from kernels.advisor import rules

    tree = ast.parse(open(rules.__file__, encoding="utf-8").read())
    keys: set[str] = set()

    def literal_keys(d: ast.AST) -> set[str]:
        return {k.value for k in d.keys if isinstance(k, ast.Constant)} if isinstance(d, ast.Dict) else set()

    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg == "evidence":
            keys |= literal_keys(node.value)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            for t in node.targets if isinstance(node, ast.Assign) else [node.target]:
                if isinstance(t, ast.Name) and t.id == "evidence":
                    keys |= literal_keys(node.value)
                elif isinstance(t, ast.Subscript) and getattr(t.value, "id", "") == "evidence":
                    keys.add(t.slice.value)
        elif isinstance(node, ast.FunctionDef) and node.name == "measured_tail":
            keys |= {k for r in ast.walk(node) if isinstance(r, ast.Return) for k in literal_keys(r.value)}
    return keys


def test_every_evidence_key_has_a_name_in_both_languages():
    # breaks if a rule's evidence gains a key the window shows raw ("sectors_per_request") or a
    # name with no Chinese: the evidence table was all English keys in the Chinese window
    keys = _evidence_keys_the_rules_write()
    assert {"spill_bytes_per_thread", "sectors_per_request", "tail_share", "masked_fraction"} <= keys
    assert keys <= set(ADVISOR_EVIDENCE_LABELS), sorted(keys - set(ADVISOR_EVIDENCE_LABELS))
    zh = _translations("Advisor")
    for key, label in ADVISOR_EVIDENCE_LABELS.items():
        assert label in zh, f"no zh_CN for {key}'s {label!r}"


def test_the_evidence_table_reads_in_chinese(qtbot, chinese):
    from views.i18n_check import english_words

    w = AdviceView()
    qtbot.addWidget(w)
    for f in _findings():
        html = AdviceView.detail_html(f)
        table = html[html.index("<table"):]
        assert not english_words(table), (f.rule, english_words(table))
        for key in f.evidence:
            assert f">{key}<" not in table, key
    occupancy = next(f for f in _findings() if f.rule == "occupancy")
    assert "<td>限制因素</td><td><b>寄存器</b></td>" in AdviceView.detail_html(occupancy)


def test_the_trials_notes_and_after_read_in_chinese(qtbot, chinese):
    # breaks if a trial's note ("the sweep failed: …", "no candidate passed its check", …) or a
    # checked trial's evidence after the change reached the Chinese card in English
    import dataclasses

    from kernels.data.advice import Trial
    from views.engine_words import engine_text
    from views.i18n_check import english_words

    notes = ["compiled for sm_90; not timed (no GPU): 3 candidate(s) checked",
             "compiled for sm_90; not timed (no GPU): 3 candidate(s) checked; BLOCK_SIZE=4096: out of resource",
             "no candidate compiled: BLOCK_SIZE=4096: out of resource", "the sweep failed: worker died",
             "the current values were not timed", "no candidate passed its check",
             "tune sweep on gpu: 6 configs, the fastest re-measured interleaved"]
    for note in notes:
        zh = engine_text(note)
        kept = ["sm_90", "gpu", "BLOCK_SIZE=4096: out of resource", "worker died"]
        assert zh != note and not english_words(zh, kept), (note, zh)
    occupancy = next(f for f in _findings() if f.rule == "occupancy")
    checked = dataclasses.replace(occupancy, trial=Trial({"num_warps": 8}, checked=True, after=dict(occupancy.evidence),
                                                         backend="compile", note=notes[0]))
    html = AdviceView.detail_html(checked)
    tail = html[html.index("</table>"):]
    assert "每个 SM 的程序数" in tail and "programs_per_sm" not in tail
