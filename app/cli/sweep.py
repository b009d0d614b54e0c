"""``tilescope sweep KERNEL``: every combination of one or two parameters, as a table."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .common import EXIT_FAILED, EXIT_OK, CliError, error_exit, in_worker, stderr_progress
from .options import add_config_args, collect_values, get_spec
from .output import fmt, fmt_ms, print_json, table, values_text

__all__ = ["add_parser", "cmd_sweep", "format_sweep"]


def add_parser(sub: Any) -> None:
    p = sub.add_parser("sweep", help="run every combination of one or two parameters")
    add_config_args(p, sweep=True)
    p.set_defaults(func=cmd_sweep)


def _sweep_axes(args: argparse.Namespace, spec: Any) -> tuple[dict[str, Any], dict[str, list[str]]]:
    values = collect_values(args, spec)
    base: dict[str, Any] = {}
    axes: dict[str, list[str]] = {}
    for k, v in values.items():
        parts = [s.strip() for s in v.split(",")]
        if any(not s for s in parts):
            raise CliError(f"{k}={v}: an empty value in the list")
        if len(parts) > 1:
            axes[k] = parts
        else:
            base[k] = parts[0]
    if not axes:
        raise CliError("nothing to sweep: give one or two parameters several values, "
                       "e.g. --param BLOCK_SIZE=64,128,256")
    if len(axes) > 2:
        raise CliError(f"a sweep takes at most two parameters with several values, got {len(axes)}: "
                       f"{', '.join(axes)}")
    return base, axes


def cmd_sweep(args: argparse.Namespace) -> int:
    from kernels import engine
    from kernels.data.results import SweepRequest

    spec = get_spec(args)
    base, axes = _sweep_axes(args, spec)
    req = SweepRequest(kernel=spec.name, base=base, axes=axes, backend=args.backend, seed=args.seed,
                       torch_baseline=not args.no_torch, user_file=args.file)
    progress = stderr_progress() if sys.stderr.isatty() and not args.json else None
    res = (in_worker("sweep", req, args.timeout) if args.timeout is not None
           else engine.sweep(req, progress=progress))
    if res.error is not None and not res.points:
        if args.json:
            print_json(res)
        return error_exit(res.error, args.verbose)
    # every point refused for the same bad input (e.g. a shape too large): say it once
    errs = {p.result.error.message: p.result.error for p in res.points if p.result.error}
    all_bad = res.points and all(p.result.error is not None for p in res.points)
    if args.json:
        print_json(res)
    else:
        print(format_sweep(res, spec.metric))
    if all_bad and len(errs) == 1:
        return error_exit(next(iter(errs.values())), args.verbose)
    if res.best is None:
        print("error: no point of the sweep passed its check (see the table)", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


def format_sweep(res: Any, metric: str) -> str:
    names = list(res.request.axes)
    headers = [*names, "check", "Triton ms", "torch ms", metric, "ratio", "regs", "prog/SM", "", "note"]
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
                     "* best" if i == res.best else "", note])
    text = [table(headers, rows)]
    if res.points:
        r0 = res.points[0].result
        text.append(f"\n{r0.kernel} on {r0.device} [{r0.backend}], fixed: {values_text(res.request.base) or '-'}")
        if r0.timing is not None:
            text.append(f"timing: {r0.timing.method}")
    if res.best is not None:
        b = res.points[res.best]
        text.append(f"best: {values_text(b.values)} — {fmt_ms(b.result.timing.median_ms)} ms")
    if res.error is not None:
        text.append(f"stopped: {res.error.message}")
    return "\n".join(text)
