"""What the sweep views draw, computed without Qt: a sweep's axes, each point's figure, the
heatmap of two axes (best over the others, or a slice), the ranked rows with their compile
facts, and each run's place on a roofline.

Pure numpy over the plain dataclasses of ``kernels.data.results`` (and the ranking of
``kernels.data.tuning.rank``, which imports neither torch nor triton), so it is tested without a
window and the widgets (``sweep_heatmap``, ``sweep_table``, ``roofline_view``) only draw.

"Better" depends on what is measured: on a GPU the kernel's figure (GB/s or TFLOP/s, higher is
better) at the point's best timing (the interleaved re-measurement when it had one); under the
interpreter only wall-clock milliseconds (lower is better), which say nothing of GPU speed.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kernels.data import backends
from kernels.data.results import RunResult, SweepPoint, SweepRank, SweepResult
from kernels.data.tuning import rank as tune_rank

__all__ = [
    "HeatGrid",
    "RooflinePoint",
    "Roofs",
    "TableRow",
    "axis_values",
    "heat_grid",
    "is_interpreter",
    "point_state",
    "point_value",
    "point_values",
    "ranking_of",
    "roofline_point",
    "roofs_of",
    "table_rows",
]


# ---------------------------------------------------------------------------------------------
# one point


def point_values(p: SweepPoint) -> dict[str, Any]:
    """Every value of a point, as the parameter panel takes them: the run's validated values, and
    the swept ones on top (launch options the kernel has no parameter for among them)."""
    return {**p.result.values, **p.values}


def is_interpreter(points: Iterable[SweepPoint]) -> bool:
    """True when the sweep ran under the interpreter (its figures are wall-clock milliseconds)."""
    for p in points:
        t = p.result.timing
        if backends.is_interpreter(p.result.backend) or (t is not None and t.is_interpreter):
            return True
        if backends.is_gpu(p.result.backend):
            return False
    return False


def point_state(p: SweepPoint) -> str:
    """"ok", "pruned" (skipped before compiling), "failed" (error or wrong answer) or "untimed"."""
    r = p.result
    if p.pruned:
        return "pruned"
    if r.error is not None or (r.check is not None and not r.check.passed):
        return "failed"
    return "ok" if p.timing is not None and p.timing.median_ms > 0 else "untimed"


def point_reason(p: SweepPoint) -> str:
    """Why a point has no figure ("" when it has one)."""
    r = p.result
    if p.pruned:
        return f"pruned before compiling: {p.pruned}"
    if r.error is not None:
        return f"{r.error.kind}: {r.error.message}"
    if r.check is not None and not r.check.passed:
        return f"wrong answer: {r.check.reason or 'check failed'}"
    return "" if point_state(p) == "ok" else "not timed"


def _figure(r: RunResult, metric: str) -> float | None:
    """The kernel's figure of a GPU run at its first timing (from the work model if absent)."""
    m, t = r.metrics, r.timing
    if m is None or t is None or t.median_ms <= 0:
        return None
    y = m.tflops if metric == "TFLOP/s" else m.gbps
    if y is None:
        work = m.flops / 1e9 if metric == "TFLOP/s" else m.bytes_moved / 1e6
        y = work / t.median_ms if work else None
    return y


def point_value(p: SweepPoint, metric: str, interp: bool) -> float | None:
    """The figure a point shows: interpreter milliseconds, or the GPU figure at the point's best
    timing (scaled from the first measurement to the re-measured median). None: no figure."""
    if point_state(p) != "ok":
        return None
    t = p.timing
    assert t is not None
    if interp:
        return t.median_ms
    y = _figure(p.result, metric)
    first = p.result.timing
    if y is None or first is None:
        return None
    return y * first.median_ms / t.median_ms


def _better(a: float, b: float, interp: bool) -> bool:
    return a < b if interp else a > b


# ---------------------------------------------------------------------------------------------
# axes


def _sort_key(v: Any) -> Any:
    return (0, v) if isinstance(v, (int, float)) and not isinstance(v, bool) else (1, str(v))


def axis_values(points: Sequence[SweepPoint], names: Sequence[str],
                prior: Mapping[str, Sequence[Any]] | None = None) -> dict[str, list[Any]]:
    """Each name's values: those of ``prior`` (the request's axes) in their order, then any other
    value the points hold; numbers sorted when every value of the axis is a number."""
    out: dict[str, list[Any]] = {}
    for n in names:
        vals = list(prior.get(n, [])) if prior else []
        for p in points:
            v = p.values.get(n)
            if v not in vals:
                vals.append(v)
        if vals and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vals):
            vals.sort(key=_sort_key)
        out[n] = vals
    return out


# ---------------------------------------------------------------------------------------------
# the heatmap


@dataclass
class HeatGrid:
    """Two axes of a sweep: ``values[iy, ix]`` the best figure of the cell (NaN: none),
    ``index[iy, ix]`` the point it shows (its best; a failed one when none passed; -1: none)."""

    x: str
    y: str
    xs: list[Any]
    ys: list[Any]
    values: np.ndarray
    index: np.ndarray
    fixed: dict[str, Any] | None = None  # None: best over the other axes; else the slice shown
    best: tuple[int, int] | None = None  # (ix, iy) of the best cell

    def state(self, points: Sequence[SweepPoint], ix: int, iy: int) -> str:
        i = int(self.index[iy, ix])
        return "empty" if i < 0 else point_state(points[i])


def heat_grid(points: Sequence[SweepPoint], x: str, y: str, axes: Mapping[str, Sequence[Any]], metric: str,
              interp: bool, fixed: Mapping[str, Any] | None = None) -> HeatGrid:
    """The heatmap of ``x`` by ``y``: each cell the best point over the other axes, or with
    ``fixed`` (the other axes' values) the one point of that slice."""
    xs, ys = list(axes[x]), list(axes[y])
    values = np.full((len(ys), len(xs)), np.nan, dtype=np.float32)
    index = np.full((len(ys), len(xs)), -1, dtype=np.int64)
    best_v: dict[tuple[int, int], float] = {}
    for i, p in enumerate(points):
        vx, vy = p.values.get(x), p.values.get(y)
        if vx not in xs or vy not in ys:
            continue
        if fixed and any(p.values.get(k) != v for k, v in fixed.items()):
            continue
        cell = (xs.index(vx), ys.index(vy))
        v = point_value(p, metric, interp)
        if v is not None and (cell not in best_v or _better(v, best_v[cell], interp)):
            best_v[cell] = v
            index[cell[1], cell[0]] = i
        elif cell not in best_v and index[cell[1], cell[0]] < 0:
            index[cell[1], cell[0]] = i  # no figure yet: show why
    best = None
    for (ix, iy), v in best_v.items():
        values[iy, ix] = v
        if best is None or _better(v, best_v[best], interp):
            best = (ix, iy)
    return HeatGrid(x, y, xs, ys, values, index, dict(fixed) if fixed else None, best)


# ---------------------------------------------------------------------------------------------
# the ranked table


def ranking_of(result: SweepResult | None, points: Sequence[SweepPoint],
               data_names: Sequence[str]) -> list[SweepRank]:
    """The engine's ranking when it covers these points; else one made here (a sweep still
    running, or resumed: its result ranks only the points of its last part)."""
    if result is not None and result.ranking and len(result.points) == len(points):
        return list(result.ranking)
    tuned = [n for n in (points[0].values if points else {}) if n not in data_names]
    return tune_rank.rank(points, data_names, tuned)[0]


@dataclass
class TableRow:
    """One row of the ranked table: a point's place, timing, compile facts and why it failed."""

    index: int  # into the points
    rank: int | None  # None: not ranked (failed, pruned, not timed)
    group: str
    values: dict[str, Any]
    state: str
    median_ms: float | None = None
    p20_ms: float | None = None
    p80_ms: float | None = None
    n_reps: int = 0
    remeasured: bool = False
    ratio_to_best: float | None = None
    within_noise: bool = False
    figure: float | None = None
    facts: dict[str, Any] = field(default_factory=dict)  # regs, spills, shared, occupancy, limiter, compile_s
    note: str = ""


def _facts(p: SweepPoint) -> dict[str, Any]:
    c = p.result.compile
    out: dict[str, Any] = {}
    if c is not None:
        out.update(regs=c.n_regs, spills=c.n_spills, shared=c.shared_bytes, occupancy=c.occupancy_warps_pct,
                   limiter=c.occupancy_limiter or None)
    if p.compile_s is not None:
        out["compile_s"] = p.compile_s
    for k, v in p.estimate.items():
        out[f"est_{k}"] = v
    return {k: v for k, v in out.items() if v is not None}


def table_rows(points: Sequence[SweepPoint], ranking: Sequence[SweepRank], metric: str,
               interp: bool) -> list[TableRow]:
    """Ranked points first (group by group, fastest first), then the others in sweep order."""
    rows: list[TableRow] = []
    ranked = set()
    for e in ranking:
        p = points[e.index]
        ranked.add(e.index)
        note = "winner" if e.rank == 1 else ("within the noise of the winner" if e.within_noise else "")
        rows.append(TableRow(e.index, e.rank, e.group, dict(p.values), "ok", e.median_ms, e.p20_ms, e.p80_ms,
                             e.n_reps, e.remeasured, e.ratio_to_best, e.within_noise,
                             point_value(p, metric, interp), _facts(p), note))
    for i, p in enumerate(points):
        if i in ranked:
            continue
        t = p.timing
        rows.append(TableRow(i, None, "", dict(p.values), point_state(p),
                             t.median_ms if t else None, t.p20_ms if t else None, t.p80_ms if t else None,
                             t.n_reps if t else 0, p.remeasured is not None, None, False,
                             point_value(p, metric, interp), _facts(p), point_reason(p)))
    return rows


# ---------------------------------------------------------------------------------------------
# the roofline


@dataclass(frozen=True)
class Roofs:
    """The device's measured peaks (None: not measured, e.g. under the interpreter)."""

    copy_gbps: float | None = None
    matmul_tflops: float | None = None

    @property
    def ok(self) -> bool:
        return bool(self.copy_gbps and self.matmul_tflops)

    @property
    def ridge(self) -> float | None:
        """The intensity (FLOP/byte) where the memory roof meets the compute roof."""
        return self.matmul_tflops * 1e3 / self.copy_gbps if self.ok else None  # type: ignore[operator]

    def attainable(self, intensity: np.ndarray) -> np.ndarray:
        """TFLOP/s the roofs allow at ``intensity``."""
        assert self.ok
        return np.minimum(self.copy_gbps * intensity / 1e3, self.matmul_tflops)  # type: ignore[operator]


def roofs_of(results: Iterable[RunResult]) -> Roofs:
    """The peaks the latest runs carry (``Metrics.peak_gbps`` / ``peak_tflops``)."""
    gbps = tflops = None
    for r in results:
        m = r.metrics
        if m is not None:
            gbps = m.peak_gbps or gbps
            tflops = m.peak_tflops or tflops
    return Roofs(gbps, tflops)


@dataclass(frozen=True)
class RooflinePoint:
    intensity: float  # FLOP per byte moved: flops / bytes = tflops * 1e3 / gbps
    tflops: float  # attained
    interp: bool


def roofline_point(r: RunResult) -> RooflinePoint | None:
    """Where a run sits: intensity from the spec's bytes and FLOP model, attained TFLOP/s.
    None when the run has no figures (failed, untimed) or its kernel counts no FLOPs."""
    m = r.metrics
    if m is None or r.error is not None or (r.check is not None and not r.check.passed):
        return None
    if not (m.gbps and m.tflops) or not (math.isfinite(m.gbps) and math.isfinite(m.tflops)):
        return None
    interp = backends.is_interpreter(r.backend) or bool(r.timing and r.timing.is_interpreter)
    return RooflinePoint(m.tflops * 1e3 / m.gbps, m.tflops, interp)
