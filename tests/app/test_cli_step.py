"""``tilescope trace --step K`` and the window's loop slider count steps alike, from 1: the
window's "step K of n" and the CLI's ``--step K`` draw the same iteration, and the PNG's title
says "step K of n" too."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

import kernels.catalog  # noqa: F401  (registers the bundled kernels)
from app.cli import main
from kernels.specs.spec import REGISTRY
from kernels.trace import trace_spec
from kernels.trace.render import loop_steps, render

pytest.importorskip("PySide6.QtWidgets")

from fixtures.matmul_trace import MM, MM_VALUES  # noqa: E402

from views.grid_view.text import loop_label  # noqa: E402


@pytest.fixture(scope="module")
def mm():
    return trace_spec(REGISTRY.get("matmul"), MM_VALUES)


@pytest.mark.parametrize("k", [1, 4])
def test_cli_step_k_draws_what_the_window_calls_step_k_of_n(mm, tmp_path, capsys, k):
    # breaks if the CLI counts from 0 while the window says "step 1 of 4" (--step 4, the window's
    # last step, was refused as out of range, and --step 1 drew the window's step 2)
    n = loop_steps(mm)
    assert n == 4
    png = tmp_path / f"step{k}.png"
    assert main([*MM, "--png", str(png), "--step", str(k)]) == 0
    capsys.readouterr()
    slider_index = k - 1  # the window's slider position whose label reads "step k of n"
    assert loop_label(mm, [n], 0, slider_index, n).startswith(f"step {k} of {n}")
    same = render(mm, step=slider_index)
    assert np.array_equal(np.asarray(Image.open(png).convert("RGB")), np.asarray(same.convert("RGB")))
    title = " ".join(t for _, _, t in same.info["text_lines"][:6])
    assert f"step {k} of {n} in the loop at line" in title
