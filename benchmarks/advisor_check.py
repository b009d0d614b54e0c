"""The advisor against six deliberately slow variants (issue #26): does it name the true cause
first, and how much of the gap to the fixed version does its mini-sweep recover?

    python benchmarks/advisor_check.py cpu [--json OUT.jsonl] [--md]
        compiled for sm_90 and sampled on the interpreter: the first finding and its proposal,
        each launch proposal checked by compiling it (no timing: nothing "recovered" here);
    python benchmarks/advisor_check.py measure --from CPU.jsonl [--json OUT.jsonl] [--md]
        on the GPU, the mini-sweep alone: one tune sweep per case over the current values, the
        candidates the cpu run proposed and the fixed version (what fits one short GPU call);
    python benchmarks/advisor_check.py gpu [--json OUT.jsonl] [--md]
        on the GPU: the same findings, each launch proposal measured by the engine's tune sweep
        against the current values, and the fixed version timed with the same policy:
        recovered = (current - best proposal) / (current - fixed).

Each case writes one JSON line as it ends (a run cut short keeps the cases it finished).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
VARIANTS = str(ROOT / "benchmarks" / "advisor_variants.py")

#: name, kernel, user file, slow values, the cause a user would name, the fixed version's values;
#: "small": the same case at shapes the interpreter runs in seconds (a dry run of the code paths)
CASES: list[dict[str, Any]] = [
    # 256 x 128 fp32 accumulator over 128 threads: 256 registers a thread before A and B (ptxas spills)
    {"case": "matmul that spills (fp32 exact 2048^3, 256x128x32, 4 warps)", "kernel": "matmul", "file": None,
     "slow": {"dtype": "fp32", "TF32": False, "M": 2048, "N": 2048, "K": 2048, "BLOCK_M": 256, "BLOCK_N": 128,
              "BLOCK_K": 32, "num_warps": 4, "num_stages": 3},
     "cause": "spills", "fixed": {"BLOCK_M": 128, "num_warps": 8}, "small": {"M": 256, "N": 256, "K": 64}},
    {"case": "softmax at num_warps 1 (4096 x 4096 fp32)", "kernel": "softmax", "file": None,
     "slow": {"M": 4096, "N": 4096, "BLOCK_SIZE": 4096, "num_warps": 1}, "cause": "warps",
     "fixed": {"num_warps": 8}, "small": {"M": 4}},
    # no gap measured on the H200 (50 MB L2, 1.855 vs 1.846 ms): the advisor must stay silent
    {"case": "row-major matmul order at 8192^3 (fp16, 128x128x64, 8 warps)", "kernel": "matmul", "file": None,
     "slow": {"M": 8192, "N": 8192, "K": 8192, "BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "num_warps": 8,
              "num_stages": 3, "GROUP_SIZE_M": 1}, "cause": "l2_reuse", "fixed": {"GROUP_SIZE_M": 8},
     "small": {"M": 256, "N": 256, "K": 64}},
    # the fix is a code change at the load's line; the variant file holds it behind BY_ROWS
    {"case": "column-walk copy (4096 x 4096 fp32)", "kernel": "column_copy", "file": VARIANTS,
     "slow": {"M": 4096, "N": 4096, "BLOCK": 4096}, "cause": "uncoalesced", "fixed": {"BY_ROWS": True},
     "small": {"M": 256, "N": 256, "BLOCK": 256}},
    # 8 x 17 tiles (the last column half empty) at 1 per SM: 1.03 waves, the second holding 4
    # programs; BLOCK_N 128: 8 x 33 = 264 tiles at 2 per SM, one full wave
    {"case": "heavy tail: 136 tiles of 128x256 on 132 SMs (fp16 1024x4224x4096)", "kernel": "matmul", "file": None,
     "slow": {"M": 1024, "N": 4224, "K": 4096, "BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64, "num_warps": 8,
              "num_stages": 3}, "cause": "tail", "fixed": {"BLOCK_N": 128}, "small": {"M": 256, "N": 640, "K": 64}},
    {"case": "vector add at BLOCK_SIZE 64 (2^26 fp32)", "kernel": "vector_add", "file": None,
     "slow": {"N": 1 << 26, "BLOCK_SIZE": 64}, "cause": "vector_width", "fixed": {"BLOCK_SIZE": 1024},
     "small": {"N": 1 << 12}},
    # beyond the six: a row-major order the L2 cannot hide (a wave reads all 256 MB of B)
    {"case": "row-major matmul order, wide B (fp16 4096x32768x4096, 128x128x64)", "kernel": "matmul", "file": None,
     "slow": {"M": 4096, "N": 32768, "K": 4096, "BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "num_warps": 8,
              "num_stages": 3, "GROUP_SIZE_M": 1}, "cause": "l2_reuse", "fixed": {"GROUP_SIZE_M": 8},
     "small": {"M": 256, "N": 256, "K": 64}},
]


def _gpu_tools() -> tuple[Any, Any]:
    from kernels import engine
    from kernels.data.results import RunRequest

    def run_on_gpu(case: dict[str, Any]) -> Any:
        return lambda cfg: engine.run(RunRequest(case["kernel"], cfg, backend="gpu", user_file=case["file"]))

    return run_on_gpu, engine.sweep


def check_case(case: dict[str, Any], on_gpu: bool, programs: int) -> dict[str, Any]:
    from kernels.advisor.service import advise
    from kernels.advisor.trial import candidates
    from kernels.sources.lookup import get_spec

    t0 = time.perf_counter()
    spec = get_spec(case["kernel"], case["file"])
    run_fn = sweep = None
    if on_gpu:
        make_run, sweep = _gpu_tools()
        run_fn = make_run(case)
    a = advise(spec, case["slow"], "sm_90", try_changes=True, programs=programs, run_on_gpu=run_fn, sweep=sweep)
    out: dict[str, Any] = {"case": case["case"], "cause": case["cause"], "backend": a.backend,
                           "error": a.error.message if a.error is not None else None,
                           "findings": [f"{f.severity} {f.rule}: {f.title}" for f in a.findings]}
    first = a.first
    out["first"] = first.rule if first else None
    out["ranked_first"] = bool(first and first.rule == case["cause"])
    cause = next((f for f in a.findings if f.rule == case["cause"]), None)
    if cause is not None:
        out["proposal"] = cause.proposal.text if cause.proposal else ""
        out["candidates"] = candidates(cause)
        out["status"] = cause.status
        t = cause.trial
        if t is not None:
            out["trial"] = {"changes": t.changes, "measured": t.measured, "checked": t.checked,
                            "current_ms": t.current_ms, "proposed_ms": t.proposed_ms, "after": t.after,
                            "note": t.note}
    if on_gpu and cause is not None and cause.trial is not None and cause.trial.measured:
        fixed = run_fn({**a.values, **case["fixed"]})
        ft = fixed.timing.median_ms if fixed.timing else None
        out["fixed_ms"] = ft
        cur, prop = cause.trial.current_ms, cause.trial.proposed_ms
        if ft and cur and prop and cur > ft:
            out["recovered"] = (cur - prop) / (cur - ft)
    out["seconds"] = round(time.perf_counter() - t0, 1)
    return out


def sweep_configs(case: dict[str, Any], cands: list[dict[str, Any]], values: dict[str, Any] | None = None,
                  backend: str = "gpu", cancel: Any = None, rounds: int = 5) -> dict[str, Any]:
    """One tune sweep on ``backend`` over the current values (``values``, default the case's
    slow ones), each of ``cands`` and the fixed version, timed with the engine's policy (the
    fastest re-measured interleaved, ``rounds`` rounds): ``current_ms``, ``fixed_ms``, ``tried``
    [(ms, candidate)] of the passing candidates, ``failed`` {config: why}, ``device``, ``error``."""
    from kernels import engine
    from kernels.data.results import SweepRequest
    from kernels.sources.lookup import get_spec

    spec = get_spec(case["kernel"], case["file"])
    cfg = spec.config(values or case["slow"])
    keys = sorted({k for c in [*cands, case["fixed"]] for k in c})
    pick = (lambda c: {k: c.get(k, cfg[k]) for k in keys})
    configs = [pick({})] + [pick(c) for c in cands] + [pick(case["fixed"])]
    unique = [c for i, c in enumerate(configs) if c not in configs[:i]]
    res = engine.sweep(SweepRequest(kernel=spec.name, base={k: v for k, v in cfg.items() if k not in keys}, axes={},
                                    backend=backend, mode="tune", configs=unique, torch_baseline=False,
                                    user_file=case["file"], remeasure_top=len(unique), remeasure_rounds=rounds,
                                    prune=False), cancel=cancel)
    times, failed = {}, {}
    for p in res.points:
        key = json.dumps({k: p.values.get(k, cfg[k]) for k in keys}, sort_keys=True, default=str)
        if p.timing is not None and p.result.ok:
            times[key] = p.timing.median_ms
        else:  # why a config gave no time: its error, or its check
            r = p.result
            failed[key] = (r.error.message if r.error is not None else
                           f"check failed: {getattr(r.check, 'reason', '')}" if r.check is not None else p.pruned)
    k = (lambda c: json.dumps(c, sort_keys=True, default=str))
    return {"current_ms": times.get(k(configs[0])), "fixed_ms": times.get(k(configs[-1])),
            "tried": [(times[k(pick(c))], c) for c in cands if k(pick(c)) in times], "failed": failed,
            "device": res.points[0].result.device if res.points else "",
            "error": res.error.message if res.error is not None else None}


def recovered(current: float | None, best: float | None, fixed: float | None) -> float | None:
    """(current - best) / (current - fixed); None where the fixed version is not faster."""
    if current and best and fixed and current > fixed:
        return (current - best) / (current - fixed)
    return None


def measure_case(case: dict[str, Any], found: dict[str, Any], backend: str = "gpu") -> dict[str, Any]:
    """``sweep_configs`` over each candidate the advisor proposed (``found``: the case's row of a
    ``cpu`` run): recovered = (current - best candidate) / (current - fixed)."""
    t0 = time.perf_counter()
    cands = [dict(c) for c in found.get("candidates") or []]
    s = sweep_configs(case, cands, backend=backend)
    cur, fixed = s["current_ms"], s["fixed_ms"]
    out: dict[str, Any] = {"case": case["case"], "cause": case["cause"], "backend": backend, "current_ms": cur,
                           "fixed_ms": fixed, "device": s["device"], "error": s["error"],
                           "first": found.get("first"), "ranked_first": found.get("ranked_first"),
                           "proposal": found.get("proposal", "-"), "status": found.get("status"),
                           "failed": s["failed"]}
    if s["tried"]:
        best_ms, best = min(s["tried"], key=lambda x: x[0])
        out["trial"] = {"changes": best, "measured": True, "current_ms": cur, "proposed_ms": best_ms}
        out["recovered"] = recovered(cur, best_ms, fixed)
    out["seconds"] = round(time.perf_counter() - t0, 1)
    return out


def markdown(rows: list[dict[str, Any]]) -> str:
    head = "| variant | true cause | advisor's first | ranked first | proposal | advice | recovered |\n|---|---|---|---|---|---|---|"
    lines = [head]
    for r in rows:
        t = r.get("trial") or {}
        change = ", ".join(f"{k}={v}" for k, v in (t.get("changes") or {}).items())
        if t.get("measured") and t.get("current_ms") and t.get("proposed_ms"):
            advice = f"measured: {change} {t['current_ms']:.3f} -> {t['proposed_ms']:.3f} ms"
        elif t.get("measured"):
            advice = f"measured: {change} {t.get('proposed_ms') or 0:.3f} ms; the current values gave no time"
        elif t.get("checked"):
            after = "finding gone" if (t.get("after") or {}).get("resolved") else json.dumps(t.get("after"))
            advice = f"checked by compiling {change}: {after}"
        else:
            advice = r.get("status", "-")
        rec = f"{r['recovered']:.0%}" if r.get("recovered") is not None else "-"
        lines.append(f"| {r['case']} | {r['cause']} | {r.get('first')} | {'yes' if r.get('ranked_first') else 'NO'} "
                     f"| {r.get('proposal', '-')} | {advice} | {rec} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("mode", choices=("cpu", "gpu", "measure"))
    ap.add_argument("--from", dest="found", metavar="JSONL", help="measure: the rows of a cpu run (its candidates)")
    ap.add_argument("--backend", default="gpu", help="measure: the backend the sweep times on (default gpu)")
    ap.add_argument("--json", metavar="PATH", help="append one JSON line per case")
    ap.add_argument("--md", action="store_true", help="print the markdown table at the end")
    ap.add_argument("--programs", type=int, default=1, help="programs sampled at each end of the grid")
    ap.add_argument("--only", type=int, action="append", help="run only case N (0-based; repeatable; in the order given)")
    args = ap.parse_args(argv)
    rows = []
    found = {}
    if args.found:
        found = {r["case"]: r for r in map(json.loads, Path(args.found).read_text().splitlines()) if r.get("case")}
    for i in args.only or range(len(CASES)):  # --only: those cases, in the order given
        case = CASES[i]
        try:
            row = (measure_case(case, found.get(case["case"], {}), args.backend) if args.mode == "measure"
                   else check_case(case, args.mode == "gpu", args.programs))
        except Exception as e:  # noqa: BLE001 - the other cases still run
            row = {"case": case["case"], "cause": case["cause"], "error": f"{type(e).__name__}: {e}"}
        rows.append(row)
        print(json.dumps(row, default=str), flush=True)
        if args.json:
            with open(args.json, "a") as f:
                f.write(json.dumps(row, default=str) + "\n")
    if args.md:
        print(markdown(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
