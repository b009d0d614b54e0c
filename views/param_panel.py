"""ParamPanel: the editors for one kernel's parameters, validated as the user types.

Built from a ``KernelInfo``: its ``Param``s decide the editors and ``kernels.data.params.validate``
(the same function the CLI and the worker use) decides what is acceptable, so the panel never
holds its own copy of the rules. An invalid field gets a red frame and its reason in a label
right under it.

Editors, by parameter:
  - power-of-two constexpr (BLOCK_SIZE…): a spin box whose arrows double/halve; any integer
    can be typed, and a non-power of two is reported rather than silently rounded;
  - a parameter with allowed values (num_warps): a spin box whose arrows walk the allowed
    values; typing 3 shows why 3 is not allowed;
  - other small integers (num_stages, GROUP_SIZE_M): a spin box; out-of-range values can be
    typed and are reported;
  - shapes (N, M, K…): a text field, so "abc", "0", "-5" and "2**20" can all be typed;
  - dtype: a combo box of the kernel's dtypes; flags: check boxes;
  - the backend (GPU / Interpreter): a combo box; ``set_gpu_available(False, reason)`` disables
    GPU with the reason as its tooltip and a note under it.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, Signal
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QCheckBox,
    QComboBox,
    QFormLayout,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from kernels.data.backends import GPU, INTERPRETER, is_gpu, is_interpreter
from kernels.data.params import Param, Rule, validate
from kernels.data.results import KernelInfo

from . import theme
from .engine_words import engine_text
from .i18n import translate
from .kernel_texts import kernel_text
from .preview import preview

__all__ = ["ChoiceSpinBox", "IntSpinBox", "ParamPanel", "Pow2SpinBox"]

_INT_MIN, _INT_MAX = -(2**31) + 1, 2**31 - 1
BACKENDS: tuple[tuple[str, str], ...] = ((GPU, QT_TRANSLATE_NOOP("ParamPanel", "GPU")),
                                         (INTERPRETER, QT_TRANSLATE_NOOP("ParamPanel", "Interpreter (CPU)")))


class IntSpinBox(QSpinBox):
    """A spin box that accepts any typed integer (so bad values can be reported, not blocked),
    while its arrows stay within the parameter's own bounds."""

    def __init__(self, lo: int | None, hi: int | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._lo = lo if lo is not None else _INT_MIN
        self._hi = hi if hi is not None and hi <= _INT_MAX else _INT_MAX
        self.setRange(_INT_MIN, _INT_MAX)
        self.setAccelerated(True)
        self.setCorrectionMode(QAbstractSpinBox.CorrectionMode.CorrectToPreviousValue)

    def _step(self, value: int, up: bool) -> int:
        return value + (1 if up else -1)

    def stepBy(self, steps: int) -> None:
        v = self.value()
        for _ in range(abs(steps)):
            v = self._step(v, steps > 0)
        self.setValue(min(max(v, self._lo), self._hi))
        self.selectAll()

    def stepEnabled(self) -> QAbstractSpinBox.StepEnabledFlag:
        v = self.value()
        flags = QAbstractSpinBox.StepEnabledFlag.StepNone
        if v < self._hi:
            flags |= QAbstractSpinBox.StepEnabledFlag.StepUpEnabled
        if v > self._lo:
            flags |= QAbstractSpinBox.StepEnabledFlag.StepDownEnabled
        return flags

    def sizeHint(self):  # the huge typing range would otherwise make the box very wide
        s = super().sizeHint()
        s.setWidth(min(s.width(), self.fontMetrics().horizontalAdvance("0000000000") + 40))
        return s

    minimumSizeHint = sizeHint


class Pow2SpinBox(IntSpinBox):
    """Arrows go to the next/previous power of two (×2 / ÷2); typed values are kept as typed."""

    def _step(self, value: int, up: bool) -> int:
        if value < 1:
            return 1
        if up:  # 1024 -> 2048, and a typed 100 -> 128
            return 1 << value.bit_length()
        # 1024 -> 512, and a typed 100 -> 64
        return max(1, (value >> 1) if value & (value - 1) == 0 else 1 << (value.bit_length() - 1))


class ChoiceSpinBox(IntSpinBox):
    """Arrows walk through ``choices`` (num_warps: 1, 2, 4, 8, 16, 32); any integer can be typed."""

    def __init__(self, choices: tuple[int, ...], parent: QWidget | None = None) -> None:
        self._choices = sorted(int(c) for c in choices)
        super().__init__(self._choices[0], self._choices[-1], parent)

    def _step(self, value: int, up: bool) -> int:
        if up:
            return next((c for c in self._choices if c > value), self._choices[-1])
        return next((c for c in reversed(self._choices) if c < value), self._choices[0])


class _FieldFrame(QFrame):
    """Wraps an editor so an invalid value gets a red frame without restyling the editor itself
    (a style sheet border on a QSpinBox replaces its native arrows)."""

    def __init__(self, editor: QWidget, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("fieldFrame")
        lay = QHBoxLayout(self)
        lay.setContentsMargins(2, 2, 2, 2)
        lay.addWidget(editor)
        self.set_invalid(False)

    def set_invalid(self, invalid: bool) -> None:
        self.setProperty("invalid", invalid)
        colour = theme.FAIL if invalid else "transparent"
        self.setStyleSheet(f"QFrame#fieldFrame {{ border: 2px solid {colour}; border-radius: 4px; }}")


class _Field:
    """One parameter's editor, its frame and its error label."""

    def __init__(self, param: Param, editor: QWidget, frame: _FieldFrame, error: QLabel) -> None:
        self.param = param
        self.editor = editor
        self.frame = frame
        self.error = error

    def raw(self) -> Any:
        e = self.editor
        if isinstance(e, QSpinBox):
            return e.cleanText()  # the text as typed: an emptied box is an error, not the old value
        if isinstance(e, QLineEdit):
            return e.text()
        if isinstance(e, QComboBox):
            return e.currentData()
        if isinstance(e, QCheckBox):
            return e.isChecked()
        raise TypeError(type(e))

    def set(self, value: Any) -> None:
        e = self.editor
        if isinstance(e, QSpinBox):
            if isinstance(value, int) and not isinstance(value, bool) and _INT_MIN <= value <= _INT_MAX:
                e.setValue(value)
            else:
                e.lineEdit().setText(str(value))
        elif isinstance(e, QLineEdit):
            e.setText(str(value))
        elif isinstance(e, QComboBox):
            i = e.findData(value)
            if i >= 0:
                e.setCurrentIndex(i)
        elif isinstance(e, QCheckBox):
            e.setChecked(bool(value))


class ParamPanel(QWidget):
    """Editors for a kernel's parameters plus the backend choice.

    Signals:
      valuesChanged(dict): the typed values, emitted only when every field is valid and the
        values differ from the last emission.
      validityChanged(bool): emitted when the panel goes from valid to invalid or back.
      backendChanged(str): "gpu" or "interpreter".
    """

    valuesChanged = Signal(dict)
    validityChanged = Signal(bool)
    backendChanged = Signal(str)

    def __init__(self, info: KernelInfo | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        theme.configure()
        self._info: KernelInfo | None = None
        self._params: tuple[Param, ...] = ()
        self._rules: tuple[Rule, ...] = ()
        self._fields: dict[str, _Field] = {}
        self._valid = True
        self._values: dict[str, Any] = {}
        self._last_emitted: dict[str, Any] | None = None
        self._updating = False
        self._gpu_available = True
        self._gpu_reason = ""
        self._backend_chosen_by_user = False

        self.title = QLabel(self.tr("No kernel selected"), self)
        self.title.setStyleSheet("font-weight: bold; font-size: 11pt;")
        self._form_host = QWidget(self)
        self._form_layout = QVBoxLayout(self._form_host)
        self._form_layout.setContentsMargins(0, 0, 0, 0)
        scroll = QScrollArea(self)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(self._form_host)

        self.general_error = QLabel("", self)
        self.general_error.setObjectName("error_general")
        self.general_error.setWordWrap(True)
        self.general_error.setStyleSheet(f"color: {theme.FAIL};")
        self.general_error.hide()

        # backend
        self.backend_combo = QComboBox(self)
        for key, label in BACKENDS:
            self.backend_combo.addItem(self.tr(label), key)
        self.backend_combo.setToolTip(self.tr("Where the kernel runs: compiled on the GPU, or the Triton "
                                              "interpreter on the CPU (slow, but shows every access)"))
        self.backend_combo.currentIndexChanged.connect(self._on_backend)
        self.backend_combo.activated.connect(self._on_backend_activated)  # user clicks only
        self.backend_note = QLabel("", self)
        self.backend_note.setWordWrap(True)
        self.backend_note.setObjectName("backend_note")
        self.backend_note.setStyleSheet(f"color: {theme.ACCENT_WARN};")
        self.backend_note.hide()
        backend_box = QGroupBox(self.tr("Backend"), self)
        bl = QVBoxLayout(backend_box)
        bl.addWidget(self.backend_combo)
        bl.addWidget(self.backend_note)

        self.defaults_button = QPushButton(self.tr("Defaults"), self)
        self.defaults_button.setToolTip(self.tr("Put every parameter back to the kernel's default"))
        self.defaults_button.clicked.connect(self.reset_defaults)
        self.defaults_button.setEnabled(False)

        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addWidget(self.title)
        lay.addWidget(scroll, 1)
        lay.addWidget(self.general_error)
        lay.addWidget(backend_box)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(self.defaults_button)
        lay.addLayout(row)
        if info is not None:
            self.set_kernel(info)

    # -- building --------------------------------------------------------------------------------
    def set_kernel(self, info: KernelInfo, values: dict[str, Any] | None = None) -> None:
        """Rebuild the editors for ``info``; fields start at their defaults (or ``values``)."""
        self._info = info
        self._params = tuple(info.params)
        self._rules = tuple(info.rules)
        self.title.setText(f"{kernel_text(info.title)}  ·  {info.name}")
        self.title.setToolTip(kernel_text(info.summary))
        while self._form_layout.count():
            w = self._form_layout.takeAt(0).widget()
            if w is not None:
                w.deleteLater()
        self._fields = {}
        groups: list[tuple[str, tuple[str, ...]]] = [
            (self.tr("Block sizes and constants"), ("constexpr",)),
            (self.tr("Launch options"), ("launch",)),
            (self.tr("Problem"), ("shape", "dtype", "flag")),
        ]
        self.launch_note = None
        for title, kinds in groups:
            params = [p for p in self._params if p.kind in kinds]
            if not params:
                continue
            box = QGroupBox(title, self._form_host)
            form = QFormLayout(box)
            form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
            # too narrow for a name and its field side by side (GROUP_SIZE_M in a laptop's column,
            # in Chinese): the field goes under its name rather than past the column's edge
            form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
            for p in params:
                label, cell = self._make_field(p, box)
                form.addRow(label, cell)
            if "launch" in kinds:
                self.launch_note = QLabel(self.tr("No effect under the interpreter (it ignores launch options)."), box)
                self.launch_note.setWordWrap(True)
                self.launch_note.setStyleSheet("color: #666; font-style: italic;")
                form.addRow(self.launch_note)
            self._form_layout.addWidget(box)
        self._form_layout.addStretch(1)
        self.defaults_button.setEnabled(True)
        self._last_emitted = None
        self._updating = True
        try:
            for p in self._params:
                self._fields[p.name].set(p.default)
            for k, v in (values or {}).items():
                if k in self._fields:
                    self._fields[k].set(v)
        finally:
            self._updating = False
        self._update_launch_note()
        self._revalidate()

    def _make_field(self, p: Param, parent: QWidget) -> tuple[QLabel, QWidget]:
        editor: QWidget
        if p.kind == "dtype":
            editor = QComboBox(parent)
            for c in p.choices or ():
                editor.addItem(c, c)
            editor.currentIndexChanged.connect(self._on_edit)
        elif p.kind == "flag":
            editor = QCheckBox(parent)
            editor.toggled.connect(self._on_edit)
        elif p.kind == "shape" or (p.max is not None and p.max > _INT_MAX):
            editor = QLineEdit(parent)
            editor.setPlaceholderText(self.tr("integer, e.g. 4096 or 2**20"))
            editor.textChanged.connect(self._on_edit)
        else:
            if p.choices:
                editor = ChoiceSpinBox(tuple(p.choices), parent)
            elif p.pow2:
                editor = Pow2SpinBox(p.min, p.max, parent)
            else:
                editor = IntSpinBox(p.min, p.max, parent)
            editor.textChanged.connect(self._on_edit)
        editor.setObjectName(f"edit_{p.name}")
        # narrower than a spin box asks (room for its largest value, 124 px): in a laptop's 218 px
        # column the fields were cut at the right under a sideways scroll bar; they grow to the room
        editor.setMinimumWidth(56)
        editor.setToolTip(_describe(p))
        frame = _FieldFrame(editor, parent)
        error = QLabel("", parent)
        error.setObjectName(f"error_{p.name}")
        error.setWordWrap(True)
        error.setStyleSheet(f"color: {theme.FAIL};")
        error.hide()
        cell = QWidget(parent)
        v = QVBoxLayout(cell)
        v.setContentsMargins(0, 0, 0, 0)
        v.setSpacing(1)
        v.addWidget(frame)
        v.addWidget(error)
        label = QLabel(p.name, parent)
        label.setToolTip(_describe(p))
        self._fields[p.name] = _Field(p, editor, frame, error)
        return label, cell

    # -- public API ------------------------------------------------------------------------------
    def kernel(self) -> KernelInfo | None:
        return self._info

    def editor(self, name: str) -> QWidget:
        """The editor widget of parameter ``name`` (QSpinBox, QLineEdit, QComboBox or QCheckBox)."""
        return self._fields[name].editor

    def values(self) -> dict[str, Any]:
        """The typed values of the fields as they stand (fields that do not parse are left out;
        check ``is_valid()`` before using them)."""
        return dict(self._values)

    def set_values(self, values: dict[str, Any]) -> None:
        """Put ``values`` into the editors (names the kernel does not have are ignored), then
        validate once and emit as a user edit would."""
        self._updating = True
        try:
            for k, v in values.items():
                if k in self._fields:
                    self._fields[k].set(v)
        finally:
            self._updating = False
        self._revalidate()

    def reset_defaults(self) -> None:
        self.set_values({p.name: p.default for p in self._params})

    def is_valid(self) -> bool:
        return self._valid

    def error_for(self, name: str) -> str:
        """The reason shown under field ``name`` ("" if none); ``"general"`` for rule errors
        that name no field."""
        if name == "general":
            return self.general_error.text()
        f = self._fields.get(name)
        return f.error.text() if f is not None else ""

    def is_marked(self, name: str) -> bool:
        """Whether field ``name`` has the red frame (a rule's secondary fields are framed but
        only its first field shows the message)."""
        f = self._fields.get(name)
        return bool(f and f.frame.property("invalid"))

    def mark_field(self, name: str, reason: str) -> bool:
        """Mark field ``name`` invalid with ``reason`` under it: for an error the panel's own
        checks cannot foresee (the worker's "too large for this device"). The mark stays until
        ``clear_marks`` or the next edit, which revalidates every field. Returns False when
        the kernel has no such field."""
        f = self._fields.get(name)
        if f is None:
            return False
        f.frame.set_invalid(True)
        f.error.setText(reason)
        f.error.show()
        return True

    def clear_marks(self) -> None:
        """Drop the marks ``mark_field`` set: every field shows its own checks' verdict again."""
        self._revalidate()

    def errors(self) -> dict[str, str]:
        out = {n: f.error.text() for n, f in self._fields.items() if f.error.text()}
        if self.general_error.text():
            out["general"] = self.general_error.text()
        return out

    def backend(self) -> str:
        return self.backend_combo.currentData()

    def set_backend(self, backend: str) -> None:
        """Select "gpu" or "interpreter" (GPU is refused while unavailable)."""
        i = self.backend_combo.findData(backend)
        if i < 0:
            raise ValueError(f"unknown backend {backend!r}")
        if is_gpu(backend) and not self._gpu_available:
            return
        self.backend_combo.setCurrentIndex(i)

    def set_gpu_available(self, available: bool, reason: str = "") -> None:
        """Enable or disable the GPU choice; when disabled, ``reason`` is its tooltip and a note."""
        self._gpu_available = bool(available)
        reason = engine_text(reason)  # the engine's English, in the window's language
        self._gpu_reason = reason
        item = self.backend_combo.model().item(self.backend_combo.findData(GPU))
        item.setEnabled(self._gpu_available)
        item.setToolTip("" if available else reason)
        if not available:
            self.backend_note.setText(self.tr("GPU unavailable: {reason}. Runs use the Triton interpreter on the CPU.")
                                      .format(reason=reason or self.tr("no CUDA device")))
            self.backend_note.show()
            if is_gpu(self.backend()):
                self.backend_combo.setCurrentIndex(self.backend_combo.findData(INTERPRETER))
        else:
            self.backend_note.hide()
            self.backend_note.setText("")
            if not is_gpu(self.backend()) and not self._backend_chosen_by_user:
                self.backend_combo.setCurrentIndex(self.backend_combo.findData(GPU))

    def gpu_available(self) -> bool:
        return self._gpu_available

    # -- internals -------------------------------------------------------------------------------
    def _on_backend_activated(self, _index: int) -> None:
        self._backend_chosen_by_user = True

    def _on_backend(self, _index: int) -> None:
        self._update_launch_note()
        self.backendChanged.emit(self.backend())

    def _update_launch_note(self) -> None:
        if getattr(self, "launch_note", None) is not None:
            self.launch_note.setVisible(is_interpreter(self.backend()))

    def _on_edit(self, *_: Any) -> None:
        if not self._updating:
            self._revalidate()

    def _revalidate(self) -> None:
        raw = {name: f.raw() for name, f in self._fields.items()}
        result = validate(self._params, self._rules, raw)
        errors = dict(result.errors)
        framed = set(errors)
        params_ok = all(p.name in result.values and p.check(result.values[p.name]) is None
                        for p in self._params)
        if errors and params_ok:
            # the errors come from rules: frame every field a violated rule names
            for r in self._rules:
                try:
                    broken = not r.holds(result.values)
                except Exception:  # a broken rule is reported by validate(); frame its fields too
                    broken = True
                if broken:
                    framed.update(r.fields)
        for name, f in self._fields.items():
            msg = errors.get(name, "")
            f.error.setText(msg)
            f.error.setVisible(bool(msg))
            f.frame.set_invalid(name in framed)
        general = "; ".join(v for k, v in errors.items() if k not in self._fields)
        self.general_error.setText(general)
        self.general_error.setVisible(bool(general))
        self._values = dict(result.values)
        valid = result.ok
        if valid != self._valid:
            self._valid = valid
            self.validityChanged.emit(valid)
        if valid and self._values != self._last_emitted:
            self._last_emitted = dict(self._values)
            self.valuesChanged.emit(dict(self._values))


def _describe(p: Param) -> str:
    bits = [p.help or p.name]
    if p.choices:
        bits.append(translate("ParamPanel", "allowed: {values}").format(values=", ".join(str(c) for c in p.choices)))
    else:
        if p.min is not None or p.max is not None:
            bits.append(translate("ParamPanel", "range: {lo} … {hi}").format(
                lo=p.min if p.min is not None else "−∞", hi=p.max if p.max is not None else "∞"))
        if p.pow2:
            bits.append(translate("ParamPanel", "a power of two (arrows ×2 / ÷2)"))
    bits.append(translate("ParamPanel", "default: {value}").format(value=p.default))
    return "\n".join(bits)


def _demo() -> QWidget:  # pragma: no cover - manual preview
    from .demo_results import matmul_info

    w = ParamPanel(matmul_info())
    w.set_gpu_available(False, "torch.cuda.is_available() is False (demo)")
    w.valuesChanged.connect(lambda v: print("valuesChanged", v))
    w.validityChanged.connect(lambda ok: print("validityChanged", ok))
    w.resize(380, 720)
    return w


if __name__ == "__main__":  # pragma: no cover
    preview(_demo)
