"""How fast the tracer records, and how much memory a large trace takes.

    PYTHONPATH=. .venv/bin/python benchmarks/bench_trace.py            # all cases
    PYTHONPATH=. .venv/bin/python benchmarks/bench_trace.py --quick    # smaller grids
    PYTHONPATH=. .venv/bin/python benchmarks/bench_trace.py --case vadd_16k --no-plain

Each case runs in a fresh child process (so RSS figures are that case's alone) and prints:

- plain: the same launch on the plain interpreter (the engine's interpreter backend), wall
  clock, run after the traces so that its memory does not hide theirs — the reference the
  tracer's overhead is judged against (the tracer skips some dead work of the interpreter and
  records parts of the grid in forked processes, so it usually comes out faster);
- trace: ``trace_spec`` end to end (record + derived maps), with its record / derive split;
  ``--repeat N`` traces N times and gives best and median (this box is shared: load varies);
- RSS: growth of the resident set while the trace is alive (current minus before, and the peak
  minus before), measured with psutil / getrusage.

Targets (from the tracer's issue): vadd 2^20/BLOCK 1024 <= 1.0 s; vadd 2^21/BLOCK 128 (16384
programs) <= 8 s and < 300 MB; matmul 512^3 fp32 32x32x32 (256 programs) <= 6 s.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

CASES = {
    "vadd_1k": dict(kernel="vector_add", values={"N": 1 << 20, "BLOCK_SIZE": 1024, "dtype": "fp32"},
                    target_s=1.0, programs=1024),
    "vadd_16k": dict(kernel="vector_add", values={"N": 1 << 21, "BLOCK_SIZE": 128, "dtype": "fp32"},
                     target_s=8.0, target_mb=300, programs=16384),
    "matmul_512": dict(kernel="matmul", values={"M": 512, "N": 512, "K": 512, "BLOCK_M": 32, "BLOCK_N": 32,
                                                "BLOCK_K": 32, "GROUP_SIZE_M": 8, "dtype": "fp32"},
                       target_s=6.0, programs=256),
}
QUICK = {
    "vadd_1k": {"N": 1 << 18, "BLOCK_SIZE": 1024},
    "vadd_16k": {"N": 1 << 19, "BLOCK_SIZE": 128},
    "matmul_512": {"M": 256, "N": 256, "K": 256},
}


def _rss_mb() -> float:
    import psutil

    return psutil.Process().memory_info().rss / 2**20


def _peak_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def run_case(name: str, quick: bool, plain: bool, workers: int | None = None, repeat: int = 1) -> dict:
    """Runs in the child: one case, returns its figures."""
    import torch

    import kernels.catalog  # noqa: F401
    from kernels.run.backends import Backend
    from kernels.specs.spec import REGISTRY
    from kernels.trace import trace_spec

    case = CASES[name]
    values = dict(case["values"], **(QUICK[name] if quick else {}))
    spec = REGISTRY.get(case["kernel"])
    out = {"case": name, "kernel": case["kernel"], "values": values}
    # a tiny trace first: imports and the first rewrite are not what we measure
    trace_spec(spec, dict(values, **({"N": 1024} if "N" in values and "M" not in values else
                                    {"M": 32, "N": 32, "K": 32})))
    rss0, peak0 = _rss_mb(), _peak_mb()
    t0 = time.perf_counter()
    tr = trace_spec(spec, values, workers=workers)
    out["trace_s"] = time.perf_counter() - t0
    out["record_s"] = tr.record_s
    out["derive_s"] = tr.derive_s
    out["rss_growth_mb"] = _rss_mb() - rss0  # memory: the first trace alone
    out["peak_growth_mb"] = max(0.0, _peak_mb() - max(peak0, rss0))
    import resource

    # forked recorders: the largest RSS of one (it counts the pages shared with this process)
    out["child_peak_mb"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    runs = [out["trace_s"]]
    for _ in range(repeat - 1):  # more runs for the timing only (the memory is the first run's)
        del tr
        t1 = time.perf_counter()
        tr = trace_spec(spec, values, workers=workers)
        runs.append(time.perf_counter() - t1)
    out["runs_s"] = runs
    out["programs"] = int(tr.programs.size)
    out["events"] = len(tr.events)
    out["lanes"] = int(tr.events.elements.size)
    out["workers"] = tr.workers
    import pickle

    out["pickle_mb"] = len(pickle.dumps(tr, protocol=5)) / 2**20
    del tr
    # the plain interpreter last, so that its memory does not hide the trace's peak
    if plain:
        cfg = spec.config(values)
        t = spec.make_inputs(cfg, "cpu", torch.Generator().manual_seed(0))
        t0 = time.perf_counter()
        try:
            with Backend("interpreter", "cpu", "").activate(spec.kernels) as K:
                spec.run_launch(K, t, cfg)
            out["plain_s"] = time.perf_counter() - t0
        except Exception as e:  # noqa: BLE001 - the baseline's own failure is reported, not fatal
            out["plain_error"] = f"{type(e).__name__}: {str(e).splitlines()[0][:120]}"
        del t
    import triton

    out["triton"] = triton.__version__
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--case", choices=sorted(CASES), action="append", help="run only these cases")
    ap.add_argument("--quick", action="store_true", help="smaller grids (a smoke test)")
    ap.add_argument("--no-plain", action="store_true", help="skip the plain-interpreter baseline")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--json", action="store_true", help="print the figures as JSON lines")
    ap.add_argument("--workers", type=int, help="recording processes (default: auto)")
    ap.add_argument("--repeat", type=int, default=1, help="trace each case this many times (best and median)")
    args = ap.parse_args()
    if args.child:
        print(json.dumps(run_case(args.child, args.quick, not args.no_plain, args.workers, args.repeat)))
        return 0
    names = args.case or list(CASES)
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPU(s), load average "
          f"{' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    rows = []
    for name in names:
        cmd = [sys.executable, __file__, "--child", name] + (["--quick"] if args.quick else []) + \
              (["--no-plain"] if args.no_plain else []) + (["--workers", str(args.workers)] if args.workers else []) + \
            ["--repeat", str(args.repeat)]
        res = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ))
        if res.returncode != 0:
            print(f"{name}: FAILED\n{res.stderr[-2000:]}")
            return 1
        r = json.loads(res.stdout.strip().splitlines()[-1])
        rows.append(r)
        if args.json:
            print(json.dumps(r))
            continue
        case = CASES[name]
        runs = sorted(r["runs_s"])
        best, median = runs[0], runs[len(runs) // 2]
        verdict = "" if args.quick else (" [ok]" if best <= case["target_s"] else
                                        f" [MISSED target {case['target_s']:.1f} s]")
        plain = f"plain {r['plain_s']:.2f} s, " if "plain_s" in r else \
            (f"plain FAILED ({r['plain_error']}), " if "plain_error" in r else "")
        if len(runs) > 1:
            plain += f"{len(runs)} traces: best {best:.2f} s, median {median:.2f} s; first "
        print(f"{name}: {r['programs']} programs, {r['events']} accesses, {r['lanes']} lanes (Triton {r['triton']}, "
              f"{r['workers']} recording process(es))")
        print(f"  {plain}trace {r['trace_s']:.2f} s (record {r['record_s']:.2f} + maps {r['derive_s']:.2f})"
              f"{verdict}")
        mem_verdict = ""
        if "target_mb" in case and not args.quick:
            mem_verdict = " [ok]" if r["peak_growth_mb"] < case["target_mb"] else \
                f" [MISSED target {case['target_mb']} MB]"
        child = f"; each forked recorder peaked at {r['child_peak_mb']:.0f} MB RSS" if r["workers"] > 1 else ""
        print(f"  RSS growth {r['rss_growth_mb']:.0f} MB (peak {r['peak_growth_mb']:.0f} MB){mem_verdict}; "
              f"pickled trace {r['pickle_mb']:.1f} MB{child}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
