"""What the verbs of ``tilescope`` share: errors and exit codes, the progress line on stderr, the
check that an output path can be written. Where the work runs (this process, or a worker for a
user's file and ``--timeout``) is ``remote``; the options that give a kernel its values are in
``options``, the output helpers (JSON, tables, numbers) in ``output``. No Qt; the engine is
imported inside the functions that need it."""

from __future__ import annotations

import argparse
import sys
from typing import Any

__all__ = ["EXIT_FAILED", "EXIT_OK", "EXIT_USAGE", "CliError", "Failed", "Parser", "check_writable", "error_exit",
           "stderr_progress"]

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
#: error kinds that mean "the input was wrong" (exit 2) rather than "the kernel failed" (exit 1)
_USAGE_KINDS = {"validation", "user_file"}


class CliError(Exception):
    """Bad command-line input: printed as one ``error:`` line, exit status 2."""


class Failed(Exception):
    """A request that failed as a whole in the worker (timeout, crash): one error line, exit 1."""

    def __init__(self, info: Any) -> None:
        super().__init__(info.message)
        self.info = info


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        # one clear line instead of argparse's usage block
        raise CliError(f"{message} (see {self.prog} --help)")


def error_exit(err: Any, verbose: bool = False) -> int:
    """Print ``err`` as one ``error:`` line (and its detail when ``verbose``); the exit status."""
    print(f"error: {err.message}", file=sys.stderr)
    if verbose and getattr(err, "detail", ""):
        print(err.detail, file=sys.stderr)
    return EXIT_USAGE if _is_usage(err) else EXIT_FAILED


def _is_usage(err: Any) -> bool:
    """Input the user can fix (a kind of bad input, or an error that marks a parameter)."""
    return err.kind in _USAGE_KINDS or getattr(err, "field", None) is not None


def stderr_progress(end_stage: str = "") -> Any:
    """A ``progress(Progress)`` callback drawing one updating line on stderr; the line ends at a
    fraction of 1 (or, given ``end_stage``, when a stage starting with it begins)."""

    def progress(p: Any) -> None:
        print(f"\r[{p.fraction:4.0%}] {p.text()[:70]:<70}", end="", file=sys.stderr, flush=True)
        if (p.stage.startswith(end_stage) if end_stage else p.fraction >= 1.0):
            print(file=sys.stderr)

    return progress


def check_writable(path: str, option: str, folder: bool = False) -> None:
    """CliError unless ``path`` can be written (a file, or with ``folder`` a folder to write
    into) — asked before the work, so an hour's trace is not computed for a path that fails."""
    import os

    p = os.path.abspath(os.path.expanduser(path))
    if folder:
        target = p
        while not os.path.exists(target):  # it will be created: its nearest existing parent decides
            target = os.path.dirname(target)
        if not os.path.isdir(target):
            raise CliError(f"{option} {path}: {target} is not a folder")
        probe_dir = target
    else:
        if os.path.isdir(p):
            raise CliError(f"{option} {path}: that is a folder; give a file name")
        probe_dir = os.path.dirname(p)
        if not os.path.isdir(probe_dir):
            what = "is not a folder" if os.path.exists(probe_dir) else "does not exist"
            raise CliError(f"{option} {path}: the folder {probe_dir} {what}")
    try:  # the only sure test: write something there (os.access says yes to root on a read-only mount)
        import tempfile

        with tempfile.TemporaryFile(dir=probe_dir):
            pass
        if not folder and os.path.exists(p) and not os.access(p, os.W_OK):
            raise PermissionError(13, "Permission denied")
    except OSError as e:
        raise CliError(f"{option} {path}: cannot write there ({e.strerror or e})") from None
