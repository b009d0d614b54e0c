"""Requests and results that cross the worker pipe — plain dataclasses over numpy, no torch/triton.

The GUI process imports this module (and ``kernels.data.params``) but never the catalog or the
engine, so nothing here may import torch or triton.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from .params import Param, Rule

__all__ = [
    "Backend",
    "CheckResult",
    "Clocks",
    "CompileFacts",
    "ErrorInfo",
    "KernelInfo",
    "Metrics",
    "Progress",
    "RunRequest",
    "RunResult",
    "SweepPoint",
    "SweepRank",
    "SweepRequest",
    "SweepResult",
    "Timing",
]

Backend = Literal["gpu", "interpreter", "auto"]


@dataclass(frozen=True)
class KernelInfo:
    """What the GUI needs to show a kernel and its parameter panel (no callables)."""

    name: str
    title: str
    summary: str
    teaching: str
    params: tuple[Param, ...]
    rules: tuple[Rule, ...]
    source: str  # the Triton source a learner reads (all jit functions of the spec)
    source_file: str  # file the source came from (for line numbers)
    source_first_line: int  # line number of the first line of ``source`` in that file
    metric: str  # "GB/s" or "TFLOP/s": the figure plotted for this kernel
    outputs: tuple[str, ...]
    origin: str = "catalog"  # "catalog" or the path of the user's kernel file
    #: one expression per grid dimension over the parameter names (``kernels.data.grid``), so the
    #: GUI knows the program count before any launch; () when the grid is known only at launch
    grid_exprs: tuple[str, ...] = ()


@dataclass(frozen=True)
class Progress:
    """How far a request has got, as data: ``stage`` ("building inputs", "running", "tracing",
    "deriving maps", "checking", "timing", "done", ...), ``done`` of ``total`` ``unit`` ("programs",
    "points", "elements"; total 0 when unknown), and the overall ``fraction`` (0..1)."""

    stage: str
    fraction: float = 0.0
    done: int = 0
    total: int = 0
    unit: str = ""

    def text(self) -> str:
        if self.total:
            return f"{self.stage} {self.done:,}/{self.total:,} {self.unit}".rstrip()
        return self.stage


@dataclass
class RunRequest:
    kernel: str
    values: dict[str, Any] = field(default_factory=dict)  # parameter name -> value (str or typed)
    backend: Backend = "auto"
    seed: int = 0
    bench: bool = True  # time the run (GPU: do_bench-style; interpreter: wall clock)
    torch_baseline: bool = True  # time the torch equivalent in the same run
    compile_facts: bool = True
    keep_asm: bool = True  # ship IR texts back (they can be large)
    keep_error_map: bool = True
    user_file: str | None = None  # a user's kernel file that registers the spec
    timeout_s: float | None = None  # enforced by the worker client, not the engine
    generation: int = 0
    #: launch options the spec has no parameter for (maxnreg, …), added to every launch of the run
    launch_options: dict[str, Any] = field(default_factory=dict)


@dataclass
class ErrorInfo:
    kind: str  # "validation" | "compile" | "launch" | "out_of_bounds" | "oom" | "interpreter" | "user_file" | "timeout" | "worker" | "internal"
    message: str
    field: str | None = None  # the parameter to mark, for validation errors
    detail: str = ""  # Triton's own message / traceback tail, for the "details" box

    def __str__(self) -> str:
        return self.message


@dataclass
class CheckResult:
    passed: bool
    output: str  # name of the checked output tensor
    dtype: str
    max_abs_err: float
    rel_err: float  # ||out - ref|| / ||ref||
    atol: float
    rtol: float
    n_elements: int
    n_mismatch: int  # |out-ref| > atol + rtol*|ref| (NaN counts as mismatch)
    n_unwritten: int  # still NaN-poisoned where the reference is finite
    n_nan: int
    n_inf: int
    error_map: np.ndarray | None = None  # float32, the output's shape: |out - ref| (inf where unwritten)
    reason: str = ""  # one line: why it failed (or a note why it passed with caveats)
    others: list[CheckResult] = field(default_factory=list)  # further outputs (e.g. LayerNorm mean/rstd)
    #: () when ``error_map`` is full resolution. Else the output was too large to ship whole and
    #: the map is downsampled by blocks, this many output elements per map element along each
    #: dimension: map[i, j] = max error over output[i*s0:(i+1)*s0, j*s1:(j+1)*s1] (inf if any
    #: element of the block was unwritten).
    error_map_stride: tuple[int, ...] = ()
    ref_rms: float | None = None  # rms |ref| over the measured elements (the map's tolerance scale)


@dataclass
class Timing:
    method: str  # "gpu: do_bench (cuda events, L2 flush, median)" | "interpreter wall clock"
    median_ms: float
    p20_ms: float
    p80_ms: float
    n_reps: int
    is_interpreter: bool = False


@dataclass
class Clocks:
    """The GPU's state while a run was timed (NVML, ``kernels.run.timing``), or why it is unknown
    (no GPU, the interpreter, no ``pynvml``): ``source`` "" and ``note`` says why."""

    source: str = ""  # "nvml"; "" = unknown
    sm_mhz: int | None = None  # SM clock after the reps
    sm_start_mhz: int | None = None  # ... and just before them
    sm_max_mhz: int | None = None
    mem_mhz: int | None = None
    mem_max_mhz: int | None = None
    temp_c: int | None = None
    power_w: float | None = None
    power_limit_w: float | None = None
    reasons: list[str] = field(default_factory=list)  # NVML's clock-event reasons ("power cap", …)
    warm_s: float = 0.0  # seconds of warm-up before the reps
    steady: bool | None = None  # the warm-up saw a steady clock (None: no sensor to tell)
    throttled: bool = False  # held under the top clock by a cap, moving during the reps, or not steady
    note: str = ""  # why throttled, or why the clocks are unknown

    @property
    def known(self) -> bool:
        return bool(self.source) and self.sm_mhz is not None

    def text(self) -> str:
        """One line: "SM 1500/1980 MHz · memory 3201 MHz · 61 °C · 689 W (power cap)", or why unknown."""
        if not self.known:
            return self.note if self.note.startswith("clocks unknown") else ("clocks unknown" + (
                f": {self.note}" if self.note else ""))
        parts = [f"SM {self.sm_mhz}/{self.sm_max_mhz or '?'} MHz", f"memory {self.mem_mhz} MHz"]
        if self.temp_c is not None:
            parts.append(f"{self.temp_c} °C")
        if self.power_w is not None:
            parts.append(f"{self.power_w:.0f} W")
        text = " · ".join(parts)
        return text + (f" ({', '.join(self.reasons)})" if self.reasons else "")


@dataclass
class Metrics:
    bytes_moved: int
    flops: int
    gbps: float | None = None
    tflops: float | None = None
    torch_timing: Timing | None = None
    torch_gbps: float | None = None
    torch_tflops: float | None = None
    ratio_vs_torch: float | None = None  # torch_ms / triton_ms: >1 means Triton is faster
    peak_gbps: float | None = None  # device's measured copy bandwidth
    peak_tflops: float | None = None  # device's measured matmul rate (bf16)
    pct_peak_bw: float | None = None
    pct_peak_flops: float | None = None
    #: where the shown peak came from ("cuBLAS fp16 4096×4096×4096 (best of 3 shapes)", or a run
    #: above it), and the data sheet's figure for it (same unit; None: not in the table)
    peak_source: str = ""
    peak_datasheet: float | None = None
    #: torch's timing was taken interleaved with the kernel's, under the same clocks
    torch_interleaved: bool = False


@dataclass
class CompileFacts:
    n_regs: int | None
    n_spills: int | None
    shared_bytes: int | None
    num_warps: int
    num_stages: int
    asm: dict[str, str] = field(default_factory=dict)  # ttir, ttgir, llir, ptx, sass
    programs_per_sm: int | None = None
    occupancy_limiter: str = ""  # "registers" | "shared memory" | "warps" | "blocks"
    occupancy_warps_pct: float | None = None  # active warps / max warps per SM
    waves: float | None = None
    n_programs: int = 0
    n_sms: int | None = None


@dataclass
class RunResult:
    request: RunRequest
    kernel: str
    values: dict[str, Any]  # the validated, typed values used
    backend: str  # "gpu" or "interpreter" (what actually ran)
    device: str  # "NVIDIA H200" / "CPU (Triton interpreter)"
    grid: tuple[int, ...] = ()
    check: CheckResult | None = None
    timing: Timing | None = None
    metrics: Metrics | None = None
    compile: CompileFacts | None = None
    notes: list[str] = field(default_factory=list)  # e.g. "num_warps has no effect under the interpreter"
    error: ErrorInfo | None = None
    triton_version: str = ""
    torch_version: str = ""
    wall_s: float = 0.0
    generation: int = 0
    #: the GPU's clocks, temperature and power while it was timed (``Clocks.known`` False: why not)
    clocks: Clocks | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and (self.check is None or self.check.passed)


@dataclass
class SweepRequest:
    """A sweep: every combination of ``axes`` (and/or each of ``configs``), run, checked and timed.

    ``mode="grid"`` (the default) is the sweep view's grid: one or two axes, every point in
    product order, best = the fastest passing first measurement. ``mode="tune"`` takes any
    number of axes and explicit ``configs``, refuses launch-option axes (num_warps, num_stages,
    maxnreg) on the interpreter, and re-measures the fastest ``remeasure_top`` interleaved before
    naming the winner. Both filter by ``where``, prune configs that cannot fit before compiling
    them (``prune``), and on a GPU compile ahead in a pool while the GPU benchmarks."""

    kernel: str
    base: dict[str, Any]  # fixed values
    axes: dict[str, list[Any]]  # parameter -> values to try (grid mode: one or two)
    backend: Backend = "auto"
    seed: int = 0
    torch_baseline: bool = True
    user_file: str | None = None
    skip: list[dict[str, Any]] = field(default_factory=list)  # points already done (resume)
    generation: int = 0
    mode: Literal["grid", "tune"] = "grid"
    #: explicit configs (tune mode), each a dict of parameter -> value; combined with every
    #: combination of ``axes`` (a config and an axis may not name the same parameter)
    configs: list[dict[str, Any]] = field(default_factory=list)
    #: constraints, each a Python expression over the parameter names (``kernels.data.params.Rule``
    #: syntax), e.g. "BLOCK_M * BLOCK_N <= 32768": points where one is false are not run
    where: list[str] = field(default_factory=list)
    #: skip, before compiling, configs estimated not to fit (shared memory, registers, block size)
    prune: bool = True
    #: prune against this GPU's limits instead of the one running ("sm_90", "9.0", "H100", "A100"…);
    #: "" = the device that runs (the interpreter has none: only block-size limits apply)
    target: str = ""
    #: re-measure the fastest this many per data group, interleaved; None = 3 in tune mode, 0 in grid
    remeasure_top: int | None = None
    remeasure_rounds: int = 5
    #: GPU: configs compiled ahead at once (0 = one per CPU core; 1 = compile at each launch)
    compile_workers: int = 0
    #: GPU: "threads" (what "auto" picks), or "processes" (spawned workers fill Triton's cache; for
    #: kernels a fresh process can import: the catalog and user files, else threads)
    compile_pool: Literal["auto", "threads", "processes"] = "auto"
    #: run the points through Ray (``kernels.engine.ray_sweep``): "" = not (here, one at a time),
    #: "local" = start Ray on this host, "auto" = the running cluster, else its address
    cluster: str = ""
    #: with a local Ray: the GPUs it may use, "all" or "0,1" ("" = all; implies cluster "local")
    gpus: str = ""
    #: Ray actors to start (0 = one per GPU; under the interpreter one per CPU)
    ray_workers: int = 0


@dataclass
class SweepPoint:
    values: dict[str, Any]  # the swept parameters' values at this point
    result: RunResult
    #: position in the request's space (product order, then configs), for ordering and resume
    index: int = -1
    #: why the point was skipped before compiling ("" = it ran); result.error says the same
    pruned: str = ""
    #: estimates made before compiling: "shared_bytes", "regs_per_thread" (absent = no estimate)
    estimate: dict[str, int] = field(default_factory=dict)
    #: seconds compiling this config ahead in the pool (None: compiled at its first launch)
    compile_s: float | None = None
    #: the interleaved re-measurement of the fastest points (None: not re-measured)
    remeasured: Timing | None = None

    @property
    def timing(self) -> Timing | None:
        """The best timing known for this point: the re-measurement, else the first one."""
        return self.remeasured or self.result.timing


@dataclass
class SweepRank:
    """One passing point's place in its data group (points sharing shapes, dtype and flags)."""

    index: int  # into SweepResult.points
    group: str  # e.g. "N=4096, dtype=fp16"; "" when no data parameter varies
    rank: int  # 1 = the winner of its group
    median_ms: float
    p20_ms: float
    p80_ms: float
    n_reps: int
    remeasured: bool
    ratio_to_best: float  # median / the winner's median (1.0 for the winner)
    within_noise: bool  # its p20–p80 spread overlaps the winner's (the winner itself: False)


@dataclass
class SweepResult:
    request: SweepRequest
    points: list[SweepPoint]
    best: int | None  # index into points of the fastest passing point (tune mode: the winner)
    error: ErrorInfo | None = None
    generation: int = 0
    #: the varied parameters, in column order (the axes, then the configs' other keys)
    names: list[str] = field(default_factory=list)
    filtered: int = 0  # combinations removed by ``where``
    n_pruned: int = 0  # points skipped before compiling (SweepPoint.pruned says why)
    ranking: list[SweepRank] = field(default_factory=list)  # by group, fastest first
    verdicts: list[str] = field(default_factory=list)  # one line per data group: the winner and the noise
    notes: list[str] = field(default_factory=list)
    #: wall seconds by phase: "plan", "compile" (the pool's busy span), "bench", "remeasure", "total"
    phases: dict[str, float] = field(default_factory=dict)
    #: ready texts for the winner and the top configs: "autotune" (a @triton.autotune decorator),
    #: "triton_op" (a module wrapping the tuned kernel); tune mode, when a point passed
    exports: dict[str, str] = field(default_factory=dict)
    #: the varied parameters that were tuned (not shapes, dtypes or flags): what a "Best: …" names
    tuned_names: list[str] = field(default_factory=list)
