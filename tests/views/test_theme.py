"""views.theme: colours, pyqtgraph options, icons, export; and the PySide6 version guard."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import sys

import pyqtgraph as pg
import PySide6
import pytest

from views import theme


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="None/True/False are immortal from 3.12 (PEP 683)")
def test_installed_pyside6_is_not_the_release_that_aborts_on_python_3_11():
    # breaks if PySide6 6.12.0 is installed on Python 3.11: it drops a reference to None on
    # every void Qt call and to True on every emit, and the interpreter aborts ("none_dealloc")
    # after a few thousand (a plot redrawn a few times). pyproject.toml excludes that release.
    assert PySide6.__version__ != "6.12.0", "PySide6 6.12.0 aborts on Python 3.11: install another release"


def test_configure_sets_row_major_light_plots():
    theme.configure()
    assert pg.getConfigOption("imageAxisOrder") == "row-major"
    assert pg.getConfigOption("background") == "w"


def test_palette_colours_are_distinct():
    cols = [theme.PASS, theme.FAIL, theme.MASKED, theme.TRITON, theme.TORCH, theme.UNWRITTEN, theme.NAN]
    assert len(set(cols)) == len(cols)


def test_icons_exist():
    for name in ("open", "reload", "export", "compare", "find", "tilescope"):
        assert not theme.icon(name).isNull(), name


def test_export_rejects_unknown_suffix(qtbot, tmp_path):
    w = pg.PlotWidget()
    qtbot.addWidget(w)
    with pytest.raises(ValueError, match="png or .svg"):
        theme.export_plot(w.getPlotItem(), tmp_path / "x.pdf")
