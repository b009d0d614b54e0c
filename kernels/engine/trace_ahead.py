"""A GPU Run's trace builds compiled ahead (issue #24): the user's click on Trace after a Run of the
same config found its two instrumented builds (recording, light timeline) still to compile —
most of the first trace's time (docs/benchmarks/gpu-trace.md). ``EngineState`` submits the Run's
config here when a GPU Run is answered; one background thread compiles that config's trace builds
(``kernels.gpu_trace.ahead.trace_builds``) into Triton's on-disk cache, the way
``kernels.engine.precompile`` compiles a Run's launches (the same cache entry the trace's
``JITFunction.warmup`` then looks up).

- ``warm()``: at a GPU worker's ``hello``, the same thread runs a small GPU trace
  (``warm_trace``): a process's first trace paid its first use of the torch CUDA kernels that
  derive the maps (H200: ~0.24 s more than the next) and of the recorder's rewrite; it runs on this
  thread, not the head start's (``kernels.tune.warm_start``), because it compiles: a request that
  may run the interpreter must not overlap it (below);
- one config at a time, the newest wins (``Precompiler``'s queue and thread);
- a trace of the config being compiled waits for it (``wait_for``) rather than compiling it a
  second time beside it; any other request drops the queued one (``drop``) — a compile in flight
  cannot be stopped, and a GPU Run goes on beside it; a request that may run the interpreter
  waits for it (``exclusive``, as for the Run's compile ahead).
"""

from __future__ import annotations

import time
from typing import Any

from ..data.errors import first_line, to_error_info
from ..data.results import RunRequest
from .precompile import PrecompileOutcome, Precompiler, precompile_key

__all__ = ["WARM", "TraceBuildsAhead", "precompile_trace", "warm_trace"]

#: the request ``warm()`` queues: a small vector add's trace (the window's path: maps reduced on
#: the device, tile events)
WARM = RunRequest("vector_add", {"N": 4096, "BLOCK_SIZE": 256}, backend="gpu")
_WARM_TARGET = "trace once"  # the target the warm request is queued with (no GPU target is named so)


def precompile_trace(spec: Any, req: RunRequest, target: Any = None) -> PrecompileOutcome:
    """Compile the trace builds of ``req``'s values into Triton's cache, for ``target`` (a
    ``GPUTarget`` or a name such as "sm_90"; None: the GPU's). Never raises."""
    t0 = time.perf_counter()
    out = PrecompileOutcome(precompile_key(req), inputs="dry run")
    try:
        import triton
        from triton.compiler import ASTSource

        from ..compile.target import compile_inputs
        from ..gpu_trace.ahead import trace_builds

        if target is None:
            target = triton.runtime.driver.active.get_current_target()
        for _mode, jit_fn, args, kwargs in trace_builds(spec, dict(req.values)):
            fn, signature, constexprs, attrs, options, gpu_target = compile_inputs(jit_fn, args, kwargs, target)
            triton.compile(ASTSource(fn, signature, constexprs, attrs), target=gpu_target, options=options)
            out.kernels += 1
    except Exception as e:  # noqa: BLE001 - the trace compiles (and reports) it itself
        out.error = first_line(to_error_info(e, "compiling").message, 200)
    out.seconds = time.perf_counter() - t0
    return out


def warm_trace(device: str | None = None) -> PrecompileOutcome:
    """Trace ``WARM`` on ``device`` (None: the GPU; "cpu": the interpreter, for the tests), the
    window's way (maps reduced, tile events). Never raises."""
    t0 = time.perf_counter()
    out = PrecompileOutcome(precompile_key(WARM), inputs="drawn")
    try:
        from ..gpu_trace.service import gpu_trace_spec
        from ..sources.lookup import get_spec

        got = gpu_trace_spec(get_spec(WARM.kernel), dict(WARM.values), max_elements=1024, device=device,
                             events_from_tiles=True)
        out.kernels = 1 if got.trace is not None and got.tile_events is not None else 0
    except Exception as e:  # noqa: BLE001 - a head start only: the first trace pays it
        out.error = first_line(to_error_info(e, "tracing").message, 200)
    out.seconds = time.perf_counter() - t0
    return out


class TraceBuildsAhead(Precompiler):
    """``Precompiler``'s thread and queue compiling a config's trace builds (``precompile_trace``)
    instead of its Run's launches. ``find_spec(req)`` gives the KernelSpec of a request (raises
    when unknown)."""

    def warm(self) -> str:
        """Queue ``warm_trace`` on this thread (see the module doc)."""
        return self.submit(WARM, _WARM_TARGET)

    def drop(self) -> None:
        """Forget the queued config (the one compiling finishes: a compile cannot be stopped); a
        queued ``warm()`` stays (the request right after ``hello`` would drop it otherwise)."""
        with self._cond:
            if self._queued is not None and self._queued[1] is not _WARM_TARGET:
                self._queued = None

    def _compile(self, req: RunRequest, target: Any) -> PrecompileOutcome:
        if target is _WARM_TARGET:
            return warm_trace()
        try:
            spec = self._find_spec(req)
        except Exception as e:  # noqa: BLE001 - an unknown kernel: the trace says so
            return PrecompileOutcome(precompile_key(req), error=first_line(f"{type(e).__name__}: {e}", 200))
        if spec is None:
            return PrecompileOutcome(precompile_key(req), error=f"{req.kernel} is not a registered kernel")
        return precompile_trace(spec, req, target)
