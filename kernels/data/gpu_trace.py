"""What the GPU recorder hands back besides the ``Trace``: the schedule of a launch (``Timeline``)
and how the trace was made (``GpuTraceInfo``) — numpy only, no torch/triton, so the GUI process
(and a view drawing the timeline) may import this module.

The schedule is read inside the kernel: each program's SM (``%smid``) and ``%globaltimer`` at its
start and end. From it:

- ``resident()``: the most programs in flight at one moment, over the GPU and per SM;
- ``measured_waves()``: programs / the most resident at once — the measured counterpart of the
  formula ``programs / (SMs x programs per SM)`` (``formula_waves()``, from the compile facts);
- ``waves()``: a wave index per program: on its SM, the programs in start order, ``c`` at a time
  where ``c`` is the most that SM ran at once;
- ``rows()``: start/end (µs) per program for a Gantt-like drawing, one row per SM.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .trace import Trace

__all__ = ["Timeline", "GpuTraceInfo", "GpuTraceResult", "MAX_MAP_ELEMENTS"]

#: the largest map shipped at full resolution (per tensor and map kind); larger maps are reduced
#: by blocks on the GPU (``GpuTraceInfo.map_strides``) and a region comes at full resolution on request
MAX_MAP_ELEMENTS = 1 << 22


@dataclass
class Timeline:
    """Indexed by linear program id (x fastest). Times in ns from the earliest start."""

    grid: tuple[int, int, int]
    sm: np.ndarray  # int32 [P]
    start_ns: np.ndarray  # int64 [P]
    end_ns: np.ndarray  # int64 [P]
    n_sms: int
    programs_per_sm: int  # the occupancy estimate's (compile facts), for the formula
    recording_build: bool = False  # True: the schedule of the maps build, slowed by its recording
    kernel: str = ""

    @property
    def n_programs(self) -> int:
        return int(self.sm.size)

    @property
    def span_ns(self) -> int:
        return int(self.end_ns.max() - self.start_ns.min()) if self.sm.size else 0

    def durations_ns(self) -> np.ndarray:
        return self.end_ns - self.start_ns

    def formula_waves(self) -> float:
        return self.n_programs / max(1, self.n_sms * max(1, self.programs_per_sm))

    def _concurrency(self, group: np.ndarray | None) -> np.ndarray:
        """The most programs in flight at one moment, per group (all one group when None). An end
        and a start at the same tick do not overlap."""
        n = self.n_programs
        if n == 0:
            return np.zeros(1, np.int64)
        g = np.zeros(n, np.int64) if group is None else group.astype(np.int64)
        times = np.concatenate([self.end_ns, self.start_ns])
        delta = np.concatenate([-np.ones(n, np.int64), np.ones(n, np.int64)])
        gg = np.concatenate([g, g])
        order = np.lexsort((delta, times, gg))  # by group, then time, ends before starts
        level = np.cumsum(delta[order])  # each group nets to zero, so the sum restarts per group
        gs = gg[order]
        starts = np.flatnonzero(np.r_[True, gs[1:] != gs[:-1]])
        out = np.zeros(int(gs.max()) + 1, np.int64)
        out[gs[starts]] = np.maximum.reduceat(level, starts)
        return out

    def resident(self) -> int:
        """The most programs running at once on the whole GPU."""
        return int(self._concurrency(None)[0])

    def resident_per_sm(self) -> np.ndarray:
        """int64 [SMs seen]: the most programs one SM ran at once (0 for an SM that ran none)."""
        return self._concurrency(self.sm)

    def measured_waves(self) -> float:
        return self.n_programs / max(1, self.resident())

    def waves(self) -> np.ndarray:
        """int32 [P]: the wave of each program, counted on its own SM (see the module doc)."""
        n = self.n_programs
        if n == 0:
            return np.zeros(0, np.int32)
        per_sm = np.maximum(self.resident_per_sm(), 1)
        order = np.lexsort((np.arange(n), self.start_ns, self.sm))
        sm_sorted = self.sm[order]
        first = np.r_[0, np.flatnonzero(sm_sorted[1:] != sm_sorted[:-1]) + 1]
        rank = np.arange(n) - np.repeat(first, np.diff(np.r_[first, n]))
        out = np.empty(n, np.int32)
        out[order] = rank // per_sm[sm_sorted]
        return out

    def rows(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(SM, start µs, end µs) per program, float64 times: what a timeline view draws."""
        return self.sm, self.start_ns / 1e3, self.end_ns / 1e3

    def summary_lines(self) -> list[str]:
        d = self.durations_ns()
        what = "the recording build (slowed by its recording)" if self.recording_build else "a timeline-only build"
        lines = [f"schedule of {self.kernel or 'the kernel'}: {self.n_programs} programs on "
                 f"{int(np.unique(self.sm).size) if self.sm.size else 0} of {self.n_sms} SMs in "
                 f"{self.span_ns / 1e3:.1f} µs ({what})"]
        if d.size:
            lines.append(f"program time: median {np.median(d) / 1e3:.2f} µs, max {d.max() / 1e3:.2f} µs")
        lines.append(f"waves: measured {self.measured_waves():.2f} (at most {self.resident()} programs at once, "
                     f"{int(self.resident_per_sm().max()) if self.sm.size else 0} per SM); formula "
                     f"{self.formula_waves():.2f} ({self.n_sms} SMs x {self.programs_per_sm} per SM)")
        return lines


@dataclass
class GpuTraceInfo:
    """How a GPU trace was made."""

    device: str  # "NVIDIA H200", or "CPU (Triton interpreter)" for the instrumented build run there
    mode: str  # "maps" | "timeline"
    compile_s: float = 0.0  # the instrumented build (warm-up; 0 where the cache served it)
    launch_s: float = 0.0  # the recorded launch, wall clock (synchronized)
    kernel_ms: float | None = None  # the same launch on CUDA events (GPU only)
    derive_s: float = 0.0  # maps and statistics from the shadow arrays, reduction and copy to host
    shadow_bytes: int = 0
    n_sites: int = 0  # loads, stores and atomics rewritten (helpers included)
    #: launches of the maps build: 1 when every access was a tile record (or needed the per-lane
    #: path only where it is always compiled in); more when sites flagged it (inputs restored between)
    passes: int = 1
    lane_sites: int = 0  # sites given the per-lane path for the last launch (atomics, scalars, 3-D: always)
    #: per tensor: () when its maps are full resolution, else the block of elements per map cell
    map_strides: list[tuple[int, ...]] = field(default_factory=list)
    events: str = "none"  # where Trace.events came from ("none", or the interpreter window)
    notes: list[str] = field(default_factory=list)


@dataclass
class GpuTraceResult:
    """The worker's answer to a GPU trace request: ``trace`` (None in timeline-only mode),
    ``timeline`` (None without CUDA), ``info``; or ``error`` (an ErrorInfo)."""

    request: Any
    trace: Trace | None = None
    timeline: Timeline | None = None
    info: GpuTraceInfo | None = None
    error: Any = None
