"""The window's GPU trace on the worker's side, as the worker serves it (issue #24): one process,
one ``EngineState``, the window's own payloads through ``kernels.engine.handlers.handle`` —
Run, then Trace at once (cold: its instrumented builds compiled — since issue #24 ahead, in the
background, from the Run's answer on: the trace waits for that compile), Trace again (warm), Run
again — for vector add 2^26 fp32, matmul 4096³ fp16; then the click cases: a config of each not
yet run (another block size, after the case of its data: its inputs are the live ones), Run, a pause of ``CLICK_S`` (the user's time to click Trace), Trace
— the figure a user meets; last (skipped when time is short), vector add 2^28. At the end, when
time is left (before vector add 2^28), each torch CUDA op the tile events used to run on the device
is timed at its first and second call in this process (``cuda_first_use``: what the host path
avoids).

    python3 benchmarks/gpu_trace_window_side.py --out $OUT [--limit 40] [--save-replies]
    python3 benchmarks/gpu_trace_window_side.py --cpu --out /tmp/x   # small sizes, interpreter

On a GPU the process first answers ``hello`` as the worker does, which starts the worker's head
start (``kernels.tune.warm_start``, its steps' seconds in ``warm_start_steps_s``) and a small GPU
trace (``kernels.engine.trace_ahead``: ``trace_ahead_at_start`` of the first case) beside the
first Run (``--no-hello``: not). Per trace: wall seconds of ``handle(state, "trace", …)``, the phases the trace reports (its
progress stages' times, the inputs prepared — drawn or taken from the Run's live cache —, the
compile, launch, derive — each program's accesses apart — and the light timeline build), the
reply encoded as the worker sends it (``app.protocol.encode``: bytes, seconds) and decoded. One extra trace of vector add
2^26 with the live cache released shows what drawing the inputs again costs. A watchdog ends the
process at ``--limit`` seconds; results are printed as they come and written to
``$OUT/gpu_trace_window_side.json`` after every step. ``--cpu``: the same steps under the
interpreter at small sizes (the GPU recorder's instrumented build run by the interpreter), to check
the script itself. Needs CUDA otherwise (torch, triton, numpy; no Qt).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path
from typing import Any

T_START = time.perf_counter()
ROOT = Path(__file__).resolve().parents[1]
os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="tilescope-window-side-"))  # cold compiles
sys.path.insert(0, str(ROOT))

GPU_CASES = [("vector_add_2p26", "vector_add", {"N": 1 << 26, "BLOCK_SIZE": 1024, "dtype": "fp32"}),
             ("click_vector_add_2p26_b2048", "vector_add", {"N": 1 << 26, "BLOCK_SIZE": 2048, "dtype": "fp32"}),
             ("matmul_4096_fp16", "matmul", {"M": 4096, "N": 4096, "K": 4096, "dtype": "fp16"}),
             ("click_matmul_4096_fp16_bm128", "matmul", {"M": 4096, "N": 4096, "K": 4096, "dtype": "fp16",
                                                         "BLOCK_M": 128}),
             ("vector_add_2p28", "vector_add", {"N": 1 << 28, "BLOCK_SIZE": 1024, "dtype": "fp32"})]
CPU_CASES = [("vector_add_2p12", "vector_add", {"N": 1 << 12, "BLOCK_SIZE": 1024, "dtype": "fp32"}),
             ("click_vector_add_2p12_b512", "vector_add", {"N": 1 << 12, "BLOCK_SIZE": 512, "dtype": "fp32"}),
             ("matmul_64_fp16", "matmul", {"M": 64, "N": 64, "K": 64, "dtype": "fp16"}),
             ("vector_add_2p13", "vector_add", {"N": 1 << 13, "BLOCK_SIZE": 4096, "dtype": "fp32"})]
#: a case is started only with this many seconds left (2^28: inputs 3.1-3.6 s, Run and traces)
NEEDS_S = {"vector_add_2p26": 10.0, "matmul_4096_fp16": 9.0, "vector_add_2p28": 14.0,
           "click_vector_add_2p26_b2048": 4.0, "click_matmul_4096_fp16_bm128": 5.0,
           "vector_add_2p12": 5.0, "matmul_64_fp16": 5.0, "click_vector_add_2p12_b512": 4.0, "vector_add_2p13": 5.0}
#: the pause between a Run's answer and the click on Trace in the click cases (a user's)
CLICK_S = 1.0

RESULTS: dict[str, Any] = {"started": time.strftime("%Y-%m-%d %H:%M:%S"), "cases": {}, "notes": []}
OUT: Path | None = None


def _save() -> None:
    if OUT is not None:
        (OUT / "gpu_trace_window_side.json").write_text(json.dumps(RESULTS, indent=1, default=str))


def _say(msg: str) -> None:
    print(f"[{time.perf_counter() - T_START:6.1f} s] {msg}", flush=True)


def _watchdog(limit: float) -> None:
    def fire() -> None:
        RESULTS["notes"].append(f"stopped by the watchdog at {limit:.0f} s")
        _say(f"watchdog: {limit:.0f} s passed, stopping")
        _save()
        os._exit(3)

    t = threading.Timer(max(1.0, limit - (time.perf_counter() - T_START)), fire)
    t.daemon = True
    t.start()


class _Phases:
    """Times of a trace's phases: progress stages, each ``prepare`` (drawn or reused), the light
    timeline build (wrapped in the modules the trace calls them from)."""

    def __init__(self) -> None:
        from kernels.gpu_trace import service

        self.service, self.t0, self.log = service, time.perf_counter(), []
        self._prepare, self._light, self._events = service.prepare, service._light_timeline, service.tile_events
        service.prepare = self._timed_prepare
        service._light_timeline = self._timed_light
        service.tile_events = self._timed_events

    def _timed_prepare(self, *a: Any, **kw: Any) -> Any:
        t = time.perf_counter()
        p = self._prepare(*a, **kw)
        self.log.append({"phase": "inputs taken from the live cache" if p.reused else "inputs drawn",
                         "s": round(time.perf_counter() - t, 4)})
        return p

    def _timed_light(self, *a: Any, **kw: Any) -> Any:
        t = time.perf_counter()
        got = self._light(*a, **kw)
        self.log.append({"phase": "light timeline build (compile + launch + its prepare)",
                         "s": round(time.perf_counter() - t, 4)})
        return got

    def _timed_events(self, *a: Any, **kw: Any) -> Any:
        t = time.perf_counter()
        got = self._events(*a, **kw)
        self.log.append({"phase": "each program's accesses from the tile records (in derive)",
                         "s": round(time.perf_counter() - t, 4), "accesses": int(len(got.events.program)),
                         "cells": int(got.events.n_active.sum())})
        return got

    def progress(self, p: Any) -> None:
        self.log.append({"stage": p.stage, "at_s": round(time.perf_counter() - self.t0, 4)})

    def close(self) -> list[dict]:
        self.service.prepare, self.service._light_timeline = self._prepare, self._light
        self.service.tile_events = self._events
        return self.log


def _reply_cost(res: Any) -> dict[str, Any]:
    from app.protocol import Reply, decode, encode

    t = time.perf_counter()
    blob = encode(Reply(1, 1, "result", res))
    t1 = time.perf_counter()
    decode(memoryview(blob)[4:])
    t2 = time.perf_counter()
    return {"reply_mb": round(len(blob) / 1e6, 2), "encode_s": round(t1 - t, 4), "decode_s": round(t2 - t1, 4)}


def _trace(state: Any, kernel: str, values: dict, on_gpu: bool, save: Path | None) -> dict[str, Any]:
    """One trace as the window sends it (``app.trace_flow``: the backend's request, the timeline on
    a GPU, reduced to the window's cells), served as the worker does."""
    from kernels.data.backends import GPU
    from kernels.data.coarse import window_request
    from kernels.data.trace import TraceRequest
    from kernels.engine.handlers import Call, handle
    from kernels.engine.kept_trace import KeptTrace

    req = window_request(TraceRequest(kernel, dict(values), backend=GPU, timeline=on_gpu))
    ph = _Phases()
    t = time.perf_counter()
    try:
        if on_gpu:
            res = handle(state, "trace", req, Call(progress=ph.progress))
        else:  # the worker's handler would refuse (no CUDA): the same serve, its build under the interpreter
            state.release_for("trace")
            state.kept_trace = state.kept_trace or KeptTrace()
            res = state.kept_trace.serve(req, ph.progress, device="cpu", cache=state.live_cache)
    finally:
        phases = ph.close()
    wall = time.perf_counter() - t
    out: dict[str, Any] = {"wall_s": round(wall, 4), "phases": phases}
    if getattr(res, "error", None) is not None:
        out["error"] = f"{res.error.kind}: {res.error.message}"
        return out
    info = res.info
    out.update(compile_s=round(info.compile_s, 4), launch_s=round(info.launch_s, 4), derive_s=round(info.derive_s, 4),
               kernel_ms=info.kernel_ms, passes=info.passes, map_strides=[list(s) for s in info.map_strides],
               n_events=int(len(res.trace.events)), notes=list(info.notes), **_reply_cost(res))
    ev = res.trace.events  # what pinning program 0 lights: its cells per tensor, and the source lines
    mine = ev.program == 0
    out["program0_cells_by_tensor"] = {res.trace.tensors[t].name: int(ev.n_active[mine & (ev.tensor == t)].sum())
                                       for t in range(len(res.trace.tensors))}
    out["lines"] = sorted(set(ev.line[mine].tolist()))
    if save is not None:
        import pickle

        (save / f"reply_{kernel}_{int(wall * 1000)}ms.pkl").write_bytes(pickle.dumps(res, protocol=5))
    return out


def _run(state: Any, kernel: str, values: dict, backend: str) -> dict[str, Any]:
    from kernels.data.results import RunRequest
    from kernels.engine.handlers import handle

    t = time.perf_counter()
    res = handle(state, "run", RunRequest(kernel, dict(values), backend=backend))
    out: dict[str, Any] = {"wall_s": round(time.perf_counter() - t, 4)}
    if res.error is not None:
        out["error"] = f"{res.error.kind}: {res.error.message}"
    else:
        out["check_passed"] = bool(res.check.passed)
    return out


def _trace_ahead(state: Any) -> dict[str, Any]:
    """Where the compile ahead of the trace builds (``kernels.engine.trace_ahead``) stands."""
    pre = state.trace_ahead_started
    if pre is None:
        return {"started": False}
    last = pre.last
    return {"started": True, "compiling_now": pre.compiling is not None, "done": pre.done,
            "last": None if last is None else {"values": dict(last.key[2]), "seconds": round(last.seconds, 4),
                                               "kernels": last.kernels, "error": last.error}}


def _after_click(state: Any, kernel: str, values: dict, on_gpu: bool, save: Path | None) -> dict[str, Any]:
    """The user's pause, then Trace: where the compile ahead stood at the click, and the trace."""
    time.sleep(CLICK_S)
    at_click = _trace_ahead(state)
    return {"pause_s": CLICK_S, "trace_ahead_at_click": at_click, **_trace(state, kernel, values, on_gpu, save)}


def case(state: Any, name: str, kernel: str, values: dict, on_gpu: bool, save: Path | None) -> None:
    from kernels.data.backends import GPU, INTERPRETER

    got: dict[str, Any] = RESULTS["cases"].setdefault(name, {"kernel": kernel, "values": values})
    backend = GPU if on_gpu else INTERPRETER
    if name.startswith("click_"):  # Run, the user's pause, Trace: the figure a user meets
        steps = [("run", lambda: _run(state, kernel, values, backend)),
                 ("trace_after_click", lambda: _after_click(state, kernel, values, on_gpu, save))]
    else:
        steps = [("run", lambda: _run(state, kernel, values, backend)),
                 ("trace_cold", lambda: {"trace_ahead_at_start": _trace_ahead(state),
                                         **_trace(state, kernel, values, on_gpu, save)}),
                 ("trace_warm", lambda: _trace(state, kernel, values, on_gpu, save)),
                 ("run_again", lambda: _run(state, kernel, values, backend))]
    if name.startswith("vector_add") and name.endswith(("2p26", "2p12")):  # what the live inputs save
        steps.append(("trace_warm_without_live_inputs",
                      lambda: (state.live_cache.release(), _trace(state, kernel, values, on_gpu, save))[1]))
    for step, fn in steps:
        try:
            got[step] = fn()
        except Exception as e:  # noqa: BLE001 - recorded, the next step still runs
            got[step] = {"error": f"{type(e).__name__}: {e}", "traceback": traceback.format_exc()[-2000:]}
        _say(f"{name} {step}: {json.dumps(got[step], default=str)[:600]}")
        _save()


def _cuda_first_use() -> dict[str, Any]:
    """Each torch CUDA op the tile events ran on the device before issue #24 (now on the host),
    timed at its first and second call in this process, on int64 tensors of a trace's size."""
    import torch

    n, out = 200_000, {}
    r = torch.randint(0, 1 << 20, (n,), dtype=torch.int64, device="cuda")
    two = torch.randint(1, 4, (n, 2), dtype=torch.int64, device="cuda")
    bases = torch.tensor([0, 1 << 18, 1 << 19], dtype=torch.int64, device="cuda")
    ops = {"searchsorted": lambda: torch.searchsorted(bases, r, right=True),
           "argsort_stable": lambda: torch.argsort(r, stable=True),
           "cumsum": lambda: torch.cumsum(r, 0),
           "nonzero": lambda: torch.nonzero(r > 5),
           "prod_dim1_of_2": lambda: two.prod(dim=1),
           "all_dim1_of_2": lambda: (two > 1).all(dim=1),
           "repeat_interleave": lambda: torch.repeat_interleave(torch.arange(1000, device="cuda"), two[:1000, 0]),
           "index_add_": lambda: torch.zeros(1 << 16, dtype=torch.int64, device="cuda").index_add_(0, r & 0xFFFF, r),
           "floor_divide_mod": lambda: (r // 7, r % 7)}
    for name, op in ops.items():
        times = []
        for _ in range(2):
            torch.cuda.synchronize()
            t = time.perf_counter()
            op()
            torch.cuda.synchronize()
            times.append(round(time.perf_counter() - t, 5))
        out[name] = {"first_s": times[0], "second_s": times[1]}
    return out


def _first_use(limit: float) -> None:
    if "cuda_first_use" in RESULTS or limit - (time.perf_counter() - T_START) < 3.0:
        return
    try:
        RESULTS["cuda_first_use"] = _cuda_first_use()
    except Exception as e:  # noqa: BLE001 - recorded, the cases go on
        RESULTS["cuda_first_use"] = {"error": f"{type(e).__name__}: {e}"}
    _say(f"cuda_first_use: {json.dumps(RESULTS['cuda_first_use'])[:600]}")
    _save()


def main() -> int:
    global OUT
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="folder for gpu_trace_window_side.json")
    ap.add_argument("--limit", type=float, default=40.0, help="hard limit in seconds, imports included")
    ap.add_argument("--cpu", action="store_true", help="small sizes under the interpreter (checks the script)")
    ap.add_argument("--no-hello", action="store_true",
                    help="no hello request first (the worker's head start then does not run)")
    ap.add_argument("--save-replies", action="store_true", help="pickle each trace reply into --out")
    args = ap.parse_args()
    OUT = Path(args.out)
    OUT.mkdir(parents=True, exist_ok=True)
    _watchdog(args.limit)
    import torch

    import kernels.catalog  # noqa: F401  (registers the bundled kernels)
    from kernels.engine.handlers import EngineState

    on_gpu = not args.cpu
    if on_gpu and not torch.cuda.is_available():
        print("no CUDA device: run with --cpu", file=sys.stderr)
        return 2
    RESULTS.update(device=torch.cuda.get_device_name() if on_gpu else "cpu (interpreter)",
                   torch=torch.__version__, imports_s=round(time.perf_counter() - T_START, 3))
    _say(f"imports done on {RESULTS['device']}")
    state = EngineState()
    if on_gpu and not args.no_hello:  # as the worker starts: its head start (kernels.tune.warm_start) runs beside
        from kernels.engine.handlers import handle

        handle(state, "hello", None)
        RESULTS["hello"] = True
    cases = GPU_CASES if on_gpu else CPU_CASES
    for i, (name, kernel, values) in enumerate(cases):
        if on_gpu and name == "vector_add_2p28":
            _first_use(args.limit)
        left = args.limit - (time.perf_counter() - T_START)
        if left < NEEDS_S[name]:
            RESULTS["notes"].append(f"{name} skipped: {left:.1f} s left of {args.limit:.0f}")
            _say(RESULTS["notes"][-1])
            continue
        case(state, name, kernel, values, on_gpu, OUT if args.save_replies else None)
        after = cases[i + 1][0] if i + 1 < len(cases) else ""
        if state.live is not None and not after.startswith("click_"):  # each case starts from a window
            state.live.release()  # that has not run it yet; a click case is the same data, another block size
        if state.kept_trace is not None:
            state.kept_trace.release()
    if on_gpu:
        _first_use(args.limit)
    if RESULTS.get("hello"):
        from kernels.tune import warm_start

        RESULTS["warm_start_steps_s"] = {k: round(v, 3) for k, v in warm_start.steps_done().items()}
    RESULTS["total_s"] = round(time.perf_counter() - T_START, 3)
    _save()
    _say("done")
    return 0


if __name__ == "__main__":
    sys.exit(main())
