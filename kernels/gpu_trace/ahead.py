"""What a GPU trace compiles, derived ahead (issue #24): after a Run on the GPU, the user's next
click is often Trace of the same config, and its first cost was compiling the two instrumented
builds (the recording build, then the light timeline build: docs/benchmarks/gpu-trace.md).
``kernels.engine.trace_ahead`` compiles them in the background right after the Run, into
Triton's on-disk cache, so that the trace's ``JITFunction.warmup`` finds them there.

``trace_builds(spec, values)``: the ``(mode, jit_fn, args, kwargs)`` the trace will compile for
launch 0 — the recording build's first launch (no site with the per-lane path: what
``service._maps_passes`` launches first) and the light timeline build — on stand-ins: the inputs'
dry run on the meta device and a ``Recording`` on the meta device (nothing allocated), through the
very ``service.build_kwargs`` the trace's launch uses.

A second maps launch with the per-lane path in some sites (a kernel whose accesses are not all
tiles) is not derived: which sites need it is known only after the first launch.
"""

from __future__ import annotations

from typing import Any

__all__ = ["trace_builds"]


def trace_builds(spec: Any, values: dict[str, Any]) -> list[tuple[str, Any, tuple, dict]]:
    """The trace's instrumented launches of launch 0, on meta stand-ins (see the module doc)."""
    from ..interp import bind, constexpr_names
    from ..run.memory import dry_inputs
    from .device import lanes_mask
    from .rewrite import instrument
    from .service import _split, build_kwargs, n_maps_of
    from .shadow import Recording

    cfg = spec.config(dict(values))
    got: list[tuple[Any, Any, tuple, dict]] = []

    class _K:
        def __init__(self, fn: Any) -> None:
            self.fn = fn

        def __getitem__(self, grid: Any) -> Any:
            return lambda *a, **kw: got.append((self.fn, grid, a, kw)) if not got else None

        def __getattr__(self, name: str) -> Any:
            return getattr(self.fn, name)

    tensors = dry_inputs(spec, cfg)
    spec.run_launch(_K, tensors, dict(cfg))
    if not got:
        raise ValueError(f"{spec.name} made no launch at {cfg}")
    fn, _grid, args, kwargs = got[0]
    bound = bind(fn, args, kwargs)
    targs, _, _ = _split(bound, constexpr_names(fn))
    out = []
    for mode, lanes in (("maps", lanes_mask(0)), ("timeline", -1)):
        inst = instrument(fn, mode)
        rec = Recording(targs, 1, "meta", n_maps_of(inst, mode), with_maps=mode == "maps")
        kw = build_kwargs(kwargs, rec, mode, on_gpu=True)
        kw["_TS_LANES"] = lanes
        out.append((mode, inst.fn, args, kw))
    return out
