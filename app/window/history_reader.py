"""The history table's rows, read off the GUI thread.

Reading and decoding 500 history rows takes 20–50 ms, so ``HistoryReader.refresh()`` runs it on
a background thread (``History`` is thread-safe) and emits ``rowsRead(list)`` on the GUI thread;
only the table update runs there. ``refresh_soon()`` refreshes at most twice a second (a sweep
adds rows quickly). Each refresh has a generation: the rows of an older one are dropped, and so
is everything after ``close()``.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from ..history import History
from ..session import history_row_from_record

__all__ = ["HISTORY_ROWS", "HistoryReader"]

#: history rows shown (the file keeps all of them; export writes all)
HISTORY_ROWS = 500
_pool: ThreadPoolExecutor | None = None


def _background() -> ThreadPoolExecutor:
    """One thread for the window's own slow reads: jobs run in order."""
    global _pool
    if _pool is None:
        _pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tilescope-window")
    return _pool


class HistoryReader(QObject):
    """``rowsRead(list)``: the rows of the latest refresh (``views.history_view`` row dicts);
    ``failed(str)``: the history could not be read (a closed or broken database)."""

    rowsRead = Signal(object)
    failed = Signal(str)
    # internal: a generation and its rows (or the exception), from the background thread
    _read = Signal(int, object)

    def __init__(self, history: History, metrics: Callable[[], dict[str, str]], parent: QObject | None = None,
                 interval_ms: int = 500) -> None:
        super().__init__(parent)
        self._history = history
        self._metrics = metrics  # kernel -> its metric unit, when the refresh starts
        self._gen = 0
        self._closed = False
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self.refresh)
        self._read.connect(self._on_read)

    def refresh_soon(self) -> None:
        """Refresh within ``interval_ms`` (a refresh already due covers this call too)."""
        if not self._timer.isActive():
            self._timer.start()

    def refresh(self) -> None:
        """Read the rows now (on the background thread)."""
        self._timer.stop()
        self._gen += 1
        gen, history, metrics = self._gen, self._history, self._metrics()

        def job() -> None:
            try:
                rows: Any = [history_row_from_record(rec, metrics.get(rec["kernel"]))
                             for rec in history.list(limit=HISTORY_ROWS)]
            except Exception as e:  # noqa: BLE001 — a closed or broken database: say so there
                rows = e
            try:
                self._read.emit(gen, rows)
            except RuntimeError:  # the reader (and its window) is gone
                pass

        _background().submit(job)

    def close(self) -> None:
        self._closed = True
        self._timer.stop()

    def _on_read(self, gen: int, rows: Any) -> None:
        if gen != self._gen or self._closed:
            return  # a newer refresh is on its way
        if isinstance(rows, BaseException):
            self.failed.emit(str(rows))
        else:
            self.rowsRead.emit(rows)
