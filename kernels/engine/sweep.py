"""Sweeps: run every combination of the swept parameters; best = the fastest passing point.

Points whose data parameters agree share one set of inputs (``prepare.InputCache``); every point
still starts from reset outputs (see ``kernels.prepare``). torch's time depends on the data only,
so it is measured once per input set.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import Any

from ..data.errors import to_error_info
from ..data.params import ValidationError
from ..data.results import ErrorInfo, Progress, RunRequest, RunResult, SweepPoint, SweepRequest, SweepResult
from ..lookup import get_spec
from ..prepare import InputCache
from ..spec import KernelSpec
from .run import CancelFn, ProgressFn, run

__all__ = ["sweep", "best_index"]


def _norm(spec: KernelSpec, name: str, value: Any) -> Any:
    """A value as the spec parses it, so that "128" and 128 name the same sweep point."""
    try:
        return spec.param(name).parse(value)
    except (KeyError, ValidationError):
        return value


def sweep(req: SweepRequest, progress: ProgressFn | None = None, cancel: CancelFn | None = None,
          on_point: Callable[[SweepPoint], None] | None = None) -> SweepResult:
    """Run every combination of the 1–2 swept parameters; best = fastest passing point."""
    out = SweepResult(request=req, points=[], best=None, generation=req.generation)
    try:
        spec = get_spec(req.kernel, req.user_file)
    except Exception as e:  # noqa: BLE001
        out.error = to_error_info(e)
        return out
    names = list(req.axes)
    if not 1 <= len(names) <= 2:
        out.error = ErrorInfo("validation", f"a sweep takes one or two parameters, got {len(names)}"
                              + (f" ({', '.join(names)})" if names else ""))
        return out
    known = {p.name for p in spec.params}
    for n in names:
        if n not in known:
            out.error = ErrorInfo("validation", f"unknown parameter {n!r} (known: {', '.join(sorted(known))})",
                                  field=n)
            return out
        if not req.axes[n]:
            out.error = ErrorInfo("validation", f"no values to sweep for {n}", field=n)
            return out
    combos = [dict(zip(names, vals, strict=True)) for vals in itertools.product(*(req.axes[n] for n in names))]
    skip = {tuple(_norm(spec, n, s.get(n)) for n in names) for s in req.skip}
    todo = [c for c in combos if tuple(_norm(spec, n, c[n]) for n in names) not in skip]
    cache = InputCache()
    torch_timings: dict[Any, Any] = {}
    for i, combo in enumerate(todo):
        if cancel is not None and cancel():
            out.error = ErrorInfo("cancelled", f"cancelled after {i} of {len(todo)} points")
            break
        values = {**req.base, **combo}

        def sub(p: Progress, i: int = i) -> None:
            if progress is not None:
                progress(Progress(p.stage, (i + p.fraction) / len(todo), i + 1, len(todo), "points"))

        rreq = RunRequest(kernel=req.kernel, values=values, backend=req.backend, seed=req.seed,
                          torch_baseline=req.torch_baseline, keep_asm=False, keep_error_map=False,
                          user_file=req.user_file, generation=req.generation)
        # torch's time depends on the data only: measure it once per input set
        r = run(rreq, sub, None, _cache=cache, _torch_timing=torch_timings.get(cache.key))
        if cache.key is not None and r.metrics is not None and r.metrics.torch_timing is not None:
            torch_timings.setdefault(cache.key, r.metrics.torch_timing)
        pt = SweepPoint(values={n: _norm(spec, n, combo[n]) for n in names}, result=r)
        out.points.append(pt)
        if on_point is not None:
            on_point(pt)
    cache.clear()
    out.best = best_index([p.result for p in out.points])
    return out


def best_index(results: list[RunResult]) -> int | None:
    best, best_ms = None, math.inf
    for i, r in enumerate(results):
        if r.ok and r.timing is not None and r.timing.median_ms < best_ms:
            best, best_ms = i, r.timing.median_ms
    return best
