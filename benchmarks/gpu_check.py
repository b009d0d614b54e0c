"""One script for the GPU host: versions, device peaks, the catalog benchmark, correctness in
every dtype, the GPU tests, and a short summary printed last.

    python benchmarks/gpu_check.py OUT_DIR [--no-pytest] [--no-autotune]

``--backend interpreter`` runs the same pipeline on the CPU (small shapes, no peaks): a smoke
test of this script where there is no GPU.

Writes OUT_DIR/bench.json, OUT_DIR/bench.md, OUT_DIR/correctness.json, OUT_DIR/summary.md and
OUT_DIR/pytest_gpu.txt. Needs torch, triton and numpy only (no Qt, no network). Runs in a few
minutes on an H200: compiling a kernel variant takes about 1.4 s there, and the autotune configs
of the catalog are a few dozen variants in all.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _log(msg: str) -> None:
    print(msg, flush=True)


def _fmt(v: float | None, spec: str = ".3g") -> str:
    return "-" if v is None else format(v, spec)


def versions() -> dict:
    import numpy
    import torch
    import triton

    v = {"python": platform.python_version(), "torch": torch.__version__, "triton": triton.__version__,
         "numpy": numpy.__version__, "cuda_runtime": torch.version.cuda,
         "cuda_available": torch.cuda.is_available(), "date": time.strftime("%Y-%m-%d %H:%M:%S")}
    if torch.cuda.is_available():
        p = torch.cuda.get_device_properties(0)
        v.update(device=p.name, capability=f"{p.major}.{p.minor}", sms=p.multi_processor_count,
                 memory_gib=round(p.total_memory / 2**30, 1))
    return v


def bench_markdown(rows: list[dict]) -> str:
    lines = ["| kernel | case | check | Triton ms | torch ms | ratio | rate | % of peak | best autotune config |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        case = " ".join(f"{k}={v}" for k, v in (r.get("case") or {}).items()) or "defaults"
        rate = "-"
        if r.get("metric") == "TFLOP/s" and r.get("tflops") is not None:
            rate = f"{r['tflops']:.1f} TFLOP/s"
        elif r.get("gbps") is not None:
            rate = f"{r['gbps']:.0f} GB/s"
        at = r.get("autotune")
        best = "-"
        if at:
            best = "the case's own" if at.get("best_is_case") else (
                " ".join(f"{k}={v}" for k, v in at["best"].items()) if at.get("best") else "none passed")
            best += f" (of {at['tried']})"
        check = "error: " + r["error"] if r.get("error") else ("pass" if r.get("passed") else "FAIL")
        lines.append(f"| {r['kernel']} | {case} | {check} | {_fmt(r.get('triton_ms'), '.4f')} | "
                     f"{_fmt(r.get('torch_ms'), '.4f')} | {_fmt(r.get('ratio'), '.2f')} | {rate} | "
                     f"{_fmt(r.get('pct_peak'), '.0f')} | {best} |")
    return "\n".join(lines) + "\n"


def correctness(backend: str = "gpu") -> list[dict]:
    from kernels import engine
    from kernels.data.results import RunRequest
    from kernels.run import backends
    from kernels.specs.spec import REGISTRY

    out = []
    for spec in REGISTRY:
        dparam = next((p for p in spec.params if p.kind == "dtype"), None)
        for dt in ("fp32", "fp16", "bf16"):
            if dparam is not None and dt not in (dparam.choices or ()):
                continue
            if backend == "interpreter" and dt == "bf16" and not backends.bf16_probe().ok:
                continue  # refused by the engine, for a reason it states
            t0 = time.perf_counter()
            r = engine.run(RunRequest(spec.name, {"dtype": dt}, backend=backend, bench=False, keep_asm=False,
                                      keep_error_map=False))
            c = r.check
            out.append({"kernel": spec.name, "dtype": dt, "values": r.values,
                        "passed": bool(r.ok), "error": r.error.message if r.error else None,
                        "max_abs_err": c.max_abs_err if c else None, "rel_err": c.rel_err if c else None,
                        "n_mismatch": c.n_mismatch if c else None, "reason": c.reason if c else "",
                        "n_regs": r.compile.n_regs if r.compile else None, "s": time.perf_counter() - t0})
            _log(f"  correctness {spec.name:16s} {dt}: {'pass' if r.ok else 'FAIL'} "
                 f"{(r.error.message if r.error else (c.reason if c else ''))[:100]}")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out_dir")
    ap.add_argument("--no-pytest", action="store_true", help="skip pytest tests/gpu")
    ap.add_argument("--no-autotune", action="store_true", help="time only each case's own config")
    ap.add_argument("--backend", default="gpu", choices=("gpu", "interpreter"),
                    help="interpreter: a CPU smoke test of this script")
    args = ap.parse_args(argv)
    out = Path(args.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("TILESCOPE_CACHE_DIR", str(out / "cache"))
    t_start = time.perf_counter()

    v = versions()
    _log("== versions\n" + json.dumps(v, indent=2))
    if args.backend == "gpu" and not v["cuda_available"]:
        _log("error: no CUDA device: this script checks the GPU path (--backend interpreter for a smoke test)")
        return 2

    from kernels import engine
    from kernels.run import device

    peaks = None
    if args.backend == "gpu":
        _log("== device")
        facts = device.device_facts("gpu")
        _log(json.dumps(facts.as_dict(), indent=2, default=str))
        t0 = time.perf_counter()
        peaks = device.peaks()
        _log(f"peaks: copy {peaks.copy_gbps:.0f} GB/s, bf16 matmul {peaks.matmul_tflops:.0f} TFLOP/s "
             f"({time.perf_counter() - t0:.1f} s)")
    peaks_txt = (f"peaks: copy {peaks.copy_gbps:.0f} GB/s, bf16 matmul {peaks.matmul_tflops:.0f} TFLOP/s"
                 if peaks else "peaks: none (interpreter)")

    _log("== bench --all (Triton vs torch, same run)")
    t0 = time.perf_counter()
    rows = engine.bench_all(args.backend, progress=lambda s, f: _log(f"  [{f:4.0%}] {s}"),
                            autotune=not args.no_autotune)
    bench_s = time.perf_counter() - t0
    (out / "bench.json").write_text(json.dumps({"versions": v, "peaks": peaks.__dict__ if peaks else None, "rows": rows},
                                               indent=2, default=str))
    md = bench_markdown(rows)
    (out / "bench.md").write_text(f"# Tilescope bench --all\n\n{v.get('device')}, torch {v['torch']}, "
                                  f"triton {v['triton']}, {v['date']}\n\n" + md)
    _log(md)
    _log(f"bench took {bench_s:.0f} s")

    _log(f"== correctness on {args.backend} (fp32, fp16, bf16 where taken)")
    t0 = time.perf_counter()
    corr = correctness(args.backend)
    (out / "correctness.json").write_text(json.dumps(corr, indent=2, default=str))
    corr_s = time.perf_counter() - t0

    pytest_rc, pytest_tail = None, "skipped"
    if not args.no_pytest and args.backend == "gpu":
        _log("== pytest tests/gpu")
        t0 = time.perf_counter()
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/gpu"],
                           cwd=ROOT, env=env, capture_output=True, text=True, timeout=400)
        pytest_rc = p.returncode
        (out / "pytest_gpu.txt").write_text(p.stdout + p.stderr)
        pytest_tail = (p.stdout.strip().splitlines() or ["(no output)"])[-1]
        _log(p.stdout[-3000:])
        _log(f"pytest took {time.perf_counter() - t0:.0f} s")

    # -- the summary, last --------------------------------------------------------------------
    lines = [f"# GPU check — {v.get('device')}, torch {v['torch']}, triton {v['triton']}, {v['date']}", "",
             peaks_txt, "",
             "| kernel | bench rows | median ratio vs torch | best rate | correctness (dtypes passed) |",
             "|---|---|---|---|---|"]
    for name in dict.fromkeys(r["kernel"] for r in rows):
        rs = [r for r in rows if r["kernel"] == name]
        ratio = engine.median_ratio(rows, name)
        rates = [(r["tflops"] if r.get("metric") == "TFLOP/s" else r.get("gbps")) for r in rs]
        rates = [x for x in rates if x is not None]
        unit = rs[0].get("metric", "")
        ok = [c["dtype"] for c in corr if c["kernel"] == name and c["passed"]]
        bad = [c["dtype"] for c in corr if c["kernel"] == name and not c["passed"]]
        corr_txt = ",".join(ok) + (f"; FAILED {','.join(bad)}" if bad else "")
        lines.append(f"| {name} | {len(rs)} ({sum(bool(r.get('passed')) for r in rs)} pass) | {_fmt(ratio, '.2f')} | "
                     f"{(_fmt(max(rates), '.1f') + ' ' + unit) if rates else '-'} | {corr_txt} |")
    n_fail = sum(not c["passed"] for c in corr) + sum(bool(r.get("error")) or r.get("passed") is False for r in rows)
    lines += ["", f"bench {bench_s:.0f} s, correctness {corr_s:.0f} s, total {time.perf_counter() - t_start:.0f} s; "
                  f"pytest tests/gpu: {pytest_tail} (rc {pytest_rc}); failures: {n_fail}"]
    ratios = [r["ratio"] for r in rows if r.get("ratio")]
    if ratios:
        lines.append(f"median ratio over all bench rows: {statistics.median(ratios):.2f} (>1: Triton faster)")
    summary = "\n".join(lines) + "\n"
    (out / "summary.md").write_text(summary)
    _log("\n== summary")
    _log(summary)
    return 0 if n_fail == 0 and pytest_rc in (None, 0) else 1


if __name__ == "__main__":
    sys.exit(main())
