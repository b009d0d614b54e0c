"""Every command that runs a user's code takes ``--timeout``: ``lesson check`` (with the window's
default when none is given), ``bench --file`` and ``compile --file``. A file that hangs as it is
imported ends at the timeout with one error line and exit 1, and leaves no process behind.

If these fail: ``tilescope lesson check`` on a learner's file that never returns hangs the
terminal for good (no --timeout: "unrecognized arguments").
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from app.cli.lesson import DEFAULT_LESSON_TIMEOUT_S

ROOT = Path(__file__).resolve().parents[2]
HANG = "import time\ntime.sleep(600)\n"


def _cli(*argv: str) -> subprocess.CompletedProcess:
    # the deadline only guards the test itself: the command must end at its own --timeout
    return subprocess.run([sys.executable, "-m", "app", *argv], cwd=ROOT, capture_output=True, text=True, timeout=280)


@pytest.mark.parametrize("verb", ["lesson", "bench", "compile"])
def test_a_file_that_hangs_at_import_ends_at_the_timeout(tmp_path, verb):
    f = tmp_path / "hangs.py"
    f.write_text(HANG)
    argv = {"lesson": ["lesson", "check", "masks", str(f)],
            "bench": ["bench", "--file", str(f), "-b", "interpreter"],
            "compile": ["compile", "--file", str(f)]}[verb]
    r = _cli(*argv, "--timeout", "3")
    err = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert r.returncode == 1, (r.returncode, r.stderr[-2000:])  # was: 2, "unrecognized arguments: --timeout"
    assert len(err) == 1 and err[0].startswith("error:") and "3 s" in err[0], err


def test_lesson_check_has_a_timeout_when_none_is_given():
    import argparse

    from app.cli import lesson

    parser = argparse.ArgumentParser()
    lesson.add_parser(parser.add_subparsers())
    args = parser.parse_args(["lesson", "check", "masks", "x.py"])
    assert args.timeout is None and 0 < DEFAULT_LESSON_TIMEOUT_S <= 600  # None: the default is used
