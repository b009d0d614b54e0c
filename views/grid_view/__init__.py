"""The grid view: which program touched which element of which tensor, drawn from a recorded Trace.

Top: the program grid, one cell per program (a 1-D grid folded into rows that fill the band; a
2-D grid as x by y; a z-slice chooser for 3-D grids). Below: a tile map per tensor argument, each
element coloured by the program that wrote it (or, for a tensor that is only read, the program
that read it; an element several programs read takes the pale twin of its first reader's colour).
Every map is folded to fill its panel — a 1-D tensor in rows of whole blocks, a long thin 2-D one
wrapped — zooms and pans inside its own extent, and carries labels where they fit: pids on the
tiles programs own, ``×readers first–last`` on the tiles several read. Colours: by program (no
two neighbours alike), wave, launch order, number of readers, masked-lane fraction. Hovering a
program lights its elements in every tensor (loads blue, stores orange); hovering an element
lights the programs that touched it. A click pins the selection; a second click or Esc unpins
it. The loop slider shows one iteration of a loop at a time, so a matmul's A and B tiles can be
watched walking along K (its C tile lit as the target). Beside the maps, the launch order is
played wave by wave, with the tiles each wave loads in the kernel's order and row-major.

Modules: ``prepare`` (numpy: the trace grouped by program, CSR style, so a hover is a few
slices; ``prepare_trace`` is a pure function run off the GUI thread), ``fold`` (numpy: where
each element is drawn), ``regions`` (numpy: the labels and where they fit), ``colouring``
(numpy: neighbour-apart colours), ``lighting`` (numpy: what a selection lights), ``text`` (the
hover and summary texts), ``state`` (the interaction state with plain-callback events) — these
import no Qt — and the Qt side: ``palette``, ``canvas``, ``controls``, ``launch``, ``loader``,
``queries`` and ``widget`` (``GridView``). ``GridView`` is imported on first use, so
``views.grid_view.prepare`` and friends load without Qt.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .prepare import COLOR_MODES, LIT_LOAD, LIT_STORE, PreparedTrace, fold_width, prepare_trace

if TYPE_CHECKING:
    from .widget import GridView

__all__ = ["COLOR_MODES", "GridView", "LIT_LOAD", "LIT_STORE", "PreparedTrace", "fold_width", "prepare_trace"]


def __getattr__(name: str) -> Any:
    if name == "GridView":
        from .widget import GridView

        return GridView
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
