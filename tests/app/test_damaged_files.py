"""Any file Tilescope reads may be damaged in any way — nested 200,000 deep, a 5,000-digit
number, binary junk, a directory or a pipe in its place, gigabytes long: the settings and the
lesson progress give their defaults and a sentence for a banner, never a traceback, and never
hang or read gigabytes at start-up. No Qt, no worker.

If these fail: a damaged settings.json (or lessons-progress.json) stops the window at every
start with a RecursionError / ValueError / MemoryError traceback, or the window never opens (a
pipe in the file's place).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from app.settings import DEFAULT_TIMEOUT_S, Settings
from kernels.data.lessons.progress import LessonState, Progress, load_progress, progress_path, save_progress

ROOT = Path(__file__).resolve().parents[2]

DAMAGE = {
    "nested_200000_deep": "[" * 200_000 + "]" * 200_000,
    "object_nested_200000_deep": '{"a":' * 200_000 + "1" + "}" * 200_000,
    "a_5000_digit_integer": "9" * 5000,
    "a_5000_digit_integer_in_a_field": '{"timeout_s": ' + "9" * 5000 + ', "lessons": {"x": ' + "9" * 5000 + "}}",
    "binary_junk": bytes(range(256)) * 16,
    "nested_values_of_a_kernel": '{"values": {"vector_add": {"N": ' + "[" * 50 + "]" * 50 + "}}}",
    "a_huge_number_of_a_kernel": '{"values": {"vector_add": {"N": ' + "9" * 4000 + "}}}",
}


def _write(p: Path, content: str | bytes) -> None:
    if isinstance(content, str):
        p.write_text(content, encoding="utf-8")
    else:
        p.write_bytes(content)


@pytest.mark.parametrize("case", sorted(DAMAGE))
def test_damaged_settings_give_defaults_and_a_message(tmp_path, case):
    p = tmp_path / "settings.json"
    _write(p, DAMAGE[case])
    s = Settings.load(p)  # was: RecursionError / ValueError traceback
    assert s.timeout_s == DEFAULT_TIMEOUT_S and s.backend == "auto"
    assert s.warning and str(p) in s.warning, s.warning
    for kernel_values in s.values.values():  # what the panel will be given is plain and small
        for v in kernel_values.values():
            assert v is None or isinstance(v, (bool, int, float, str)) and len(str(v)) <= 1000
    s.save()  # and the next save works
    assert Settings.load(p).warning is None


@pytest.mark.parametrize("kind", ["directory", "fifo"])
def test_a_directory_or_a_pipe_in_place_of_the_settings_is_a_message_not_a_hang(tmp_path, kind):
    p = tmp_path / "settings.json"
    if kind == "directory":
        p.mkdir()
    else:
        os.mkfifo(p)
    r = subprocess.run([sys.executable, "-c", textwrap.dedent("""
        import sys
        from app.settings import Settings
        s = Settings.load(sys.argv[1])
        print("WARNING", s.warning)
    """), str(p)], cwd=ROOT, capture_output=True, text=True, timeout=120)  # was: blocked on the pipe forever
    assert r.returncode == 0, r.stderr
    assert "WARNING The settings file" in r.stdout and "not a regular file" in r.stdout, r.stdout


_HUGE = """
    import resource, sys
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, resource.getrlimit(resource.RLIMIT_AS)[1]))
    from {module} import {fn}
    out = {call}
    print("WARNING", out.warning)
"""


def test_a_settings_file_of_gigabytes_is_not_read(tmp_path):
    p = tmp_path / "settings.json"
    with open(p, "wb") as f:  # sparse: 3 GiB of zeros, no disk used
        f.truncate(3 << 30)
    code = _HUGE.format(module="app.settings", fn="Settings", call="Settings.load(sys.argv[1])")
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(code), str(p)], cwd=ROOT, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]  # was: MemoryError reading it whole
    assert "WARNING The settings file" in r.stdout and "GiB" in r.stdout, r.stdout


# ---------------------------------------------------------------------------------------------
# the lesson progress


@pytest.mark.parametrize("case", sorted(DAMAGE))
def test_a_damaged_lesson_progress_is_empty_with_a_message_and_kept_aside(tmp_path, case):
    p = progress_path(tmp_path)
    _write(p, DAMAGE[case])
    before = p.read_bytes()
    got = load_progress(tmp_path)  # was: RecursionError / ValueError traceback
    assert isinstance(got, Progress)
    if case not in ("nested_values_of_a_kernel", "a_huge_number_of_a_kernel"):  # those are not lessons
        assert got.lessons == {} and got.warning and str(p) in got.warning, got.warning
        kept = [q for q in tmp_path.iterdir() if q.name.startswith(p.name + ".corrupt-")]
        assert [q.read_bytes() for q in kept] == [before]  # the learner's file is never just dropped
    save_progress(tmp_path, Progress({"masks": LessonState(passed=True, attempts=1)}))
    again = load_progress(tmp_path)
    assert again.warning == "" and again.state("masks").passed


def test_lesson_progress_with_wrong_types_keeps_the_good_lessons(tmp_path):
    p = progress_path(tmp_path)
    p.write_text('{"version": 1, "lessons": {"masks": {"passed": true, "attempts": 2}, '
                 '"tiles": {"passed": "yes", "attempts": [1]}, "odd": 5}}')
    got = load_progress(tmp_path)
    assert got.state("masks").passed and got.state("masks").attempts == 2
    assert not got.state("tiles").passed and isinstance(got.state("tiles").attempts, int)
    assert "tiles" in got.warning


@pytest.mark.parametrize("kind", ["directory", "fifo"])
def test_a_directory_or_a_pipe_in_place_of_the_lesson_progress_is_a_message(tmp_path, kind):
    p = progress_path(tmp_path)
    if kind == "directory":
        p.mkdir()
    else:
        os.mkfifo(p)
    r = subprocess.run([sys.executable, "-c", textwrap.dedent("""
        import sys
        from kernels.data.lessons.progress import load_progress
        print("WARNING", load_progress(sys.argv[1]).warning)
    """), str(tmp_path)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "not a regular file" in r.stdout, r.stdout


def test_a_lesson_progress_of_gigabytes_is_not_read(tmp_path):
    p = progress_path(tmp_path)
    with open(p, "wb") as f:
        f.truncate(3 << 30)
    code = _HUGE.format(module="kernels.data.lessons.progress", fn="load_progress", call="load_progress(sys.argv[1])")
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(code), str(tmp_path)], cwd=ROOT,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "GiB" in r.stdout, r.stdout
