"""How a tensor becomes an image that fills the panel it is drawn in — numpy only, no Qt.

A tile map is an image of lookup-table slots; ``MapFold`` says where each element of the tensor
sits in it, and which element sits at an image cell:

- ``PLAIN``: a 2-D tensor as it is (leading dimensions of a 3-D+ tensor flattened into rows);
- ``FOLD``: a 1-D tensor folded into rows of ``chunk`` elements — a multiple of the access block
  (or a power-of-two part of one, when one block is wider than the panel), so that every
  program's block is a rectangle;
- ``WRAP_ROWS``: a tall, thin 2-D tensor (attention's Q, K, V: 4000×64) cut into pieces of
  ``chunk`` rows laid side by side, one padding column apart;
- ``WRAP_COLS``: a short, wide one cut into bands of ``chunk`` columns stacked top to bottom.

``fit_1d`` / ``fit_2d`` / ``fit_grid`` choose the fold whose aspect is closest to the panel's, so
that the map fills its panel with cells as near square as the block sizes allow. Everything is
vectorized: ``place`` maps any number of elements at once.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

__all__ = ["FOLD", "MapFold", "PLAIN", "WRAP_COLS", "WRAP_ROWS", "fit_1d", "fit_2d", "fit_grid", "fold_width"]

PLAIN, FOLD, WRAP_ROWS, WRAP_COLS = "plain", "fold", "wrap rows", "wrap cols"
#: a 2-D map is stretched (free aspect) until its own aspect is this far from the panel's; past
#: that it is wrapped
STRETCH_LIMIT = 6.0


def fold_width(numel: int, block: int) -> int:
    """Row length for drawing a 1-D tensor when the panel's size is not known: one access block
    per row, doubled while the map would be more than four times taller than wide."""
    w = max(int(block), 1)
    while numel > 4 * w * w and w < 4096:
        w *= 2
    return w


@dataclass(frozen=True)
class MapFold:
    """Where the elements of a tensor (its 2-D view: ``R`` rows of ``C``) sit in the drawn image
    of ``rows`` × ``cols`` cells."""

    kind: str
    numel: int
    R: int  # rows of the tensor's 2-D view (1 for a 1-D tensor)
    C: int  # columns of that view (numel for a 1-D tensor)
    chunk: int  # FOLD: row length; WRAP_ROWS: rows per piece; WRAP_COLS: columns per band
    rows: int
    cols: int
    gap: int = 1
    _dst: list = field(default_factory=list, compare=False, repr=False)  # cache: image position of each element

    @property
    def wrapped(self) -> bool:
        return self.kind in (WRAP_ROWS, WRAP_COLS)

    @property
    def pieces(self) -> int:
        """Pieces of a wrapped map (1 otherwise)."""
        if self.kind == WRAP_ROWS:
            return -(-self.R // self.chunk)
        if self.kind == WRAP_COLS:
            return -(-self.C // self.chunk)
        return 1

    def place(self, flat: np.ndarray | int) -> tuple[np.ndarray, np.ndarray]:
        """(image row, image column) of logical flat element index(es) ``flat``."""
        flat = np.asarray(flat, np.int64)
        if self.kind == FOLD:
            return flat // self.chunk, flat % self.chunk
        i, j = flat // self.C, flat % self.C
        if self.kind == WRAP_ROWS:
            return i % self.chunk, (i // self.chunk) * (self.C + self.gap) + j
        if self.kind == WRAP_COLS:
            return (j // self.chunk) * (self.R + self.gap) + i, j % self.chunk
        return i, j

    def flat_at(self, r: int, c: int) -> int:
        """The element drawn at image cell (r, c); -1 for padding or outside the image."""
        if not (0 <= r < self.rows and 0 <= c < self.cols):
            return -1
        if self.kind == FOLD:
            f = r * self.chunk + c
            return f if f < self.numel else -1
        if self.kind == WRAP_ROWS:
            k, j = divmod(c, self.C + self.gap)
            i = k * self.chunk + r
            return i * self.C + j if j < self.C and i < self.R else -1
        if self.kind == WRAP_COLS:
            k, i = divmod(r, self.R + self.gap)
            j = k * self.chunk + c
            return i * self.C + j if i < self.R and j < self.C else -1
        return r * self.C + c

    def _positions(self) -> np.ndarray:
        if not self._dst:
            r, c = self.place(np.arange(self.numel))
            self._dst.append(r * self.cols + c)
        return self._dst[0]

    def to_image(self, flat_values: np.ndarray, pad_value: int) -> np.ndarray:
        """A flat per-element uint8 array as the row-major image drawn (padding filled in)."""
        size = self.rows * self.cols
        if self.kind in (PLAIN, FOLD) and size == flat_values.shape[0]:
            return flat_values.reshape(self.rows, self.cols)
        out = np.full(size, pad_value, flat_values.dtype)
        if self.kind in (PLAIN, FOLD):
            out[: flat_values.shape[0]] = flat_values
        else:
            out[self._positions()] = flat_values
        return out.reshape(self.rows, self.cols)

    def span_boxes(self, f0: np.ndarray, f1: np.ndarray) -> tuple[np.ndarray, ...]:
        """Image rectangles (x0, y0, x1, y1, ok) of the runs of elements ``f0..f1`` (inclusive) of
        a folded 1-D tensor: a run inside one row, or whole rows; ``ok`` False for a run that
        starts or ends part-way along a row it does not fill."""
        c = self.chunk
        r0, r1 = f0 // c, f1 // c
        one_row = r0 == r1
        whole = (f0 % c == 0) & (((f1 + 1) % c == 0) | (f1 == self.numel - 1))
        x0 = np.where(one_row, f0 % c, 0)
        x1 = np.where(one_row, f1 % c + 1, c)
        return x0, r0, x1, r1 + 1, one_row | whole

    def boxes(self, r0: np.ndarray, r1: np.ndarray, c0: np.ndarray, c1: np.ndarray) -> tuple[np.ndarray, ...]:
        """Image rectangles (x0, y0, x1, y1, ok) of tensor boxes rows ``r0..r1`` × columns
        ``c0..c1`` (inclusive); ``ok`` False for a box cut in two by the wrap."""
        if self.kind == WRAP_ROWS:
            k = r0 // self.chunk
            ok = k == r1 // self.chunk
            x0 = k * (self.C + self.gap) + c0
            return x0, r0 - k * self.chunk, x0 + (c1 - c0) + 1, r1 - k * self.chunk + 1, ok
        if self.kind == WRAP_COLS:
            k = c0 // self.chunk
            ok = k == c1 // self.chunk
            y0 = k * (self.R + self.gap) + r0
            return c0 - k * self.chunk, y0, c1 - k * self.chunk + 1, y0 + (r1 - r0) + 1, ok
        return c0, r0, c1 + 1, r1 + 1, np.ones(np.shape(r0), bool)

    def describe(self) -> tuple[str, int]:
        """(kind, chunk): for the title ("rows of 1024", "384 rows per column")."""
        return self.kind, self.chunk


def _score(img_w: float, img_h: float, aspect: float) -> float:
    """How far an image of img_w × img_h cells is from the panel's aspect (0: the same)."""
    return abs(math.log((img_w / max(img_h, 1e-9)) / aspect))


def plain(shape2: tuple[int, int]) -> MapFold:
    R, C = shape2
    return MapFold(PLAIN, R * C, R, C, C, max(R, 1), max(C, 1))


def folded(numel: int, chunk: int) -> MapFold:
    chunk = max(1, min(int(chunk), max(numel, 1)))
    return MapFold(FOLD, numel, 1, numel, chunk, max(1, -(-numel // chunk)), chunk)


def _score_1d(numel: int, block: int, c: int, w: float, h: float) -> float:
    """How readable rows of ``c`` elements are in a ``w`` × ``h`` pixel panel. While every
    element can get a cell of two and a half pixels: cells as square as can be. Past that an
    element is hardly seen alone, and the block is what must read: blocks (a program's
    elements) as square as can be on screen, cells under a pixel wide or tall penalised."""
    rows = -(-numel // c)
    cw, ch = w / c, h / rows
    if numel * 6.25 <= w * h:
        return abs(math.log(cw / ch))
    bw, bh = (w * block / c, ch) if c >= block else (w, ch * block / c)
    return abs(math.log(bw / bh)) + sum(math.log(1.0 / x) for x in (cw, ch) if x < 1.0)


def fit_1d(numel: int, block: int, width_px: float, height_px: float) -> MapFold:
    """The fold of a 1-D tensor of ``numel`` elements accessed in blocks of ``block`` that best
    fills a panel of ``width_px`` × ``height_px`` (see ``_score_1d``): rows of a multiple of the
    block, or of a power-of-two part of it when one block is wider than the panel; no size:
    ``fold_width``."""
    block = max(1, int(block))
    if width_px <= 0 or height_px <= 0:
        return folded(numel, min(numel, fold_width(numel, block)) if numel else 1)
    if numel <= block:
        return folded(numel, max(numel, 1))
    n_blocks = -(-numel // block)
    ks = {1}
    for ideal in (math.sqrt(numel * width_px / height_px) / block,  # square cells
                  math.sqrt(width_px * n_blocks / height_px)):  # square blocks
        ks |= {max(1, math.floor(ideal)), max(1, math.ceil(ideal))}
        rows = n_blocks / max(ideal, 1)
        ks |= {-(-n_blocks // r) for r in (math.floor(rows), math.ceil(rows)) if r >= 1}  # no needless padding
    cands = {min(block * k, numel) for k in ks}
    part = block
    while part > width_px and part % 2 == 0 and part > 1:  # a block wider than the panel: split it
        part //= 2
        cands.add(part)
    best = min(sorted(cands), key=lambda c: _score_1d(numel, block, c, width_px, height_px))
    return folded(numel, best)


def _wrap_candidates(length: int, block: int, ideal: float, extra: tuple[int, ...]) -> set[int]:
    """Piece lengths worth trying: multiples of the block near ``ideal``, the pieces of the
    piece counts near ``length / ideal`` made even (rounded up to whole blocks), and ``extra``."""
    block = max(1, min(int(block), length))
    m = ideal / block
    cands = {block * k for k in (math.floor(m), math.ceil(m), 2 ** max(0, round(math.log2(max(m, 1))))) if k >= 1}
    for k in (math.floor(length / ideal), math.ceil(length / ideal)):
        if k >= 2:
            piece = math.ceil(length / k)
            cands.add(math.ceil(piece / block) * block)
    cands |= {e for e in extra if 0 < e < length}
    return {c for c in cands if c < length}


def fit_2d(shape2: tuple[int, int], row_block: int, col_block: int, width_px: float, height_px: float,
           extra_rows: tuple[int, ...] = ()) -> MapFold:
    """The layout of a 2-D tensor (``shape2`` = rows, columns) in a panel of ``width_px`` ×
    ``height_px``: as it is (stretched) unless its aspect is more than ``STRETCH_LIMIT`` away
    from the panel's; then wrapped in pieces of a multiple of the access block (``row_block``
    rows, ``col_block`` columns; ``extra_rows``: other piece heights worth trying, such as one
    attention head), whichever comes closest to the panel's aspect."""
    R, C = shape2
    base = plain(shape2)
    if width_px <= 0 or height_px <= 0 or R * C == 0:
        return base
    aspect = width_px / height_px
    best, best_score = base, _score(C, R, aspect)
    if best_score <= math.log(STRETCH_LIMIT):
        return base
    if C / R < aspect:  # tall and thin: pieces of rows side by side
        ideal = math.sqrt(R * (C + 1) / aspect)
        for r in sorted(_wrap_candidates(R, row_block, ideal, extra_rows)):
            k = -(-R // r)
            s = _score(k * (C + 1) - 1, r, aspect)
            if s < best_score - 1e-9:
                best, best_score = MapFold(WRAP_ROWS, R * C, R, C, r, r, k * (C + 1) - 1), s
    else:  # short and wide: bands of columns one under the other
        ideal = math.sqrt(C * (R + 1) * aspect)
        for c in sorted(_wrap_candidates(C, col_block, ideal, ())):
            k = -(-C // c)
            s = _score(c, k * (R + 1) - 1, aspect)
            if s < best_score - 1e-9:
                best, best_score = MapFold(WRAP_COLS, R * C, R, C, c, k * (R + 1) - 1, c), s
    return best


def fit_grid(n_programs: int, width_px: float, height_px: float) -> int:
    """Columns of a 1-D program grid of ``n_programs`` cells that best fills the panel with
    square-ish cells (the fewest padding cells among equally good widths)."""
    P = max(1, int(n_programs))
    if width_px <= 0 or height_px <= 0:
        return P if P <= 64 else max(1, math.ceil(math.sqrt(P)))
    gw = min(P, max(1, round(math.sqrt(P * width_px / height_px))))
    rows = -(-P // gw)
    return -(-P // rows)  # as narrow as the same number of rows allows: no needless padding
