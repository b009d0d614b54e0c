"""The advisor on a GPU in one short call (issue #26): each of the six slow variants ranked by the
advisor with the GPU's measured timeline, the first finding's mini-sweep timed with the fixed
version in one tune sweep; then the GPU tests of ``tests/gpu/test_gpu_advisor.py``, the 8 catalog
kernels at their defaults (timed runs: the roofline), and a seventh case — inside a hard limit.

    python3 benchmarks/advisor_device.py --out $OUT/advisor.jsonl [--limit 84]
    python3 benchmarks/advisor_device.py --small --backend interpreter --out /tmp/dry.jsonl   # CPU dry run
    python3 benchmarks/advisor_device.py --table advisor.jsonl    # the markdown table of a run's lines

The part of the advisor that needs no GPU (compile for the target, layout, masked lanes on the
interpreter: ``kernels.advisor.gather.sample``) runs for every case at once in a pool of CPU
processes (which never touch the GPU); the one main process does all GPU work, one case at a
time — first each case's timeline while the pool works, then, as the samples arrive, in
``ORDER``: ``advise`` with the sample and the GPU facts, and one tune sweep (interleaved
re-measurement, ``benchmarks.advisor_check.sweep_configs``) over the current values, the first
finding's candidates (``kernels.advisor.trial.candidates``) and the fixed version:
recovered = (current - best candidate) / (current - fixed).

One JSON line per item as it ends (printed and appended to ``--out``); an item that fails records
its error; past ``--limit`` the rest are recorded as skipped, and a watchdog ends the process
``GRACE_S`` later whatever is running.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import sys
import threading
import time
import traceback
from concurrent.futures import Future, ProcessPoolExecutor, wait
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.advisor_check import CASES, recovered, sweep_configs  # noqa: E402

#: the six variants, most informative first: the tail and the spills never measured right before,
#: the column walk's named fix, the row-major order that must stay silent, then the rest; after
#: them the GPU tests, the catalog, and last the seventh case (a row-major order the L2 cannot hide)
ORDER = (4, 0, 3, 2, 1, 5)
LAST = (6,)
#: the GPU tests in the order they run (the measured tail and the variant first: never passed yet)
TESTS = ("test_the_tail_is_read_from_the_measured_timeline", "test_a_column_walk_is_measured_through_its_own_fixed_variant",
         "test_the_cpu_side_spill_count_is_the_drivers", "test_vector_add_at_block_64_is_measured_faster_with_the_proposal")
CATALOG = ("vector_add", "vector_mul", "gelu", "layernorm", "softmax", "softmax_looped", "matmul", "attention")
#: the GPU work an item still needs, at least (s): one not started with less left is skipped
ITEM_MIN_S = {"facts": 4.0, "case": 6.0, "catalog": 2.0, "test": 6.0}
#: past the limit, the watchdog ends the process this much later
GRACE_S = 4.0
#: a gap under this share of the slow time is "no measurable gap"
NO_GAP = 0.03


class Clock:
    def __init__(self, limit_s: float) -> None:
        self.t0 = time.monotonic()
        self.limit_s = limit_s

    def left(self) -> float:
        return self.limit_s - (time.monotonic() - self.t0)

    def cancel(self) -> bool:
        return self.left() <= 0

    def at(self) -> float:
        return round(time.monotonic() - self.t0, 1)


class Out:
    def __init__(self, path: str | None, clock: Clock) -> None:
        self.path, self.clock = path, clock
        self.lock = threading.Lock()

    def emit(self, row: dict[str, Any]) -> None:
        row = {**row, "t_s": self.clock.at()}
        line = json.dumps(row, default=str)
        with self.lock:
            print(line, flush=True)
            if self.path:
                with open(self.path, "a") as f:
                    f.write(line + "\n")


# ------------------------------------------------------------------------------- the CPU pool
def _worker_init() -> None:
    os.environ["CUDA_VISIBLE_DEVICES"] = ""  # the pool compiles and interprets; only the main process times


def _sample(kernel: str, file: str | None, values: dict[str, Any], target: str, programs: int) -> tuple[Any, float]:
    from kernels.advisor.gather import sample
    from kernels.sources.lookup import get_spec

    t0 = time.perf_counter()
    return sample(get_spec(kernel, file), values, target, programs=programs), time.perf_counter() - t0


# ------------------------------------------------------------------------------- the GPU side
class GpuFacts:
    """What ``gather`` asks the GPU for, taken once per item (before its sample is back, or when
    asked): a variant's timeline (the measured tail; its time comes from the sweep), a catalog
    kernel's timed run (the roofline: the first timed run also measures the device's peaks)."""

    def __init__(self, backend: str, clock: Clock) -> None:
        self.backend, self.clock = backend, clock
        self.done: dict[str, tuple[Any, Any, float]] = {}
        self.notes: dict[str, str] = {}

    def take(self, key: str, kernel: str, file: str | None, values: dict[str, Any], timeline: bool = True,
             timed_run: bool = False) -> None:
        from kernels import engine
        from kernels.data.results import RunRequest
        from kernels.data.trace import TraceRequest
        from kernels.engine.trace_router import serve_trace

        t0 = time.perf_counter()
        run = None
        if timed_run:
            run = engine.run(RunRequest(kernel, dict(values), backend=self.backend, user_file=file,
                                        torch_baseline=False, keep_asm=False), cancel=self.clock.cancel)
        tl = None
        if timeline and self.backend == "gpu":
            try:
                res = serve_trace(TraceRequest(kernel, dict(values), user_file=file, backend="gpu", timeline=True,
                                               maps=False), cancel=self.clock.cancel)
                tl = getattr(res, "timeline", None)
                if tl is None:
                    err = getattr(res, "error", None)
                    self.notes[key] = f"no timeline: {getattr(err, 'message', err)}"
            except Exception as e:  # noqa: BLE001 - the advisor goes on with the formula's tail
                self.notes[key] = f"no timeline: {type(e).__name__}: {e}"
        self.done[key] = (run, tl, time.perf_counter() - t0)


def _finding_row(f: Any) -> str:
    return f"{f.severity} {f.rule}: {f.title}"


def run_case(i: int, case: dict[str, Any], values: dict[str, Any], sampled: Any, facts: GpuFacts, target: str,
             clock: Clock, rounds: int) -> dict[str, Any]:
    from kernels.advisor.service import advise
    from kernels.advisor.trial import candidates
    from kernels.sources.lookup import get_spec

    t0 = time.perf_counter()
    spec = get_spec(case["kernel"], case["file"])
    key = f"case{i}"
    if key not in facts.done:
        facts.take(key, case["kernel"], case["file"], values)
    run, tl, gpu_s = facts.done[key]
    a = advise(spec, values, target, sampled=sampled, run_on_gpu=lambda cfg: run,
               timeline_on_gpu=(lambda cfg: tl) if tl is not None else None)
    first = a.first
    cause = next((f for f in a.findings if f.rule == case["cause"]), None)
    row: dict[str, Any] = {"item": "variant", "case": case["case"], "cause": case["cause"], "values": values,
                           "fixed": case["fixed"], "error": a.error.message if a.error is not None else None,
                           "findings": [_finding_row(f) for f in a.findings], "not_checked": a.not_checked,
                           "first": first.rule if first else None,
                           "ranked_first": bool(first and first.rule == case["cause"]),
                           "roofline": "not taken for the variants (their time is the sweep's; the catalog "
                                       "items are timed runs)",
                           "gpu_facts_s": round(gpu_s, 1), "timeline": tl is not None,
                           "timeline_note": facts.notes.get(key)}
    if first is not None:
        row["proposal"] = {"kind": first.proposal.kind if first.proposal else None,
                           "text": first.proposal.text if first.proposal else None}
        row["first_evidence"] = first.evidence
    cands = candidates(first) if first is not None else []
    row["candidates"] = cands
    if clock.left() < ITEM_MIN_S["case"] / 2:
        row["sweep"] = "skipped: time limit"
    else:
        s = sweep_configs({**case, "slow": values}, cands, values, backend=facts.backend, cancel=clock.cancel,
                          rounds=rounds)
        cur, fixed = s["current_ms"], s["fixed_ms"]
        row.update({"current_ms": cur, "fixed_ms": fixed, "device": s["device"], "sweep_error": s["error"],
                    "failed": s["failed"], "tried": [{"changes": c, "ms": ms} for ms, c in s["tried"]]})
        if cur and fixed:
            row["gap"] = round((cur - fixed) / cur, 4)
        if s["tried"]:
            best_ms, best = min(s["tried"], key=lambda x: x[0])
            row.update({"best": best, "best_ms": best_ms, "gain": cur / best_ms if cur else None,
                        "recovered": recovered(cur, best_ms, fixed)})
        row["verdict"] = _verdict(row, cause)
    row["seconds"] = round(time.perf_counter() - t0, 1)
    return row


def _verdict(row: dict[str, Any], cause: Any) -> str:
    gap = row.get("gap")
    if not row.get("findings") and gap is not None and gap < NO_GAP:
        return f"no finding and no measurable gap ({gap:.1%}): right to stay silent"
    if not row.get("findings"):
        return f"no finding, but the fixed version is {gap:.1%} faster" if gap is not None else "no finding"
    rec = row.get("recovered")
    head = "true cause ranked first" if row["ranked_first"] else f"ranked {row['first']} first, not {row['cause']}"
    if rec is None:
        return f"{head}; recovered: undefined (gap {gap})"
    return f"{head}; mini-sweep recovered {rec:.0%} of a {gap:.0%} gap" + (" (>= 80 %)" if rec >= 0.8 else " (< 80 %)")


def run_catalog(name: str, sampled: Any, facts: GpuFacts, target: str) -> dict[str, Any]:
    from kernels.advisor.service import advise
    from kernels.sources.lookup import get_spec

    key = f"catalog:{name}"
    if key not in facts.done:
        facts.take(key, name, None, {}, timeline=False, timed_run=True)  # every default grid is under one wave
    run, _, gpu_s = facts.done[key]
    a = advise(get_spec(name), {}, target, sampled=sampled, run_on_gpu=lambda cfg: run)
    return {"item": "catalog", "kernel": name, "error": a.error.message if a.error is not None else None,
            "high": [_finding_row(f) for f in a.high()], "findings": [_finding_row(f) for f in a.findings],
            "run_ms": run.timing.median_ms if getattr(run, "timing", None) else None,
            "run_error": run.error.message if getattr(run, "error", None) is not None else None,
            "no_high": not a.high() and a.error is None, "gpu_facts_s": round(gpu_s, 1)}


def run_tests(out: Out, clock: Clock) -> None:
    """The functions of ``tests/gpu/test_gpu_advisor.py``, called in this process (its imports are
    warm), each recorded passed or failed with its error."""
    import importlib.util

    path = ROOT / "tests" / "gpu" / "test_gpu_advisor.py"
    spec = importlib.util.spec_from_file_location("test_gpu_advisor", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    names = [n for n in dir(mod) if n.startswith("test_")]
    for name in [*[n for n in TESTS if n in names], *[n for n in names if n not in TESTS]]:
        if clock.left() < ITEM_MIN_S["test"]:
            out.emit({"item": "gpu_test", "test": name, "outcome": "skipped: time limit"})
            continue
        t0 = time.perf_counter()
        try:
            getattr(mod, name)()
            outcome, err = "passed", None
        except Exception as e:  # noqa: BLE001 - AssertionError included: recorded, the next one runs
            outcome, err = "failed", "".join(traceback.format_exception_only(type(e), e)).strip()[-1500:]
        out.emit({"item": "gpu_test", "test": name, "outcome": outcome, "error": err,
                  "seconds": round(time.perf_counter() - t0, 1)})


def table(rows: list[dict[str, Any]]) -> str:
    """The variants, the catalog and the tests of a run's JSON lines as markdown."""
    ms = (lambda v: f"{v:.4f}" if isinstance(v, (int, float)) else "-")
    lines = ["| variant | true cause | advisor's first | current ms | best candidate ms | fixed ms | gap | recovered |",
             "|---|---|---|---:|---|---:|---:|---:|"]
    for r in (r for r in rows if r.get("item") == "variant"):
        best = ", ".join(f"{k}={v}" for k, v in (r.get("best") or {}).items())
        rec = r.get("recovered")
        lines.append(f"| {r['case']} | {r['cause']} | {r.get('first') or 'no finding'} | {ms(r.get('current_ms'))} "
                     f"| {best + ': ' + ms(r.get('best_ms')) if best else '-'} | {ms(r.get('fixed_ms'))} "
                     f"| {r['gap']:.1%} | {f'{rec:.0%}' if rec is not None else '-'} |" if r.get("gap") is not None
                     else f"| {r.get('case')} | {r.get('cause')} | {r.get('first')} | - | - | - | - | "
                          f"{r.get('error') or r.get('sweep_error') or r.get('sweep')} |")
    cat = [r for r in rows if r.get("item") == "catalog"]
    if cat:
        lines += ["", "| catalog kernel at its defaults | high findings | all findings |", "|---|---|---|"]
        lines += [f"| {r['kernel']} | {'; '.join(r['high']) or 'none'} | {'; '.join(r['findings']) or 'none'} |"
                  for r in cat]
    tests = [r for r in rows if r.get("item") == "gpu_test"]
    if tests:
        lines += ["", "| GPU test | outcome |", "|---|---|"]
        lines += [f"| {r['test']} | {r['outcome']}{': ' + r['error'] if r.get('error') else ''} |" for r in tests]
    return "\n".join(lines)


# ------------------------------------------------------------------------------- the order of work
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--table", metavar="JSONL", help="print the markdown table of a run's lines, and stop")
    ap.add_argument("--out", help="append one JSON line per item")
    ap.add_argument("--limit", type=float, default=84.0, help="seconds for everything (default 84)")
    ap.add_argument("--backend", default="gpu", help="gpu (default), or interpreter for a dry run")
    ap.add_argument("--small", action="store_true", help="each case at its small shapes (a dry run)")
    ap.add_argument("--target", default="", help="compile target (default: the GPU's, else sm_90)")
    ap.add_argument("--programs", type=int, default=1, help="programs the interpreter samples at each end")
    ap.add_argument("--rounds", type=int, default=3, help="interleaved re-measurement rounds of each sweep")
    ap.add_argument("--workers", type=int, default=0, help="CPU processes (0: cores - 2, at most one per job)")
    ap.add_argument("--only", type=int, action="append", help="only these cases (CASES index)")
    ap.add_argument("--catalog", action="append", help="only these catalog kernels (default: the 8)")
    ap.add_argument("--no-catalog", action="store_true")
    ap.add_argument("--no-tests", action="store_true")
    ap.add_argument("--force-tests", action="store_true", help="call the GPU tests without a GPU (a dry run)")
    args = ap.parse_args(argv)
    if args.table:
        print(table([json.loads(ln) for ln in Path(args.table).read_text().splitlines() if ln.strip()]))
        return 0
    clock = Clock(args.limit)
    out = Out(args.out, clock)

    pools: list[ProcessPoolExecutor] = []

    def watchdog() -> None:
        time.sleep(max(0.0, args.limit + GRACE_S))
        out.emit({"item": "end", "outcome": "watchdog: the time limit passed, the process ends here"})
        for pool in pools:
            _kill(pool)
        os._exit(3)

    threading.Thread(target=watchdog, daemon=True).start()
    order = [i for i in (*ORDER, *LAST) if not args.only or i in args.only]
    values = {i: {**CASES[i]["slow"], **(CASES[i]["small"] if args.small else {})} for i in order}
    catalog = () if args.no_catalog else tuple(args.catalog or CATALOG)
    ctx = mp.get_context("spawn")
    n_jobs = len(order) + len(catalog)
    workers = args.workers or max(1, min(n_jobs, (os.cpu_count() or 4) - 2))
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_worker_init)
    pools.append(pool)
    import torch  # after the pool: its spawned workers do not inherit CUDA
    import triton

    gpu = torch.cuda.is_available() and args.backend == "gpu"
    if args.backend == "gpu" and not gpu:
        out.emit({"item": "end", "outcome": "no CUDA device: nothing to measure (use --backend interpreter)"})
        return 2
    target = args.target or (f"sm_{''.join(map(str, torch.cuda.get_device_capability()))}" if gpu else "sm_90")
    out.emit({"item": "start", "device": torch.cuda.get_device_name() if gpu else "cpu", "target": target,
              "triton": triton.__version__, "torch": torch.__version__, "workers": workers, "small": args.small,
              "limit_s": args.limit})
    futs: dict[str, Future] = {}
    for i in order:
        c = CASES[i]
        futs[f"case{i}"] = pool.submit(_sample, c["kernel"], c["file"], values[i], target, args.programs)
    for name in catalog:
        futs[f"catalog:{name}"] = pool.submit(_sample, name, None, {}, target, args.programs)
    facts = GpuFacts(args.backend, clock)
    try:
        # the six with the catalog in the gaps (a catalog item only while no variant's sample is back
        # and every variant's timeline is taken), then the tests, the catalog left, the seventh case
        left = _serve([i for i in order if i not in LAST], values, catalog, futs, facts, target, clock, out, args,
                      stop_after_cases=True)
        if not args.no_tests and (gpu or args.force_tests):
            run_tests(out, clock)
        _serve([], values, left, futs, facts, target, clock, out, args)
        _serve([i for i in order if i in LAST], values, (), futs, facts, target, clock, out, args)
    finally:
        _kill(pool)
        pool.shutdown(wait=False, cancel_futures=True)
    out.emit({"item": "end", "outcome": "done", "seconds": clock.at()})
    return 0


def _serve(order: list[int], values: dict[int, dict], catalog: tuple[str, ...], futs: dict[str, Future],
           facts: GpuFacts, target: str, clock: Clock, out: Out, args: argparse.Namespace,
           stop_after_cases: bool = False) -> tuple[str, ...]:
    """The variants in ``order``, each as soon as its sample is back (the highest in the order
    first); while none is, the next case's GPU facts, else a catalog kernel whose sample is back.
    ``stop_after_cases``: return once the variants are done, with the catalog kernels left."""
    pending = [f"case{i}" for i in order] + [f"catalog:{n}" for n in catalog]
    while pending:
        if stop_after_cases and not any(k.startswith("case") for k in pending):
            return tuple(k.split(":", 1)[1] for k in pending)
        if clock.left() < ITEM_MIN_S["catalog"]:
            for key in pending:
                out.emit({"item": key, "outcome": "skipped: time limit"})
            return ()
        ready = [k for k in pending if futs[k].done()]
        cases = [k for k in ready if k.startswith("case")]
        todo = [k for k in pending if k.startswith("case") and k not in facts.done]
        if not cases and todo and clock.left() > ITEM_MIN_S["facts"]:
            i = int(todo[0][4:])  # a case's GPU facts while no case's sample is back
            try:
                facts.take(todo[0], CASES[i]["kernel"], CASES[i]["file"], values[i])
            except Exception as e:  # noqa: BLE001 - the case records it when its turn comes
                facts.done[todo[0]] = (_Failed(e), None, 0.0)
            continue
        if not ready:
            wait([futs[k] for k in pending], timeout=min(2.0, max(0.1, clock.left())), return_when="FIRST_COMPLETED")
            continue
        ready = cases or ready
        key = ready[0]
        pending.remove(key)
        t0 = time.perf_counter()
        try:
            sampled, sample_s = futs[key].result()
            if key.startswith("case"):
                i = int(key[4:])
                row = run_case(i, CASES[i], values[i], sampled, facts, target, clock, args.rounds)
            else:
                row = run_catalog(key.split(":", 1)[1], sampled, facts, target)
            row["sample_s"] = round(sample_s, 1)
        except Exception as e:  # noqa: BLE001 - recorded; the next item runs
            row = {"item": key, "error": "".join(traceback.format_exception_only(type(e), e)).strip()[-1500:],
                   "seconds": round(time.perf_counter() - t0, 1)}
        out.emit(row)
    return ()


def _kill(pool: ProcessPoolExecutor) -> None:
    """End the pool's worker processes (ours: started by this script) now."""
    for proc in list((getattr(pool, "_processes", None) or {}).values()):
        try:
            proc.kill()
        except Exception:  # noqa: BLE001 - already gone
            pass


class _Failed:
    """A run that raised: what ``advise`` reads as a run without timing."""

    def __init__(self, e: Exception) -> None:
        from kernels.data.errors import to_error_info

        self.error = to_error_info(e, "running")
        self.timing = self.metrics = None


if __name__ == "__main__":
    raise SystemExit(main())
