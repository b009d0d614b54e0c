"""What a grid view draws, asked in its own terms: lit elements, colours, cells, positions on
screen, labels — for tests that drive the view as a learner would, for the window's links
between views, and for exports. A mixin of ``GridView`` (it reads the view's prepared trace,
canvas and state), kept apart so that the widget module holds the wiring only.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPoint, QPointF
from PySide6.QtGui import QColor

from .palette import lut_colour

__all__ = ["DrawnQueries"]


class DrawnQueries:
    """``GridView``'s questions about what is on screen now (it reads the view's ``_prep``,
    ``_canvas``, ``_state``, ``_flags`` and lookups; no import of the widget module, which
    imports this one)."""

    def lit_elements(self, tensor: str) -> np.ndarray:
        """bool array of ``tensor``'s shape: the elements lit now (by the hover, pin or step)."""
        return self.lit_kinds(tensor) != 0

    def lit_kinds(self, tensor: str) -> np.ndarray:
        """uint8 array of ``tensor``'s shape: ``LIT_LOAD`` / ``LIT_STORE`` bits of lit elements."""
        p = self._panel(tensor)
        flags = self._flags[p.index]
        return (flags if flags is not None else np.zeros(p.numel, np.uint8)).reshape(p.info.shape)

    def highlighted_programs(self) -> np.ndarray:
        """uint8 [programs]: ``LIT_LOAD`` / ``LIT_STORE`` bits of the programs lit in the grid
        (those that read / wrote the hovered element, or ran the shown loop step)."""
        prep = self._checked()
        return self._prog_flags.copy() if self._prog_flags is not None else np.zeros(prep.P, np.uint8)

    def program_cell_color(self, pid: int) -> QColor:
        """The colour of program ``pid``'s cell in the current colour mode (before any hover tint)."""
        return lut_colour(self._lut, self._checked().prog_slots[pid])

    def element_color(self, tensor: str, flat_index: int) -> QColor:
        """The colour of an element in its tile map (before any hover tint)."""
        p = self._panel(tensor)
        return lut_colour(self._lut, self._prep.element_slots(p)[flat_index])

    def tensor_names(self) -> list[str]:
        return [p.info.name for p in self._prep.panels] if self._prep is not None else []

    def map_shape(self, tensor: str) -> tuple[int, int]:
        """(rows, columns) of the drawn tile map (a 1-D tensor folded into rows, a long thin one
        wrapped: see ``fold``)."""
        self._ensure_fitted()
        p = self._panel(tensor)
        return p.rows, p.cols

    def map_cell(self, tensor: str, flat_index: int) -> tuple[int, int]:
        """(row, column) of the drawn map where element ``flat_index`` of ``tensor`` is."""
        self._ensure_fitted()
        return self._panel(tensor).cell_of(flat_index)

    def map_image(self, tensor: str) -> np.ndarray:
        """The uint8 lookup-table indices drawn for ``tensor`` (rows x columns, fold padded)."""
        self._ensure_fitted()
        return self._prep.images[self._panel(tensor).index]

    def map_cell_color(self, tensor: str, row: int, col: int) -> QColor:
        """The colour of cell (row, col) of the drawn map, padding included."""
        return lut_colour(self._lut, int(self.map_image(tensor)[row, col]))

    def program_cell_pos(self, pid: int) -> QPoint:
        """Centre of program ``pid``'s cell in ``graphics_view()`` coordinates (for the mouse)."""
        self._ensure_fitted()
        r, c = self._cell_shown(pid)
        self._canvas.reveal(self._canvas.prog, r, c, 4.0)
        return self._canvas.view_point(self._canvas.prog.image, c + 0.5, r + 0.5)

    def element_pos(self, tensor: str, flat_index: int) -> QPoint:
        """Centre of an element's cell in ``graphics_view()`` coordinates (an index past the end
        of a folded vector gives the padding cell where it would be). A cell out of view, or
        smaller than a few pixels, is first zoomed into view, as a learner would to point at
        it — so the mouse at that point finds exactly that element."""
        self._ensure_fitted()
        p = self._panel(tensor)
        slot = self._canvas.slots[p.index]
        r, c = p.cell_of(flat_index)
        self._canvas.reveal(slot, r, c)
        return self._canvas.view_point(slot.image, c + 0.5, r + 0.5)

    def element_at(self, pos: QPoint | QPointF) -> tuple[str, int] | None:
        """(tensor, flat index) of the element under ``graphics_view()`` point ``pos`` — what
        hovering there reports — or None (no element, padding, the program grid)."""
        self._ensure_fitted()
        self._canvas.settle()
        target = self._hit(self._glw.mapToScene(pos.toPoint() if isinstance(pos, QPointF) else pos))
        if target is None or target[0] != "element":
            return None
        return self._prep.panels[target[1]].info.name, int(target[2])

    def labels(self, tensor: str | None = None) -> list[str]:
        """The labels drawn now, on the program grid (``tensor`` None: pids) or on ``tensor``'s
        map (pids of own tiles, ``×readers first–last`` on tiles several programs read)."""
        self._ensure_fitted()
        self._canvas.settle()
        self._canvas.update_labels()
        slot = self._canvas.prog if tensor is None else self._canvas.slots[self._panel(tensor).index]
        return slot.label_texts()

    def hover_text(self) -> str:
        """The teaching text for what is hovered (also the tooltip and the info line)."""
        return self._info_text

    def oob_entries(self) -> list[str]:
        """The lines of the out-of-bounds list (empty when every lane hit a tensor)."""
        return [self._oob_list.item(i).text() for i in range(self._oob_list.count())]

    def program_grid_shape(self) -> tuple[int, int]:
        """(rows, columns) of program cells drawn (a 1-D grid folded; one z slice of a 3-D one)."""
        prep = self._checked()
        return prep.grows, prep.gw

    def program_layout(self) -> np.ndarray:
        """int64 [rows, cols]: the pid drawn in every cell of the program grid (the z slice
        shown); -1 for the padding of a folded grid."""
        self._ensure_fitted()
        return self._checked().grid_pids(self._state.z)

    def map_owners(self, tensor: str) -> np.ndarray:
        """int64 [rows, cols] of the drawn map: the program each cell is coloured for (its
        owner, or the first of several readers); -1 for none, padding included."""
        self._ensure_fitted()
        p = self._panel(tensor)
        return p.to_image(p.owners(), -1)
