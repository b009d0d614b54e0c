"""One row of the run history as the HistoryView shows it, from a RunResult — plain data, no Qt,
so the app and the demo data build rows without loading the widget."""

from __future__ import annotations

import dataclasses
import time
from typing import Any

from kernels.data.backends import is_interpreter
from kernels.data.results import RunResult

__all__ = ["history_row"]


def history_row(run_id: int, result: RunResult, metric_unit: str, when: float | None = None) -> dict[str, Any]:
    """The dict a HistoryView row shows, from a RunResult.

    Keys: id, time (epoch seconds), kernel, backend, device, dtype, values (dict), ms,
    metric (float or None), metric_unit ("GB/s", "TFLOP/s", or "ms" for interpreter runs, which
    have no throughput), ratio_vs_torch, check ("pass" / "fail" / ""), error (message or "").
    """
    m, t = result.metrics, result.timing
    interp = is_interpreter(result.backend) or (t is not None and t.is_interpreter)
    metric: float | None = None
    unit = metric_unit
    if interp:
        unit = "ms"
    elif m is not None:
        metric = m.tflops if metric_unit == "TFLOP/s" else m.gbps
    check = "" if result.check is None else ("pass" if result.check.passed else "fail")
    return {
        "id": int(run_id),
        "time": float(when if when is not None else time.time()),
        "kernel": result.kernel,
        "backend": result.backend,
        "device": result.device,
        "dtype": str(result.values.get("dtype", "")),
        "values": dict(result.values),
        "ms": t.median_ms if t is not None else None,
        "p20_ms": t.p20_ms if t is not None else None,
        "p80_ms": t.p80_ms if t is not None else None,
        "clocks": dataclasses.asdict(result.clocks) if getattr(result, "clocks", None) is not None else None,
        "metric": metric,
        "metric_unit": unit,
        "ratio_vs_torch": None if interp or m is None else m.ratio_vs_torch,
        "check": check,
        "error": result.error.message if result.error is not None else "",
    }
