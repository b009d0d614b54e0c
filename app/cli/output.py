"""Output helpers of the verbs: JSON for ``--json``, plain-text tables, numbers as the tables
show them."""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Sequence
from typing import Any

__all__ = ["fmt", "fmt_ms", "print_json", "table", "to_jsonable", "values_text"]


def to_jsonable(obj: Any) -> Any:
    """Dataclasses, dicts, lists -> JSON types. numpy arrays are left out; non-finite floats
    become the strings "inf", "-inf", "nan" (strict JSON has no such numbers)."""
    import numpy as np

    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: to_jsonable(getattr(obj, f.name)) for f in dataclasses.fields(obj)
                if not isinstance(getattr(obj, f.name), np.ndarray)}
    if isinstance(obj, dict):
        return {str(k): to_jsonable(v) for k, v in obj.items() if not isinstance(v, np.ndarray)}
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(v) for v in obj if not isinstance(v, np.ndarray)]
    if isinstance(obj, np.generic):
        return to_jsonable(obj.item())
    if isinstance(obj, float) and not math.isfinite(obj):
        return "nan" if math.isnan(obj) else ("inf" if obj > 0 else "-inf")
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    return str(obj)


def print_json(obj: Any) -> None:
    print(json.dumps(to_jsonable(obj), indent=2, allow_nan=False))


def fmt_ms(ms: float | None) -> str:
    if ms is None:
        return "-"
    return f"{ms:.4f}" if ms < 1 else f"{ms:.3f}" if ms < 100 else f"{ms:.1f}"


def fmt(v: float | None, digits: int = 3) -> str:
    if v is None:
        return "-"
    if isinstance(v, float) and not math.isfinite(v):
        return str(v)
    return f"{v:.{digits}g}"


def table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(str(h)), *(len(str(r[i])) for r in rows)) if rows else len(str(h))
              for i, h in enumerate(headers)]
    lines = ["  ".join(str(h).ljust(w) for h, w in zip(headers, widths, strict=True)).rstrip(),
             "  ".join("-" * w for w in widths)]
    for r in rows:
        lines.append("  ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True)).rstrip())
    return "\n".join(lines)


def values_text(values: dict[str, Any]) -> str:
    return " ".join(f"{k}={v}" for k, v in values.items())
