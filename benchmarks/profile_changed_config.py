"""Where the worker's time goes on a Run of a config compiled ahead but never launched (issue #16):
the live path's run of matmul / vector add with a changed block size, after the precompile, under
cProfile; a repeat of the same config beside it.

    python3 benchmarks/profile_changed_config.py [--top 25]

Needs CUDA (torch, triton, numpy; no Qt). Prints wall times and the profile's top entries.
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

os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="tilescope-profile-triton-"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

CASES = {
    "vector_add": ({"N": 1 << 26, "dtype": "fp32"}, [{"BLOCK_SIZE": 1024}, {"BLOCK_SIZE": 2048}, {"BLOCK_SIZE": 512}]),
    "matmul": ({"M": 4096, "N": 4096, "K": 4096, "dtype": "fp16"},
               [{"BLOCK_M": 64, "BLOCK_N": 64}, {"BLOCK_M": 128, "BLOCK_N": 64}, {"BLOCK_M": 64, "BLOCK_N": 128}]),
}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--top", type=int, default=25)
    args = ap.parse_args()
    from kernels import engine
    from kernels.data.results import RunRequest
    from kernels.engine.precompile import Precompiler
    from kernels.engine.run import LiveCache

    for name, (base, configs) in CASES.items():
        live = LiveCache()
        pre = Precompiler(lambda r: engine.get_spec(r.kernel), lambda live=live: live.tensors)

        def req(values: dict, name: str = name, base: dict = base) -> RunRequest:
            return RunRequest(name, {**base, **values}, backend="gpu")

        def run(values: dict, profile: cProfile.Profile | None = None, live: LiveCache = live) -> float:
            t0 = time.perf_counter()
            if profile is not None:
                profile.enable()
            res = engine.run(req(values), _cache=live)
            if profile is not None:
                profile.disable()
            assert res.error is None, res.error
            return time.perf_counter() - t0

        first = run(configs[0])
        repeat = run(configs[0])
        pre.submit(req(configs[1]))
        assert pre.idle(300) and pre.last.error == "", pre.last
        prof = cProfile.Profile()
        ahead = run(configs[1], prof)
        again = run(configs[1])
        by_run = run(configs[2])
        print(f"== {name}: first {first:.3f} s, repeat {repeat:.3f} s, changed config compiled ahead "
              f"{ahead:.3f} s (precompile {pre.last.seconds:.2f} s), its repeat {again:.3f} s, "
              f"changed config compiled by the run {by_run:.3f} s", flush=True)
        for key in ("cumulative", "tottime"):
            s = io.StringIO()
            pstats.Stats(prof, stream=s).sort_stats(key).print_stats(args.top)
            print(s.getvalue(), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
