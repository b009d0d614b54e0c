"""The full trace behind the reduced one the window drew — kept in the worker, one at a time, so
that a region of it can come back at full resolution (``kernels.data.region``).

``KeptTrace.serve(request)`` serves a trace request as the worker's ``trace`` request does
(``trace_router.serve_trace``, then ``kernels.trace.service.for_window``) and, when the answer was
reduced to cells, keeps what a region is read from, under a fresh key that the reduced trace
carries (``CoarseTrace.region_key``):

- a GPU trace: its shadow maps, left on the device (``GpuTrace.region`` derives the maps of a
  rectangle there; only that rectangle travels to the host);
- an interpreter trace (or a GPU trace whose maps came to the host whole): the full trace, on
  the host.

``answer(RegionRequest)`` reads a rectangle; a request for another key (the kept trace was
dropped, or replaced by a newer one) or of more than ``MAX_REGION_ELEMENTS`` is refused with a
``ValidationError`` of one line. ``release()`` drops what is kept (the worker calls it on every
request that may need the memory, as it releases ``kernels.engine.run.LiveCache``).
"""

from __future__ import annotations

import secrets
from typing import Any

import numpy as np

from ..data.coarse import CoarseTrace
from ..data.params import ValidationError
from ..data.region import MAP_FIELDS, MAX_REGION_ELEMENTS, RegionAnswer, RegionRequest, rows_cols, slice_maps
from ..data.trace import TensorMaps, Trace

__all__ = ["KeptTrace", "SOURCE_DEVICE", "SOURCE_HOST"]

SOURCE_DEVICE = "the GPU trace's shadow maps, kept on the device"
SOURCE_HOST = "the full trace, kept in the worker's memory"


class KeptTrace:
    """At most one full trace (or one GPU recording) behind the last reduced trace sent."""

    def __init__(self) -> None:
        self.key = ""
        self._full: Trace | None = None  # host maps at full resolution
        self._gpu: Any = None  # kernels.gpu_trace.service.GpuTrace with its shadow buffers
        self._shapes: list[tuple[int, ...]] = []  # every tensor's real shape
        self._drawn: list[tuple[int, ...]] = []  # the shape the window takes each tensor for

    @property
    def source(self) -> str:
        return SOURCE_DEVICE if self._gpu is not None else SOURCE_HOST if self._full is not None else ""

    def release(self) -> None:
        """Drop what is kept (the device's shadow buffers too); a later region request is refused."""
        if self._gpu is not None:
            self._gpu.release()
            _empty_cuda_cache()
        self.key, self._full, self._gpu, self._shapes, self._drawn = "", None, None, [], []

    def serve(self, request: Any, progress: Any = None, cancel: Any = None, *, device: str | None = None,
              cache: Any = None) -> Any:
        """Serve trace ``request`` (``serve_trace``, with the live ``cache``; a window's request
        reduced by ``for_window``) and keep the full trace when the answer is reduced. What was
        kept before is dropped first."""
        from ..trace.service import for_window
        from .trace_router import serve_trace

        self.release()
        max_cells = getattr(request, "max_cells", None)
        kept: list[Any] = []
        result = serve_trace(request, progress=progress, cancel=cancel, device=device,
                             on_kept=kept.append if max_cells else None, cache=cache)
        full = getattr(result, "trace", None)
        result = for_window(result, max_cells, progress)
        tr = getattr(result, "trace", None)
        if isinstance(tr, CoarseTrace) and (kept or (isinstance(full, Trace) and not isinstance(full, CoarseTrace))):
            self.key = tr.region_key = secrets.token_hex(8)
            self._drawn = [tuple(f.shape) for f in tr.full_tensors]
            if kept:
                self._gpu = kept.pop()
                self._gpu.trace = None  # the reduced copy went to the window; the device holds the rest
                self._shapes = [tuple(a.info.shape) for a in self._gpu.recording.tensors]
            else:
                self._full = full
                self._shapes = [tuple(t.shape) for t in full.tensors]
        for g in kept:  # not reduced, or failed: nothing to read regions of
            g.release()
        return result

    def answer(self, req: RegionRequest) -> RegionAnswer:
        """The maps of ``req``'s rectangle at full resolution (see the module doc)."""
        if not self.key or req.key != self.key:
            raise ValidationError("the full trace of this region is no longer kept in the worker (another request "
                                  "needed its memory, or a newer trace replaced it): trace again", "region")
        if req.numel > MAX_REGION_ELEMENTS:
            raise ValidationError(f"a region of {req.numel:,} elements is more than the {MAX_REGION_ELEMENTS:,} one "
                                  "request may fetch: zoom in further", "region")
        if not 0 <= req.tensor < len(self._shapes):
            raise ValidationError(f"the trace has {len(self._shapes)} tensors; there is no tensor {req.tensor}", "region")
        shape = self._shapes[req.tensor]
        if self._drawn[req.tensor] != shape:  # a 3-D+ map reduced on the device: its cells are not the tensor's
            raise ValidationError("this tensor's maps were reduced on the device as a map of their own; it has no "
                                  "full-resolution region", "region")
        rows, cols = rows_cols(shape)
        (r0, r1), (c0, c1) = req.rows, req.cols
        if not (0 <= r0 < r1 <= rows and 0 <= c0 < c1 <= cols):
            raise ValidationError(f"rows {r0}:{r1} × columns {c0}:{c1} is not inside the tensor's {rows} × {cols} "
                                  "elements", "region")
        if self._gpu is None:
            full = self._full
            return RegionAnswer(req, slice_maps(full.maps[req.tensor], shape, req.rows, req.cols), SOURCE_HOST)
        return RegionAnswer(req, self._device_region(req.tensor, shape, req.rows, req.cols), SOURCE_DEVICE)

    def _device_region(self, t: int, shape: tuple[int, ...], rows: tuple[int, int], cols: tuple[int, int]) -> TensorMaps:
        if len(shape) > 2:  # rows of a 3-D+ tensor are no one slice of its shape: row by row
            parts = [self._gpu.region(t, (*_unravel(r, shape[:-1]), slice(*cols))) for r in range(*rows)]
        elif len(shape) == 2:
            parts = [self._gpu.region(t, (slice(*rows), slice(*cols)))]
        else:
            parts = [self._gpu.region(t, (slice(*cols),))]
        h, w = rows[1] - rows[0], cols[1] - cols[0]

        def joined(f: str) -> np.ndarray | None:
            got = [getattr(m, f) for m in parts]
            if all(a is None for a in got):
                return None
            # a row without atomics says None for n_atomic (only rows of a 3-D+ tensor come apart)
            return np.concatenate([np.zeros(w, np.int32) if a is None else a.reshape(-1) for a in got]).reshape(h, w)

        return TensorMaps(**{f: joined(f) for f in MAP_FIELDS})


def _unravel(i: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    out = []
    for n in reversed(shape):
        i, r = divmod(i, int(n))
        out.append(r)
    return tuple(reversed(out))


def _empty_cuda_cache() -> None:
    """Give the freed shadow buffers back to the device (torch keeps freed blocks cached)."""
    import sys

    torch = sys.modules.get("torch")
    try:
        if torch is not None and torch.cuda.is_initialized():
            torch.cuda.empty_cache()
    except Exception:  # noqa: BLE001 - only a cache; a failure here must not fail a request
        pass
