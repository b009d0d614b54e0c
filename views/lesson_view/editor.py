"""LessonEditor: the learner's lesson file, editable in the app or in any other editor.

The text is the source view's (``views.source_view.SourceView``: the same Triton highlighting
and line numbers), made editable. ``save()`` writes it; a ``QFileSystemWatcher`` on the file and
its folder notices a change made elsewhere (an external editor that saves by writing a new file
and renaming it over the old one included). An unmodified editor reloads at once; one with
unsaved edits shows a bar asking which version to keep, so neither side's work is lost silently.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QFileSystemWatcher, Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices, QKeySequence, QShortcut
from PySide6.QtWidgets import QLabel, QPlainTextEdit, QPushButton, QSizePolicy, QWidget

from ..layout import column, row
from ..source_view import SourceView
from .language import Retranslating, set_texts
from .question_bar import QuestionBar

__all__ = ["LessonEditor"]

_EDITABLE = Qt.TextInteractionFlag.TextEditorInteraction


class LessonEditor(Retranslating, QWidget):
    """The learner's file. Signals: ``saved(str path)``, ``reloaded(str path)`` (the file
    changed on disk and the editor took the new text), ``conflict(str path)`` (it changed on disk
    while the editor held unsaved edits: the bar asks which to keep)."""

    saved = Signal(str)
    reloaded = Signal(str)
    conflict = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._path: Path | None = None
        self._disk_text = ""  # the file's text as last read or written
        self._source = SourceView(self)
        self._edit = self._source.editor()
        self._edit.setReadOnly(False)
        self._edit.setTextInteractionFlags(_EDITABLE)
        self._edit.setTabChangesFocus(False)
        self._edit.setTabStopDistance(4 * self._edit.fontMetrics().horizontalAdvance(" "))
        self._edit.document().modificationChanged.connect(self._update_title)
        self._edit.textChanged.connect(self._source.clear_mark)  # a marked error line is stale once edited
        self._watcher = QFileSystemWatcher(self)
        self._watcher.fileChanged.connect(self._on_disk_change)
        self._watcher.directoryChanged.connect(self._on_dir_change)

        self.file_label = QLabel(self)
        self.file_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        # the file's name gives way before the buttons: its whole length (with "(unsaved)") made
        # the panel 378 px wide at least, past a laptop's 341 px Lessons dock (a sideways scroll)
        self.file_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.file_label.setMinimumWidth(48)
        self.save_button = QPushButton(self)
        self.save_button.clicked.connect(self.save)
        self.external_button = QPushButton(self)
        self.external_button.clicked.connect(self.open_external)
        QShortcut(QKeySequence.StandardKey.Save, self, activated=self.save,
                  context=Qt.ShortcutContext.WidgetWithChildrenShortcut)

        self.conflict_bar = QuestionBar(self.reload_from_disk, self.keep_mine, self)
        self.conflict_label = self.conflict_bar.label
        self.take_disk_button, self.keep_mine_button = self.conflict_bar.yes_button, self.conflict_bar.no_button

        column(self, row((self.file_label, 1), self.save_button, self.external_button), self.conflict_bar,
               (self._source, 1), margin=0)
        self.retranslate()

    # ------------------------------------------------------------------ public API
    def source_view(self) -> SourceView:
        return self._source

    def editor(self) -> QPlainTextEdit:
        return self._edit

    def path(self) -> Path | None:
        return self._path

    def text(self) -> str:
        return self._edit.toPlainText()

    def set_text(self, text: str) -> None:
        """Replace the text as typing would (the editor becomes modified)."""
        cur = self._edit.textCursor()
        cur.select(cur.SelectionType.Document)
        cur.insertText(text)

    def is_modified(self) -> bool:
        return self._edit.document().isModified()

    def has_conflict(self) -> bool:
        return not self.conflict_bar.isHidden()

    def open(self, path: str | Path) -> None:
        """Show the file at ``path`` (it must exist) and watch it."""
        if self._path is not None:
            self._unwatch()
        self._path = Path(path)
        self._load(self._read())
        self._watch()

    def save(self) -> Path | None:
        """Write the text to the file (nothing to do without a file); returns its path."""
        if self._path is None:
            return None
        text = self.text()
        self._disk_text = text  # before writing: the watcher's echo of our own write is ignored
        self._path.write_text(text, encoding="utf-8")
        self._edit.document().setModified(False)
        self.conflict_bar.hide()
        self._watch()
        self.saved.emit(str(self._path))
        return self._path

    def open_external(self) -> bool:
        """Save, then open the file in the desktop's editor for Python files."""
        path = self.save()
        return path is not None and QDesktopServices.openUrl(QUrl.fromLocalFile(str(path)))

    def reload_from_disk(self) -> None:
        """Drop unsaved edits and show the file as it is on disk."""
        if self._path is not None and self._path.exists():
            self._load(self._read())
            self.reloaded.emit(str(self._path))

    def keep_mine(self) -> None:
        """Keep the editor's text (it stays unsaved; Save writes it over the file)."""
        self.conflict_bar.hide()

    def mark_line(self, line: int | None) -> bool:
        """Highlight ``line`` of the file (the line an error points at); None clears."""
        if line is None:
            self._source.clear_mark()
            return False
        with_signals = self._edit.blockSignals(True)  # moving the cursor is not an edit
        try:
            return self._source.mark_line(int(line))
        finally:
            self._edit.blockSignals(with_signals)

    def retranslate(self) -> None:
        set_texts(
            (self.save_button, self.tr("Save"), self.tr("Write the file (Ctrl+S); Check saves it too")),
            (self.external_button, self.tr("Open in external editor"),
             self.tr("Edit the file in your own editor: the changes appear here when it saves")),
            (self.conflict_label, self.tr("The file changed on disk while you had unsaved edits here.")),
            (self.take_disk_button, self.tr("Use the file on disk")),
            (self.keep_mine_button, self.tr("Keep my edits")),
        )
        self._update_title()

    # ------------------------------------------------------------------ internals
    def _read(self) -> str:
        assert self._path is not None
        return self._path.read_text(encoding="utf-8")

    def _load(self, text: str) -> None:
        self._disk_text = text
        pos = self._edit.textCursor().position()
        bar = self._edit.verticalScrollBar().value()
        self._source.set_source(text, 1)
        cur = self._edit.textCursor()
        cur.setPosition(min(pos, len(text)))
        self._edit.setTextCursor(cur)
        self._edit.verticalScrollBar().setValue(bar)
        self._edit.document().setModified(False)
        self.conflict_bar.hide()
        self._update_title()

    def _watch(self) -> None:
        assert self._path is not None
        for p in (self._path, self._path.parent):
            if p.exists() and str(p) not in self._watcher.files() + self._watcher.directories():
                self._watcher.addPath(str(p))

    def _unwatch(self) -> None:
        paths = self._watcher.files() + self._watcher.directories()
        if paths:
            self._watcher.removePaths(paths)

    def _on_dir_change(self, _folder: str) -> None:
        # an editor that saves by renaming a new file over ours ends the file's watch: watch again
        if self._path is not None and self._path.exists() and str(self._path) not in self._watcher.files():
            self._watcher.addPath(str(self._path))
            self._on_disk_change(str(self._path))

    def _on_disk_change(self, path: str) -> None:
        if self._path is None or Path(path) != self._path or not self._path.exists():
            return
        try:
            text = self._read()
        except (OSError, UnicodeDecodeError):
            return
        if text == self._disk_text or text == self.text():
            self._disk_text = text
            return
        if not self.is_modified():
            self._load(text)
            self.reloaded.emit(path)
            return
        self._disk_text = text
        self.conflict_bar.show()
        self.conflict.emit(path)

    def _update_title(self, *_: object) -> None:
        if self._path is None:
            self.file_label.setText(self.tr("No file"))
            return
        name = f"<b>{self._path.name}</b>"
        unsaved = self.tr("(unsaved)")
        mark = f" <span style='color:#b8860b'>{unsaved}</span>" if self.is_modified() else ""
        self.file_label.setText(name + mark)
        self.file_label.setToolTip(str(self._path))
