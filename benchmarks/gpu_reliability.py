"""GPU fault handling through the headless worker client (no Qt): run on the H200.

Each step prints what the user would see (the error kind and message, or the check), how long
it took, and whether the worker process was replaced (pid before -> after):

 1. a kernel that stores to an illegal address -> a clean error, the worker restarts;
 1b. the same for a load; 1c. a forgotten mask (a few elements past the end: usually silent on a GPU);
 2. then a normal run in the new worker passes;
 3. a matmul whose tiles need more shared memory than the GPU has -> a compile error with Triton's message;
 3b. tiles that need many registers (one warp for 64 Ki elements) -> compiles; the spills are reported;
 3c. a kernel that adds blocks of different sizes -> a compile error naming the line;
 4. a shape too large for device memory -> refused up front with a clear message (no crash);
 4b. the largest vector_add (2**31 - 2048 elements, 24 GiB): passes; its error map arrives
     downsampled (a full one is 8 GiB, more than a reply may carry);
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
from kernels.data.results import RunRequest  # noqa: E402

FAULTY = os.path.join(ROOT, "tests", "fixtures", "faulty_kernels.py")


def step(client, title, req, timeout=None):
    t0 = time.time()
    pid = client.pid
    res = None
    try:
        res = client.call("run", req, timeout=timeout)
        err = res.error
        ok = res.check.passed if res.check else None
        line = f"error[{err.kind}]: {err.message}" if err else f"check passed={ok}"
    except WorkerError as e:
        line = f"request failed [{e.info.kind}]: {e.info.message}"
    client.wait_ready(60)
    print(f"{title:45s} {time.time() - t0:6.1f}s  pid {pid} -> {client.pid}  {line}", flush=True)
    return res


def main():
    logs = []
    c = WorkerClient(on_log=lambda g, lvl, msg: logs.append(msg), default_timeout_s=120)
    assert c.wait_ready(120), "worker did not start"
    print("backends:", {k: v for k, v in c.hello["backends"].items() if k != "infos"}, flush=True)
    c.call("load_file", FAULTY, timeout=60)
    gpu = dict(backend="gpu", user_file=FAULTY)
    step(c, "1. illegal address (oob_store, gpu)", RunRequest("oob_store", {"N": 4096}, **gpu))
    step(c, "1b. illegal address (oob_load, gpu)", RunRequest("oob_load", {"N": 4096}, **gpu))
    step(c, "1c. forgotten mask (no_mask, N=1000, gpu)", RunRequest("no_mask", {"N": 1000, "BLOCK_SIZE": 256}, **gpu))
    step(c, "2. vector_add after the faults (gpu)", RunRequest("vector_add", {"N": 1 << 20}, backend="gpu"))
    step(c, "3. matmul tiles too big for shared memory", RunRequest(
        "matmul", {"M": 1024, "N": 1024, "K": 1024, "BLOCK_M": 256, "BLOCK_N": 256, "BLOCK_K": 256,
                   "num_stages": 4, "num_warps": 8, "dtype": "fp16"}, backend="gpu"))
    r = step(c, "3b. 64 Ki elements per program, 1 warp", RunRequest(
        "vector_add", {"N": 1 << 24, "BLOCK_SIZE": 65536, "num_warps": 1}, backend="gpu"))
    if r is not None and r.compile is not None:
        print(f"    compile facts: n_regs {r.compile.n_regs}, n_spills {r.compile.n_spills}, "
              f"shared {r.compile.shared_bytes} B", flush=True)
    step(c, "3c. blocks of different sizes (shape_mismatch)", RunRequest("shape_mismatch", {"N": 4096}, **gpu))
    step(c, "4. attention too large for device memory", RunRequest(
        "attention", {"BATCH": 64, "HEADS": 64, "N_CTX": 65536, "HEAD_DIM": 128, "dtype": "fp32"}, backend="gpu"))
    r = step(c, "4b. largest vector_add (24 GiB, fits)", RunRequest("vector_add", {"N": 2**31 - 2048}, backend="gpu"))
    if r is not None and r.check is not None and r.check.error_map is not None:
        m = r.check.error_map
        print(f"    error map {m.shape} {m.dtype}, {m.nbytes / 2**20:.0f} MiB, stride {r.check.error_map_stride}",
              flush=True)
    step(c, "5. endless kernel, timeout 10 s (gpu)", RunRequest("endless", {"N": 1024}, **gpu), timeout=10)
    step(c, "6. vector_add after the timeout (gpu)", RunRequest("vector_add", {"N": 1 << 20}, backend="gpu"))
    print("worker restarts:", c.restarts, "| logs:", logs[-5:], flush=True)
    c.close()


if __name__ == "__main__":
    main()
