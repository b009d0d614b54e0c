"""A filter proxy that keeps the rows containing every word typed — the search boxes of the
kernel picker and the history share it."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, QSortFilterProxyModel

__all__ = ["WordFilterProxy"]


class WordFilterProxy(QSortFilterProxyModel):
    """Keeps the rows whose text contains every word of the query, in any order, ignoring case.

    The text of a row is column 0's data under ``search_role`` when one is given (the model
    keeps it lowercase), else the display text of all its columns."""

    def __init__(self, parent: QObject | None = None, search_role: int | None = None) -> None:
        super().__init__(parent)
        self._words: list[str] = []
        self._search_role = search_role

    def set_query(self, text: str) -> None:
        if hasattr(self, "beginFilterChange"):  # Qt >= 6.10 deprecates invalidateFilter()
            self.beginFilterChange()
            self._words = text.lower().split()
            self.endFilterChange()
        else:
            self._words = text.lower().split()
            self.invalidateFilter()

    def filterAcceptsRow(self, row: int, parent: QModelIndex | QPersistentModelIndex) -> bool:  # noqa: N802
        if not self._words:
            return True
        m = self.sourceModel()
        if self._search_role is not None:
            hay = m.index(row, 0, parent).data(self._search_role) or ""
        else:
            hay = " ".join(str(m.index(row, c, parent).data()) for c in range(m.columnCount())).lower()
        return all(w in hay for w in self._words)
