"""The grid view's Qt-free parts, tested with no widget and no event loop (as Orange3 tests a
widget's ``run``): the precompute, what a selection lights, the texts, the interaction state.
Each test says what a learner would see go wrong if it failed."""

from __future__ import annotations

import numpy as np
import pytest

from views.demo import (
    demo_copy_3d,
    demo_oob,
    demo_overlap,
    demo_softmax_looped,
    demo_vector_add,
    load,
    repeat_programs,
)
from views.grid_view.lighting import (
    access_line,
    cell_of,
    element_lanes,
    panel_flags,
    panel_overlay,
    pid_at,
    program_flags,
    program_overlay,
    slice_pids,
)
from views.grid_view.prepare import (
    CLEAR,
    DIM,
    LIT_LOAD,
    LIT_STORE,
    MULTI_WRITE,
    PAD,
    PALE,
    SHARED_READ,
    fold_width,
    prepare_trace,
)
from views.grid_view.state import GridState
from views.grid_view.text import element_text, info_text, loop_label, oob_line, program_text


def _line_of(trace, text: str) -> int:
    return trace.source_first_line + next(i for i, ln in enumerate(trace.source.splitlines()) if text in ln)


@pytest.fixture(scope="module")
def vadd():
    return prepare_trace(demo_vector_add())  # 1000 elements, 4 programs of 256, the last masked


# ------------------------------------------------------------------ prepare_trace
def test_prepare_folds_the_maps_and_pads_past_the_end(vadd):
    # breaks if the tile maps are not one block per row, or the 24 cells past element 999 are
    # drawn as if they were elements
    assert (vadd.P, vadd.gw, vadd.grows, vadd.folded_grid) == (4, 4, 1, True)
    x = vadd.panel("x_ptr")
    assert (x.rows, x.cols, x.role) == (4, 256, "read")
    assert vadd.panel("out_ptr").role == "written"
    img = vadd.images[x.index]
    assert img.shape == (4, 256) and img.dtype == np.uint8
    assert (img[3, 232:] == PAD).all() and (img[3, :232] != PAD).all()
    # each program's elements carry its colour slot, and neighbours differ
    assert [int(img[p, 0]) for p in range(4)] == vadd.prog_slots.tolist()
    assert len(set(vadd.prog_slots.tolist())) == 4


def test_prepare_colour_modes_and_their_errors():
    prep = prepare_trace(demo_vector_add(), "masked")
    masked = prep.prog_slots.tolist()
    assert masked[0] == masked[1] == masked[2] != masked[3], "only program 3 has masked lanes"
    prep.recolour("dispatch")
    assert prep.mode == "dispatch" and prep.prog_slots.tolist() == sorted(prep.prog_slots.tolist())
    with pytest.raises(ValueError, match="unknown colour mode"):
        prepare_trace(demo_vector_add(), "rainbow")


def test_several_writers_and_several_readers_get_their_own_slots():
    # breaks if the overlap of two blocks is not marked as a race, or shared reads are not
    # drawn in the pale twin of their first reader's colour (program 0 here)
    prep = prepare_trace(demo_overlap())  # blocks of 256 starting 224 apart
    out, x = prep.panel("out_ptr"), prep.panel("x_ptr")
    assert prep.images[out.index].reshape(-1)[230] == MULTI_WRITE
    assert prep.images[x.index].reshape(-1)[230] == prep.prog_slots[0] + PALE != SHARED_READ


def test_fold_width_keeps_a_long_vector_roughly_square():
    assert fold_width(1000, 256) == 256
    assert fold_width(2**21, 128) == 1024  # 2048 rows of 1024
    assert fold_width(10, 1) == 2


# ------------------------------------------------------------------ lighting
def test_a_program_lights_its_block_loads_and_stores_apart(vadd):
    x, out = vadd.panel("x_ptr"), vadd.panel("out_ptr")
    flags = panel_flags(x, ("program", 1), None)
    assert np.flatnonzero(flags).tolist() == list(range(256, 512)) and set(flags[256:512]) == {LIT_LOAD}
    assert set(panel_flags(out, ("program", 1), None)[256:512]) == {LIT_STORE}
    assert panel_flags(x, None, None) is None, "nothing selected, no step: no overlay at all"
    # the overlay fades every element the program did not touch
    ov = panel_overlay(x, flags, ("program", 1))
    assert set(ov[:256]) == {DIM} and set(ov[256:512]) == {LIT_LOAD}


def test_an_element_lights_the_program_that_wrote_it(vadd):
    out = vadd.panel("out_ptr")
    sel = ("element", out.index, 300)
    assert program_flags(vadd, sel, None).tolist() == [0, LIT_STORE, 0, 0]
    progs, kinds, _ = element_lanes(out, 300)
    assert progs.tolist() == [1] and kinds.tolist() == [LIT_STORE]
    assert panel_flags(vadd.panel("x_ptr"), sel, None) is None, "other tensors stay unlit"
    # in the grid: program 1 tinted, the others faded
    ov = program_overlay(slice_pids(vadd, 0), program_flags(vadd, sel, None), sel)
    assert ov.tolist() == [[DIM, LIT_STORE, DIM, DIM]]


def test_a_loop_step_alone_lights_every_program_that_ran_it():
    prep = prepare_trace(demo_softmax_looped())  # 8 rows, two loops of 4 steps
    assert prep.loop_steps == [4, 4]
    flags = program_flags(prep, None, 2)
    assert (flags == LIT_LOAD).all(), "step 2 of pass 1: every row program loads, none stores"
    ov = program_overlay(slice_pids(prep, 0), flags, None)
    assert (ov == CLEAR).all(), "with no selection the programs that ran the step keep their colours"
    prep.select_loop(1)
    assert set(program_flags(prep, None, 2).tolist()) == {LIT_LOAD | LIT_STORE}


def test_the_source_line_follows_the_selected_access(vadd):
    tr = vadd.trace
    assert access_line(vadd, ("program", 2), None, None) == _line_of(tr, "tl.load(x_ptr")
    out = vadd.panel("out_ptr")
    # program 2 pinned, an element of out hovered: the store is the access to mark
    assert access_line(vadd, ("program", 2), ("element", out.index, 5), None) == _line_of(tr, "tl.store(out_ptr")
    assert access_line(vadd, None, None, None) == -1


def test_program_cells_of_a_3d_grid_and_of_a_folded_one():
    prep = prepare_trace(demo_copy_3d())  # grid (4, 4, 3)
    assert cell_of(prep, 21) == (1, 1, 1)  # pid 21 = x 1 + 4 * (y 1 + 4 * z 1)
    assert pid_at(prep, 1, 1, 1) == 21 and pid_at(prep, 0, 4, 0) is None
    assert slice_pids(prep, 2)[0, 0] == 32
    folded = prepare_trace(repeat_programs(load("vector_add_4096"), 3))  # 96 programs
    assert (folded.gw, folded.grows) == (10, 10)
    assert cell_of(folded, 95) == (9, 5, 0)
    assert pid_at(folded, 0, 9, 6) is None, "the fold's padding is no program"


# ------------------------------------------------------------------ texts
def test_program_text_says_what_it_touched(vadd):
    text = program_text(vadd, 1, None, 0)
    assert text.startswith("program 1   pid (x=1, y=0, z=0)   wave 0")
    assert "  x_ptr: load ×1  elements 256..511  (256 elements)" in text
    assert "masked lanes: 0 of 768 (0.0%)" in text and "bytes loaded 2,048   stored 1,024" in text
    assert "masked lanes: 72 of 768 (9.4%)" in program_text(vadd, 3, None, 0)


def test_element_text_names_writers_readers_and_races():
    prep = prepare_trace(demo_overlap())
    out = prep.panel("out_ptr")
    text = element_text(prep, out, 230)
    assert "written by 2 programs: 0, 1" in text and "a race" in text
    assert element_text(prep, out, 5).splitlines()[1] == "written by program 0 (0, 0, 0)"


def test_info_text_hints_then_pins(vadd):
    assert info_text(vadd, None, None, None, 0).startswith("Hover a program")
    pinned = info_text(vadd, None, ("program", 2), None, 0)
    assert pinned.startswith("program 2") and pinned.endswith("PINNED: program 2 — click it again or press Esc to unpin.")


def test_oob_and_loop_texts():
    tr = demo_oob()
    line = oob_line(tr, tr.oob[0])
    assert line.startswith(f"program 3 (3, 0, 0): load at line {_line_of(tr, 'tl.load(x_ptr')}, 24 lanes out of bounds")
    assert "near x_ptr" in line
    looped = demo_softmax_looped()
    assert loop_label(looped, [4, 4], 1, 3, 4) == "step 4 of 4"  # the last step reads "4 of 4", never "3 of 4"
    assert loop_label(looped, [4, 4], 1, 0, 4) == "step 1 of 4"
    assert loop_label(looped, [4], 0, None, 4).startswith("all iterations   —   loop at line ")
    assert loop_label(None, [], 0, None, 0) == ""


# ------------------------------------------------------------------ the state model
def test_state_events_fire_once_per_change_and_in_order():
    st = GridState()
    seen = []
    st.events.hover.connect(lambda old, new: seen.append(("hover", old, new)))
    st.events.pinned.connect(lambda on: seen.append(("pinned", on)))
    assert not st.pin(), "nothing hovered: nothing to pin"
    st.set_hover(("program", 1))
    st.set_hover(("program", 1))  # no change, no event
    assert st.pin() and st.selected_program() == 1
    st.set_hover(("program", 2))
    assert st.selection == ("program", 1), "a pinned target wins over the hover"
    st.unpin()
    st.unpin()  # nothing pinned: no event
    assert seen == [("hover", None, ("program", 1)), ("pinned", True),
                    ("hover", ("program", 1), ("program", 2)), ("pinned", False)]


def test_state_validates_and_plays_through_the_steps():
    st = GridState()
    st.reset([4, 0], n_z=3)
    with pytest.raises(ValueError, match="outside 0..3"):
        st.set_step(4)
    with pytest.raises(ValueError, match="no loop 2"):
        st.set_loop(2)
    with pytest.raises(ValueError, match="unknown colour mode"):
        st.set_mode("rainbow")
    steps = []
    st.events.step.connect(steps.append)
    for _ in range(6):
        st.advance()
    assert steps == [0, 1, 2, 3, 0, 1], "playback wraps around"
    st.set_step(-1)
    assert st.step is None
    st.set_playing(True)
    st.set_loop(1)  # a loop that never ran: playing it stops
    st.advance()
    assert not st.playing and st.n_steps == 0
    st.set_z(7)
    assert st.z == 2
