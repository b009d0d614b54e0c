"""``tilescope list``: the kernels of the catalog (and of a kernel file, loaded in a worker: its
import runs the user's code, see ``app.cli.remote``)."""

from __future__ import annotations

import argparse
import dataclasses
from typing import Any

from .common import EXIT_OK
from .output import print_json, table
from .remote import remote

__all__ = ["add_parser", "cmd_list"]


def add_parser(sub: Any) -> None:
    p = sub.add_parser("list", help="list the kernels")
    p.add_argument("--file", "-f", metavar="PATH", help="also load this kernel file")
    p.add_argument("--json", action="store_true")
    p.add_argument("--timeout", type=float, metavar="SECONDS",
                   help="with --file: stop loading it after SECONDS (default: the window's run timeout)")
    p.set_defaults(func=cmd_list)


def cmd_list(args: argparse.Namespace) -> int:
    if args.file:  # the catalog and the file's kernels, as the worker has them
        infos = list(remote(args).load(args.file)["infos"])
    else:
        from kernels import engine

        infos = engine.infos()
    if args.json:
        print_json([dataclasses.replace(i, source="") for i in infos])
        return EXIT_OK
    rows = []
    for i in infos:
        dtypes = next((",".join(p.choices or ()) for p in i.params if p.kind == "dtype"), "-")
        shapes = " ".join(f"{p.name}={p.default}" for p in i.params if p.kind == "shape")
        rows.append([i.name, i.title, i.metric, dtypes, shapes,
                     "catalog" if i.origin == "catalog" else i.origin])
    print(table(["kernel", "title", "metric", "dtypes", "default shape", "origin"], rows))
    return EXIT_OK
