"""Check the GPU-free compile facts against the real GPU compile, kernel by kernel.

For every catalog kernel (at its defaults; ``--cases`` adds each spec's bench cases and autotune
configs) this compiles the kernel twice:

- the CPU path, ``kernels.compile.target.compile_for_target(spec, values, target)`` with target =
  this device's own compute capability (no driver involved; registers and spills read from the
  cubin with cuobjdump, occupancy from the per-architecture table);
- the GPU path, ``kernels.engine.run(RunRequest(kernel, values, backend="gpu"))``: the kernel
  launched once, registers and spills from the driver, occupancy from the device's own limits.

The CPU path runs first, in a fresh Triton cache directory, so it compiles from scratch; when the
GPU run then finds that cache entry, the two derived the same specialization (the "PTX" column
compares the PTX texts). Prints a table and exits 1 if registers, spills, shared memory,
num_warps or num_stages differ anywhere (``--strict``: also programs per SM and PTX text).

    python benchmarks/gpu_compile_facts_check.py [--cases] [--strict] [--json OUT.json]

Needs a CUDA GPU, torch and triton (no Qt).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
# a fresh Triton cache, set before triton is imported: the CPU path compiles from scratch
os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="tilescope-facts-"))

FIELDS = ("n_regs", "n_spills", "shared_bytes", "num_warps", "num_stages")


def cases(spec, all_cases: bool) -> list[tuple[str, dict]]:
    out = [("defaults", {})]
    if all_cases:
        out += [(f"bench {i}", dict(c)) for i, c in enumerate(spec.bench_cases)]
        out += [(f"autotune {i}", dict(c)) for i, c in enumerate(spec.autotune_configs)]
    return out


def _pair(r: dict, field: str, width: int = 6) -> str:
    return f"{r.get('cpu_' + field)!s:>{width}}/{r.get('gpu_' + field)!s:<{width}}"


def print_table(rows: list[dict]) -> None:
    head = (f"{'kernel':<15} {'case':<11} {'regs cpu/gpu':^13} {'spills':^9} {'shared cpu/gpu':^17} "
            f"{'warps/st':^8} {'prog/SM cpu/gpu':^15} {'limiter cpu':<13} {'PTX':<4}  result")
    print(head)
    print("-" * len(head))
    for r in rows:
        if r["mismatch"] == ["error"]:
            print(f"{r['kernel']:<15} {r['case']:<11} ERROR  cpu: {r['cpu_error']}  gpu: {r['gpu_error']}")
            continue
        result = "MISMATCH " + ",".join(r["mismatch"]) if r["mismatch"] else "ok"
        print(f"{r['kernel']:<15} {r['case']:<11} {_pair(r, 'n_regs')} {_pair(r, 'n_spills', 4)} "
              f"{_pair(r, 'shared_bytes', 8)} {r['gpu_num_warps']!s:>3}/{r['gpu_num_stages']!s:<4} "
              f"{_pair(r, 'programs_per_sm', 7)} {r['cpu_limiter']!s:<13} "
              f"{'same' if r['same_ptx'] else 'DIFF':<4}  {result}", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", action="store_true", help="also each spec's bench cases and autotune configs")
    ap.add_argument("--strict", action="store_true", help="also fail on programs per SM and PTX text")
    ap.add_argument("--json", type=Path, help="write the rows here")
    ap.add_argument("--kernels", nargs="*", help="only these kernels")
    args = ap.parse_args()

    import torch
    import triton

    if not torch.cuda.is_available():
        print("no CUDA device: this check compares against a real GPU compile", file=sys.stderr)
        return 2
    from kernels import engine
    from kernels.compile.target import compile_for_target
    from kernels.data.results import RunRequest
    from kernels.run import device
    from kernels.specs.spec import REGISTRY

    engine.load_catalog()
    major, minor = torch.cuda.get_device_capability()
    target = f"sm_{major}{minor}"
    name = torch.cuda.get_device_name()
    print(f"{name}, capability {major}.{minor}; Triton {triton.__version__}, torch {torch.__version__}; "
          f"CPU path target {target}; Triton cache {os.environ['TRITON_CACHE_DIR']}", flush=True)

    todo = [(spec, label, values) for spec in REGISTRY if not args.kernels or spec.name in args.kernels
            for label, values in cases(spec, args.cases)]
    # 1. the CPU path, for everything first (a fresh cache: real compiles)
    cpu: list = []
    for spec, _label, values in todo:
        t0 = time.perf_counter()
        try:
            facts, _ = compile_for_target(spec, values, target)
            cpu.append((facts, None, time.perf_counter() - t0))
        except Exception as e:  # noqa: BLE001 - a row of the table
            cpu.append((None, f"{type(e).__name__}: {e}", time.perf_counter() - t0))
    # 2. the GPU path
    rows, failed = [], False
    for (spec, label, values), (cf, cerr, cpu_s) in zip(todo, cpu, strict=True):
        t0 = time.perf_counter()
        res = engine.run(RunRequest(spec.name, values, backend="gpu", bench=False, torch_baseline=False,
                                    keep_asm=True, keep_error_map=False))
        gpu_s = time.perf_counter() - t0
        gf = res.compile
        row = {"kernel": spec.name, "case": label, "values": values, "cpu_s": round(cpu_s, 2),
               "gpu_s": round(gpu_s, 2), "cpu_error": cerr,
               "gpu_error": res.error.message if res.error else (None if gf else "no compile facts")}
        bad: list[str] = []
        if cf is not None and gf is not None:
            for f in FIELDS:
                row[f"cpu_{f}"], row[f"gpu_{f}"] = getattr(cf, f), getattr(gf, f)
                if getattr(cf, f) != getattr(gf, f):
                    bad.append(f)
            row["cpu_programs_per_sm"], row["gpu_programs_per_sm"] = cf.programs_per_sm, gf.programs_per_sm
            row["cpu_limiter"], row["gpu_limiter"] = cf.occupancy_limiter, gf.occupancy_limiter
            row["same_ptx"] = cf.asm.get("ptx") == gf.asm.get("ptx")
            if args.strict and cf.programs_per_sm != gf.programs_per_sm:
                bad.append("programs_per_sm")
            if args.strict and not row["same_ptx"]:
                bad.append("ptx")
        else:
            bad.append("error")
        row["mismatch"] = bad
        failed |= bool(bad)
        rows.append(row)

    print_table(rows)
    limits = device.device_facts("gpu").limits
    print(f"\ndevice limits: {limits}")
    if args.json:
        args.json.write_text(json.dumps({"device": name, "capability": [major, minor],
                                         "triton": triton.__version__, "rows": rows}, indent=2, default=str))
    n_bad = sum(bool(r["mismatch"]) for r in rows)
    print(f"\n{len(rows) - n_bad}/{len(rows)} rows match" + ("" if not n_bad else f"; {n_bad} MISMATCH"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
