"""Saving what the window shows: a plot or the grid as PNG / SVG, the run history as CSV / JSON.

Each dialog asks for a path and writes; a failure is handed to ``report(text)`` (the window shows
it in its message banner), never raised into the event loop.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QFileDialog, QWidget

from views.i18n import QT_TRANSLATE_NOOP

from ..history import History

__all__ = ["ask_history_export", "export_history", "export_image"]

_IMAGE_FILTERS = QT_TRANSLATE_NOOP("MainWindow", "PNG image (*.png);;SVG vector image (*.svg)")


def export_image(parent: QWidget, title: str, default_name: str, write: Callable[[str], Any], what: str,
                 report: Callable[[str], Any]) -> str | None:
    """Ask where to save an image and ``write(path)`` it; the path, or None when cancelled or it
    failed (then ``report`` says why: "Could not export the {what}: ...")."""
    path, _ = QFileDialog.getSaveFileName(parent, title, default_name,
                                          QCoreApplication.translate("MainWindow", _IMAGE_FILTERS))
    if not path:
        return None
    try:
        write(path)
    except (OSError, ValueError) as e:
        report(QCoreApplication.translate("MainWindow", "Could not export the {what}: {error}").format(what=what, error=e))
        return None
    return path


def export_history(history: History, path: str, fmt: str) -> int:
    """Write every run to ``path`` as ``fmt`` ("csv" or "json"); the number of runs. OSError on failure."""
    return history.export_json(path) if fmt == "json" else history.export_csv(path)


def ask_history_export(parent: QWidget, export: Callable[[str, str], Any]) -> None:
    """Ask where to save the history and in which format, then ``export(path, fmt)``."""
    path, chosen = QFileDialog.getSaveFileName(parent, QCoreApplication.translate("MainWindow", "Export history"),
                                               "tilescope-history.csv",
                                               QCoreApplication.translate("MainWindow", "CSV table (*.csv);;JSON (*.json)"))
    if path:
        export(path, "json" if (path.lower().endswith(".json") or "json" in chosen.lower()) else "csv")
