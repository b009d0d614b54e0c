"""``tilescope bench [KERNEL ...|--all]``: each kernel's bench cases against torch."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from kernels.data.backends import AUTO, CHOICES, is_gpu

from .common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, CliError, stderr_progress
from .options import get_spec
from .output import fmt, fmt_ms, print_json, table, values_text
from .remote import compute

__all__ = ["add_parser", "cmd_bench", "format_bench"]


def add_parser(sub: Any) -> None:
    p = sub.add_parser("bench", help="benchmark kernels against torch (their bench cases)")
    p.add_argument("kernels", nargs="*", help="kernel names (or --all)")
    p.add_argument("--all", action="store_true", help="every kernel")
    p.add_argument("--backend", "-b", default=AUTO, choices=CHOICES)
    p.add_argument("--no-autotune", action="store_true", help="do not try the autotune configs")
    p.add_argument("--file", "-f", metavar="PATH", help="a kernel file or plain Triton script")
    p.add_argument("--launch", type=int, default=1, metavar="N", help="with --file: its N-th launch (default 1)")
    p.add_argument("--timeout", type=float, metavar="SECONDS",
                   help="with --file: work in a worker process and stop it after SECONDS (a file or kernel "
                        "that never returns cannot hang the command)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_bench)


def cmd_bench(args: argparse.Namespace) -> int:
    if not args.all and not args.kernels and not args.file:
        raise CliError("bench needs kernel names, --file FILE or --all")
    if args.file:  # the file's kernel (a plain script's N-th launch), benched as catalog ones are, in
        # the command's worker (the file is never imported here)
        args.kernel = (args.kernels or [None])[0]
        args.kernels = [get_spec(args).name]
    names = None if args.all else list(args.kernels)
    for name in [] if args.file else names or ():
        get_spec(argparse.Namespace(kernel=name, file=None))  # unknown kernel: one error line
    progress = stderr_progress() if sys.stderr.isatty() else None
    rows = compute("bench", {"backend": args.backend, "names": names, "autotune": not args.no_autotune}, args,
                   progress=progress)
    if len(rows) == 1 and rows[0].get("kernel") == "*":  # the backend itself is unavailable
        print(f"error: {rows[0]['error']}", file=sys.stderr)
        return EXIT_USAGE
    if args.json:
        print_json(rows)
    else:
        print(format_bench(rows))
    failed = [r for r in rows if r.get("error") or r.get("passed") is False]
    return EXIT_FAILED if failed else EXIT_OK


def format_bench(rows: list[dict[str, Any]]) -> str:
    headers = ["kernel", "case", "check", "Triton ms", "torch ms", "ratio", "rate", "% peak", "best config"]
    out = []
    for r in rows:
        rate = "-"
        if r.get("metric") == "TFLOP/s" and r.get("tflops") is not None:
            rate = f"{r['tflops']:.4g} TFLOP/s"
        elif r.get("gbps") is not None:
            rate = f"{r['gbps']:.4g} GB/s"
        at = r.get("autotune")
        best = "-"
        if at:
            best = "case" if at.get("best_is_case") else (values_text(at["best"]) if at.get("best") else "none passed")
        check = "error" if r.get("error") else ("pass" if r.get("passed") else "FAIL")
        out.append([r["kernel"], values_text(r.get("case") or {}) or "defaults", check,
                    fmt_ms(r.get("triton_ms")), fmt_ms(r.get("torch_ms")), fmt(r.get("ratio")),
                    rate, fmt(r.get("pct_peak"), 3), best])
    text = [table(headers, out)]
    if rows:
        text.append(f"\nbackend: {rows[0].get('backend')} on {rows[0].get('device')}; "
                    f"timing: {rows[0].get('timing_method') or '-'}; ratio = torch ms / Triton ms")
        srcs = dict.fromkeys(r["peak_source"] for r in rows if r.get("peak_source"))
        if srcs:
            text.append("% peak against: " + "; ".join(srcs))
    for r in rows:
        c = r.get("clocks")
        if c and c.get("source"):
            flag = f" — THROTTLED: {c.get('note')}" if c.get("throttled") else ""
            text.append(f"  {r['kernel']}: clocks SM {c.get('sm_mhz')}/{c.get('sm_max_mhz')} MHz, memory "
                        f"{c.get('mem_mhz')} MHz, {c.get('temp_c')} °C, {c.get('power_w') or 0:.0f} W{flag}")
        elif c and is_gpu(r.get("backend")):
            text.append(f"  {r['kernel']}: {c.get('note') or 'clocks unknown'}")
    for r in rows:
        msgs = ([r["error"]] if r.get("error") else []) + list(r.get("notes") or [])
        if r.get("check_reason") and not r.get("passed"):
            msgs.append(r["check_reason"])
        for msg in dict.fromkeys(msgs):
            text.append(f"  {r['kernel']}: {msg}")
    return "\n".join(text)
