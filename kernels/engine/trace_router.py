"""The one place a ``TraceRequest`` is routed: the worker's ``trace`` request and ``tilescope
trace`` (in this process or in a worker) both call ``serve_trace``.

- ``backend="interpreter"``: the interpreter recorder (``kernels.trace.trace``);
- ``backend="gpu"``: the instrumented build on the GPU (``kernels.gpu_trace.service.gpu_trace``): every program's
  maps, plus the schedule (``timeline``); ``maps=False`` with ``timeline``: the schedule only;
- ``backend="gpu", compare=True``: "interpreter vs GPU" (``compare_backends``): the launch run
  both ways on the same seeded inputs, the outputs compared, the programs that wrote a differing
  element named (from the GPU trace's writer maps). The interpreter side is bounded
  (``kernels.gpu_trace.bounded``): a big launch is compared on a window of programs only.

Without CUDA a GPU request is answered with one line (``require_cuda``'s), never a traceback.
Never raises: failures come back as the result's ``error`` (an ErrorInfo).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..data.backends import GPU, INTERPRETER, NAMES
from ..data.errors import BackendUnavailable, Cancelled, to_error_info
from ..data.gpu_trace import MAX_MAP_ELEMENTS, GpuTraceResult
from ..data.results import ErrorInfo, Progress
from ..data.trace import TraceRequest, TraceResult
from ..gpu_trace.bounded import COMPARE_BUDGET_S, COMPARE_MAX_PROGRAMS, run_window, written_by
from ..gpu_trace.compare import BackendComparison, OutputDiff, writer_of
from ..gpu_trace.service import ProgressFn, gpu_trace, gpu_trace_spec, require_cuda

__all__ = ["compare_backends", "serve_trace"]


def _refused(request: TraceRequest, message: str) -> TraceResult:
    return TraceResult(request=request, error=ErrorInfo(kind="validation", message=message, field="backend"))


def serve_trace(request: TraceRequest, progress: ProgressFn | None = None, cancel: Any = None, *,
                device: str | None = None, on_kept: Any = None, cache: Any = None) -> TraceResult | GpuTraceResult:
    """Serve ``request`` on its backend (see the module doc). ``device="cpu"`` runs a GPU
    request's instrumented build under the interpreter instead (the CPU tests' way to run the very
    code the GPU runs; no schedule there). ``on_kept``: a GPU trace's shadow buffers are kept on
    the device and handed to it (``kernels.gpu_trace.service.gpu_trace``). ``cache``: the worker's
    live cache (``kernels.run.prepare.InputCache``): its inputs are traced when they are of the
    request's data and seed (the window's last Run drew them), else the trace's own replace them
    there; interpreter vs GPU builds its own."""
    backend = getattr(request, "backend", INTERPRETER)
    if backend not in NAMES:
        return _refused(request, f"unknown trace backend {backend!r} (choose {' or '.join(NAMES)})")
    if backend == INTERPRETER:
        if request.timeline or not request.maps:
            return _refused(request, "the timeline needs the GPU backend: the interpreter has no SMs or clocks to read")
        if request.compare:
            return _refused(request, "interpreter vs GPU needs the GPU backend")
        from ..trace import trace

        return trace(request, progress=progress, cancel=cancel, cache=cache)
    if (device or "cuda") != "cpu":
        try:
            require_cuda()
        except BackendUnavailable as e:
            return GpuTraceResult(request, error=to_error_info(e))
    if request.compare:
        return compare_backends(request, device=device, progress=progress, cancel=cancel)
    # the window's request: its maps reduced on the device to what it draws, not copied to the host
    # whole and reduced again there (what that saved: docs/benchmarks/gpu-trace.md)
    max_cells = getattr(request, "max_cells", None)
    reduce = {"max_elements": min(MAX_MAP_ELEMENTS, int(max_cells))} if max_cells else {}
    # and each program's accesses from the recording's tile records: what a pinned program lights
    return gpu_trace(request, device=device, progress=progress, on_kept=on_kept, cache=cache,
                     events_from_tiles=bool(max_cells), **reduce)


def _host(t: Any) -> np.ndarray:
    """A tensor's values on the host, floats as float64 (bf16 and fp8 have no numpy dtype)."""
    t = t.detach()
    return (t.double() if t.is_floating_point() else t).cpu().numpy()


def compare_backends(request: TraceRequest, *, device: str | None = None, progress: ProgressFn | None = None,
                     cancel: Callable[[], bool] | None = None, max_programs: int = COMPARE_MAX_PROGRAMS,
                     budget_s: float = COMPARE_BUDGET_S) -> BackendComparison:
    """Run ``request``'s launch on the GPU (the kernel as written, for its outputs; then its
    instrumented build, for the writer maps) and under the interpreter, on the same seeded
    inputs, and compare every output. Each run may be off the exact answer by the kernel's
    tolerance, so they may differ from each other by twice it; more than that is a difference.

    The interpreter runs the programs of ``request.window`` (else all), at most ``max_programs``
    of them and for at most ``budget_s`` (``kernels.gpu_trace.bounded``); when that is not every
    program, only the elements the programs that ran wrote are compared, and ``compared`` names
    them. ``cancel()`` is polled between stages and before every interpreted program.
    ``device="cpu"``: the "GPU" side runs under the interpreter too (tests). Never raises."""
    try:
        return _compare(request, device or "cuda", progress, cancel, max_programs, budget_s)
    except Exception as e:  # noqa: BLE001 - every failure is reported, the worker keeps serving
        return BackendComparison(request, error=to_error_info(e, "comparing"))


def _on_device(spec: Any, request: TraceRequest, device: str) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """(the outputs of the kernel as written, run on ``device``, on the host; the values used)."""
    from ..run.backends import resolve
    from ..run.prepare import prepare

    on_gpu = device != "cpu"
    gpu_be = resolve(GPU if on_gpu else INTERPRETER)
    p = prepare(spec, dict(request.values), gpu_be, request.seed)
    with gpu_be.activate(spec.kernels) as K:
        p.launch(K)
    if on_gpu:
        import torch

        torch.cuda.synchronize()
    return {name: _host(p.tensors[name]) for name in spec.outputs}, p.cfg


def _compare(request: TraceRequest, device: str, progress: ProgressFn | None, cancel: Callable[[], bool] | None,
             max_programs: int, budget_s: float) -> BackendComparison:
    from ..sources.lookup import get_spec

    def say(stage: str, fraction: float) -> None:
        if cancel is not None and cancel():
            raise Cancelled(f"interpreter vs GPU cancelled before {stage}")
        if progress is not None:
            progress(Progress(stage, fraction))

    spec = get_spec(request.kernel, request.user_file)
    if device != "cpu":
        require_cuda()
    say("running on the GPU", 0.05)
    on_device, cfg = _on_device(spec, request, device)
    say("recording the writer maps on the GPU", 0.2)
    got = gpu_trace_spec(spec, dict(request.values), seed=request.seed, device=device, n_sms=request.n_sms,
                         programs_per_sm=request.programs_per_sm)
    say("running under the interpreter", 0.4)

    def interp_progress(p: Progress) -> None:
        if progress is not None:
            progress(Progress(p.stage, 0.4 + 0.55 * p.fraction, p.done, p.total, p.unit))

    ran = run_window(spec, request.values, request.seed, window=request.window, max_programs=max_programs,
                     budget_s=budget_s, cancel=cancel, progress=interp_progress)
    atol, rtol = (2.0 * x for x in spec.tolerance(cfg))
    trace = got.trace
    outputs, skipped = [], []
    for name in spec.outputs:
        writer = writer_of(trace, name, on_device[name].shape) if trace is not None else None
        interp = _host(ran.tensors[name])
        only = written_by(ran, name, interp, writer) if ran.windowed else None
        if ran.windowed and only is None:
            skipped.append(name)
            only = np.zeros(interp.shape, bool)
        outputs.append(OutputDiff.of(name, interp, on_device[name], writer, atol, rtol, only=only))
    say("done", 1.0)
    return BackendComparison(request, trace, got.timeline, got.info, outputs=outputs, atol=atol, rtol=rtol,
                             compared=ran.text() if ran.windowed else "", n_programs=ran.n_programs,
                             n_compared=int(ran.pids.size), why_window=ran.why, not_compared=skipped)
