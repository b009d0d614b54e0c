"""How the GPU's clocks behave around a pause, and what the peaks are (no Tilescope code).

    PYTHONUNBUFFERED=1 python3 benchmarks/probe_clocks.py --out probe.json

Measures, on the current CUDA device, with NVML (nvidia-ml-py) read from Python:

- what one NVML read costs;
- the SM clock while idle, and how it climbs once work starts after 0.5 / 2 / 3 s of idling,
  for four kinds of load: a spin kernel (``torch.cuda._sleep``), vector add 2^16 launched in a
  loop (launch-bound), vector add 2^26, and a 4096³ fp16 matmul (power-hungry);
- the kernels' times (CUDA events, L2 flushed) cold (right after a pause) and warm;
- peaks: device copies of several sizes and cuBLAS matmuls of several shapes and dtypes.

Prints a short table and writes everything as JSON. Written to size Tilescope's warm-up budget
(``kernels/run/timing.py``); the numbers go to docs/benchmarks/timing.md.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import torch


def nvml():
    import pynvml

    pynvml.nvmlInit()
    return pynvml, pynvml.nvmlDeviceGetHandleByIndex(torch.cuda.current_device())


def read(nv, h) -> dict:
    return {"sm": nv.nvmlDeviceGetClockInfo(h, nv.NVML_CLOCK_SM),
            "mem": nv.nvmlDeviceGetClockInfo(h, nv.NVML_CLOCK_MEM),
            "temp": nv.nvmlDeviceGetTemperature(h, nv.NVML_TEMPERATURE_GPU),
            "power_w": nv.nvmlDeviceGetPowerUsage(h) / 1000.0,
            "reasons": int(nv.nvmlDeviceGetCurrentClocksEventReasons(h))
            if hasattr(nv, "nvmlDeviceGetCurrentClocksEventReasons")
            else int(nv.nvmlDeviceGetCurrentClocksThrottleReasons(h))}


def loads() -> dict:
    a16 = torch.randn(1 << 16, device="cuda")
    b16 = torch.randn_like(a16)
    a26 = torch.randn(1 << 26, device="cuda")
    b26 = torch.randn_like(a26)
    m = torch.randn(4096, 4096, device="cuda", dtype=torch.float16)
    n = torch.randn(4096, 4096, device="cuda", dtype=torch.float16)
    cyc = int(torch.cuda.get_device_properties(0).clock_rate) if hasattr(torch.cuda.get_device_properties(0),
                                                                         "clock_rate") else 1_980_000
    return {"spin_1ms": lambda: torch.cuda._sleep(cyc),  # ~1 ms at the max clock (clock_rate is kHz)
            "add_2^16": lambda: a16 + b16,
            "add_2^26": lambda: a26 + b26,
            "mm_4096_fp16": lambda: m @ n}


def ramp(nv, h, fn, idle_s: float, window_s: float = 0.6, step_s: float = 0.005) -> list:
    """Idle, then run ``fn`` back to back for ``window_s``, reading the SM clock every ~step_s."""
    torch.cuda.synchronize()
    time.sleep(idle_s)
    out = [(0.0, read(nv, h)["sm"])]
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < window_s:
        t1 = time.perf_counter()
        while time.perf_counter() - t1 < step_s:
            fn()
        torch.cuda.synchronize()
        out.append((round(time.perf_counter() - t0, 4), read(nv, h)["sm"]))
    return out


def time_events(fn, reps: int = 100) -> float:
    cache = torch.empty(256 << 20, dtype=torch.int8, device="cuda")
    s = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    e = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    for i in range(reps):
        cache.zero_()
        s[i].record()
        fn()
        e[i].record()
    torch.cuda.synchronize()
    return statistics.median(a.elapsed_time(b) for a, b in zip(s, e, strict=True))


def peaks() -> dict:
    import triton.testing

    out: dict = {"copy_gbps": {}, "matmul_tflops": {}}
    for nbytes in (256 << 20, 1 << 30, 2 << 30):
        src = torch.empty(nbytes // 4, dtype=torch.float32, device="cuda").fill_(1.0)
        dst = torch.empty_like(src)
        ms = triton.testing.do_bench(lambda: dst.copy_(src), warmup=25, rep=100, return_mode="median")
        out["copy_gbps"][str(nbytes)] = 2 * nbytes / ms / 1e6
        src = dst = None
    for dt in (torch.float16, torch.bfloat16, torch.float32):
        for shp in ((4096, 4096, 4096), (8192, 8192, 8192), (16384, 8192, 8192), (8192, 8192, 16384)):
            if dt is torch.float32 and shp[0] > 8192:
                continue
            m, n, k = shp
            a = torch.randn(m, k, device="cuda", dtype=dt)
            b = torch.randn(k, n, device="cuda", dtype=dt)
            ms = triton.testing.do_bench(lambda: a @ b, warmup=25, rep=100, return_mode="median")
            out["matmul_tflops"][f"{str(dt).split('.')[-1]} {m}x{n}x{k}"] = 2 * m * n * k / ms / 1e9
            a = b = None
    torch.cuda.empty_cache()
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="probe.json")
    args = ap.parse_args()
    res: dict = {"device": torch.cuda.get_device_name(), "torch": torch.__version__}
    import triton

    res["triton"] = triton.__version__
    nv, h = nvml()
    res["nvml_version"] = nv.nvmlSystemGetDriverVersion()
    res["max_sm"] = nv.nvmlDeviceGetMaxClockInfo(h, nv.NVML_CLOCK_SM)
    res["max_mem"] = nv.nvmlDeviceGetMaxClockInfo(h, nv.NVML_CLOCK_MEM)
    t0 = time.perf_counter()
    for _ in range(100):
        read(nv, h)
    res["read_us"] = (time.perf_counter() - t0) / 100 * 1e6
    fns = loads()
    for f in fns.values():  # compile / load everything first
        f()
    torch.cuda.synchronize()
    time.sleep(3)
    res["idle"] = read(nv, h)
    res["ramps"] = {}
    for name, fn in fns.items():
        for idle in (0.5, 2.0, 3.0):
            res["ramps"][f"{name} after {idle}s"] = ramp(nv, h, fn, idle)
    res["times"] = {}
    for name, fn in fns.items():
        if name.startswith("spin"):
            continue
        row = {}
        for idle in (0.0, 2.0):
            torch.cuda.synchronize()
            time.sleep(idle)
            c0 = read(nv, h)["sm"]
            row[f"after {idle}s"] = (time_events(fn), c0, read(nv, h)["sm"])
        # warmed by a spin of 50 ms first
        time.sleep(2.0)
        for _ in range(50):
            fns["spin_1ms"]()
        row["after 2s + 50 spins"] = (time_events(fn), read(nv, h)["sm"])
        res["times"][name] = row
    mm = fns["mm_4096_fp16"]
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < 1.5:
        for _ in range(20):
            mm()
        torch.cuda.synchronize()
    res["mm_sustained"] = read(nv, h)
    res["peaks"] = peaks()
    res["after_peaks"] = read(nv, h)
    with open(args.out, "w") as f:
        json.dump(res, f, indent=1)
    print(json.dumps({k: v for k, v in res.items() if k != "ramps"}, indent=1))
    for k, v in res["ramps"].items():
        firsts = [(t, c) for t, c in v]
        hit = next((t for t, c in firsts if c >= 0.95 * res["max_sm"]), None)
        print(f"{k:28s} start {v[0][1]} MHz; >=95% max at {hit} s; samples {firsts[:3]} … {firsts[-1]}")


if __name__ == "__main__":
    main()
