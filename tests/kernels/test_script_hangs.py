"""A plain script that hangs or asks for too much is stopped or refused, keeping what it made:
a wrapper blocked in ``time.sleep`` ends at the budget (time outside kernels counts) with its
launch kept; a launch of 2³¹−1 programs on a 1,024-element tensor is refused before it is made,
its size named; a script that deletes itself as it starts is still opened.

If these fail: ``tilescope open --budget 10`` on a script that sleeps waits for the 300-s timeout
and loses the launch already captured; a huge grid takes gigabytes and minutes and then says
the script "launched no Triton kernel"; a self-deleting script fails under ``open`` with "@jit
functions should be defined in a Python file".
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("triton")

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = Path(__file__).parent / "scripts" / "hangs"

_OPEN = """
    import json, sys, time
    from kernels.script import open_script
    t0 = time.monotonic()
    cap, specs = open_script(sys.argv[1], "interpreter", budget_s=float(sys.argv[2]))
    print(json.dumps({"stopped": cap.stopped, "error": cap.error, "kernels": [l.kernel for l in cap.launches],
                      "grids": [list(l.grid) for l in cap.launches], "s": time.monotonic() - t0}))
"""


def _open(path: Path, budget_s: float) -> dict:
    import json

    # the old capture slept 300 s per call of the wrapper: far past this deadline
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(_OPEN), str(path), str(budget_s)], cwd=ROOT,
                       capture_output=True, text=True, timeout=280)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_a_wrapper_asleep_after_its_launch_ends_at_the_budget_with_the_launch_kept():
    out = _open(SCRIPTS / "sleeps_after_launch.py", 3)
    assert out["kernels"] == ["add_one_kernel"], out  # the launch made before the sleep is kept
    assert "stopped after 3 s" in out["stopped"], out


def test_a_launch_of_two_billion_programs_is_refused_before_it_is_made_with_its_size():
    out = _open(SCRIPTS / "huge_grid.py", 30)
    assert out["kernels"] == ["touch_kernel"] and out["grids"] == [[8]], out  # the first launch is kept
    assert "2,147,483,647 programs" in out["stopped"] and "1,024 elements" in out["stopped"], out
    assert "refused" in out["stopped"], out


def test_a_script_that_deletes_itself_as_it_starts_is_opened(tmp_path):
    src = (SCRIPTS.parent / "tuple_grid_positional.py").read_text()
    path = tmp_path / "gone.py"
    path.write_text("import os\nos.remove(__file__)\n" + src)
    out = _open(path, 30)
    assert not path.exists()
    assert out["error"] == "" and out["kernels"] == ["scale_kernel"], out  # was: "@jit functions should be defined in a Python file"
