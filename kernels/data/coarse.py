"""A big trace reduced to what a window can draw — numpy only, made in the worker.

A tensor of 4,194,304 elements drawn in a panel of ~1,500 × 300 pixels shows ~10 elements per
pixel, yet its full trace (every lane of every access and five int32 maps per element) is
300 MB for vector add at N = 2^22. ``coarsen(trace, max_cells)`` groups each tensor's elements
into *cells* of ``kr × kc`` elements (rows × columns of the tensor seen as 2-D; a 1-D tensor is
one row) so that no tensor has more than ``max_cells`` cells, and returns a ``CoarseTrace``: the
same ``Trace`` type, whose tensors, maps and access lanes are over cells instead of elements,
so every query of ``kernels.data.maps`` and the grid view work on it unchanged.

What a cell says (the "peak" downsampling of pyqtgraph, for problems):

- its writer / reader: the one program that touched every touched element of the cell; when
  several programs did, each on its own elements (a cell straddling two tiles), the lowest of
  them; ``SEVERAL`` when any element of the cell had several (a race, atomics or a shared read
  is never hidden); ``NO_PROGRAM`` when no element was touched;
- ``n_reads``, ``n_readers``, ``n_atomic``: the most of any element of the cell;
- ``n_writes``: the *fewest* of any element, so a cell with one element never written shows as
  never written (a mask that leaves a hole is never averaged away);
- an access's lanes: the distinct cells its lanes fall in.

The factors are powers of two, so the tile of a program that is a power of two wide (a
BLOCK_SIZE) is whole cells: then the coarse map is exactly the full map sampled once per cell. What stays exact: the per-program statistics (bytes, masked fraction, out-of-bounds
lanes), the out-of-bounds records and the lanes each access really had (``lanes_active``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np

from .trace import NO_PROGRAM, SEVERAL, AccessTable, TensorInfo, TensorMaps, Trace, TraceRequest

__all__ = ["CoarseTrace", "WindowTraceRequest", "coarsen", "cell_factors", "shipped_bytes", "window_request",
           "MAX_CELLS"]

#: cells per tensor the window gets at most: 2^18 (a 512 × 512 map, more than a panel's pixels)
MAX_CELLS = 1 << 18

_BIG = np.iinfo(np.int32).max


@dataclass
class CoarseTrace(Trace):
    """A ``Trace`` whose tensors are grids of cells (see the module doc)."""

    cells: list[tuple[int, int]] = field(default_factory=list)  # per tensor: (kr, kc) elements per cell
    full_tensors: list[TensorInfo] = field(default_factory=list)  # the tensors as they are
    lanes_active: np.ndarray | None = None  # int32 [E]: active lanes of each access (elements, not cells)
    full_lanes: int = 0  # active lanes of the whole trace
    #: names the full trace the worker kept for it (``kernels.data.region``); '' when none is kept
    region_key: str = ""

    def cell_elements(self, tensor: int, cell: int) -> tuple[tuple[int, int], tuple[int, int]]:
        """((first row, last row), (first column, last column)) of the elements of ``cell`` of
        ``tensor``, in the tensor seen as rows × columns (a 1-D tensor: row 0)."""
        kr, kc = self.cells[tensor]
        rows, cols = _shape2(self.full_tensors[tensor].shape)
        cc = -(-cols // kc)
        r, c = divmod(int(cell), cc)
        return (r * kr, min(rows, (r + 1) * kr) - 1), (c * kc, min(cols, (c + 1) * kc) - 1)


@dataclass
class WindowTraceRequest(TraceRequest):
    """A ``TraceRequest`` from the window: the answer's tensors are reduced to at most
    ``max_cells`` cells each (the worker calls ``coarsen``); the CLI sends plain requests."""

    max_cells: int = MAX_CELLS


def window_request(req: TraceRequest, max_cells: int = MAX_CELLS) -> WindowTraceRequest:
    """``req`` as the window sends it."""
    return WindowTraceRequest(**{f.name: getattr(req, f.name) for f in dataclasses.fields(TraceRequest)},
                              max_cells=max_cells)


def _shape2(shape: tuple[int, ...]) -> tuple[int, int]:
    if len(shape) <= 1:
        return 1, int(shape[0]) if shape else 1
    return int(np.prod(shape[:-1])), int(shape[-1])


def cell_factors(shape: tuple[int, ...], max_cells: int, tile: tuple[int, int] | None = None) -> tuple[int, int]:
    """(kr, kc): powers of two such that the tensor has at most ``max_cells`` cells; the side
    with more cells is halved first (so a power-of-two tile is whole cells). ``tile``: (rows,
    columns) one access spans; a side is halved past the tile's extent only when the other side
    cannot be halved within it any more — so softmax's one-row tiles keep their rows exact (cells
    of 1 × 8 elements, not 4 × 2: each program's row is a row of cells, and hovering program 900
    says row 900)."""
    rows, cols = _shape2(shape)
    tr, tc = tile if tile is not None else (rows, cols)
    kr = kc = 1
    while -(-rows // kr) * -(-cols // kc) > max(1, max_cells):
        more_cols = rows == 1 or (-(-cols // kc) >= -(-rows // kr) and kc < cols)
        col_fits, row_fits = kc * 2 <= max(tc, 1) and kc < cols, kr * 2 <= max(tr, 1) and kr < rows
        if col_fits != row_fits:  # only one side stays inside the tile: that one
            more_cols = col_fits
        if more_cols:
            kc *= 2
        else:
            kr *= 2
    return kr, kc


def _tile_extent(events: AccessTable, t: int, rows: int, cols: int, sample: int = 512) -> tuple[int, int] | None:
    """(rows, columns) that the widest of the first ``sample`` accesses of tensor ``t`` spans;
    None when it has none (or is one row)."""
    if rows <= 1:
        return None
    at = np.flatnonzero((events.tensor == t) & (events.n_active > 0))[:sample]
    if not at.size:
        return None
    n = events.n_active[at].astype(np.int64)
    idx = np.repeat(events.lane_start[at] - (np.cumsum(n) - n), n) + np.arange(int(n.sum()), dtype=np.int64)
    el = events.elements[idx].astype(np.int64)
    starts = np.concatenate([[0], np.cumsum(n)[:-1]])
    r, c = el // cols, el % cols
    span_r = np.maximum.reduceat(r, starts) - np.minimum.reduceat(r, starts) + 1
    span_c = np.maximum.reduceat(c, starts) - np.minimum.reduceat(c, starts) + 1
    return int(span_r.max()), int(span_c.max())


def _cell_of(elements: np.ndarray, rows: int, cols: int, kr: int, kc: int) -> np.ndarray:
    if rows == 1:  # one row: the cell is the element's index over kc (a power of two: a shift)
        return elements >> (int(kc).bit_length() - 1)
    e = elements.astype(np.int64, copy=False)
    cc = -(-cols // kc)
    return (e // cols // kr) * cc + (e % cols) // kc


def _pad_cells(flat: np.ndarray, rows: int, cols: int, kr: int, kc: int, fill: int) -> np.ndarray:
    """The per-element array as [cell rows, kr, cell cols, kc] (padding ``fill``; a view when
    the cells fit exactly)."""
    rc, cc = -(-rows // kr), -(-cols // kc)
    if rc * kr == rows and cc * kc == cols:
        return flat.reshape(rc, kr, cc, kc)
    out = np.full((rc * kr, cc * kc), fill, flat.dtype)
    out[:rows, :cols] = flat.reshape(rows, cols)
    return out.reshape(rc, kr, cc, kc)


def _cells_reduce(a: np.ndarray, ufunc: np.ufunc) -> np.ndarray:
    """[cell rows, kr, cell cols, kc] -> [cell rows, cell cols]. A short run of columns is
    folded slice by slice (numpy reduces a 4-long inner axis ~10x slower than it combines
    slices); the rows then, each a whole slice."""
    kc = a.shape[3]
    if kc <= 32:
        out = a[:, :, :, 0].copy()
        for j in range(1, kc):
            ufunc(out, a[:, :, :, j], out=out)
    else:
        out = ufunc.reduce(a, axis=3)
    return ufunc.reduce(out, axis=1)


def _cells_min(a: np.ndarray) -> np.ndarray:
    return _cells_reduce(a, np.minimum)


def _cells_max(a: np.ndarray) -> np.ndarray:
    return _cells_reduce(a, np.maximum)


def _owner(owner: np.ndarray, rows: int, cols: int, kr: int, kc: int) -> np.ndarray:
    owner = owner.astype(np.int32, copy=False)
    # SEVERAL (-2) < NO_PROGRAM (-1) < any pid: the plain minimum says whether SEVERAL is there;
    # seen as uint32 the negative ones are the largest, so that minimum is the lowest pid
    several = _cells_min(_pad_cells(owner, rows, cols, kr, kc, NO_PROGRAM)) == SEVERAL
    lo = _cells_min(_pad_cells(owner.view(np.uint32), rows, cols, kr, kc, np.uint32(NO_PROGRAM & 0xFFFFFFFF)))
    out = np.where(lo <= _BIG, lo, NO_PROGRAM & 0xFFFFFFFF).astype(np.uint32).view(np.int32)
    out[several] = SEVERAL
    return out.reshape(-1)


def _reduce(a: np.ndarray, rows: int, cols: int, kr: int, kc: int, how: str) -> np.ndarray:
    flat = np.asarray(a).reshape(-1)
    if how == "max":
        return _cells_max(_pad_cells(flat, rows, cols, kr, kc, 0)).reshape(-1)
    return _cells_min(_pad_cells(flat, rows, cols, kr, kc, np.iinfo(flat.dtype).max)).reshape(-1)


def _latest(a: np.ndarray, rows: int, cols: int, kr: int, kc: int) -> np.ndarray:
    """The highest pid of a cell's ``last_reader`` values (-1 for none; padding is -1)."""
    flat = np.asarray(a).reshape(-1).astype(np.int32, copy=False)
    return _cells_max(_pad_cells(flat, rows, cols, kr, kc, -1)).reshape(-1)


def _coarse_maps(m: TensorMaps, rows: int, cols: int, kr: int, kc: int) -> TensorMaps:
    return TensorMaps(
        last_reader=None if m.last_reader is None else _latest(m.last_reader, rows, cols, kr, kc),
        writer=_owner(m.writer.reshape(-1), rows, cols, kr, kc), reader=_owner(m.reader.reshape(-1), rows, cols, kr, kc),
        n_reads=_reduce(m.n_reads, rows, cols, kr, kc, "max"), n_writes=_reduce(m.n_writes, rows, cols, kr, kc, "min"),
        n_readers=_reduce(m.n_readers, rows, cols, kr, kc, "max"),
        n_atomic=None if m.n_atomic is None else _reduce(m.n_atomic, rows, cols, kr, kc, "max"))


def _coarse_events(ev: AccessTable, tensors: list[TensorInfo], cells: list[tuple[int, int]]) -> AccessTable:
    """The access table with each access's lanes replaced by the distinct cells they fall in."""
    n = ev.n_active.astype(np.int64)
    E = n.shape[0]
    if E == 0:
        return ev
    first = np.cumsum(n) - n  # where each access's lanes start once gathered in access order
    if np.array_equal(ev.lane_start, first):  # the tracer's order: no gather needed
        el = ev.elements[: int(n.sum())]
    else:
        el = ev.elements[np.repeat(ev.lane_start - first, n) + np.arange(int(n.sum()), dtype=np.int64)]
    geometry = {(*_shape2(t.shape), kr, kc) for t, (kr, kc) in zip(tensors, cells, strict=True)}
    if len(geometry) == 1:  # every tensor cut alike (vector add's x, y, out): one pass over the lanes
        cell = _cell_of(el, *geometry.pop())
    else:
        cell = np.zeros(el.shape[0], np.int64)
        lane_t = np.repeat(ev.tensor.astype(np.int64), n)
        for t, (info, (kr, kc)) in enumerate(zip(tensors, cells, strict=True)):
            of_t = lane_t == t
            if of_t.any():
                cell[of_t] = _cell_of(el[of_t], *_shape2(info.shape), kr, kc)
    # distinct cells per access: neighbouring lanes first (cheap, most of the work), then sorted
    keep = np.ones(cell.shape[0], bool)
    keep[1:] = cell[1:] != cell[:-1]
    keep[first[n > 0]] = True  # an access's first lane always starts a run
    at = np.flatnonzero(keep)
    live = np.flatnonzero(n > 0)
    lane_ev = live[np.searchsorted(first[live], at, side="right") - 1]
    cell = cell[at]
    span = int(cell.max()) + 1 if cell.size else 1
    key = np.sort(lane_ev * span + cell)  # sorted then deduplicated: np.unique's hash path is ~100x slower here
    if key.size:
        key = key[np.concatenate([[True], key[1:] != key[:-1]])]
    lane_ev, cell = key // span, key % span
    n_cells = np.bincount(lane_ev, minlength=E).astype(np.int32)
    start = np.zeros(E, np.int64)
    np.cumsum(n_cells[:-1], out=start[1:])
    dtype = np.int32 if span < 2**31 else np.int64
    return dataclasses.replace(ev, n_active=n_cells, lane_start=start, elements=cell.astype(dtype))


def coarsen(trace: Trace, max_cells: int = MAX_CELLS) -> Trace:
    """``trace`` itself when every tensor has at most ``max_cells`` elements; else a
    ``CoarseTrace`` of cells (see the module doc)."""
    if not trace.tensors or max(t.numel for t in trace.tensors) <= max_cells:
        return trace
    cells = [cell_factors(t.shape, max_cells, _tile_extent(trace.events, i, *_shape2(t.shape)))
             for i, t in enumerate(trace.tensors)]
    infos, maps = [], []
    for info, m, (kr, kc) in zip(trace.tensors, trace.maps, cells, strict=True):
        rows, cols = _shape2(info.shape)
        rc, cc = -(-rows // kr), -(-cols // kc)
        shape = (cc,) if len(info.shape) <= 1 else (rc, cc)
        infos.append(dataclasses.replace(info, shape=shape, strides=(1,) if len(shape) == 1 else (cc, 1),
                                         storage_offset=0))
        maps.append(_coarse_maps(m, rows, cols, kr, kc) if info.numel else m)
    maps = [dataclasses.replace(m, **{f: (None if getattr(m, f) is None else getattr(m, f).reshape(i.shape))
                                     for f in ("writer", "reader", "n_reads", "n_writes", "n_readers", "n_atomic",
                                               "last_reader")})
            for m, i in zip(maps, infos, strict=True)]
    base = {f.name: getattr(trace, f.name) for f in dataclasses.fields(Trace)}
    base.update(tensors=infos, maps=maps, events=_coarse_events(trace.events, trace.tensors, cells))
    if isinstance(trace, CoarseTrace):  # already cells (a GPU trace reduced on the device): cells of cells
        return CoarseTrace(**base, cells=[(a * kr, b * kc) for (a, b), (kr, kc) in zip(trace.cells, cells, strict=True)],
                           full_tensors=list(trace.full_tensors), lanes_active=trace.lanes_active,
                           full_lanes=trace.full_lanes)
    return CoarseTrace(**base, cells=cells, full_tensors=list(trace.tensors),
                       lanes_active=trace.events.n_active.astype(np.int32),
                       full_lanes=int(trace.events.elements.shape[0]))


def shipped_bytes(obj: object, depth: int = 0) -> int:
    """Bytes of the numpy arrays inside ``obj`` (dataclasses, lists, dicts): what a reply carries."""
    if depth > 12 or obj is None or isinstance(obj, (bool, int, float, str, bytes)):
        return 0
    if isinstance(obj, np.ndarray):
        return int(obj.nbytes)
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return sum(shipped_bytes(getattr(obj, f.name, None), depth + 1) for f in dataclasses.fields(obj))
    if isinstance(obj, dict):
        return sum(shipped_bytes(v, depth + 1) for v in obj.values())
    if isinstance(obj, (list, tuple)):
        return sum(shipped_bytes(v, depth + 1) for v in obj)
    return 0
