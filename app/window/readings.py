"""What the controller reads of the window (``app.request_desk.WindowPort``), as the callables of
the parts that know it: the parameter panel's values and validity, the backend chosen, the
Programs field, whether the grid is still drawing, the sweep plot's best point, and a way to run
something once the current event is handled."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QTimer

from views.param_panel import ParamPanel

__all__ = ["WindowReadings"]


@dataclass(frozen=True)
class WindowReadings:
    param_values: Callable[[], dict[str, Any]]
    params_shown: Callable[[], bool]
    params_valid: Callable[[], bool]
    backend: Callable[[], str]
    window_text: Callable[[], str]
    is_drawing: Callable[[], bool]
    best_sweep_point: Callable[[], tuple[int, ...] | None]

    @staticmethod
    def defer(fn: Callable[[], Any]) -> None:
        QTimer.singleShot(0, fn)

    @classmethod
    def of(cls, panel: ParamPanel, window_text: Callable[[], str], is_drawing: Callable[[], bool],
           best_sweep_point: Callable[[], tuple[int, ...] | None]) -> WindowReadings:
        return cls(param_values=panel.values, params_shown=lambda: panel.kernel() is not None,
                   params_valid=panel.is_valid, backend=panel.backend, window_text=window_text,
                   is_drawing=is_drawing, best_sweep_point=best_sweep_point)
