"""The two lessons inside a program: "num_warps and the layout" and "coalescing".

The expected numbers are worked out here by hand from the lessons' sizes (a 1-D fp32 block of
1024 loaded as 128-bit vectors; a 128 x 128 fp32 matrix walked by column or by row), not taken
from the layout engine the checks use. What breaks if these fail: a learner's right prediction is
refused (or a wrong one accepted), or a column walk passes the sector budget."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from kernels.lessons import check_lesson, solution_path, solution_text, write_starter


def _variant(tmp_path: Path, name: str, old: str, new: str) -> Path:
    src = solution_text(name)
    assert old in src, old
    p = tmp_path / f"{name}_variant.py"
    p.write_text(src.replace(old, new), encoding="utf-8")
    return p


def test_which_warp_is_held_against_the_compiled_layout_at_each_num_warps(tmp_path):
    # the starter's guess, contiguous chunks of BLOCK_SIZE / num_warps, against the real layout:
    # 32 lanes x 4 elements = 128 consecutive elements per warp, then the next warp, wrapping
    i = np.arange(1024)
    wrong = {w: int(np.count_nonzero(i // (1024 // w) != (i // 128) % w)) for w in (2, 4, 8)}
    assert wrong == {2: 512, 4: 768, 8: 0}  # at 8 warps the layout covers the block once: the guess holds
    r = check_lesson("num_warps", write_starter("num_warps", tmp_path))
    assert not r.passed and r.stage == "lesson"
    assert r.figures["wrong_by_num_warps"] == wrong
    assert ("which_warp(i, 2) disagrees with the layout for 512 of 1024 elements: at num_warps=2 element 128 of "
            "the block is held by warp 1 (lane 0, register 0), but which_warp(128, 2) returned 0") in r.message
    assert "size_per_thread=[4]" in r.figures["layouts"][4]
    ok = check_lesson("num_warps", _variant(tmp_path, "num_warps", "return (i // (32 * 4)) % num_warps",
                                            "return (i % 1024) // 128 % num_warps"))
    assert ok.passed, ok.details
    assert "matches the compiled layout for all 1024 elements at num_warps 2, 4, 8" in ok.message


def test_a_column_walk_is_over_the_sector_budget_and_a_row_walk_within_it(tmp_path):
    # column walk: lane k reads x[k, p], 128 * 4 = 512 bytes after lane k - 1: each of a warp's
    # 32 lanes in its own 32-byte sector; 128 programs x 4 warps = 512 requests per access
    r = check_lesson("coalescing", write_starter("coalescing", tmp_path))
    assert not r.passed and r.stage == "lesson"
    rows = {a["op"]: a for a in r.figures["accesses"]}
    assert rows["load"]["requests"] == rows["store"]["requests"] == 512
    assert rows["load"]["sectors_per_request"] == 32.0 and rows["load"]["ideal_per_request"] == 4.0
    assert rows["load"]["wasted_bytes"] == 512 * 32 * 32 - 128 * 128 * 4
    line = 1 + solution_text("coalescing").splitlines().index("    x = tl.load(x_ptr + offsets)")
    assert r.message.startswith(f"tl.load of x_ptr (line {line}) touches 32.0 sectors per request (ideal 4.0")
    # the row walk with one warp: each lane a 128-bit vector of 4 float32, so one request is a
    # warp's 512 neighbouring bytes = 16 sectors, and that is the budget for 128-bit reads
    wide = check_lesson("coalescing", _variant(tmp_path, "coalescing", "num_warps=4", "num_warps=1"))
    assert wide.passed, wide.details
    assert {(a["requests"], a["sectors_per_request"], a["budget"]) for a in wide.figures["accesses"]} == {
        (128, 16.0, 16.0)}  # 128 programs x 1 warp x 1 instruction (128 elements = 32 lanes x 4)
    # the row walk: 32 neighbouring float32 = 128 bytes = 4 sectors a request
    ok = check_lesson("coalescing", solution_path("coalescing"))
    assert ok.passed, ok.details
    assert {(a["sectors_per_request"], a["budget"]) for a in ok.figures["accesses"]} == {(4.0, 4.0)}
    zh = check_lesson("coalescing", write_starter("coalescing", tmp_path), lang="zh_CN")
    assert "每个请求触及 32.0 个扇区" in zh.message
