"""The left column: the kernel list and the parameter panel, following the controller's events
(``app.events``) — the kernels listed, the kernel shown with its values, values and backend put
back, fields marked wrong, the worker's GPU — and the kernel files watched for changes on disk
(the picker then offers Reload). The backend chosen is kept in the settings."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from views.kernel_picker import KernelPicker
from views.param_panel import ParamPanel

from ..events import (
    BackendSet,
    FieldMarked,
    FileChanged,
    FileWatched,
    KernelShown,
    KernelsListed,
    MarksCleared,
    ValuesSet,
    WindowEvents,
    WorkerShown,
)
from ..settings import Settings
from .file_watch import KernelFileWatcher

__all__ = ["KernelPane"]


class KernelPane:
    """``set_title(text)`` names the window after the kernel shown."""

    def __init__(self, picker: KernelPicker, panel: ParamPanel, watcher: KernelFileWatcher, settings: Settings,
                 events: WindowEvents, set_title: Callable[[str], Any]) -> None:
        self.picker, self.panel, self.watcher, self._set_title = picker, panel, watcher, set_title
        # a long kernel title must wrap, not widen the left column and squeeze the grid
        panel.title.setWordWrap(True)
        watcher.changed.connect(lambda _path: picker.set_file_changed(True))
        panel.backendChanged.connect(lambda backend: setattr(settings, "backend", backend))
        events.subscribe(KernelsListed, lambda e: picker.set_kernels(list(e.infos)))
        events.subscribe(KernelShown, self._on_kernel)
        events.subscribe(ValuesSet, lambda e: panel.set_values(e.values))
        events.subscribe(BackendSet, lambda e: panel.set_backend(e.backend))
        events.subscribe(FieldMarked, self._on_mark)
        events.subscribe(MarksCleared, lambda _e: panel.clear_marks())
        events.subscribe(FileWatched, lambda e: watcher.watch(e.path))
        events.subscribe(FileChanged, lambda e: picker.set_file_changed(e.changed))
        events.subscribe(WorkerShown, lambda e: panel.set_gpu_available(e.gpu_available, e.gpu_reason))

    def _on_kernel(self, e: KernelShown) -> None:
        if self.picker.current_name() != e.info.name:
            self.picker.select(e.info.name)
        self.panel.set_kernel(e.info, e.values)
        self._set_title(f"Tilescope — {e.info.title}")

    def _on_mark(self, e: FieldMarked) -> None:
        if self.panel.mark_field(e.name, e.message):
            self.panel.editor(e.name).setFocus()
