"""The grid view's geometry: where every element is drawn, which element the mouse is on at any
zoom, where labels go, that no axis runs negative, and that neighbouring programs never share a
colour. The fold arithmetic is tested without Qt; the rest drives a GridView as a learner would.
Each test says what the learner would see go wrong if it failed."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPointF
from PySide6.QtWidgets import QApplication

from views.demo import DEMOS, demo_attention, demo_matmul, demo_vector_add, load, repeat_programs
from views.grid_view import GridView
from views.grid_view.colouring import assign_colours, image_pairs
from views.grid_view.fold import FOLD, PLAIN, WRAP_COLS, WRAP_ROWS, fit_1d, fit_2d, fit_grid
from views.grid_view.prepare import prepare_trace
from views.grid_view.regions import pick_labels


# ------------------------------------------------------------------ folds, no Qt
def test_a_long_vector_folds_into_rows_of_whole_blocks_that_fill_the_panel():
    # breaks if a 98432-element vector becomes a 12-px strip again (rows of one block in a
    # short panel), or a program's block is cut across rows
    for w, h in ((1290, 80), (640, 60), (1500, 170), (700, 300)):
        f = fit_1d(98432, 1024, w, h)
        assert f.kind == FOLD and f.cols % 1024 == 0 and f.rows * f.cols >= 98432 > (f.rows - 1) * f.cols
        block_w, block_h = w * 1024 / f.cols, h / f.rows
        assert 0.25 < block_w / block_h < 4, (w, h, f.rows, f.cols)  # a block reads as a tile
    # a short vector in a roomy panel: one block per row, every element a few pixels wide
    assert (fit_1d(1000, 256, 1290, 158).rows, fit_1d(1000, 256, 1290, 158).cols) == (4, 256)
    # a block wider than the panel: whole rows of part of a block (a block is then a band)
    f = fit_1d(65536, 32768, 400, 400)
    assert 32768 % f.cols == 0 and f.cols < 32768 and f.rows * f.cols == 65536


def test_place_and_flat_at_are_inverse_for_every_kind_of_fold():
    # breaks if the element drawn at a cell is not the one reported under the mouse there
    rng = np.random.default_rng(0)
    folds = [fit_1d(98432, 1024, 1290, 80), fit_2d((4000, 64), 128, 64, 600, 300),
             fit_2d((8, 100000), 8, 1024, 600, 300), fit_2d((256, 256), 64, 32, 400, 300)]
    assert [f.kind for f in folds] == [FOLD, WRAP_ROWS, WRAP_COLS, PLAIN]
    for f in folds:
        flat = rng.integers(0, f.numel, 500)
        r, c = f.place(flat)
        assert (r >= 0).all() and (r < f.rows).all() and (c >= 0).all() and (c < f.cols).all()
        assert [f.flat_at(int(a), int(b)) for a, b in zip(r, c, strict=True)] == flat.tolist()
        img = f.to_image(np.arange(f.numel) % 251 + 1, 0)  # every element once, padding 0
        assert img.shape == (f.rows, f.cols) and int((img > 0).sum()) == f.numel


def test_a_tall_thin_tensor_is_wrapped_to_fill_its_panel():
    # breaks if attention's Q (4000×64) is drawn as a 1-px vertical line again
    f = fit_2d((4000, 64), 128, 64, 600, 300, extra_rows=(1000,))
    assert f.kind == WRAP_ROWS and f.chunk % 128 == 0 or f.chunk == 1000
    assert 0.5 < (f.cols / f.rows) / 2.0 < 2.0  # near the panel's 2:1
    assert fit_2d((256, 256), 64, 64, 500, 300).kind == PLAIN  # a square one is only stretched


def test_the_program_grid_fills_its_band():
    gw = fit_grid(97, 1290, 120)
    rows = -(-97 // gw)
    assert 0.5 < (1290 / gw) / (120 / rows) < 2, (gw, rows)  # square-ish cells
    assert rows * gw - 97 < rows, "no row of padding only"
    assert fit_grid(4, 1290, 60) == 4  # a short grid stays one row
    assert fit_grid(16384, 0, 0) == 128  # no size known: square


# ------------------------------------------------------------------ colours, no Qt
def test_a_strip_of_sixteen_programs_has_sixteen_colours():
    # breaks if pid 0 and pid 13 share blue again (a 13-colour cycle)
    pairs = image_pairs(np.arange(16).reshape(1, 16), diagonal=True)
    colours = assign_colours(16, pairs, 20)
    assert len(set(colours.tolist())) == 16


def test_neighbouring_programs_differ_in_every_demo():
    # breaks if two programs whose cells or tiles touch are drawn in one colour
    for name, make in DEMOS.items():
        prep = prepare_trace(make())
        prep.fit((900, 200), [(900, 160)] * len(prep.panels))
        key = prep.colours()
        for z in range(1 if prep.folded_grid else prep.trace.grid[2]):
            for a, b in image_pairs(prep.grid_pids(z), diagonal=True):
                assert key[a] != key[b], (name, "grid", a, b)
        for p in prep.panels:
            for a, b in image_pairs(p.fold.to_image(p.owners(), -1)):
                assert key[a] != key[b], (name, p.info.name, a, b)


# ------------------------------------------------------------------ labels, no Qt
def test_labels_go_where_their_tile_is_big_enough():
    x0, y0 = np.array([0, 10, 20]), np.array([0, 0, 0])
    x1, y1 = np.array([10, 11, 30]), np.array([10, 10, 10])
    n = np.array([2, 2, 6])
    # 4 px per cell: tile 0 is 40×40 px (fits "12"), tile 1 4 px wide (no), tile 2 fits 6
    # characters of 5 px only when they take at most 40 - 6 px
    k, cx, cy = pick_labels(x0, y0, x1, y1, n, (0, 0, 30, 10), 4, 4, 5, 12)
    assert k.tolist() == [0, 2] and cx.tolist() == [5, 25] and cy.tolist() == [5, 5]
    k, _, _ = pick_labels(x0, y0, x1, y1, n, (0, 0, 30, 10), 1, 1, 5, 12)
    assert k.tolist() == [], "at a quarter of the zoom no tile holds its label"
    k, cx, _ = pick_labels(x0, y0, x1, y1, n, (5, 0, 30, 10), 4, 4, 5, 12)
    assert k.tolist() == [0, 2] and cx[0] == 7.5, "a tile half out of view: its label in the part shown"
    k, _, _ = pick_labels(x0, y0, x1, y1, n, (8, 0, 30, 10), 4, 4, 5, 12)
    assert k.tolist() == [2], "... and none when that part is too small for it"


# ------------------------------------------------------------------ the widget
@pytest.fixture
def view(on_screen):
    return on_screen(GridView(), 1600, 1000, exposed=True)


def _show(qtbot, view: GridView, trace) -> None:
    view.set_trace(trace)
    qtbot.wait(20)


def _scene_centre(view: GridView, tensor: str, flat: int) -> QPointF:
    """The scene point at the centre of an element's cell, through the image's own transform."""
    r, c = view.map_cell(tensor, flat)
    view._canvas.settle()
    image = view._canvas.slots[view.tensor_names().index(tensor)].image
    return image.mapToScene(QPointF(c + 0.5, r + 0.5))


def _settled(qtbot, view: GridView) -> None:
    """Wait (on conditions, not a clock: a loaded CI machine delivers a resize late) until the
    view's size has reached its maps: no resize pending, no refit waiting for one."""
    def still() -> bool:
        size = view.graphics_view().viewport().size()
        QApplication.processEvents()
        return not view._fit_timer.isActive() and view.graphics_view().viewport().size() == size

    qtbot.waitUntil(still, timeout=120_000)


def _hovered_element(qtbot, view: GridView, tensor: str, flat: int) -> str:
    """Move the mouse where ``element_pos`` says the element is; the element the view reports."""
    _settled(qtbot, view)
    pos = view.element_pos(tensor, flat)
    seen = []

    def on_hover(t: str, i: int) -> None:
        seen.append((t, i))

    view.elementHovered.connect(on_hover)
    try:
        qtbot.mouseMove(view.graphics_view().viewport(), pos)
        # generous: the hover arrives in an event-loop turn, which a loaded machine may take long to give
        qtbot.waitUntil(lambda: bool(seen), timeout=120_000)
    finally:
        view.elementHovered.disconnect(on_hover)
    assert view.element_at(pos) == (tensor, flat)
    return seen[-1]


@pytest.fixture(scope="module")
def vadd_98304():
    return repeat_programs(load("vector_add_4096"), 24)  # 768 programs of 128: N = 98304


@pytest.mark.parametrize("size", [(1600, 1000), (1366, 740)])
def test_the_mouse_reports_exactly_the_element_under_it_at_any_zoom(qtbot, view, vadd_98304, size):
    # breaks if pointing at element 40000 reports another one (37951 was reported when a
    # pixel spanned several rows), or if zooming and panning loses the exact element
    view.resize(*size)
    _show(qtbot, view, vadd_98304)
    for flat in (40000, 0, 98303, 12345):
        assert _hovered_element(qtbot, view, "out_ptr", flat) == ("out_ptr", flat)
        assert f"out_ptr[{flat}]" in view.hover_text()
    # the element under a scene point, at the default zoom, zoomed in, and panned
    slot = view._canvas.slots[view.tensor_names().index("x_ptr")]
    for step in ("default", "zoom", "pan"):
        if step == "zoom":
            slot.vb.scaleBy((0.05, 0.2), center=QPointF(*reversed(view.map_cell("x_ptr", 40000))))
        elif step == "pan":
            slot.vb.translateBy(x=3.0)
        view._canvas.settle()
        pt = _scene_centre(view, "x_ptr", 40000)
        x0, x1 = slot.vb.viewRange()[0]
        if x0 <= view.map_cell("x_ptr", 40000)[1] + 0.5 <= x1:
            assert view._canvas.hit(view._prep, 0, pt) == ("element", 0, 40000), step


def test_the_traced_98432_vector_reports_element_40000(qtbot, view):
    # the case the learner reported, on the catalog kernel's own trace (blocks of 1024)
    pytest.importorskip("triton")
    from kernels.sources.lookup import get_spec
    from kernels.trace import trace_spec

    tr = trace_spec(get_spec("vector_add"), {"N": 98432, "BLOCK_SIZE": 1024, "dtype": "fp32"}, workers=1)
    view.resize(1366, 740)
    _show(qtbot, view, tr)
    rows, cols = view.map_shape("out_ptr")
    assert cols % 1024 == 0 and rows * cols >= 98432
    assert _hovered_element(qtbot, view, "out_ptr", 40000) == ("out_ptr", 40000)
    assert "written by program 39" in view.hover_text()


def test_pid_labels_on_the_tiles_that_hold_them(qtbot, view):
    # breaks if matmul's C tiles carry no pid, or A and B tiles no reader count and band
    _show(qtbot, view, demo_matmul())  # 64³ in 16×16 tiles: C is 4×4 tiles, 16 programs
    assert sorted(int(t) for t in view.labels("c_ptr")) == list(range(16))
    assert sorted(int(t) for t in view.labels()) == list(range(16)), "every program cell has its pid"
    # grouped order (GROUP_SIZE_M=2, groups of 8 programs): A's first row of tiles is read by
    # programs 0, 2, 4, 6, its second by 1, 3, 5, 7, ...; B's first column by 0, 1, 8, 9
    assert sorted(view.labels("a_ptr")) == sorted(["×4 0–6", "×4 1–7", "×4 8–14", "×4 9–15"] * 4)
    assert sorted(view.labels("b_ptr")) == sorted(["×4 0–9", "×4 2–11", "×4 4–13", "×4 6–15"] * 4)


def test_no_label_where_the_tiles_are_too_small_until_zoomed_in(qtbot, view):
    big = demo_vector_add(64 * 4096, 128)  # 2048 blocks of 128 per tensor
    _show(qtbot, view, big)
    slot = view._canvas.slots[view.tensor_names().index("x_ptr")]
    sx, sy = slot.px_per_cell()
    shown = view.labels("x_ptr")
    # a label only on a block at least a label wide and a line tall on screen
    rows, cols = view.map_shape("x_ptr")
    block_w, block_h = 128 * sx, sy
    assert bool(shown) == (block_w >= 30 and block_h >= 14), (block_w, block_h, len(shown))
    r, c = view.map_cell("x_ptr", 1000 * 128)
    slot.vb.setRange(xRange=(c, c + 3 * 128), yRange=(r, r + 1), padding=0)
    assert "1000" in view.labels("x_ptr"), "zoomed onto block 1000: its pid is written on it"


def test_no_axis_runs_negative_for_any_demo(qtbot, view):
    # breaks if a map's axes show -2000…2000 or negative row numbers again, zoomed out or not
    for name, make in DEMOS.items():
        _show(qtbot, view, make())
        slots = [view._canvas.prog] + view._canvas.slots[: len(view.tensor_names())]
        for slot in slots:
            for action in ("as drawn", "zoom out", "pan away"):
                if action == "zoom out":
                    slot.vb.scaleBy((20, 20))
                elif action == "pan away":
                    slot.vb.translateBy(x=-1e6, y=-1e6)
                view._canvas.settle()
                (x0, x1), (y0, y1) = slot.vb.viewRange()
                rows, cols = slot.extent
                assert x0 >= -1e-6 and y0 >= -1e-6, (name, action, slot.vb.viewRange())
                assert x1 <= cols + 1e-6 and y1 <= rows + 1e-6, (name, action, slot.vb.viewRange())
                ticks = [v for _, vals in slot.top.tickValues(x0, x1, 500) for v in vals]
                assert min(ticks, default=0) >= 0, (name, action, ticks)


def test_attention_maps_are_wrapped_not_a_line(qtbot, view):
    tr = demo_attention()  # Q, K, V, Out of 1×2×64×16: 128 rows of 16
    _show(qtbot, view, tr)
    for name in ("Q", "K", "V"):
        rows, cols = view.map_shape(name)
        assert cols > 16, f"{name} drawn {rows}×{cols}: a thin line"
    assert _hovered_element(qtbot, view, "K", 77 * 16 + 5) == ("K", 77 * 16 + 5)
    assert "K[0, 1, 13, 5]" in view.hover_text()


def test_neighbouring_program_cells_differ_in_colour_on_screen(qtbot, view):
    tr = repeat_programs(load("vector_add_4096"), 3)  # 96 programs: a folded grid
    _show(qtbot, view, tr)
    layout = view.program_layout()
    colours = {pid: view.program_cell_color(pid).name() for pid in range(96)}
    for a, b in image_pairs(layout, diagonal=True):
        assert colours[int(a)] != colours[int(b)], (a, b)
    owners = view.map_owners("out_ptr")
    img = view.map_image("out_ptr")
    for a, b in image_pairs(owners):
        ra, ca = np.argwhere(owners == a)[0]
        rb, cb = np.argwhere(owners == b)[0]
        assert img[ra, ca] != img[rb, cb], (a, b)
