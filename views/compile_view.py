"""CompileView: what the compiler made of the kernel — resources, occupancy, and the IR texts.

A target chooser on top: "last run" shows the facts of the latest run (what this GPU compiled),
and a GPU architecture (sm_80, sm_89, sm_90, sm_100) asks for the kernel to be compiled for it
(``targetRequested``): the window compiles in its worker, on the CPU, no GPU needed, and hands the
facts back (``show_target_facts``) or one line saying why not (``show_target_error``).

A small form (registers per thread, spills, shared memory, num_warps, num_stages, programs per
SM, the occupancy limiter, waves) above tabs holding the IR texts Triton kept (ttir, ttgir,
llir, ptx, sass: only those present), monospace and read-only, with a find box. Interpreter
runs compile nothing, and the panel says so instead of showing empty numbers.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QT_TRANSLATE_NOOP, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QKeySequence, QShortcut, QTextCharFormat, QTextCursor, QTextDocument
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QStackedWidget,
    QTabWidget,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from kernels.data.results import CompileFacts

from . import theme
from .elided_label import ElidedLabel
from .i18n import translate
from .preview import preview

__all__ = ["IR_ORDER", "TARGETS", "CompileView"]

#: the order a reader goes down the compiler: Triton IR, its GPU form, LLVM IR, PTX, machine code
IR_ORDER: tuple[str, ...] = ("ttir", "ttgir", "llir", "ptx", "sass")
INTERPRETER_MESSAGE = QT_TRANSLATE_NOOP("CompileView", "No compile facts: the interpreter does not compile.\n"
                                        "It runs the kernel's Python body on the CPU, so there are no "
                                        "registers, shared memory or IR to show. Run on the GPU to see them.")
EMPTY_MESSAGE = QT_TRANSLATE_NOOP("CompileView", "No run yet.")
#: the architectures the target chooser offers (data-centre Ampere, Ada, Hopper, Blackwell)
TARGETS: tuple[str, ...] = ("sm_80", "sm_89", "sm_90", "sm_100")
#: how long the target chooser waits for the choice to rest before asking for a compile (ms)
TARGET_DEBOUNCE_MS = 250
#: ``CompileFacts.occupancy_limiter``'s words, shown translated
LIMITERS = (QT_TRANSLATE_NOOP("CompileView", "registers"), QT_TRANSLATE_NOOP("CompileView", "shared memory"),
            QT_TRANSLATE_NOOP("CompileView", "warps"), QT_TRANSLATE_NOOP("CompileView", "blocks"))


_MESSAGE_STYLE = "color: #555; font-size: 11pt; padding: 24px;"


def _or_dash(v: object, fmt: str = "{}") -> str:
    return "—" if v is None else fmt.format(v)


class CompileView(QWidget):
    """Compile facts of the latest GPU run, or of a compile for a chosen target.

    Signals: targetRequested(str target) — the user chose a target ("sm_90") or pressed Compile."""

    targetRequested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        theme.configure()
        self._facts: CompileFacts | None = None
        self._matches = 0
        # the latest run's facts (or why there are none), shown when "last run" is chosen
        self._run: tuple[CompileFacts | None, str | None] = (None, self.tr(EMPTY_MESSAGE))
        self._target_row = self._build_target_row()

        self.message = QLabel(self.tr(EMPTY_MESSAGE), self)
        self.message.setObjectName("message")
        self.message.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.message.setWordWrap(True)
        self.message.setStyleSheet(_MESSAGE_STYLE)

        body = QWidget(self)
        self.fields: dict[str, QLabel] = {}
        rows = (("regs", self.tr("registers / thread"), self.tr("32-bit registers each thread holds (n_regs)")),
                ("spills", self.tr("spills"), self.tr("registers spilled to local memory (slow): 0 is what you want")),
                ("shared", self.tr("shared memory"), self.tr("shared memory per program (metadata.shared)")),
                ("warps", "num_warps", self.tr("warps per program (32 threads each)")),
                ("stages", "num_stages", self.tr("software-pipelining stages")),
                ("per_sm", self.tr("programs per SM"), self.tr("how many programs fit on one SM at once")),
                ("limiter", self.tr("occupancy limited by"), self.tr("the resource that stops more programs fitting")),
                ("occupancy", self.tr("active warps"), self.tr("resident warps / the SM's maximum")),
                ("waves", self.tr("waves"),
                 self.tr("programs / (SMs × programs per SM): a tail wave below 1 idles SMs")))
        left, right = QFormLayout(), QFormLayout()
        for i, (key, label, tip) in enumerate(rows):
            v = QLabel("—", body)
            v.setObjectName(f"value_{key}")
            v.setToolTip(tip)
            v.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            lab = QLabel(label, body)
            lab.setToolTip(tip)
            (left if i < 5 else right).addRow(lab, v)
            self.fields[key] = v
        facts_row = QHBoxLayout()
        facts_row.addLayout(left, 1)
        facts_row.addSpacing(24)
        facts_row.addLayout(right, 1)

        self.find_edit = QLineEdit(body)
        self.find_edit.setPlaceholderText(self.tr("Find in this IR (Enter: next, Shift+Enter: previous)"))
        self.find_edit.setClearButtonEnabled(True)
        self.find_edit.textChanged.connect(self._highlight_all)
        self.find_edit.returnPressed.connect(lambda: self.find_next())
        QShortcut(QKeySequence("Shift+Return"), self.find_edit, activated=lambda: self.find_next(backward=True))
        self.prev_button = QPushButton("◀", body)
        self.prev_button.setToolTip(self.tr("Previous match"))
        self.prev_button.clicked.connect(lambda: self.find_next(backward=True))
        self.next_button = QPushButton("▶", body)
        self.next_button.setToolTip(self.tr("Next match"))
        self.next_button.clicked.connect(lambda: self.find_next())
        for b in (self.prev_button, self.next_button):
            b.setFixedWidth(32)
        self.match_label = QLabel("", body)
        self.match_label.setObjectName("match_label")
        QShortcut(QKeySequence.StandardKey.Find, self, activated=self.find_edit.setFocus)
        find_row = QHBoxLayout()
        find_label = QLabel(body)
        find_label.setPixmap(theme.icon("find").pixmap(16, 16))
        find_row.addWidget(find_label)
        find_row.addWidget(self.find_edit, 1)
        find_row.addWidget(self.prev_button)
        find_row.addWidget(self.next_button)
        find_row.addWidget(self.match_label)

        self.tabs = QTabWidget(body)
        self.tabs.currentChanged.connect(lambda _i: self._highlight_all())
        self.no_ir = QLabel(self.tr("Triton kept no IR text for this run."), body)
        self.no_ir.hide()

        bl = QVBoxLayout(body)
        bl.setContentsMargins(0, 0, 0, 0)
        bl.addLayout(facts_row)
        bl.addLayout(find_row)
        bl.addWidget(self.tabs, 1)
        bl.addWidget(self.no_ir)

        self.stack = QStackedWidget(self)
        self.stack.addWidget(self.message)
        self.stack.addWidget(body)
        self._body = body
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addLayout(self._target_row)
        lay.addWidget(self.stack, 1)

    def _build_target_row(self) -> QHBoxLayout:
        self.target_combo = QComboBox(self)
        self.target_combo.setObjectName("target_combo")
        self.target_combo.setToolTip(self.tr("Compile the kernel, at the parameters shown, for this GPU architecture "
                                             "(on this machine: no GPU needed)"))
        self.target_combo.addItem(self.tr("last run"), "")
        for t in TARGETS:
            self.target_combo.addItem(t, t)
        self.target_combo.currentIndexChanged.connect(self._on_target_chosen)
        # a target is asked for once the choice rests: arrowing or typing through the list would
        # otherwise start a compile (seconds) for every item passed
        self._ask_timer = QTimer(self)
        self._ask_timer.setSingleShot(True)
        self._ask_timer.setInterval(TARGET_DEBOUNCE_MS)
        self._ask_timer.timeout.connect(lambda: self._request(self.current_target()))
        self.compile_button = QPushButton(self.tr("Compile"), self)
        self.compile_button.setObjectName("compile_button")
        self.compile_button.setToolTip(self.tr("Compile again for the chosen target, with the parameters shown now"))
        self.compile_button.setEnabled(False)
        self.compile_button.clicked.connect(lambda: self._request(self.current_target()))
        # beside the button, one line (the notes in full in its tooltip): wrapped, they squeezed the IR
        self.target_note = ElidedLabel("", self)
        self.target_note.setObjectName("target_note")
        self.target_note.setStyleSheet("color: #555;")
        label = QLabel(self.tr("Compile for:"), self)
        label.setBuddy(self.target_combo)
        row = QHBoxLayout()
        row.addWidget(label)
        row.addWidget(self.target_combo)
        row.addWidget(self.compile_button)
        row.addSpacing(8)
        row.addWidget(self.target_note, 1)
        return row

    # -- public API ----------------------------------------------------------------------------
    def set_facts(self, facts: CompileFacts | None, reason: str | None = None) -> None:
        """The latest run's ``facts``, shown while "last run" is chosen (kept for it otherwise).
        None means nothing was compiled: the message is ``reason`` if given, else that the
        interpreter does not compile (the app passes None for interpreter runs)."""
        self._run = (facts, reason)
        if not self.current_target():
            self._display(facts, reason)

    def set_gpu_name(self, name: str | None) -> None:
        """Name the GPU the runs use ("last run" then reads "this GPU (name): last run")."""
        self.target_combo.setItemText(0, self.tr("this GPU ({name}): last run").format(name=name) if name
                                      else self.tr("last run"))

    def targets(self) -> list[str]:
        """The targets offered, in order ("" is the last run)."""
        return [self.target_combo.itemData(i) for i in range(self.target_combo.count())]

    def current_target(self) -> str:
        """The chosen target ("sm_90"), or "" for the last run's facts."""
        return self.target_combo.currentData() or ""

    def select_target(self, target: str) -> bool:
        """Choose ``target`` ("" for the last run), as the combo does; False if not offered."""
        i = self.target_combo.findData(target)
        if i < 0:
            return False
        self.target_combo.setCurrentIndex(i)
        return True

    def show_compiling(self, target: str, kernel: str) -> None:
        """A compile of ``kernel`` for ``target`` is under way."""
        self._display(None, self.tr("Compiling {kernel} for {target}…").format(kernel=kernel, target=target))
        self._set_note("")

    def show_target_facts(self, target: str, facts: CompileFacts, notes: Sequence[str] = ()) -> None:
        """The facts of a compile for ``target`` (ignored when another target is chosen now)."""
        if target != self.current_target():
            return
        self._display(facts)
        self._set_note(" · ".join(notes))

    def show_target_error(self, target: str, message: str) -> None:
        """A compile for ``target`` failed: one line saying why, where the facts would be."""
        if target != self.current_target():
            return
        line = (message.strip().splitlines() or [""])[0]
        self._display(None, self.tr("Could not compile for {target}: {why}").format(target=target, why=line))
        self.message.setStyleSheet(f"color: {theme.FAIL}; font-size: 11pt; padding: 24px;")
        self._set_note("")

    def mark_target_stale(self) -> None:
        """The parameters changed since the shown compile for a target."""
        if self.current_target() and self._facts is not None:
            stale = self.tr("the parameters changed since: press Compile to update")
            if not self.target_note.text().startswith("⚠"):
                self._set_note(f"⚠ {stale} · {self.target_note.text()}")
    def _display(self, facts: CompileFacts | None, reason: str | None = None) -> None:
        self._facts = facts
        if facts is None:
            self.message.setText(reason or self.tr(INTERPRETER_MESSAGE))
            self.message.setStyleSheet(_MESSAGE_STYLE)
            self.stack.setCurrentWidget(self.message)
            self._clear_tabs()
            return
        f = self.fields
        f["regs"].setText(_or_dash(facts.n_regs))
        f["spills"].setText(_or_dash(facts.n_spills))
        spilled = bool(facts.n_spills)
        f["spills"].setStyleSheet(f"color: {theme.FAIL}; font-weight: bold;" if spilled else "")
        if spilled:
            f["spills"].setText(self.tr("{n} (registers spilled to local memory: slow)").format(n=facts.n_spills))
        f["shared"].setText("—" if facts.shared_bytes is None else _bytes(facts.shared_bytes))
        f["warps"].setText(self.tr("{warps} ({threads} threads / program)").format(
            warps=facts.num_warps, threads=facts.num_warps * 32))
        f["stages"].setText(str(facts.num_stages))
        f["per_sm"].setText(_or_dash(facts.programs_per_sm))
        f["limiter"].setText(self.tr(facts.occupancy_limiter) if facts.occupancy_limiter else "—")
        f["occupancy"].setText(_or_dash(facts.occupancy_warps_pct, "{:.0f}%"))
        if facts.waves is None:
            f["waves"].setText("—")
        else:
            if facts.n_sms:
                text = self.tr("{waves:.2f} ({n:,} programs on {sms} SMs)")
            else:
                text = self.tr("{waves:.2f} ({n:,} programs)")
            f["waves"].setText(text.format(waves=facts.waves, n=facts.n_programs, sms=facts.n_sms))
        self._clear_tabs()
        keys = [k for k in IR_ORDER if facts.asm.get(k)] + sorted(k for k in facts.asm if k not in IR_ORDER
                                                                 and facts.asm[k])
        for k in keys:
            ed = QPlainTextEdit(self.tabs)
            ed.setObjectName(f"ir_{k}")
            ed.setReadOnly(True)
            ed.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
            ed.setFont(theme.mono_font())
            text = facts.asm[k]
            ed.setPlainText(text if isinstance(text, str) else repr(text))
            self.tabs.addTab(ed, k)
        self.no_ir.setVisible(not keys)
        self.tabs.setVisible(bool(keys))
        self.stack.setCurrentWidget(self._body)
        self._highlight_all()

    def facts(self) -> CompileFacts | None:
        return self._facts

    def tab_names(self) -> list[str]:
        return [self.tabs.tabText(i) for i in range(self.tabs.count())]

    def show_ir(self, name: str) -> bool:
        """Switch to the tab of IR ``name`` ("ptx"…); False if this run has no such text."""
        names = self.tab_names()
        if name not in names:
            return False
        self.tabs.setCurrentIndex(names.index(name))
        return True

    def current_editor(self) -> QPlainTextEdit | None:
        w = self.tabs.currentWidget()
        return w if isinstance(w, QPlainTextEdit) else None

    def find_next(self, text: str | None = None, backward: bool = False) -> bool:
        """Select the next (or previous) match of ``text`` (default: the find box) in the shown
        IR, wrapping around. Returns whether there was a match."""
        ed = self.current_editor()
        needle = self.find_edit.text() if text is None else text
        if ed is None or not needle:
            return False
        flags = QTextDocument.FindFlag.FindBackward if backward else QTextDocument.FindFlag(0)
        if ed.find(needle, flags):
            return True
        cur = ed.textCursor()  # wrap around
        cur.movePosition(QTextCursor.MoveOperation.End if backward else QTextCursor.MoveOperation.Start)
        ed.setTextCursor(cur)
        return ed.find(needle, flags)

    def match_count(self) -> int:
        """Matches (case-insensitive) of the find box's text in the shown IR."""
        return self._matches

    # -- internals -----------------------------------------------------------------------------
    def _on_target_chosen(self, _index: int) -> None:
        target = self.current_target()
        self.compile_button.setEnabled(bool(target))
        if target:
            self._ask_timer.start()
        else:
            self._ask_timer.stop()
            self._set_note("")
            self._display(*self._run)

    def _request(self, target: str) -> None:
        self._ask_timer.stop()
        if target:
            self.targetRequested.emit(target)

    def _set_note(self, text: str) -> None:
        self.target_note.setText(text)

    def _clear_tabs(self) -> None:
        while self.tabs.count():
            w = self.tabs.widget(0)
            self.tabs.removeTab(0)
            w.deleteLater()

    def _highlight_all(self, *_: object) -> None:
        """Mark every match in the shown IR (case-insensitive), and count them."""
        ed = self.current_editor()
        needle = self.find_edit.text()
        if ed is None:
            self.match_label.setText("")
            self._matches = 0
            return
        selections = []
        if needle:
            fmt = QTextCharFormat()
            fmt.setBackground(QColor("#ffe066"))
            doc = ed.document()
            cur = doc.find(needle, 0)
            while not cur.isNull() and len(selections) < 5000:
                sel = QTextEdit.ExtraSelection()
                sel.cursor = cur
                sel.format = fmt
                selections.append(sel)
                cur = doc.find(needle, cur)
        ed.setExtraSelections(selections)
        self._matches = len(selections)
        if needle:
            n = len(selections)
            self.match_label.setText((self.tr("{n} match") if n == 1 else self.tr("{n} matches")).format(n=n))
        else:
            self.match_label.setText("")


def _bytes(n: int) -> str:
    if n == 0:
        return translate("CompileView", "0 B (none used)")
    if n < 1024:
        return f"{n} B"
    return f"{n / 1024:.1f} KiB ({n:,} B)"


def _demo() -> QWidget:  # pragma: no cover - manual preview
    from .demo_results import demo_compile_facts

    w = CompileView()
    w.set_facts(demo_compile_facts())
    w.resize(760, 560)
    return w


if __name__ == "__main__":  # pragma: no cover
    preview(_demo)
