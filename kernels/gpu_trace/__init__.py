"""The GPU recorder: the same ``Trace`` as the interpreter recorder, from an instrumented build of
the kernel run on the GPU (about a thousand times faster than the replay), plus the schedule.

- ``rewrite``: the kernel's source (and its jit helpers') rewritten so that every load, store and
  atomic also updates int32 shadow maps on the device; ``device``: the ``@triton.jit`` recording
  functions and the buffers' layout; ``shadow``: the buffers and the maps they give (torch, on
  the device; reduced there before they travel); ``service``: the entry points;
- ``model``: ``Timeline`` (each program's SM and start/end time, measured waves) and
  ``GpuTraceInfo`` / ``GpuTraceResult`` — numpy only, for the GUI.

Entry points (importing this package imports neither torch nor triton until one is called):

- ``gpu_trace_spec(spec, values, *, timeline_only=False, max_elements=..., device="cuda",
  events_window=None, keep=False) -> GpuTrace`` (``.trace``, ``.timeline``, ``.info``,
  ``.region(tensor, index)``);
- ``gpu_trace(request: TraceRequest, *, timeline_only=False, ...) -> GpuTraceResult``: the
  worker's / CLI's call, never raises;
- ``require_cuda()``: BackendUnavailable, one line, where no CUDA device is usable.

A ``TraceRequest`` reaches this recorder or the interpreter's through their one router,
``kernels.engine.trace_router.serve_trace`` (the ``trace`` request's handler).
"""

from __future__ import annotations

from typing import Any

from ..data.gpu_trace import MAX_MAP_ELEMENTS, GpuTraceInfo, GpuTraceResult, Timeline

__all__ = ["MAX_MAP_ELEMENTS", "GpuTraceInfo", "GpuTraceResult", "Timeline", "gpu_trace", "gpu_trace_spec",
           "require_cuda"]


def gpu_trace_spec(*args: Any, **kwargs: Any) -> Any:
    from .service import gpu_trace_spec as _f

    return _f(*args, **kwargs)


def gpu_trace(*args: Any, **kwargs: Any) -> GpuTraceResult:
    from .service import gpu_trace as _f

    return _f(*args, **kwargs)


def require_cuda() -> None:
    from .service import require_cuda as _f

    _f()


gpu_trace_spec.__doc__ = "Trace a registered kernel from its instrumented build (see service.gpu_trace_spec)."
gpu_trace.__doc__ = "Serve a TraceRequest on the GPU (see service.gpu_trace); never raises."
require_cuda.__doc__ = "Raise BackendUnavailable (one line) when no CUDA device is usable."
