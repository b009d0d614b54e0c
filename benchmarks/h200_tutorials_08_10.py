"""Issue #23's device check, one call on the H200 (≤ 60 s): tutorial 08 (grouped GEMM, pointer
tables, autotuned) opened and re-run on the GPU since its fix, tutorial 10 re-checked (plain Python
launches nothing below sm_100; Tilescope says the same), and the GPU tests of the pointer-table and
descriptor patterns, never run on a GPU before.

    python3 benchmarks/h200_tutorials_08_10.py [--tutorials .devcarry/tutorials] [--limit 52]

Needs the tutorials carried in ``.devcarry/tutorials`` (git-ignored, Triton's own files). Three
jobs run at once, each in its own process group: the matrix row of 08 (``--budget 20`` for the
capture, which compiles its 6 + 16 autotune configs on a cold cache; 40 s for the row, its
interpreter-vs-GPU compare bounded to what is left), the row of 10 with its plain-Python
run (its Triton launches counted), and ``pytest tests/gpu/test_gpu_tutorial_patterns.py -k
"pointer_table or descriptor"``. Each prints as it goes; at ``--limit`` seconds whatever still
runs is killed and said so. ``$OUT/h200_tutorials_08_10.json`` holds each job's status, wall
time and output tail, and the matrix rows (``$OUT/tutorial-matrix-h200-08.json``, ``-10.json``,
written by the matrix as each row ends). Then, here: ``python benchmarks/tutorial_matrix.py
--merge docs/benchmarks/tutorial-matrix-h200.json OUT/tutorial-matrix-h200-08.json`` (and -10).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _jobs(tutorials: str, out: Path, backend: str) -> dict[str, list[str]]:
    matrix = [sys.executable, "benchmarks/tutorial_matrix.py", tutorials, "--backend", backend]
    return {
        "08": [*matrix, "--budget", "20", "--row-limit", "40", "--only", "08-grouped-gemm",
               "--out", str(out / "tutorial-matrix-h200-08.json")],
        "10": [*matrix, "--plain", "--budget", "15", "--row-limit", "20", "--only", "10-block-scaled",
               "--out", str(out / "tutorial-matrix-h200-10.json")],
        "versions": [sys.executable, "-c", "import torch, triton; print('triton', triton.__version__, 'torch', "
                     "torch.__version__, torch.cuda.get_device_name() if torch.cuda.is_available() else 'no GPU')"],
        "gpu_tests": [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rA",
                      "tests/gpu/test_gpu_tutorial_patterns.py", "-k", "pointer_table or descriptor"],
    }


def _pump(name: str, proc: subprocess.Popen, lines: list[str]) -> None:
    for line in proc.stdout:
        line = line.rstrip("\n")
        lines.append(line)
        print(f"[{name}] {line[:300]}", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tutorials", default=".devcarry/tutorials")
    ap.add_argument("--limit", type=float, default=52.0, help="seconds for everything (the kill and the report after)")
    ap.add_argument("--backend", default="gpu", help="gpu on the device; interpreter to try it on a CPU")
    args = ap.parse_args()
    out = Path(os.environ.get("OUT") or "/tmp/h200_tutorials_08_10")
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    report: dict = {"limit_s": args.limit, "jobs": {}}
    if not Path(args.tutorials, "08-grouped-gemm.py").is_file():
        report["error"] = f"no tutorials in {args.tutorials} (carry .devcarry)"
        print(report["error"], flush=True)
    procs, pumps, lines = {}, {}, {}
    for name, cmd in _jobs(args.tutorials, out, args.backend).items():
        if report.get("error") and name in ("08", "10"):
            continue
        lines[name] = []
        try:
            procs[name] = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                           text=True, start_new_session=True)
        except OSError as e:
            report["jobs"][name] = {"status": "not started", "error": str(e)}
            continue
        pumps[name] = threading.Thread(target=_pump, args=(name, procs[name], lines[name]), daemon=True)
        pumps[name].start()
    ends: dict[str, float] = {}
    while len(ends) < len(procs) and time.monotonic() - t0 < args.limit:
        for name, p in procs.items():
            if name not in ends and p.poll() is not None:
                ends[name] = time.monotonic() - t0
                print(f"== {name}: exit {p.returncode} at {ends[name]:.1f} s", flush=True)
        time.sleep(0.2)
    for name, p in procs.items():
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            print(f"== {name}: killed at the {args.limit:g} s limit", flush=True)
        pumps[name].join(2)
        status = "killed at the limit" if name not in ends else ("ok" if p.returncode == 0 else f"exit {p.returncode}")
        report["jobs"][name] = {"status": status, "wall_s": round(ends.get(name, args.limit), 1),
                                "tail": lines[name][-40:]}
    for name in ("08", "10"):
        f = out / f"tutorial-matrix-h200-{name}.json"
        try:
            report["jobs"].setdefault(name, {})["rows"] = json.loads(f.read_text()) if f.exists() else []
        except (OSError, ValueError) as e:
            report["jobs"][name]["rows_error"] = str(e)
    report["wall_s"] = round(time.monotonic() - t0, 1)
    (out / "h200_tutorials_08_10.json").write_text(json.dumps(report, indent=1))
    print(f"== all done in {report['wall_s']} s; {out / 'h200_tutorials_08_10.json'}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
