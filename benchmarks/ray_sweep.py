"""A sweep on one device against the same sweep through Ray, each in a fresh ``tilescope sweep``
process (a local Ray is started per process, so each run pays Ray's and its workers' start once).

    python benchmarks/ray_sweep.py cpu                # interpreter: here vs 2 Ray CPU workers
    python benchmarks/ray_sweep.py gpu --out r.json   # matmul 4096^3 fp16, 96 configs: --gpus 0 vs 0,1

For each setup it runs the CLI with ``--json`` ``--repeat`` times and records the process's wall
time, the engine's phases (``total``, ``bench``, ``remeasure``), the winner and the Ray notes; it
then prints the speed-up of each setup over the first and whether the winners agree (or lie within
each other's p20-p80 spread). Nothing is mocked; the GPU run needs two GPUs and Ray installed
(``pip install -e ".[cluster]"``; on the device, ``../shared/tools/device-wheels``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CPU_SWEEP = ["vector_add", "-p", "BLOCK_SIZE=32,64,128,256,512,1024,2048,4096", "-s", "N=65536", "--dtype", "fp32",
             "--backend", "interpreter", "--no-torch", "--mode", "tune", "--remeasure", "3"]
#: 2 x 3 x 2 x 2 x 4 = 96 configs of matmul 4096^3 fp16
GPU_SWEEP = ["matmul", "-p", "BLOCK_M=64,128", "-p", "BLOCK_N=64,128,256", "-p", "BLOCK_K=32,64",
             "--num-warps", "4,8", "--num-stages", "2,3,4,5", "-s", "M=4096", "-s", "N=4096", "-s", "K=4096",
             "--dtype", "fp16", "--backend", "gpu", "--mode", "tune", "--remeasure", "3"]
SETUPS = {
    "cpu": [("here, one point at a time", []), ("Ray, 2 CPU workers", ["--ray", "local", "--ray-workers", "2"])],
    "gpu": [("one GPU, no Ray", []), ("Ray, GPU 0", ["--gpus", "0"]), ("Ray, GPUs 0,1", ["--gpus", "0,1"])],
}


def run_once(sweep: list[str], extra: list[str]) -> dict:
    cmd = [sys.executable, "-m", "app", "sweep", *sweep, *extra, "--json"]
    t0 = time.perf_counter()
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=1800)
    wall = time.perf_counter() - t0
    if r.returncode != 0:
        return {"cmd": " ".join(cmd), "wall_s": wall, "error": r.stderr[-2000:]}
    d = json.loads(r.stdout)
    best = d["points"][d["best"]] if d.get("best") is not None else None
    timing = (best or {}).get("remeasured") or ((best or {}).get("result") or {}).get("timing") or {}
    return {"cmd": " ".join(cmd), "wall_s": round(wall, 2),
            "phases": {k: round(v, 2) for k, v in d.get("phases", {}).items()},
            "points": len(d["points"]), "ok": sum(1 for p in d["points"] if not p["result"].get("error")),
            "winner": best["values"] if best else None,
            "winner_ms": [timing.get("p20_ms"), timing.get("median_ms"), timing.get("p80_ms")],
            "notes": [n for n in d.get("notes", []) if "Ray" in n]}


def warm_runs(sweep_args: list[str], repeat: int) -> dict:
    """The same sweeps in this one process, each setup ``repeat`` times: after the first, Ray and
    its workers are up (what the window's worker sees from its second Ray sweep on)."""
    sys.path.insert(0, str(ROOT))
    from app.cli import build_parser
    from app.cli.options import get_spec
    from app.cli.sweep import _request
    from kernels.engine import ray_sweep
    from kernels.engine.sweep import sweep

    out = {}
    for name, extra in SETUPS["cpu"]:
        args = build_parser().parse_args(["sweep", *sweep_args, *extra])
        req, _ = _request(args, get_spec(args))
        req_kernel = req.kernel
        totals = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            res = sweep(req)
            totals.append(round(time.perf_counter() - t0, 2))
            assert res.error is None, res.error
            print(f"{name} ({req_kernel}, in one process): {totals[-1]} s, winner {res.points[res.best].values}",
                  flush=True)
        out[name] = totals
    ray_sweep.shutdown(ray_too=True)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("device", choices=tuple(SETUPS))
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--warm", action="store_true", help="cpu: every sweep in this one process (Ray kept up)")
    args = ap.parse_args()
    if args.warm:
        got = warm_runs(CPU_SWEEP, args.repeat)
        if args.out:
            args.out.write_text(json.dumps({"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                                            "loadavg": os.getloadavg(), "warm": got}, indent=1))
        return 0
    sweep = CPU_SWEEP if args.device == "cpu" else GPU_SWEEP
    out = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "nproc": os.cpu_count(),
           "loadavg": os.getloadavg(), "runs": {}}
    for name, extra in SETUPS[args.device]:
        out["runs"][name] = [run_once(sweep, extra) for _ in range(args.repeat)]
        for r in out["runs"][name]:
            print(f"{name}: wall {r['wall_s']} s, phases {r.get('phases')}, winner {r.get('winner')} "
                  f"{r.get('winner_ms')} {r.get('error', '')}", flush=True)
    base = min(r["phases"]["total"] for r in next(iter(out["runs"].values())) if "phases" in r)
    for name, runs in out["runs"].items():
        totals = [r["phases"]["total"] for r in runs if "phases" in r]
        if totals:
            print(f"{name}: best sweep {min(totals):.2f} s, {base / min(totals):.2f}x the first setup")
    out["loadavg_after"] = os.getloadavg()
    if args.out:
        args.out.write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
