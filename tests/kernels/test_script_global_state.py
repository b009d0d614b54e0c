"""A plain script that changes torch's or Python's global state as it runs (the default device
to CUDA, the default dtype, grad mode, an environment variable, the working folder) does not
poison the worker: after it is opened, the catalog's runs work as before, and the note says what
was put back.

If this fails: after opening such a script, every catalog run fails ("Torch not compiled with
CUDA enabled") until the app is restarted.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("triton")

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = Path(__file__).parent / "scripts" / "global_state" / "sets_globals.py"

_CODE = """
    import json, os, sys
    import torch
    from kernels import engine
    from kernels.data.results import RunRequest
    from kernels.script import open_script
    cwd = os.getcwd()
    cap, specs = open_script(sys.argv[1], "interpreter")
    r = engine.run(RunRequest("vector_add", {"N": 1000, "BLOCK_SIZE": 256}, backend="interpreter"))
    s = engine.run(RunRequest(specs[0].name, {}, backend="interpreter")) if specs else None
    print(json.dumps({
        "error": cap.error, "notes": cap.notes, "launches": len(cap.launches),
        "run": None if r.error is None else r.error.message, "passed": bool(r.check and r.check.passed),
        "script_run": None if s is None or s.error is None else s.error.message,
        "device": str(torch.get_default_device()), "dtype": str(torch.get_default_dtype()),
        "grad": torch.is_grad_enabled(), "interpret": os.environ.get("TRITON_INTERPRET"),
        "cwd_kept": os.getcwd() == cwd}))
"""


def test_a_script_that_changes_global_state_does_not_poison_later_runs():
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(_CODE), str(SCRIPT)], cwd=ROOT, capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["launches"] == 1 and out["error"] == "", out
    assert out["run"] is None and out["passed"], out  # was: "Torch not compiled with CUDA enabled"
    assert out["script_run"] is None, out  # the script's own launch runs again too
    assert out["device"] == "cpu" and out["dtype"] == "torch.float32" and out["grad"] is True, out
    assert out["interpret"] is None and out["cwd_kept"], out
    said = " ".join(out["notes"])
    assert "default dtype" in said and "working folder" in said and "put back" in said, said
