"""A thread that calls callbacks in order, for ``app.client``. No Qt, no torch.

The client decides what to tell its caller while holding its lock; calling the caller's code
there could deadlock (a callback that submits) or stall the reader threads. So every callback is
queued here and called on this one thread, in the order queued, never on the caller's thread
and never while a lock is held. A callback that raises is reported on stderr and the others go
on. The GUI marshals the calls onto its own thread (``app.qt_worker``).
"""

from __future__ import annotations

import queue
import sys
import threading
from collections.abc import Callable
from typing import Any

__all__ = ["CallbackThread"]


class CallbackThread:
    def __init__(self, name: str) -> None:
        self._events: queue.SimpleQueue[tuple[Callable, tuple] | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._loop, name=name, daemon=True)
        self._thread.start()

    def emit(self, fn: Callable | None, *args: Any) -> None:
        """Call ``fn(*args)`` on the callback thread (nothing when ``fn`` is None)."""
        if fn is not None:
            self._events.put((fn, args))

    def close(self, timeout: float = 5.0) -> None:
        """Stop after the callbacks queued so far (waits for them unless called from one)."""
        self._events.put(None)
        if threading.current_thread() is not self._thread:
            self._thread.join(timeout=timeout)

    def _loop(self) -> None:
        while True:
            item = self._events.get()
            if item is None:
                return
            fn, args = item
            try:
                fn(*args)
            except Exception as e:  # noqa: BLE001 — a failing callback must not stop the others
                print(f"tilescope: callback {getattr(fn, '__name__', fn)} raised {type(e).__name__}: {e}",
                      file=sys.stderr)
