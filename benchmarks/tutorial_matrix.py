"""The tutorial matrix: every Triton tutorial, opened as it is, on this machine's backend.

    python benchmarks/tutorial_matrix.py DIR [--backend interpreter|gpu] [--plain] [--out FILE.json]
                                             [--only NAME ...] [--budget 60] [--jobs 1]
    python benchmarks/tutorial_matrix.py --table FILE.json [FILE.json ...]   # the markdown table
    python benchmarks/tutorial_matrix.py --combined GPU.json "3.9=CPU39.json" "3.6=CPU36.json"  # + counts
    python benchmarks/tutorial_matrix.py --merge GPU.json RERUN.json   # a re-run of a few rows, folded in

DIR holds the tutorials (``*.py`` and ``gluon/*.py``), saved unchanged. For each one, in a fresh
process (``--jobs`` at a time):

- ``--plain``: the tutorial run as plain Python (``python FILE``, its own argv, nothing of
  Tilescope loaded) up to its first benchmark — ``triton.testing.do_bench``/``perf_report`` end
  the run there (``benchmarks/_plain_run.py``; one call of the function measured first where
  nothing was launched before it, as the capture does), everything before is the script's own code; its
  Triton launches are counted (a tutorial that launches nothing there and in Tilescope — 10 below
  sm_100 — behaves as plain Python does: ``launches_nothing_as_plain``, not a failure);
- Tilescope open (``kernels.script.open_script``): launches captured, or the one-line answer;
- first launch as captured: run and checked against its golden outputs (PASS/FAIL);
- a changed configuration: the next of the script's autotune configs, else num_warps changed and
  the first power-of-two block constexpr doubled (halved above 1024), run and checked;
- trace: the interpreter trace of the first launch (CPU); on a GPU, the interpreter-vs-GPU
  compare of it (``kernels.engine.trace_router.compare_backends``: outputs equal within twice the
  tolerance, writer maps recorded on the GPU).

Each stage has a time limit (``--budget`` seconds, the capture's own budget too; three times that
for the trace) and reports its
own failure; the JSON keeps every message. On the CPU each process may map at most ``--mem-gb``
(8) GiB, so a tutorial that allocates GPU-sized inputs on the host fails alone instead of starving
the machine. Needs torch and triton, no Qt.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PLAIN = Path(__file__).with_name("_plain_run.py")


def tutorials(folder: Path, only: list[str]) -> list[Path]:
    found = sorted(folder.glob("*.py")) + sorted(folder.glob("gluon/*.py"))
    found = [p for p in found if p.name != "conftest.py"]
    return [p for p in found if not only or any(o in str(p) for o in only)]


def first_line(text: str, limit: int = 240) -> str:
    text = (text or "").strip()
    return (text.splitlines()[0] if text else "")[:limit]


# -- one tutorial, in this process (the child) ----------------------------------------------------

def _changed(spec) -> dict:
    """A configuration other than the captured one: the next of the script's autotune configs;
    without autotune, num_warps changed (4 <-> 8) and the first
    power-of-two block size doubled (halved above 1024: a softmax row must fit its block, so
    smaller is not always valid; larger is)."""
    tuned = next((p for p in spec.params if p.name == "autotune_config"), None)
    if tuned is not None and len(tuned.choices) > 1:  # another of the script's own configs: valid by design
        return {"autotune_config": (int(tuned.default) + 1) % len(tuned.choices)}
    warps = next((int(p.default) for p in spec.params if p.name == "num_warps"), 4)
    out = {"num_warps": 8 if warps != 8 else 4}
    for p in spec.params:
        if p.kind == "constexpr" and getattr(p, "pow2", False) and "BLOCK" in p.name.upper():
            v = int(p.default)
            out[p.name] = v * 2 if v <= 1024 else v // 2
            break
    return out


def _run(spec, values: dict, backend: str) -> dict:
    from kernels import engine
    from kernels.data.results import RunRequest

    t0 = time.perf_counter()
    r = engine.run(RunRequest(spec.name, values, backend=backend, bench=False, torch_baseline=False,
                              compile_facts=False, keep_asm=False))
    out = {"s": round(time.perf_counter() - t0, 2), "values": {k: str(v) for k, v in values.items()}}
    if r.error is not None:
        out.update(verdict="ERROR", message=f"{r.error.kind}: {first_line(r.error.message)}")
    elif r.check is None:
        out.update(verdict="NO CHECK", message="the run gave no check")
    else:
        c = r.check
        out.update(verdict="PASS" if c.passed else "FAIL", message=f"{c.output}: {c.n_mismatch} of {c.n_elements} "
                   f"mismatched, max error {c.max_abs_err:.3g}" + (f"; {c.reason}" if c.reason else ""))
    return out


def _trace(spec, backend: str, seconds: float | None = None) -> dict:
    t0 = time.perf_counter()
    if backend == "gpu":
        from kernels.data.trace import TraceRequest
        from kernels.engine.trace_router import compare_backends
        from kernels.gpu_trace.bounded import COMPARE_BUDGET_S

        c = compare_backends(TraceRequest(spec.name, {}, backend="gpu", compare=True),  # its interpreter
                             budget_s=min(COMPARE_BUDGET_S, max(1.0, (seconds or COMPARE_BUDGET_S) - 5)))  # in time
        out = {"s": round(time.perf_counter() - t0, 2)}
        if c.error is not None:
            return {**out, "verdict": "ERROR", "message": f"{c.error.kind}: {first_line(c.error.message)}"}
        n = c.n_differ
        where = f"programs {c.compared} of {c.n_programs}" if c.compared else f"all {c.n_programs} programs"
        return {**out, "verdict": "EQUAL" if n == 0 and c.outputs else ("DIFFERENT" if n else "NOTHING COMPARED"),
                "message": f"{n} elements differ over {len(c.outputs)} outputs ({where})"
                + (f"; not compared: {', '.join(c.not_compared)}" if c.not_compared else "")}
    from kernels.trace import trace_spec

    tr = trace_spec(spec, {})
    return {"s": round(time.perf_counter() - t0, 2), "verdict": "TRACED",
            "message": f"grid {tr.grid}, {len(tr.events.program)} accesses, {len(tr.oob)} out of bounds"}


def _limited(fn, seconds: float):
    """``fn()``, stopped with TimeoutError after ``seconds`` (SIGALRM: the interpreter's Python
    loop is interrupted between bytecodes)."""
    import signal

    def expire(*_):
        raise TimeoutError(f"still running after {seconds:g} s")

    old = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return fn()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def open_cell(cap, specs: list, seconds: float) -> dict:
    """The open column of a row: launches captured, why the capture stopped, its notes."""
    return {"s": round(seconds, 2), "launches": len(specs), "verdict": f"{len(specs)} launch{'es' if len(specs) != 1 else ''}",
            "stopped": cap.stopped, "error": cap.error, "notes": cap.notes[:6],
            "kernels": [rec.kernel for rec in cap.launches]}


def one(path: str, backend: str, budget: float, row_limit: float | None = None) -> dict:
    """Open, run, re-run changed, trace: what happened at each stage. With ``row_limit``, the
    stages after the open share what is left of that many seconds (a stage with under a second
    left is not run, and says so)."""
    end = time.monotonic() + row_limit if row_limit else None
    sys.argv = [path]
    row: dict = {"tutorial": path, "backend": backend}
    from kernels.script import open_script

    t0 = time.perf_counter()
    try:
        cap, specs = open_script(path, backend, budget_s=budget)
    except Exception as e:  # noqa: BLE001 - the row says what failed
        row["open"] = {"verdict": "ERROR", "message": f"{type(e).__name__}: {first_line(str(e))}"}
        return row
    row["open"] = open_cell(cap, specs, time.perf_counter() - t0)
    if not specs:
        return row
    spec = specs[0]
    left = lambda: end - time.monotonic() if end else float("inf")  # noqa: E731
    for stage, fn in (("first", lambda: _run(spec, {}, backend)),
                      ("changed", lambda: _run(spec, _changed(spec), backend)),
                      ("trace", lambda: _trace(spec, backend, min(budget * 3, left())))):
        if left() < 1:
            row[stage] = {"verdict": "NOT RUN", "message": f"no time left of the row's {row_limit:g} s"}
            continue
        try:
            row[stage] = _limited(fn, min(budget * (3 if stage == "trace" else 1), left()))
        except Exception as e:  # noqa: BLE001 - each stage reports its own failure
            row[stage] = {"verdict": "ERROR", "message": f"{type(e).__name__}: {first_line(str(e))}"}
    return row


# -- the parent: one process per tutorial -------------------------------------------------------------

def _memory_limit(gb: float):
    """A preexec_fn capping the child's address space (None: no cap)."""
    if not gb:
        return None

    def cap() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (int(gb * (1 << 30)),) * 2)
    return cap


def plain_row(path: Path, limit: float, mem_gb: float = 0.0) -> dict:
    """``python FILE`` through ``_plain_run.py``, in the script's own folder: verdict, launches, the
    runner's last word. The path is made absolute first: a relative one, given to a child whose
    working folder is the script's, named the folder twice (``tutorials/gluon/tutorials/gluon/…``:
    every Gluon tutorial "failed" on the H200 that way)."""
    path = Path(path).resolve()
    t0 = time.perf_counter()
    try:
        p = subprocess.run([sys.executable, str(PLAIN), str(path)], capture_output=True, text=True,
                           timeout=limit, cwd=str(path.parent), env=dict(os.environ),
                           preexec_fn=_memory_limit(mem_gb))
    except subprocess.TimeoutExpired:
        return {"verdict": "TIMEOUT", "message": f"still running after {limit:g} s"}
    tail = [ln for ln in (p.stdout + p.stderr).strip().splitlines() if ln.strip()]
    said = [ln for ln in p.stdout.splitlines() if ln.strip() and not ln.startswith("plain run:")]
    end = [ln for ln in p.stdout.splitlines() if ln.startswith("plain run:")]  # the runner's last word
    n = re.search(r"; (\d+) Triton launches$", end[-1]) if end else None
    return {"s": round(time.perf_counter() - t0, 1), "rc": p.returncode,
            "verdict": "RUNS" if p.returncode == 0 else "FAILS",
            "message": (end or tail or [""])[-1][:240],
            "launches": int(n.group(1)) if n else None,  # None: the runner did not say
            "printed": said[-1][:240] if said else ""}


def _child(path: Path, args: argparse.Namespace) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    mem = args.mem_gb if args.mem_gb is not None else (8.0 if args.backend == "interpreter" else 0.0)
    row: dict = {"tutorial": str(path.relative_to(args.dir)), "backend": args.backend, "budget": args.budget,
                 "row_limit": args.row_limit}
    limit = args.row_limit + 60 if args.row_limit else args.budget * 7 + 120
    if args.plain:
        row["plain"] = plain_row(path, args.budget * 2, mem)
    code = (f"import json, sys; sys.path.insert(0, {str(ROOT)!r}); from benchmarks.tutorial_matrix import one; "
            f"print('@@ROW ' + json.dumps(one({str(path.resolve())!r}, {args.backend!r}, {args.budget!r}, {args.row_limit!r})))")
    t0 = time.perf_counter()
    try:
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=limit,
                           cwd=str(ROOT), env=env, preexec_fn=_memory_limit(mem))
        got = [ln for ln in p.stdout.splitlines() if ln.startswith("@@ROW ")]
        if got:
            row.update({k: v for k, v in json.loads(got[-1][6:]).items() if k not in ("tutorial",)})
        else:
            tail = [ln for ln in (p.stdout + p.stderr).strip().splitlines() if ln.strip()]
            row["open"] = {"verdict": "CRASHED", "message": f"rc {p.returncode}: {tail[-1][:240] if tail else ''}"}
    except subprocess.TimeoutExpired:
        row["open"] = {"verdict": "TIMEOUT", "message": f"the whole row took over {limit:g} s"}
    row["wall_s"] = round(time.perf_counter() - t0, 1)
    return row


def _cell(d: dict | None) -> str:
    if not d:
        return "—"
    v = d.get("verdict", "")
    m = d.get("message") or d.get("error") or d.get("stopped") or ""
    return f"{v}" + (f": {m[:110]}" if m and v not in ("PASS", "RUNS", "EQUAL") else "")


def table(rows: list[dict]) -> str:
    out = ["| tutorial | backend | plain Python | open | first launch | changed config | trace |",
           "| --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        out.append("| " + " | ".join([r["tutorial"], r["backend"], _cell(r.get("plain")), _cell(r.get("open")),
                                      _cell(r.get("first")), _cell(r.get("changed")), _cell(r.get("trace"))])
                   .replace("\n", " ") + " |")
    return "\n".join(out)


def _short(d: dict | None, width: int = 70) -> str:
    if not d:
        return "—"
    v = d.get("verdict", "")
    m = d.get("error") or d.get("stopped") or ("" if v in ("PASS", "RUNS", "EQUAL", "TRACED") else d.get("message", ""))
    over = re.search(r"TimeoutError: (still running after [0-9.]+ s)", m)
    if over:  # the matrix's own stage limit (SIGALRM), whatever layer it interrupted
        return f"over the limit ({over.group(1)})"
    m = re.sub(r"stopped: it reached its benchmark \([^)]*\)", "to its benchmark", m).replace("|", "/")
    return (v + (f" ({m[:width]}{'…' if len(m) > width else ''})" if m else "")).replace("\n", " ")


def launches_nothing_as_plain(row: dict, gpu_row: dict | None = None) -> bool:
    """The tutorial launches no kernel as plain Python on the GPU (``gpu_row``'s plain run ran to its
    end, its launch count 0 where the runner counted, and Tilescope's capture there — the script run
    as it is, every launch observed — saw none), and Tilescope gives the same answer in ``row``: no
    launch, no error, not stopped by its budget. Tutorial 10 below sm_100: not a failure."""
    ref = gpu_row if gpu_row is not None else row
    plain, seen, o = ref.get("plain") or {}, ref.get("open") or {}, row.get("open") or {}
    ran_out = lambda d: (d.get("stopped") or "").startswith("stopped")  # noqa: E731 - a budget, a benchmark
    return (plain.get("verdict") == "RUNS" and plain.get("launches") in (0, None)
            and seen.get("launches") == 0 and not seen.get("error") and not ran_out(seen)
            and o.get("launches") == 0 and not o.get("error") and not ran_out(o))


def counts(label: str, rows: list[dict], gpu: list[dict]) -> str:
    """One paragraph: how many of the tutorials open with their first launch PASS, re-run PASS with
    a changed configuration, trace; which launch nothing as plain Python does; the rest, named."""
    by = {r["tutorial"]: r for r in gpu}
    name = lambda r: Path(r["tutorial"]).stem.split("-")[0] if "/" not in r["tutorial"] \
        else "Gluon " + Path(r["tutorial"]).stem.split("-")[0]  # noqa: E731
    ok = [r for r in rows if (r.get("first") or {}).get("verdict") == "PASS"]
    changed = [r for r in ok if (r.get("changed") or {}).get("verdict") == "PASS"]
    traced = [r for r in ok if (r.get("trace") or {}).get("verdict") in ("EQUAL", "TRACED")]
    plain = [r for r in rows if r not in ok and launches_nothing_as_plain(r, by.get(r["tutorial"]))]
    rest = [r for r in rows if r not in ok and r not in plain]
    names = lambda rs: ", ".join(name(r) for r in rs) or "none"  # noqa: E731
    return (f"**{label}**: {len(ok)} of {len(rows)} open with their first launch PASS ({names(ok)}); "
            f"{len(changed)} of them PASS a changed configuration, {len(traced)} trace "
            f"({'equal to the interpreter' if label.startswith('H200') else 'under the interpreter'}); "
            f"{len(plain)} launch{'es' if len(plain) == 1 else ''} nothing, as plain Python on the H200 does "
            f"({names(plain)}); "
            f"the other {len(rest)}: {names(rest)}.")


def combined(gpu: list[dict], cpus: list[tuple[str, list[dict]]]) -> str:
    """One row per tutorial: the H200's columns, then open / first launch / changed / trace per CPU run."""
    by = {r["tutorial"]: r for r in gpu}
    names = sorted({r["tutorial"] for r in gpu} | {r["tutorial"] for _, rows in cpus for r in rows})
    head = ["tutorial", "plain Python (H200)", "open (H200)", "first launch", "changed config", "GPU trace = interpreter"]
    head += [f"CPU {label}: open · first · changed · trace" for label, _ in cpus]
    out = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    for n in names:
        g = by.get(n, {})
        opened = _short(g.get("open")) + (", as plain Python" if g and launches_nothing_as_plain(g) else "")
        cells = [n, _short(g.get("plain")), opened, _short(g.get("first"), 50),
                 _short(g.get("changed"), 50), _short(g.get("trace"), 50)]
        for _, rows in cpus:
            c = next((r for r in rows if r["tutorial"] == n), {})
            parts = [_short(c.get(k), 50) for k in ("open", "first", "changed", "trace")]
            cells.append(" · ".join(p for p in parts if p != "—") or "—")
        out.append("| " + " | ".join(cells) + " |")
    out.append("")
    out.append("- " + counts("H200 (Triton 3.6)", gpu, gpu))
    out += ["- " + counts(f"CPU, Triton {label}", rows, gpu) for label, rows in cpus]
    return "\n".join(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir", nargs="?", type=Path)
    ap.add_argument("--backend", default="interpreter", choices=("interpreter", "gpu"))
    ap.add_argument("--plain", action="store_true", help="also run each tutorial as plain Python first")
    ap.add_argument("--budget", type=float, default=60.0, help="seconds for each script's capture")
    ap.add_argument("--row-limit", type=float, default=None, metavar="SECONDS",
                    help="seconds for open and the stages after it together, in each tutorial's process")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--mem-gb", type=float, default=None, help="address-space cap per process (CPU default 8)")
    ap.add_argument("--only", nargs="*", default=[])
    ap.add_argument("--out", type=Path)
    ap.add_argument("--table", nargs="*", type=Path, help="print the markdown table of these JSON files")
    ap.add_argument("--combined", nargs="+", metavar="GPU.json [LABEL=CPU.json ...]",
                    help="one table: the GPU run's columns, then each CPU run's; the counts under it")
    ap.add_argument("--merge", nargs=2, type=Path, metavar=("INTO.json", "NEW.json"),
                    help="INTO's rows updated with NEW's cells for the same tutorials (a re-run of a few), in place")
    args = ap.parse_args()
    if args.merge:
        into, new = (json.loads(f.read_text()) for f in args.merge)
        fresh = {r["tutorial"]: r for r in new}  # a stage the re-run skipped (--plain) keeps its old cell
        rows = [{**r, **fresh.pop(r["tutorial"], {})} for r in into] + list(fresh.values())
        args.merge[0].write_text(json.dumps(sorted(rows, key=lambda r: r["tutorial"]), indent=1))
        print(f"{args.merge[0]}: {len(new)} row(s) from {args.merge[1]}")
        return 0
    if args.combined:
        gpu = json.loads(Path(args.combined[0]).read_text())
        cpus = [(a.split("=", 1)[0], json.loads(Path(a.split("=", 1)[1]).read_text())) for a in args.combined[1:]]
        print(combined(gpu, cpus))
        return 0
    if args.table:
        rows = [r for f in args.table for r in json.loads(f.read_text())]
        print(table(rows))
        return 0
    from concurrent.futures import ThreadPoolExecutor, as_completed

    paths = tutorials(args.dir, args.only)
    rows: list[dict] = []
    with ThreadPoolExecutor(max(1, args.jobs)) as pool:
        for done in as_completed([pool.submit(_child, p, args) for p in paths]):  # saved as each ends
            rows.append(done.result())
            print(json.dumps(rows[-1]), flush=True)
            if args.out:
                args.out.write_text(json.dumps(sorted(rows, key=lambda r: r["tutorial"]), indent=1))
    print(table(sorted(rows, key=lambda r: r["tutorial"])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
