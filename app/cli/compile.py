"""``tilescope compile KERNEL --target sm_90``: compile for a chosen GPU on any machine (no GPU
needed) and print the compile facts: registers, spills, shared memory, occupancy and what limits
it, waves; ``--show ptx`` (ttir, ttgir, llir, ptx, sass) prints one of the texts."""

from __future__ import annotations

import argparse
from typing import Any

from .common import EXIT_OK, CliError
from .options import add_value_args, collect_values, get_spec
from .output import print_json
from .remote import compute
from .run import _compile_rows

__all__ = ["add_parser", "cmd_compile"]

_TEXTS = ("ttir", "ttgir", "llir", "ptx", "sass")


def add_parser(sub: Any) -> None:
    p = sub.add_parser("compile", help="compile for a chosen GPU (no GPU needed): registers, shared memory, IR")
    add_value_args(p)
    p.add_argument("--target", "-t", default="sm_90",
                   help="the GPU to compile for: sm_80, sm_89, sm_90, sm_100, … or a name (H100, B200)")
    p.add_argument("--file", "-f", metavar="PATH", help="a kernel file or plain Triton script")
    p.add_argument("--show", choices=_TEXTS, help="print this text of the compile (ttir … sass)")
    p.add_argument("--timeout", type=float, metavar="SECONDS",
                   help="with --file: work in a worker process and stop it after SECONDS (a file or kernel "
                        "that never returns cannot hang the command)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_compile)


def cmd_compile(args: argparse.Namespace) -> int:
    from kernels.compile.target import compile_for_target
    from kernels.data.errors import TilescopeError
    from kernels.data.params import ValidationError

    spec = get_spec(args)
    values = collect_values(args, spec)
    keep_asm = bool(args.show or args.json)
    try:
        if args.file:  # a user's file is compiled in the command's worker, where it was loaded
            facts, notes = compute("compile", {"kernel": spec.name, "user_file": args.file, "values": values,
                                               "target": args.target, "keep_asm": keep_asm}, args)
        else:
            facts, notes = compile_for_target(spec, values, args.target, keep_asm=keep_asm)
    except (ValidationError, TilescopeError) as e:
        raise CliError(e.message) from None
    if args.json:
        print_json({"kernel": spec.name, "target": args.target, "facts": facts, "notes": notes})
        return EXIT_OK
    if args.show:
        print(facts.asm.get(args.show, f"(no {args.show} text: {'; '.join(notes) or 'not produced'})"))
        return EXIT_OK
    rows = [("kernel", f"{spec.name} for {args.target} (compiled here, no GPU needed)")] + _compile_rows(facts)
    rows += [("notes" if i == 0 else "", f"- {n}") for i, n in enumerate(notes)]
    w = max(len(k) for k, _ in rows)
    print("\n".join(f"{k.ljust(w)}  {v}" for k, v in rows))
    return EXIT_OK
