"""``tilescope lesson list | show NAME | hints NAME | start NAME DIR | check NAME FILE``: the
lessons on the command line (``--lang zh_CN`` for Chinese). ``check`` exits 0 when the learner's
file passes and 1 with the reason when it does not."""

from __future__ import annotations

import argparse
import os
from typing import Any

from .common import EXIT_FAILED, EXIT_OK, CliError
from .output import print_json
from .remote import compute

__all__ = ["DEFAULT_LESSON_TIMEOUT_S", "add_parser", "cmd_lesson"]

#: how long ``check`` waits for the learner's file when no --timeout is given (the window's)
DEFAULT_LESSON_TIMEOUT_S = 120.0


def add_parser(sub: Any) -> None:
    p = sub.add_parser("lesson", help="lessons: list, show, hints, start, check")
    p.add_argument("action", choices=("list", "show", "hints", "start", "check"))
    p.add_argument("name", nargs="?", help="the lesson: its name, folder or number")
    p.add_argument("path", nargs="?", help="start: the folder for the starter file; check: your file")
    p.add_argument("--lang", default="en", help="en or zh_CN")
    p.add_argument("--json", action="store_true")
    p.add_argument("--timeout", type=float, metavar="SECONDS",
                   help=f"check: stop your file after SECONDS (default {DEFAULT_LESSON_TIMEOUT_S:g}, the window's "
                        "run timeout); a file that never returns cannot hang the command")
    p.set_defaults(func=cmd_lesson)


def cmd_lesson(args: argparse.Namespace) -> int:
    import kernels.lessons as L

    if args.action == "list":
        for info in L.list_lessons():
            print(f"{info.number}. {info.name:<16} {info.title(args.lang)}")
        return EXIT_OK
    if not args.name:
        raise CliError(f"lesson {args.action} needs a lesson name (see `tilescope lesson list`)")
    try:
        info = L.lesson_info(args.name)
    except KeyError:
        raise CliError(f"no lesson {args.name!r} (see `tilescope lesson list`)") from None
    if args.action == "show":
        print(L.lesson_text(info.name, args.lang))
        return EXIT_OK
    if args.action == "hints":
        for i, h in enumerate(L.hints(info.name, args.lang), 1):
            print(f"{i}. {h}")
        return EXIT_OK
    if not args.path:
        raise CliError(f"lesson {args.action} needs a path")
    if args.action == "start":
        print(f"wrote {L.write_starter(info.name, args.path)}")
        return EXIT_OK
    # the learner's file is their code: it runs in a worker, never here (app.cli.remote), and
    # always under a timeout (it may never return)
    if args.timeout is None:
        args.timeout = DEFAULT_LESSON_TIMEOUT_S
    result = compute("lesson_check", (info.name, os.path.abspath(args.path), args.lang), args)
    if args.json:
        print_json({k: v for k, v in vars(result).items() if k not in ("trace", "reference_trace")})
    else:
        print(("PASS  " if result.passed else "FAIL  ") + result.message)
        for d in result.details[1:]:
            print(f"      {d}")
    return EXIT_OK if result.passed else EXIT_FAILED
