"""The tracer: which program touched which element, recorded from the kernel itself.

A kernel is replayed under Triton's interpreter (``kernels.interp``) with a ``recorder.Recorder``
observing every load, store and atomic; ``lanes`` turns the raw addresses into logical element
indices through each tensor's strides, and ``kernels.data.maps`` derives who wrote and read each
element. ``service`` is the one entry point the CLI and the worker share.

Entry points:

- ``trace_spec(spec, values, seed=0, window=None, n_sms=132, programs_per_sm=1, progress=None,
  cancel=None) -> Trace``: a registered kernel;
- ``trace_launch(launch, kernel="", values=None, window=None, ...) -> Trace``: any launcher
  ``launch(K)`` that calls ``K(jit_fn)[grid](...)`` with CPU tensors (ad-hoc kernels);
- ``trace(request: TraceRequest, progress, cancel) -> TraceResult``: the worker's entry point.

Large grids: ``window=`` runs a range of programs (or a box of the grid) only; on Linux the
programs are split over forked recording processes (``workers=None``: as many as the CPUs
allow; ``workers=1``: in this process). Queries for the grid view are in ``maps``
(``wave_footprint``, ``footprint``, ``rewave``, ``per_program_grid``); ``render`` draws a PNG.

``kernels.data.trace`` (the data) and ``kernels.data.maps`` (queries) import neither torch nor
triton; importing this package does not import them either until a trace is taken.
"""

from __future__ import annotations

from typing import Any

from ..data.errors import TraceCancelled, TraceUnsupported
from ..data.maps import (
    Footprint,
    footprint,
    per_program_grid,
    pid_grid,
    programs_in_wave,
    rewave,
    summary_lines,
    wave_footprint,
    waves,
)
from ..data.trace import (
    NO_PROGRAM,
    OP_ATOMIC,
    OP_LOAD,
    OP_NAMES,
    OP_STORE,
    SEVERAL,
    AccessTable,
    OOBRecord,
    ProgramStats,
    TensorInfo,
    TensorMaps,
    Trace,
    TraceRequest,
    TraceResult,
    Window,
)

__all__ = [
    "trace", "trace_spec", "trace_launch", "TraceUnsupported", "TraceCancelled",
    "Footprint", "footprint", "wave_footprint", "programs_in_wave", "pid_grid", "per_program_grid", "waves", "rewave",
    "summary_lines", "AccessTable", "OOBRecord", "ProgramStats", "TensorInfo", "TensorMaps", "Trace",
    "TraceRequest", "TraceResult", "Window", "NO_PROGRAM", "SEVERAL", "OP_LOAD", "OP_STORE", "OP_ATOMIC",
    "OP_NAMES",
]


def trace(request: TraceRequest, progress: Any = None, cancel: Any = None, cache: Any = None) -> TraceResult:
    from .service import trace as _trace

    return _trace(request, progress=progress, cancel=cancel, cache=cache)


def trace_spec(*args: Any, **kwargs: Any) -> Trace:
    from .service import trace_spec as _trace_spec

    return _trace_spec(*args, **kwargs)


def trace_launch(*args: Any, **kwargs: Any) -> Trace:
    from .recorder import trace_launch as _trace_launch

    return _trace_launch(*args, **kwargs)


trace.__doc__ = "Serve a TraceRequest (see service.trace); never raises."
trace_spec.__doc__ = "Trace a registered kernel (see service.trace_spec)."
trace_launch.__doc__ = "Trace one launch of launch(K) (see recorder.trace_launch)."
