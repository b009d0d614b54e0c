"""Lessons: every starter fails with the message its lesson promises, every solution passes, the
access-map diff names the wrong elements, and each way a learner's file can go wrong is said
plainly. Expected element sets are written out here from the lesson's sizes, not taken from the
checker's own helpers."""

from __future__ import annotations

import json
import os
import pickle
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from kernels.data.errors import TraceCancelled
from kernels.data.lessons.result import LessonResult
from kernels.lessons import (
    LANGS,
    check_lesson,
    hints,
    lesson_info,
    lesson_text,
    list_lessons,
    load_progress,
    next_lesson,
    record_hint,
    record_result,
    save_progress,
    solution_path,
    solution_text,
    starter_text,
    write_starter,
)
from kernels.lessons.defs import LESSONS

ROOT = Path(__file__).resolve().parents[2]
NAMES = [i.name for i in list_lessons()]
CJK = re.compile(r"[\u4e00-\u9fff]")


def _variant(tmp_path: Path, name: str, old: str, new: str, text: str | None = None) -> Path:
    """The solution of ``name`` with one piece replaced, written as a learner's file."""
    src = text if text is not None else solution_text(name)
    assert old in src, old
    p = tmp_path / f"{name}_variant.py"
    p.write_text(src.replace(old, new), encoding="utf-8")
    return p


def _wrong(result: LessonResult, tensor: str, kind: str):
    hits = [w for w in result.wrong if w.tensor == tensor and w.kind == kind]
    assert hits, (tensor, kind, [(w.tensor, w.kind) for w in result.wrong])
    return hits[0]


# ---------------------------------------------------------------------------------------------
# texts


def test_at_least_eight_lessons_in_order_each_defined_once():
    infos = list_lessons()
    assert len(infos) >= 8
    assert [i.number for i in infos] == list(range(1, len(infos) + 1))
    assert sorted(NAMES) == sorted(LESSONS)
    assert lesson_info("2").name == lesson_info("02_masks").name == lesson_info("masks").name == "masks"
    with pytest.raises(KeyError, match="no lesson"):
        lesson_info("nope")


@pytest.mark.parametrize("name", NAMES)
def test_every_lesson_has_both_languages_texts_and_hints(name):
    info = lesson_info(name)
    for lang in LANGS:
        assert info.title(lang)
        text = lesson_text(name, lang)
        assert text.startswith(f"# {info.number}. ")
        assert ("launch(" in text) and len(text) > 250
        assert (CJK.search(text) is not None) == (lang == "zh_CN")
    en, zh = hints(name, "en"), hints(name, "zh_CN")
    assert len(en) >= 3 and len(en) == len(zh)
    assert all(h and not CJK.search(h) for h in en)
    # a hint that is only code keeps it, with Chinese punctuation at most
    assert all(re.search(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]", z) or z == e for e, z in zip(en, zh, strict=True))
    assert hints(name, "zh-CN") == zh and lesson_text(name, "fr") == lesson_text(name, "en")


@pytest.mark.parametrize("name", NAMES)
def test_starter_comes_from_the_marked_solution(name, tmp_path):
    starter, clean = starter_text(name), solution_text(name)
    raw = solution_path(name).read_text(encoding="utf-8")
    assert starter != clean and "# starter" not in starter and "# starter" not in clean
    assert "# starter" in raw
    compile(starter, "starter.py", "exec")
    p = write_starter(name, tmp_path / "work")
    assert p.name == f"{lesson_info(name).folder}.py" and p.read_text(encoding="utf-8") == starter
    p.write_text("# my work\n", encoding="utf-8")
    assert write_starter(name, tmp_path / "work").read_text(encoding="utf-8") == "# my work\n"
    assert write_starter(name, tmp_path / "work", overwrite=True).read_text(encoding="utf-8") == starter


# ---------------------------------------------------------------------------------------------
# every lesson: the starter fails as promised, the solution passes


@pytest.mark.parametrize("name", NAMES)
def test_starter_fails_as_promised_and_solution_passes(name, tmp_path):
    start = write_starter(name, tmp_path)
    r = check_lesson(name, start)
    assert not r.passed
    assert LESSONS[name].promise in r.message, r.message
    assert r.message == r.details[0] and r.trace is not None and r.reference_trace is not None
    zh = check_lesson(name, start, lang="zh_CN")
    assert not zh.passed and zh.stage == r.stage and CJK.search(zh.message), zh.message

    ok = check_lesson(name, solution_path(name))
    assert ok.passed, ok.details
    assert ok.stage == "done" and ok.message.startswith("Passed") and not ok.wrong and ok.details == []
    assert all(f.ok for f in ok.budget)
    back = pickle.loads(pickle.dumps(ok))
    assert back.passed and back.trace.grid == ok.trace.grid


def test_program_id_names_the_first_wrong_prediction(tmp_path):
    r = check_lesson("program_id", write_starter("program_id", tmp_path))
    assert r.stage == "lesson"
    # 100 elements, blocks of 32: only out[0..31] really belong to program 0
    assert "for 68 of 100 elements: out[32] was written by program 1, but which_program(32) returned 0" in r.message
    assert not r.wrong  # the kernel itself is right: outputs and maps match the reference
    raising = _variant(tmp_path, "program_id", "return i // BLOCK_SIZE", "return 1 // (i - 7)")
    assert "which_program(7) raised ZeroDivisionError" in check_lesson("program_id", raising).message


def test_masks_reports_every_out_of_bounds_access(tmp_path):
    r = check_lesson("masks", write_starter("masks", tmp_path))
    assert r.stage == "bounds" and r.message.endswith("(and 2 more)")
    # program 3 covers lanes 192..255 of 200 elements: 56 lanes past the end of each tensor
    for tensor, verb in (("x", "read"), ("y", "read"), ("out", "wrote")):
        assert any(d.startswith(f"program 3 {verb} 56 element(s) past the end of {tensor} at line ") and
                   f"(element offsets 200, 201, 202, 203, …; {tensor} has 200 elements)" in d
                   for d in r.details), r.details
    assert r.trace.stats.n_oob.tolist() == [0, 0, 0, 3 * 56]
    assert not r.wrong  # the lanes in bounds did the right thing


def test_grid_diff_names_unwritten_elements_and_their_reference_program(tmp_path):
    r = check_lesson("grid", write_starter("grid", tmp_path))
    w = _wrong(r, "out", "never written")
    assert w.indices.tolist() == list(range(7 * 128, 1000))
    assert set(w.expected.tolist()) == {7} and set(w.got.tolist()) == {-1}
    assert w.mask().sum() == 104 and w.mask()[896:].all()
    assert _wrong(r, "x", "never read").indices.tolist() == list(range(896, 1000))
    assert "your grid is (7,) (7 programs); the reference's is (8,) (8 programs)" in r.details
    assert any("104 of 1000 elements are still NaN" in d for d in r.details)
    nan = _wrong(r, "out", "wrong value")
    assert nan.indices.tolist() == list(range(896, 1000)) and np.isnan(nan.got).all()


def test_tiles_2d_diff_finds_reads_by_the_wrong_program(tmp_path):
    r = check_lesson("tiles_2d", write_starter("tiles_2d", tmp_path))
    assert r.stage == "read" and "x is not contiguous: its strides are (1, 24)" in r.message
    w = _wrong(r, "x", "read by another program")
    # the starter reads storage element i*40 + j for x[i, j]; x = base.t() keeps x[p, q] at q*24 + p
    i, j = np.meshgrid(np.arange(24), np.arange(40), indexing="ij")
    s = i * 40 + j
    p, q = s % 24, s // 24
    got_prog = np.zeros((24, 40), np.int64)
    got_prog[p, q] = (i // 8) + 3 * (j // 16)  # program (i//8, j//16) -> linear id x + 3*y
    ref_prog = (i // 8) + 3 * (j // 16)
    expect = np.flatnonzero((got_prog != ref_prog).ravel())
    assert w.indices.tolist() == expect.tolist()
    assert w.got.tolist() == got_prog.ravel()[expect].tolist()
    assert w.expected.tolist() == ref_prog.ravel()[expect].tolist()
    copy = _variant(tmp_path, "tiles_2d", "affine_2d_kernel[grid](x, out", "affine_2d_kernel[grid](x.contiguous(), out")
    assert check_lesson("tiles_2d", copy).message.startswith("the kernel was not given x itself")


def test_softmax_budget_catches_reloading_the_row(tmp_path):
    r = check_lesson("softmax_rows", write_starter("softmax_rows", tmp_path))
    w = _wrong(r, "out", "never written")
    rows, cols = np.divmod(w.indices, 50)
    assert set(rows.tolist()) == set(range(6)) and set(cols.tolist()) == set(range(32, 50))
    assert w.expected.tolist() == rows.tolist()  # program r writes row r
    three = _variant(tmp_path, "softmax_rows", "    e = tl.exp(v - tl.max(v, axis=0))\n",
                     "    e = tl.exp(v - tl.max(v, axis=0))\n"
                     "    e = e + 0 * tl.load(x_ptr + row * x_row_stride + col, mask=valid, other=0.0)\n"
                     "    e = e + 0 * tl.load(x_ptr + row * x_row_stride + col, mask=valid, other=0.0)\n")
    r3 = check_lesson("softmax_rows", three)
    assert r3.stage == "budget", r3.details
    assert r3.message == ("program 0 calls tl.load on x 3 times (budget: 1 per program): load the row once and "
                          "keep it in registers: max, exp and sum all work on that block")
    fig = next(f for f in r3.budget if (f.tensor, f.op) == ("x", "load"))
    assert (fig.worst, fig.limit, fig.ok, fig.mean) == (3, 1, False, 3.0)
    assert "预算：每个程序最多 1 次" in check_lesson("softmax_rows", three, lang="zh").message


def test_matmul_k_loop_names_unread_k_bands_and_store_budget(tmp_path):
    r = check_lesson("matmul_k_loop", write_starter("matmul_k_loop", tmp_path))
    a = _wrong(r, "a", "never read")
    rows, cols = np.divmod(a.indices, 64)
    assert set(rows.tolist()) == set(range(32)) and set(cols.tolist()) == set(range(16, 64))
    assert (a.expected == -2).all()  # each tile of a is read by both programs of its row of c
    assert "(a[0, 16]: programs (0, 0), (0, 1))" in r.message
    b = _wrong(r, "b", "never read")
    assert set((b.indices // 32).tolist()) == set(range(16, 64))
    inside = _variant(tmp_path, "matmul_k_loop", "        acc += tl.dot(a_tile, b_tile)\n",
                      "        acc += tl.dot(a_tile, b_tile)\n"
                      "        tl.store(c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn, acc)\n")
    ri = check_lesson("matmul_k_loop", inside)
    assert ri.stage == "budget" and ri.message.startswith("program (0, 0) calls tl.store on c 5 times (budget: 1")
    assert ri.message.endswith("store the tile once, after the K loop")


def test_grouped_order_counts_tiles_per_wave(tmp_path):
    r = check_lesson("grouped_order", write_starter("grouped_order", tmp_path))
    # row-major: a wave of 8 programs = one row of c tiles: 1 band of a (2 K tiles) + 8 of b (2 each)
    assert r.figures["tiles_per_wave"] == [18] * 8
    # grouped, GROUP_SIZE_M = 4: a 4 x 2 block of tiles: 4 bands of a + 2 of b, 2 K tiles each
    assert r.figures["reference_tiles_per_wave"] == [12] * 8
    assert r.message.startswith("wave 0 (programs 0..7) loads 18 distinct 16x16 tiles")
    w = _wrong(r, "c", "written by another program")
    tm, tn = np.arange(128)[:, None] // 16, np.arange(128)[None, :] // 16  # the tile of each element of c
    rowmajor = (tm * 8 + tn).ravel()
    grouped = ((tm // 4) * 32 + tn * 4 + tm % 4).ravel()
    assert w.indices.tolist() == np.flatnonzero(rowmajor != grouped).tolist()
    assert w.count == 128 * 128 - 4 * 256  # tiles (0, 0), (3, 7), (4, 0), (7, 7) get the same program
    assert w.got.tolist() == rowmajor[w.indices].tolist() and w.expected.tolist() == grouped[w.indices].tolist()


def test_autotune_checks_every_candidate_and_exports_the_decorator(tmp_path):
    r = check_lesson("autotune", write_starter("autotune", tmp_path))
    w = _wrong(r, "out", "never written")
    assert w.case == "BLOCK_SIZE=32, num_warps=1" and w.indices.tolist() == list(range(128, 200))
    assert "[BLOCK_SIZE=128, num_warps=4] your grid is (4,) (4 programs); the reference's is (2,) (2 programs)" \
        in r.details
    assert not any(d.startswith("[BLOCK_SIZE=64") for d in r.details)
    assert r.export == ""
    ok = check_lesson("autotune", solution_path("autotune"))
    assert ok.export.startswith("@triton.autotune(\n    configs=[\n")
    assert "triton.Config({'BLOCK_SIZE': 64}, num_warps=2, num_stages=3)," in ok.export
    assert "key=['n_elements']" in ok.export and ok.export.endswith("@triton.jit\n")
    assert "cannot tell which one is fastest" in ok.message
    assert [c["programs"] for c in ok.figures["candidates"]] == [7, 4, 2]


_AUTOTUNE_MISTAKES = [
    pytest.param('KEY = ["n_elements"]', 'KEY = ["N"]', "KEY names 'N', which is not an argument of scale_kernel",
                 id="key-not-an-argument"),
    pytest.param('KEY = ["n_elements"]', 'KEY = ["BLOCK_SIZE"]', "KEY names 'BLOCK_SIZE', a tl.constexpr",
                 id="key-a-constexpr"),
    pytest.param('KEY = ["n_elements"]', "KEY = []", "define KEY", id="key-empty"),
    pytest.param("CONFIGS = [", "CONFIGS = [3, ", "CONFIGS[0] is int, not a triton.Config or a dict", id="not-a-config"),
    pytest.param('{"BLOCK_SIZE": 128}', '{"BLOCK": 128}', "CONFIGS[2] sets 'BLOCK', which is not a tl.constexpr",
                 id="unknown-constexpr"),
    pytest.param('{"BLOCK_SIZE": 128}, num_warps=4', '{"BLOCK_SIZE": 64}, num_warps=2', "CONFIGS[2] repeats CONFIGS[1]",
                 id="repeated"),
    pytest.param('{"BLOCK_SIZE": 128}', '{"BLOCK_SIZE": 48}', "[BLOCK_SIZE=48, num_warps=4] the kernel failed",
                 id="not-a-power-of-two"),
    pytest.param("@triton.jit\n", "@triton.autotune(configs=[triton.Config({})], key=['n_elements'])\n@triton.jit\n",
                 "scale_kernel is wrapped in @triton.autotune", id="decorated"),
]


@pytest.mark.parametrize(("old", "new", "says"), _AUTOTUNE_MISTAKES)
def test_autotune_names_the_mistake_in_the_candidates(old, new, says, tmp_path):
    res = check_lesson("autotune", _variant(tmp_path, "autotune", old, new))
    assert not res.passed and says in res.message, res.message


# ---------------------------------------------------------------------------------------------
# a learner's file that does not load or run


def test_file_problems_are_named_with_their_line(tmp_path):
    good = solution_text("grid").splitlines()
    arange = 1 + next(i for i, ln in enumerate(good) if "tl.arange(0, BLOCK)" in ln)
    cases = {
        "syntax": (good[:20] + ["def broken(:"] + good[20:], "load", r"syntax\.py:21: syntax error"),
        "import": (good[:8] + ["import not_a_module_here"] + good[8:], "load",
                   r"import\.py:9: imports module 'not_a_module_here', which is not installed"),
        "raises": (good + ["1 / 0"], "load", r"raises\.py:\d+: ZeroDivisionError: division by zero while the file"),
        "nolaunch": ([ln.replace("def launch(", "def start(") for ln in good], "load", "defines no launch function: "
                     r"the check calls launch\(x, out\)"),
        "nameerror": ([ln.replace("n_programs = triton.cdiv", "n_programs = tritn.cdiv") for ln in good], "run",
                      r"nameerror\.py:\d+: launch\(x, out\) raised NameError: name 'tritn' is not defined"),
        "nokernel": ([ln.replace("relu_kernel[(n_programs,)](x, out, size, BLOCK=BLOCK)", "pass") for ln in good], "run",
                     r"launch\(x, out\) launched no kernel"),
        "twice": (good + ["    relu_kernel[(n_programs,)](x, out, size, BLOCK=BLOCK)"], "run",
                  r"launched 2 kernels and the check records only the first"),
        "fault": ([ln.replace("tl.arange(0, BLOCK)", "tl.arange(0, 100)") for ln in good], "run",
                  rf"the kernel failed under the interpreter: relu_kernel: program 0 \(0, 0, 0\) at line {arange}"),
    }
    for stem, (lines, stage, pattern) in cases.items():
        p = tmp_path / f"{stem}.py"
        p.write_text("\n".join(lines) + "\n", encoding="utf-8")
        r = check_lesson("grid", p)
        assert not r.passed and r.stage == stage, (stem, r.details)
        assert re.search(pattern, r.message), (stem, r.message)
    assert check_lesson("grid", tmp_path / "syntax.py").line == 21
    assert check_lesson("grid", tmp_path / "fault.py").line == arange
    missing = check_lesson("grid", tmp_path / "absent.py", lang="zh_CN")
    assert missing.stage == "load" and missing.message.startswith("找不到课程文件")
    assert check_lesson("grid", tmp_path).message.endswith("is a folder, not a Python file")


def test_jit_helpers_run_and_cancel_stops_the_check(tmp_path):
    text = solution_text("grid").replace(
        "@triton.jit\ndef relu_kernel", "@triton.jit\ndef _relu(v):\n    return tl.where(v > 0, v, 0.0)\n\n\n"
        "@triton.jit\ndef relu_kernel").replace("tl.where(v > 0, v, 0.0), mask", "_relu(v), mask")
    p = tmp_path / "helper.py"
    p.write_text(text, encoding="utf-8")
    assert check_lesson("grid", p).passed  # a kernel calling a jit helper of its own file
    with pytest.raises(TraceCancelled):
        check_lesson("grid", p, cancel=lambda: True)


def test_an_edited_file_is_read_again(tmp_path):
    p = write_starter("grid", tmp_path)
    assert not check_lesson("grid", p).passed
    p.write_text(solution_text("grid"), encoding="utf-8")
    assert check_lesson("grid", p).passed


# ---------------------------------------------------------------------------------------------
# progress and the GUI's side


def test_progress_round_trip(tmp_path):
    d = tmp_path / "profile"
    prog = load_progress(d)
    assert prog.lessons == {} and next_lesson(prog, NAMES) == NAMES[0]
    fail = LessonResult(name=NAMES[0], passed=False, message="not yet")
    win = LessonResult(name=NAMES[0], passed=True, message="Passed")
    prog = record_result(record_result(prog, fail), win)
    prog = record_result(prog, fail)  # a pass, once earned, stays
    prog = record_hint(record_hint(prog, NAMES[1], 2), NAMES[1], 1)
    path = save_progress(d, prog)
    back = load_progress(d)
    assert back == prog
    s = back.state(NAMES[0])
    assert (s.passed, s.attempts, s.last_message, bool(s.passed_at)) == (True, 3, "not yet", True)
    assert back.state(NAMES[1]).hints_shown == 2 and next_lesson(back, NAMES) == NAMES[1]
    assert json.loads(path.read_text(encoding="utf-8"))["version"] == 1
    path.write_text("{not json", encoding="utf-8")
    assert load_progress(d).lessons == {}
    # no temporary files left behind (the damaged file is kept aside, by name)
    assert [p.name for p in d.iterdir() if ".corrupt-" not in p.name] == [path.name]


def test_the_gui_side_imports_neither_torch_nor_triton():
    code = ("import json, sys\nimport kernels.lessons as L\nfrom kernels.data.lessons import result, progress, texts\n"
            "L.hints('masks', 'zh_CN'); L.starter_text('grid')\n"
            "print(json.dumps(sorted({n.split('.')[0] for n in sys.modules})))")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    loaded = set(json.loads(out.stdout.strip().splitlines()[-1]))
    assert "numpy" in loaded and not loaded & {"torch", "triton"}
