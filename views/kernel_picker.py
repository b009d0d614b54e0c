"""KernelPicker: a searchable list of kernels, plus "Open kernel file…" and "Reload".

Takes ``KernelInfo`` objects (plain data) and emits the user's choices as signals; it never
imports or runs a kernel file itself — the app does that in the worker.
"""

from __future__ import annotations

import os
from typing import Any

from PySide6.QtCore import (
    QModelIndex,
    QRect,
    QSize,
    Qt,
    Signal,
)
from PySide6.QtGui import QFont, QFontMetrics, QPainter, QPalette, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListView,
    QPushButton,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QVBoxLayout,
    QWidget,
)

from kernels.data.results import KernelInfo

from . import theme
from .kernel_texts import kernel_text
from .preview import preview
from .word_filter import WordFilterProxy

__all__ = ["KernelPicker"]

NAME_ROLE = Qt.ItemDataRole.UserRole + 1
SUMMARY_ROLE = Qt.ItemDataRole.UserRole + 2
ORIGIN_ROLE = Qt.ItemDataRole.UserRole + 3
SEARCH_ROLE = Qt.ItemDataRole.UserRole + 4


def _is_user(origin: str) -> bool:
    return bool(origin) and origin != "catalog"


class _KernelDelegate(QStyledItemDelegate):
    """Title in bold on the first line, the one-line summary in grey below; user files tagged."""

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex) -> None:
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        opt.text = ""
        style = opt.widget.style() if opt.widget else None
        if style is not None:
            style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, opt.widget)
        selected = bool(opt.state & QStyle.StateFlag.State_Selected)
        pal = opt.palette
        fg = pal.color(QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text)
        r = opt.rect.adjusted(6, 3, -6, -3)
        bold = QFont(opt.font)
        bold.setBold(True)
        fm_b = QFontMetrics(bold)
        title = index.data(Qt.ItemDataRole.DisplayRole) or ""
        origin = index.data(ORIGIN_ROLE) or ""
        painter.save()
        painter.setFont(bold)
        painter.setPen(fg)
        tag = f"[{os.path.basename(origin)}]" if _is_user(origin) else ""
        # the file tag keeps its room (up to half the row): the title is elided before it, never under it
        tag_w = min(QFontMetrics(opt.font).horizontalAdvance(tag) + 8, r.width() // 2) if tag else 0
        shown = fm_b.elidedText(title, Qt.TextElideMode.ElideRight, r.width() - tag_w)
        title_rect = QRect(r.left(), r.top(), r.width() - tag_w, fm_b.height())
        painter.drawText(title_rect, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, shown)
        if tag:
            tx = r.left() + fm_b.horizontalAdvance(shown) + 8
            painter.setPen(fg if selected else theme.qcolor(theme.ACCENT_WARN))
            painter.setFont(opt.font)
            painter.drawText(QRect(tx, r.top(), r.right() - tx, fm_b.height()),
                             Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                             QFontMetrics(opt.font).elidedText(tag, Qt.TextElideMode.ElideMiddle, r.right() - tx))
        painter.setFont(opt.font)
        fm = QFontMetrics(opt.font)
        sub = pal.color(QPalette.ColorRole.HighlightedText) if selected else theme.qcolor("#666666")
        painter.setPen(sub)
        summary = index.data(SUMMARY_ROLE) or ""
        painter.drawText(QRect(r.left(), r.top() + fm_b.height() + 1, r.width(), fm.height()),
                         Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                         fm.elidedText(summary, Qt.TextElideMode.ElideRight, r.width()))
        painter.restore()

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex) -> QSize:
        bold = QFont(option.font)
        bold.setBold(True)
        h = QFontMetrics(bold).height() + QFontMetrics(option.font).height() + 8
        return QSize(200, h)


class KernelPicker(QWidget):
    """Searchable kernel list.

    Signals:
      kernelSelected(str name): the user picked a kernel (click or keyboard; Enter in the search
        box picks the first visible one). ``select(name)`` does not emit unless ``emit=True``.
      openFileRequested(str path): the user chose a Python file in "Open kernel file…".
      reloadRequested(str path): "Reload" pressed; the path is the selected kernel's file if it
        is a user kernel, else the most recently listed user file.
    """

    kernelSelected = Signal(str)
    openFileRequested = Signal(str)
    reloadRequested = Signal(str)

    def __init__(self, kernels: list[KernelInfo] | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        theme.configure()
        self._model = QStandardItemModel(self)
        self._proxy = WordFilterProxy(self, SEARCH_ROLE)
        self._proxy.setSourceModel(self._model)
        self._silent = False
        self._file_changed = False
        self._user_files: list[str] = []

        self.search = QLineEdit(self)
        self.search.setPlaceholderText(self.tr("Filter kernels…"))
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(self._proxy.set_query)
        self.search.returnPressed.connect(self._pick_first_visible)

        self.list = QListView(self)
        self.list.setModel(self._proxy)
        self.list.setItemDelegate(_KernelDelegate(self.list))
        self.list.setEditTriggers(QListView.EditTrigger.NoEditTriggers)
        self.list.setUniformItemSizes(True)
        self.list.selectionModel().currentChanged.connect(self._on_current)

        self.open_button = QPushButton(theme.icon("open"), self.tr("Open kernel file…"), self)
        self.open_button.setToolTip(self.tr("Load a Python file that registers Triton kernels (@register)"))
        self.open_button.clicked.connect(self._choose_file)
        self.reload_button = QPushButton(theme.icon("reload"), self.tr("Reload"), self)
        self.reload_button.clicked.connect(self._on_reload)
        self.empty_label = QLabel(self.tr("No kernel matches the filter."), self)
        self.empty_label.setStyleSheet("color: #666;")
        self.empty_label.hide()

        buttons = QHBoxLayout()
        buttons.addWidget(self.open_button, 1)
        buttons.addWidget(self.reload_button)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addWidget(self.search)
        lay.addWidget(self.list, 1)
        lay.addWidget(self.empty_label)
        lay.addLayout(buttons)
        self._proxy.rowsInserted.connect(self._update_empty)
        self._proxy.rowsRemoved.connect(self._update_empty)
        self._proxy.layoutChanged.connect(self._update_empty)
        self._proxy.modelReset.connect(self._update_empty)
        self._update_reload()
        if kernels:
            self.set_kernels(kernels)

    # -- public API ----------------------------------------------------------------------------
    def set_kernels(self, kernels: list[KernelInfo]) -> None:
        """Replace the list; keeps the current selection if that kernel is still present."""
        current = self.current_name()
        self._silent = True
        try:
            self._model.clear()
            self._user_files = []
            for k in kernels:
                title, summary = kernel_text(k.title), kernel_text(k.summary)  # the window's language
                it = QStandardItem(title or k.name)
                it.setData(k.name, NAME_ROLE)
                it.setData(summary, SUMMARY_ROLE)
                it.setData(k.origin, ORIGIN_ROLE)
                file_part = os.path.basename(k.origin) if _is_user(k.origin) else ""
                # found by its words in either language
                it.setData(" ".join([title, summary, k.title, k.summary, k.name, file_part]).lower(), SEARCH_ROLE)
                tip = f"<b>{title}</b> <code>{k.name}</code><br>{summary}<br>" + self.tr(
                    "metric: {metric}").format(metric=k.metric)
                if _is_user(k.origin):
                    tip += "<br>" + self.tr("from {file}").format(file=f"<code>{k.origin}</code>")
                    if k.origin not in self._user_files:
                        self._user_files.append(k.origin)
                it.setToolTip(tip)
                it.setEditable(False)
                self._model.appendRow(it)
            if current:
                self.select(current)
        finally:
            self._silent = False
        self._update_reload()
        self._update_empty()

    def kernel_names(self) -> list[str]:
        """Names of the kernels visible under the current filter, in list order."""
        return [self._proxy.index(r, 0).data(NAME_ROLE) for r in range(self._proxy.rowCount())]

    def current_name(self) -> str | None:
        idx = self.list.currentIndex()
        return idx.data(NAME_ROLE) if idx.isValid() else None

    def select(self, name: str, emit: bool = False) -> bool:
        """Make ``name`` the current kernel (clearing a filter that hides it). False if unknown."""
        for row in range(self._model.rowCount()):
            if self._model.item(row).data(NAME_ROLE) == name:
                src = self._model.index(row, 0)
                idx = self._proxy.mapFromSource(src)
                if not idx.isValid():
                    self.search.clear()
                    idx = self._proxy.mapFromSource(src)
                was = self._silent
                self._silent = not emit
                try:
                    self.list.setCurrentIndex(idx)
                finally:
                    self._silent = was
                self.list.scrollTo(idx)
                self._update_reload()
                return True
        return False

    def set_file_changed(self, changed: bool) -> None:
        """Show that the user's kernel file changed on disk since it was loaded (Reload to pick it up)."""
        self._file_changed = bool(changed)
        self._update_reload()

    def file_changed(self) -> bool:
        return self._file_changed

    # -- internals -----------------------------------------------------------------------------
    def _on_current(self, current: QModelIndex, _previous: QModelIndex) -> None:
        self._update_reload()
        if current.isValid() and not self._silent:
            self.kernelSelected.emit(current.data(NAME_ROLE))

    def _pick_first_visible(self) -> None:
        if self._proxy.rowCount():
            self.list.setCurrentIndex(self._proxy.index(0, 0))
            self.list.setFocus()

    def _choose_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, self.tr("Open kernel file"), "",
                                              self.tr("Python files (*.py);;All files (*)"))
        if path:
            self.openFileRequested.emit(path)

    def _reload_target(self) -> str | None:
        idx = self.list.currentIndex()
        origin = idx.data(ORIGIN_ROLE) if idx.isValid() else None
        if origin and _is_user(origin):
            return origin
        return self._user_files[-1] if self._user_files else None

    def _on_reload(self) -> None:
        target = self._reload_target()
        if target:
            self.reloadRequested.emit(target)

    def _update_reload(self) -> None:
        target = self._reload_target()
        self.reload_button.setEnabled(target is not None)
        if target is None:
            self.reload_button.setText(self.tr("Reload"))
            self.reload_button.setToolTip(self.tr("Reload is for kernels loaded from your own file"))
            self.reload_button.setStyleSheet("")
        elif self._file_changed:
            self.reload_button.setText(self.tr("Reload (changed on disk)"))
            self.reload_button.setToolTip(self.tr("{file} changed since it was loaded: reload to use the new code")
                                          .format(file=target))
            self.reload_button.setStyleSheet(f"QPushButton {{ color: {theme.ACCENT_WARN}; font-weight: bold; }}")
        else:
            self.reload_button.setText(self.tr("Reload"))
            self.reload_button.setToolTip(self.tr("Load {file} again").format(file=target))
            self.reload_button.setStyleSheet("")

    def _update_empty(self, *_: Any) -> None:
        self.empty_label.setVisible(self._model.rowCount() > 0 and self._proxy.rowCount() == 0)


def _demo() -> QWidget:  # pragma: no cover - manual preview
    from .demo_results import demo_kernels

    w = KernelPicker(demo_kernels())
    w.kernelSelected.connect(lambda n: print("kernelSelected", n))
    w.openFileRequested.connect(lambda p: print("openFileRequested", p))
    w.reloadRequested.connect(lambda p: print("reloadRequested", p))
    w.select("vector_add")
    w.set_file_changed(True)
    w.resize(320, 420)
    return w


if __name__ == "__main__":  # pragma: no cover
    preview(_demo)
