"""The timing policy's CPU-testable parts: NVML readings recorded with a run, "clocks unknown"
without NVML, the warm-up waiting for a steady clock, and a peak that is never silently exceeded.

A fake ``pynvml`` module is injected at the sensor's boundary (``timing.NvmlSensor`` takes the
module); the same code reads the real one on the GPU (tests/gpu/test_gpu_timing.py).
"""

from __future__ import annotations

import sys
import types

import pytest

from kernels.data.results import Clocks
from kernels.run import peaks, timing


class FakeNvml(types.SimpleNamespace):
    """The slice of pynvml the sensor calls; the SM clock follows ``sm_seq`` read by read."""

    NVML_CLOCK_SM = 1
    NVML_CLOCK_MEM = 2
    NVML_TEMPERATURE_GPU = 0

    def __init__(self, sm_seq, reasons_seq=None, max_sm=1980) -> None:
        super().__init__()
        self.sm_seq, self.reasons_seq, self.max_sm = list(sm_seq), list(reasons_seq or [0]), max_sm
        self.n_reads = 0
        self.inited = False

    def nvmlInit(self):  # noqa: N802 - pynvml's names
        self.inited = True

    def nvmlDeviceGetHandleByUUID(self, uuid):  # noqa: N802
        raise RuntimeError("not found")

    def nvmlDeviceGetHandleByIndex(self, i):  # noqa: N802
        return ("gpu", i)

    def nvmlDeviceGetMaxClockInfo(self, h, kind):  # noqa: N802
        return self.max_sm if kind == self.NVML_CLOCK_SM else 3201

    def nvmlDeviceGetEnforcedPowerLimit(self, h):  # noqa: N802
        return 700_000

    def nvmlDeviceGetClockInfo(self, h, kind):  # noqa: N802
        if kind == self.NVML_CLOCK_MEM:
            return 3201
        i = min(self.n_reads, len(self.sm_seq) - 1)
        self.n_reads += 1
        return self.sm_seq[i]

    def nvmlDeviceGetTemperature(self, h, kind):  # noqa: N802
        return 61

    def nvmlDeviceGetPowerUsage(self, h):  # noqa: N802
        return 688_867  # mW

    def nvmlDeviceGetCurrentClocksEventReasons(self, h):  # noqa: N802
        i = min(max(self.n_reads - 1, 0), len(self.reasons_seq) - 1)
        return self.reasons_seq[i]


class FakeTime:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def _warm(nv: FakeNvml, budget: timing.Budget, chunk_s: float = 0.01) -> timing.WarmUp:
    clock = FakeTime()
    sens = timing.NvmlSensor(nv)
    timing._LAST_LOAD.clear()

    def load() -> None:
        clock.t += chunk_s

    return timing.warm_up(load, sens, budget, now=clock)


def test_sensor_reads_clocks_temperature_and_power_from_nvml():
    # breaks if a run's clocks are not what NVML said (the tooltip, History, JSON would lie)
    nv = FakeNvml([1500], reasons_seq=[0x4])
    s = timing.NvmlSensor(nv, index=0, uuid="abc")
    assert nv.inited and s.max_sm_mhz == 1980 and s.max_mem_mhz == 3201 and s.power_limit_w == 700.0
    r = s.read()
    assert (r.sm_mhz, r.mem_mhz, r.temp_c, round(r.power_w, 1)) == (1500, 3201, 61, 688.9)
    assert timing.reason_names(r.reasons) == ["power cap"]
    c = timing._clocks(s, r, r, timing.WarmUp(0.2, True))
    assert c.known and c.sm_mhz == 1500 and c.mem_mhz == 3201 and c.temp_c == 61 and c.power_w == pytest.approx(688.867)
    # 1500 of 1980 MHz held down by the power cap: the point is flagged, and says why
    assert c.throttled and "power cap" in c.note and "1500 of 1980" in c.note


def test_a_run_at_the_top_clock_is_not_flagged():
    s = timing.NvmlSensor(FakeNvml([1980]))
    r = s.read()
    c = timing._clocks(s, r, r, timing.WarmUp(0.15, True))
    assert not c.throttled and c.note == "" and c.steady is True


def test_clock_moving_during_the_reps_is_flagged():
    s = timing.NvmlSensor(FakeNvml([1980, 1500]))
    before, after = s.read(), s.read()
    c = timing._clocks(s, before, after, timing.WarmUp(0.15, True))
    assert c.throttled and "1980 → 1500" in c.note


def test_no_pynvml_means_clocks_unknown(monkeypatch):
    # breaks if a machine without NVML shows made-up clocks instead of saying it does not know
    monkeypatch.setitem(sys.modules, "pynvml", None)  # import pynvml raises ImportError
    timing._SENSOR.clear()
    try:
        assert timing.sensor() is None
        why = timing.sensor_why()
        assert "pynvml" in why
        c = timing.clocks_unknown(why)
        assert not c.known and c.text().startswith("clocks unknown")
    finally:
        timing._SENSOR.clear()


def test_clocks_unknown_text_and_known_text():
    assert Clocks().text() == "clocks unknown"
    c = Clocks(source="nvml", sm_mhz=1500, sm_max_mhz=1980, mem_mhz=3201, temp_c=61, power_w=688.9,
               reasons=["power cap"])
    t = c.text()
    assert "1500" in t and "3201" in t and "61" in t and "689" in t


def test_warm_up_waits_for_the_clock_to_climb_from_idle():
    # idle at 345 MHz, climbing over ~0.1 s: the timing must not start before the top clock
    seq = [345, 345, 600, 900, 1300, 1700, 1980] + [1980] * 100
    w = _warm(FakeNvml(seq), timing.FULL)
    assert w.steady is True
    assert w.readings[-1][1].sm_mhz == 1980
    assert w.seconds >= timing.FULL.min_warm_s
    # the clock read at the end has been at the top for at least the steady span
    at_top = [t for t, r in w.readings if r.sm_mhz == 1980]
    assert w.readings[-1][0] - at_top[0] >= timing.STEADY_SPAN_S - 1e-9


def test_warm_up_accepts_a_steady_power_cap():
    # a big matmul: top clock for ~0.08 s, then the power cap holds it near 1500 MHz
    seq = [1980] * 8 + [1620] * 5 + [1500] * 100
    w = _warm(FakeNvml(seq, reasons_seq=[0] * 8 + [0x4] * 200), timing.LIVE)
    assert w.steady is True
    assert w.readings[-1][1].sm_mhz == 1500


def test_warm_up_gives_up_at_its_budget_and_says_so():
    seq = [345 + 20 * i for i in range(200)]  # still climbing when the budget ends
    w = _warm(FakeNvml(seq), timing.LIVE)
    assert w.steady is False
    assert timing.LIVE.max_warm_s <= w.seconds < timing.LIVE.max_warm_s + 0.02


def test_warm_up_without_nvml_runs_the_minimum_load():
    clock = FakeTime()
    n = [0]

    def load() -> None:
        n[0] += 1
        clock.t += 0.01

    timing._LAST_LOAD.clear()
    w = timing.warm_up(load, None, timing.LIVE, now=clock)
    assert w.steady is None and w.seconds >= timing.LIVE.min_warm_s and n[0] >= 15


# ---------------------------------------------------------------------------------------------
# the peak


def _book(values):
    calls = []

    def measure(key):
        v = values[min(len(calls), len(values) - 1)]
        calls.append(key)
        return v, f"cuBLAS {key} 8192×8192×8192 (best of 3 shapes)", {"8192×8192×8192": v}

    return peaks.PeakBook("NVIDIA H200", measure), calls


def test_a_run_below_the_peak_measures_nothing_again():
    b, calls = _book([680.0])
    pk = b.check("fp16", 650.0)
    assert pk.value == 680.0 and calls == ["fp16"]
    assert pk.datasheet == 989.0 and "data sheet" in pk.datasheet_source


def test_a_run_above_the_peak_triggers_a_remeasure():
    # the "735 TFLOP/s = 108% of measured peak": the peak is measured again first
    b, calls = _book([680.0, 760.0])
    pk = b.check("fp16", 735.0, "Run 3")
    assert calls == ["fp16", "fp16"]
    assert pk.value == 760.0 and 100 * 735.0 / pk.value <= 100


def test_a_run_still_above_after_the_remeasure_becomes_the_named_peak():
    b, calls = _book([680.0, 675.0])
    pk = b.check("fp16", 735.0, "Run 3 (matmul BLOCK_N=256)")
    assert len(calls) == 2
    assert pk.value == 735.0 and "Run 3" in pk.source and "cuBLAS" in pk.source
    # never above 100 %, and a second run above does not measure a third time
    pk2 = b.check("fp16", 740.0, "Run 4")
    assert len(calls) == 2 and pk2.value == 740.0


def test_peak_kind_follows_the_metric_and_dtype():
    assert peaks.kind_for_metric("GB/s", "fp16") == "copy"
    assert peaks.kind_for_metric("TFLOP/s", "fp16") == "fp16"
    assert peaks.kind_for_metric("TFLOP/s", "fp32") == "fp32"
    assert peaks.datasheet_for("NVIDIA H100 PCIe", "copy")[0] == 2000.0
    assert peaks.datasheet_for("NVIDIA H100 80GB HBM3", "copy")[0] == 3350.0
    assert peaks.datasheet_for("Some GPU", "copy") == (None, "")


def test_reps_are_taken_again_when_the_clock_moved_during_them():
    # matmul 4096³ on the H200: the warm-up looked steady at 1980 MHz, the power cap bit during
    # the reps (1980 → 1665 MHz); the second take, at the capped clock, is the one kept
    sens = timing.NvmlSensor(FakeNvml([1980, 1665, 1665, 1665], reasons_seq=[0, 0x4, 0x4, 0x4]))
    takes = []

    def take():
        takes.append(len(takes))
        return [[0.46 + 0.01 * len(takes)]]

    samples, before, after = timing.reps_until_still(take, sens)
    assert len(takes) == 2 and samples == [[pytest.approx(0.48)]]
    assert (before.sm_mhz, after.sm_mhz) == (1665, 1665) and not timing.moved(before, after)


def test_reps_taken_once_when_the_clock_held_still_or_is_unknown():
    sens = timing.NvmlSensor(FakeNvml([1980]))
    n = []
    timing.reps_until_still(lambda: n.append(1) or [[1.0]], sens)
    timing.reps_until_still(lambda: n.append(1) or [[1.0]], None)
    assert len(n) == 2


def test_an_interpreter_run_says_clocks_unknown():
    import kernels.catalog  # noqa: F401
    from kernels import engine
    from kernels.data.results import RunRequest

    r = engine.run(RunRequest("vector_add", {"N": 1024, "BLOCK_SIZE": 256}, backend="interpreter"))
    assert r.error is None and r.clocks is not None and not r.clocks.known
    assert r.clocks.text().startswith("clocks unknown") and "interpreter" in r.clocks.text()


def test_a_run_carries_both_roofs_but_only_its_metrics_peak_is_checked():
    # the roofline draws the copy roof and the matmul roof from each run: both must come along
    calls = []

    def measure(key):
        calls.append(key)
        return {"copy": 4269.0, "fp16": 709.0, "fp32": 350.0}[key], f"best {key}", {}

    b = peaks.PeakBook("NVIDIA H200", measure)
    shown, copy_peak, mm = b.for_figure("GB/s", "fp32", 4242.0, "vector add")
    assert shown.key == "copy" and (copy_peak, mm) == (4269.0, 350.0)
    shown, copy_peak, mm = b.for_figure("TFLOP/s", "fp16", 300.0, "matmul")
    assert shown.key == "fp16" and (copy_peak, mm) == (4269.0, 709.0)
    assert sorted(calls) == ["copy", "fp16", "fp32"]  # each measured once, none again


# ---------------------------------------------------------------------------------------------
# a sweep's GPU kept busy while its first compile runs (timing.warm_while)


def _warm_while(nv: FakeNvml, chunks_waiting: int) -> tuple[timing.WarmUp, FakeTime, timing.NvmlSensor, list[int]]:
    clock = FakeTime()
    sens = timing.NvmlSensor(nv)
    timing._LAST_LOAD.clear()
    n = [0]

    def load() -> None:
        n[0] += 1
        clock.t += 0.01

    w = timing.warm_while(load, sens, timing.SWEEP, lambda: n[0] < chunks_waiting, now=clock)
    return w, clock, sens, n


def test_a_load_that_reached_a_steady_clock_counts_as_the_last_load():
    # the power cap holds 1500 MHz: 40 chunks (0.4 s) while the compile runs, then it lands; the
    # first point's warm-up then waives its minimum and stops after one chunk at that clock
    w, clock, sens, n = _warm_while(FakeNvml([1980] * 8 + [1500] * 400, reasons_seq=[0] * 8 + [0x4] * 400), 40)
    assert n[0] == 40 and w.steady is True and w.seconds == pytest.approx(0.4)
    assert timing._LAST_LOAD["sm"] == 1500

    def point_chunk() -> None:
        clock.t += 0.01
    p = timing.warm_up(point_chunk, sens, timing.SWEEP, now=clock)
    assert p.steady is True and p.seconds == pytest.approx(0.01)  # not SWEEP.min_warm_s


def test_a_load_stopped_before_a_steady_clock_records_nothing():
    # breaks if a load cut short by the first compile (clock still climbing from idle) let the
    # first point skip its minimum warm-up: it must warm up in full
    seq = [345, 600, 900, 1300, 1700, 1980] + [1980] * 200
    w, clock, sens, n = _warm_while(FakeNvml(seq), 5)
    assert n[0] == 5 and w.steady is False and "end" not in timing._LAST_LOAD

    def point_chunk() -> None:
        clock.t += 0.01
    p = timing.warm_up(point_chunk, sens, timing.SWEEP, now=clock)
    assert p.seconds >= timing.SWEEP.min_warm_s


def test_the_load_stops_as_soon_as_nothing_is_waited_for_and_at_its_cap():
    w, _, _, n = _warm_while(FakeNvml([1980]), 0)
    assert n[0] == 0 and w.seconds == 0.0 and "end" not in timing._LAST_LOAD
    w, _, _, n = _warm_while(FakeNvml([1980]), 10**6)  # a compile that never lands: max_s (3 s)
    assert n[0] == pytest.approx(300, abs=1)
