"""How a big trace is cut into cells for the window: never across the tile one access spans
while the other side can still be halved (softmax's rows stay rows)."""

from __future__ import annotations

from kernels.data.coarse import MAX_CELLS, cell_factors


def test_one_row_tiles_keep_their_rows_whole():
    # breaks if softmax 1823×781 (one row per program) were cut into 4×2 cells again: hovering
    # program 900 then said rows 900..903
    assert cell_factors((1823, 781), MAX_CELLS) == (4, 2)  # no tile known: the squarer cells
    assert cell_factors((1823, 781), MAX_CELLS, tile=(1, 781)) == (1, 8)


def test_square_tiles_are_cut_inside_the_tile():
    # breaks if matmul 4096² in 64×64 tiles got cells that straddle two programs' tiles
    kr, kc = cell_factors((4096, 4096), MAX_CELLS, tile=(64, 64))
    assert (kr, kc) == (8, 8) and 4096 // kr * 4096 // kc <= MAX_CELLS
    # a tile too thin to hold the cut: the other rule takes over, still within MAX_CELLS
    kr, kc = cell_factors((1 << 20, 16), MAX_CELLS, tile=(1, 16))
    assert -(-(1 << 20) // kr) * -(-16 // kc) <= MAX_CELLS


def test_the_cli_summary_of_a_reduced_trace_names_the_real_shapes_and_says_cells():
    # breaks if `tilescope trace ... --backend gpu` printed a 2^28 vector as 4194304 elements (the
    # cells of its device-reduced maps) with no word that the counts are cells
    import kernels.catalog  # noqa: F401
    from kernels.data.coarse import coarsen
    from kernels.data.maps import summary_lines
    from kernels.specs.spec import REGISTRY
    from kernels.trace import trace_spec

    tr = coarsen(trace_spec(REGISTRY.get("vector_add"), {"N": 4096, "BLOCK_SIZE": 128}, workers=1), 256)
    text = "\n".join(summary_lines(tr))
    assert "x_ptr        4096 " in text and "out_ptr      4096 " in text, text
    assert "count cells, not elements" in text and "x_ptr 16" in text, text
