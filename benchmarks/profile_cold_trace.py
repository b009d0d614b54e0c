"""Where a cold GPU trace's time goes (issue #12): one launch traced by the GPU recorder with a
fresh Triton cache, under cProfile, after its inputs are built; then the same again warm.

    python3 benchmarks/profile_cold_trace.py [vector_add|matmul] [--top 40]

Needs CUDA (torch, triton, numpy; no Qt).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="tilescope-cold-triton-"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

CASES = {"vector_add": {"N": 1 << 28, "BLOCK_SIZE": 1024, "dtype": "fp32"},
         "matmul": {"M": 8192, "N": 8192, "K": 8192, "dtype": "fp16"}}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("kernel", nargs="?", default="vector_add", choices=sorted(CASES))
    ap.add_argument("--top", type=int, default=40)
    args = ap.parse_args()
    import kernels.catalog  # noqa: F401
    from kernels.gpu_trace.service import gpu_trace_launch
    from kernels.run.backends import resolve
    from kernels.run.prepare import prepare
    from kernels.specs.spec import REGISTRY

    spec = REGISTRY.get(args.kernel)
    for attempt in ("cold", "warm"):
        p = prepare(spec, CASES[args.kernel], resolve("gpu"), 0)
        prof = cProfile.Profile()
        t0 = time.perf_counter()
        prof.enable()
        got = gpu_trace_launch(p.launch, kernel=args.kernel, kernels=tuple(spec.kernels))
        prof.disable()
        i = got.info
        print(f"== {args.kernel} {attempt}: {time.perf_counter() - t0:.3f} s (compile {i.compile_s:.3f}, launch "
              f"{i.launch_s:.3f}, kernel {i.kernel_ms:.1f} ms, derive {i.derive_s:.3f}, passes {i.passes})", flush=True)
        if attempt == "cold":
            s = io.StringIO()
            pstats.Stats(prof, stream=s).sort_stats("cumulative").print_stats(args.top)
            print(s.getvalue(), flush=True)
        del got, p
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
