"""Watching the user's kernel files, so the picker can offer Reload when one changes on disk."""

from __future__ import annotations

import os

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer, Signal

__all__ = ["KernelFileWatcher"]


class KernelFileWatcher(QObject):
    """``changed(str path)``: a watched file was written (or replaced) on disk."""

    changed = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._watcher = QFileSystemWatcher(self)
        self._watcher.fileChanged.connect(self._on_changed)

    def watch(self, path: str | None) -> None:
        """Watch ``path`` (nothing for None or a file that does not exist)."""
        if path and os.path.exists(path) and path not in self._watcher.files():
            self._watcher.addPath(path)

    def files(self) -> list[str]:
        return list(self._watcher.files())

    def _on_changed(self, path: str) -> None:
        self.changed.emit(path)
        # editors save by replacing the file, which ends the watch: watch the new file again
        if path not in self._watcher.files():
            QTimer.singleShot(300, lambda: self.watch(path))
