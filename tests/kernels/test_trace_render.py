"""The trace PNG: one K step of matmul alone, text that fits the image, program ids on tiles.

The matmul maps a step should show are worked out here from the block formulas (K step k reads
A's columns and B's rows k*BLOCK_K .. (k+1)*BLOCK_K-1), never from the renderer's own helpers.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from fixtures.matmul_trace import MM, MM_VALUES
from PIL import Image, ImageFont

import kernels.catalog  # noqa: F401  (registers the bundled kernels)
from app.cli import main
from kernels.specs.spec import REGISTRY
from kernels.trace import trace_spec
from kernels.trace.render import PALETTE, render, step_trace


@pytest.fixture(scope="module")
def mm():
    return trace_spec(REGISTRY.get("matmul"), MM_VALUES)


def _pixels(path) -> np.ndarray:
    return np.asarray(Image.open(path).convert("RGB"))


def test_cli_step_draws_that_k_step_only(tmp_path, capsys):
    # breaks if --step is ignored (the same picture as all steps) or not named in the picture
    every, one = tmp_path / "all.png", tmp_path / "step1.png"
    assert main([*MM, "--png", str(every)]) == 0
    assert main([*MM, "--png", str(one), "--step", "1"]) == 0
    capsys.readouterr()
    a, b = _pixels(every), _pixels(one)
    assert a.shape != b.shape or np.count_nonzero((a != b).any(axis=2)) > 10_000


def test_a_step_holds_the_tiles_of_that_k_step(mm):
    # breaks if the step's maps keep accesses of other steps, or of the store after the loop
    st = step_trace(mm, 1)
    read_a = st.maps_of("a_ptr").n_reads > 0
    read_b = st.maps_of("b_ptr").n_reads > 0
    cols = np.zeros((64, 64), bool)
    cols[:, 16:32] = True
    assert np.array_equal(read_a, cols) and np.array_equal(read_b, cols.T)
    assert not (st.maps_of("c_ptr").n_writes > 0).any()  # C is stored after the loop
    assert (st.maps_of("a_ptr").n_readers[:, 16:32] == 4).all()  # 4 column tiles of C share each A tile
    img = render(mm, step=1)
    title = " ".join(t for _, _, t in img.info["text_lines"][:6])
    assert "step 2 of 4 in the loop at line" in title  # counted from 1, as the window says it


def test_every_text_line_fits_inside_the_image_and_no_value_is_cut(mm):
    # breaks if the values line runs off the image or is cut short ("values: …" lost its tail)
    extra = {f"A_LONG_PARAMETER_NAME_{i}": 2 ** i for i in range(24)}
    long_word = "/very/long/path/" + "x" * 400 + ".py"
    tr = dataclasses.replace(mm, values={**mm.values, **extra, "file": long_word})
    img = render(tr)
    font, width, pad = ImageFont.load_default(), img.width, 10
    lines = img.info["text_lines"]
    for x, _, text in lines:
        assert x + font.getlength(text) <= width - pad, (text, width)
    joined = "".join(t.strip() for _, _, t in lines)
    for k, v in extra.items():
        assert f"{k}={v}" in joined, k
    assert "x" * 400 + ".py" in joined  # the long word is cut across lines, not dropped
    px = np.asarray(img.convert("RGB"))
    assert (px[:, -(pad - 1):] == 255).all()  # nothing drawn in the right margin


def test_program_ids_are_written_on_grid_cells_and_on_the_tiles_they_wrote(mm):
    # breaks if the PNG has no pid labels, or puts one on a tile another program wrote
    img = render(mm)
    labels = img.info["pid_labels"]
    assert sorted(p for p, _, _ in labels) == sorted(list(range(16)) * 2)  # the grid, then C's 16 tiles
    px = np.asarray(img.convert("RGB"))
    c_top = max(y for _, _, y in labels[:16]) + 30  # the tiles' labels come after the grid's
    writer = mm.maps_of("c_ptr").writer
    for pid, x, y in labels[16:]:
        assert y > c_top
        colour = PALETTE[pid % len(PALETTE)]
        patch = px[int(y) - 4: int(y) + 5, int(x) - 6: int(x) + 7]
        assert (patch == colour).all(axis=2).sum() > 20  # the label sits on its own program's colour
        assert (patch != colour).any(axis=2).sum() > 5  # and its digits are drawn there
    assert sorted({int(w) for w in writer.ravel()}) == list(range(16))


@pytest.mark.parametrize(("argv", "words"), [
    ([*MM, "--step", "5"], ("--step 5 is out of range: the loop at line", "(for k in range(", "ran steps 1..4")),
    ([*MM, "--step", "0"], ("--step 0: give a step from 1",)),
    (["trace", "vector_add", "-s", "N=256", "--step", "1"], ("vector_add has no loop to step through",)),
    ([*MM, "--step", "1"], ("with --png PATH",)),
])
def test_a_step_it_cannot_draw_is_one_clear_line(tmp_path, capsys, argv, words):
    # breaks if a bad step draws something anyway, raises a traceback, or says it in many lines
    if "--png" not in argv and words != ("with --png PATH",):
        argv = [*argv, "--png", str(tmp_path / "x.png")]
    rc = main(argv)
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and err[0].startswith("error: ") and all(w in err[0] for w in words), err
    assert not (tmp_path / "x.png").exists()
