"""The trace PNG at real sizes: `tilescope trace vector_add --shape N=4194304 --png` shows the
programs in launch order, never two aliased halves; small launches keep a colour per program."""

from __future__ import annotations

import numpy as np
import pytest

from kernels.specs.spec import REGISTRY
from kernels.trace import trace_spec
from kernels.trace.render import PALETTE, colouring, launch_order_rgb, render

MM_VALUES = {"M": 64, "N": 64, "K": 64, "BLOCK_M": 16, "BLOCK_N": 16, "BLOCK_K": 16, "dtype": "fp16"}


@pytest.fixture(scope="module")
def mm():
    return trace_spec(REGISTRY.get("matmul"), MM_VALUES)


def _ranks(pixels: np.ndarray, n: int) -> np.ndarray:
    """Where on the launch-order ramp of ``n`` programs each pixel's colour sits."""
    ramp = launch_order_rgb(np.arange(n), n).astype(np.int32)
    flat = pixels.reshape(-1, 3).astype(np.int32)
    d = np.abs(flat[:, None, :] - ramp[None, :, :]).sum(axis=2)
    return d.argmin(axis=1).reshape(pixels.shape[:2])


def test_a_2_22_vector_add_png_shows_programs_in_order():
    # breaks if the 4096 programs were drawn in 20 cycling colours sampled every k-th element:
    # the output came out as two solid halves, as if two programs wrote everything (what
    # `tilescope trace vector_add --shape N=4194304 --png` drew; the CLI calls this render)
    tr = trace_spec(REGISTRY.get("vector_add"), {"N": 4194304})
    im = render(tr)
    assert im.info["colouring"] == "launch order"
    assert any("colour = launch order" in t for _, _, t in im.info["text_lines"])  # said in the picture
    name, x, y, w, h = next(t for t in im.info["tiles"] if t[0] == "out_ptr")
    tile = np.asarray(im.convert("RGB"))[y: y + h, x: x + w]
    ranks = _ranks(tile[::6, ::6], 4096)
    rows = np.median(ranks, axis=1)
    assert rows[0] < 100 and rows[-1] > 3900, (rows[0], rows[-1])  # first programs on top, last at the bottom
    assert (np.diff(rows) >= -16).all(), "launch order runs top to bottom"
    half = ranks.shape[1] // 2
    left, right = np.median(ranks[:, :half], axis=1), np.median(ranks[:, half:], axis=1)
    assert np.abs(left - right).max() <= 32, "the two halves of a row belong to neighbouring programs"


def test_small_launches_keep_a_colour_per_program(mm):
    # breaks if a 16-program matmul lost its per-program colours (and its readable ids) to the ramp
    assert colouring(mm, 480) == ("program", "")
    im = render(mm)
    assert im.info["colouring"] == "program"
    name, x, y, w, h = next(t for t in im.info["tiles"] if t[0] == "c_ptr")
    c = np.asarray(im.convert("RGB"))[y: y + h, x: x + w]
    colours = {tuple(v) for v in c.reshape(-1, 3).tolist()}
    assert sum(tuple(int(v) for v in p) in colours for p in PALETTE) >= 8


def test_shared_reads_show_their_first_readers_place_in_the_launch(mm):
    # breaks if, once the ramp is chosen, matmul's B (read by every row of programs) were one flat
    # colour: each column band of B is first read by a different program of the first group
    im = render(mm, max_side=40)  # 64x64 tensors in 40 px: a pixel holds 4 elements -> the ramp
    assert im.info["colouring"] == "launch order"
    name, x, y, w, h = next(t for t in im.info["tiles"] if t[0] == "b_ptr")
    b = np.asarray(im.convert("RGB"))[y: y + h, x: x + w].astype(int)
    assert np.abs(b[h // 2, 0] - b[h // 2, -1]).sum() > 30, "B's first and last column bands look alike"
