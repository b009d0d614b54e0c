"""A GPU Run's trace builds compiled ahead (issue #24): the user's click on Trace after a Run of the
same config found its two instrumented builds (recording, light timeline) still to compile —
most of the first trace's time (docs/benchmarks/gpu-trace.md). ``EngineState`` submits the Run's
config here when a GPU Run is answered; one background thread compiles that config's trace builds
(``kernels.gpu_trace.ahead.trace_builds``) into Triton's on-disk cache, the way
``kernels.engine.precompile`` compiles a Run's launches (the same cache entry the trace's
``JITFunction.warmup`` then looks up).

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

__all__ = ["TraceBuildsAhead", "precompile_trace"]


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


class TraceBuildsAhead(Precompiler):
    """``Precompiler``'s thread and queue compiling a config's trace builds (``precompile_trace``)
    instead of its Run's launches. ``find_spec(req)`` gives the KernelSpec of a request (raises
    when unknown)."""

    def drop(self) -> None:
        """Forget the queued config (the one compiling finishes: a compile cannot be stopped)."""
        with self._cond:
            self._queued = None

    def _compile(self, req: RunRequest, target: Any) -> PrecompileOutcome:
        try:
            spec = self._find_spec(req)
        except Exception as e:  # noqa: BLE001 - an unknown kernel: the trace says so
            return PrecompileOutcome(precompile_key(req), error=first_line(f"{type(e).__name__}: {e}", 200))
        if spec is None:
            return PrecompileOutcome(precompile_key(req), error=f"{req.kernel} is not a registered kernel")
        return precompile_trace(spec, req, target)
