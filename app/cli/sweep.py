"""``tilescope sweep KERNEL``: every combination of the parameters given several values.

One or two parameters (the sweep view's grid) print one table, as they always did. More than two,
or any of ``--where``, ``--config``, ``--export`` (or ``--mode tune``), make a *tune* sweep
(``SweepRequest.mode="tune"``): each point is printed as it lands (a pruned one with the reason it
was skipped before compiling), then the ranking with each point's p20–p80 spread, one verdict
line per data group (the winner, and whether it stands out of the noise), configs per minute,
the pruned count, and the exports (``--export autotune|triton_op [--out FILE]``).

On the interpreter a tune sweep refuses num_warps / num_stages axes with the engine's reason:
the interpreter runs each program as plain Python, so every value would time the same program.
A grid sweep of them there still runs (the table shows it), after a one-line warning.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

from kernels.data.backends import INTERPRETER

from .common import EXIT_FAILED, EXIT_OK, CliError, error_exit, stderr_progress
from .options import add_config_args, collect_values, get_spec
from .output import fmt, fmt_ms, print_json, table, values_text
from .remote import compute, plan_sweep

__all__ = ["add_parser", "cmd_sweep", "format_point", "format_ranking", "format_sweep", "format_tune_summary"]

#: launch options a tune sweep may vary even when the kernel has no parameter of that name
_LAUNCH_ARGS = ("num_warps", "num_stages")
#: ranking rows printed per data group (``--json`` has them all)
_RANK_ROWS = 20
_EXPORT_WHAT = {"autotune": "@triton.autotune decorator", "triton_op": "torch.library.triton_op module"}


def add_parser(sub: Any) -> None:
    p = sub.add_parser("sweep", help="run every combination of parameters: a table for one or two, "
                                     "a tuning ranking for more (or with --where/--config/--export)")
    add_config_args(p, sweep=True)
    p.add_argument("--mode", choices=("grid", "tune"),
                   help="grid: one or two parameters, one table; tune: any number, ranked with their spread "
                        "(default: tune when more than two parameters vary or --where/--config/--export is given)")
    p.add_argument("--where", action="append", default=[], metavar="EXPR",
                   help="a constraint over the parameter names, e.g. 'BLOCK_M * BLOCK_N <= 16384': combinations "
                        "where it is false are not run (repeatable; implies --mode tune)")
    p.add_argument("--config", action="append", default=[], metavar="NAME=V,NAME=V",
                   help="an explicit config, e.g. BLOCK_M=128,BLOCK_N=64,num_warps=8, combined with every "
                        "combination of the swept parameters (repeatable; implies --mode tune)")
    p.add_argument("--export", choices=tuple(_EXPORT_WHAT),
                   help="print the winner and the top configs as code: an @triton.autotune decorator or a "
                        "torch.library.triton_op module (implies --mode tune)")
    p.add_argument("--out", metavar="FILE", help="with --export: write the text to FILE instead of printing it")
    p.add_argument("--target", metavar="GPU",
                   help="prune against this GPU's limits (sm_90, 8.0, H100, A100…) instead of the one running; "
                        "on the interpreter this is what prunes shared memory and registers")
    p.add_argument("--remeasure", type=int, metavar="N",
                   help="tune: re-measure the fastest N points of each group, interleaved (default 3)")
    p.add_argument("--no-prune", action="store_true", help="run configs estimated not to fit, too")
    p.add_argument("--ray", metavar="auto|ADDRESS", default="",
                   help="run the points on every GPU of a Ray cluster: auto (the running one) or its address "
                        "(pip install -e '.[cluster]'); the final re-measure runs on one GPU")
    p.add_argument("--gpus", metavar="all|0,1", default="",
                   help="run the points on these GPUs of this host through a local Ray it starts")
    p.add_argument("--ray-workers", type=int, default=0, metavar="N",
                   help="with --ray/--gpus: Ray workers to start (default: one per GPU; interpreter: per CPU)")
    p.set_defaults(func=cmd_sweep)


# ---------------------------------------------------------------------------------------------
# the request


def _split(name: str, text: str) -> list[str]:
    parts = [s.strip() for s in text.split(",")]
    if any(not s for s in parts):
        raise CliError(f"{name}={text}: an empty value in the list")
    return parts


def _sweep_values(args: argparse.Namespace, spec: Any) -> dict[str, str]:
    """Parameter name -> the text given. num_warps / num_stages the kernel has no parameter for
    are taken as launch options (a tune sweep passes them to the launch)."""
    params = {p.name for p in spec.params}
    extra = {n: getattr(args, n) for n in _LAUNCH_ARGS if getattr(args, n) is not None and n not in params}
    saved = {n: getattr(args, n) for n in extra}
    for n in extra:
        setattr(args, n, None)
    try:
        values = collect_values(args, spec)
    finally:
        for n, v in saved.items():
            setattr(args, n, v)
    return {**values, **extra}


def _sweep_axes(args: argparse.Namespace, spec: Any) -> tuple[dict[str, Any], dict[str, list[str]]]:
    base: dict[str, Any] = {}
    axes: dict[str, list[str]] = {}
    for k, v in _sweep_values(args, spec).items():
        parts = _split(k, v)
        if len(parts) > 1:
            axes[k] = parts
        else:
            base[k] = parts[0]
    return base, axes


def _configs(args: argparse.Namespace) -> list[dict[str, str]]:
    out = []
    for text in args.config:
        cfg: dict[str, str] = {}
        for part in (s for s in re.split(r"[,\s]+", text.strip()) if s):
            name, sep, value = part.partition("=")
            if not sep or not name or not value:
                raise CliError(f"--config expects NAME=VALUE pairs separated by commas, got {text!r}")
            cfg[name] = value
        if not cfg:
            raise CliError("--config: an empty config")
        out.append(cfg)
    return out


def _mode(args: argparse.Namespace, axes: dict[str, list[str]]) -> tuple[str, str]:
    """(the mode, why tune was implied — "" when it was asked for or not implied)."""
    if args.mode:
        return args.mode, ""
    why = [f"{len(axes)} parameters vary"] if len(axes) > 2 else []
    why += [opt for opt, given in (("--where", args.where), ("--config", args.config), ("--export", args.export))
            if given]
    return ("tune" if why else "grid"), ", ".join(why)


def _request(args: argparse.Namespace, spec: Any) -> tuple[Any, str]:
    from kernels.data.results import SweepRequest

    base, axes = _sweep_axes(args, spec)
    configs = _configs(args)
    if not axes and not configs:
        raise CliError("nothing to sweep: give parameters several values, e.g. --param BLOCK_SIZE=64,128,256 "
                       "(or explicit configs with --config)")
    mode, implied = _mode(args, axes)
    if args.out and not args.export:
        raise CliError("--out writes an export: give --export autotune or --export triton_op")
    if mode == "grid" and (args.export or args.config or args.where):
        raise CliError("--where, --config and --export are for a tune sweep: leave out --mode grid")
    req = SweepRequest(kernel=spec.name, base=base, axes=axes, backend=args.backend, seed=args.seed,
                       torch_baseline=not args.no_torch, user_file=args.file, mode=mode, configs=configs,
                       where=list(args.where), prune=not args.no_prune, target=args.target or "",
                       remeasure_top=args.remeasure, cluster=args.ray or ("local" if args.gpus else ""),
                       gpus=args.gpus, ray_workers=max(0, args.ray_workers))
    return req, implied


# ---------------------------------------------------------------------------------------------
# running


def cmd_sweep(args: argparse.Namespace) -> int:
    spec = get_spec(args)
    req, implied = _request(args, spec)
    if req.mode == "tune":
        return _cmd_tune(args, spec, req, implied)
    progress = stderr_progress() if sys.stderr.isatty() and not args.json else None
    res = compute("sweep", req, args, progress=progress)  # a user file or --timeout: in a worker
    if res.error is not None and not res.points:
        if args.json:
            print_json(res)
        return error_exit(res.error, args.verbose)
    # every point refused for the same bad input (e.g. a shape too large): say it once
    errs = {p.result.error.message: p.result.error for p in res.points if p.result.error}
    all_bad = res.points and all(p.result.error is not None for p in res.points)
    _warn_launch_axes(spec, req, res)
    if args.json:
        print_json(res)
    else:
        print(format_sweep(res, spec.metric))
    if res.error is not None:  # stopped (its worker died, timed out): the points above are kept
        return error_exit(res.error, args.verbose)
    if all_bad and len(errs) == 1:
        return error_exit(next(iter(errs.values())), args.verbose)
    if res.best is None and not any(p.result.ok for p in res.points):
        print("error: no point of the sweep passed its check (see the table)", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


def _warn_launch_axes(spec: Any, req: Any, res: Any) -> None:
    """One line on stderr when a grid sweep on the interpreter varies launch options: no effect there."""
    launch = {p.name for p in spec.params if p.kind == "launch"} | set(_LAUNCH_ARGS)
    names = [n for n in req.axes if n in launch]
    if names and any(p.result.backend == INTERPRETER for p in res.points):
        print(f"warning: {' and '.join(names)} {'has' if len(names) == 1 else 'have'} no effect under the "
              "interpreter (every value runs the same program): sweep on a GPU to compare them", file=sys.stderr)


def _refusal(err: Any, req: Any, implied: str) -> Any:
    """The engine's refusal, saying why this became a tune sweep when the user did not ask."""
    if implied and err.field in _LAUNCH_ARGS and len(req.axes) > 2:
        from kernels.data.results import ErrorInfo

        return ErrorInfo(err.kind, f"{err.message} ({implied}, so this is a tune sweep; "
                                   "a grid sweep takes at most two parameters)", err.field, err.detail)
    return err


def _cmd_tune(args: argparse.Namespace, spec: Any, req: Any, implied: str) -> int:
    from kernels.data.errors import to_error_info

    try:
        plan = plan_sweep(req, args)
    except Exception as e:  # noqa: BLE001 - a refusal (bad axis, launch option on the interpreter…)
        return error_exit(_refusal(to_error_info(e), req, implied), args.verbose)
    names = list(plan.space.names)
    widths = {n: max(len(n) + 1 + len(str(v.get(n))) for v in plan.space.points) for n in names} \
        if plan.space.points else {}
    total = len(plan.jobs)
    if not args.json:
        print(_header(spec, req, plan, implied), flush=True)
    landed = [0]

    def on_point(p: Any) -> None:
        landed[0] += 1
        print(format_point(p, landed[0], total, names, widths, spec.metric), flush=True)

    res = compute("sweep", req, args, on_point=None if args.json else on_point)
    if res.error is not None and not res.points:
        if args.json:
            print_json(res)
        return error_exit(_refusal(res.error, req, implied), args.verbose)
    if args.json:
        print_json(res)
    else:
        print(format_ranking(res, spec.metric))
        print(format_tune_summary(res, plan.notes))
    if res.error is not None:  # stopped early: the points above are kept
        return error_exit(res.error, args.verbose)
    code = _export(args, res)
    if code != EXIT_OK:
        return code
    if res.best is None:
        print("error: no point of the sweep passed its check (see the points above)", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


def _header(spec: Any, req: Any, plan: Any, implied: str) -> str:
    space = plan.space
    dims = " × ".join(f"{n} ({len(req.axes[n])})" for n in req.axes)
    if req.configs:
        dims = (dims + " × " if dims else "") + f"{len(req.configs)} config{'s' if len(req.configs) != 1 else ''}"
    combos = len(plan.jobs) + space.filtered + space.skipped
    lines = [f"tune sweep of {spec.name} on {plan.backend.device_name} [{plan.backend.name}]"
             + (f" ({implied})" if implied else ""),
             f"space: {dims} = {combos:,} combinations"
             + (f", {space.filtered:,} removed by --where" if space.filtered else "")
             + f": {len(plan.jobs):,} to run"
             + (f", {plan.n_pruned:,} of them pruned before compiling" if plan.n_pruned else ""),
             f"fixed: {values_text(req.base) or '-'}"]
    lines += [f"note: {n}" for n in plan.notes]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------
# output


def _compile_text(c: Any) -> str:
    """Compile facts of a run, when it has them."""
    if c is None:
        return ""
    bits = []
    if c.n_regs is not None:
        bits.append(f"regs {c.n_regs}")
    if c.n_spills is not None:
        bits.append(f"spills {c.n_spills}")
    if c.shared_bytes is not None:
        bits.append(f"shared {c.shared_bytes:,} B")
    if c.occupancy_warps_pct is not None:
        bits.append(f"occupancy {c.occupancy_warps_pct:.0f}%" + (f" ({c.occupancy_limiter})" if c.occupancy_limiter
                                                                else ""))
    return ", ".join(bits)


def _figure(r: Any, metric: str) -> float | None:
    m = r.metrics
    if m is None or r.backend == INTERPRETER:
        return None
    return m.tflops if metric == "TFLOP/s" else m.gbps


def format_point(p: Any, k: int, total: int, names: list[str], widths: dict[str, int], metric: str) -> str:
    """One landed point: ``[ 3/12] BLOCK_M=64 BLOCK_N=32  pass  1.234 ms  812 GB/s  regs 96, …``."""
    r = p.result
    head = f"[{k:>{len(str(total))}}/{total}] " + "  ".join(
        f"{n}={p.values.get(n)}".ljust(widths.get(n, 0)) for n in names)
    if p.pruned:
        return f"{head}  pruned: {p.pruned}"
    if r.error is not None:
        return f"{head}  error: {r.error.kind}: {r.error.message}"
    if r.check is not None and not r.check.passed:
        return f"{head}  FAIL: {r.check.reason or 'wrong answer'}"
    bits = ["pass" if r.check is not None else "-",
            f"{fmt_ms(r.timing.median_ms if r.timing else None)} ms"]
    val = _figure(r, metric)
    if val is not None:
        bits.append(f"{fmt(val, 4)} {metric}")
    facts = _compile_text(r.compile)
    if facts:
        bits.append(facts)
    if p.compile_s is not None:
        bits.append(f"compiled ahead in {p.compile_s:.2f} s")
    return f"{head}  " + "  ".join(bits)


def format_ranking(res: Any, metric: str) -> str:
    """The ranking table (fastest first in each data group), then the verdicts."""
    if not res.ranking:
        return "\nranking: no point passed its check"
    grouped = any(e.group for e in res.ranking)
    interp = any(res.points[e.index].result.backend == INTERPRETER for e in res.ranking)
    headers = ["rank", *(["group"] if grouped else []), *res.names, "median ms", "p20–p80 ms", "reps", "× best",
               *([] if interp else [metric]), "noise"]
    rows, shown, left = [], {}, {}
    for e in res.ranking:
        shown[e.group] = shown.get(e.group, 0) + 1
        if shown[e.group] > _RANK_ROWS:
            left[e.group] = left.get(e.group, 0) + 1
            continue
        p = res.points[e.index]
        val = _figure(p.result, metric)
        if val is not None and p.remeasured is not None and p.result.timing is not None and e.median_ms > 0:
            val *= p.result.timing.median_ms / e.median_ms  # the figure at the re-measured time
        rows.append([str(e.rank), *([e.group] if grouped else []), *(str(p.values.get(n)) for n in res.names),
                     fmt_ms(e.median_ms), f"{fmt_ms(e.p20_ms)}–{fmt_ms(e.p80_ms)}",
                     f"{e.n_reps}{' re-measured' if e.remeasured else ''}", f"{e.ratio_to_best:.2f}×",
                     *([] if interp else [fmt(val, 4)]),
                     "winner" if e.rank == 1 else ("within the noise" if e.within_noise else "")])
    text = ["", "ranking (fastest first" + (", per data group)" if grouped else ")"), table(headers, rows)]
    for g, n in left.items():
        text.append(f"… and {n} more{f' in [{g}]' if g else ''} (--json lists every point)")
    text.append("")
    text += [f"verdict: {v}" for v in res.verdicts]
    return "\n".join(text)


def format_tune_summary(res: Any, shown_notes: Any = ()) -> str:
    """How fast the tuning went, what was skipped, the notes (but ``shown_notes``, printed already)."""
    ran = sum(1 for p in res.points if not p.pruned)
    total_s = res.phases.get("total", 0.0)
    rate = f"{60.0 * ran / total_s:,.1f} configs/minute" if total_s > 0 and ran else "no config ran"
    phases = ", ".join(f"{k} {v:.1f} s" for k, v in res.phases.items() if k != "total")
    lines = ["", f"{ran:,} configs run in {total_s:.1f} s: {rate}" + (f" ({phases})" if phases else ""),
             f"pruned before compiling: {res.n_pruned:,}" + (f"; removed by --where: {res.filtered:,}"
                                                              if res.filtered else "")]
    if res.points:
        r0 = res.points[0].result
        lines.append(f"{r0.kernel} on {r0.device} [{r0.backend}], fixed: {values_text(res.request.base) or '-'}")
        timed = next((p.timing for p in res.points if p.timing is not None), None)
        if timed is not None:
            lines.append(f"timing: {timed.method}")
    lines += [f"note: {n}" for n in res.notes if n not in shown_notes]
    if res.error is not None:
        lines.append(f"stopped: {res.error.message}")
    if res.exports:
        lines.append("exports: " + ", ".join(res.exports) + " (--export NAME [--out FILE] writes one)")
    return "\n".join(lines)


def _export(args: argparse.Namespace, res: Any) -> int:
    if not args.export:
        return EXIT_OK
    text = res.exports.get(args.export)
    if not text:
        why = next((n for n in res.notes if n.startswith("export")), "no point passed its check")
        print(f"error: nothing to export as {args.export}: {why}", file=sys.stderr)
        return EXIT_FAILED
    if args.out:
        path = Path(args.out).expanduser()
        try:
            path.write_text(text, encoding="utf-8")
        except OSError as e:
            print(f"error: cannot write {path}: {e.strerror or e}", file=sys.stderr)
            return EXIT_FAILED
        if not args.json:
            print(f"{_EXPORT_WHAT[args.export]} written to {path}")
    elif not args.json:
        print(f"\n# --export {args.export}: {_EXPORT_WHAT[args.export]}\n{text}", end="")
    return EXIT_OK


def format_sweep(res: Any, metric: str) -> str:
    names = list(res.request.axes)
    headers = [*names, "check", "Triton ms", "torch ms", metric, "ratio", "regs", "prog/SM", "SM MHz", "", "note"]
    rows = []
    for i, p in enumerate(res.points):
        r = p.result
        m = r.metrics
        val = None
        if m is not None:
            val = m.tflops if metric == "TFLOP/s" else m.gbps
        check = "-" if r.check is None else ("pass" if r.check.passed else "FAIL")
        note = r.error.message if r.error else (r.check.reason if r.check and not r.check.passed else "")
        rows.append([*(str(p.values[n]) for n in names), "error" if r.error else check,
                     fmt_ms(r.timing.median_ms if r.timing else None),
                     fmt_ms(m.torch_timing.median_ms if m and m.torch_timing else None),
                     fmt(val, 4), fmt(m.ratio_vs_torch if m else None),
                     str(r.compile.n_regs) if r.compile and r.compile.n_regs is not None else "-",
                     str(r.compile.programs_per_sm) if r.compile and r.compile.programs_per_sm is not None else "-",
                     _clock_cell(r), "* best" if i == res.best else "", note])
    text = [table(headers, rows)]
    if res.points:
        r0 = res.points[0].result
        text.append(f"\n{r0.kernel} on {r0.device} [{r0.backend}], fixed: {values_text(res.request.base) or '-'}")
        if r0.timing is not None:
            text.append(f"timing: {r0.timing.method}")
    tuned = list(getattr(res, "tuned_names", None) or names)
    winners = [e for e in res.ranking if e.rank == 1]
    if len(winners) > 1:  # one winner per problem size: never a problem size among the tuned values
        for e in winners:
            b = res.points[e.index]
            text.append(f"best for {e.group}: {values_text({n: b.values[n] for n in tuned if n in b.values})} — "
                        f"{fmt_ms(e.median_ms)} ms")
    elif res.best is not None:
        b = res.points[res.best]
        shown = {n: b.values[n] for n in tuned if n in b.values} or b.values
        text.append(f"best: {values_text(shown)} — {fmt_ms(b.result.timing.median_ms)} ms")
    else:
        text += [f"verdict: {v}" for v in res.verdicts if v.startswith("no winner")]
    text += [f"note: {n}" for n in res.notes if "no effect under the interpreter" in n]
    if any(p.result.clocks is not None and p.result.clocks.throttled for p in res.points):
        text.append("SM MHz marked *: throttled or not steady while timed (see --json clocks)")
    if res.error is not None:
        text.append(f"stopped: {res.error.message}")
    return "\n".join(text)


def _clock_cell(r: Any) -> str:
    c = getattr(r, "clocks", None)
    if r.timing is None or r.timing.is_interpreter or c is None:
        return "-"
    if not c.known:
        return "?"
    return f"{c.sm_mhz}{'*' if c.throttled else ''}"
