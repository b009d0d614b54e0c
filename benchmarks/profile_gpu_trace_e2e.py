"""Where the seconds of a GPU trace go, end to end (issue #24): the CLI as a user runs it, and the
worker's side of the window's trace, phase by phase, cold and warm.

    python3 benchmarks/profile_gpu_trace_e2e.py --out DIR [--top 30]

1. wall clock of fresh processes: ``python3 -c pass``, ``import torch``, ``import torch, triton``,
   ``import kernels.catalog``, and ``python3 -m app trace vector_add --shape N=268435456 --backend
   gpu`` (the command the issue timed at 10.8 s);
2. in this process, what the worker does for the window's trace (``KeptTrace.serve`` of a window
   request: prepare the inputs, compile, record, fold the tiles, derive, reduce to 2^18 cells) for
   vector add 2^26 and matmul 4096³ fp16, cold (fresh Triton cache) then warm, with the pickled
   reply's size and time (what crosses the pipe); the cold one under cProfile;
3. the CLI's 2^28 trace in this process under cProfile (after the cold compile above).

The window results are written to DIR as pickles (for timing the GUI's side on any machine:
``benchmarks/profile_gpu_trace_gui.py``). Needs CUDA (torch, triton, numpy; no Qt).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pickle
import pstats
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="tilescope-e2e-triton-"))
sys.path.insert(0, str(ROOT))

CASES = {"vector_add_2p26": ("vector_add", {"N": 1 << 26, "BLOCK_SIZE": 1024, "dtype": "fp32"}),
         "matmul_4096_fp16": ("matmul", {"M": 4096, "N": 4096, "K": 4096, "dtype": "fp16"})}


def _wall(argv: list[str], env: dict[str, str] | None = None) -> tuple[float, str]:
    t = time.perf_counter()
    out = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    return time.perf_counter() - t, (out.stdout + out.stderr)[-1500:]


def processes() -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT), TRITON_CACHE_DIR=tempfile.mkdtemp(prefix="tilescope-cli-"))
    for what, code in (("python3 -c pass", "pass"), ("import torch", "import torch"),
                       ("import torch, triton", "import torch, triton"),
                       ("import kernels.catalog", "import kernels.catalog"),
                       ("torch.cuda.init()", "import torch; torch.cuda.init(); torch.zeros(1, device='cuda')")):
        s, _ = _wall([sys.executable, "-c", code], env)
        print(f"process: {what:<28} {s:6.2f} s", flush=True)
    for attempt in ("cold cache", "warm cache"):
        s, tail = _wall([sys.executable, "-m", "app", "trace", "vector_add", "--shape", "N=268435456", "--backend",
                         "gpu"], env)
        print(f"process: tilescope trace vector_add N=2^28 --backend gpu ({attempt}): {s:.2f} s", flush=True)
        print("   " + tail.strip().replace("\n", "\n   "), flush=True)


def window_side(out: Path, top: int) -> None:
    import kernels.catalog  # noqa: F401
    from kernels.data.coarse import shipped_bytes, window_request
    from kernels.data.trace import TraceRequest
    from kernels.engine.kept_trace import KeptTrace

    for name, (kernel, values) in CASES.items():
        for attempt in ("cold", "warm"):
            stages: list[tuple[float, str]] = []
            t0 = time.perf_counter()

            def progress(p, t0=t0, stages=stages) -> None:
                stages.append((time.perf_counter() - t0, p.stage))

            req = window_request(TraceRequest(kernel, dict(values), backend="gpu"))
            kept = KeptTrace()
            prof = cProfile.Profile()
            prof.enable()
            res = kept.serve(req, progress, None)
            prof.disable()
            total = time.perf_counter() - t0
            err = getattr(res, "error", None)
            info = getattr(res, "info", None)
            t1 = time.perf_counter()
            blob = pickle.dumps(res, protocol=pickle.HIGHEST_PROTOCOL)
            pk = time.perf_counter() - t1
            facts = ""
            if info is not None:
                facts = (f"compile {getattr(info, 'compile_s', 0):.3f} s, launch {getattr(info, 'launch_s', 0):.3f} s, "
                         f"kernel {getattr(info, 'kernel_ms', 0):.1f} ms, derive {getattr(info, 'derive_s', 0):.3f} s, "
                         f"passes {getattr(info, 'passes', '?')}")
            print(f"window {name} {attempt}: serve {total:.3f} s ({facts}); reply {len(blob) / 1e6:.1f} MB "
                  f"({shipped_bytes(res) / 1e6:.1f} MB of arrays), pickled in {pk:.3f} s"
                  + (f"; ERROR {err}" if err else ""), flush=True)
            for at, stage in stages:
                print(f"    {at:7.3f} s  {stage}", flush=True)
            if attempt == "cold" or top > 0:
                s = io.StringIO()
                pstats.Stats(prof, stream=s).sort_stats("cumulative").print_stats(top if attempt == "cold" else 15)
                print(s.getvalue(), flush=True)
            if attempt == "warm" and not err:
                (out / f"{name}.pkl").write_bytes(blob)
            kept.release()
            del res, blob


def cli_profile(top: int) -> None:
    from app.cli import main

    prof = cProfile.Profile()
    t = time.perf_counter()
    prof.enable()
    code = main(["trace", "vector_add", "--shape", "N=268435456", "--backend", "gpu"])
    prof.disable()
    print(f"cli in-process 2^28: {time.perf_counter() - t:.3f} s (exit {code})", flush=True)
    s = io.StringIO()
    pstats.Stats(prof, stream=s).sort_stats("cumulative").print_stats(top)
    print(s.getvalue(), flush=True)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=".")
    ap.add_argument("--top", type=int, default=30)
    ap.add_argument("--parts", default="processes,window,cli", help="which parts, comma-separated")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    parts = {"processes": processes, "window": lambda: window_side(out, args.top), "cli": lambda: cli_profile(args.top)}
    for part in (parts[p] for p in args.parts.split(",")):
        try:
            part()
        except Exception as e:  # noqa: BLE001 - the other parts still report
            import traceback

            print(f"FAILED: {type(e).__name__}: {e}", flush=True)
            traceback.print_exc()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
