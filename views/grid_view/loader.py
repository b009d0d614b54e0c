"""Getting a trace onto the screen without freezing it: ``prepare_trace`` on a worker thread,
then the drawing applied in short steps, one per event-loop turn.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

from PySide6.QtCore import QObject, QTimer, Signal

from kernels.data.trace import Trace

from .prepare import prepare_trace

__all__ = ["Preparer", "Stepper"]

_prepare_pool: ThreadPoolExecutor | None = None
_prepare_pool_lock = threading.Lock()


def _pool() -> ThreadPoolExecutor:
    """One background thread shared by every grid view: traces are prepared one at a time, in
    the order they arrive (a stale one is dropped when it lands, by its generation)."""
    global _prepare_pool
    with _prepare_pool_lock:
        if _prepare_pool is None:
            _prepare_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tilescope-grid-prepare")
        return _prepare_pool


class Preparer(QObject):
    """Runs ``prepare_trace`` on the shared worker thread; ``done(generation, result)`` arrives
    on this object's (the GUI) thread with a ``PreparedTrace`` or the exception it raised."""

    done = Signal(int, object)

    def submit(self, gen: int, trace: Trace, mode: str) -> None:
        def job() -> None:
            try:
                result: object = prepare_trace(trace, mode)
            except Exception as e:  # noqa: BLE001 — reported on the GUI thread, not lost here
                result = e
            try:
                self.done.emit(gen, result)
            except RuntimeError:  # the view was deleted meanwhile: nobody is waiting
                pass

        _pool().submit(job)


class Stepper(QObject):
    """Runs the steps of a generator, one per event-loop turn, from a zero-interval QTimer: it
    fires after the paints and input waiting. (QTimer.singleShot(0, f) would not: Qt 6 posts it
    as a call, run in the same batch as the paint the step before asked for, so step, paint and
    step add up to one long freeze.)"""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._steps: Iterator[None] | None = None
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._next)

    def busy(self) -> bool:
        return self._steps is not None

    def start(self, steps: Iterator[None]) -> None:
        self._steps = steps
        self._timer.start(0)

    def finish(self) -> None:
        """Run the remaining steps now (a few ms), so what they build is whole."""
        if self._steps is not None:
            steps, self._steps = self._steps, None
            for _ in steps:
                pass

    def _next(self) -> None:
        if self._steps is None:
            return
        try:
            next(self._steps)
        except StopIteration:
            self._steps = None
            return
        self._timer.start(0)
