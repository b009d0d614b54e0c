"""CorrectnessView: did the kernel compute the right answer, and where did it go wrong?

A big PASS/FAIL badge, the numbers behind it (max abs and relative error, the tolerance, how
many elements mismatched, were never written, are NaN or Inf, and the one-line reason), and the
output's error map as an image: 1-D outputs are folded into rows (64 wide unless told), 2-D
outputs drawn as they are. Elements the kernel never wrote are magenta, NaNs it computed are
cyan, the padding past the end of a folded vector is grey.

The map's colour is the error *relative to the tolerance* (``tolerance_scale``): green shades
up to the tolerance, amber to dark red from 1× to 1000× over it (log). Coloured from 0 to the
largest error instead, a passing check was a black rectangle whatever its errors were, and a
failing one hid its few bad elements among the merely imprecise. Hovering an element emits
``elementHovered(output, flat_index)`` so the app can show in the grid view which program wrote
it, and the tooltip gives that element's error (and its program, through an optional hook).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from kernels.data.results import CheckResult

from . import theme
from .empty_plot import EmptyPlot
from .i18n import translate
from .preview import preview

__all__ = ["CorrectnessView", "error_colormap", "fold", "tolerance_scale"]

DEFAULT_FOLD = 64
#: errors this many times the tolerance and more get the darkest red
OVER_MAX = 1000.0
_OK_LO, _OK_HI = "#cfe9d2", "#4caf5a"  # error 0 .. the tolerance: light to mid green
_OVER = ("#ffd54f", "#f57c00", "#c62828", "#4a0a0a")  # 1×, 10×, 100×, 1000× the tolerance


def error_colormap() -> pg.ColorMap:
    """The map's colours over display values 0..1: 0..0.5 is error 0..tolerance (green
    shades), 0.5..1 is 1×..``OVER_MAX``× the tolerance on a log scale (amber to dark red)."""
    steps = 1.0 / (2 * math.log10(OVER_MAX))  # one decade of the upper half
    pos = [0.0, 0.5, 0.5 + 1e-6] + [0.5 + steps * k for k in range(1, 4)]
    cols = [_OK_LO, _OK_HI, *_OVER]
    return pg.ColorMap(pos, [pg.mkColor(c) for c in cols])


def tolerance_scale(c: CheckResult) -> tuple[float, str]:
    """(the error the map calls 1× the tolerance, how it was chosen).

    An element passes when |out − ref| ≤ atol + rtol·|ref|, and the view has no ``ref``. From a
    full-resolution error map it can still estimate the typical |ref|: rel_err is
    ||out − ref|| / ||ref|| over the measured elements, so rms|ref| = ||err|| / rel_err / √n.
    The scale is then atol + rtol·rms|ref|; otherwise (all errors 0, a downsampled map) atol."""
    atol = max(float(c.atol), 0.0)
    if c.error_map is not None and not c.error_map_stride and c.rel_err and math.isfinite(c.rel_err):
        err = np.asarray(c.error_map, dtype=np.float64).reshape(-1)
        finite = err[np.isfinite(err)]
        norm = float(np.sqrt(np.sum(finite * finite))) if finite.size else 0.0
        if norm > 0 and c.rel_err > 0:
            rms_ref = norm / c.rel_err / math.sqrt(finite.size)
            return max(atol + c.rtol * rms_ref, 1e-30), "atol + rtol·rms|ref|"
    if c.error_map_stride and c.ref_rms:  # a downsampled map: the worker measured rms|ref| itself
        return max(atol + c.rtol * c.ref_rms, 1e-30), "atol + rtol·rms|ref|"
    return max(atol, 1e-30), "atol"


def _display(err: np.ndarray, scale: float) -> np.ndarray:
    """Errors as display values 0..1 (see ``error_colormap``); non-finite stay NaN."""
    r = err / scale
    over = 0.5 + 0.5 * np.log10(np.maximum(r, 1.0)) / math.log10(OVER_MAX)
    return np.where(r <= 1.0, 0.5 * r, np.minimum(over, 1.0)).astype(np.float32)


def fold(values: np.ndarray, width: int = DEFAULT_FOLD) -> tuple[np.ndarray, int]:
    """Lay an output out as a 2-D image, row-major: a vector in rows of ``width`` (the tail
    padded with NaN), a matrix as is, higher ranks as (-1, last dim). Returns (image, n)."""
    a = np.asarray(values)
    n = int(a.size)
    if a.ndim == 2:
        return a, n
    if a.ndim > 2:
        return a.reshape(-1, a.shape[-1]), n
    flat = a.reshape(-1)
    width = max(1, int(width))
    rows = max(1, math.ceil(n / width))
    out = np.full(rows * width, np.nan, dtype=flat.dtype if flat.dtype.kind == "f" else np.float32)
    out[:n] = flat
    return out.reshape(rows, width), n


def _count(n: int) -> str:
    return f"{n:,}"


def _sci(v: float | None) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "—"
    if v == 0:
        return "0"
    if math.isinf(v):
        return "∞"
    return f"{v:.3g}"


class CorrectnessView(QWidget):
    """The check of one run.

    Signals: elementHovered(str output_name, int flat_index) — the element under the mouse in
    the error map (row-major flat index into the output), emitted when it changes.
    """

    elementHovered = Signal(str, int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        theme.configure()
        self._check: CheckResult | None = None
        self._shown: CheckResult | None = None
        self._fold_width = DEFAULT_FOLD
        self._width = DEFAULT_FOLD
        self._n = 0
        self._err2d: np.ndarray | None = None
        self._programs: Callable[[str, int], str | None] | None = None
        self._last_hover: tuple[str, int] | None = None

        self.badge = QLabel("—", self)
        self.badge.setObjectName("badge")
        self.badge.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.badge.setMinimumSize(150, 64)
        self.badge.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        self.subtitle = QLabel(self.tr("No check yet."), self)
        self.subtitle.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.subtitle.setWordWrap(True)
        # a check of another configuration than the panel's: still shown, greyed, and said so
        self._stale = False
        self.stale_label = QLabel(self.tr("stale: the parameters changed since this check — Run to check them"),
                                  self)
        self.stale_label.setObjectName("stale")
        self.stale_label.setWordWrap(True)
        self.stale_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.stale_label.setStyleSheet("color: #8a6d00; font-weight: bold;")
        self.stale_label.hide()
        self.output_combo = QComboBox(self)
        self.output_combo.setToolTip(self.tr("Which output tensor to show"))
        self.output_combo.currentIndexChanged.connect(self._on_output)
        self.output_combo.hide()

        self.fields: dict[str, QLabel] = {}
        form = QFormLayout()
        # rows 2 px apart: at 1600×1000 the bottom dock is ~240 px and the seven rows with the
        # default spacing pushed Inf and the map's legend below the fold (the dock scrolled)
        form.setVerticalSpacing(2)
        for key, label in (("max_abs", "max |out − ref|"), ("rel", self.tr("relative error")),
                           ("tol", self.tr("tolerance")), ("mismatch", self.tr("mismatched")),
                           ("unwritten", self.tr("never written")), ("nan", "NaN"), ("inf", "Inf")):
            v = QLabel("—", self)
            v.setObjectName(f"value_{key}")
            v.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            self.fields[key] = v
            form.addRow(label, v)
        self.reason = QLabel("", self)
        self.reason.setObjectName("reason")
        self.reason.setWordWrap(True)
        self.reason.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        left = QVBoxLayout()
        left.addWidget(self.badge)
        left.addWidget(self.subtitle)
        left.addWidget(self.stale_label)
        left.addWidget(self.output_combo)
        left.addLayout(form)
        left.addWidget(self.reason)
        left.addStretch(1)

        # error map
        self.map_view = pg.GraphicsLayoutWidget(self)
        self.map_view.setMinimumSize(260, 150)
        self.map_plot = self.map_view.addPlot()
        mp = self.map_plot
        mp.setAspectLocked(True)
        mp.invertY(True)  # row 0 at the top, as the output is printed
        mp.setLabel("bottom", self.tr("column"))
        mp.setLabel("left", self.tr("row"))
        mp.hideButtons()
        self.image = pg.ImageItem(axisOrder="row-major")
        self.image.setAutoDownsample(True)
        mp.addItem(self.image)
        self.overlay = pg.ImageItem(axisOrder="row-major")  # unwritten / NaN / padding colours
        self.overlay.setZValue(5)
        mp.addItem(self.overlay)
        # 0..100, no "×0.001": row numbers as wide as a small map's, so the axis keeps its width
        self.map_empty = EmptyPlot(mp, self.tr("No check yet."), auto_range=False, span=100.0)
        self.colorbar = pg.ColorBarItem(values=(0, 1), colorMap=error_colormap(),
                                        label=self.tr("error ÷ tolerance"), interactive=False, width=14)
        self.colorbar.setImageItem(self.image, insert_in=mp)
        # short tick labels in tolerance units: a narrow panel used to clip "1.2e-06"-style ones
        decade = 0.5 / math.log10(OVER_MAX)
        self.colorbar.axis.setTicks([[(0.0, "0"), (0.5, "1×"), (0.5 + decade, "10×"),
                                      (0.5 + 2 * decade, "100×"), (1.0, f"{OVER_MAX:g}×")]])
        self.colorbar.axis.setWidth(46)
        self._scale = 1.0
        self._scale_how = "atol"
        self.map_view.scene().sigMouseMoved.connect(self._on_hover)
        # the map's title lives in a wrapping label: as a plot title its text set the plot's
        # minimum width, and in a narrow panel that pushed the colour bar out of sight
        self.map_title = QLabel(self)
        self.map_title.setObjectName("map_title")
        self.map_title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.map_title.setWordWrap(True)
        self.map_title.setStyleSheet("font-weight: bold;")
        self.map_legend = QLabel(self)
        self.map_legend.setWordWrap(True)
        self._update_legend()
        right = QVBoxLayout()
        right.addWidget(self.map_title)
        right.addWidget(self.map_view, 1)
        right.addWidget(self.map_legend)

        lay = QHBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addLayout(left, 0)
        lay.addLayout(right, 1)
        self.set_check(None)

    # -- public API ----------------------------------------------------------------------------
    def set_check(self, check: CheckResult | None) -> None:
        """Show ``check`` (and its ``others`` through the output selector); None clears."""
        self._check = check
        self._stale = False  # a new check is of the configuration that ran
        self.stale_label.hide()
        self.output_combo.blockSignals(True)
        self.output_combo.clear()
        if check is not None:
            for c in [check, *check.others]:
                verdict = self.tr("pass") if c.passed else self.tr("FAIL")
                self.output_combo.addItem(f"{c.output} ({verdict})")
        self.output_combo.blockSignals(False)
        self.output_combo.setVisible(check is not None and bool(check.others))
        self._show(check)

    def set_stale(self, stale: bool) -> None:
        """Mark the check shown as made for another configuration than the one in the panel now
        (True: the badge greyed and a line saying so; a PASS must not stand for values it never
        checked), or current again. Nothing to mark without a check."""
        self._stale = bool(stale) and self._check is not None
        self.stale_label.setVisible(self._stale)
        if self._shown is not None:
            self._show(self._shown)

    def is_stale(self) -> bool:
        return self._stale

    def set_fold_width(self, width: int) -> None:
        """Row width used to fold 1-D outputs into an image (the grid view's width, default 64)."""
        width = max(1, int(width))
        if width == self._fold_width:
            return  # the window sets it after every run and trace: redraw only on a change
        self._fold_width = width
        self._show(self._shown)

    def set_programs_for_elements(self, fn: Callable[[str, int], str | None] | None) -> None:
        """Hook naming the program that produced element ``flat_index`` of ``output`` (e.g. from
        the trace), shown in the error map's tooltip. None removes it."""
        self._programs = fn

    def shown_check(self) -> CheckResult | None:
        """The CheckResult on screen (the selected output)."""
        return self._shown

    def error_image(self) -> np.ndarray | None:
        """The 2-D error array drawn (folded), or None."""
        return self._err2d

    def overlay_image(self) -> np.ndarray | None:
        """The RGBA marks drawn over the map (unwritten, NaN, padding), or None."""
        return self.overlay.image

    def element_at(self, row: int, col: int) -> int | None:
        """Flat index of the element drawn at (row, col), or None outside the output."""
        if self._err2d is None or not (0 <= row < self._err2d.shape[0] and 0 <= col < self._err2d.shape[1]):
            return None
        flat = row * self._width + col
        return flat if flat < self._n else None

    def element_tooltip(self, flat: int) -> str:
        """Hover text for element ``flat`` of the shown output."""
        c = self._shown
        if c is None or c.error_map is None:
            return ""
        e = float(np.asarray(c.error_map).reshape(-1)[flat])
        row, col = divmod(flat, self._width)
        where = (f"{c.output}[{flat}]" if np.ndim(c.error_map) == 1 else
                 self.tr("{out} row {row}, col {col} (flat {flat})").format(out=c.output, row=row, col=col, flat=flat))
        if c.error_map_stride:
            where = _block_text(c, flat)
        if math.isinf(e):
            what = self.tr("never written (still NaN-poisoned)")
        elif math.isnan(e):
            what = self.tr("NaN computed where the reference is finite")
        else:
            bad = e > c.atol
            what = (f"|out − ref| = {e:.3g}" + (f" > atol {c.atol:g}" if bad else f" ≤ atol {c.atol:g}")
                    + self.tr(" ({ratio:.3g}× the map's tolerance {scale:.3g})").format(ratio=e / self._scale,
                                                                                       scale=self._scale))
        lines = [where, what]
        if self._programs is not None:
            prog = self._programs(c.output, flat)
            if prog:
                lines.append(self.tr("written by {program}").format(program=prog))
        return "\n".join(lines)

    def tolerance(self) -> tuple[float, str]:
        """(the error the map's colours call 1× the tolerance, how it was chosen); see
        ``tolerance_scale``."""
        return self._scale, self._scale_how

    def element_display_value(self, flat: int) -> float:
        """Where element ``flat`` sits on the colour bar: 0..0.5 within the tolerance, 0.5..1
        from 1× to ``OVER_MAX``× over it; NaN for elements drawn by the overlay instead."""
        img = self.image.image
        if img is None or self._err2d is None:
            return math.nan
        row, col = divmod(int(flat), self._width)
        return float(img[row, col])

    # -- internals -----------------------------------------------------------------------------
    def _update_legend(self) -> None:
        # short: the colour bar already spells out the scale (1×, 10×, … the tolerance), and a
        # legend of three lines squeezed the map in a short panel
        sw = "<span style='color:{}'>■</span>"
        tol = f" {_sci(self._scale)} ({self._scale_how})" if self._shown is not None else ""
        self.map_legend.setText(
            self.tr("colour: error ÷ tolerance{tol}, green ≤ 1×").format(tol=tol)
            + f" · {sw.format(theme.UNWRITTEN)} " + self.tr("never written")
            + f" · {sw.format(theme.NAN)} " + self.tr("NaN computed")
            + f" · {sw.format(theme.MASKED)} " + self.tr("past the end"))

    def _on_output(self, i: int) -> None:
        if self._check is None or i < 0:
            return
        self._show([self._check, *self._check.others][i])

    def _show(self, c: CheckResult | None) -> None:
        self._shown = c
        self._last_hover = None
        if c is None:
            self.badge.setText("—")
            self.badge.setStyleSheet("font-size: 26pt; font-weight: bold; color: #888; border: 2px solid #ccc;"
                                     " border-radius: 8px;")
            self.subtitle.setText(self.tr("No check yet."))
            for v in self.fields.values():
                v.setText("—")
                v.setStyleSheet("")
                v.setToolTip("")
            self.reason.setText("")
            self._set_map(None)
            return
        colour = "#9e9e9e" if self._stale else theme.PASS if c.passed else theme.FAIL
        self.badge.setText(self.tr("PASS") if c.passed else self.tr("FAIL"))
        self.badge.setStyleSheet(f"font-size: 26pt; font-weight: bold; color: white; background: {colour};"
                                 " border-radius: 8px;")
        self.subtitle.setText(f"{c.output} · {c.dtype} · " + self.tr("{n} elements").format(n=_count(c.n_elements)))
        self.fields["max_abs"].setText(_sci(c.max_abs_err))
        self.fields["rel"].setText(_sci(c.rel_err))
        self.fields["tol"].setText(f"atol {c.atol:g}, rtol {c.rtol:g}")
        self.fields["tol"].setToolTip(self.tr("an element passes when |out − ref| ≤ atol + rtol·|ref| "
                                              "(tolerances for {dtype})").format(dtype=c.dtype))
        pct = 100.0 * c.n_mismatch / c.n_elements if c.n_elements else 0.0
        self.fields["mismatch"].setText(self.tr("{n} of {total} ({pct:.3g}%)").format(
            n=_count(c.n_mismatch), total=_count(c.n_elements), pct=pct))
        self.fields["unwritten"].setText(_count(c.n_unwritten))
        self.fields["nan"].setText(_count(c.n_nan))
        self.fields["inf"].setText(_count(c.n_inf))
        for key, n in (("mismatch", c.n_mismatch), ("unwritten", c.n_unwritten), ("nan", c.n_nan), ("inf", c.n_inf)):
            self.fields[key].setStyleSheet(f"color: {theme.FAIL}; font-weight: bold;" if n else "")
        self.reason.setText(c.reason)
        self.reason.setStyleSheet(f"color: {theme.FAIL};" if not c.passed else "color: #444;")
        self._set_map(c)

    def _set_map(self, c: CheckResult | None) -> None:
        if c is None or c.error_map is None:
            self._err2d = None
            self._n = 0
            self.image.clear()
            self.overlay.clear()
            self.map_title.setText(self.tr("no error map") if c is not None else "")
            self.map_empty.set_text(self.tr("no error map") if c is not None else self.tr("No check yet."))
            self.map_empty.set_empty(True)
            # the legend names this check's tolerance (none when cleared), never the previous one's
            self._scale, self._scale_how = tolerance_scale(c) if c is not None else (1.0, "atol")
            self._update_legend()
            return
        self.map_empty.set_empty(False)
        err = np.asarray(c.error_map, dtype=np.float32)
        self._width = self._fold_width if err.ndim == 1 else err.shape[-1]
        img, n = fold(err, self._width)
        self._n = n
        self._err2d = img
        rows, cols = img.shape
        flat = img.reshape(-1)
        idx = np.arange(flat.size)
        pad = idx >= n
        unwritten = np.isinf(flat) & ~pad
        nan = np.isnan(flat) & ~pad
        self._scale, self._scale_how = tolerance_scale(c)
        self._update_legend()
        shown = _display(np.where(np.isfinite(flat), flat, np.nan), self._scale).reshape(rows, cols)
        self.image.setImage(shown, autoLevels=False)
        self.colorbar.setLevels((0.0, 1.0))
        over = np.zeros((rows * cols, 4), dtype=np.uint8)
        for mask, colour in ((unwritten, theme.UNWRITTEN), (nan, theme.NAN), (pad, theme.MASKED)):
            q = theme.qcolor(colour)
            over[mask] = (q.red(), q.green(), q.blue(), 255)
        self.overlay.setImage(over.reshape(rows, cols, 4), levels=(0, 255), autoLevels=False)
        shape = "×".join(str(s) for s in np.shape(c.error_map))
        folded = self.tr(", folded {width} per row").format(width=self._width) if err.ndim == 1 else ""
        if c.error_map_stride:
            block = "×".join(str(s) for s in c.error_map_stride)
            self.map_title.setText(self.tr("error map of {out}, downsampled to {shape}{folded}: each cell is the "
                                           "largest error of a {block} block ({n:,} elements)").format(
                out=c.output, shape=shape, folded=folded, block=block, n=c.n_elements))
        else:
            self.map_title.setText(self.tr("error map of {out} ({shape}{folded})").format(
                out=c.output, shape=shape, folded=folded))
        self.map_plot.autoRange(padding=0.02)

    def _on_hover(self, scene_pos: QPointF) -> None:
        c = self._shown
        if c is None or self._err2d is None:
            return
        if not self.map_plot.vb.sceneBoundingRect().contains(scene_pos):
            self.map_view.setToolTip("")
            return
        p = self.image.mapFromScene(scene_pos)
        flat = self.element_at(int(math.floor(p.y())), int(math.floor(p.x())))
        if flat is None:
            self.map_view.setToolTip("")
            return
        self.map_view.setToolTip(self.element_tooltip(flat))
        key = (c.output, flat)
        if key != self._last_hover:
            self._last_hover = key
            self.elementHovered.emit(c.output, flat)


def _block_text(c: CheckResult, flat: int) -> str:
    """Which output elements cell ``flat`` of a downsampled error map stands for (its largest
    error): "out[4096..8191]", or "out rows 0..3, cols 8..11" for a 2-D block."""
    shape = np.shape(c.error_map)
    idx = np.unravel_index(int(flat), shape)
    spans = [(int(i) * s, (int(i) + 1) * s - 1) for i, s in zip(idx, c.error_map_stride, strict=True)]
    cell = translate("CorrectnessView", "(one cell of the downsampled map: the largest error of these)")
    if len(spans) == 1:
        (lo, hi), = spans
        return f"{c.output}[{lo}..{hi}] {cell}"
    names = ([translate("CorrectnessView", "rows"), translate("CorrectnessView", "cols")] if len(spans) == 2
             else [translate("CorrectnessView", "dim {d}").format(d=d) for d in range(len(spans))])
    parts = ", ".join(f"{n} {lo}..{hi}" for n, (lo, hi) in zip(names, spans, strict=True))
    return f"{c.output} {parts} {cell}"


def _demo() -> QWidget:  # pragma: no cover - manual preview
    from .demo_results import demo_check

    w = CorrectnessView()
    w.set_check(demo_check(passed=False))
    w.set_programs_for_elements(lambda out, i: f"program ({i // 1024},)")
    w.elementHovered.connect(lambda o, i: print("elementHovered", o, i))
    w.resize(900, 480)
    return w


if __name__ == "__main__":  # pragma: no cover
    preview(_demo)
