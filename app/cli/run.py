"""``tilescope run KERNEL``: one configuration — correctness, timing, metrics, compile facts."""

from __future__ import annotations

import argparse
import math
from typing import Any

from .common import EXIT_FAILED, EXIT_OK, CliError, error_exit
from .options import add_config_args, collect_values, get_spec
from .output import fmt, fmt_ms, print_json, values_text
from .remote import compute

__all__ = ["add_parser", "clocks_rows", "cmd_run", "format_run"]


def add_parser(sub: Any) -> None:
    p = sub.add_parser("run", help="run one configuration: correctness, timing, compile facts")
    add_config_args(p, sweep=False)
    p.add_argument("--no-bench", action="store_true", help="check only, no timing")
    p.add_argument("--asm", action="store_true", help="include IR texts (ttir…sass) in --json")
    p.set_defaults(func=cmd_run)


def cmd_run(args: argparse.Namespace) -> int:
    from kernels.data.results import RunRequest

    spec = get_spec(args)
    values = collect_values(args, spec)
    for k, v in values.items():
        if "," in v:
            raise CliError(f"{k}={v}: run takes one value per parameter; use `tilescope sweep` for several")
    req = RunRequest(kernel=spec.name, values=values, backend=args.backend, seed=args.seed,
                     bench=not args.no_bench, torch_baseline=not args.no_torch,
                     keep_asm=bool(args.asm and args.json), keep_error_map=False, user_file=args.file)
    res = compute("run", req, args)  # in a worker with --file or --timeout
    if args.json:
        print_json(res)
        if res.error is not None:
            return error_exit(res.error, args.verbose)
        return EXIT_OK if res.ok else EXIT_FAILED
    if res.error is not None:
        return error_exit(res.error, args.verbose)
    print(format_run(res))
    return EXIT_OK if res.ok else EXIT_FAILED


def format_run(res: Any) -> str:
    """The run table: what ran, correctness, timing, metrics, compile facts, notes."""
    out: list[tuple[str, str]] = [("kernel", f"{res.kernel} on {res.device} [{res.backend}]"),
                                  ("values", values_text(res.values))]
    n_prog = math.prod(res.grid) if res.grid else 0
    out.append(("grid", f"{res.grid} = {n_prog} programs" if res.grid else "-"))
    out += _check_rows(res.check)
    out += _timing_rows(res.timing, res.metrics)
    if res.timing is not None and not res.timing.is_interpreter:
        out += clocks_rows(getattr(res, "clocks", None))
    out += _compile_rows(res.compile)
    for i, n in enumerate(res.notes):
        out.append(("notes" if i == 0 else "", f"- {n}"))
    w = max(len(k) for k, _ in out)
    return "\n".join(f"{k.ljust(w)}  {v}" for k, v in out)


def _check_rows(c: Any) -> list[tuple[str, str]]:
    if c is None:
        return []
    verdict = "PASS" if c.passed else "FAIL"
    out = [("correctness",
            f"{verdict}  {c.output}: max abs err {fmt(c.max_abs_err)}, rel err {fmt(c.rel_err)} "
            f"(atol {c.atol:g}, rtol {c.rtol:g}); {c.n_mismatch} of {c.n_elements} mismatched, "
            f"{c.n_unwritten} unwritten, {c.n_nan} NaN, {c.n_inf} inf")]
    for o in c.others:
        out.append(("", f"{'PASS' if o.passed else 'FAIL'}  {o.output}: max abs err {fmt(o.max_abs_err)}, "
                        f"{o.n_mismatch} mismatched, {o.n_unwritten} unwritten"))
    if c.reason:
        out.append(("", c.reason))
    return out


def _timing_rows(t: Any, m: Any) -> list[tuple[str, str]]:
    out = []
    if t is not None:
        out.append(("timing", f"Triton {fmt_ms(t.median_ms)} ms median (p20 {fmt_ms(t.p20_ms)}, "
                              f"p80 {fmt_ms(t.p80_ms)}, {t.n_reps} reps) — {t.method}"))
    if m is not None and m.torch_timing is not None:
        tt = m.torch_timing
        out.append(("", f"torch  {fmt_ms(tt.median_ms)} ms median ({tt.n_reps} reps) — {tt.method}"))
    if m is not None and t is not None:
        parts = []
        src = getattr(m, "peak_source", "") or "measured"
        if m.gbps is not None:
            pct = f" ({m.pct_peak_bw:.0f}% of peak {m.peak_gbps:.0f} GB/s: {src})" \
                if m.pct_peak_bw is not None else ""
            parts.append(f"{fmt(m.gbps, 4)} GB/s{pct}")
        if m.tflops is not None:
            pct = f" ({m.pct_peak_flops:.0f}% of peak {m.peak_tflops:.0f} TFLOP/s: {src})" \
                if m.pct_peak_flops is not None else ""
            parts.append(f"{fmt(m.tflops, 4)} TFLOP/s{pct}")
        if getattr(m, "peak_datasheet", None):
            parts.append(f"data sheet {m.peak_datasheet:.0f}")
        if m.ratio_vs_torch is not None:
            parts.append(f"torch/Triton time ratio {fmt(m.ratio_vs_torch, 3)} (>1: Triton faster)")
        out.append(("metrics", "; ".join(parts) or "-"))
    return out


def clocks_rows(c: Any) -> list[tuple[str, str]]:
    """The GPU's clocks while it was timed (``RunResult.clocks``), or "clocks unknown" and why."""
    if c is None:
        return [("clocks", "clocks unknown")]
    rows = [("clocks", c.text() + (f"; warmed {1e3 * c.warm_s:.0f} ms" if c.warm_s else ""))]
    if c.known and c.throttled:
        rows.append(("", f"THROTTLED: {c.note}"))
    return rows


def _compile_rows(cf: Any) -> list[tuple[str, str]]:
    if cf is None:
        return []
    occ = "-"
    if cf.programs_per_sm is not None:
        occ = (f"{cf.programs_per_sm} programs/SM (limited by {cf.occupancy_limiter}, "
               f"{fmt(cf.occupancy_warps_pct, 3)}% of warp slots), waves {fmt(cf.waves, 3)} on {cf.n_sms} SMs")
    out = [("compile", f"n_regs {cf.n_regs}, spills {cf.n_spills}, shared {cf.shared_bytes} B, "
                       f"num_warps {cf.num_warps}, num_stages {cf.num_stages}"),
           ("occupancy", occ)]
    if cf.asm:
        out.append(("asm", ", ".join(f"{k} ({len(v.splitlines())} lines)" for k, v in cf.asm.items())))
    return out
