"""CorrectnessView: the badge, the counts, the error map and hovering an element."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import numpy as np
import pytest
from PySide6.QtCore import QPointF
from PySide6.QtWidgets import QApplication

from views import theme
from views.correctness_view import CorrectnessView, fold
from views.demo_results import demo_check


@pytest.fixture
def view(on_screen):
    return on_screen(CorrectnessView(), 900, 480)


def test_failing_check_shows_fail_and_counts(view):
    # breaks if a wrong answer could be read as right, or its numbers are not on screen
    c = demo_check(passed=False, n=10000)
    view.set_check(c)
    assert view.badge.text() == "FAIL"
    assert theme.FAIL in view.badge.styleSheet()
    assert view.fields["mismatch"].text() == "314 of 10,000 (3.14%)"
    assert view.fields["unwritten"].text() == "300"
    assert view.fields["nan"].text() == "2"
    assert view.fields["inf"].text() == "0"
    assert view.fields["max_abs"].text() == f"{c.max_abs_err:.3g}"
    assert view.fields["tol"].text() == "atol 1e-06, rtol 1e-05"
    assert view.reason.text().startswith("300 elements never written")


def test_passing_check(view):
    view.set_check(demo_check(passed=True))
    assert view.badge.text() == "PASS" and theme.PASS in view.badge.styleSheet()
    assert view.fields["mismatch"].text().startswith("0 of")
    view.set_check(None)
    assert view.badge.text() == "—" and view.error_image() is None


def test_error_map_folds_vector_and_marks_unwritten(view):
    # breaks if the map is not folded 64 wide, or unwritten elements are not drawn distinctly
    view.set_check(demo_check(passed=False, n=10000))
    img = view.error_image()
    assert img.shape == (157, 64)  # ceil(10000 / 64) rows
    over = view.overlay_image()
    magenta = np.all(over == (214, 45, 200, 255), axis=-1)
    cyan = np.all(over == (0, 183, 199, 255), axis=-1)
    grey = np.all(over == (154, 154, 154, 255), axis=-1)
    assert magenta.sum() == 300 and cyan.sum() == 2 and grey.sum() == 157 * 64 - 10000
    assert magenta.reshape(-1)[9999] and not magenta.reshape(-1)[0]
    view.set_fold_width(100)
    assert view.error_image().shape == (100, 100)


def test_two_d_output_is_drawn_as_is():
    img, n = fold(np.zeros((12, 34), np.float32))
    assert img.shape == (12, 34) and n == 408
    img, n = fold(np.arange(130, dtype=np.float32), 64)
    assert img.shape == (3, 64) and np.isnan(img[2, 2:]).all() and img[2, 1] == 129


def test_hover_emits_element_and_tooltip_names_program(qtbot, view):
    # breaks if hovering the map does not tell the app which element (and program) it is
    view.set_check(demo_check(passed=False, n=10000))
    view.set_programs_for_elements(lambda out, i: f"program ({i // 1024},)")
    QApplication.processEvents()  # let the plot lay out before mapping image pixels to the screen
    row, col = 156, 15  # flat 156*64+15 = 9999: the last element, never written
    scene_pt = view.image.mapToScene(QPointF(col + 0.5, row + 0.5))
    pos = view.map_view.mapFromScene(scene_pt)
    with qtbot.waitSignal(view.elementHovered) as blocker:
        qtbot.mouseMove(view.map_view.viewport(), pos)
    assert blocker.args == ["out", 9999]
    tip = view.map_view.toolTip()
    assert "out[9999]" in tip and "never written" in tip and "program (9,)" in tip
    assert view.element_at(156, 16) is None  # padding past the end
    assert "|out − ref| =" in view.element_tooltip(0)


def test_other_outputs_are_selectable(view):
    main = demo_check(passed=True, output="y", n=256)
    main.others.append(demo_check(passed=False, output="mean", n=64))
    view.set_check(main)
    assert not view.output_combo.isHidden() and view.output_combo.count() == 2
    view.output_combo.setCurrentIndex(1)
    assert view.shown_check().output == "mean" and view.badge.text() == "FAIL"


def _map_pixel(view: CorrectnessView, flat: int):
    """The colour drawn on screen at element ``flat`` of the error map."""
    QApplication.processEvents()  # laid out and painted
    row, col = divmod(flat, view.error_image().shape[1])
    pt = view.map_view.mapFromScene(view.image.mapToScene(QPointF(col + 0.5, row + 0.5)))
    img = view.map_view.viewport().grab().toImage()
    dpr = img.devicePixelRatio()
    return img.pixelColor(int(pt.x() * dpr), int(pt.y() * dpr))


def test_a_passing_check_reads_as_within_tolerance(view):
    # breaks if a PASS is drawn as a black rectangle again (colours stretched from 0 to the
    # largest error make tiny, harmless errors dark): within tolerance must look "ok"
    c = demo_check(passed=True, n=256)
    view.set_fold_width(16)
    view.set_check(c)
    scale, how = view.tolerance()
    assert scale >= c.atol and how in ("atol", "atol + rtol·rms|ref|")
    assert max(view.element_display_value(i) for i in range(256)) <= 0.5  # the green half
    for flat in (0, 37, 200, 255):
        px = _map_pixel(view, flat)
        assert px.green() > px.red() and px.green() > px.blue() and px.lightness() > 150, (flat, px.name())
    assert f"error ÷ tolerance {scale:.3g}" in view.map_legend.text()


def test_failing_elements_stand_out_and_unwritten_and_nan_stay_distinct(view):
    # breaks if the few wrong elements of a FAIL blend in with the good ones, or never-written
    # and NaN elements lose their own colours
    c = demo_check(passed=False, n=256)
    view.set_fold_width(16)
    view.set_check(c)
    err = np.asarray(c.error_map)
    wrong = np.flatnonzero(np.isfinite(err) & (err > c.atol))
    good = np.flatnonzero(np.isfinite(err) & (err <= c.atol))
    assert len(wrong) == 12 and len(good) > 100
    for flat in wrong[:4]:
        assert view.element_display_value(flat) > 0.5
        px = _map_pixel(view, int(flat))
        assert px.red() > px.green() + 60, (int(flat), px.name())
    px = _map_pixel(view, int(good[0]))
    assert px.green() > px.red(), px.name()
    unwritten, nan = 255, int(np.flatnonzero(np.isnan(err))[0])
    assert _map_pixel(view, unwritten).name() == theme.UNWRITTEN
    assert _map_pixel(view, nan).name() == theme.NAN
    assert "× the map's tolerance" in view.element_tooltip(int(wrong[0]))


def test_a_narrow_panel_keeps_the_colour_bar_readable(qtbot, view):
    # breaks if the colour bar (and its tick labels) is pushed past the panel's right edge
    view.set_check(demo_check(passed=True, n=1000))
    view.set_fold_width(32)
    view.resize(560, 280)
    qtbot.wait(20)
    right = view.colorbar.axis.sceneBoundingRect().right()
    assert right <= view.map_view.viewport().width() + 1, (right, view.map_view.viewport().width())
    assert "error map of out (1000, folded 32 per row)" == view.map_title.text()


def test_a_downsampled_map_says_so_and_names_each_cells_block(view):
    # breaks if a map the engine downsampled (an output above 16 M elements) is shown as if each
    # cell were one element: the title must say it, and the tooltip which elements a cell covers
    from dataclasses import replace

    em = np.zeros((4, 6), np.float32)
    em[2, 5] = 0.5  # the largest error of the block rows 1024..1535, cols 2560..3071
    check = replace(demo_check(passed=False, n=24), error_map=em, error_map_stride=(512, 512),
                    n_elements=2048 * 3072)
    view.set_check(check)
    assert "downsampled to 4×6" in view.map_title.text() and "512×512 block" in view.map_title.text()
    tip = view.element_tooltip(2 * 6 + 5)
    assert "rows 1024..1535, cols 2560..3071" in tip and "largest error" in tip
    one_d = replace(check, error_map=np.zeros(10, np.float32), error_map_stride=(4096,), n_elements=40960)
    view.set_check(one_d)
    assert "out[12288..16383]" in view.element_tooltip(3)
    view.set_check(demo_check(passed=True, n=100))  # a full-resolution map again
    assert "downsampled" not in view.map_title.text() and "out[7]" in view.element_tooltip(7)


def test_the_legend_names_the_shown_checks_tolerance_never_the_previous_one(view):
    # breaks if, after the window clears the check (another kernel) or shows one without an error
    # map, the legend under the map still names the previous check's tolerance
    from dataclasses import replace

    view.set_check(demo_check(passed=False, n=10000))
    scale, how = view.tolerance()
    assert how == "atol + rtol·rms|ref|" and f"({how})" in view.map_legend.text()
    view.set_check(None)
    assert how not in view.map_legend.text() and f"{scale:.3g}" not in view.map_legend.text()
    assert view.fields["tol"].toolTip() == ""
    no_map = replace(demo_check(passed=True, n=100), error_map=None, atol=0.25)
    view.set_check(no_map)
    assert view.tolerance() == (0.25, "atol") and "0.25 (atol)" in view.map_legend.text()
    assert how not in view.map_legend.text()


#: the Correctness dock's viewport at the default 1600×1000 window (measured under Xvfb; the bottom
#: docks take 0.29 of the height, less their titles)
DOCK_VIEWPORT_H_1600x1000 = 241


def test_the_panel_fits_the_bottom_dock_of_a_1600x1000_window(view):
    # breaks if the panel's least height grows past the bottom dock again: its seven rows with
    # Qt's default spacing pushed Inf and the map's legend below the dock's fold (it scrolled)
    assert view.minimumSizeHint().height() <= DOCK_VIEWPORT_H_1600x1000, view.minimumSizeHint()
    view.set_check(demo_check(passed=True))
    assert view.minimumSizeHint().height() <= DOCK_VIEWPORT_H_1600x1000, view.minimumSizeHint()
