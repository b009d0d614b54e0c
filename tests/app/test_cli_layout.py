"""``tilescope layout``: the table of accesses, a line's thread map, JSON and PNG.

What breaks if these fail: the command prints numbers that are not the engine's (or none), a
``--line`` with no access is not refused, or the PNG is not written."""

from __future__ import annotations

import json

import numpy as np

from app.cli import main


def test_layout_table_names_each_access_with_its_sectors(capsys):
    assert main(["layout", "vector_add", "-s", "N=4096", "--target", "sm_90"]) == 0
    out = capsys.readouterr().out
    assert "vector_add compiled for sm_90" in out and "4 warps x 32 lanes" in out
    assert "coalescing over 4 of 4 programs" in out
    # 4 programs x 4 warps x 2 vector loads, 16 sectors each: x, y and the store alike
    assert out.count("32 req  512 sect  16.0/req") == 3
    assert "blocked spt=[4] tpw=[32] wpc=[4] order=[0]" in out


def test_layout_line_prints_the_thread_map_and_json_has_the_arrays(capsys):
    assert main(["layout", "vector_add", "-s", "N=4096", "--line", "24", "--num-warps", "2", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    (load,) = data["accesses"]
    assert load["line"] == 24 and load["op"] == "load" and load["vector_bits"] == 128
    i = np.arange(1024)
    # 2 warps: 32 lanes x 4 elements = 128 per warp, the two warps alternate every 128 elements
    assert load["warp"] == ((i // 128) % 2).tolist()
    assert load["coalescing"]["sectors_per_request"] == 16.0
    assert main(["layout", "vector_add", "-s", "N=4096", "--line", "24", "--no-coalescing"]) == 0
    out = capsys.readouterr().out
    assert "element -> warp:lane (register)" in out and "0: 1(0)" in out


def test_layout_refuses_a_line_without_access_and_writes_a_png(capsys, tmp_path):
    assert main(["layout", "vector_add", "--line", "3", "--no-coalescing"]) == 2
    assert "no access of vector_add there" in capsys.readouterr().err
    png = tmp_path / "threads.png"
    assert main(["layout", "vector_add", "--line", "24", "--no-coalescing", "--png", str(png)]) == 0
    from PIL import Image

    img = np.asarray(Image.open(png).convert("RGB"))
    assert img.shape[0] > 100 and img.shape[1] >= 640
    # four warp colours in the picture (4 warps hold the 1024 elements)
    from kernels.layout.render import WARP_COLOURS

    present = {tuple(c) for c in WARP_COLOURS[:4] if np.all(img == c, axis=2).any()}
    assert len(present) == 4


def test_layout_of_a_plain_script_runs_in_the_worker(capsys):
    # a user's script is never imported in the command's process: the layout request goes to the
    # worker (the request table's "layout" row), which captures the launch and answers the same table
    from pathlib import Path

    script = Path(__file__).resolve().parents[1] / "kernels" / "scripts" / "matmul_2d.py"
    assert main(["layout", "--file", str(script), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    ops = [a["op"] for a in data["accesses"]]
    assert "accumulator" in ops and "store" in ops
    store = next(a for a in data["accesses"] if a["op"] == "store")
    assert store["coalescing"]["requests"] > 0 and store["coalescing"]["sectors"] >= store["coalescing"]["requests"]
