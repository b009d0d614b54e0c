"""LessonView: the Lessons panel — pick a lesson, read it, fix the file, check it, see why.

Left, the lessons with their progress marks (✓ passed, ✗ tried, ○ new). Middle, the statement
(Markdown) and the hints, one at a time, then the solution, only on request and after a
confirmation. Right, the learner's file in an editor (``LessonEditor``), the Check button and
the result (``LessonResultView``).

The panel never runs a check: Check saves the file and emits ``checkRequested(name, path,
lang)``; the app runs ``kernels.lessons.check_lesson`` in its worker and hands the
``LessonResult`` back to ``show_result`` (or a failure to ``show_check_error``). Progress (passes,
attempts, hints seen) is kept with ``kernels.lessons``' own helpers in the folder the app gives.
"""

from __future__ import annotations

import html
from pathlib import Path

from PySide6.QtCore import QEvent, Qt, Signal, Slot
from PySide6.QtGui import QBrush, QColor, QFont, QTextCharFormat, QTextCursor, QTextDocument, QTextFormat
from PySide6.QtWidgets import (
    QFrame,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QScrollArea,
    QSplitter,
    QTabWidget,
    QTextBrowser,
    QWidget,
)

from kernels.data.lessons.progress import (
    Progress,
    load_progress,
    next_lesson,
    record_hint,
    record_result,
    save_progress,
)
from kernels.data.lessons.result import LessonInfo, LessonResult
from kernels.data.lessons.texts import (
    hints,
    lesson_text,
    list_lessons,
    normalize_lang,
    solution_text,
    write_starter,
)

from .. import theme
from ..i18n import current_language
from ..layout import column, row
from ..source_view import SourceView
from .editor import LessonEditor
from .language import Retranslating, set_texts
from .question_bar import QuestionBar
from .result_view import LessonResultView

__all__ = ["LessonView"]

NAME_ROLE = Qt.ItemDataRole.UserRole + 1


class LessonView(Retranslating, QWidget):
    """The Lessons panel.

    Signals:
      checkRequested(str name, str path, str lang): Check was pressed (the file is saved); run
        ``check_lesson(name, path, lang)`` off the GUI thread and call ``show_result``.
      showInGridRequested(object trace): show this ``Trace`` in the grid view.
      lessonChanged(str name): another lesson was opened.
      progressChanged(object progress): the progress (a ``kernels.lessons.Progress``) was saved.
    Slots: ``show_result(LessonResult)``, ``show_check_error(str)``.
    """

    checkRequested = Signal(str, str, str)
    showInGridRequested = Signal(object)
    lessonChanged = Signal(str)
    progressChanged = Signal(object)

    def __init__(self, work_dir: str | Path, progress_dir: str | Path, lang: str | None = None,
                 parent: QWidget | None = None) -> None:
        """``work_dir``: where the learner's files live (one ``<nn>_<name>.py`` per lesson, made
        from the starter when missing); ``progress_dir``: where the progress file is kept;
        ``lang``: the lesson texts' language (default: the one ``views.i18n`` put in use). The
        panel follows a later language switch of the application."""
        super().__init__(parent)
        theme.configure()
        self._work_dir = Path(work_dir).expanduser()
        self._progress_dir = Path(progress_dir).expanduser()
        self._lang = normalize_lang(lang or current_language())
        self._lessons: list[LessonInfo] = list_lessons()
        self._progress: Progress = load_progress(self._progress_dir)
        self._results: dict[str, LessonResult] = {}  # the last result of each lesson, this session
        self._current: str | None = None
        self._checking: str | None = None  # the lesson whose check is running
        self._solution_shown: set[str] = set()

        self.lesson_list = QListWidget(self)
        self.lesson_list.currentItemChanged.connect(self._on_lesson_item)
        self.statement = QTextBrowser(self)
        self.statement.setOpenExternalLinks(True)
        self.statement.document().setDocumentMargin(10)
        self._build_hints()
        self.editor = LessonEditor(self)
        self.solution_view = SourceView(self)
        self.solution_view.hide()  # a tab once the solution is asked for
        self.tabs = QTabWidget(self)
        self.tabs.addTab(self.editor, "")
        self.check_button = QPushButton(self)
        self.check_button.setDefault(True)
        self.check_button.setStyleSheet("QPushButton { font-weight: bold; padding: 4px 18px; }")
        self.check_button.clicked.connect(self.request_check)
        self.result_view = LessonResultView(self)
        self.result_view.showInGridRequested.connect(self.showInGridRequested)
        result_scroll = QScrollArea(self)
        result_scroll.setWidgetResizable(True)
        result_scroll.setFrameShape(QFrame.Shape.NoFrame)
        result_scroll.setWidget(self.result_view)
        self._layout(result_scroll)
        self.retranslate()
        self._fill_list()
        names = [i.name for i in self._lessons]
        first = next_lesson(self._progress, names) or (names[0] if names else None)
        if first is not None:
            self.select_lesson(first)
        if self._progress.warning:  # the saved progress was damaged (kept aside): say so
            self.status.setText(self._progress.warning)

    def _build_hints(self) -> None:
        self.hints_title = QLabel(self)
        self.hints_title.setStyleSheet("font-weight: bold;")
        self.hints_label = QLabel(self)
        self.hints_label.setObjectName("hints")
        self.hints_label.setWordWrap(True)
        self.hints_label.setTextFormat(Qt.TextFormat.RichText)
        self.hints_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.hint_button = QPushButton(self)
        self.hint_button.clicked.connect(self.next_hint)
        self.solution_button = QPushButton(self)
        self.solution_button.clicked.connect(self._ask_solution)
        self.confirm_bar = QuestionBar(self.show_solution, lambda: self.confirm_bar.hide(), self, stacked=True)
        self.confirm_label = self.confirm_bar.label
        self.confirm_yes, self.confirm_no = self.confirm_bar.yes_button, self.confirm_bar.no_button

    def _layout(self, result_scroll: QScrollArea) -> None:
        middle = QWidget(self)
        column(middle, (self.statement, 1), self.hints_title, self.hints_label,
               row(self.hint_button, self.solution_button, (QWidget(), 1)), self.confirm_bar, margin=0)
        right = QSplitter(Qt.Orientation.Vertical, self)
        top = QWidget(right)
        self.status = QLabel(self)
        self.status.setStyleSheet("color: #666;")
        column(top, (self.tabs, 1), row(self.check_button, (self.status, 1)), margin=0)
        right.addWidget(top)
        right.addWidget(result_scroll)
        right.setStretchFactor(0, 1)
        right.setStretchFactor(1, 1)
        right.setSizes([420, 340])
        self._right = right
        split = QSplitter(Qt.Orientation.Horizontal, self)
        for w, stretch in ((self.lesson_list, 0), (middle, 2), (right, 3)):
            split.addWidget(w)
            split.setStretchFactor(split.count() - 1, stretch)
        split.setSizes([230, 470, 660])
        split.setChildrenCollapsible(False)
        self._split = split
        self.lesson_list.setMinimumWidth(150)
        self.lesson_list.setWordWrap(True)
        self.lesson_list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        column(self, (split, 1))

    #: below this width the list, the statement and the editor stack top to bottom (a panel docked
    #: beside the grid on a laptop is ~340 px wide: side by side, the editor got a sliver)
    NARROW_PX = 720

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        want = Qt.Orientation.Vertical if self.width() < self.NARROW_PX else Qt.Orientation.Horizontal
        if self._split.orientation() != want:
            self._split.setOrientation(want)
            if want == Qt.Orientation.Vertical:  # the list and the statement short, the editor the rest
                h = max(self.height(), 400)
                self._split.setSizes([int(h * 0.12), int(h * 0.2), int(h * 0.68)])
                self._right.setSizes([int(h * 0.5), int(h * 0.18)])  # the editor before the (empty) result

    # ------------------------------------------------------------------ public API
    def language(self) -> str:
        return self._lang

    def set_language(self, lang: str) -> None:
        """Show the lesson texts (statement, hints, titles) in ``lang``; the next check's
        messages come in it too. The panel's own words follow Qt's translator."""
        self._lang = normalize_lang(lang)
        self._fill_list()
        if self._current is not None:
            self._show_texts(self._current)
            if not self.editor.is_modified():  # an untouched starter follows the language
                path = write_starter(self._current, self._work_dir, lang=self._lang)
                if self.editor.text() != path.read_text(encoding="utf-8"):
                    self.editor.open(path)
            if self.solution_visible():
                self.solution_view.set_source(solution_text(self._current, self._lang), 1)

    def lesson_names(self) -> list[str]:
        return [i.name for i in self._lessons]

    def current_lesson(self) -> str | None:
        return self._current

    def select_lesson(self, name: str) -> bool:
        """Open lesson ``name`` (its file is made from the starter if missing). False if unknown."""
        for r in range(self.lesson_list.count()):
            if self.lesson_list.item(r).data(NAME_ROLE) == name:
                self.lesson_list.setCurrentRow(r)
                return True
        return False

    def lesson_path(self, name: str | None = None) -> Path | None:
        name = name or self._current
        if name is None:
            return None
        return self._work_dir / f"{self._info(name).folder}.py"

    def progress(self) -> Progress:
        return self._progress

    def is_checking(self) -> bool:
        return self._checking is not None

    def hints_shown(self) -> int:
        return self._progress.state(self._current).hints_shown if self._current else 0

    @Slot()
    def request_check(self) -> None:
        """Save the file and ask for a check (what the Check button does)."""
        if self._current is None or self._checking is not None:
            return
        path = self.editor.save() or self.lesson_path()
        self._checking = self._current
        self.check_button.setEnabled(False)
        self.editor.mark_line(None)
        self.result_view.set_checking()
        self.status.setText(self.tr("Checking {file}…").format(file=Path(path).name))
        self.checkRequested.emit(self._current, str(path), self._lang)

    @Slot(object)
    def show_result(self, result: LessonResult) -> None:
        """A check finished: record it in the progress and show it (if its lesson is open)."""
        if self._checking == result.name:
            self._checking = None
            self.check_button.setEnabled(True)
            self.status.setText("")
        self._results[result.name] = result
        self._save(record_result(self._progress, result))
        self._mark_item(result.name)
        if result.name == self._current:
            self._show_result(result)

    @Slot(str)
    def show_check_error(self, message: str) -> None:
        """The check of the running request could not run (the worker failed or timed out)."""
        self._checking = None
        self.check_button.setEnabled(True)
        self.status.setText("")
        self.result_view.show_error(message)

    @Slot()
    def next_hint(self) -> None:
        """Show one more hint of the open lesson."""
        if self._current is None:
            return
        total = len(hints(self._current, self._lang))
        shown = min(self.hints_shown() + 1, total)
        self._save(record_hint(self._progress, self._current, shown))
        self._show_hints(self._current)

    @Slot()
    def show_solution(self) -> None:
        """Open the reference solution in its own tab (after the confirmation)."""
        if self._current is None:
            return
        self.confirm_bar.hide()
        self._solution_shown.add(self._current)
        self.solution_view.set_source(solution_text(self._current, self._lang), 1)
        if self.tabs.indexOf(self.solution_view) < 0:
            self.tabs.addTab(self.solution_view, self.tr("Solution"))
        self.tabs.setCurrentWidget(self.solution_view)

    def _ask_solution(self) -> None:
        if self.solution_visible():  # already seen: no second confirmation
            self.tabs.setCurrentWidget(self.solution_view)
        elif self._current is not None:
            self.confirm_bar.show()

    def solution_visible(self) -> bool:
        return self.tabs.indexOf(self.solution_view) >= 0

    def retranslate(self) -> None:
        set_texts(
            (self.hints_title, self.tr("Hints")),
            (self.solution_button, self.tr("Show solution…"), self.tr("The reference solution of this lesson")),
            (self.confirm_label, self.tr("The solution gives the answer away. Try the hints first, or show it "
                                         "anyway?")),
            (self.confirm_yes, self.tr("Show the solution")),
            (self.confirm_no, self.tr("Not yet")),
            (self.check_button, self.tr("Check"),
             self.tr("Save your file, run it under the tracer and compare it with the reference")),
        )
        self.tabs.setTabText(self.tabs.indexOf(self.editor), self.tr("Your file"))
        if self.solution_visible():
            self.tabs.setTabText(self.tabs.indexOf(self.solution_view), self.tr("Solution"))
        if self._current is not None:
            self._show_hints(self._current)
        for r in range(self.lesson_list.count()):
            self._mark_item(self.lesson_list.item(r).data(NAME_ROLE))

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt's name)
        if event.type() == QEvent.Type.LanguageChange and current_language() != self._lang:
            self.set_language(current_language())  # the lesson texts follow the application
        super().changeEvent(event)

    # ------------------------------------------------------------------ internals
    def _info(self, name: str) -> LessonInfo:
        return next(i for i in self._lessons if i.name == name)

    def _fill_list(self) -> None:
        current = self._current
        blocked = self.lesson_list.blockSignals(True)
        try:
            self.lesson_list.clear()
            for info in self._lessons:
                item = QListWidgetItem(self.lesson_list)
                item.setData(NAME_ROLE, info.name)
                self._mark_item(info.name, item)
                if info.name == current:
                    self.lesson_list.setCurrentItem(item)
        finally:
            self.lesson_list.blockSignals(blocked)

    def _mark_item(self, name: str, item: QListWidgetItem | None = None) -> None:
        if item is None:
            found = [self.lesson_list.item(r) for r in range(self.lesson_list.count())
                     if self.lesson_list.item(r).data(NAME_ROLE) == name]
            if not found:
                return
            item = found[0]
        info, st = self._info(name), self._progress.state(name)
        mark, colour = ("✓", theme.PASS) if st.passed else ("✗", theme.FAIL) if st.attempts else ("○", "#888888")
        item.setText(f"{mark}  {info.title(self._lang)}")
        if st.passed:
            item.setForeground(QBrush(QColor(colour)))
        else:  # the palette's text colour (a dark theme's too)
            item.setData(Qt.ItemDataRole.ForegroundRole, None)
        font = QFont(item.font())
        font.setBold(name == self._current)
        item.setFont(font)
        if st.passed:
            tip = self.tr("Passed · {n} checks").format(n=st.attempts)
        elif st.attempts:
            tip = self.tr("Not passed yet · {n} checks").format(n=st.attempts)
        else:
            tip = self.tr("Not started")
        if st.hints_shown:
            tip += " · " + self.tr("{n} hints seen").format(n=st.hints_shown)
        item.setToolTip(tip)

    def _on_lesson_item(self, item: QListWidgetItem | None, previous: QListWidgetItem | None) -> None:
        if item is None:
            return
        name = item.data(NAME_ROLE)
        if name == self._current:
            return
        if self._current is not None and self.editor.is_modified():
            self.editor.save()  # switching lessons never loses typing
        old, self._current = self._current, name
        for n in (old, name):
            if n is not None:
                self._mark_item(n)
        path = write_starter(name, self._work_dir, lang=self._lang)
        self.editor.open(path)
        self._show_texts(name)
        if self.solution_visible():
            self.tabs.removeTab(self.tabs.indexOf(self.solution_view))
        if name in self._solution_shown:
            self.show_solution()
        self.tabs.setCurrentWidget(self.editor)
        self.confirm_bar.hide()
        self.check_button.setEnabled(self._checking is None)
        checking = self.lesson_path(self._checking).name if self._checking else ""
        self.status.setText(self.tr("Checking {file}…").format(file=checking) if checking else "")
        result = self._results.get(name)
        if self._checking == name:
            self.result_view.set_checking()
        elif result is not None:
            self._show_result(result)
        else:
            self.result_view.show_result(None)
        self.lessonChanged.emit(name)

    def _show_texts(self, name: str) -> None:
        self.statement.setMarkdown(lesson_text(name, self._lang))
        _tame_headings(self.statement.document())
        self._show_hints(name)

    def _show_hints(self, name: str) -> None:
        all_hints = hints(name, self._lang)
        shown = min(self._progress.state(name).hints_shown, len(all_hints))
        self.hints_label.setText("<ol style='margin-left:-16px'>" + "".join(
            f"<li>{_code_html(h)}</li>" for h in all_hints[:shown]) + "</ol>" if shown else "")
        self.hints_label.setVisible(bool(shown))
        self.hint_button.setEnabled(shown < len(all_hints))
        if shown < len(all_hints):
            self.hint_button.setText(self.tr("Next hint ({n} of {total})").format(n=shown + 1, total=len(all_hints)))
        else:
            self.hint_button.setText(self.tr("No more hints"))

    def _show_result(self, result: LessonResult) -> None:
        self.result_view.show_result(result)
        if result.line and Path(result.path or "") == self.editor.path():
            self.editor.mark_line(result.line)

    def _save(self, progress: Progress) -> None:
        self._progress = progress
        try:
            save_progress(self._progress_dir, progress)
            self.status.setText("")
        except OSError as e:  # a folder in the file's place, a full or read-only disk: kept for this session
            self.status.setText(self.tr("Your progress could not be saved: {error}").format(
                error=e.strerror or str(e)))
        self.progressChanged.emit(progress)


def _code_html(text: str) -> str:
    """A hint's Markdown-ish text as rich text: `code` spans in a monospace font."""
    parts = html.escape(text).split("`")
    return "".join(f"<code>{p}</code>" if i % 2 else p for i, p in enumerate(parts))


#: the size step (``QTextFormat.FontSizeAdjustment``) of a statement heading by level; Markdown's
#: own are +3, +2, +1: docked on a laptop, the statement's box showed only its title, on two lines
HEADING_SIZE_STEP = {1: 1, 2: 0, 3: 0}


def _tame_headings(doc: QTextDocument) -> None:
    """Headings of ``doc`` (from Markdown) one size step above the text at most."""
    block = doc.begin()
    while block.isValid():
        level = block.blockFormat().headingLevel()
        if level:
            fmt = QTextCharFormat()
            fmt.setProperty(QTextFormat.Property.FontSizeAdjustment, HEADING_SIZE_STEP.get(level, 0))
            cur = QTextCursor(block)
            cur.movePosition(QTextCursor.MoveOperation.EndOfBlock, QTextCursor.MoveMode.KeepAnchor)
            cur.mergeCharFormat(fmt)
        block = block.next()
