"""The first sweep in a fresh window (issue #28), measured without the GUI: click → finished ranking.

A fresh worker is started exactly as the window starts it (``app.client.WorkerClient``, the
window's nice level, a fresh ``TRITON_CACHE_DIR``); once it says hello (the window's "ready")
the script waits a think time (the user choosing the kernel, its shapes and typing the sweep),
then sends the request the Sweep dialog sends — built by the window's own ``Session`` from the
panel's values (matmul M=N=K=4096 fp16, the rest at their defaults) and the dialog's axes:
BLOCK_M=64,128 × BLOCK_N=64,128 × BLOCK_K=32,64 × num_warps=4,8 (16 configs, a tune sweep:
torch baseline, re-measure of the top 3) — and times it from send to the final answer, with the
engine's phases and each point's arrival. What the window adds (Qt painting the points as they
come) is not here: PySide6 is not on the device.

Stages, in this order, each only if the time left allows it (``--budget``, the script's own hard
limit; the JSON is written after every stage):

1. ``window``: fresh worker, fresh Triton cache, think time ``--think`` s, the sweep; then the same
   sweep again in that worker (its Triton cache now warm: a repeat);
2. ``autotune``: a plain ``triton.autotune`` script over the same 16 configs in a fresh process
   with a fresh Triton cache: the process's whole wall time and the first (tuning) call; then the
   two winners timed interleaved in that process (same winner, or within the noise);
3. ``window_no_think``: another fresh worker and Triton cache, the sweep sent the moment the
   worker is ready (the worst case: the worker's head start still running; the sweep's
   ``warm-up wait`` phase says how long it waited for it).

    python3 benchmarks/first_sweep_gpu.py --out $OUT            # the device (≤ 45 s)
    python benchmarks/first_sweep_gpu.py --cpu-dry --out /tmp/x  # no GPU: the same stages on the
                                                                 # interpreter, small shapes
    python benchmarks/first_sweep_gpu.py --cpu-profile 2         # no GPU: one-time costs, 16
                                                                 # compiles for sm_90 in 2 processes
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

#: the panel's values the script sets (the rest at the kernel's defaults) and the dialog's axes
GPU_SHAPE = {"M": 4096, "N": 4096, "K": 4096, "dtype": "fp16"}
GPU_AXES = {"BLOCK_M": [64, 128], "BLOCK_N": [64, 128], "BLOCK_K": [32, 64], "num_warps": [4, 8]}
#: --cpu-dry: the interpreter refuses launch-option axes and is slow: small shapes, 8 configs
CPU_SHAPE = {"M": 64, "N": 64, "K": 64, "dtype": "fp32"}
CPU_AXES = {"BLOCK_M": [16, 32], "BLOCK_N": [16, 32], "BLOCK_K": [16, 32]}
STAGE_NEEDS_S = {"window": 14.0, "autotune": 13.0, "window_no_think": 9.0}


class Clock:
    """The script's hard limit: seconds left of ``budget`` from construction."""

    def __init__(self, budget: float) -> None:
        self.t0, self.budget = time.monotonic(), budget

    def left(self) -> float:
        return self.budget - (time.monotonic() - self.t0)


# ---------------------------------------------------------------------------------------------
# the window's side: a fresh worker, the dialog's request


def _sweep_request(hello: dict, cpu: bool) -> Any:
    """The request ``app.sweep_flow.SweepFlow.start`` sends: ``Session.start_sweep`` over the
    panel's values and the dialog's axes (4 axes: a tune sweep, as the dialog forces)."""
    from app.session import Session

    s = Session()
    s.set_hello(hello)
    info = s.select("matmul")
    base = {p.name: p.default for p in info.params}
    base.update(CPU_SHAPE if cpu else GPU_SHAPE)
    backend = "interpreter" if cpu else str(s.backends.get("default") or "gpu")
    axes = CPU_AXES if cpu else GPU_AXES
    return s.start_sweep(base, {k: list(v) for k, v in axes.items()}, backend, where=[], mode="tune")


def _point_row(p: Any, t_send: float) -> dict:
    """A point as it arrived, with what its time went to: the run (launch, check) and the
    benchmark's warm-up and reps (``n_reps``; ``torch`` when torch was timed beside it)."""
    r = p.result
    c, m = r.clocks, r.metrics
    return {"at_s": round(time.perf_counter() - t_send, 4), **p.values, "ok": r.ok,
            "ms": r.timing.median_ms if r.timing else None, "compile_s": p.compile_s,
            "run_s": round(r.wall_s, 4) if r.wall_s is not None else None,
            "warm_s": round(c.warm_s, 4) if c is not None and c.warm_s is not None else None,
            "steady": c.steady if c is not None else None, "sm_mhz": c.sm_mhz if c is not None else None,
            "n_reps": r.timing.n_reps if r.timing else None,
            "torch": bool(m.torch_interleaved) if m is not None else None,
            "error": r.error.message[:200] if r.error else None}


def _result_row(res: Any, wall: float, points: list[dict]) -> dict:
    best = res.points[res.best] if res.best is not None else None
    return {
        "click_to_ranking_s": wall, "phases": dict(res.phases), "n_points": len(res.points),
        "n_ok": sum(1 for p in res.points if p.result.ok), "n_pruned": res.n_pruned,
        "error": res.error.message if res.error else None,
        "winner": {**best.result.values, **best.values} if best else None,
        "winner_ms": best.timing.median_ms if best and best.timing else None,
        "winner_remeasured": best.remeasured is not None if best else None,
        "first_point_s": points[0]["at_s"] if points else None,
        "last_point_s": points[-1]["at_s"] if points else None,
        "verdicts": list(res.verdicts), "notes": list(res.notes), "points": points,
    }


def _window_nice() -> int:
    """``app.qt_worker.WORKER_NICE``, the nice increment the window gives its worker, read from
    that module's source: it imports PySide6, which the device does not have."""
    import ast

    tree = ast.parse((ROOT / "app" / "qt_worker.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "WORKER_NICE" for t in node.targets):
            return int(ast.literal_eval(node.value))
    raise LookupError("WORKER_NICE not found in app/qt_worker.py")


def stage_window(clock: Clock, think_s: float, cpu: bool, repeat: bool) -> dict:
    """A fresh worker as the window starts it, its first sweep (and a repeat)."""
    from app.client import WorkerClient
    from kernels.run.device import cache_dir

    cache = tempfile.mkdtemp(prefix="tilescope-first-sweep-triton-")
    env = dict(os.environ, TRITON_CACHE_DIR=cache)
    out: dict[str, Any] = {"triton_cache": cache, "think_s": think_s,
                           "peaks_file_before": (cache_dir() / "device_peaks_v2.json").exists()}
    t0 = time.perf_counter()
    client = WorkerClient(env=env, nice=_window_nice(), startup_timeout_s=max(5.0, clock.left() - 2),
                          default_timeout_s=max(5.0, clock.left() - 2))
    try:
        if not client.wait_ready(timeout=max(1.0, clock.left() - 6)):
            out["error"] = f"the worker was not ready (state {client.state}): {client.stderr_tail(8)}"
            return out
        out["worker_start_s"] = time.perf_counter() - t0
        hello = client.hello or {}
        out["device"] = (hello.get("backends") or {}).get("device_name")
        out["versions"] = hello.get("versions")
        req = _sweep_request(hello, cpu)
        out["request"] = {"kernel": req.kernel, "base": req.base, "axes": req.axes, "backend": req.backend,
                          "mode": req.mode, "torch_baseline": req.torch_baseline}
        time.sleep(max(0.0, min(think_s, clock.left() - 6)))
        for name in ("first", "repeat") if repeat else ("first",):
            if clock.left() < 3:
                out[name] = {"skipped": f"{clock.left():.1f} s left"}
                break
            points: list[dict] = []
            t_send = time.perf_counter()
            res = client.call("sweep", req, timeout=max(2.0, clock.left() - 1),
                              on_point=lambda p, t=t_send, pts=points: pts.append(_point_row(p, t)))
            out[name] = _result_row(res, time.perf_counter() - t_send, points)
    except Exception as e:  # noqa: BLE001 - a stage that fails is reported, the others run
        out["error"] = f"{type(e).__name__}: {e}"
        out["stderr_tail"] = client.stderr_tail(12)
    finally:
        client.close(timeout=min(3.0, max(0.5, clock.left() - 1)))
    return out


# ---------------------------------------------------------------------------------------------
# a plain triton.autotune script (run in its own process: --side autotune)


def _autotune_configs(cpu: bool) -> list:
    import triton

    axes = CPU_AXES if cpu else GPU_AXES
    return [triton.Config({"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_SIZE_M": 8},
                          num_warps=w, num_stages=3)
            for bm in axes["BLOCK_M"] for bn in axes["BLOCK_N"] for bk in axes["BLOCK_K"]
            for w in axes.get("num_warps", [4])]


def _cpu_bench(fn: Any, quantiles: Any = None, reps: int = 3) -> Any:
    """--cpu-dry's stand-in for do_bench (the interpreter has no CUDA events): wall ms."""
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        ts.append((time.perf_counter() - t0) * 1e3)
    med = statistics.median(ts)
    return [med, min(ts), max(ts)] if quantiles else med


def side_autotune(tilescope_winner: dict | None, cpu: bool, rounds: int) -> dict:
    t0 = time.perf_counter()
    import torch
    import triton
    import triton.testing

    from kernels.catalog.matmul import matmul_kernel

    t_import = time.perf_counter() - t0
    shape = CPU_SHAPE if cpu else GPU_SHAPE
    dev, dt = ("cpu", torch.float32) if cpu else ("cuda", torch.float16)
    m, n, k = shape["M"], shape["N"], shape["K"]
    a = torch.randn((m, k), device=dev, dtype=dt)
    b = torch.randn((k, n), device=dev, dtype=dt)
    c = torch.empty((m, n), device=dev, dtype=dt)
    sync = (lambda: None) if cpu else torch.cuda.synchronize
    sync()
    t_inputs = time.perf_counter() - t0 - t_import

    def launch(kernel: Any, meta: dict | None = None) -> Any:
        grid = lambda cfg: (triton.cdiv(m, cfg["BLOCK_M"]) * triton.cdiv(n, cfg["BLOCK_N"]),)  # noqa: E731
        return kernel[grid](a, b, c, m, n, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                            c.stride(0), c.stride(1), EVEN_K=True, TF32=True, **(meta or {}))

    bench = {"do_bench": _cpu_bench} if cpu else {}
    tuned = triton.autotune(configs=_autotune_configs(cpu), key=["M", "N", "K"], **bench)(triton.jit(matmul_kernel.fn))
    t1 = time.perf_counter()
    launch(tuned)
    sync()
    tuning_s = time.perf_counter() - t1
    ref = a.float() @ b.float()
    max_err = float((c.float() - ref).abs().max())
    best = tuned.best_config
    won = {**best.kwargs, "num_warps": best.num_warps, "num_stages": best.num_stages}
    timings = {json.dumps({**cfg.kwargs, "num_warps": cfg.num_warps}, sort_keys=True):
               (t[0] if isinstance(t, (list, tuple)) else t) for cfg, t in getattr(tuned, "configs_timings", {}).items()}
    out = {"import_s": t_import, "inputs_s": t_inputs, "tuning_s": tuning_s,
           "autotune_bench_time_s": getattr(tuned, "bench_time", None), "winner": won,
           "winner_ms": min((v for v in timings.values() if v == v), default=None), "timings": timings,
           "max_abs_err": max_err, "script_s": time.perf_counter() - t0}
    if tilescope_winner:
        out["interleaved"] = _interleaved(launch, matmul_kernel, tilescope_winner, won, rounds, cpu, sync)
    return out


def _interleaved(launch: Any, kernel: Any, w1: dict, w2: dict, rounds: int, cpu: bool, sync: Any) -> dict:
    """Both winners timed with do_bench, alternating, ``rounds`` rounds: the medians' ratio."""
    import triton.testing

    keys = ("BLOCK_M", "BLOCK_N", "BLOCK_K", "GROUP_SIZE_M", "num_warps", "num_stages")
    metas = [{k: w[k] for k in keys if k in w} for w in (w1, w2)]
    samples: list[list[float]] = [[], []]
    for r in range(rounds):
        for j in (0, 1) if r % 2 == 0 else (1, 0):
            fn = lambda j=j: launch(kernel, metas[j])  # noqa: E731
            got = _cpu_bench(fn, reps=2) if cpu else triton.testing.do_bench(fn, warmup=10, rep=40, return_mode="all")
            samples[j] += got if isinstance(got, list) else [got]
    sync()
    med = [statistics.median(s) for s in samples]
    return {"tilescope_ms": med[0], "autotune_ms": med[1], "ratio": med[0] / med[1], "rounds": rounds,
            "same_config": metas[0] == metas[1]}


def stage_autotune(clock: Clock, winner: dict | None, cpu: bool) -> dict:
    cache = tempfile.mkdtemp(prefix="tilescope-first-sweep-autotune-")
    env = dict(os.environ, TRITON_CACHE_DIR=cache, PYTHONPATH=str(ROOT))
    if cpu:
        env["TRITON_INTERPRET"] = "1"
    result = Path(cache) / "side.json"
    cmd = [sys.executable, __file__, "--side", "autotune", "--result", str(result),
           "--winner", json.dumps(winner or {}), "--rounds", "6"] + (["--cpu-dry"] if cpu else [])
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=max(2.0, clock.left() - 1))
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {time.perf_counter() - t0:.1f} s", "process_s": None}
    wall = time.perf_counter() - t0
    if p.returncode != 0 or not result.exists():
        return {"error": f"exit {p.returncode}: {p.stderr[-1500:]}", "process_s": wall}
    return {**json.loads(result.read_text()), "process_s": wall, "triton_cache": cache}


# ---------------------------------------------------------------------------------------------
# no GPU: what a fresh process pays before its first compile, and the 16 compiles for sm_90


def cpu_profile(workers: int) -> dict:
    """In this (fresh) process: the head start's steps one by one (sympy, Triton's start), the
    dry-run stand-ins, the 4096^3 inputs drawn on the CPU, then the 16 configs compiled for sm_90
    into a fresh Triton cache by ``workers`` forked compile processes (when each landed)."""
    os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp(prefix="tilescope-first-sweep-cpu-")
    out: dict[str, Any] = {}
    t0 = time.perf_counter()
    import torch  # noqa: F401
    import triton  # noqa: F401

    from kernels import engine
    from kernels.run import memory
    from kernels.tune import pipeline, procpool, warm_start

    out["import_s"] = time.perf_counter() - t0
    for name, step in warm_start._steps(gpu=False):
        t = time.perf_counter()
        step()
        out[f"{name}_s"] = time.perf_counter() - t
    spec = engine.get_spec("matmul")
    base = {**spec.defaults(), **GPU_SHAPE}
    cfgs = [spec.config({**base, "BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "num_warps": w})
            for bm in GPU_AXES["BLOCK_M"] for bn in GPU_AXES["BLOCK_N"] for bk in GPU_AXES["BLOCK_K"]
            for w in GPU_AXES["num_warps"]]
    t = time.perf_counter()
    metas = pipeline.metas_of(memory.dry_inputs(spec, cfgs[0]))
    out["dry_stand_ins_s"] = time.perf_counter() - t
    pool = procpool.ProcessCompiler(workers, "fork")
    pool.ready(300)
    t = time.perf_counter()
    futures = [pool.submit(j) for c in cfgs
               for j in procpool.jobs_for_launches(pipeline.launches_of(spec, c, metas, {}), "sm_90")]
    landed: list[float] = []
    for f in futures:
        f.add_done_callback(lambda _f: landed.append(time.perf_counter() - t))
    t_inputs = time.perf_counter()
    gen = torch.Generator().manual_seed(0)
    spec.make_inputs(dict(cfgs[0]), "cpu", gen)
    out["inputs_on_cpu_while_compiling_s"] = time.perf_counter() - t_inputs
    outs = [f.result() for f in futures]
    pool.shutdown()
    landed.sort()
    out.update({"workers": workers, "configs": len(cfgs), "first_landed_s": landed[0], "all_landed_s": landed[-1],
                "mean_compile_s": statistics.mean(o.seconds for o in outs),
                "errors": [o.error.message[:120] for o in outs if o.error] + [o.unavailable for o in outs if o.unavailable]})
    return out


# ---------------------------------------------------------------------------------------------


def _summary(report: dict) -> dict:
    s: dict[str, Any] = {}
    w = report.get("window", {})
    first = w.get("first") or {}
    if "click_to_ranking_s" in first:
        s["first sweep, click → ranking (s)"] = round(first["click_to_ranking_s"], 3)
        s["target ≤ 2.5 s"] = "met" if first["click_to_ranking_s"] <= 2.5 else "missed"
    if "click_to_ranking_s" in (w.get("repeat") or {}):
        s["repeat (warm Triton cache) (s)"] = round(w["repeat"]["click_to_ranking_s"], 3)
    nt = (report.get("window_no_think") or {}).get("first") or {}
    if "click_to_ranking_s" in nt:
        s["first sweep sent at ready (s)"] = round(nt["click_to_ranking_s"], 3)
    at = report.get("autotune") or {}
    if "process_s" in at and at.get("tuning_s") is not None:
        s["triton.autotune script whole (s)"] = round(at["process_s"], 3)
        s["triton.autotune tuning call (s)"] = round(at["tuning_s"], 3)
        if first.get("click_to_ranking_s"):
            s["speed-up vs the whole script"] = round(at["process_s"] / first["click_to_ranking_s"], 2)
            s["speed-up vs the tuning call"] = round(at["tuning_s"] / first["click_to_ranking_s"], 2)
    iv = at.get("interleaved")
    if iv:
        s["winners interleaved: tilescope / autotune"] = round(iv["ratio"], 4)
    return s


def _write(out_dir: Path, report: dict) -> None:
    report["summary"] = _summary(report)
    out_dir.mkdir(parents=True, exist_ok=True)
    tmp = out_dir / "first_sweep_gpu.json.tmp"
    tmp.write_text(json.dumps(report, indent=1, default=str))
    tmp.replace(out_dir / "first_sweep_gpu.json")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.environ.get("OUT", "."))
    ap.add_argument("--budget", type=float, default=43.0, help="hard limit of the whole script (s)")
    ap.add_argument("--think", type=float, default=5.0, help="s between the worker's hello and the sweep")
    ap.add_argument("--cpu-dry", action="store_true", help="no GPU: the same stages on the interpreter")
    ap.add_argument("--cpu-profile", type=int, metavar="WORKERS",
                    help="no GPU: a fresh process's one-time costs and the 16 compiles for sm_90 (JSON to stdout)")
    ap.add_argument("--side", help=argparse.SUPPRESS)
    ap.add_argument("--result", help=argparse.SUPPRESS)
    ap.add_argument("--winner", default="{}", help=argparse.SUPPRESS)
    ap.add_argument("--rounds", type=int, default=6, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.cpu_profile:
        print(json.dumps(cpu_profile(args.cpu_profile), indent=1))
        return 0
    if args.side == "autotune":
        d = side_autotune(json.loads(args.winner) or None, args.cpu_dry, args.rounds)
        Path(args.result).write_text(json.dumps(d, indent=1, default=str))
        return 0
    clock = Clock(args.budget)
    out_dir = Path(args.out)
    report: dict[str, Any] = {"date": time.strftime("%Y-%m-%d %H:%M:%S"), "cpu_dry": args.cpu_dry,
                              "budget_s": args.budget, "cpus": os.cpu_count(), "skipped": {}}
    for stage in ("window", "autotune", "window_no_think"):
        if clock.left() < STAGE_NEEDS_S[stage]:
            report["skipped"][stage] = f"{clock.left():.1f} s left, {STAGE_NEEDS_S[stage]:.0f} s needed"
            continue
        t0 = time.perf_counter()
        if stage == "window":
            report[stage] = stage_window(clock, args.think, args.cpu_dry, repeat=True)
        elif stage == "autotune":
            report[stage] = stage_autotune(clock, (report["window"].get("first") or {}).get("winner"), args.cpu_dry)
        else:
            report[stage] = stage_window(clock, 0.0, args.cpu_dry, repeat=False)
        report[stage]["stage_s"] = time.perf_counter() - t0
        _write(out_dir, report)
        print(f"{stage}: {report[stage]['stage_s']:.1f} s; {json.dumps(_summary(report), ensure_ascii=False)}",
              flush=True)
    _write(out_dir, report)
    print(json.dumps(report["summary"], indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
