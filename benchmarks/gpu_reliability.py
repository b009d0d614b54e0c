"""GPU fault handling through the headless worker client (no Qt): run on the H200.

1. a kernel that stores to an illegal address -> a clean error, the worker restarts;
2. then a normal run in the new worker passes;
3. a matmul whose tiles need more shared memory than the GPU has -> a compile error with Triton's message;
4. a shape too large for device memory -> refused with a clear message (no crash);
5. a kernel that never ends -> killed after the timeout, the worker restarts, the next run passes.

    python benchmarks/gpu_reliability.py
"""

from __future__ import annotations

import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from app.client import WorkerClient, WorkerError  # noqa: E402
from kernels.results import RunRequest  # noqa: E402

FAULTY = os.path.join(ROOT, "benchmarks", "fixtures", "faulty_kernels.py")


def step(client, title, req, timeout=None):
    t0 = time.time()
    pid = client.pid
    try:
        res = client.call("run", req, timeout=timeout)
        err = res.error
        ok = res.check.passed if res.check else None
        line = f"error[{err.kind}]: {err.message}" if err else f"check passed={ok}"
    except WorkerError as e:
        line = f"request failed [{e.info.kind}]: {e.info.message}"
    client.wait_ready(60)
    print(f"{title:45s} {time.time() - t0:6.1f}s  pid {pid} -> {client.pid}  {line}", flush=True)


def main():
    logs = []
    c = WorkerClient(on_log=lambda g, lvl, msg: logs.append(msg), default_timeout_s=120)
    assert c.wait_ready(120), "worker did not start"
    print("backends:", {k: v for k, v in c.hello["backends"].items() if k != "infos"}, flush=True)
    c.call("load_file", FAULTY, timeout=60)
    step(c, "1. illegal address (oob_store, gpu)", RunRequest("oob_store", {"N": 4096}, backend="gpu", user_file=FAULTY))
    step(c, "2. vector_add after the fault (gpu)", RunRequest("vector_add", {"N": 1 << 20}, backend="gpu"))
    step(c, "3. matmul tiles too big for shared memory", RunRequest(
        "matmul", {"M": 1024, "N": 1024, "K": 1024, "BLOCK_M": 256, "BLOCK_N": 256, "BLOCK_K": 256,
                   "num_stages": 4, "num_warps": 8, "dtype": "fp16"}, backend="gpu"))
    step(c, "4. attention too large for device memory", RunRequest(
        "attention", {"BATCH": 64, "HEADS": 64, "N_CTX": 65536, "HEAD_DIM": 128, "dtype": "fp32"}, backend="gpu"))
    step(c, "4b. largest vector_add (24 GiB, fits)", RunRequest("vector_add", {"N": 2**31 - 2048}, backend="gpu"))
    step(c, "5. endless kernel, timeout 10 s (gpu)", RunRequest("endless", {"N": 1024}, backend="gpu", user_file=FAULTY), timeout=10)
    step(c, "6. vector_add after the timeout (gpu)", RunRequest("vector_add", {"N": 1 << 20}, backend="gpu"))
    print("worker restarts:", c.restarts, "| logs:", logs[-5:], flush=True)
    c.close()


if __name__ == "__main__":
    main()
