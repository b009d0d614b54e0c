"""``bench --all``: every catalog kernel's bench cases, Triton against torch in the same run."""

from __future__ import annotations

import dataclasses
import statistics
from collections.abc import Iterable
from typing import Any

from ..data.backends import AUTO
from ..data.errors import TilescopeError
from ..data.results import Progress, RunRequest, RunResult
from ..run import backends
from ..run.prepare import InputCache
from ..sources.lookup import load_catalog
from ..specs.spec import REGISTRY, KernelSpec
from .run import ProgressFn, run
from .sweep import best_index

__all__ = ["bench_all", "median_ratio"]


def _shrink_for_interpreter(spec: KernelSpec, values: dict) -> tuple[dict, list[str]]:
    """Interpreter-sized values: each shape at most the spec's default (the GUI's everyday size);
    bf16 becomes fp32 when the interpreter's bf16 is refused."""
    notes: list[str] = []
    out = dict(values)
    changed = []
    for p in spec.params:
        if p.kind == "shape" and isinstance(out.get(p.name), int) and out[p.name] > p.default:
            changed.append(f"{p.name} {out[p.name]} → {p.default}")
            out[p.name] = p.default
    if changed:
        notes.append("shapes shrunk for the interpreter: " + ", ".join(changed))
    if out.get("dtype") == "bf16" and not backends.bf16_probe().ok:
        out["dtype"] = "fp32"
        notes.append("bf16 → fp32: the interpreter's bf16 is refused")
    if not spec.validate(out).ok:  # the shrunk shapes broke a rule: use the defaults throughout
        out = spec.defaults()
        notes.append("the case does not fit the interpreter: ran the kernel's defaults")
    return out, notes


def _row(spec: KernelSpec, case: dict, r: RunResult, notes: list[str]) -> dict[str, Any]:
    m = r.metrics
    pct = None
    if m is not None:
        pct = m.pct_peak_flops if spec.metric == "TFLOP/s" else m.pct_peak_bw
    return {
        "kernel": spec.name,
        "title": spec.title,
        "case": dict(case),
        "values": dict(r.values),
        "backend": r.backend,
        "device": r.device,
        "passed": bool(r.check.passed) if r.check is not None else None,
        "check_reason": r.check.reason if r.check is not None else "",
        "max_abs_err": r.check.max_abs_err if r.check is not None else None,
        "triton_ms": r.timing.median_ms if r.timing else None,
        "torch_ms": m.torch_timing.median_ms if m and m.torch_timing else None,
        "ratio": m.ratio_vs_torch if m else None,
        "metric": spec.metric,
        "gbps": m.gbps if m else None,
        "tflops": m.tflops if m else None,
        "torch_gbps": m.torch_gbps if m else None,
        "torch_tflops": m.torch_tflops if m else None,
        "pct_peak": pct,
        "timing_method": r.timing.method if r.timing else "",
        "peak_source": m.peak_source if m else "",
        "clocks": dataclasses.asdict(r.clocks) if r.clocks is not None else None,
        "n_regs": r.compile.n_regs if r.compile else None,
        "n_spills": r.compile.n_spills if r.compile else None,
        "autotune": None,
        "notes": list(notes) + [n for n in r.notes if n != backends.INTERPRETER_NOTE],
        "error": r.error.message if r.error else None,
        "error_kind": r.error.kind if r.error else None,
    }


def bench_all(backend: str = AUTO, progress: ProgressFn | None = None,
              names: Iterable[str] | None = None, autotune: bool = True) -> list[dict[str, Any]]:
    """Every spec's bench cases, Triton against torch in the same run, one dict per case.

    On the GPU a spec's ``autotune_configs`` are each timed on the case's inputs and the fastest
    passing one is kept (``row["autotune"]`` says which won). On the interpreter the shapes are
    shrunk to run in seconds (the row's notes say so) and no configs are tried."""
    load_catalog()
    try:
        be = backends.resolve(backend)
    except TilescopeError as e:
        return [{"kernel": "*", "error": e.message, "error_kind": e.kind}]
    wanted = list(names) if names is not None else None
    specs = [s for s in REGISTRY if wanted is None or s.name in wanted]
    if wanted is not None:
        unknown = [n for n in wanted if n not in REGISTRY]
        if unknown:
            return [{"kernel": n, "error": f"unknown kernel {n!r}", "error_kind": "validation"} for n in unknown]
    jobs = [(s, c) for s in specs for c in (s.bench_cases or ({},))]
    rows: list[dict[str, Any]] = []
    for j, (spec, case) in enumerate(jobs):
        if progress is not None:
            progress(Progress(spec.name, j / max(1, len(jobs)), j + 1, len(jobs), "cases"))
        values = {**spec.defaults(), **case}
        notes: list[str] = []
        if be.is_interpreter:
            values, notes = _shrink_for_interpreter(spec, values)
        configs = list(spec.autotune_configs) if (autotune and not be.is_interpreter) else []
        cache = InputCache()
        base = RunRequest(kernel=spec.name, values=values, backend=be.name, keep_asm=False,
                          keep_error_map=False, user_file=None if spec.origin == "catalog" else spec.origin)
        first = run(base, _cache=cache)
        if not configs:
            rows.append(_row(spec, case, first, notes))
            cache.clear()
            continue
        torch_t = first.metrics.torch_timing if first.metrics else None
        tried = [("case", dict(case), first)]
        for cv in configs:
            rr = RunRequest(kernel=spec.name, values={**values, **cv}, backend=be.name, keep_asm=False,
                            keep_error_map=False, user_file=base.user_file)
            tried.append(("config", dict(cv), run(rr, _cache=cache, _torch_timing=torch_t)))
        cache.clear()
        b = best_index([t[2] for t in tried])
        chosen = tried[b][2] if b is not None else first
        row = _row(spec, case, chosen, notes)
        row["autotune"] = {
            "tried": len(tried),
            "best": (dict(tried[b][1]) if b is not None else None),
            "best_is_case": b == 0,
            "results": [{"source": src, "config": cv, "ms": r.timing.median_ms if r.timing else None,
                         "passed": bool(r.check.passed) if r.check else False,
                         "error": r.error.message if r.error else None} for src, cv, r in tried],
        }
        rows.append(row)
    if progress is not None:
        progress(Progress("done", 1.0))
    return rows


def median_ratio(rows: list[dict[str, Any]], kernel: str) -> float | None:
    """A kernel's ratio against torch summarized over its rows (median of the rows that have one)."""
    rs = [r["ratio"] for r in rows if r.get("kernel") == kernel and r.get("ratio")]
    return statistics.median(rs) if rs else None
