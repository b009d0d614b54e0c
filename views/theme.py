"""Shared look of the panels: colours, pyqtgraph options, icons, fonts and plot export.

``configure()`` must run before the first pyqtgraph widget is created (pyqtgraph reads its
options when an item is built); every panel calls it in its constructor, and it is idempotent.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pyqtgraph as pg
from PySide6.QtGui import QColor, QFont, QFontDatabase, QIcon

from resources import icon_path

__all__ = [
    "ACCENT_WARN",
    "FAIL",
    "MASKED",
    "NAN",
    "PASS",
    "PEAK",
    "TORCH",
    "TRITON",
    "UNWRITTEN",
    "configure",
    "export_plot",
    "icon",
    "install_export_menu",
    "mono_font",
    "qcolor",
]

# One palette for the whole app, so "Triton" and "torch" are the same colour in every panel.
PASS = "#2e9d4a"
FAIL = "#d0342c"
MASKED = "#9a9a9a"
TRITON = "#1f77b4"
TORCH = "#ff7f0e"
PEAK = "#555555"
UNWRITTEN = "#d62dc8"  # magenta: never confused with the error colour map (black→yellow)
NAN = "#00b7c7"  # cyan: a NaN the kernel computed (as opposed to an element it never wrote)
ACCENT_WARN = "#b8860b"

_configured = False


def configure() -> None:
    """Set pyqtgraph's global options once: light background, antialiasing, row-major images."""
    global _configured
    if _configured:
        return
    # row-major: image[row, col] as numpy prints it, the convention DESIGN.md fixes for tile maps.
    pg.setConfigOptions(antialias=True, background="w", foreground="k", imageAxisOrder="row-major")
    _configured = True


def qcolor(hex_colour: str, alpha: int = 255) -> QColor:
    c = QColor(hex_colour)
    c.setAlpha(alpha)
    return c


def icon(name: str) -> QIcon:
    """An icon from ``resources/icons/<name>.svg`` (an empty icon if the file is missing)."""
    path = icon_path(name)
    return QIcon(str(path)) if path.exists() else QIcon()


def mono_font(point_size: int = 0) -> QFont:
    f = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
    if point_size:
        f.setPointSize(point_size)
    return f


def export_plot(item: pg.GraphicsItem | pg.GraphicsScene, path: str | Path) -> Path:
    """Write ``item`` (a PlotItem, a layout or a whole scene) to ``path``: .png or .svg by suffix."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix == ".svg":
        # Not pyqtgraph's SVGExporter: with Qt 6.12 its post-processing either raises on the "Z"
        # that QSvgGenerator now writes or moves the data items off their axes (seen here with
        # pyqtgraph 0.14). Rendering the scene through QSvgGenerator keeps every item in place.
        _render_svg(item, path)
    elif suffix in (".png", ".jpg", ".jpeg", ".bmp"):
        # Rendered at twice the screen size through a device-pixel-ratio-2 image: everything,
        # legend text and pen widths included, scales together (pyqtgraph's ImageExporter
        # widens the plot but leaves the legend text small).
        _render_image(item, path, scale=2.0)
    else:
        raise ValueError(f"cannot export to {path.name!r}: use a .png or .svg file name")
    return path


def install_export_menu(plot: pg.PlotWidget | pg.GraphicsLayoutWidget, choose: Callable[[], None]) -> None:
    """Replace pyqtgraph's right-click "Export..." (whose SVG output is broken, see
    ``export_plot``) with an entry that runs ``choose`` (the panel's own PNG/SVG export)."""
    from PySide6.QtGui import QAction

    scene = plot.scene()
    from .i18n import translate

    action = QAction(translate("theme", "Export plot as PNG / SVG…"), scene)
    action.triggered.connect(choose)
    scene.contextMenu = [action]


def _source(item: pg.GraphicsItem | pg.GraphicsScene):
    scene = item if isinstance(item, pg.GraphicsScene) else item.scene()
    if scene is None:
        raise ValueError("the plot is not in a scene; show it before exporting")
    return scene, (scene.sceneRect() if item is scene else item.sceneBoundingRect())


def _render_image(item: pg.GraphicsItem | pg.GraphicsScene, path: Path, scale: float) -> None:
    from PySide6.QtCore import QRectF
    from PySide6.QtGui import QImage, QPainter

    scene, source = _source(item)
    img = QImage(int(source.width() * scale), int(source.height() * scale), QImage.Format.Format_ARGB32)
    img.setDevicePixelRatio(scale)
    img.fill(QColor("white"))
    painter = QPainter(img)
    try:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
        scene.render(painter, QRectF(0, 0, source.width(), source.height()), source)
    finally:
        painter.end()
    if not img.save(str(path)):
        raise OSError(f"could not write {path}")


def _render_svg(item: pg.GraphicsItem | pg.GraphicsScene, path: Path) -> None:
    from PySide6.QtCore import QRectF
    from PySide6.QtGui import QPainter
    from PySide6.QtSvg import QSvgGenerator

    scene, source = _source(item)
    gen = QSvgGenerator()
    gen.setFileName(str(path))
    gen.setSize(source.size().toSize())
    gen.setViewBox(QRectF(0, 0, source.width(), source.height()))
    gen.setTitle("Tilescope plot")
    view = scene.views()[0] if scene.views() else None
    if view is not None:
        # match the screen's DPI: QSvgGenerator's default of 72 dpi makes items that size
        # themselves from the paint device (axes, text) disagree with the data items
        gen.setResolution(view.logicalDpiX())
    painter = QPainter(gen)
    try:
        scene.render(painter, QRectF(0, 0, source.width(), source.height()), source)
    finally:
        painter.end()
