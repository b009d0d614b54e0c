"""``GridView``'s regions at full resolution: a reduced map zoomed in until its cells are a few
pixels wide (``detail.MIN_CELL_PX``), or double-clicked ("Show at full resolution"), asks for the
elements in view (``regionWanted``, a ``kernels.data.region.RegionRequest``); the window has the
worker answer and hands the ``RegionAnswer`` to ``set_region``, which draws it over the cells;
hovering there then names the exact element and its programs. Zooming back out, or another trace,
drops it.

A mixin (it reads the view's ``_prep``, ``_canvas``, ``_state``, ``_lut`` and lookups, and emits
its ``regionWanted``), kept apart so the widget module holds the wiring only.
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF, QTimer

from kernels.data.region import RegionAnswer, RegionRequest

from .detail import MIN_CELL_PX, Detail, element_at, element_point, region_for_view, region_text

__all__ = ["FullResolutionControl"]


class FullResolutionControl:
    """Regions of reduced maps at full resolution (see the module doc)."""

    def _init_full_res(self) -> None:
        self._details: dict[int, Detail] = {}  # per panel: the region drawn over it
        self._asked: dict[int, tuple[RegionRequest, float]] = {}  # per panel: the request awaited, forced px
        self._exact: tuple[int, int, int] | None = None  # (panel, row, column) hovered at full resolution
        self._zoom_timer = QTimer(self)  # the zoom is checked once it has settled
        self._zoom_timer.setSingleShot(True)
        self._zoom_timer.setInterval(150)
        self._zoom_timer.timeout.connect(self._check_zoom)
        self._canvas.range_hooks.append(self._zoom_timer.start)

    # ------------------------------------------------------------------ public API
    def region_key(self) -> str:
        """The key of the full trace the worker keeps behind the reduced one drawn ('' if none)."""
        return getattr(self._prep.trace, "region_key", "") if self._prep is not None else ""

    def show_full_resolution(self, tensor: str | None = None) -> list[RegionRequest]:
        """Ask for the elements ``tensor``'s map shows now (None: every reduced map), whatever the
        zoom (the double-click's action); the requests emitted."""
        if self._prep is None:
            return []
        panels = self._prep.panels if tensor is None else [self._panel(tensor)]
        return [r for p in panels if (r := self._ask(p, forced=True)) is not None]

    def set_region(self, answer: RegionAnswer) -> bool:
        """Draw ``answer`` over its map; False (nothing drawn) when it is of another trace than
        the one drawn, or was not asked for (an older zoom)."""
        req = answer.request
        prep = self._prep
        if prep is None or req.key != self.region_key() or not 0 <= req.tensor < len(prep.panels):
            return False
        asked = self._asked.get(req.tensor)
        if asked is None or not _same(asked[0], req):
            return False
        del self._asked[req.tensor]
        p = prep.panels[req.tensor]
        self._details[p.index] = Detail.build(prep, p, answer, asked[1])
        self._draw_detail(p.index)
        return True

    def region_shown(self, tensor: str) -> RegionRequest | None:
        """The rectangle of ``tensor`` drawn at full resolution now, if any."""
        d = self._details.get(self._panel(tensor).index)
        return d.answer.request if d is not None else None

    def region_element_pos(self, tensor: str, row: int, col: int) -> QPoint:
        """Centre of element (row, column) of ``tensor`` in ``graphics_view()`` coordinates, where
        the region drawn shows it (for the mouse)."""
        p = self._panel(tensor)
        x, y = element_point(p, row, col)
        return self._canvas.view_point(self._canvas.slots[p.index].image, x, y)

    # ------------------------------------------------------------------ the widget's hooks
    def _clear_regions(self) -> None:
        """Another trace: no region of the last one stays, nor any awaited."""
        self._details.clear()
        self._asked.clear()
        self._exact = None
        for slot in self._canvas.slots:
            slot.show_detail(None)

    def _redraw_regions(self) -> None:
        """The regions drawn again (a new colour mode, a new fold of their maps)."""
        prep = self._prep
        for i, d in list(self._details.items()):
            self._details[i] = Detail.build(prep, prep.panels[i], d.answer, d.forced_px)
            self._draw_detail(i)

    def _draw_detail(self, i: int) -> None:
        d = self._details[i]
        self._canvas.slots[i].show_detail(d.image, d.box, self._lut)

    def _cell_px(self, i: int) -> float:
        """Screen pixels of a cell of panel ``i`` on its narrow side (a 1-D map: its width)."""
        sx, sy = self._canvas.slots[i].px_per_cell()
        return sx if len(self._prep.panels[i].info.shape) <= 1 else min(sx, sy)

    def _ask(self, p, forced: bool = False) -> RegionRequest | None:
        (x0, x1), (y0, y1) = self._canvas.slots[p.index].vb.viewRange()
        req = region_for_view(p, self.region_key(), (x0, x1, y0, y1))
        if req is None:
            return None
        shown, asked = self._details.get(p.index), self._asked.get(p.index)
        if not forced and ((shown is not None and shown.answer.request.covers(req))
                           or (asked is not None and asked[0].covers(req))):
            return None
        self._asked[p.index] = (req, self._cell_px(p.index) if forced else 0.0)
        self.regionWanted.emit(req)
        return req

    def _check_zoom(self) -> None:
        """Ask for the elements of the reduced maps zoomed in far enough; drop the regions of
        those zoomed back out (below the size they were asked at)."""
        prep = self._prep
        if prep is None or not self.region_key() or self._applying:
            return
        for p in prep.panels:
            if not p.coarse:
                continue
            px = self._cell_px(p.index)
            d = self._details.get(p.index)
            floor = min(MIN_CELL_PX, d.forced_px) * 0.8 if d is not None and d.forced_px else MIN_CELL_PX
            if px >= floor:
                self._ask(p)
                continue
            self._asked.pop(p.index, None)
            if d is not None:
                del self._details[p.index]
                self._canvas.slots[p.index].show_detail(None)

    def _exact_at(self, scene_pos: QPointF) -> tuple[int, int, int] | None:
        """(panel, row, column) of the element of a region under ``scene_pos``, if any."""
        for i, d in self._details.items():
            slot = self._canvas.slots[i]
            if slot.plot.vb.sceneBoundingRect().contains(scene_pos):
                pt = slot.image.mapFromScene(scene_pos)
                at = element_at(self._prep.panels[i], d.answer, pt.x(), pt.y())
                return None if at is None else (i, *at)
        return None

    def _exact_text(self) -> str | None:
        """The hover text of the element hovered at full resolution (None: none is)."""
        if self._exact is None or self._state.hover is None or self._exact[0] not in self._details:
            return None
        i, row, col = self._exact
        return region_text(self._prep, self._prep.panels[i], self._details[i].answer, row, col)


def _same(a: RegionRequest, b: RegionRequest) -> bool:
    """The same rectangle of the same trace (the generation the client stamped aside)."""
    return (a.key, a.tensor, a.rows, a.cols) == (b.key, b.tensor, b.rows, b.cols)
