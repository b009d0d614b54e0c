"""The interpreter recorder's entry point: a registered kernel, prepared by the request service
(``kernels.run.prepare``) on the CPU and recorded by ``recorder.trace_launch``. Trace requests
reach it through the one router of both recorders, ``kernels.engine.trace_router.serve_trace``
(which the worker's and the command line's ``trace`` handler calls)."""

from __future__ import annotations

from typing import Any

from ..data.coarse import coarsen
from ..data.errors import to_error_info
from ..data.params import ValidationError
from ..data.results import ErrorInfo, Progress
from ..data.trace import Trace, TraceRequest, TraceResult, Window
from ..run.backends import interpreter_backend
from ..run.memory import check_trace_size
from ..run.prepare import InputCache, prepare
from ..sources.lookup import get_spec
from .recorder import CancelFn, ProgressFn, trace_launch

__all__ = ["trace", "trace_spec", "for_window"]

_CPU = interpreter_backend()


def trace_spec(spec: Any, values: dict[str, Any] | None = None, seed: int = 0,
               window: Window | str | tuple[int, int] | None = None, n_sms: int = 132, programs_per_sm: int = 1,
               progress: ProgressFn | None = None, cancel: CancelFn | None = None, launch_index: int = 0,
               workers: int | None = None, check_overflow: bool = False, cache: InputCache | None = None) -> Trace:
    """Trace a registered kernel: ``prepare`` validates ``values`` (ValidationError names the
    field), builds the inputs on the CPU with ``seed`` — or takes those of ``cache`` (the worker's
    live cache) when they are of the same data and seed — and resets the outputs; the spec's
    launcher runs with a recording K. Other arguments as for ``trace_launch``."""
    p = prepare(spec, dict(values or {}), _CPU, seed, cache=cache)
    shown = {k: v for k, v in p.cfg.items() if not str(k).startswith("_")}
    return trace_launch(p.launch, kernel=spec.name, values=shown, window=window, n_sms=n_sms,
                        programs_per_sm=programs_per_sm, launch_index=launch_index, progress=progress,
                        cancel=cancel, workers=workers, check_overflow=check_overflow, kernels=tuple(spec.kernels))


def trace(request: TraceRequest, progress: ProgressFn | None = None, cancel: CancelFn | None = None,
          cache: InputCache | None = None) -> TraceResult:
    """Serve a ``TraceRequest`` (``cache``: see ``trace_spec``). Never raises: failures come back
    as ``TraceResult.error`` (an ErrorInfo: validation, interpreter, cancelled, ...)."""
    try:
        spec = get_spec(request.kernel, request.user_file)
        # a trace too large for the pipe or the host is refused before anything is built
        check_trace_size(spec, dict(request.values))
        try:
            window = Window.parse(request.window) if request.window else None
        except ValueError as e:
            raise ValidationError(str(e), "window") from None
        tr = trace_spec(spec, request.values, seed=request.seed, window=window, n_sms=request.n_sms,
                        programs_per_sm=request.programs_per_sm, progress=progress, cancel=cancel,
                        workers=request.workers, check_overflow=request.check_overflow, cache=cache)
        return TraceResult(request=request, trace=tr)
    except ValueError as e:
        if isinstance(e, ValidationError):
            return TraceResult(request=request, error=to_error_info(e))
        return TraceResult(request=request, error=ErrorInfo(kind="validation", message=str(e),
                                                            field="window" if "window" in str(e) else None))
    except Exception as e:  # noqa: BLE001 - every failure is reported, the worker keeps serving
        return TraceResult(request=request, error=to_error_info(e, "tracing"))


def for_window(result: Any, max_cells: int | None, progress: ProgressFn | None = None) -> Any:
    """A trace answer (``TraceResult``, or any result with a ``trace``) as the window gets it:
    a tensor of more than ``max_cells`` elements reduced to that many cells
    (``kernels.data.coarse``), so the worker never ships more than a window can draw (300 MB of
    arrays for vector add at N = 2^22, 19 MB reduced). None: as it is. Never raises: a reduction
    that fails leaves the full trace."""
    tr = getattr(result, "trace", None)
    if not max_cells or not isinstance(tr, Trace) or not tr.tensors or max(t.numel for t in tr.tensors) <= max_cells:
        return result
    if progress is not None:
        progress(Progress(f"reducing {int(tr.events.elements.shape[0]):,} element accesses to what the window "
                          "draws", 1.0))
    try:
        result.trace = coarsen(tr, max_cells)
    except Exception:  # noqa: BLE001 - the full trace still draws, only slower
        pass
    return result
