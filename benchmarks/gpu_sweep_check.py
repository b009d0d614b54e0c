"""GPU check of "tuning at the speed of the compiler": Tilescope's tune sweep against
``triton.autotune`` over the same configs, and a 5-axis sweep's throughput.

1. matmul 4096^3 fp16, BLOCK_M=128, BLOCK_K=64, GROUP_SIZE_M=8, num_warps=8, the 16 configs
   BLOCK_N in {32,64,128,256} x num_stages in {2,3,4,5}:
   - Tilescope's sweep (tune mode, compile pool of threads, then of processes),
   - the same sweep again on the processes' warm Triton cache (a re-run),
   - ``triton.autotune`` over the same 16 configs (its first call: compiles, benchmarks, runs),
   each in its own process with a fresh ``TRITON_CACHE_DIR`` (except the re-run) and the same
   warm-up before the clock starts (``_warm``: no matmul compiled), then both winners timed
   interleaved in one process: the same winner, or within 2%.
2. A 5-axis matmul sweep (BLOCK_M, BLOCK_N, BLOCK_K, num_warps, num_stages; 108 configs):
   wall time, configs per minute, pruned before compiling.

Prints a markdown table and the JSON (also written to --out). Needs a CUDA GPU.

    python benchmarks/gpu_sweep_check.py [--out DIR] [--skip-5axis] [--rounds N]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SHAPE = {"M": 4096, "N": 4096, "K": 4096, "dtype": "fp16"}
FIXED = {"BLOCK_M": 128, "BLOCK_K": 64, "GROUP_SIZE_M": 8, "num_warps": 8}
AXES16 = {"BLOCK_N": [32, 64, 128, 256], "num_stages": [2, 3, 4, 5]}
AXES5 = {"BLOCK_M": [64, 128, 256], "BLOCK_N": [64, 128, 256], "BLOCK_K": [32, 64], "num_warps": [4, 8],
         "num_stages": [3, 4, 5]}


# ---------------------------------------------------------------------------------------------
# sides (each runs in its own process)


def _versions() -> dict:
    import torch
    import triton

    return {"device": torch.cuda.get_device_name(), "triton": triton.__version__, "torch": torch.__version__,
            "cpus": os.cpu_count()}


def _warm() -> None:
    """The same warm-up in every side's process, as a long-lived worker has had before its first
    sweep: CUDA and cuBLAS, Triton's driver utilities, the device's peaks (measured once and
    cached), and a first Tilescope run (its input planning imports sympy through torch: ~2 s,
    once per process). No matmul kernel is compiled here: its Triton cache stays fresh."""
    from kernels import device, engine
    from kernels.data.results import RunRequest

    device.peaks()
    r = engine.run(RunRequest("vector_add", {"N": 1 << 16}, backend="gpu", torch_baseline=False))
    assert r.ok, r.error


def side_tilescope(pool: str, axes: dict, base: dict) -> dict:
    from kernels import engine
    from kernels.data.results import SweepRequest

    _warm()
    req = SweepRequest("matmul", {**SHAPE, **base}, axes, backend="gpu", mode="tune", torch_baseline=False,
                       compile_pool=pool)
    t0 = time.perf_counter()
    res = engine.sweep(req)
    wall = time.perf_counter() - t0
    points = []
    for p in res.points:
        r = p.result
        points.append({
            **p.values, "ok": r.ok, "pruned": p.pruned or None,
            "error": r.error.message if r.error and not p.pruned else None,
            "ms": r.timing.median_ms if r.timing else None,
            "p20": r.timing.p20_ms if r.timing else None, "p80": r.timing.p80_ms if r.timing else None,
            "remeasured_ms": p.remeasured.median_ms if p.remeasured else None,
            "compile_s": p.compile_s, "shared_est": p.estimate.get("shared_bytes"),
            "shared": r.compile.shared_bytes if r.compile else None,
            "n_regs": r.compile.n_regs if r.compile else None,
        })
    best = res.points[res.best] if res.best is not None else None
    return {
        **_versions(), "pool": pool, "wall_s": wall, "phases": res.phases, "n_configs": len(res.points),
        "n_pruned": res.n_pruned, "n_failed": sum(1 for p in res.points if p.result.error and not p.pruned),
        "winner": ({**best.result.values, **best.values} if best else None),
        "winner_ms": best.timing.median_ms if best else None,
        "verdicts": res.verdicts, "notes": res.notes, "error": res.error.message if res.error else None,
        "points": points,
    }


def _autotune_configs() -> list:
    import triton

    return [triton.Config({"BLOCK_M": FIXED["BLOCK_M"], "BLOCK_N": bn, "BLOCK_K": FIXED["BLOCK_K"],
                           "GROUP_SIZE_M": FIXED["GROUP_SIZE_M"]}, num_warps=FIXED["num_warps"], num_stages=s)
            for bn in AXES16["BLOCK_N"] for s in AXES16["num_stages"]]


def _operands():
    import torch

    g = torch.Generator(device="cuda").manual_seed(0)
    m, n, k = SHAPE["M"], SHAPE["N"], SHAPE["K"]
    a = torch.randn((m, k), device="cuda", dtype=torch.float16, generator=g)
    b = torch.randn((k, n), device="cuda", dtype=torch.float16, generator=g)
    return a, b, torch.empty((m, n), device="cuda", dtype=torch.float16)


def _launch(kernel, a, b, c, meta=None):
    import triton

    m, n, k = SHAPE["M"], SHAPE["N"], SHAPE["K"]
    meta = meta or {}
    grid = lambda cfg: (triton.cdiv(m, cfg["BLOCK_M"]) * triton.cdiv(n, cfg["BLOCK_N"]),)
    return kernel[grid](a, b, c, m, n, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                        c.stride(0), c.stride(1), EVEN_K=True, TF32=True, **meta)


def side_autotune() -> dict:
    import torch
    import triton

    from kernels.catalog.matmul import matmul_kernel

    _warm()
    a, b, c = _operands()
    torch.cuda.synchronize()
    tuned = triton.autotune(configs=_autotune_configs(), key=["M", "N", "K"])(triton.jit(matmul_kernel.fn))
    t0 = time.perf_counter()
    _launch(tuned, a, b, c)
    torch.cuda.synchronize()
    wall = time.perf_counter() - t0
    torch.testing.assert_close(c.float(), a.float() @ b.float(), atol=0.5, rtol=2e-2)
    best = tuned.best_config
    timings = {f"BLOCK_N={cfg.kwargs['BLOCK_N']},num_stages={cfg.num_stages}":
               (t[0] if isinstance(t, (list, tuple)) else t) for cfg, t in getattr(tuned, "configs_timings", {}).items()}
    finite = [v for v in timings.values() if v == v and v != float("inf")]
    return {**_versions(), "wall_s": wall, "winner": {**best.kwargs, "num_warps": best.num_warps,
                                                     "num_stages": best.num_stages},
            "winner_ms": min(finite) if finite else None, "timings": timings,
            "n_failed": sum(1 for v in timings.values() if v != v or v == float("inf"))}


def side_verify(w1: dict, w2: dict, rounds: int) -> dict:
    """Both winners, timed interleaved with do_bench in this one process."""
    import statistics

    import torch
    import triton.testing

    from kernels.catalog.matmul import matmul_kernel

    a, b, c = _operands()
    metas = []
    for w in (w1, w2):
        metas.append({k: w[k] for k in ("BLOCK_M", "BLOCK_N", "BLOCK_K", "GROUP_SIZE_M", "num_warps", "num_stages")})
    samples: list[list[float]] = [[], []]
    for r in range(rounds):
        for j in (0, 1) if r % 2 == 0 else (1, 0):
            samples[j] += triton.testing.do_bench(lambda j=j: _launch(matmul_kernel, a, b, c, metas[j]),
                                                  warmup=25, rep=100, return_mode="all")
    torch.cuda.synchronize()
    med = [statistics.median(s) for s in samples]
    return {**_versions(), "tilescope_ms": med[0], "autotune_ms": med[1], "ratio": med[0] / med[1],
            "rounds": rounds}


# ---------------------------------------------------------------------------------------------
# the parent


def _run_side(args: list[str], cache_dir: str, timeout: int = 1800) -> dict:
    env = dict(os.environ, TRITON_CACHE_DIR=cache_dir, PYTHONPATH=str(ROOT))
    with tempfile.NamedTemporaryFile("r", suffix=".json", delete=False) as f:
        out = f.name
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, __file__, "--side", *args, "--result", out], env=env,
                       capture_output=True, text=True, timeout=timeout)
    if p.returncode != 0:
        return {"error": f"side {args[0]} failed ({p.returncode}): {p.stderr[-2000:]}",
                "process_s": time.perf_counter() - t0}
    d = json.loads(Path(out).read_text())
    d["process_s"] = time.perf_counter() - t0
    d["cache_dir"] = cache_dir
    return d


def _fmt(v, nd=3) -> str:
    return "-" if v is None else (f"{v:.{nd}f}" if isinstance(v, float) else str(v))


def _winner_text(w: dict | None) -> str:
    if not w:
        return "-"
    return f"BLOCK_N={w.get('BLOCK_N')}, num_stages={w.get('num_stages')}" + (
        f", BLOCK_M={w.get('BLOCK_M')}, BLOCK_K={w.get('BLOCK_K')}, num_warps={w.get('num_warps')}"
        if w.get("BLOCK_M") != FIXED["BLOCK_M"] or w.get("num_warps") != FIXED["num_warps"]
        or w.get("BLOCK_K") != FIXED["BLOCK_K"] else "")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(ROOT / "docs" / "benchmarks" / "raw"))
    ap.add_argument("--skip-5axis", action="store_true")
    ap.add_argument("--rounds", type=int, default=10, help="interleaved rounds timing the two winners")
    ap.add_argument("--side", nargs="+", help=argparse.SUPPRESS)
    ap.add_argument("--result", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.side:
        kind, *rest = args.side
        if kind == "tilescope":
            d = side_tilescope(rest[0], AXES16, FIXED)
        elif kind == "tilescope5":
            d = side_tilescope(rest[0], AXES5, {"GROUP_SIZE_M": 8})
        elif kind == "autotune":
            d = side_autotune()
        else:
            w = json.loads(rest[0])
            d = side_verify(w["tilescope"], w["autotune"], args.rounds)
        Path(args.result).write_text(json.dumps(d, indent=1, default=str))
        return 0

    import torch

    if not torch.cuda.is_available():
        print("error: needs a CUDA GPU", file=sys.stderr)
        return 2
    tmp = Path(tempfile.mkdtemp(prefix="tilescope-sweep-check-"))
    runs: dict[str, dict] = {}
    runs["tilescope threads"] = _run_side(["tilescope", "threads"], str(tmp / "cache-threads"))
    runs["tilescope processes"] = _run_side(["tilescope", "processes"], str(tmp / "cache-processes"))
    runs["tilescope re-run (warm cache)"] = _run_side(["tilescope", "auto"], str(tmp / "cache-processes"))
    runs["triton.autotune"] = _run_side(["autotune"], str(tmp / "cache-autotune"))
    ts, at = runs["tilescope processes"], runs["triton.autotune"]
    verify = None
    if ts.get("winner") and at.get("winner"):
        verify = _run_side(["verify", json.dumps({"tilescope": ts["winner"], "autotune": at["winner"]})],
                           str(tmp / "cache-verify"))
    if not args.skip_5axis:
        runs["tilescope 5-axis"] = _run_side(["tilescope5", "auto"], str(tmp / "cache-5axis"))

    lines = ["| run | configs | pruned | failed | wall s | compile s | bench s | re-measure s | winner | winner ms |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for name, d in runs.items():
        ph = d.get("phases", {})
        n = d.get("n_configs", 16 if "5-axis" not in name else None)
        lines.append(f"| {name} | {_fmt(n)} | {_fmt(d.get('n_pruned'))} | {_fmt(d.get('n_failed'))} | "
                     f"{_fmt(d.get('wall_s'), 2)} | {_fmt(ph.get('compile'), 2)} | {_fmt(ph.get('bench'), 2)} | "
                     f"{_fmt(ph.get('remeasure'), 2)} | {_winner_text(d.get('winner'))} | {_fmt(d.get('winner_ms'), 4)} |")
    summary: dict = {}
    for name in ("tilescope threads", "tilescope processes"):
        if runs[name].get("wall_s") and at.get("wall_s"):
            summary[f"speedup {name} vs autotune"] = at["wall_s"] / runs[name]["wall_s"]
    if verify and "ratio" in verify:
        same = {k: ts["winner"].get(k) for k in ("BLOCK_N", "num_stages")} == \
               {k: at["winner"].get(k) for k in ("BLOCK_N", "num_stages")}
        summary["same winner"] = same
        summary["tilescope winner / autotune winner (interleaved medians)"] = verify["ratio"]
        summary["check: same winner or within 2%"] = "PASS" if same or verify["ratio"] <= 1.02 else "FAIL"
    five = runs.get("tilescope 5-axis")
    if five and five.get("wall_s"):
        summary["5-axis configs"] = five.get("n_configs")
        summary["5-axis pruned before compiling"] = five.get("n_pruned")
        summary["5-axis configs per minute (all)"] = 60.0 * five["n_configs"] / five["wall_s"]
        summary["5-axis configs per minute (compiled and run)"] = \
            60.0 * (five["n_configs"] - five["n_pruned"]) / five["wall_s"]
    print("\n".join(lines))
    print()
    for k, v in summary.items():
        print(f"- {k}: {_fmt(v, 3) if isinstance(v, float) else v}")
    for name, d in runs.items():
        for v in d.get("verdicts", []):
            print(f"- {name}: {v}")
        if d.get("error"):
            print(f"- {name}: ERROR {d['error']}")
    report = {"date": time.strftime("%Y-%m-%d %H:%M:%S"), "runs": runs, "verify": verify, "summary": summary}
    text = json.dumps(report, indent=1, default=str)
    print()
    print(text)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "gpu_sweep_check.json").write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
