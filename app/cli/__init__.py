"""``tilescope`` on the command line: list, open, run, bench, sweep, trace, compile, layout, lesson, why.

The verbs run the engine in this process and print a table or ``--json``; no Qt is imported.
With no verb the GUI opens (``app.gui``, imported only then).

``tilescope FILE.py`` opens the window with that file. One module per verb (``listing``,
``open_script``, ``run``, ``bench``, ``sweep``, ``trace``), each with its
``add_parser(subparsers)`` and ``cmd_*(args)``; what they share is in ``common`` (errors, exit
codes, progress, the ``--timeout`` worker), ``options`` (a kernel's values) and ``output``.

Exit status: 0 success; 1 the run finished but the check failed, or the kernel failed to
compile/launch, or its worker timed out or died; 2 bad input (unknown kernel, bad parameter,
missing file, no GPU, too large, an output that cannot be written). Every failure prints one line
on stderr starting ``error:``; stdout carries only the verb's output (with ``--json``, only JSON).

A user's kernel file or script is never imported in this process: with ``--file`` (and with
``--timeout``) the work runs in a worker process, which ends with the command (``remote``).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from . import bench, compile, layout, lesson, listing, open_script, run, sweep, trace, why
from .common import EXIT_USAGE, CliError, Failed, Parser, error_exit
from .options import add_virtual_gpu_arg
from .output import to_jsonable
from .remote import close as close_worker

__all__ = ["CliError", "build_parser", "main", "to_jsonable"]

VERBS = ("list", "open", "run", "bench", "sweep", "trace", "compile", "layout", "lesson", "why")


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="tilescope", description="Explore Triton kernels: run, check, time, sweep.")
    sub = parser.add_subparsers(dest="verb", metavar="VERB", parser_class=Parser)
    for verb in (listing, open_script, run, bench, sweep, trace, compile, layout, lesson, why):
        verb.add_parser(sub)
    for name, p in sub.choices.items():  # every verb that runs a user's script in its worker
        if name == "open" or "--file" in p._option_string_actions:
            add_virtual_gpu_arg(p)
    return parser


def _open_gui(argv: list[str]) -> int:
    try:
        gui = importlib.import_module("app.gui")  # Qt is imported only here
    except ModuleNotFoundError as e:
        if e.name == "app.gui":
            print("error: the GUI is not available in this install (app.gui is missing); "
                  "the headless verbs work: tilescope list|run|bench|sweep", file=sys.stderr)
        else:
            print(f"error: the GUI needs {e.name!r}, which is not installed (pip install "
                  "PySide6-Essentials pyqtgraph); the headless verbs work without it: "
                  "tilescope list|run|bench|sweep", file=sys.stderr)
        return EXIT_USAGE
    return int(gui.main(argv) or 0)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``tilescope`` and ``python -m app``; returns the exit status."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    if not args_list or (args_list[0].startswith("-") and args_list[0] not in ("-h", "--help")):
        return _open_gui(args_list)
    if args_list[0] not in VERBS and (args_list[0].endswith(".py") or os.path.isfile(args_list[0])):
        return _open_gui(["--file", args_list[0], *args_list[1:]])  # tilescope FILE.py
    args = None
    try:
        parser = build_parser()
        args = parser.parse_args(args_list)
        if not getattr(args, "func", None):
            parser.print_help()
            return EXIT_USAGE
        return int(args.func(args) or 0)
    except CliError as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except Failed as e:  # a timeout or a worker crash: the kernel's fault, not the input's
        return error_exit(e.info)
    except SystemExit as e:  # --help
        return int(e.code or 0) if isinstance(e.code, int) else EXIT_USAGE
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
    finally:
        if args is not None:
            close_worker(args)  # the command's worker and whatever it forked end with it
