"""views.theme: the PySide6 6.12 / Python 3.11 reference-count guard, colours and export."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import sys

import pyqtgraph as pg
import pytest
from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QLabel

from views import theme


class _Emitter(QObject):
    fired = Signal(int)


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="None/True/False are immortal from 3.12 (PEP 683)")
def test_configure_makes_singletons_effectively_immortal():
    # breaks if the guard is lost: PySide6 6.12 drops a reference to None per void call and to
    # True per emit, and Python 3.11 aborts ("none_dealloc") after a few thousand of them
    theme.configure()
    assert sys.getrefcount(None) > 1 << 39 and sys.getrefcount(True) > 1 << 39


def test_many_qt_calls_and_emits_survive(qtbot):
    # without the guard on 3.11 this aborts the whole test process long before the end
    theme.configure()
    label = QLabel()
    qtbot.addWidget(label)
    e = _Emitter()
    got = []
    e.fired.connect(got.append)
    for i in range(20000):
        label.setText(str(i))
        e.fired.emit(i)
    assert label.text() == "19999" and len(got) == 20000


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
