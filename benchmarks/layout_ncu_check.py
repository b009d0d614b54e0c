"""Tilescope's requests and sectors per access against Nsight Compute's counters on the GPU.

Three steps (the first and last need no GPU):

    python benchmarks/layout_ncu_check.py tilescope --json ts.json [--target sm_90]
        every case below, compiled for the target and traced on the CPU interpreter
        (``kernels.layout``): Tilescope's numbers, summed per counter class;
    python benchmarks/layout_ncu_check.py gpu --out DIR
        on the GPU: ncu over a child (``launch``) that launches each case once inside
        cudaProfilerStart/Stop; DIR/ncu.json holds each kernel's counters;
    python benchmarks/layout_ncu_check.py compare ts.json ncu.json [--md OUT.md]
        the table kernel x counter -> Tilescope vs ncu.

Counter classes: ``ld`` (tt.load -> ld.global, and the cp.async copies a pipelined load becomes
on sm_80+: Nsight Compute 2025.3 has no ``op_ldgsts`` counters on sm_90 and counts them under
``op_ld``), ``st`` (tt.store), each as ``l1tex__t_{requests,sectors}_pipe_lsu_mem_global_op_*``;
``shared_ld`` bank conflicts (``l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld``) against
Tilescope's for its shared loads (wavefronts beyond the ideal, times executions).

Cases: every catalog kernel at its defaults (fp16 matmul also with 2 warps, where Triton uses
mma.sync and ldmatrix from a swizzled shared layout, and fp32 without TF32, whose FMA dot reads
an unswizzled shared layout), and bad variants: a column walk (1024 rows, stride 1024
elements), a contiguous copy of 1024 elements per program at 4 warps over 1024 programs, a
matmul whose B is a transposed view (its K dimension strided), and a Gluon kernel that writes a
tile to shared memory by rows and reads it by columns, with and without a swizzle (Gluon kernels
do not run under the interpreter: shared-memory numbers only).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # the Gluon kernel the layout tests use too

import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from fixtures.gluon_kernels import transpose_through_shared  # noqa: E402

METRICS = {
    "ld": ("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"),
    "st": ("l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"),
    "ldgsts": ("l1tex__t_requests_pipe_lsu_mem_global_op_ldgsts.sum",
               "l1tex__t_sectors_pipe_lsu_mem_global_op_ldgsts.sum"),
    "shared_ld": ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
                  "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"),
    "shared_st": ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
                  "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"),
}
_CLASS = {"load": "ld", "store": "st", "async_copy": "ldgsts", "atomic": "atom"}


@triton.jit
def column_walk(x_ptr, out_ptr, stride, ROWS: tl.constexpr):
    rows = tl.arange(0, ROWS)
    v = tl.load(x_ptr + rows * stride)  # one element per row: a column of a row-major matrix
    tl.store(out_ptr + rows, v)


@triton.jit
def contiguous_copy(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs))


def _catalog(name: str, values: dict[str, Any]) -> dict[str, Any]:
    return {"name": name if not values else f"{name} {values}", "spec": name, "values": values}


def _jit_cases(device: str) -> list[dict[str, Any]]:
    import torch

    from kernels.catalog.matmul import matmul_kernel

    g = torch.Generator().manual_seed(0)
    x = torch.randn(1024, 1024, generator=g).to(device)
    col_out = torch.empty(1024, device=device)
    flat = torch.randn(1024 * 1024, generator=g).to(device)
    flat_out = torch.empty_like(flat)
    m = n = k = 512
    a = torch.randn(m, k, generator=g).half().to(device)
    bt = torch.randn(n, k, generator=g).half().to(device).t()  # B as the transpose of an N x K matrix
    c = torch.empty(m, n, device=device, dtype=torch.float16)
    mm_args = (a, bt, c, m, n, k, a.stride(0), a.stride(1), bt.stride(0), bt.stride(1), c.stride(0), c.stride(1))
    mm_kw = dict(BLOCK_M=64, BLOCK_N=64, BLOCK_K=32, GROUP_SIZE_M=8, EVEN_K=True, TF32=True, num_warps=4,
                 num_stages=3)
    t = torch.randn(64, 64, generator=g).to(device)
    t_out = torch.empty_like(t)
    return [
        {"name": "Gluon transpose through shared, no swizzle (64x64 fp32)", "fn": transpose_through_shared,
         "grid": (1,), "args": (t, t_out), "kwargs": dict(N=64, SWIZZLE=False, num_warps=4)},
        {"name": "Gluon transpose through shared, swizzled (64x64 fp32)", "fn": transpose_through_shared,
         "grid": (1,), "args": (t, t_out), "kwargs": dict(N=64, SWIZZLE=True, num_warps=4)},
        {"name": "column walk (1024 rows, stride 1024, fp32, 4 warps)", "fn": column_walk, "grid": (1,),
         "args": (x, col_out, 1024), "kwargs": dict(ROWS=1024, num_warps=4)},
        {"name": "contiguous copy (1024 fp32 per program, 4 warps, 1024 programs)", "fn": contiguous_copy,
         "grid": (1024,), "args": (flat, flat_out), "kwargs": dict(BLOCK=1024, num_warps=4)},
        {"name": "matmul, B transposed (fp16 512^3, 64x64x32)", "fn": matmul_kernel, "grid": (64,),
         "args": mm_args, "kwargs": mm_kw},
    ]


def cases(device: str) -> list[dict[str, Any]]:
    out = [_catalog(n, {}) for n in ("vector_add", "vector_mul", "gelu", "layernorm", "softmax", "softmax_looped",
                                     "matmul", "attention")]
    out += [_catalog("gelu", {"APPROX_TANH": True}),
            _catalog("matmul", {"num_warps": 2}),
            _catalog("matmul", {"dtype": "fp32", "TF32": False})]
    return out + _jit_cases(device)


# ---------------------------------------------------------------------------------------------
# Tilescope's side (CPU)


def tilescope_numbers(target: str) -> list[dict[str, Any]]:
    from kernels.layout.service import layout_jit, layout_spec
    from kernels.sources.lookup import get_spec

    rows = []
    for case in cases("cpu"):
        if "spec" in case:
            res = layout_spec(get_spec(case["spec"]), case["values"], target)
        else:
            res = layout_jit(case["fn"], case["grid"], case["args"], case["kwargs"], target)
        traced = res.n_programs > 0
        # a kernel the interpreter cannot run (Gluon): each shared access runs once per program
        # (these kernels have no loop), and there are no global numbers
        n_programs = 1
        for g in case.get("grid", (1,)):
            n_programs *= int(g)
        sums: dict[str, dict[str, int]] = {}
        per_access = []
        for a in res.accesses:
            if a.coalescing is not None:
                cls = _CLASS.get(a.op, a.op)
                s = sums.setdefault(cls, {"requests": 0, "sectors": 0})
                s["requests"] += a.coalescing.requests
                s["sectors"] += a.coalescing.sectors
                per_access.append({"line": a.line, "op": a.op, "tensor": a.tensor, "requests": a.coalescing.requests,
                                   "sectors": a.coalescing.sectors, "vector_bits": a.vector_bits})
            if a.bank_conflicts is not None:
                cls = "shared_ld" if a.op == "shared_load" else "shared_st"
                s = sums.setdefault(cls, {"conflicts": 0, "wavefronts": 0})
                runs = a.executions if traced else n_programs
                s["conflicts"] += a.bank_conflicts.conflicts * runs
                s["wavefronts"] += a.bank_conflicts.wavefronts * runs
                per_access.append({"line": a.line, "op": a.op, "executions": runs,
                                   "wavefronts_per_execution": a.bank_conflicts.wavefronts,
                                   "ideal_per_execution": a.bank_conflicts.ideal_wavefronts,
                                   "vector_bits": a.bank_conflicts.vector_bits})
        rows.append({"case": case["name"], "kernel": res.kernel, "programs": res.n_programs, "traced": traced,
                     "num_warps": res.num_warps,
                     "triton": res.triton_version, "sums": sums, "accesses": per_access, "notes": res.notes})
        print(f"{case['name']}: {sums}", flush=True)
    return rows


# ---------------------------------------------------------------------------------------------
# the GPU side


def launch_all() -> None:
    """Each case once on the GPU inside cudaProfilerStart/Stop (compiled and warmed outside it)."""
    import torch

    from kernels.run.backends import resolve
    from kernels.run.prepare import prepare
    from kernels.sources.lookup import get_spec

    gpu = resolve("gpu")
    for case in cases("cuda"):
        try:
            _launch_one(case, gpu, prepare, get_spec, torch)
        except Exception as e:  # noqa: BLE001 - the other cases still run; the parent maps by name
            print(f"failed: {case['name']}: {type(e).__name__}: {e}", file=sys.stderr, flush=True)


def _launch_one(case: dict[str, Any], gpu: Any, prepare: Any, get_spec: Any, torch: Any) -> None:
    if "spec" in case:
        p = prepare(get_spec(case["spec"]), dict(case["values"]), gpu, 0)
        run = lambda: p.launch(lambda fn: fn)  # noqa: E731
    else:
        run = lambda: case["fn"][case["grid"]](*case["args"], **case["kwargs"])  # noqa: E731
    run()  # compiled and warmed outside the profiled range
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStart()
    run()
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStop()
    print(f"launched: {case['name']}", file=sys.stderr, flush=True)


def _available(metrics: list[str]) -> list[str]:
    done = subprocess.run(["ncu", "--query-metrics"], capture_output=True, text=True, timeout=120)
    names = set(done.stdout.split())
    return [m for m in metrics if m.rsplit(".", 1)[0] in names]


def gpu(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    wanted = [m for pair in METRICS.values() for m in pair]
    metrics = _available(wanted)
    missing = sorted(set(wanted) - set(metrics))
    log = out / "ncu.csv"
    cmd = ["ncu", "--profile-from-start", "off", "--clock-control", "none", "--csv", "--print-units", "base",
           "--log-file", str(log),
           "--metrics", ",".join(metrics), sys.executable, str(Path(__file__).resolve()), "launch"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=540, env={**os.environ, "PYTHONPATH": str(ROOT)})
    (out / "ncu_stderr.txt").write_text(done.stdout[-20000:] + "\n" + done.stderr[-20000:])
    kernels: list[dict[str, Any]] = []
    rows = [r for r in csv.reader(line for line in log.read_text().splitlines() if line.startswith('"'))]
    header, body = rows[0], rows[1:]
    col = {h: i for i, h in enumerate(header)}
    by_id: dict[str, dict[str, Any]] = {}
    for r in body:
        k = by_id.setdefault(r[col["ID"]], {"kernel": r[col["Kernel Name"]], "metrics": {}})
        value = r[col["Metric Value"]].replace(",", "")
        k["metrics"][r[col["Metric Name"]]] = float(value) if value not in ("", "n/a") else None
    kernels = [by_id[i] for i in sorted(by_id, key=int)]
    # the cases that launched, in order (one profiled kernel each)
    names = [line.removeprefix("launched: ") for line in done.stderr.splitlines() if line.startswith("launched: ")]
    result = {"cases": names, "kernels": kernels, "missing_metrics": missing, "returncode": done.returncode}
    (out / "ncu.json").write_text(json.dumps(result, indent=2))
    print(json.dumps({"kernels": len(kernels), "cases": len(names), "missing": missing, "rc": done.returncode}))


# ---------------------------------------------------------------------------------------------
# the comparison


def compare(ts_path: Path, ncu_path: Path) -> tuple[str, bool]:
    ts = json.loads(ts_path.read_text())
    ncu = json.loads(ncu_path.read_text())
    lines = ["| case | counter | Tilescope requests (conflicts) | ncu requests (conflicts) | Tilescope sectors "
             "(wavefronts) | ncu sectors (wavefronts) | equal |",
             "|---|---|---|---|---|---|---|"]
    all_equal = True
    measured = dict(zip(ncu["cases"], ncu["kernels"], strict=False))
    for row in ts["rows"]:
        k = measured.get(row["case"], {"kernel": "?", "metrics": {}})
        m = k["metrics"]
        for cls in ("ld", "st") if row.get("traced", True) else ():
            req_name, sec_name = METRICS[cls]
            mine = dict(row["sums"].get(cls, {"requests": 0, "sectors": 0}))
            label = cls
            if cls == "ld" and "ldgsts" in row["sums"]:  # ncu 2025.3 on sm_90 counts cp.async under op_ld
                extra = row["sums"]["ldgsts"]
                mine = {k: mine.get(k, 0) + extra[k] for k in ("requests", "sectors")}
                label = "ld + ldgsts" if row["sums"].get("ld") else "ldgsts"
            theirs_r, theirs_s = m.get(req_name), m.get(sec_name)
            if not mine["requests"] and not theirs_r and not theirs_s:
                continue
            eq = theirs_r == mine["requests"] and theirs_s == mine["sectors"]
            all_equal &= bool(eq)
            lines.append(f"| {row['case']} | {label} | {mine['requests']:,} | {_n(theirs_r)} | {mine['sectors']:,} | "
                         f"{_n(theirs_s)} | {'yes' if eq else '**no**'} |")
        for cls in ("shared_ld", "shared_st"):
            conf_name, wave_name = METRICS[cls]
            mine = row["sums"].get(cls)
            theirs_c, theirs_w = m.get(conf_name), m.get(wave_name)
            if mine is None and not theirs_c:
                continue
            mine = mine or {"conflicts": 0, "wavefronts": 0}
            # shared counters also count what Tilescope does not model (reductions, layout
            # conversions through shared memory): reported, not part of the equality verdict
            lines.append(f"| {row['case']} | {cls} (conflicts / wavefronts) | {mine['conflicts']:,} | {_n(theirs_c)} | "
                         f"{mine['wavefronts']:,} | {_n(theirs_w)} | "
                         f"{'yes' if theirs_c == mine['conflicts'] and theirs_w == mine['wavefronts'] else 'no'} |")
    return "\n".join(lines), all_equal


def _n(v: Any) -> str:
    return "-" if v is None else f"{int(v):,}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="step", required=True)
    t = sub.add_parser("tilescope")
    t.add_argument("--json", required=True)
    t.add_argument("--target", default="sm_90")
    g = sub.add_parser("gpu")
    g.add_argument("--out", required=True)
    sub.add_parser("launch")
    c = sub.add_parser("compare")
    c.add_argument("ts")
    c.add_argument("ncu")
    args = ap.parse_args()
    if args.step == "tilescope":
        rows = tilescope_numbers(args.target)
        Path(args.json).write_text(json.dumps({"target": args.target, "triton": triton.__version__, "rows": rows},
                                              indent=2))
    elif args.step == "gpu":
        gpu(Path(args.out))
    elif args.step == "launch":
        launch_all()
    else:
        table, equal = compare(Path(args.ts), Path(args.ncu))
        print(table)
        return 0 if equal else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
