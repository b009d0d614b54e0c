"""The History tab: every run so far (read off the GUI thread, ``history_reader``), two runs
compared, a run put back into the panel, the history exported as CSV / JSON.

``HistoryPane`` refreshes the table on ``HistoryChanged`` (``app.events``) and once after the
first frame (``refresh``); ``reload(run_id)`` is what Reload run does (the controller's)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QWidget

from views.history_view import HistoryView
from views.words import translate

from ..events import HistoryChanged, WindowEvents
from ..history import History
from ..session import Session, history_row_from_record
from .exports import ask_history_export, export_history
from .history_reader import HistoryReader
from .widgets import MessageBanner

__all__ = ["SAVE_TOPIC", "HistoryPane", "save_problem_text"]

#: the banner's topic while runs wait to be written
SAVE_TOPIC = "history_save"


def save_problem_text(state: dict[str, Any]) -> str:
    """The banner's sentence for ``History.save_state()``."""
    if state["reason"] == "locked":
        text = translate("MainWindow", "{n} run(s) are not saved yet: the run history is locked by another "
                                       "program. They are kept and will be written when it lets go.")
    elif state["reason"] == "full":
        text = translate("MainWindow", "{n} run(s) are not saved yet: the disk is full. They are kept and will "
                                       "be written when there is room.")
    else:
        text = translate("MainWindow", "{n} run(s) are not saved yet: the run history cannot be written "
                                       "({detail}). They are kept and will be written when it can be.")
    text = text.format(n=state["n"], detail=state["detail"])
    if state["memory_only"]:
        text += " " + translate("MainWindow", "Some are in memory only: they are lost if Tilescope is closed "
                                              "before then.")
    return text


class HistoryPane(QObject):
    """``status(text, ms)`` shows a line in the status bar; ``banner`` says what failed."""

    def __init__(self, view: HistoryView, history: History, session: Session, events: WindowEvents,
                 banner: MessageBanner, status: Callable[[str, int], Any], reload: Callable[[int], Any],
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.view, self._history, self._session, self._banner, self._status = view, history, session, banner, status
        self.reader = HistoryReader(history, self._metrics, self)
        self.reader.rowsRead.connect(view.set_rows)
        self.reader.failed.connect(lambda why: status(
            translate("MainWindow", "could not read the run history: {why}").format(why=why), 10000))
        view.reloadRequested.connect(reload)
        view.compareRequested.connect(self._compare_runs)
        view.exportRequested.connect(self.export)
        events.subscribe(HistoryChanged, lambda _e: (self.reader.refresh_soon(), self._watch_saving()))
        # runs the history cannot write now (locked, disk full) wait in memory: said on the banner
        # until they are written (polled: the history's writer thread answers no Qt signal)
        self._save_timer = QTimer(self)
        self._save_timer.setInterval(1000)
        self._save_timer.timeout.connect(self._watch_saving)

    def _metrics(self) -> dict[str, str]:
        return {name: info.metric for name, info in self._session.infos.items()}

    def refresh(self) -> None:
        self.reader.refresh()

    def close(self) -> None:
        self._save_timer.stop()
        self.reader.close()

    def _watch_saving(self) -> None:
        state = self._history.save_state()
        if state is None:
            self._banner.clear(SAVE_TOPIC)
            if not self._history.pending():
                self._save_timer.stop()
                return
        elif self._banner.topic() in ("", SAVE_TOPIC):  # never over another message
            self._banner.show_message(save_problem_text(state), "warning", topic=SAVE_TOPIC)
        if not self._save_timer.isActive():
            self._save_timer.start()

    def export(self, path: str, fmt: str) -> int:
        """Write every run to ``path`` ("csv" or "json"); the number written (0 on failure, said)."""
        try:
            n = export_history(self._history, path, fmt)
        except OSError as e:
            self._banner.show_message(translate("MainWindow", "Could not export the history: {error}").format(error=e),
                                      "error", topic="export")
            return 0
        self._status(translate("MainWindow", "exported {n} runs to {path}").format(n=n, path=path), 8000)
        return n

    def ask_export(self, parent: QWidget) -> None:
        """Export history…: ask where and in which format, then write."""
        ask_history_export(parent, self.export)

    def _compare_runs(self, a: int, b: int) -> None:
        ra, rb = self._history.get(a), self._history.get(b)
        if ra is None or rb is None:
            return
        unit = lambda rec: getattr(self._session.infos.get(rec["kernel"]), "metric", None)  # noqa: E731
        self.view.show_comparison(history_row_from_record(ra, unit(ra)), history_row_from_record(rb, unit(rb)))
