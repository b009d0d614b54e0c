"""``--export triton_op`` stands alone: the module carries the kernel's source, its launcher, the
grid and the config, and runs where Tilescope is not installed.

Each module is written outside the checkout and imported by a fresh interpreter started with
``-S -s`` (no site: Tilescope's editable install, a ``.pth`` finder, is never loaded) whose
``sys.path`` holds the module's folder and torch's and Triton's site-packages only; that process
first checks that ``kernels`` cannot be imported, then calls the op on shapes the sweep never ran
and compares with torch. If this fails, a tuned kernel pasted into a user's project breaks there.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch

from kernels import engine
from kernels.data.results import SweepRequest

ROOT = Path(__file__).resolve().parents[2]
SITE = str(Path(torch.__file__).resolve().parents[1])  # the site-packages holding torch and triton


def _sweep(kernel: str, base: dict, axes: dict):
    res = engine.sweep(SweepRequest(kernel, base, axes, backend="interpreter", mode="tune", torch_baseline=False,
                                    remeasure_rounds=1))
    assert res.error is None and res.best is not None, res.error
    return res


CASES = {
    "matmul": (({"M": 32, "N": 48, "K": 32, "dtype": "fp32"}, {"BLOCK_M": [16, 32], "BLOCK_N": [16]}),
               "a, b = torch.randn(40, 24), torch.randn(24, 56)\n"
               "torch.testing.assert_close(mod.matmul(a, b), a @ b, atol=1e-4, rtol=1e-4)"),
    "vector_add": (({"N": 300}, {"BLOCK_SIZE": [32, 128]}),
                   "x, y = torch.randn(777), torch.randn(777)\n"
                   "torch.testing.assert_close(mod.vector_add(x, y), x + y)"),
    "softmax": (({"M": 8, "N": 100}, {"BLOCK_SIZE": [128, 256]}),
                "x = torch.randn(5, 100)\n"
                "torch.testing.assert_close(mod.softmax(x), torch.softmax(x, dim=1), atol=1e-5, rtol=1e-5)"),
}


@pytest.mark.parametrize("kernel", sorted(CASES))
def test_the_triton_op_export_runs_without_tilescope(kernel, tmp_path):
    (base, axes), check = CASES[kernel]
    res = _sweep(kernel, base, axes)
    text = res.exports["triton_op"]
    assert "needs torch and\nTriton only" in text and "sys.path.insert" not in text
    assert "from kernels" not in text.split("def _self_check")[0].replace("from kernels.run.backends", "")
    folder = tmp_path / "user_project"
    folder.mkdir()
    (folder / f"tuned_{kernel}.py").write_text(text)
    driver = textwrap.dedent(f"""
        import importlib.util, sys
        keep = [p for p in sys.path if p and "site-packages" not in p and not p.startswith({str(ROOT)!r})]
        sys.path[:] = [*keep, {str(folder)!r}, {SITE!r}]  # the standard library, the module, torch and triton
        assert importlib.util.find_spec("kernels") is None, "Tilescope is importable here"
        import torch
        import tuned_{kernel} as mod
    """) + check + textwrap.dedent("""
        leaked = sorted(m for m in sys.modules if m.split('.')[0] in ('kernels', 'app', 'views'))
        assert not leaked, leaked
        print('ok', mod.CONFIG)
    """)
    r = subprocess.run([sys.executable, "-S", "-s", "-c", driver], cwd=folder, capture_output=True, text=True,
                       timeout=600, env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert r.returncode == 0 and r.stdout.startswith("ok "), r.stderr[-3000:]
    winner = res.points[res.best].values
    assert all(f"'{k}': {v!r}" in r.stdout for k, v in winner.items()), (r.stdout, winner)
