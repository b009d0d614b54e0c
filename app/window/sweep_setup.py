"""The sweep dialog for any number of parameters and constraints.

``TuneSweepDialog`` is the window's sweep dialog (``SweepDialog`` with more): below the first
two parameters, "Add a parameter" adds a third, a fourth…, each with its values; a box takes
constraints, one Python expression per line over the parameter names (``BLOCK_M * BLOCK_N <=
16384``), and the dialog counts the points they keep with the engine's own enumeration
(``kernels.data.tuning.space.build_space``, Qt-free and torch-free). More than two parameters or any
constraint make a *tune* sweep (``SweepRequest.mode="tune"``: the fastest points re-measured,
interleaved, ranked with their spread, exports made); with one or two the "Tune" box opts in.

Under the interpreter the launch options (num_warps, num_stages…) have no effect: they are greyed
out in the parameter lists, the reason in their tooltip, and a sweep of one given anyway (as
``set_param`` may) is refused here, with the engine's reason, rather than after the worker started.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from kernels.data.backends import is_interpreter
from kernels.data.params import ValidationError, validate
from kernels.data.results import KernelInfo
from kernels.data.tuning.space import LAUNCH_OPTIONS, build_space
from views import theme

from ..session import Session, parse_axis_values
from .dialogs import _MANY_POINTS, SweepDialog

__all__ = ["SweepLauncher", "TuneSweepDialog"]


class TuneSweepDialog(SweepDialog):
    """Choose any number of swept parameters and constraints; ``axes()``, ``where()`` and
    ``mode()`` give the sweep once accepted. ``interpreter``: the sweep would run on the CPU."""

    def __init__(self, info: KernelInfo, values: dict[str, Any], parent: QWidget | None = None,
                 interpreter: bool = False) -> None:
        self._ready = False  # the base class validates before the extra parts exist
        self._interpreter = interpreter
        self._launch = {p.name for p in info.params if p.kind == "launch"} | set(LAUNCH_OPTIONS)
        self._where: list[str] = []
        self._mode = "grid"
        super().__init__(info, values, parent)
        lay = self.layout()
        assert isinstance(lay, QVBoxLayout)
        intro = lay.itemAt(0).widget()
        if isinstance(intro, QLabel):
            intro.setText(self.tr("Run every combination of the parameters below; the others keep the values in "
                                  "the parameter panel. One or two parameters fill the Sweep plot; more, or a "
                                  "constraint, make a tune sweep: ranked with their spread (Ranking tab), shown two "
                                  "axes at a time (Heatmap tab), with @triton.autotune and triton_op exports."))
        self.more_box = QGroupBox(self.tr("More parameters (a tune sweep)"), self)
        self.more_rows = QVBoxLayout(self.more_box)
        self.add_button = QPushButton(self.tr("Add a parameter"), self.more_box)
        self.add_button.setObjectName("sweep_add_param")
        self.add_button.clicked.connect(lambda: self.add_param())
        self.more_rows.addWidget(self.add_button)
        where_box = QGroupBox(self.tr("Constraints (one per line; points where one is false are not run)"), self)
        self.where_edit = QPlainTextEdit(where_box)
        self.where_edit.setObjectName("sweep_where")
        self.where_edit.setPlaceholderText(self.tr("e.g. BLOCK_M * BLOCK_N <= 16384"))
        self.where_edit.setFixedHeight(3 * self.fontMetrics().height() + 12)
        self.where_edit.textChanged.connect(self._revalidate)
        QVBoxLayout(where_box).addWidget(self.where_edit)
        self.tune_check = QCheckBox(self.tr("Tune: re-measure the fastest, rank with their spread, make exports"),
                                    self)
        self.tune_check.setObjectName("sweep_tune")
        self.tune_check.toggled.connect(self._revalidate)
        run_on = QWidget(self)
        run_lay = QHBoxLayout(run_on)
        run_lay.setContentsMargins(0, 0, 0, 0)
        run_lay.addWidget(QLabel(self.tr("Run on:"), run_on))
        self.run_on = QComboBox(run_on)  # SweepRequest.cluster: kernels.engine.ray_sweep
        self.run_on.setObjectName("sweep_run_on")
        self.run_on.addItem(self.tr("the worker's device, one point at a time"), "")
        self.run_on.addItem(self.tr("every GPU of the worker's host (starts Ray there)"), "local")
        self.run_on.addItem(self.tr("the running Ray cluster"), "auto")
        self.run_on.setToolTip(self.tr("Ray runs the points on one warm worker per GPU and re-measures the fastest "
                                       "on one GPU; it needs pip install -e \".[cluster]\" where the worker runs."))
        run_lay.addWidget(self.run_on, 1)
        at = lay.indexOf(self.message)
        for i, w in enumerate((self.more_box, where_box, self.tune_check, run_on)):
            lay.insertWidget(at + i, w)
        for i, combo in enumerate(self.param_combo):
            self._grey_launch_options(combo)
            if interpreter and combo.currentData() in self._launch:  # the default picked one: pick another
                self.set_param(i, self._first_untaken([c.currentData() for c in self.param_combo if c is not combo]))
        self._ready = True
        self.resize(540, 620)
        self._revalidate()

    # -- public ---------------------------------------------------------------------------------
    def add_param(self, name: str | None = None) -> int:
        """Add a swept parameter (default: the first not chosen yet); its index in ``param_combo``."""
        self.second.setChecked(True)  # a third parameter comes after a second
        row = QWidget(self.more_box)
        combo, edit = QComboBox(row), QLineEdit(row)
        i = len(self.param_combo)
        combo.setObjectName(f"sweep_param_{i}")
        edit.setObjectName(f"sweep_values_{i}")
        for p in self._info.params:
            combo.addItem(p.name, p.name)
        edit.setPlaceholderText(self.tr("values, comma-separated"))
        remove = QPushButton(self.tr("Remove"), row)
        remove.setObjectName(f"sweep_remove_{i}")
        lay = QHBoxLayout(row)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(combo)
        lay.addWidget(edit, 1)
        lay.addWidget(remove)
        self.param_combo.append(combo)
        self.values_edit.append(edit)
        combo.currentIndexChanged.connect(lambda _i, c=combo: self._on_param(self.param_combo.index(c)))
        edit.textChanged.connect(self._revalidate)
        remove.clicked.connect(lambda _c=False, c=combo: self.remove_param(self.param_combo.index(c)))
        self.more_rows.insertWidget(self.more_rows.count() - 1, row)
        self._grey_launch_options(combo)
        self.set_param(i, name or self._first_untaken([c.currentData() for c in self.param_combo[:i]]))
        return i

    def remove_param(self, i: int) -> None:
        """Remove added parameter ``i`` (2 or more)."""
        if i < 2:
            raise ValueError("the first two parameters stay (untick the second to sweep one)")
        combo = self.param_combo.pop(i)
        self.values_edit.pop(i)
        row = combo.parentWidget()
        self.more_rows.removeWidget(row)
        row.deleteLater()
        self._revalidate()

    def set_where(self, lines: list[str]) -> None:
        self.where_edit.setPlainText("\n".join(lines))

    def where(self) -> list[str]:
        """The constraints of the accepted dialog."""
        return list(self._where)

    def mode(self) -> str:
        """"tune" or "grid" (see the module doc)."""
        return self._mode

    def cluster(self) -> str:
        """Where the points run: "" the worker's device, "local" or "auto" through Ray."""
        return str(self.run_on.currentData() or "")

    def set_cluster(self, cluster: str) -> None:
        i = self.run_on.findData(cluster)
        self.run_on.setCurrentIndex(max(0, i))

    # -- internals ------------------------------------------------------------------------------
    def _first_untaken(self, taken: list[str]) -> str:
        """The first parameter not in ``taken`` (under the interpreter, not a launch option)."""
        usable = [p.name for p in self._info.params if not (self._interpreter and p.name in self._launch)]
        return next((n for n in usable if n not in taken), (usable or [self._info.params[0].name])[0])

    def _grey_launch_options(self, combo: QComboBox) -> None:
        """Under the interpreter, the launch options of ``combo`` greyed out, the reason their tooltip."""
        model = combo.model()
        if not self._interpreter or not isinstance(model, QStandardItemModel):
            return
        for i in range(combo.count()):
            name = combo.itemData(i)
            if name in self._launch:
                model.item(i).setEnabled(False)
                combo.setItemData(i, self.tr("{name} has no effect under the interpreter (every value runs the same "
                                             "program): sweep it on a GPU.").format(name=name),
                                  Qt.ItemDataRole.ToolTipRole)

    def _read_axes(self, errors: list[str]) -> dict[str, list[Any]]:
        axes: dict[str, list[Any]] = {}
        for i in [0, *([1] if self.second.isChecked() else []), *range(2, len(self.param_combo))]:
            name = self.param_combo[i].currentData()
            p = self._params.get(name)
            if p is None:
                continue
            if name in axes:
                errors.append(self.tr("{name} is chosen twice: pick different parameters").format(name=name))
                continue
            try:
                axes[name] = parse_axis_values(p, self.values_edit[i].text())
            except ValidationError as e:
                errors.append(e.message)
        return axes

    def _revalidate(self, *_: Any) -> bool:
        if not self._ready:
            return super()._revalidate()
        errors: list[str] = []
        axes = self._read_axes(errors)
        where = [s.strip() for s in self.where_edit.toPlainText().splitlines() if s.strip()]
        forced = len(axes) > 2 or bool(where)
        if forced and not self.tune_check.isChecked():
            self.tune_check.blockSignals(True)
            self.tune_check.setChecked(True)
            self.tune_check.blockSignals(False)
        self.tune_check.setEnabled(not forced)
        tune = self.tune_check.isChecked()
        if self._interpreter:
            for name in (n for n, v in axes.items() if n in self._launch and len(v) > 1):
                errors.append(self.tr("{name} has no effect under the interpreter: every value would time the same "
                                      "program. Sweep it on a GPU, or give it one value.").format(name=name))
        notes = self._count(axes, where, errors) if axes and not errors else []
        ok = not errors and bool(axes)
        self._axes, self._where, self._mode = (axes, where, "tune" if tune else "grid") if ok else ({}, [], "grid")
        self.message.setText("\n".join(errors) if errors else " ".join(notes))
        self.message.setStyleSheet(f"color: {theme.FAIL};" if errors else "color: #444;")
        self.ok_button().setEnabled(ok)
        return ok

    def _count(self, axes: dict[str, list[Any]], where: list[str], errors: list[str]) -> list[str]:
        """The notes on the points the sweep will run (or an error for a bad constraint)."""
        base = {k: v for k, v in self._values.items() if k not in axes}
        try:
            space = build_space(self._info.params, base, axes, (), where)
        except ValidationError as e:
            errors.append(e.message)
            return []
        n = len(space.points)
        notes = [(self.tr("{n} points.") if n != 1 else self.tr("{n} point.")).format(n=n)]
        if space.filtered:
            notes.append(self.tr("{n} combinations removed by the constraints.").format(n=space.filtered))
        bad = [r for r in (validate(self._info.params, self._info.rules, {**base, **pt}) for pt in space.points)
               if not r.ok]
        if bad:
            notes.append(self.tr("{bad} of them break a rule of the kernel and will show as failed ({why}).").format(
                bad=len(bad), why=next(iter(bad[0].errors.values()))))
        if self.tune_check.isChecked():
            notes.append(self.tr("A tune sweep: the fastest three are re-measured, interleaved, and ranked."))
        if n > _MANY_POINTS:
            notes.append(self.tr("That is many points: under the interpreter this can take minutes "
                                 "(Cancel with Esc keeps the points done so far)."))
        return notes


class SweepLauncher:
    """Sweep…: opens the window-modal (non-blocking) ``TuneSweepDialog`` for the kernel shown at
    ``panel``'s values; accepting it calls ``start(axes, where, mode)`` (the controller's).
    ``dialog`` is the one open (None when closed)."""

    def __init__(self, parent: QWidget, session: Session, panel: Any, can_submit: Callable[[], bool],
                 start: Callable[[dict[str, list[Any]], Sequence[str], str], Any]) -> None:
        self._parent, self._session, self._panel, self._can_submit, self._start = parent, session, panel, can_submit, start
        self.dialog: TuneSweepDialog | None = None

    def open(self) -> TuneSweepDialog | None:
        info = self._session.info()
        if info is None or not self._can_submit():
            return None
        dlg = TuneSweepDialog(info, self._panel.values(), self._parent,
                              interpreter=is_interpreter(self._panel.backend()) or not self._session.gpu_available)
        dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dlg.set_cluster(self._session.sweep_cluster)

        def accepted() -> None:
            self._session.sweep_cluster = dlg.cluster()  # kept for the next sweep too
            self._start(dlg.axes(), dlg.where(), dlg.mode())

        dlg.accepted.connect(accepted)
        self.dialog = dlg
        dlg.destroyed.connect(lambda *_: setattr(self, "dialog", None))
        dlg.open()
        return dlg
