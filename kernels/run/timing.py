"""The timing policy: how every GPU number Tilescope shows is taken (run, bench, sweep, window).

1. **Warm to the working clock.** A GPU that sat idle for a couple of seconds may run its next
   kernel at a lower SM clock, and a power-hungry kernel (a large fp16 matmul) runs its first
   ~0.1 s at the top clock before the power cap pulls it down (H200: 1980 → ~1500 MHz, measured
   in docs/benchmarks/timing.md). A number taken in either transient depends on how long the
   user paused. So the kernel itself runs back to back (``warm_up``) for at least the budget's
   ``min_warm_s`` and then until the SM clock read through NVML is steady — two readings at
   least ``STEADY_SPAN_S`` apart within ``STEADY_TOLERANCE`` — and either near the top clock or
   held down by a named cap (power, thermal), never still climbing from idle. A budget
   (``max_warm_s``) bounds it; a run that timed before its clock was steady says so.
2. **Triton and torch timed together.** ``time_interleaved`` alternates the kernels rep by rep
   (the order rotating each round), each rep after an L2 flush and between CUDA events, as
   ``triton.testing.do_bench`` does for one; the ratio is of two medians taken under the same
   clocks.
3. **Short kernels** (an estimated time under ``SHORT_MS``) get at least ``short_min_reps`` reps:
   the median of a few-µs kernel then rests on hundreds of event pairs; the p20–p80 spread comes
   with every median. Where a round of reps is short on the GPU (an L2 flush and a few µs of
   kernel), the host's launching is what keeps up with it: a host slowed down by a pause (a CPU
   waking from idle) would leave the GPU waiting between an event and its kernel, and that wait
   would be timed. So such reps are queued behind GPU spins (``torch.cuda._sleep``, outside the
   events): the host stays ahead and each event pair holds the kernel alone.
5. **Clock moved during the reps** (a power cap biting after the warm-up looked steady): the reps
   are taken once more, the GPU now in the state the first reps left it, and those are kept.
4. **Clocks recorded.** The SM and memory clock, temperature, power and the clock-event reasons
   (NVML) are read after the reps and kept with the result (``kernels.data.results.Clocks``):
   a run whose SM clock sat under ``THROTTLE_FRACTION`` of the top clock for a named reason, or
   whose clock moved during the reps, is flagged. Without NVML (no GPU, the interpreter, or no
   ``pynvml``) the result says "clocks unknown" and why.

NVML is imported lazily (``nvidia-ml-py``'s ``pynvml``), only on a GPU. ``set_sensor`` swaps the
sensor (tests inject a fake ``pynvml`` at that boundary).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..data.results import Clocks, Timing

__all__ = ["Budget", "FULL", "LIVE", "SWEEP", "Measurement", "NvmlSensor", "Reading", "SHORT_MS",
           "STEADY_SPAN_S", "STEADY_TOLERANCE", "THROTTLE_FRACTION", "WarmUp", "clocks_unknown", "warm_while",
           "measure", "moved", "reason_names", "reps_until_still", "same_clock", "sensor", "set_sensor", "steady", "time_interleaved",
           "warm_up",
           "GPU_METHOD"]

GPU_METHOD = "gpu: warmed to a steady clock, CUDA events, L2 flushed, median of reps"
#: a kernel estimated under this many ms gets the budget's ``short_min_reps`` reps at least
SHORT_MS = 0.02
#: the clock is steady when two readings this far apart agree within STEADY_TOLERANCE (NVML's
#: SM clock reading changes about every 0.1 s on an H200, so two readings closer than that may
#: be the same sample)
STEADY_SPAN_S = 0.09
STEADY_TOLERANCE = 0.03
#: below this fraction of the top SM clock a run counts as held down (when NVML names a reason)
THROTTLE_FRACTION = 0.9
#: one warm-up chunk keeps the GPU busy this long (ms of launches, then a synchronize)
CHUNK_MS = 8.0
#: a round of reps shorter than this on the GPU (ms) is queued behind spins (see the module doc):
#: SPIN_LEAD_MS of spin first, then SPIN_MS of spin after every SPIN_MS of rounds
LEAD_ROUND_MS = 0.5
SPIN_LEAD_MS = 5.0
SPIN_MS = 2.0


@dataclass(frozen=True)
class Budget:
    """How long a measurement may take: warm-up bounds (s) and the reps' budget (ms)."""

    name: str
    min_warm_s: float  # the kernel's own load at least this long (a power cap needs ~0.1 s to bite)
    max_warm_s: float  # stop waiting for a steady clock after this
    rep_ms: float  # time of reps for all interleaved kernels together (flushes included)
    min_reps: int = 10
    short_min_reps: int = 200
    max_reps: int = 5000
    #: a GPU loaded by the last measurement less than this long ago needs no minimum warm-up
    recent_s: float = 0.05


#: a window's run: click → plotted point must stay under 0.5 s
LIVE = Budget("live", min_warm_s=0.15, max_warm_s=0.30, rep_ms=60)
#: ``tilescope run``/``bench``, peaks: the full budget
FULL = Budget("full", min_warm_s=0.25, max_warm_s=2.0, rep_ms=150, min_reps=20, short_min_reps=500)
#: each point of a sweep (points run back to back: the GPU stays warm between them). Its reps only
#: rank roughly: a tune sweep re-measures its fastest few interleaved (``kernels.tune.pipeline``)
SWEEP = Budget("sweep", min_warm_s=0.15, max_warm_s=0.5, rep_ms=12, recent_s=0.5)

# NVML's clock-event reason bits (nvml.h: nvmlClocksEventReason*)
_REASONS = ((0x1, "idle"), (0x2, "application clocks"), (0x4, "power cap"), (0x8, "hardware slowdown"),
            (0x10, "sync boost"), (0x20, "thermal (software)"), (0x40, "thermal (hardware)"),
            (0x80, "power brake"), (0x100, "display clocks"))
#: reasons that hold a busy GPU's clock down (the others are settings or an idle GPU)
_CAPS = {"power cap", "hardware slowdown", "thermal (software)", "thermal (hardware)", "power brake"}


def reason_names(mask: int) -> list[str]:
    return [name for bit, name in _REASONS if mask & bit]


@dataclass(frozen=True)
class Reading:
    """One NVML read: clocks in MHz, temperature in °C, power in W, the reasons mask."""

    sm_mhz: int
    mem_mhz: int
    temp_c: int | None = None
    power_w: float | None = None
    reasons: int = 0


class NvmlSensor:
    """NVML's view of one GPU. ``nvml`` is the ``pynvml`` module (or a stand-in with its names)."""

    def __init__(self, nvml: Any, index: int = 0, uuid: str = "") -> None:
        self.nvml = nvml
        nvml.nvmlInit()
        handle = None
        if uuid:  # CUDA_VISIBLE_DEVICES renumbers devices; the UUID does not change
            try:
                handle = nvml.nvmlDeviceGetHandleByUUID(uuid if uuid.startswith("GPU-") else f"GPU-{uuid}")
            except Exception:  # noqa: BLE001 - fall back to the index
                handle = None
        self.handle = handle if handle is not None else nvml.nvmlDeviceGetHandleByIndex(index)
        self.max_sm_mhz = int(nvml.nvmlDeviceGetMaxClockInfo(self.handle, nvml.NVML_CLOCK_SM))
        self.max_mem_mhz = int(nvml.nvmlDeviceGetMaxClockInfo(self.handle, nvml.NVML_CLOCK_MEM))
        try:
            self.power_limit_w: float | None = nvml.nvmlDeviceGetEnforcedPowerLimit(self.handle) / 1000.0
        except Exception:  # noqa: BLE001 - optional
            self.power_limit_w = None
        get = getattr(nvml, "nvmlDeviceGetCurrentClocksEventReasons", None)
        self._reasons = get or getattr(nvml, "nvmlDeviceGetCurrentClocksThrottleReasons", None)

    def read(self) -> Reading:
        nv, h = self.nvml, self.handle
        temp = power = None
        reasons = 0
        try:
            temp = int(nv.nvmlDeviceGetTemperature(h, nv.NVML_TEMPERATURE_GPU))
        except Exception:  # noqa: BLE001 - a field a GPU does not report stays unknown
            pass
        try:
            power = nv.nvmlDeviceGetPowerUsage(h) / 1000.0
        except Exception:  # noqa: BLE001
            pass
        if self._reasons is not None:
            try:
                reasons = int(self._reasons(h))
            except Exception:  # noqa: BLE001
                reasons = 0
        return Reading(int(nv.nvmlDeviceGetClockInfo(h, nv.NVML_CLOCK_SM)),
                       int(nv.nvmlDeviceGetClockInfo(h, nv.NVML_CLOCK_MEM)), temp, power, reasons)


_SENSOR: dict[str, Any] = {}  # "sensor": NvmlSensor | None, "why": str


def set_sensor(s: NvmlSensor | None, why: str = "") -> None:
    """Use ``s`` from now on (None: clocks unknown, ``why``); tests inject a fake NVML here."""
    _SENSOR.clear()
    _SENSOR.update(sensor=s, why=why or ("" if s is not None else "no NVML"))


def sensor() -> NvmlSensor | None:
    """The current CUDA device's NVML sensor, made once; None (and ``why``) when NVML is absent."""
    if "sensor" in _SENSOR:
        return _SENSOR["sensor"]
    try:
        import pynvml  # nvidia-ml-py
    except ImportError:
        set_sensor(None, "clocks unknown: pynvml (nvidia-ml-py) is not installed")
        return None
    try:
        import torch

        idx = torch.cuda.current_device()
        uuid = str(getattr(torch.cuda.get_device_properties(idx), "uuid", "") or "")
        set_sensor(NvmlSensor(pynvml, idx, uuid))
    except Exception as e:  # noqa: BLE001 - e.g. NVML not supported in this container
        set_sensor(None, f"clocks unknown: NVML did not answer ({type(e).__name__}: {e})")
    return _SENSOR["sensor"]


def sensor_why() -> str:
    return str(_SENSOR.get("why", ""))


def clocks_unknown(why: str) -> Clocks:
    return Clocks(source="", note=why or "clocks unknown")


# ---------------------------------------------------------------------------------------------
# warm-up (pure logic over a load and a sensor: tested on the CPU with stand-ins)


@dataclass
class WarmUp:
    """What the warm-up did: how long, whether the clock settled, the readings ((s, MHz) pairs)."""

    seconds: float = 0.0
    steady: bool | None = None  # None: no sensor, so unknown
    readings: list[tuple[float, Reading]] = field(default_factory=list)


def steady(readings: Sequence[tuple[float, Reading]], max_sm_mhz: int) -> bool:
    """The latest reading agrees (within STEADY_TOLERANCE) with one at least STEADY_SPAN_S older,
    and the clock is near the top or held down by a named cap (not still climbing from idle)."""
    if len(readings) < 2:
        return False
    t_last, last = readings[-1]
    older = [r for t, r in readings if t <= t_last - STEADY_SPAN_S]
    if not older:
        return False
    ref = older[-1]
    if abs(last.sm_mhz - ref.sm_mhz) > STEADY_TOLERANCE * max(ref.sm_mhz, 1):
        return False
    capped = bool(set(reason_names(last.reasons)) & _CAPS)
    return last.sm_mhz >= THROTTLE_FRACTION * max_sm_mhz or capped


_LAST_LOAD: dict[str, float] = {}  # "end": when the last measurement's reps finished (perf_counter)


def warm_up(load: Callable[[], None], sens: NvmlSensor | None, budget: Budget,
            now: Callable[[], float] = time.perf_counter) -> WarmUp:
    """Run ``load`` (a chunk of GPU work, waited for) until the clock is steady (see the module
    doc). Without a sensor: ``min_warm_s`` of load, the clock's state unknown."""
    t0 = now()
    recent = now() - _LAST_LOAD.get("end", -1e9) < budget.recent_s
    min_s = 0.0 if recent else budget.min_warm_s
    w = WarmUp()
    if sens is not None:
        w.readings.append((0.0, sens.read()))
    while True:
        load()
        t = now() - t0
        if sens is not None:
            w.readings.append((t, sens.read()))
            if t >= min_s and steady(w.readings, sens.max_sm_mhz):
                w.steady = True
                break
            if recent and _same_as_last(w.readings[-1][1]):  # still in the state the last reps left it
                w.steady = True
                break
        elif t >= min_s:
            break
        if t >= budget.max_warm_s:
            w.steady = False if sens is not None else None
            break
    w.seconds = now() - t0
    return w


def warm_while(load: Callable[[], None], sens: NvmlSensor | None, budget: Budget, waiting: Callable[[], bool],
               max_s: float = 3.0, now: Callable[[], float] = time.perf_counter) -> WarmUp:
    """Run ``load`` while ``waiting()`` (checked between chunks; at most ``max_s``): a sweep's GPU
    kept busy while its first compile runs, with a load like its kernels' (torch's op on the same
    inputs). Warmed as ``warm_up`` warms (the budget's ``min_warm_s`` at least, then until
    steady); a load whose clock was steady when it stopped is recorded as the last load, so the
    next measurement's warm-up (within ``recent_s``) waives its minimum and compares its clock with
    the one read here. A load stopped before that records nothing: the next warm-up is a full one."""
    t0 = now()
    w = WarmUp()
    if sens is not None:
        w.readings.append((0.0, sens.read()))
    t = 0.0
    while waiting() and t < max_s:
        load()
        t = now() - t0
        if sens is not None:
            w.readings.append((t, sens.read()))
    w.seconds = t
    if t >= budget.min_warm_s and t > 0.0:
        w.steady = steady(w.readings, sens.max_sm_mhz) if sens is not None else None
        if w.steady is not False:
            _LAST_LOAD["end"] = now()
            if sens is not None:
                _LAST_LOAD["sm"] = w.readings[-1][1].sm_mhz
    elif sens is not None:
        w.steady = False
    return w


def _same_as_last(r: Reading) -> bool:
    last = _LAST_LOAD.get("sm")
    return last is not None and abs(r.sm_mhz - last) <= STEADY_TOLERANCE * last


def same_clock(clocks: Clocks | None) -> bool:
    """Whether the GPU's SM clock now is the one ``clocks`` recorded (within STEADY_TOLERANCE):
    a kept baseline timed then still stands. True when either side is unknown (nothing to tell)."""
    sens = sensor()
    if sens is None or clocks is None or not clocks.known or not clocks.sm_mhz:
        return True
    return abs(sens.read().sm_mhz - clocks.sm_mhz) <= STEADY_TOLERANCE * clocks.sm_mhz


def _clocks(sens: NvmlSensor, before: Reading, after: Reading, w: WarmUp) -> Clocks:
    reasons = reason_names(after.reasons)
    caps = [r for r in reasons if r in _CAPS]
    shifted = moved(before, after)
    held = after.sm_mhz < THROTTLE_FRACTION * sens.max_sm_mhz
    throttled = bool(held and (caps or not reasons)) or shifted or w.steady is False
    why = []
    if held:
        why.append(f"SM clock {after.sm_mhz} of {sens.max_sm_mhz} MHz" + (f" ({', '.join(caps)})" if caps else ""))
    if shifted:
        why.append(f"clock moved during the reps ({before.sm_mhz} → {after.sm_mhz} MHz)")
    if w.steady is False:
        why.append(f"clock not steady after {w.seconds:.2f} s of warm-up")
    return Clocks(source="nvml", sm_mhz=after.sm_mhz, sm_start_mhz=before.sm_mhz, sm_max_mhz=sens.max_sm_mhz,
                  mem_mhz=after.mem_mhz, mem_max_mhz=sens.max_mem_mhz, temp_c=after.temp_c,
                  power_w=after.power_w, power_limit_w=sens.power_limit_w, reasons=reasons,
                  warm_s=w.seconds, steady=w.steady, throttled=throttled, note="; ".join(why))


# ---------------------------------------------------------------------------------------------
# the GPU side


@dataclass
class Measurement:
    timings: list[Timing]  # one per kernel, in the order given
    clocks: Clocks


def moved(before: Reading, after: Reading) -> bool:
    """The SM clock changed by more than STEADY_TOLERANCE between two readings."""
    return abs(after.sm_mhz - before.sm_mhz) > STEADY_TOLERANCE * max(before.sm_mhz, 1)


def reps_until_still(take: Callable[[], list[list[float]]], sens: NvmlSensor | None,
                     tries: int = 2) -> tuple[list[list[float]], Reading | None, Reading | None]:
    """``take()`` the reps between two sensor readings; if the clock moved meanwhile, take them
    again (at most ``tries`` times in all) and keep the last. (samples, before, after)."""
    samples: list[list[float]] = []
    before = after = None
    for _ in range(max(1, tries)):
        before = sens.read() if sens is not None else None
        samples = take()
        after = sens.read() if sens is not None else None
        if before is None or after is None or not moved(before, after):
            break
    return samples, before, after


def _l2_flush_buffer() -> Any:
    import torch

    return torch.empty(256 << 20, dtype=torch.int8, device="cuda")


def _estimate_ms(fns: Sequence[Callable[[], Any]], flush: Any) -> list[float]:
    """Each kernel's time per call (ms, L2 flushed before each of 3 calls), flush excluded."""
    import torch

    out = []
    for fn in fns:
        fn()
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        ts = []
        for _ in range(3):
            flush.zero_()
            s.record()
            fn()
            e.record()
            e.synchronize()
            ts.append(s.elapsed_time(e))
        out.append(max(min(ts), 1e-4))
    return out


def time_interleaved(fns: Sequence[Callable[[], Any]], budget: Budget, est_ms: Sequence[float] | None = None,
                     flush: Any = None) -> list[list[float]]:
    """Per-rep times (ms) of each of ``fns``, interleaved rep by rep (order rotating each round),
    an L2 flush before each rep, CUDA events around each call."""
    import torch

    flush = flush if flush is not None else _l2_flush_buffer()
    est = list(est_ms) if est_ms is not None else _estimate_ms(fns, flush)
    flush_ms = 256 / 4e3  # 256 MiB written at ~4 TB/s: what one flush costs the GPU
    per_round = sum(est) + flush_ms * len(fns)
    reps = int(budget.rep_ms / per_round)
    floor = budget.short_min_reps if min(est) < SHORT_MS else budget.min_reps
    reps = max(floor, min(budget.max_reps, reps))
    k = len(fns)
    starts = [[torch.cuda.Event(enable_timing=True) for _ in range(reps)] for _ in range(k)]
    ends = [[torch.cuda.Event(enable_timing=True) for _ in range(reps)] for _ in range(k)]
    spin = getattr(torch.cuda, "_sleep", None) if per_round < LEAD_ROUND_MS else None
    every = max(1, int(SPIN_MS / per_round))
    cycles_per_ms = 2.0e6  # at a ~2 GHz SM clock; a slower clock only spins longer
    if spin is not None:
        spin(int(SPIN_LEAD_MS * cycles_per_ms))
    for r in range(reps):
        if spin is not None and r and r % every == 0:
            spin(int(SPIN_MS * cycles_per_ms))
        for j in range(k):
            i = (j + r) % k
            flush.zero_()
            starts[i][r].record()
            fns[i]()
            ends[i][r].record()
    torch.cuda.synchronize()
    return [[s.elapsed_time(e) for s, e in zip(starts[i], ends[i], strict=True)] for i in range(k)]


def _chunk_load(fns: Sequence[Callable[[], Any]], est_ms: Sequence[float]) -> Callable[[], None]:
    """A warm-up chunk: every kernel run back to back for about CHUNK_MS of GPU time, then a
    synchronize. A launch-bound kernel (a few µs) would leave the GPU mostly idle between
    launches, so its chunk starts with a spin of the GPU (``torch.cuda._sleep``) as well."""
    import torch

    total = max(sum(est_ms), 1e-3)
    n = max(1, min(200, int(CHUNK_MS / total)))  # 200 launches: ~4 ms of Python launching
    spin = getattr(torch.cuda, "_sleep", None) if total < 0.05 else None
    cycles = int(6e6)  # ~3 ms at 2 GHz: the GPU busy while the launches are made

    def load() -> None:
        if spin is not None:
            spin(cycles)
        for _ in range(n):
            for fn in fns:
                fn()
        torch.cuda.synchronize()

    return load


def measure(fns: Sequence[Callable[[], Any]], budget: Budget = FULL, method: str = GPU_METHOD,
            warm: bool = True) -> Measurement:
    """Warm the GPU with these kernels, then time them interleaved (see the module doc). The first
    is the kernel under test; the others (torch's baseline) are timed beside it, under the same
    clocks. Returns one Timing per kernel and the clocks of the measurement."""
    import torch

    sens = sensor()
    flush = _l2_flush_buffer()
    est = _estimate_ms(fns, flush)
    w = warm_up(_chunk_load(fns, est), sens, budget) if warm else WarmUp()
    samples, before, after = reps_until_still(lambda: time_interleaved(fns, budget, est, flush), sens)
    _LAST_LOAD["end"] = time.perf_counter()
    if after is not None:
        _LAST_LOAD["sm"] = after.sm_mhz
    flush = None  # the 256 MiB buffer goes back to the allocator
    torch.cuda.synchronize()
    if sens is not None and before is not None and after is not None:
        clocks = _clocks(sens, before, after, w)
    else:
        clocks = clocks_unknown(sensor_why())
        clocks.warm_s = w.seconds
    label = f"{method}; warm-up {w.seconds * 1e3:.0f} ms" + (", interleaved with torch" if len(fns) > 1 else "")
    timings = [_timing(s, label) for s in samples]
    return Measurement(timings, clocks)


def _timing(samples: list[float], method: str) -> Timing:
    from .bench import timing_from_samples

    return timing_from_samples(samples, method)
