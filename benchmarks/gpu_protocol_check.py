"""The worker pipe on a GPU host (no Qt): large replies cross intact and decode without copies.

    python3 benchmarks/gpu_protocol_check.py

Through ``app.client.WorkerClient`` (the window's own client) with the worker niced as the
window starts it: a GPU run of vector add on 2**28 elements (its error map downsampled to
16 M elements, a 64 MB reply), a 4096-program trace (19 MB), and a 3-point GPU sweep. For each,
the reply's size, the time ``decode`` took in this process (the arrays are views of the received
frame), and what came back.
"""

from __future__ import annotations

import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import numpy as np  # noqa: E402

import app.protocol as protocol  # noqa: E402
from app.client import WorkerClient  # noqa: E402
from kernels.data.results import RunRequest, SweepRequest  # noqa: E402
from kernels.data.trace import TraceRequest  # noqa: E402

decodes: list[tuple[int, float]] = []
_decode = protocol.decode


def _timed_decode(body):  # noqa: ANN001
    t = time.perf_counter()
    msg = _decode(body)
    decodes.append((memoryview(body).nbytes, time.perf_counter() - t))
    return msg


protocol.decode = _timed_decode  # read_frame looks it up at call time


def biggest_since(k: int) -> str:
    if len(decodes) <= k:
        return "no reply decoded"
    n, s = max(decodes[k:])
    return f"largest reply {n / 1e6:.1f} MB decoded in {s * 1000:.2f} ms"


def main() -> int:
    # --cpu: the same steps small, on the interpreter (to try the script on a machine without a GPU)
    cpu = "--cpu" in sys.argv[1:]
    backend, n_run, n_sweep = ("interpreter", 1 << 14, 1 << 12) if cpu else ("gpu", 1 << 28, 1 << 24)
    c = WorkerClient(default_timeout_s=600, nice=10)
    assert c.wait_ready(300), "worker did not start"
    h = c.hello
    print("backends:", {k: v for k, v in h["backends"].items() if k != "infos"}, flush=True)
    print("worker nice:", os.getpriority(os.PRIO_PROCESS, c.pid), "(this process:",
          os.getpriority(os.PRIO_PROCESS, 0), ")", flush=True)

    k = len(decodes)
    t = time.perf_counter()
    r = c.call("run", RunRequest("vector_add", {"N": n_run, "dtype": "fp32"}, backend=backend))
    em = r.check.error_map
    print(f"run vector_add N={n_run} {backend}: {time.perf_counter() - t:.1f} s, error={r.error}, "
          f"passed={r.check.passed}, map {em.shape} {em.dtype} stride {r.check.error_map_stride}, "
          f"view of the frame: {em.base is not None and not em.flags.owndata}, writable {em.flags.writeable}; "
          f"{r.metrics.gbps or 0:.0f} GB/s; {biggest_since(k)}", flush=True)

    k = len(decodes)
    t = time.perf_counter()
    tr = c.call("trace", TraceRequest("vector_add", {"BLOCK_SIZE": 64, "N": 64 * 4096}))
    ok = tr.error is None and tr.trace is not None
    writer = tr.trace.maps[2].writer if ok else None
    right = ok and bool(np.array_equal(writer, np.arange(64 * 4096) // 64))
    print(f"trace vector_add 4096 programs: {time.perf_counter() - t:.1f} s, error={tr.error}, "
          f"out's writer map = element // 64: {right}; {biggest_since(k)}", flush=True)

    k = len(decodes)
    t = time.perf_counter()
    sw = c.call("sweep", SweepRequest("vector_add", {"N": n_sweep, "dtype": "fp32"},
                                      {"BLOCK_SIZE": [256, 512, 1024]}, backend=backend))
    pts = [(p.values["BLOCK_SIZE"], p.result.check.passed if p.result.check else None,
            round(p.result.metrics.gbps or 0) if p.result.metrics else None) for p in sw.points]
    print(f"sweep BLOCK_SIZE x3 {backend}: {time.perf_counter() - t:.1f} s, error={sw.error}, "
          f"(BLOCK_SIZE, passed, GB/s) = {pts}; {biggest_since(k)}", flush=True)
    c.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
