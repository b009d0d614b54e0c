"""Session state of the window: the catalog, the selected kernel, the latest run / trace / sweep.

Plain Python (no Qt, no torch, no triton), so the rules that decide *what* the window sends and
shows are tested without a GUI: which request a Run / Trace / Sweep makes, which points a resumed
sweep still has to run, which output tensor of a trace a correctness map belongs to, how a
history record becomes a history row.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kernels.data.backends import is_interpreter
from kernels.data.grid import grid_of, n_programs
from kernels.data.params import Param, ValidationError, parse_value, validate
from kernels.data.results import KernelInfo, RunRequest, RunResult, SweepPoint, SweepRequest
from kernels.data.trace import NO_PROGRAM, SEVERAL, Trace, TraceRequest
from kernels.data.tuning.space import build_space
from views.words import translate

__all__ = [
    "Session",
    "SweepState",
    "format_values",
    "history_row_from_record",
    "output_tensor_index",
    "parse_axis_values",
    "square_fold",
    "combinations_breaking_rules",
    "sweep_default_values",
    "trace_caption",
    "writer_text",
]


def square_fold(n: int) -> int:
    """Row width for drawing a 1-D output of ``n`` elements as a square-ish error map (a power of
    two, so rows start at round indices). The error map keeps its aspect ratio: folded by block
    (4 rows of 256) it would be a hairline, folded square it is readable; hovering works by flat
    index either way."""
    w = 8
    while w * w < n and w < 4096:
        w *= 2
    return w


def format_values(values: dict[str, Any], skip: tuple[str, ...] = ()) -> str:
    return ", ".join(f"{k}={v}" for k, v in values.items() if k not in skip)


@dataclass
class SweepState:
    """A sweep being run (or interrupted): its request, the points done so far, whether it ended."""

    request: SweepRequest
    points: list[SweepPoint] = field(default_factory=list)
    finished: bool = False
    interrupted: str | None = None  # why it stopped early (worker died, cancelled), else None
    n_points: int | None = None  # the points ``where`` keeps (None: every combination of the axes)

    @property
    def axes(self) -> dict[str, list[Any]]:
        return self.request.axes

    @property
    def total(self) -> int:
        if self.n_points is not None:
            return self.n_points
        return math.prod(len(v) for v in self.request.axes.values())

    @property
    def done(self) -> int:
        return len(self.points)

    def done_values(self) -> list[dict[str, Any]]:
        return [dict(p.values) for p in self.points]

    @property
    def can_resume(self) -> bool:
        return self.interrupted is not None and self.done < self.total

    def add(self, point: SweepPoint) -> None:
        # a resumed sweep never repeats a point, but a point must not count twice either way
        if point.values not in self.done_values():
            self.points.append(point)

    def resume_request(self) -> SweepRequest:
        """The same sweep, skipping every point already done (``SweepRequest.skip``)."""
        return dataclasses.replace(self.request, skip=self.done_values(), generation=0)


class Session:
    """What the window knows: the worker's catalog and backends, and the current kernel."""

    def __init__(self) -> None:
        self.infos: dict[str, KernelInfo] = {}
        self.backends: dict[str, Any] = {}
        self.versions: dict[str, str] = {}
        self.kernel: str | None = None
        self.last_run: RunResult | None = None
        self.trace: Trace | None = None
        self.sweep: SweepState | None = None
        #: where the next sweep's points run (``SweepRequest.cluster``): "" the worker's device,
        #: "local" every GPU of the worker's host through Ray, "auto" the running Ray cluster
        self.sweep_cluster = ""

    # -- catalog --------------------------------------------------------------------------------
    def set_hello(self, hello: dict[str, Any]) -> None:
        self.backends = dict(hello.get("backends") or {})
        self.versions = dict(hello.get("versions") or {})
        self.set_infos(hello.get("infos") or [])

    def set_infos(self, infos: list[KernelInfo]) -> None:
        self.infos = {i.name: i for i in infos}

    @property
    def gpu_available(self) -> bool:
        return bool(self.backends.get("gpu_available"))

    @property
    def gpu_reason(self) -> str:
        return str(self.backends.get("gpu_reason") or "")

    @property
    def device_name(self) -> str:
        return str(self.backends.get("device_name") or translate("Session", "CPU (Triton interpreter)"))

    @property
    def triton_version(self) -> str:
        return str(self.backends.get("triton_version") or self.versions.get("triton") or "")

    def info(self, name: str | None = None) -> KernelInfo | None:
        return self.infos.get(name or self.kernel or "")

    def user_file(self, name: str | None = None) -> str | None:
        """The user's kernel file a kernel came from (None for the catalog)."""
        info = self.info(name)
        if info is None or not info.origin or info.origin == "catalog":
            return None
        return info.origin

    def programs(self, values: dict[str, Any], name: str | None = None) -> int | None:
        """How many programs a launch of the kernel with ``values`` runs, from its grid formula
        (``KernelInfo.grid_exprs``), before any launch; None when only the launch knows (no
        formula) or the values do not fit it."""
        info = self.info(name)
        if info is None or not info.grid_exprs:
            return None
        try:
            return n_programs(grid_of(info.grid_exprs, values))
        except (ArithmeticError, LookupError, NameError, TypeError, ValueError):
            return None

    def select(self, name: str) -> KernelInfo:
        info = self.infos.get(name)
        if info is None:
            raise KeyError(f"unknown kernel {name!r}")
        if name != self.kernel:
            self.kernel = name
            self.last_run = None
            self.trace = None
            self.sweep = None
        return info

    # -- requests -------------------------------------------------------------------------------
    def _require(self) -> KernelInfo:
        info = self.info()
        if info is None:
            raise RuntimeError("no kernel selected")
        return info

    def run_request(self, values: dict[str, Any], backend: str, timeout_s: float | None = None) -> RunRequest:
        info = self._require()
        return RunRequest(kernel=info.name, values=dict(values), backend=backend,  # type: ignore[arg-type]
                          user_file=self.user_file(), timeout_s=timeout_s)

    def trace_request(self, values: dict[str, Any], window: str | None = None) -> TraceRequest:
        info = self._require()
        return TraceRequest(kernel=info.name, values=dict(values), window=window, user_file=self.user_file())

    def start_sweep(self, base: dict[str, Any], axes: dict[str, list[Any]], backend: str,
                    where: Sequence[str] = (), mode: str | None = None) -> SweepRequest:
        """A new sweep over ``axes`` with the other values from ``base``: one or two parameters as
        a grid; more, or with ``where`` constraints (or ``mode="tune"``), as a tune sweep."""
        info = self._require()
        mode = mode or ("tune" if len(axes) > 2 or where else "grid")
        if not axes or (mode == "grid" and len(axes) > 2):
            raise ValueError(f"a grid sweep takes one or two parameters, got {len(axes)}")
        fixed = {k: v for k, v in base.items() if k not in axes}
        req = SweepRequest(kernel=info.name, base=fixed, axes={k: list(v) for k, v in axes.items()},
                           backend=backend, user_file=self.user_file(), mode=mode,  # type: ignore[arg-type]
                           where=list(where), cluster=self.sweep_cluster)
        n_points = None
        if where:  # the points the constraints keep (a bad one: the worker says why)
            try:
                n_points = len(build_space(info.params, fixed, req.axes, (), where).points)
            except ValidationError:
                pass
        self.sweep = SweepState(req, n_points=n_points)
        return req

    def resume_sweep(self) -> SweepRequest | None:
        """The interrupted sweep's remaining points, or None when there is nothing to resume."""
        s = self.sweep
        if s is None or not s.can_resume:
            return None
        s.interrupted = None
        s.finished = False
        return s.resume_request()


# ---------------------------------------------------------------------------------------------
# trace <-> correctness


def output_tensor_index(trace: Trace, output: str, n_elements: int) -> int | None:
    """Which tensor argument of ``trace`` holds the checked output ``output`` (``"out"`` is passed
    as ``out_ptr``), provided it has ``n_elements`` elements (else the trace is of another size
    and its maps say nothing about this check)."""
    names = [t.name for t in trace.tensors]
    for cand in (output, f"{output}_ptr", f"{output}_ptrs"):
        if cand in names:
            i = names.index(cand)
            return i if trace.tensors[i].numel == n_elements else None
    # otherwise: the only written tensor of that size
    written = [i for i, (t, m) in enumerate(zip(trace.tensors, trace.maps, strict=False))
               if t.numel == n_elements and bool((m.n_writes > 0).any())]
    return written[0] if len(written) == 1 else None


def trace_caption(trace: Trace, info: KernelInfo | None, values: dict[str, Any]) -> tuple[str, bool]:
    """The line above the grid: which kernel, values and grid the trace shows, and whether the
    parameter ``values`` shown now differ from the traced ones (stale). Launch options are left
    out: they change nothing under the interpreter."""
    launch = {p.name for p in info.params if p.kind == "launch"} if info is not None else set()
    traced = {k: v for k, v in trace.values.items() if k not in launch}
    n = trace.programs.size
    text = (translate("Session", "Trace of {kernel} ({values}): grid {grid}, {n} programs recorded") if n != 1
            else translate("Session", "Trace of {kernel} ({values}): grid {grid}, {n} program recorded")).format(
        kernel=trace.kernel, values=format_values(traced), grid="×".join(map(str, trace.grid)), n=n)
    if trace.window:
        text += f" ({trace.window})"
    stale = any(k in values and values[k] != v for k, v in traced.items())
    if stale:
        text += " — " + translate("Session", "the parameters changed since: Trace again to update")
    return text, stale


def writer_text(trace: Trace, tensor: int, flat: int) -> str | None:
    """"program 3 (x=3, y=0)" for the program that wrote element ``flat`` of tensor ``tensor``."""
    maps = trace.maps[tensor]
    w = int(np.asarray(maps.writer).reshape(-1)[flat])
    if w == NO_PROGRAM:
        return translate("Session", "no program (never written)")
    if w == SEVERAL:
        return translate("Session", "several programs")
    x, y, z = trace.pid_xyz(w)
    where = f"x={x}" + (f", y={y}" if trace.grid[1] > 1 or trace.grid[2] > 1 else "") + (
        f", z={z}" if trace.grid[2] > 1 else "")
    return translate("Session", "program {w} ({where})").format(w=w, where=where)


# ---------------------------------------------------------------------------------------------
# history


def history_row_from_record(rec: dict[str, Any], metric_unit: str | None = None) -> dict[str, Any]:
    """A ``History.list``/``get`` record as the row dict ``views.history_view`` shows."""
    m = rec.get("metrics") or {}
    c = rec.get("check")
    e = rec.get("error")
    interp = is_interpreter(rec.get("backend")) or bool(m.get("is_interpreter"))
    unit = metric_unit or ("TFLOP/s" if m.get("tflops") is not None and m.get("gbps") is None else "GB/s")
    metric = None
    if interp:
        unit = "ms"
    else:
        metric = m.get("tflops") if unit == "TFLOP/s" else m.get("gbps")
    values = dict(rec.get("values") or {})
    return {
        "id": int(rec["id"]),
        "time": float(rec.get("time") or 0.0),
        "kernel": rec.get("kernel", ""),
        "backend": rec.get("backend", ""),
        "device": rec.get("device", ""),
        "dtype": str(values.get("dtype", "")),
        "values": values,
        "ms": m.get("ms"),
        "p20_ms": m.get("p20_ms"),
        "p80_ms": m.get("p80_ms"),
        "clocks": m.get("clocks"),
        "metric": metric,
        "metric_unit": unit,
        "ratio_vs_torch": None if interp else m.get("ratio_vs_torch"),
        "check": "" if not c else ("pass" if c.get("passed") else "fail"),
        "error": (e or {}).get("message", "") if e else "",
    }


# ---------------------------------------------------------------------------------------------
# sweep dialog defaults


def sweep_default_values(p: Param, current: Any) -> list[Any]:
    """Values a sweep over ``p`` starts with: the allowed values, or a few around ``current``."""
    if p.kind == "flag":
        return [False, True]
    if p.choices:
        return list(p.choices)
    try:
        v = int(current)
    except (TypeError, ValueError):
        v = int(p.default)
    lo = p.min if p.min is not None else 1
    hi = p.max if p.max is not None else max(v * 4, lo)
    if p.pow2:
        cand = [v >> 2, v >> 1, v, v << 1, v << 2]
    elif p.kind == "shape":
        cand = [v // 4, v // 2, v, v * 2, v * 4]
    elif hi - lo <= 8:
        return list(range(lo, hi + 1))
    else:
        cand = [v - 2, v - 1, v, v + 1, v + 2]
    out = sorted({c for c in cand if lo <= c <= hi})
    return out or [v]


def combinations_breaking_rules(info: KernelInfo, base: dict[str, Any],
                                axes: dict[str, list[Any]]) -> tuple[int, str]:
    """How many of a sweep's points fail the kernel's own checks, and the first reason."""
    names = list(axes)
    bad, first = 0, ""
    for combo in itertools.product(*(axes[n] for n in names)):
        res = validate(info.params, info.rules, {**base, **dict(zip(names, combo, strict=True))})
        if not res.ok:
            bad += 1
            first = first or next(iter(res.errors.values()))
    return bad, first


def parse_axis_values(p: Param, text: str) -> list[Any]:
    """Parse ``"64, 128 256"`` into checked values of ``p``; raises ValidationError naming the
    first bad one. Duplicates are dropped, the order kept."""
    parts = [t for t in re.split(r"[,\s;]+", text.strip()) if t]
    if not parts:
        raise ValidationError(translate("Session", "{name}: give at least one value").format(name=p.name), p.name)
    out: list[Any] = []
    for t in parts:
        v = parse_value(p, t)
        why = p.check(v)
        if why:
            raise ValidationError(why, p.name)
        if v not in out:
            out.append(v)
    return out
