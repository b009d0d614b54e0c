"""A sweep on one device against the same sweep through Ray, each in a fresh ``tilescope sweep``
process (a local Ray is started per process, so each run pays Ray's and its workers' start once).

    python benchmarks/ray_sweep.py cpu                # interpreter: here vs 2 Ray CPU workers
    python benchmarks/ray_sweep.py gpu --out r.json   # matmul 4096^3 fp16, 96 configs: --gpus 0 vs 0,1
    python benchmarks/ray_sweep.py gpu --warm --out r.json   # in one process: no Ray, Ray 2 and 1 workers

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


#: in one process (--warm): (name, extra arguments, sweeps); Ray stays up between setups, the
#: actors are started anew when the worker count changes; Triton's cache is shared, so every Ray
#: setup after the first one-device sweep finds its configs compiled
WARM_SETUPS = {
    "cpu": [("here, one point at a time", [], 3), ("Ray, 2 CPU workers", ["--ray", "local", "--ray-workers", "2"], 3)],
    "gpu": [("one GPU, no Ray", [], 1), ("Ray, 2 GPU workers", ["--gpus", "all", "--ray-workers", "2"], 2),
            ("Ray, 1 GPU worker", ["--gpus", "all", "--ray-workers", "1"], 2)],
}


def warm_runs(device: str, sweep_args: list[str], out_path: Path | None) -> dict:
    """The sweeps of ``WARM_SETUPS[device]`` in this one process (what the window's worker sees
    from its second Ray sweep on); the figures are written after every sweep."""
    sys.path.insert(0, str(ROOT))
    from app.cli import build_parser
    from app.cli.options import get_spec
    from app.cli.sweep import _request
    from kernels.engine import ray_sweep
    from kernels.engine.sweep import sweep

    out: dict = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "nproc": os.cpu_count(),
                 "sweep": " ".join(sweep_args), "runs": {}}
    for name, extra, repeat in WARM_SETUPS[device]:
        args = build_parser().parse_args(["sweep", *sweep_args, *extra])
        req, _ = _request(args, get_spec(args))
        for _ in range(repeat):
            t0 = time.perf_counter()
            res = sweep(req)
            wall = round(time.perf_counter() - t0, 2)
            order = sorted(res.ranking, key=lambda e: e.rank)[:3]
            row = {"wall_s": wall, "phases": {k: round(v, 2) for k, v in res.phases.items()},
                   "error": res.error.message if res.error else None,
                   "ok": sum(1 for p in res.points if p.result.ok), "points": len(res.points),
                   "top3": [(res.points[e.index].values, round(e.median_ms, 4), round(e.p20_ms, 4), round(e.p80_ms, 4))
                            for e in order], "notes": [n for n in res.notes if "Ray" in n]}
            out["runs"].setdefault(name, []).append(row)
            print(f"{name}: {wall} s, {row['ok']}/{row['points']} ok, top {row['top3'][:1]} {row['error'] or ''}",
                  flush=True)
            out["loadavg"] = os.getloadavg()
            if out_path is not None:
                out_path.write_text(json.dumps(out, indent=1, default=str))
    ray_sweep.shutdown(ray_too=True)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("device", choices=tuple(SETUPS))
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--warm", action="store_true", help="every sweep in this one process (Ray kept up): WARM_SETUPS")
    args = ap.parse_args()
    sweep = CPU_SWEEP if args.device == "cpu" else GPU_SWEEP
    if args.warm:
        warm_runs(args.device, sweep, args.out)
        return 0
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
