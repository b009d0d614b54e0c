"""The views of an N-axis sweep: the heatmap of any two axes and the ranked table.

Driven as a person would: pick axes and a slice in the combos, click a cell or a row, press an
export button; the expected numbers are computed here from the points, not by the view's code.
"""

from __future__ import annotations

import itertools
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import numpy as np
import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtWidgets import QApplication, QFileDialog

from kernels.data.results import SweepPoint, SweepRequest, SweepResult
from kernels.data.tuning import rank as tune_rank
from views.sweep_demo import DEMO_AXES, demo_run, demo_sweep_tune
from views.sweep_heatmap import SweepHeatmap
from views.sweep_table import SweepTable


def _passed(p: SweepPoint) -> bool:
    return not p.pruned and p.result.error is None and p.timing is not None


def _gpu_figure(p: SweepPoint) -> float:
    """TFLOP/s at the point's best time: the work model's FLOPs over the (re-measured) median."""
    return p.result.metrics.flops / (p.timing.median_ms * 1e9)


def _full(p: SweepPoint) -> dict:
    return {**p.result.values, **p.values}


@pytest.fixture
def tune() -> SweepResult:
    return demo_sweep_tune()


@pytest.fixture
def heatmap(on_screen):
    return on_screen(SweepHeatmap("TFLOP/s"), 900, 600, exposed=True)


def _cell_pos(w: SweepHeatmap, ix: int, iy: int):
    QApplication.processEvents()
    vb = w.plot.getPlotItem().vb
    return w.plot.mapFromScene(vb.mapViewToScene(QPointF(ix + 0.5, iy + 0.5)))


def _choose(qtbot, combo, text: str) -> None:
    """Pick ``text`` in a combo with the keyboard, as a person tabbing through the controls does."""
    combo.setFocus()
    i = combo.findText(text)
    assert i >= 0, text
    for _ in range(combo.count()):
        if combo.currentIndex() == i:
            return
        qtbot.keyClick(combo, Qt.Key.Key_Down if combo.currentIndex() < i else Qt.Key.Key_Up)
    assert combo.currentIndex() == i, f"{text!r} cannot be chosen (greyed out?)"


def test_heatmap_cells_are_the_best_over_the_other_axes(qtbot, heatmap, tune):
    # breaks if a cell shows one arbitrary point instead of the best over the hidden axes, or the
    # map is transposed
    heatmap.set_result(tune)
    _choose(qtbot, heatmap.y_combo, "num_warps")  # y shows BLOCK_N: x cannot take it before y moves
    _choose(qtbot, heatmap.x_combo, "BLOCK_N")
    assert heatmap.axes() == ("BLOCK_N", "num_warps")
    xs, ys = DEMO_AXES["BLOCK_N"], DEMO_AXES["num_warps"]
    want = np.full((len(ys), len(xs)), np.nan)
    for p in tune.points:
        if _passed(p):
            iy, ix = ys.index(p.values["num_warps"]), xs.index(p.values["BLOCK_N"])
            want[iy, ix] = np.fmax(want[iy, ix], _gpu_figure(p))
    g = heatmap.grid()
    np.testing.assert_allclose(g.values, want, rtol=1e-5)
    np.testing.assert_allclose(heatmap.image.image, want, rtol=1e-5)  # what is drawn
    iy, ix = np.unravel_index(np.nanargmax(want), want.shape)
    assert g.best == (ix, iy) and heatmap.best_box.isVisible()
    assert "each cell the best over BLOCK_M, BLOCK_K" in heatmap.title.text()


def test_clicking_a_cell_emits_the_values_of_its_best_point(qtbot, heatmap, tune):
    # breaks if the click lands in the wrong cell or the signal carries only the two shown axes
    # (the panel needs every value of the point to run it again)
    heatmap.set_result(tune)
    ix, iy = DEMO_AXES["BLOCK_M"].index(64), DEMO_AXES["BLOCK_N"].index(256)
    cands = [p for p in tune.points if p.values["BLOCK_M"] == 64 and p.values["BLOCK_N"] == 256 and _passed(p)]
    best = max(cands, key=_gpu_figure)
    with qtbot.waitSignal(heatmap.pointClicked, timeout=2000) as blocker:
        qtbot.mouseClick(heatmap.plot.viewport(), Qt.MouseButton.LeftButton, pos=_cell_pos(heatmap, ix, iy))
    assert blocker.args == [_full(best)]
    assert blocker.args[0]["M"] == 4096 and "BLOCK_K" in blocker.args[0]


def test_a_slice_shows_the_one_point_at_the_chosen_values(qtbot, heatmap, tune):
    # breaks if the slice still takes the best over the other axes, or ignores a chosen value
    heatmap.set_result(tune)
    _choose(qtbot, heatmap.others, "a slice at…")
    _choose(qtbot, heatmap._slice_combos["BLOCK_K"], "BLOCK_K=64")
    _choose(qtbot, heatmap._slice_combos["num_warps"], "num_warps=4")
    g = heatmap.grid()
    assert g.fixed == {"BLOCK_K": 64, "num_warps": 4}
    for (ix, m), (iy, n) in itertools.product(enumerate(DEMO_AXES["BLOCK_M"]), enumerate(DEMO_AXES["BLOCK_N"])):
        (p,) = [p for p in tune.points if p.values == {"BLOCK_M": m, "BLOCK_N": n, "BLOCK_K": 64, "num_warps": 4}]
        if _passed(p):
            assert g.values[iy, ix] == pytest.approx(_gpu_figure(p), rel=1e-5)
        else:
            assert np.isnan(g.values[iy, ix])
    # 256 x 256 x 64 cannot fit: pruned, said in the cell and its tooltip; 256 x 32 failed to compile
    assert heatmap.cell_text(3, 3) == "pruned" and "shared memory" in heatmap.cell_tooltip(3, 3)
    assert heatmap.cell_text(3, 0) == "failed" and "out of resources" in heatmap.cell_tooltip(3, 0)
    assert "slice at BLOCK_K=64, num_warps=4" in heatmap.title.text()


def test_interpreter_cells_are_the_fewest_milliseconds(qtbot, heatmap):
    # breaks if interpreter sweeps pick the slowest point as "best" (ms: lower is better)
    points = []
    rng = np.random.default_rng(1)
    for a, b, c in itertools.product([16, 32], [16, 32], [16, 32, 64]):
        v = {"BLOCK_M": a, "BLOCK_N": b, "BLOCK_K": c}
        points.append(SweepPoint(v, demo_run({**v, "M": 64, "N": 64, "K": 64}, float(rng.uniform(50, 200)),
                                             backend="interpreter")))
    axes = {"BLOCK_M": [16, 32], "BLOCK_N": [16, 32], "BLOCK_K": [16, 32, 64]}
    res = SweepResult(request=SweepRequest("matmul", {}, axes, mode="tune"), points=points, best=None, names=list(axes))
    heatmap.set_metric("TFLOP/s")
    heatmap.set_result(res)
    want = np.full((2, 2), np.inf)
    for p in points:
        iy, ix = [16, 32].index(p.values["BLOCK_N"]), [16, 32].index(p.values["BLOCK_M"])
        want[iy, ix] = min(want[iy, ix], p.result.timing.median_ms)
    np.testing.assert_allclose(heatmap.grid().values, want, rtol=1e-5)
    assert "interpreter wall clock" in heatmap.title.text()


# ---------------------------------------------------------------------------------------------
# the table


@pytest.fixture
def table(on_screen):
    return on_screen(SweepTable("TFLOP/s"), 1200, 600, exposed=True)


def test_table_ranks_every_point_with_axes_compile_facts_and_reasons(table, tune):
    # breaks if the winner is not first, a column of the sweep or a compile fact is missing, or a
    # pruned point loses its reason
    table.set_result(tune)
    titles = table.column_titles()
    assert titles[:5] == ["rank", "BLOCK_M", "BLOCK_N", "BLOCK_K", "num_warps"]
    for fact in ("regs", "spills", "shared B", "occupancy %", "p20–p80 ms"):
        assert fact in titles
    rows = table.rows()
    assert len(rows) == len(tune.points)
    assert rows[0].rank == 1 and rows[0].index == tune.best
    ranked = [r for r in rows if r.rank is not None]
    medians = [r.median_ms for r in ranked]
    assert medians == sorted(medians) and len(ranked) == sum(_passed(p) for p in tune.points)
    winner = tune.points[tune.best]
    assert table.text(0, "regs") == str(winner.result.compile.n_regs)
    assert table.text(0, "BLOCK_M") == str(winner.values["BLOCK_M"])
    pruned = [i for i, r in enumerate(rows) if r.state == "pruned"]
    assert len(pruned) == tune.n_pruned and all(i >= len(ranked) for i in pruned)
    assert "shared memory: needs about" in table.text(pruned[0], "note")
    assert tune.verdicts[0] in table.summary.text() and "2 pruned before compiling" in table.summary.text()


def test_clicking_a_row_emits_its_point_values(qtbot, table, tune):
    # breaks if a click after sorting by a header maps to the wrong point
    table.set_result(tune)
    header = table.view.horizontalHeader()
    col = table.column_titles().index("regs")
    qtbot.mouseClick(header.viewport(), Qt.MouseButton.LeftButton,
                     pos=QPointF(header.sectionViewportPosition(col) + 5, 5).toPoint())
    regs = [r.facts.get("regs", 10**9) for r in table.rows()]
    assert regs == sorted(regs)
    shown = table.rows()[2]
    idx = table.proxy.index(2, 1)
    with qtbot.waitSignal(table.pointClicked, timeout=2000) as blocker:
        qtbot.mouseClick(table.view.viewport(), Qt.MouseButton.LeftButton,
                         pos=table.view.visualRect(idx).center())
    assert blocker.args == [_full(tune.points[shown.index])]


def test_export_buttons_save_the_sweeps_texts(qtbot, table, tune, tmp_path, monkeypatch):
    # breaks if a button writes nothing, the wrong export, or is enabled with nothing to save
    table.set_result(SweepResult(request=tune.request, points=tune.points, best=tune.best, names=tune.names))
    assert not table.export_buttons["autotune"].isEnabled()
    table.set_result(tune)
    target = tmp_path / "configs.py"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(target), ""))
    with qtbot.waitSignal(table.exportSaved, timeout=2000) as blocker:
        qtbot.mouseClick(table.export_buttons["autotune"], Qt.MouseButton.LeftButton)
    assert blocker.args == ["autotune", str(target)]
    assert target.read_text() == tune.exports["autotune"]
    table.save_export("triton_op", tmp_path / "op.py")
    assert (tmp_path / "op.py").read_text() == tune.exports["triton_op"]


def test_streamed_points_are_ranked_before_the_sweep_ends(table, tune):
    # breaks if the table stays empty (or unranked) until the engine's ranking arrives
    table.begin(tune.names, [])
    for p in tune.points[:10]:
        table.add_point(p)
    ranked = [r for r in table.rows() if r.rank is not None]
    want = tune_rank.best_first(tune.points[:10], range(10))
    assert [r.index for r in ranked] == want
    assert "running" in table.summary.text()
