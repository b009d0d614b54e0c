"""Honest ranking: each passing point with its spread, the winner per data group, and whether the
winner stands out of the noise.

Points that vary only in tuning parameters (block sizes, warps, stages) compete; points of other
shapes, dtypes or flags are different problems, so each data group has its own winner. A point's
spread is the 20th–80th percentile of its reps; another point is "within the noise" of the
winner when their spreads overlap. Pure Python.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..results import SweepPoint, SweepRank

__all__ = ["best_first", "by_latest", "fmt_ms", "group_key", "groups", "rank", "values_text"]


def values_text(values: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in values.items())


def fmt_ms(ms: float) -> str:
    return f"{ms:.4g} ms"


def group_key(point: SweepPoint, data_names: Sequence[str]) -> str:
    """The data group of a point: its values of the varied data parameters, as text."""
    return values_text({n: point.values.get(n) for n in data_names})


def _passing(p: SweepPoint) -> bool:
    return p.result.ok and p.timing is not None and not p.pruned


def best_first(points: Sequence[SweepPoint], members: Sequence[int]) -> list[int]:
    """``members`` (indices into points) that passed, fastest first by their latest timing (the
    re-measured one where there is one). Where some were re-measured, the first is always a
    re-measured point: one measured once, faster than every re-measured point only by that one
    measurement, ranks second (the re-measurement loop makes this rare: see
    ``kernels.engine.sweep``)."""
    ok = [i for i in members if _passing(points[i])]
    order = sorted(ok, key=lambda i: points[i].timing.median_ms)  # type: ignore[union-attr]
    again = next((i for i in order if points[i].remeasured is not None), None)
    if again is not None and order[0] != again:
        order.remove(again)
        order.insert(0, again)
    return order


def by_latest(points: Sequence[SweepPoint], members: Sequence[int]) -> list[int]:
    """``members`` that passed, fastest first by their latest timing, re-measured or not."""
    ok = [i for i in members if _passing(points[i])]
    return sorted(ok, key=lambda i: points[i].timing.median_ms)  # type: ignore[union-attr]


def groups(points: Sequence[SweepPoint], data_names: Sequence[str]) -> dict[str, list[int]]:
    """Indices of the points of each data group, in first-seen order."""
    out: dict[str, list[int]] = {}
    for i, p in enumerate(points):
        out.setdefault(group_key(p, data_names), []).append(i)
    return out


def rank(points: Sequence[SweepPoint], data_names: Sequence[str],
         tuned_names: Sequence[str]) -> tuple[list[SweepRank], list[str]]:
    """(the ranking, one verdict line per group). ``tuned_names`` name a point in the verdicts."""
    ranking: list[SweepRank] = []
    verdicts: list[str] = []
    for label, members in groups(points, data_names).items():
        order = best_first(points, members)
        prefix = f"[{label}] " if label else ""
        if not order:
            verdicts.append(f"{prefix}no point passed its check")
            continue
        w = points[order[0]].timing
        assert w is not None
        entries = []
        for r, i in enumerate(order, start=1):
            t = points[i].timing
            assert t is not None
            entries.append(SweepRank(
                index=i, group=label, rank=r, median_ms=t.median_ms, p20_ms=t.p20_ms, p80_ms=t.p80_ms,
                n_reps=t.n_reps, remeasured=points[i].remeasured is not None,
                ratio_to_best=t.median_ms / w.median_ms if w.median_ms > 0 else 1.0,
                within_noise=r > 1 and t.p20_ms <= w.p80_ms))
        ranking.extend(entries)
        verdicts.append(prefix + _verdict(points, entries, tuned_names))
    return ranking, verdicts


def _name(points: Sequence[SweepPoint], i: int, tuned_names: Sequence[str]) -> str:
    vals = points[i].values
    return values_text({n: vals[n] for n in tuned_names if n in vals}) or values_text(vals) or f"point {i}"


def _verdict(points: Sequence[SweepPoint], entries: list[SweepRank], tuned_names: Sequence[str]) -> str:
    w = entries[0]
    once = [e for e in entries[1:] if e.median_ms < w.median_ms and not e.remeasured]
    if once:
        o = once[0]
        w_text = _verdict(points, [w, *[e for e in entries[1:] if e is not o]], tuned_names) \
            if len(entries) > 2 else _verdict(points, [w], tuned_names)
        return (f"{w_text}; {_name(points, o.index, tuned_names)} measured {fmt_ms(o.median_ms)} once "
                f"({o.n_reps} reps) but was not re-measured")
    head = (f"winner {_name(points, w.index, tuned_names)}: {fmt_ms(w.median_ms)} "
            f"(p20–p80 {w.p20_ms:.4g}–{w.p80_ms:.4g}, {w.n_reps} reps"
            f"{', re-measured' if w.remeasured else ''})")
    if len(entries) == 1:
        return head + "; the only passing point"
    ties = [e for e in entries[1:] if e.within_noise]
    nxt = entries[1]
    margin = 100.0 * (nxt.ratio_to_best - 1.0)
    if ties:
        names = "; ".join(_name(points, e.index, tuned_names) for e in ties[:4])
        more = f" and {len(ties) - 4} more" if len(ties) > 4 else ""
        return (f"{head}; within the noise of {len(ties)} other{'s' if len(ties) > 1 else ''} "
                f"(p20–p80 spreads overlap): {names}{more} — any of them will do; the next is "
                f"{margin:.1f}% slower by median")
    return f"{head}; {margin:.1f}% ahead of the next ({_name(points, nxt.index, tuned_names)}), outside the noise"
