"""``tilescope open FILE``: run a plain Triton script with its launches captured and list them,
numbered for ``--launch N`` (``run``, ``trace``, ``sweep``, ``bench`` then take ``--file FILE``).
The script runs in a worker process (``app.cli.remote``), never in the command's own."""

from __future__ import annotations

import argparse
import os
from typing import Any

from kernels.data.backends import AUTO, CHOICES

from .common import EXIT_OK, CliError, check_writable
from .output import print_json
from .remote import compute

__all__ = ["add_parser", "cmd_open", "format_capture"]


def add_parser(sub: Any) -> None:
    p = sub.add_parser("open", help="run a Triton script with its launches captured and list them")
    p.add_argument("file", help="a plain Triton script (as the tutorials write them) or a kernel file")
    p.add_argument("--backend", "-b", default=AUTO, choices=CHOICES,
                   help="where the script's launches run while it is captured")
    p.add_argument("--budget", type=float, default=30.0, metavar="SECONDS",
                   help="stop the script after this long (its launches so far are kept)")
    p.add_argument("--log", action="store_true", help="print what the script printed")
    p.add_argument("--reproducer", metavar="DIR",
                   help="also write each launch as a standalone script (kernel source, saved inputs, one launch)")
    p.add_argument("--json", action="store_true")
    p.add_argument("--timeout", type=float, metavar="SECONDS",
                   help="stop the worker running the script after SECONDS (default: the budget and a minute)")
    p.set_defaults(func=cmd_open)


def cmd_open(args: argparse.Namespace) -> int:
    import math

    if not os.path.isfile(args.file):
        raise CliError(f"no such file: {args.file}")
    if not (math.isfinite(args.budget) and args.budget > 0):
        raise CliError(f"--budget must be a positive number of seconds, got {args.budget:g}")
    if args.reproducer:
        check_writable(args.reproducer, "--reproducer", folder=True)
    payload = {"path": os.path.realpath(args.file), "backend": args.backend, "budget_s": args.budget,
               "reproducer": os.path.abspath(args.reproducer) if args.reproducer else None}
    file, args.file = args.file, None  # captured by open_script itself, not loaded first
    try:
        answer = compute("open_script", payload, args)  # a refusal: Failed, one error line
    finally:
        args.file = file
    cap, written = answer["capture"], answer["written"]
    if args.json:
        print_json(cap)
        return EXIT_OK
    print(format_capture(cap, args.log))
    for path in written:
        print(f"reproducer: {path}")
    if not cap.launches:
        raise CliError(f"{args.file} launched no Triton kernel ({cap.error or cap.stopped or 'it ran to its end'})")
    return EXIT_OK


def format_capture(cap: Any, with_log: bool = False) -> str:
    out = [f"{cap.path}: {len(cap.launches)} launch(es) captured in {cap.wall_s:.1f} s [{cap.backend}]"]
    if cap.stopped:
        out.append(f"  {cap.stopped}")
    if cap.error:
        out.append(f"  the script raised: {cap.error} (the launches before it are kept)")
    for n in cap.notes:
        out.append(f"  note: {n}")
    for rec in cap.launches:
        out.append("")
        out.append(f"{rec.index + 1}. {rec.spec_name}   ({rec.call_site}: {rec.call_text})")
        out.append(f"   grid {'×'.join(map(str, rec.grid))}; {rec.grid_note}")
        out.append(f"   {rec.resize_note}")
        for a in rec.args:
            out.append(f"   {'out ' if a.name in rec.written else '    '}{a.describe()}")
        if rec.options:
            out.append("   options " + ", ".join(f"{k}={v}" for k, v in rec.options.items()))
        if rec.autotune_configs:
            out.append(f"   autotune: {len(rec.autotune_configs)} configs, #{rec.autotune_choice} ran "
                       "(choose with --param autotune_config=N)")
        if rec.heuristics:
            out.append(f"   heuristics set: {', '.join(rec.heuristics)}")
    out.append("")
    out.append(f"then: tilescope run --file {cap.path} --launch N [--param NAME=VALUE …]; "
               f"trace/sweep/bench take the same")
    if with_log and cap.log:
        out.append(f"\n--- the script printed {cap.log_lines} line(s) ---\n{cap.log}")
    elif cap.log_lines:
        out.append(f"(the script printed {cap.log_lines} line(s); --log shows them)")
    return "\n".join(out)
