"""Dialogs of the main window: the sweep set-up.

``SweepDialog`` lets the user pick one or two parameters of the current kernel and the values to
try (``BLOCK_SIZE: 64, 128, 256, 512, 1024``). Each value is parsed and checked with the kernel's
own ``Param`` (the same check the parameter panel and the worker use), so a typo is reported in
the dialog, not as a failed point later. Points that break a cross-parameter rule (softmax's
``BLOCK_SIZE >= N``) are allowed but announced: a sweep may well want to show them failing.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from kernels.data.params import ValidationError
from kernels.data.results import KernelInfo
from views import theme
from views.kernel_texts import kernel_text

from ..session import combinations_breaking_rules, parse_axis_values, sweep_default_values

__all__ = ["SweepDialog", "parse_axis_values"]

#: more points than this make an interpreter sweep take minutes: the dialog says so
_MANY_POINTS = 64


def _text(values: list[Any]) -> str:
    return ", ".join(str(v).lower() if isinstance(v, bool) else str(v) for v in values)


class SweepDialog(QDialog):
    """Choose the swept parameters and their values. ``axes()`` gives the result once accepted."""

    def __init__(self, info: KernelInfo, values: dict[str, Any], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Sweep {title}").format(title=kernel_text(info.title)))
        self._info = info
        self._values = dict(values)
        self._params = {p.name: p for p in info.params}
        self._axes: dict[str, list[Any]] = {}

        intro = QLabel(self.tr("Run every combination of one or two parameters; the others keep the values "
                               "in the parameter panel. Points stream into the Sweep plot as they finish."), self)
        intro.setWordWrap(True)

        self.param_combo: list[QComboBox] = []
        self.values_edit: list[QLineEdit] = []
        boxes = []
        for i in range(2):
            box = QGroupBox(self.tr("Parameter") if i == 0 else self.tr("Second parameter (heatmap)"), self)
            form = QFormLayout(box)
            combo = QComboBox(box)
            combo.setObjectName(f"sweep_param_{i}")
            for p in info.params:
                combo.addItem(p.name, p.name)
            edit = QLineEdit(box)
            edit.setObjectName(f"sweep_values_{i}")
            edit.setPlaceholderText(self.tr("values, comma-separated, e.g. 64, 128, 256"))
            form.addRow(self.tr("parameter"), combo)
            form.addRow(self.tr("values"), edit)
            combo.currentIndexChanged.connect(lambda _i, k=i: self._on_param(k))
            edit.textChanged.connect(self._revalidate)
            self.param_combo.append(combo)
            self.values_edit.append(edit)
            boxes.append(box)
        self.second = QCheckBox(self.tr("Sweep a second parameter too"), self)
        self.second.setObjectName("sweep_second")
        self.second.toggled.connect(self._on_second)
        self.message = QLabel("", self)
        self.message.setObjectName("sweep_message")
        self.message.setWordWrap(True)
        self.message.setTextFormat(Qt.TextFormat.PlainText)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                        | QDialogButtonBox.StandardButton.Cancel, self)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText(self.tr("Run sweep"))
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)

        lay = QVBoxLayout(self)
        lay.addWidget(intro)
        lay.addWidget(boxes[0])
        lay.addWidget(self.second)
        lay.addWidget(boxes[1])
        lay.addWidget(self.message)
        lay.addWidget(self.buttons)
        self._box2 = boxes[1]

        # a sensible start: the first power-of-two block size (the classic sweep), else the first
        first = next((p.name for p in info.params if p.pow2 and p.kind == "constexpr"), info.params[0].name)
        second = next((p.name for p in info.params if p.name != first and p.pow2), None) or next(
            (p.name for p in info.params if p.name != first), first)
        self.set_param(0, first)
        self.set_param(1, second)
        self._box2.setEnabled(False)
        self.resize(460, 360)
        self._revalidate()

    # -- public ---------------------------------------------------------------------------------
    def ok_button(self):
        return self.buttons.button(QDialogButtonBox.StandardButton.Ok)

    def set_param(self, i: int, name: str) -> None:
        """Choose the parameter of axis ``i`` (its values box gets a default list)."""
        self.param_combo[i].setCurrentIndex(self.param_combo[i].findData(name))
        self._on_param(i)

    def axes(self) -> dict[str, list[Any]]:
        """Parameter name -> values, for the accepted dialog (empty while invalid)."""
        return {k: list(v) for k, v in self._axes.items()}

    def accept(self) -> None:  # refuse an invalid set-up (Enter in a field lands here too)
        if self._revalidate():
            super().accept()

    # -- internals ------------------------------------------------------------------------------
    def _on_param(self, i: int) -> None:
        name = self.param_combo[i].currentData()
        p = self._params.get(name)
        if p is not None:
            self.values_edit[i].setText(_text(sweep_default_values(p, self._values.get(name, p.default))))
        self._revalidate()

    def _on_second(self, on: bool) -> None:
        self._box2.setEnabled(on)
        self._revalidate()

    def _revalidate(self, *_: Any) -> bool:
        axes: dict[str, list[Any]] = {}
        errors: list[str] = []
        n_axes = 2 if self.second.isChecked() else 1
        for i in range(n_axes):
            name = self.param_combo[i].currentData()
            p = self._params.get(name)
            if p is None:
                continue
            if name in axes:
                errors.append(self.tr("{name} is chosen twice: pick two different parameters").format(name=name))
                continue
            try:
                axes[name] = parse_axis_values(p, self.values_edit[i].text())
            except ValidationError as e:
                errors.append(e.message)
        ok = not errors and bool(axes)
        notes: list[str] = []
        if ok:
            n = 1
            for v in axes.values():
                n *= len(v)
            notes.append((self.tr("{n} points.") if n != 1 else self.tr("{n} point.")).format(n=n))
            bad, why = combinations_breaking_rules(self._info, self._values, axes)
            if bad:
                notes.append(self.tr("{bad} of them break a rule of the kernel and will show as failed ({why}).").format(
                    bad=bad, why=why))
            if n > _MANY_POINTS:
                notes.append(self.tr("That is many points: under the interpreter this can take minutes "
                                     "(Cancel with Esc keeps the points done so far)."))
        self._axes = axes if ok else {}
        self.message.setText("\n".join(errors) if errors else " ".join(notes))
        self.message.setStyleSheet(f"color: {theme.FAIL};" if errors else "color: #444;")
        self.ok_button().setEnabled(ok)
        return ok
