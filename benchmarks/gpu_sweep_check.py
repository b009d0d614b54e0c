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

Each side reports its phases: plan, compile wall (first compile submitted to last compile done,
overlapping the benchmarks), benchmark, re-measure; for ``triton.autotune`` the time inside
``triton.compile`` (serial, in line), its benchmarking and the final run. The processes side
starts its compile pool before the clock (``procpool.prestart``, as a worker does at start-up;
the start time is reported), and each side counts the matmul entries in its Triton cache (one per
config compiled: a launch that missed the pool's binary would add a second).

Prints a markdown table and the JSON (also written to --out). Needs a CUDA GPU, except:

    python benchmarks/gpu_sweep_check.py [--out DIR] [--skip-5axis] [--rounds N]
    python benchmarks/gpu_sweep_check.py --cpu-compile [--workers 1 2]   # no GPU: compile throughput
    python benchmarks/gpu_sweep_check.py --dry                           # no GPU: the configs, imports
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
    cached), and a first Tilescope run (its input planning imports sympy through torch, once per
    process: docs/benchmarks/gpu-trace.md says how long). No matmul kernel is compiled here: its Triton cache stays fresh."""
    from kernels import engine
    from kernels.data.results import RunRequest
    from kernels.run import device

    device.peaks()
    r = engine.run(RunRequest("vector_add", {"N": 1 << 16}, backend="gpu", torch_baseline=False))
    assert r.ok, r.error


def _cache_entries(name: str = "matmul_kernel") -> int:
    """Kernel entries named ``name`` in this process's Triton cache."""
    from triton import knobs

    return sum(1 for _ in Path(knobs.cache.dir).glob(f"*/{name}.json"))


def side_tilescope(pool: str, axes: dict, base: dict) -> dict:
    from kernels import engine
    from kernels.data.results import SweepRequest
    from kernels.tune import procpool

    pool_start = None
    if pool == "processes":  # as a worker does at start-up, before its first sweep
        t0 = time.perf_counter()
        procpool.prestart().ready(120)
        pool_start = time.perf_counter() - t0
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
        "pool_start_s": pool_start, "pool_method": getattr(procpool.running(), "method", None),
        "cache_entries": _cache_entries(), "points": points,
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
    compile_s = _time_compiles()
    t0 = time.perf_counter()
    _launch(tuned, a, b, c)
    torch.cuda.synchronize()
    wall = time.perf_counter() - t0
    bench_s = getattr(tuned, "bench_time", None)  # the autotuner's own clock: compiles and benchmarks
    phases = {"compile": compile_s[0], "bench": bench_s - compile_s[0] if bench_s is not None else None,
              "final run": wall - bench_s if bench_s is not None else None, "total": wall}
    torch.testing.assert_close(c.float(), a.float() @ b.float(), atol=0.5, rtol=2e-2)
    best = tuned.best_config
    timings = {f"BLOCK_N={cfg.kwargs['BLOCK_N']},num_stages={cfg.num_stages}":
               (t[0] if isinstance(t, (list, tuple)) else t) for cfg, t in getattr(tuned, "configs_timings", {}).items()}
    finite = [v for v in timings.values() if v == v and v != float("inf")]
    return {**_versions(), "wall_s": wall, "phases": phases, "n_compiles": compile_s[1],
            "cache_entries": _cache_entries(), "winner": {**best.kwargs, "num_warps": best.num_warps,
                                                     "num_stages": best.num_stages},
            "winner_ms": min(finite) if finite else None, "timings": timings,
            "n_failed": sum(1 for v in timings.values() if v != v or v == float("inf"))}


def _time_compiles() -> list:
    """[seconds inside triton.compile, calls], filled as the JIT compiles (it imports
    ``triton.compiler.compile`` when it first builds its binder, so wrapping it there counts)."""
    import triton.compiler

    total = [0.0, 0]
    real = triton.compiler.compile

    def timed(*args, **kwargs):
        t0 = time.perf_counter()
        try:
            return real(*args, **kwargs)
        finally:
            total[0] += time.perf_counter() - t0
            total[1] += 1
    triton.compiler.compile = timed
    return total


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
# without a GPU: compile throughput for sm_90, and a dry run


def _jobs16() -> list:
    """The 16 configs' compile jobs for sm_90, derived as the JIT derives them (meta stand-ins)."""
    import torch

    from kernels import engine
    from kernels.tune import pipeline, procpool

    spec = engine.get_spec("matmul")
    cfgs = [spec.config({**SHAPE, **FIXED, "BLOCK_N": bn, "num_stages": st})
            for bn in AXES16["BLOCK_N"] for st in AXES16["num_stages"]]
    with torch.device("meta"):
        metas = pipeline.metas_of(spec.make_inputs(cfgs[0], "meta", torch.Generator().manual_seed(0)))
    return [j for c in cfgs for j in procpool.jobs_for_launches(pipeline.launches_of(spec, c, metas, {}), "sm_90")]


def dry() -> dict:
    """Imports, the 16 configs and their compile jobs, the pool kinds: no GPU, nothing compiled."""
    from kernels import engine
    from kernels.tune import pipeline

    jobs = _jobs16()
    spec = engine.get_spec("matmul")
    return {"jobs": len(jobs), "kernel": f"{jobs[0].module}.{jobs[0].qualname}", "target": jobs[0].target,
            "signature": jobs[0].signature, "pool auto": pipeline.pool_kind(spec, "auto", None),
            "pool processes": pipeline.pool_kind(spec, "processes", None)}


def cpu_compile(workers: list[int], methods: list[str] | None = None) -> dict:
    """Wall time to compile the 16 configs for sm_90 from a fresh TRITON_CACHE_DIR: in a thread
    pool (``triton.compile`` in this process) and in pre-started process pools (fork,
    forkserver), 1 and 2 workers; each pool is started (and, for threads, this process warmed by
    one compile) before the clock. Then the JIT's own compile-or-load for the GPU target
    (``compile_target.compile_jit_for_target``) is checked to find every binary in the cache."""
    from concurrent.futures import ThreadPoolExecutor, wait

    from kernels.tune import procpool

    jobs = _jobs16()
    # warm this process's compiler once (LLVM, ptxas version): the threads start warm too
    warm_dir = tempfile.mkdtemp(prefix="tilescope-warm-")
    procpool.compile_job(_with_cache(jobs[0], warm_dir))
    rows = []
    for n in workers:
        for kind in ["threads", *(methods or ["fork", "forkserver"])]:
            cache = tempfile.mkdtemp(prefix=f"tilescope-{kind}{n}-")
            todo = [_with_cache(j, cache) for j in jobs]
            start_s = None
            if kind == "threads":
                ex = ThreadPoolExecutor(n)
                submit = lambda j, ex=ex: ex.submit(procpool.compile_job, j)  # noqa: E731
            else:
                t0 = time.perf_counter()
                pool = procpool.ProcessCompiler(n, kind)
                pool.ready(300)
                start_s = time.perf_counter() - t0
                warm = [pool.submit(_with_cache(jobs[0], warm_dir)) for _ in range(n)]  # each worker warm
                wait(warm)
                submit = pool.submit
            t0 = time.perf_counter()
            futures = [submit(j) for j in todo]
            wait(futures)
            wall = time.perf_counter() - t0
            outs = [f.result() for f in futures]
            (ex.shutdown() if kind == "threads" else pool.shutdown())
            rows.append({"pool": kind, "workers": n, "wall_s": wall, "configs_per_s": len(jobs) / wall,
                         "mean_compile_s": sum(o.seconds for o in outs) / len(outs), "start_s": start_s,
                         "errors": sum(1 for o in outs if o.error or o.unavailable),
                         "jit_finds_all_in_cache": _jit_hits(cache)})
            print(json.dumps(rows[-1]), flush=True)
    return {"cpus": os.cpu_count(), "configs": len(jobs), "rows": rows}


def _with_cache(job, cache_dir: str):
    import dataclasses

    return dataclasses.replace(job, env={**job.env, "TRITON_CACHE_DIR": cache_dir})


def _jit_hits(cache_dir: str) -> bool:
    """Whether the JIT's derivation for the GPU target loads every config from ``cache_dir``
    (nothing new written there)."""
    import torch

    from kernels import engine
    from kernels.compile import target as compile_target
    from kernels.tune import pipeline

    spec = engine.get_spec("matmul")
    before = sorted(Path(cache_dir).iterdir())
    old = os.environ.get("TRITON_CACHE_DIR")
    os.environ["TRITON_CACHE_DIR"] = cache_dir
    try:
        for bn in AXES16["BLOCK_N"]:
            for st in AXES16["num_stages"]:
                cfg = spec.config({**SHAPE, **FIXED, "BLOCK_N": bn, "num_stages": st})
                with torch.device("meta"):
                    metas = pipeline.metas_of(spec.make_inputs(cfg, "meta", torch.Generator().manual_seed(0)))
                for fn, a, kw in pipeline.launches_of(spec, cfg, metas, {}):
                    compile_target.compile_jit_for_target(fn, a, kw, "sm_90", keep_asm=False)
    finally:
        if old is None:
            os.environ.pop("TRITON_CACHE_DIR", None)
        else:
            os.environ["TRITON_CACHE_DIR"] = old
    return sorted(Path(cache_dir).iterdir()) == before


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
    ap.add_argument("--cpu-compile", action="store_true",
                    help="no GPU: compile the 16 configs for sm_90 in threads and in the process pool")
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2], help="pool sizes for --cpu-compile")
    ap.add_argument("--method", default=None, help="fork or forkserver for --cpu-compile (default: both)")
    ap.add_argument("--dry", action="store_true", help="no GPU: imports, configs and compile jobs only")
    args = ap.parse_args()
    if args.cpu_compile or args.dry:
        d = dry() if args.dry else cpu_compile(args.workers, [args.method] if args.method else None)
        print(json.dumps(d, indent=1, default=str))
        return 0
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

    lines = ["| run | configs | pruned | failed | wall s | plan s | compile s | bench s | re-measure s | "
             "final run s | pool start s | cache entries | winner | winner ms |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, d in runs.items():
        ph = d.get("phases") or {}
        n = d.get("n_configs", 16 if "5-axis" not in name else None)
        lines.append(f"| {name} | {_fmt(n)} | {_fmt(d.get('n_pruned'))} | {_fmt(d.get('n_failed'))} | "
                     f"{_fmt(d.get('wall_s'), 2)} | {_fmt(ph.get('plan'), 3)} | {_fmt(ph.get('compile'), 2)} | "
                     f"{_fmt(ph.get('bench'), 2)} | {_fmt(ph.get('remeasure'), 2)} | {_fmt(ph.get('final run'), 3)} | "
                     f"{_fmt(d.get('pool_start_s'), 2)} | {_fmt(d.get('cache_entries'))} | "
                     f"{_winner_text(d.get('winner'))} | {_fmt(d.get('winner_ms'), 4)} |")
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
