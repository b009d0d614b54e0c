"""The correctness check and the trace, linked: when the checked output is a tensor of the trace,
the error map is folded like the grid's tile map, its tooltip names the program that wrote an
element, and hovering an element there lights it in the grid."""

from __future__ import annotations

import numpy as np

from kernels.data.trace import Trace
from views.correctness_view import CorrectnessView
from views.grid_view import GridView

from ..session import Session, output_tensor_index, square_fold, writer_text

__all__ = ["CheckTraceLink"]


class CheckTraceLink:
    def __init__(self, session: Session, grid: GridView, correctness: CorrectnessView) -> None:
        self._session = session
        self._grid = grid
        self._correctness = correctness
        correctness.elementHovered.connect(self._on_element)

    def update(self) -> None:
        """Link the check shown to the trace shown (after either changes)."""
        check = self._correctness.shown_check()
        link = self._trace_output()
        if link is not None:
            tr, i = link
            self._correctness.set_programs_for_elements(lambda _out, flat, tr=tr, i=i: writer_text(tr, i, flat))
        else:
            self._correctness.set_programs_for_elements(None)
        if check is not None and check.error_map is not None and np.ndim(check.error_map) == 1:
            self._correctness.set_fold_width(square_fold(int(np.size(check.error_map))))

    def _trace_output(self) -> tuple[Trace, int] | None:
        """The trace and the index of its tensor that the shown check is about, if they match."""
        tr, check = self._session.trace, self._correctness.shown_check()
        if tr is None or check is None or check.error_map is None:
            return None
        i = output_tensor_index(tr, check.output, int(np.size(check.error_map)))
        return None if i is None else (tr, i)

    def _on_element(self, _output: str, flat: int) -> None:
        link = self._trace_output()
        if link is None or self._grid.trace() is not link[0]:
            return
        tr, i = link
        if 0 <= flat < tr.tensors[i].numel:
            self._grid.hover_element(tr.tensors[i].name, flat)
