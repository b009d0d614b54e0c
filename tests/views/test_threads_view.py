"""The Threads view: each element drawn in the colour of the warp the data says holds it, the
text under the pointer, the legend's counts, and a num_warps change followed.

What breaks if these fail: the view paints an element in another warp's colour than the layout
gives (a learner reads the wrong thread off the picture), the pointer names the wrong lane or
register, the legend miscounts a warp's elements, or changing num_warps leaves the old picture."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPoint

from kernels.data.layout import AccessLayout, Coalescing, LayoutInfo, LayoutResult, ThreadMap
from views.threads_view import ThreadsView
from views.threads_view.demo import blocked_map
from views.threads_view.palette import cell_rgba

W, H = 1366, 768


def _result(tm: ThreadMap, *, num_warps: int, vector_bits: int = 32, coalescing: Coalescing | None = None,
            line: int = 12) -> LayoutResult:
    a = AccessLayout(0, "load", "tt.load", LayoutInfo("linear"), tm.shape, "float32", line=line, tensor="x",
                     threads=tm, vector_bits=vector_bits, coalescing=coalescing)
    return LayoutResult("t", "sm_90", num_warps, [a])


def _scrambled(shape: tuple[int, ...], n_warps: int, seed: int = 0) -> ThreadMap:
    """Every element in a random (warp, lane, register): a mapping no formula in the view could guess."""
    n = int(np.prod(shape))
    n_regs = n // (n_warps * 32)
    perm = np.random.default_rng(seed).permutation(n)
    return ThreadMap(shape, perm.reshape(n_warps, 32, n_regs))


def _pixel(view: ThreadsView, row: int, col: int) -> tuple[int, int, int]:
    """The colour drawn near the top-left corner of cell (row, col) (clear of the label text)."""
    img = view.canvas.grab().toImage()
    cw, ch = view.canvas.cell_size_px()
    centre = view.canvas.cell_centre_in_widget(row, col)
    p = QPoint(int(centre.x() - cw / 2 + max(1.0, cw * 0.15)), int(centre.y() - ch / 2 + max(1.0, ch * 0.15)))
    c = img.pixelColor(p)
    return c.red(), c.green(), c.blue()


def _expected(tm: ThreadMap, flat: int) -> tuple[int, int, int]:
    w, ln = tm.warp.reshape(-1)[flat], tm.lane.reshape(-1)[flat]
    return tuple(int(v) for v in cell_rgba(np.array([[w]]), np.array([[ln]]))[0, 0, :3])


def _close(a, b, tol: int = 6) -> bool:
    return all(abs(x - y) <= tol for x, y in zip(a, b, strict=True))


def test_each_element_is_drawn_in_the_colour_of_the_warp_the_data_says_holds_it(qtbot, on_screen):
    tm = _scrambled((16, 32), n_warps=4)
    view = on_screen(ThreadsView(), W, H, exposed=True)
    view.set_result(_result(tm, num_warps=4))
    qtbot.wait(50)
    rng = np.random.default_rng(1)
    for flat in rng.choice(tm.warp.size, 40, replace=False):
        r, c = divmod(int(flat), 32)
        assert _close(_pixel(view, r, c), _expected(tm, int(flat))), (flat, tm.warp.reshape(-1)[flat])


def test_pointing_at_an_element_names_its_warp_lane_and_register(qtbot, on_screen):
    tm = blocked_map((1024,), [4], [32], [4], [0])
    # instruction sectors of program 3: 2 instructions per warp (registers 0-3, 4-7), all ideal but one
    per = np.full(8, 4, np.int32)
    per[5] = 9
    co = Coalescing(requests=8, sectors=37, ideal_sectors=32, bytes_used=4096, n_programs=1, sample_program=3,
                    per_instruction_sectors=per, per_instruction_ideal=np.full(8, 4, np.int32))
    view = on_screen(ThreadsView(), W, H, exposed=True)
    view.set_result(_result(tm, num_warps=4, vector_bits=128, coalescing=co))
    # element 661 = 512 + 128 + 21: warp 1's second instruction (registers 4-7), lane 5, register 5
    r, c = view.tile.cell_of(661)
    qtbot.mouseMove(view.canvas.viewport(), view.canvas.cell_centre_in_widget(r, c))
    qtbot.waitUntil(lambda: "element [661]" in view.hover.text())
    text = view.hover.text()
    assert "warp 1, lane 5, register 5" in text
    assert "instruction 3 of program 3: 4 sectors" in text  # warp 1's second instruction
    assert "sectors/request 4.6 (ideal 4.0)" in view.coalescing.text()
    assert "128-bit vectors: 4 × float32" in view.vector.text()


def test_the_legend_counts_the_elements_each_warp_holds(qtbot, on_screen):
    # 8 warps over 1024 elements: 128 each
    view = on_screen(ThreadsView(), W, H)
    view.set_result(_result(blocked_map((1024,), [4], [32], [8], [0]), num_warps=8))
    legend = view.legend_words()
    assert all(f"warp {w} (128)" in legend for w in range(8)) and "warp 8" not in legend
    # a broadcast layout: warps 2 and 3 hold copies of warps 0 and 1's elements (128 elements,
    # 4 warps x 32 lanes x 2 registers): the drawn colour (first holder) counts 64 for warps 0, 1
    first = np.arange(128).reshape(2, 32, 2)
    element_of = np.concatenate([first, first], axis=0)  # warps 2, 3 hold what warps 0, 1 hold
    tm = ThreadMap((128,), element_of)
    view.set_result(_result(tm, num_warps=4))
    legend = view.legend_words()
    assert "warp 0 (64)" in legend and "warp 1 (64)" in legend
    assert "warp 2 (0)" in legend and "warp 3 (0)" in legend
    assert "held by 2 threads" in view.text_for(5)


@pytest.mark.parametrize("before,after", [(4, 8), (8, 2)])
def test_the_view_follows_a_num_warps_change(qtbot, on_screen, before, after):
    view = on_screen(ThreadsView(), W, H, exposed=True)
    maps = {nw: blocked_map((1024,), [4], [32], [nw], [0]) for nw in (before, after)}
    view.set_result(_result(maps[before], num_warps=before))
    qtbot.wait(50)
    flat = 640  # warp 640 // 128 % num_warps: 1 at 4 warps, 5 at 8, 1 at 2
    r, c = view.tile.cell_of(flat)
    assert _close(_pixel(view, r, c), _expected(maps[before], flat))
    view.set_result(_result(maps[after], num_warps=after))
    qtbot.wait(50)
    assert _close(_pixel(view, r, c), _expected(maps[after], flat))
    assert not _close(_expected(maps[before], flat), _expected(maps[after], flat))
    assert f"warp {after - 1} (" in view.legend_words() and f"warp {after} (" not in view.legend_words()
    assert f"{after} warps" in view.vector.text()


def test_a_shared_operand_is_drawn_by_the_bank_of_each_elements_offset(qtbot, on_screen):
    # a 4 x 64 fp16 buffer swizzled by hand: row r XORs its 16-byte groups (8 elements) with r, so
    # element [1, 0] sits at offset 64 + 8 (byte 144: bank 4) and [1, 8] at offset 64 (bank 0)
    r, c = np.indices((4, 64))
    offsets = r * 64 + (((c // 8) ^ r) * 8 + c % 8)
    a = AccessLayout(0, "dot_b", "ttng.warp_group_dot", LayoutInfo("nvmma_shared", {"swizzle_bytes": 128}),
                     (4, 64), "float16", line=62, shared_offsets=offsets)
    view = on_screen(ThreadsView(), W, H, exposed=True)
    view.set_result(LayoutResult("t", "sm_90", 4, [a]))
    assert "bank 4," in view.text_for(64) and "shared offset 72 (byte 144)" in view.text_for(64)
    assert "bank 0," in view.text_for(72) and "shared offset 64 (byte 128)" in view.text_for(72)
    qtbot.wait(50)
    # [1, 0] (bank 4: group 1) and [1, 8] (bank 0: group 0) in those groups' colours
    for flat, bank in ((64, 4), (72, 0)):
        rr, cc = view.tile.cell_of(flat)
        want = tuple(int(v) for v in cell_rgba(np.array([[bank // 4]]), np.array([[bank]]))[0, 0, :3])
        assert _close(_pixel(view, rr, cc), want), flat
    assert "banks 0–3 (32)" in view.legend_words()  # 256 elements, 32 per 16-byte group of banks


def test_the_program_box_ranges_over_the_launch_and_asks_for_another_program(qtbot, on_screen):
    view = on_screen(ThreadsView(), W, H)
    res = _result(blocked_map((1024,), [4], [32], [4], [0]), num_warps=4)
    res.grid, res.n_programs = (6, 1, 1), 1
    view.set_result(res)
    assert view.program.maximum() == 5
    with qtbot.waitSignal(view.programChanged) as sig:
        view.program.setValue(3)
    assert sig.args == [3]
    failed = LayoutResult("t", "sm_90", 0, [], error=type("E", (), {"message": "CompileError: boom"})())
    view.set_result(failed)
    assert "could not be read: CompileError: boom" in view.header.text() and view.tile is None


def test_the_pointer_names_an_elements_byte_and_sector_and_masked_elements_are_faded(qtbot, on_screen):
    # program 3 of a 1000-element copy in blocks of 256: element i at byte (768 + i) * 4 of x,
    # elements 232.. past the end (masked off)
    tm = blocked_map((256,), [1], [32], [2], [0])
    i = np.arange(256)
    offsets = np.where(768 + i < 1000, (768 + i) * 4, -1)
    co = Coalescing(requests=8, sectors=29, ideal_sectors=29, bytes_used=928, n_programs=1, sample_program=3,
                    sample_offsets=offsets)
    view = on_screen(ThreadsView(), W, H, exposed=True)
    view.set_result(_result(tm, num_warps=2, coalescing=co))
    assert "byte 3080 of x, sector 96 (bytes 8–11 of it)" in view.text_for(2)  # (768 + 2) * 4 = 3080
    assert "masked off in program 3" in view.text_for(240)
    assert "faded: 24 elements masked off in program 3" in view.legend_words()
    qtbot.wait(50)
    r, c = view.tile.cell_of(240)
    faded = tuple(int(v) for v in cell_rgba(np.array([[tm.warp[240]]]), np.array([[tm.lane[240]]]),
                                            np.array([[True]]))[0, 0, :3])
    assert _close(_pixel(view, r, c), faded) and not _close(faded, _expected(tm, 240))
