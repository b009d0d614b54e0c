"""The bar above the grid view's maps: colour mode, z slice, loop chooser, play, loop slider.

Each control sets the ``GridState``, and follows it: a change made by a method call or by the
play timer shows in the controls the same way as one made with the mouse.
"""

from __future__ import annotations

from PySide6.QtCore import QSignalBlocker, QSize, Qt, QTimer
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QSlider,
    QSpinBox,
    QStyle,
    QStyleOptionComboBox,
    QToolButton,
    QWidget,
)

from kernels.data.trace import Trace

from ..i18n import translate
from .prepare import COLOR_MODES
from .state import GridState
from .text import loop_label, loop_name

__all__ = ["GridControls", "play_button", "show_playing"]


def play_button(tooltip: str) -> QToolButton:
    """A checkable ▶ button (the loop's and the launch order's)."""
    button = QToolButton()
    button.setCheckable(True)
    button.setIcon(button.style().standardIcon(QStyle.StandardPixmap.SP_MediaPlay))
    button.setToolTip(tooltip)
    return button


def show_playing(button: QToolButton, on: bool) -> None:
    """Check ``button`` (without a signal) and show ⏸ while playing, ▶ otherwise."""
    if button.isChecked() != on:
        with QSignalBlocker(button):
            button.setChecked(on)
    icon = QStyle.StandardPixmap.SP_MediaPause if on else QStyle.StandardPixmap.SP_MediaPlay
    button.setIcon(button.style().standardIcon(icon))


class GridControls(QWidget):
    """Observes and sets a ``GridState``; ``set_trace`` fills the loop and z choosers."""

    PLAY_INTERVAL_MS = 700

    def __init__(self, state: GridState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._state = state
        self._trace: Trace | None = None
        self._mode_combo = QComboBox()
        for key, text in COLOR_MODES.items():
            self._mode_combo.addItem(translate("GridView", text), key)
        # "automatic: by launch order" and the like: never wider than a few words (a laptop's grid)
        self._mode_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self._mode_combo.setMinimumContentsLength(14)
        self._mode_combo.currentIndexChanged.connect(lambda i: state.set_mode(self._mode_combo.itemData(i)))
        self._mode_combo.currentTextChanged.connect(lambda _t: self._fit_mode_combo())
        self._z_label = QLabel(translate("GridView", "z slice"))
        self._z_spin = QSpinBox()
        self._z_spin.setToolTip(translate("GridView", "Which z layer of the 3-D program grid to draw"))
        self._z_spin.valueChanged.connect(state.set_z)
        self._play = play_button(translate("GridView", "Step through the loop's iterations"))
        self._play.toggled.connect(state.set_playing)
        self._slider = QSlider(Qt.Orientation.Horizontal)
        self._slider.setToolTip(translate("GridView", "Loop iteration to show (far left: all iterations)"))
        self._slider.setMinimumWidth(80)
        self._slider.valueChanged.connect(lambda v: state.set_step(None if v < 0 else v))
        self._loop_label = QLabel()
        # labels that change with the hover or the trace must never widen the window
        self._loop_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self._loop_label.setMinimumWidth(60)
        self._loop_combo = QComboBox()
        # its items name a loop by its source line: sized to a few words, never to the longest item
        # (attention's widened the window past a 1366-px screen)
        self._loop_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self._loop_combo.setMinimumContentsLength(10)
        self._loop_combo.setToolTip(translate("GridView", "Which loop the slider steps through (loops in source order)"))
        self._loop_combo.currentIndexChanged.connect(lambda i: state.set_loop(i) if i >= 0 else None)
        self.timer = QTimer(self)
        self.timer.setInterval(self.PLAY_INTERVAL_MS)
        self.timer.timeout.connect(state.advance)

        bar = QHBoxLayout(self)
        bar.setContentsMargins(0, 0, 0, 0)
        bar.addWidget(QLabel(translate("GridView", "Colour")))
        bar.addWidget(self._mode_combo)
        bar.addSpacing(12)
        bar.addWidget(self._z_label)
        bar.addWidget(self._z_spin)
        bar.addSpacing(12)
        self._loop_widgets = (self._loop_combo, self._play, self._slider, self._loop_label)
        for w in self._loop_widgets:
            bar.addWidget(w)
        bar.setStretchFactor(self._loop_label, 100)  # the label takes the room when shown
        bar.addStretch(1)

        ev = state.events
        ev.mode.connect(self._on_mode)
        ev.z.connect(self._on_z)
        ev.loop.connect(lambda _index: self._on_loop())
        ev.step.connect(self._on_step)
        ev.playing.connect(self._on_playing)
        self._set_loop_controls()
        self._z_label.hide()
        self._z_spin.hide()
        self._fit_mode_combo()

    def set_trace(self, trace: Trace) -> None:
        """Ready the z and loop choosers for ``trace`` (the state was reset for it)."""
        self._trace = trace
        gz = trace.grid[2]
        with QSignalBlocker(self._z_spin):
            self._z_spin.setRange(0, gz - 1)
            self._z_spin.setValue(0)
        self._z_label.setVisible(gz > 1)
        self._z_spin.setVisible(gz > 1)
        steps = self._state.loop_steps
        with QSignalBlocker(self._loop_combo):
            self._loop_combo.clear()
            for j, n in enumerate(steps):
                self._loop_combo.addItem(loop_name(trace, j, short=True)
                                         + translate("GridView", " ({n} iterations)").format(n=n))
            self._loop_combo.setCurrentIndex(0 if steps else -1)
        self._set_loop_controls()

    def show_auto(self, shown: str, reason: str) -> None:
        """Name what "automatic" chose for this trace in its item: "automatic: by launch order"."""
        i = self._mode_combo.findData("auto")
        if i < 0:
            return
        del reason  # the legend says why
        text = translate("GridView", "automatic: {mode}").format(mode=translate("GridView", COLOR_MODES[shown]))
        self._mode_combo.setItemText(i, text)
        self._fit_mode_combo()

    #: the colour box grows to its chosen item's text up to this width (the loop's label and
    #: slider give way); past it the text is cut, and the tooltip has it whole
    MODE_MAX_PX = 240

    def _fit_mode_combo(self) -> None:
        """Wide enough for the chosen item ("automatic: by launch order" was cut to "automatic: by
        launch c" in a 1366-px window), never past ``MODE_MAX_PX``; its text in the tooltip too."""
        combo = self._mode_combo
        text = combo.currentText()
        opt = QStyleOptionComboBox()
        combo.initStyleOption(opt)
        fm = combo.fontMetrics()
        need = combo.style().sizeFromContents(QStyle.ContentsType.CT_ComboBox, opt,
                                              QSize(fm.horizontalAdvance(text) + 4, fm.height()), combo).width()
        combo.setMinimumWidth(min(need, self.MODE_MAX_PX))
        combo.setToolTip(text + "\n" + translate("GridView", "What a program's colour means, in the grid and the "
                                                              "tile maps"))

    # ------------------------------------------------------------------ following the state
    def _on_mode(self, mode: str) -> None:
        i = self._mode_combo.findData(mode)
        if self._mode_combo.currentIndex() != i:
            with QSignalBlocker(self._mode_combo):
                self._mode_combo.setCurrentIndex(i)

    def _on_z(self, z: int) -> None:
        if self._z_spin.value() != z:
            with QSignalBlocker(self._z_spin):
                self._z_spin.setValue(z)

    def _on_loop(self) -> None:
        index = self._state.loop
        if self._loop_combo.currentIndex() != index:
            with QSignalBlocker(self._loop_combo):
                self._loop_combo.setCurrentIndex(index)
        self._set_loop_controls()

    def _on_step(self, step: int | None) -> None:
        v = -1 if step is None else step
        if self._slider.value() != v:
            with QSignalBlocker(self._slider):
                self._slider.setValue(v)
        self._update_loop_label()

    def _on_playing(self, on: bool) -> None:
        show_playing(self._play, on)
        if on and self._state.n_steps:
            self.timer.start()
        else:
            self.timer.stop()

    def _set_loop_controls(self) -> None:
        """Show the loop controls when a loop ran; the slider back at "all iterations"."""
        steps, n_steps = self._state.loop_steps, self._state.n_steps
        any_ran = bool(steps) and max(steps) > 0  # loops never entered: none
        for w in self._loop_widgets:
            w.setVisible(any_ran)
        self._loop_combo.setVisible(any_ran and len(steps) > 1)
        self._play.setEnabled(n_steps > 0)
        self._slider.setEnabled(n_steps > 0)
        with QSignalBlocker(self._slider):
            self._slider.setRange(-1, max(n_steps - 1, -1))
            self._slider.setValue(-1)
        self._update_loop_label()

    def _update_loop_label(self) -> None:
        st = self._state
        self._loop_label.setText(loop_label(self._trace, st.loop_steps, st.loop, st.step, st.n_steps))
