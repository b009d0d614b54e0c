"""Issue #23 on the H200: Gluon 01, 02, 03, 04 and 08 as plain Python and opened in Tilescope.

    python3 benchmarks/h200_gluon_tutorials.py --out $OUT [--tutorials .devcarry/tutorials/gluon]
                                               [--limit 55] [--backend gpu] [--names 01-intro ...]

Two phases, everything bounded by ``--limit`` seconds (what still runs then is killed, and said so):

1. plain Python, the five at once (``tutorial_matrix.plain_row``: ``python FILE`` up to its first
   benchmark, the function it measures called once where nothing was launched before it; its Triton
   launches counted), each stopped after ``--plain-limit`` (20) s. The GPU is shared: this is
   correctness, not timing (about 70 GiB of inputs at once, within the H200's 139 GiB);
2. Tilescope, one process (started during phase 1, so its imports cost nothing after it): each
   tutorial in turn — ``open_script`` on the GPU (``--budget`` s for the capture) and its first launch
   re-run and checked against its golden outputs (``tutorial_matrix._run``), then its captures
   dropped and the GPU's cache emptied, so the next has the memory (the float64 check of Gluon 01's
   2³¹-element output alone takes about 80 GiB). 02 goes first (one plain launch, the quickest),
   then 01 (the largest), 03, 04 and 08 (04 and 08 import 03's kernels).

One JSON, ``$OUT/h200_gluon.json``, rewritten as each result comes: the versions, each plain row,
each open row (launches, why it stopped, notes, first-launch verdict, GPU memory after), the wall
times, and the tail of anything that failed to report. On a CPU (``--backend interpreter``) it runs as far
as it goes: Gluon needs a GPU, so the rows say why; ``--tutorials DIR --names 01-vector-add`` runs
other tutorials through the same path.
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
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.tutorial_matrix import first_line, plain_row  # noqa: E402

NAMES = ("02-layouts", "01-intro", "03-async-copy", "04-tma", "08-warp-specialization")


# -- phase 2, in its own process ------------------------------------------------------------------

def child(paths: list[str], backend: str, budget: float, deadline: float) -> None:
    """Open each path in turn, its first launch checked; one ``@@ROW`` line each."""
    import gc

    import torch
    import triton

    from benchmarks.tutorial_matrix import _limited, _run, open_cell
    from kernels.script import SCRIPTS, open_script
    from kernels.specs.spec import REGISTRY

    gpu = torch.cuda.get_device_name() if torch.cuda.is_available() else "no GPU"
    print("@@VERSIONS " + json.dumps({"python": sys.version.split()[0], "triton": triton.__version__,
                                      "torch": torch.__version__, "device": gpu}), flush=True)
    sys.stdin.readline()  # the parent says go once the plain runs are done (their GPU memory freed)
    for path in paths:
        row: dict = {"tutorial": os.path.basename(path)}
        left = deadline - time.time()
        if left < 4:
            row["open"] = {"verdict": "NOT RUN", "message": f"{left:.0f} s left of the limit"}
            print("@@ROW " + json.dumps(row), flush=True)
            continue
        t0 = time.perf_counter()
        sys.argv = [path]
        try:
            cap, specs = open_script(path, backend, budget_s=min(budget, left - 3))
            row["open"] = open_cell(cap, specs, time.perf_counter() - t0)
        except Exception as e:  # noqa: BLE001 - the row says what failed
            row["open"] = {"verdict": "ERROR", "message": f"{type(e).__name__}: {first_line(str(e))}"}
            specs = []
        print("@@ROW " + json.dumps(row), flush=True)  # the open, before the check (which may be killed)
        if specs:
            left, spec = deadline - time.time(), specs[0]
            try:
                row["first"] = _limited(lambda: _run(spec, {}, backend), max(1.0, min(budget, left - 2)))
            except Exception as e:  # noqa: BLE001 - the stage reports its own failure
                row["first"] = {"verdict": "ERROR", "message": f"{type(e).__name__}: {first_line(str(e))}"}
        for s in specs:
            REGISTRY.remove(s.name)
        SCRIPTS.pop(os.path.realpath(path), None)
        specs = spec = cap = None
        gc.collect()
        if torch.cuda.is_available():
            torch.cuda.empty_cache()
            row["gpu_gib_after"] = round(torch.cuda.memory_allocated() / 2**30, 2)
        row["wall_s"] = round(time.perf_counter() - t0, 1)
        print("@@ROW " + json.dumps(row), flush=True)


# -- the parent -------------------------------------------------------------------------------------

def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path(os.environ.get("OUT") or "/tmp/h200_gluon"))
    ap.add_argument("--tutorials", type=Path, default=ROOT / ".devcarry" / "tutorials" / "gluon")
    ap.add_argument("--names", nargs="*", default=list(NAMES), help="file stems, opened in this order")
    ap.add_argument("--limit", type=float, default=55.0, help="seconds for everything")
    ap.add_argument("--plain-limit", type=float, default=20.0)
    ap.add_argument("--budget", type=float, default=15.0, help="seconds for each capture, and for each check")
    ap.add_argument("--backend", default="gpu")
    ap.add_argument("--child", nargs="*", help=argparse.SUPPRESS)
    ap.add_argument("--deadline", type=float, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child is not None:
        child(args.child, args.backend, args.budget, args.deadline)
        return 0

    t0, deadline = time.monotonic(), time.time() + args.limit
    args.out.mkdir(parents=True, exist_ok=True)
    out = args.out / "h200_gluon.json"
    paths = [(args.tutorials / f"{n}.py").resolve() for n in args.names]
    report: dict = {"limit_s": args.limit, "budget_s": args.budget, "plain_limit_s": args.plain_limit,
                    "tutorials": [p.name for p in paths], "plain": {}, "open": {}}
    lock = threading.Lock()

    def save(section: str = "", name: str = "", row: dict | None = None, **what: object) -> None:
        with lock:  # the reader thread and this one both write rows
            if section:
                report[section][name] = row
            report.update(what)
            report["wall_s"] = round(time.monotonic() - t0, 1)
            out.write_text(json.dumps(report, indent=1))

    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        save(error=f"not found: {', '.join(missing)} (carry .devcarry)")
        print(report["error"], flush=True)
        return 1
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = subprocess.Popen([sys.executable, __file__, "--backend", args.backend, "--budget", str(args.budget),
                             "--deadline", str(deadline - 2), "--child", *map(str, paths)], cwd=ROOT, env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    tail: list[str] = []

    def pump() -> None:
        for line in proc.stdout:
            line = line.rstrip("\n")
            if line.startswith("@@VERSIONS "):
                save(versions=json.loads(line[11:]))
            elif line.startswith("@@ROW "):
                row = json.loads(line[6:])
                save("open", row["tutorial"], row)
            else:
                tail.append(line)
                del tail[:-40]
            print(f"[open] {line[:300]}", flush=True)

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    with ThreadPoolExecutor(len(paths)) as pool:  # phase 1: the plain runs, all at once
        jobs = {pool.submit(plain_row, p, min(args.plain_limit, args.limit - 10)): p for p in paths}
        for done in as_completed(jobs):
            save("plain", jobs[done].name, done.result())
            print(f"[plain] {jobs[done].name}: {json.dumps(done.result())[:300]}", flush=True)
    save(plain_done_s=round(time.monotonic() - t0, 1))
    try:
        proc.stdin.write("go\n")
        proc.stdin.flush()
    except OSError as e:
        save(child_error=str(e))
    try:
        proc.wait(timeout=max(1.0, deadline - time.time()))
        status = f"exit {proc.returncode}"
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        status = f"killed at the {args.limit:g} s limit"
    reader.join(2)
    save(open_status=status, open_tail=tail if proc.returncode else tail[-5:])
    print(f"== done in {report['wall_s']} s ({status}); {out}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
