"""The launch order explained: waves of programs in dispatch order, and the distinct tiles each
wave loads (its L2 footprint), counted from recorded traces — checked against counts made here
by hand from the matmul kernel's own index arithmetic, and against the Triton tutorial's figure
(9×9 tiles of C, a wave of 9: 90 blocks loaded row-major, 54 grouped with GROUP_SIZE_M=3).
Each test says what the learner would see go wrong if it failed."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtWidgets import QLabel

from kernels.data.maps import output_order, wave_loads
from views.demo import demo_matmul, demo_vector_add
from views.grid_view import GridView
from views.grid_view.state import GridState


def _tile_of(pid: int, num_m: int, num_n: int, group: int) -> tuple[int, int]:
    """(pid_m, pid_n) of program ``pid``: the catalog matmul's grouped order, written again."""
    in_group = group * num_n
    first_m = (pid // in_group) * group
    size = min(num_m - first_m, group)
    return first_m + (pid % in_group) % size, (pid % in_group) // size


def _by_hand(order: list[int], per_wave: int, num_m: int, num_n: int, k_steps: int, group: int) -> list[tuple]:
    """(A tiles, B tiles) each wave loads: program (m, n) reads A tiles (m, k) and B tiles (k, n)
    for every K step k."""
    out = []
    for w in range(0, len(order), per_wave):
        tiles = [_tile_of(p, num_m, num_n, group) for p in order[w: w + per_wave]]
        a = {(m, k) for m, _ in tiles for k in range(k_steps)}
        b = {(k, n) for _, n in tiles for k in range(k_steps)}
        out.append((len(a), len(b)))
    return out


def test_wave_tiles_of_a_small_matmul_equal_a_count_by_hand():
    # the shipped recording: 64³ in 16×16×16 tiles (4×4 tiles of C, 4 K steps), GROUP_SIZE_M=2
    tr = demo_matmul()
    a, b = tr.tensor_index("a_ptr"), tr.tensor_index("b_ptr")
    for per_wave in (1, 2, 3, 4, 8, 16):
        grouped = wave_loads(tr, per_wave)
        hand = _by_hand(list(range(16)), per_wave, 4, 4, 4, group=2)
        assert grouped.tiles[:, [a, b]].tolist() == [list(x) for x in hand], per_wave
        # row-major: the program of C tile (m, n) runs m * 4 + n-th
        order = output_order(tr)
        assert [_tile_of(int(p), 4, 4, 2) for p in order] == [(m, n) for m in range(4) for n in range(4)]
        row_major = wave_loads(tr, per_wave, order)
        hand = _by_hand(order.tolist(), per_wave, 4, 4, 4, group=2)
        assert row_major.tiles[:, [a, b]].tolist() == [list(x) for x in hand], per_wave
    # a wave of 4: grouped 8 + 8 = 16 tiles, row-major 4 + 16 = 20
    assert wave_loads(tr, 4).total_tiles().tolist() == [16] * 4
    assert wave_loads(tr, 4, output_order(tr)).total_tiles().tolist() == [20] * 4
    assert wave_loads(tr, 4).total_bytes()[0] == 16 * 16 * 16 * 2  # 16 fp16 tiles of 16×16


def test_a_kernel_with_no_reuse_loads_each_block_once():
    tr = demo_vector_add(1000, 256)  # 4 programs, each reading its own block of x and y
    loads = wave_loads(tr, 2)
    assert loads.tiles[:, :2].tolist() == [[2, 2], [2, 2]] and loads.loaded() == ["x_ptr", "y_ptr"]
    assert output_order(tr).tolist() == [0, 1, 2, 3]


@pytest.fixture(scope="module")
def tutorial():
    """The catalog matmul traced at the tutorial's size: 9×9 tiles of 16 (M = N = K = 144),
    grouped (GROUP_SIZE_M=3) and row-major (GROUP_SIZE_M=1)."""
    pytest.importorskip("triton")
    from kernels.sources.lookup import get_spec
    from kernels.trace import trace_spec

    def run(group: int):
        values = {"M": 144, "N": 144, "K": 144, "BLOCK_M": 16, "BLOCK_N": 16, "BLOCK_K": 16,
                  "GROUP_SIZE_M": group, "dtype": "fp16"}
        return trace_spec(get_spec("matmul"), values, workers=1)

    return run(3), run(1)


def test_the_tutorials_90_against_54_blocks(tutorial):
    grouped, row_major = tutorial
    a, b = grouped.tensor_index("a_ptr"), grouped.tensor_index("b_ptr")
    g, r = wave_loads(grouped, 9), wave_loads(row_major, 9)
    assert g.tiles[0, [a, b]].tolist() == [27, 27] and g.total_tiles()[0] == 54
    assert r.tiles[0, [a, b]].tolist() == [9, 81] and r.total_tiles()[0] == 90
    assert g.total_tiles().tolist() == [54] * 9 and r.total_tiles().tolist() == [90] * 9
    # the grouped recording replayed row-major loads what the row-major kernel loads
    assert wave_loads(grouped, 9, output_order(grouped)).total_tiles().tolist() == [90] * 9
    # and both equal the count by hand
    assert _by_hand(list(range(81)), 9, 9, 9, 9, group=3)[0] == (27, 27)
    assert _by_hand(list(range(81)), 9, 9, 9, 9, group=1)[0] == (9, 81)


def _view(qtbot, trace) -> GridView:
    """A grid view the size of a large window, showing ``trace``."""
    view = GridView()
    view.resize(1600, 1000)
    qtbot.addWidget(view)
    view.show()
    view.set_trace(trace)
    return view


def test_the_view_shows_the_tutorials_figure(qtbot, tutorial):
    grouped, _ = tutorial
    view = _view(qtbot, grouped)
    view.set_wave_size(9)
    view.show_launch_order(True)
    recorded, row_major = view.wave_loads()
    assert recorded.total_tiles()[0] == 54 and row_major.total_tiles()[0] == 90
    table = next(w for w in view.findChildren(QLabel) if "row-major" in w.text() and "<table" in w.text())
    assert table.isVisible() and ">54<" in table.text() and ">90<" in table.text()


# ------------------------------------------------------------------ playing the waves
@pytest.fixture
def view(qtbot):
    return _view(qtbot, demo_matmul())


def test_the_wave_shown_lights_its_programs_and_their_tiles(qtbot, view):
    # breaks if playing the launch order does not show which programs run together and what
    # they read: wave 1 of 4 programs in grouped order is C tiles (0..1, 2..3)
    view.set_wave_size(4)
    view.set_wave(1)
    assert view.launch_order_shown() and view.wave_programs().tolist() == [4, 5, 6, 7]
    assert np.flatnonzero(view.highlighted_programs()).tolist() == [4, 5, 6, 7]
    a, b = view.lit_elements("a_ptr"), view.lit_elements("b_ptr")
    assert np.argwhere(a.any(axis=1)).ravel().tolist() == list(range(32)) and a[:32].all()
    assert np.argwhere(b.any(axis=0)).ravel().tolist() == list(range(32, 64)) and b[:, 32:].all()
    # row-major, wave 0 is C's first row of tiles: A's first 16 rows, all of B
    view.set_launch_order("row-major")
    view.set_wave(0)
    assert view.wave_programs().tolist() == [0, 2, 4, 6]
    assert view.lit_elements("b_ptr").all() and view.lit_elements("a_ptr")[:16].all()
    assert not view.lit_elements("a_ptr")[16:].any()
    recorded, row_major = view.wave_loads()
    assert recorded.total_tiles().tolist() == [16] * 4 and row_major.total_tiles().tolist() == [20] * 4
    # the wave colours follow the launch order played
    view.set_color_mode("wave")
    colours = {view.program_cell_color(p).name() for p in (0, 2, 4, 6)}
    assert len(colours) == 1 and view.program_cell_color(1).name() not in colours
    view.show_launch_order(False)
    assert view.wave() is None and not view.lit_elements("a_ptr").any()


def test_play_steps_through_the_waves_and_wraps(qtbot, view):
    view.set_wave_size(4)
    view.show_launch_order(True)
    from PySide6.QtWidgets import QToolButton

    play = next(b for b in view.findChildren(QToolButton) if b.toolTip().startswith("Play the waves"))
    view._launch.timer.setInterval(5)
    # each tick's wave, recorded by a slot after the view's own (polling could miss a 5-ms wave)
    seen: list[int | None] = []
    view._launch.timer.timeout.connect(lambda: seen.append(view.wave()))
    play.click()
    qtbot.waitUntil(lambda: len(seen) >= 5, timeout=60000)  # a bound against hanging, not a margin
    play.click()
    assert seen[:5] == [1, 2, 3, 0, 1], seen
    assert not view._launch.timer.isActive()


def test_wave_state_validates():
    st = GridState()
    with pytest.raises(ValueError, match="at least one program"):
        st.set_waves(per_wave=0)
    with pytest.raises(ValueError, match="unknown launch order"):
        st.set_waves(order="random")
    st.n_waves = 3
    seen = []
    st.events.wave.connect(seen.append)
    for _ in range(4):
        st.advance_wave()
    assert seen == [0, 1, 2, 0]
    with pytest.raises(ValueError, match="outside 0..2"):
        st.set_wave(3)


@pytest.mark.parametrize("demo", ["attention", "matmul"])
def test_with_the_launch_order_open_on_a_laptop_the_maps_stack_instead_of_scrolling_sideways(qtbot, demo):
    # breaks if opening the launch order beside the maps of a laptop-sized view (it takes up to
    # 330 of the view's ~770 px) leaves 2-D maps side by side wider than what is left: the learner
    # had to scroll sideways to see the output (C, Out) — the maps go one under the other instead
    from PySide6.QtWidgets import QScrollArea

    from views.demo import demo_attention

    trace = demo_attention() if demo == "attention" else demo_matmul()
    view = _view(qtbot, trace)
    view.show_launch_order(True)
    wide_rows = {round(view._tile_plot(n).sceneBoundingRect().top()) for n in view.tensor_names()}
    assert len(wide_rows) < len(view.tensor_names()), "at 1600 px the maps are side by side"
    view.resize(770, 640)  # the grid's room in a 1366×768 window
    qtbot.waitUntil(lambda: view.graphics_view().width() < 500, timeout=10000)
    view._refit()
    qtbot.wait(20)
    scroll = view.findChild(QScrollArea)
    assert scroll.horizontalScrollBar().maximum() == 0, "the maps need a sideways scroll"
    glw = view.graphics_view()
    for name in view.tensor_names():
        plot = view._tile_plot(name)
        title = plot.titleLabel.item.sceneBoundingRect()
        assert plot.sceneBoundingRect().right() <= glw.width() + 1, name
        assert title.width() <= plot.sceneBoundingRect().width() + 1, f"{name}'s title is cut"
    grid = view._canvas.prog.plot  # the program grid too: its title takes two lines, not the grid's width
    assert grid.titleLabel.item.sceneBoundingRect().right() <= glw.width() + 1
    assert grid.vb.sceneBoundingRect().right() <= glw.width() + 1
    narrow_rows = {round(view._tile_plot(n).sceneBoundingRect().top()) for n in view.tensor_names()}
    assert len(narrow_rows) > len(wide_rows)
    view.show_launch_order(False)  # room again: side by side again
    qtbot.wait(20)
    view._refit()
    assert scroll.horizontalScrollBar().maximum() == 0
