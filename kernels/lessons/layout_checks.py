"""The two lessons inside a program: "num_warps and the layout" (which warp holds element i?) and
"coalescing" (sectors per request of every load and store against a budget).

Each check returns a ``Verdict`` — (findings as (stage, text), figures, the words added to a
pass) — that ``defs`` wraps as the lesson's ``Extra`` (this module does not import ``defs``).

Both read the learner's kernel as the layout engine does (``kernels.layout.layout_jit``): the
launch ``launch(*args, **meta)`` makes is captured (kernel, grid, arguments), compiled for
``TARGET`` on the CPU, and its accesses' layouts read from the TTGIR; the coalescing lesson also
runs it on the interpreter for every lane's address. Nothing here computes a layout itself.
"""

from __future__ import annotations

import types
from typing import Any

import numpy as np

from ..data.layout import AccessLayout, LayoutResult
from .loader import Launches, launcher
from .messages import say

__all__ = ["TARGET", "WARPS", "SECTOR_BUDGET", "Verdict", "sector_budget", "layout_of_launch", "warps_cases", "which_warp_verdict",
           "coalescing_verdict"]

TARGET = "sm_90"
WARPS = (2, 4, 8)  # the num_warps the "num_warps and the layout" lesson compiles at
SECTOR_BUDGET = 4.0  # sectors per request of 32 lanes x 4 bytes (128 bytes); wider vectors: in proportion


def sector_budget(vector_bits: int) -> float:
    """Sectors per request when a warp's 32 lanes ask for neighbouring, aligned vectors of
    ``vector_bits``: 4 for scalar float32 (128 bytes), 16 for 128-bit vectors (512 bytes)."""
    return SECTOR_BUDGET * max(1, vector_bits) / 32

#: (findings: (stage, text) in the order found, figures for the result, words added to a pass)
Verdict = tuple[list[tuple[str, str]], dict[str, Any], str]


class _Captured:
    """``fn[grid](*args, **kwargs)`` recorded, not run."""

    def __init__(self, fn: Any, calls: list[tuple[Any, Any, tuple, dict]]) -> None:
        self.fn, self.calls = fn, calls

    def __getitem__(self, grid: Any):
        def call(*args: Any, **kwargs: Any) -> None:
            self.calls.append((self.fn, grid, args, kwargs))
        return call


def layout_of_launch(module: types.ModuleType, args: list[Any], meta: dict[str, Any], *,
                     coalescing: bool) -> LayoutResult:
    """The layout engine's answer for the launch ``module.launch(*args, **meta)`` makes (its first)."""
    from ..layout.service import layout_jit

    calls: list[tuple[Any, Any, tuple, dict]] = []
    launcher(module, args, meta, Launches())(lambda fn: _Captured(fn, calls))
    if not calls:
        raise ValueError("launch(...) launched no kernel")
    fn, grid, a, kw = calls[0]
    return layout_jit(fn, grid, a, kw, TARGET, coalescing=coalescing)


def _first_load(result: LayoutResult) -> AccessLayout | None:
    return next((a for a in result.accesses if a.op == "load" and a.threads is not None), None)


# -- lesson 9: which warp holds element i? ---------------------------------------------------------------

def warps_cases() -> list[tuple[str, tuple[tuple[str, Any], ...]]]:
    """(label, launch keywords) per num_warps of ``WARPS``: ``launch(x, out, num_warps=W)``."""
    return [(f"num_warps={w}", (("num_warps", w),)) for w in WARPS]


def _judge_warps(lang: str, fn: Any, w: int, load: AccessLayout) -> tuple[str, int] | None:
    """The finding for ``which_warp`` at ``w`` warps against ``load``'s layout (None: all right)."""
    t = load.threads
    warp = t.warp.reshape(-1)
    said = np.empty(warp.size, np.int64)
    for i in range(warp.size):
        try:
            said[i] = int(fn(i, w))
        except Exception as e:  # noqa: BLE001 - the learner's function
            return say(lang, "warp_raised", i=i, w=w, exc=f"{type(e).__name__}: {e}"), 0
    bad = np.flatnonzero(said != warp)
    if not bad.size:
        return None
    i = int(bad[0])
    return say(lang, "warp_wrong", w=w, n=bad.size, total=warp.size, i=i, warp=int(warp[i]),
               lane=int(t.lane.reshape(-1)[i]), reg=int(t.register.reshape(-1)[i]), said=int(said[i]),
               layout=load.layout.describe()), bad.size


def which_warp_verdict(lang: str, module: types.ModuleType, runs: list[tuple[Any, Any]]) -> Verdict:
    """Lesson 9's own question: ``which_warp(i, num_warps)`` against the compiled load of x."""
    fn = getattr(module, "which_warp", None)
    if not callable(fn):
        return [("lesson", say(lang, "warp_missing"))], {}, ""
    figures: dict[str, Any] = {"wrong_by_num_warps": {}, "layouts": {}}
    findings: list[tuple[str, str]] = []
    total = 0
    for got, _ in runs:
        meta = dict(got.case.meta)
        w = int(meta["num_warps"])
        try:
            res = layout_of_launch(module, list(got.args.values()), meta, coalescing=False)
        except Exception as e:  # noqa: BLE001 - the learner's kernel may not compile
            return [("lesson", say(lang, "layout_failed", why=f"{type(e).__name__}: {e}"))], {}, ""
        load = _first_load(res)
        if load is None:
            return [("lesson", say(lang, "no_load"))], {}, ""
        figures["layouts"][w] = load.layout.describe()
        judged = _judge_warps(lang, fn, w, load)
        figures["wrong_by_num_warps"][w] = judged[1] if judged else 0
        if judged:
            findings.append(("lesson", judged[0]))
        total = load.threads.warp.size
    if findings:
        return findings, figures, ""
    return [], figures, say(lang, "warp_ok", n=total, ws=", ".join(str(w) for w in WARPS))


# -- lesson 10: sectors per request -------------------------------------------------------------------

def coalescing_verdict(lang: str, module: types.ModuleType, runs: list[tuple[Any, Any]]) -> Verdict:
    """Lesson 10's budget: every global load and store at most ``SECTOR_BUDGET`` sectors per request
    (the engine's count over every program, from the interpreter's addresses)."""
    got = runs[0][0]
    try:
        res = layout_of_launch(module, list(got.args.values()), dict(got.case.meta), coalescing=True)
    except Exception as e:  # noqa: BLE001 - the learner's kernel may not compile
        return [("lesson", say(lang, "layout_failed", why=f"{type(e).__name__}: {e}"))], {}, ""
    table, findings = [], []
    for a in res.accesses:
        c = a.coalescing
        if a.op not in ("load", "store") or c is None or not c.requests:
            continue
        ideal, budget = c.ideal_sectors / c.requests, sector_budget(a.vector_bits)
        table.append({"op": a.op, "tensor": a.tensor, "line": a.line, "requests": c.requests, "sectors": c.sectors,
                      "sectors_per_request": c.sectors_per_request, "ideal_per_request": ideal,
                      "wasted_bytes": c.wasted_bytes, "vector_bits": a.vector_bits, "budget": budget})
        if c.sectors_per_request > budget:
            findings.append(("lesson", say(lang, "sectors", op=f"tl.{a.op}", t=a.tensor, line=a.line,
                                           per=c.sectors_per_request, ideal=ideal, req=c.requests, sec=c.sectors,
                                           waste=c.wasted_bytes, budget=budget, bits=a.vector_bits)))
    figures = {"accesses": table, "target": TARGET}
    if not table:
        return [("lesson", say(lang, "no_load"))], figures, ""
    if findings:
        return findings, figures, ""
    worst = max(table, key=lambda r: r["sectors_per_request"] / r["budget"])
    return [], figures, say(lang, "sectors_ok", n=len(table), worst=worst["sectors_per_request"],
                            budget=worst["budget"])
