"""What the window does once its first frame is up: a queue of jobs run one per event-loop turn,
and the one-time freeze of the objects made at startup out of the garbage collector's reach."""

from __future__ import annotations

import gc
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

from PySide6.QtCore import QObject, QTimer

__all__ = ["AfterFirstFrame", "freeze_startup_objects"]


class AfterFirstFrame(QObject):
    """Jobs run one per event-loop turn, after the paints waiting.

    A zero-interval QTimer fires after the pending paints, which ``QTimer.singleShot(0, f)`` — a
    posted call in Qt 6 — does not: so the window is on screen before the first job runs."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._jobs: deque[Callable[[], Any]] = deque()
        self._timer = QTimer(self)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._next)
        self._stopped = False

    def start(self, jobs: Iterable[Callable[[], Any]]) -> None:
        self._jobs.extend(jobs)
        self._timer.start()

    def stop(self) -> None:
        """Drop the jobs not run yet (the window is closing)."""
        self._stopped = True
        self._jobs.clear()
        self._timer.stop()

    def _next(self) -> None:
        if not self._jobs or self._stopped:
            self.stop()
            return
        self._jobs.popleft()()


_frozen = False


def freeze_startup_objects() -> None:
    """Once per process, when the window is up: move every object alive now (Qt wrappers,
    pyqtgraph items, modules: ~76,000) out of the garbage collector's reach. Otherwise each full
    collection walks them all and holds the GUI thread ~30 ms (measured during a sweep); after
    this it walks only what was made since. (``warm_up`` runs first: its plots live as long as
    the window.) No ``gc.collect()`` first: a collection forced here, just after other Qt
    widgets were dropped, cleared a pyqtgraph item that Qt still held, and a new item made at
    its address then called into the emptied one (AttributeError in ``sizeHint``, seen in
    bench_gui ``all``); what garbage exists now is little and stays."""
    global _frozen
    if _frozen:
        return
    _frozen = True
    gc.freeze()
