"""Where a verb's work runs: in this process for the catalog's kernels, or in a worker process —
always when a user file is named, and whenever ``--timeout`` is given.

A user's kernel file or plain script is Python that runs as it is imported: it may never return
(``while True``), end the process (``os._exit``), fork, print onto stdout, delete itself. So it is
imported in a worker only (``app.client.WorkerClient``, the window's own client), under the same
rules as a run: its load times out after ``--timeout`` seconds (else the window's default,
``app.settings.DEFAULT_TIMEOUT_S``), Ctrl+C stops it, a crash is one error line, and the worker's
process group — whatever the file forked — ends with the command. The command's stdout carries
only what the verb prints (the worker's fd 1 is its stderr), so ``--json`` stays JSON.

``compute(kind, payload, args)`` is the one call the verbs make, for the kinds in ``CLI_KINDS``
(rows of ``kernels.data.requests``): in this process it is the engine's handler of that kind
(``kernels.engine.handlers``), the one the worker runs too; ``kernel_info(args)`` finds the
kernel a verb names (in the worker when a file is given: its ``KernelInfo``, whose ``params``,
``name`` and ``metric`` are what the verbs read). A sweep whose worker dies returns the points
it finished, with the error (``SweepResult.error``), so they are printed.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from typing import Any

from .common import CliError, Failed

__all__ = ["CLI_KINDS", "Remote", "close", "compute", "kernel_info", "plan_sweep", "remote", "uses_worker"]

#: the request kinds the command line sends (``compute`` refuses others)
CLI_KINDS = frozenset({"run", "sweep", "trace", "bench", "compile", "open_script", "lesson_check", "layout",
                       "load_file", "plan_sweep", "why"})


class Remote:
    """The worker behind one command: started on first use, the user's files loaded into it once."""

    def __init__(self, timeout_s: float | None, verbose: bool = False, virtual_gpu: str | None = None) -> None:
        if timeout_s is not None and not (math.isfinite(timeout_s) and timeout_s > 0):
            raise CliError(f"--timeout must be a positive number of seconds, got {timeout_s:g}")
        self.timeout_s = timeout_s
        self.verbose = verbose
        self.virtual_gpu = virtual_gpu  # --virtual-gpu: the worker's $TILESCOPE_VIRTUAL_GPU
        self._client: Any = None
        self._loaded: dict[str, dict] = {}

    @property
    def client(self) -> Any:
        from kernels.data.virtual_gpus import worker_env

        from ..client import WorkerClient

        if self._client is None:
            self._client = WorkerClient(default_timeout_s=self.timeout_s, respawn=False,
                                        on_stderr=self._echo if self.verbose else None,
                                        env=worker_env(self.virtual_gpu))
            if not self._client.wait_ready(300):
                tail = " | ".join(line for line in self._client.stderr_tail(3) if line.strip())
                raise CliError(f"the worker process did not start{': ' + tail if tail else ''}")
        return self._client

    @staticmethod
    def _echo(line: str) -> None:
        print(f"[worker] {line}", file=sys.stderr)

    def load(self, path: str) -> dict:
        """Load a user file in the worker (once); its answer (``loaded``, ``infos``, ``notes``)."""
        from ..client import WorkerError
        from ..settings import DEFAULT_TIMEOUT_S

        key = os.path.abspath(os.path.expanduser(path))
        if key in self._loaded:  # (a file that deleted itself as it loaded stays loaded)
            return self._loaded[key]
        if not os.path.exists(key):  # said at once, without starting a worker
            raise CliError(f"kernel file not found: {path}")
        if key not in self._loaded:
            try:
                self._loaded[key] = self.client.call("load_file", key, timeout=self.timeout_s or DEFAULT_TIMEOUT_S)
            except WorkerError as e:
                if e.info.kind == "user_file":
                    raise CliError(e.info.message) from None
                raise Failed(e.info) from None
            for note in self._loaded[key].get("notes") or ():
                print(f"note: {note}", file=sys.stderr)
        return self._loaded[key]

    def call(self, kind: str, payload: Any, *, progress: Any = None, on_point: Any = None,
             timeout: float | None = None) -> Any:
        """``kind`` in the worker; Failed when it fails as a whole (timeout, crash)."""
        from ..client import WorkerError

        try:
            return self.client.call(kind, payload, timeout, on_point=on_point, on_progress=progress)
        except WorkerError as e:
            raise Failed(e.info) from None

    def close(self) -> None:
        if self._client is not None:
            self._client.close(timeout=2.0)
            self._client = None


def uses_worker(args: argparse.Namespace, kind: str = "") -> bool:
    from kernels.data.requests import kinds

    return (kind in kinds(worker_only=True) or bool(getattr(args, "file", None))
            or getattr(args, "timeout", None) is not None)


def remote(args: argparse.Namespace) -> Remote:
    """The command's worker (made on first use; ``close(args)`` ends it)."""
    r = getattr(args, "_remote", None)
    if r is None:
        r = Remote(getattr(args, "timeout", None), bool(getattr(args, "verbose", False)),
                   getattr(args, "virtual_gpu", None))
        args._remote = r
    return r


def close(args: argparse.Namespace) -> None:
    r = getattr(args, "_remote", None)
    if r is not None:
        r.close()


def kernel_info(args: argparse.Namespace, file: str, name: str | None, launch: int) -> Any:
    """The ``KernelInfo`` of kernel ``name`` — or, without a name, of the file's ``launch``-th
    kernel — with ``file`` loaded in the worker."""
    loaded = remote(args).load(file)
    if name is None:
        mine = list(loaded.get("loaded") or ())
        if not 1 <= launch <= len(mine):
            raise CliError(f"{file} gives {len(mine)} kernel launch(es); --launch {launch} is not one of "
                           f"1..{len(mine)}")
        return mine[launch - 1]
    infos = {i.name: i for i in loaded.get("infos") or ()}
    if name not in infos:
        raise CliError(f"unknown kernel {name!r} (known: {', '.join(sorted(infos)) or 'none'})")
    return infos[name]


def compute(kind: str, payload: Any, args: argparse.Namespace, *, progress: Any = None,
            on_point: Any = None) -> Any:
    """Do ``kind`` (one of ``CLI_KINDS``) where it belongs: in the worker when a user file or
    ``--timeout`` is given (or the kind always runs the user's code), else in this process."""
    if kind not in CLI_KINDS:
        raise ValueError(f"the command line does not send {kind!r} requests (CLI_KINDS)")
    if not uses_worker(args, kind):
        return _in_this_process(args, kind, payload, progress, on_point)
    r = remote(args)
    file = getattr(args, "file", None)
    if file:
        r.load(file)
    if kind == "open_script":  # the capture stops itself after its budget; a C call may not
        return r.call(kind, payload, progress=progress, timeout=r.timeout_s or float(payload["budget_s"]) + 60)
    if kind != "sweep":
        return r.call(kind, payload, progress=progress)
    points: list[Any] = []

    def keep(point: Any) -> None:
        points.append(point)
        if on_point is not None:
            on_point(point)

    try:
        return r.call("sweep", payload, progress=progress, on_point=keep)
    except Failed as e:
        if not points:
            raise
        from kernels.data.results import SweepResult

        # the worker died (or timed out) mid-sweep: the points it finished are the user's
        return SweepResult(request=payload, points=points, best=None, error=e.info)


def plan_sweep(req: Any, args: argparse.Namespace) -> Any:
    """``kernels.engine.sweep.plan_sweep(req)`` — in the worker when the kernel is a user file's
    (the plan comes back without its ``spec``); a refusal raises the engine's TilescopeError."""
    if not getattr(args, "file", None):
        return _in_this_process(args, "plan_sweep", req, None, None)
    r = remote(args)
    r.load(args.file)
    try:
        return r.call("plan_sweep", req)
    except Failed as e:
        from kernels.data.errors import TilescopeError

        err = TilescopeError(e.info.message, e.info.detail, e.info.field)
        err.kind = e.info.kind
        raise err from None


def _in_this_process(args: argparse.Namespace, kind: str, payload: Any, progress: Any, on_point: Any) -> Any:
    """``kind`` in this process, by the engine's handler (the command's engine state kept on ``args``)."""
    from kernels.engine.handlers import Call, EngineState, handle

    state = getattr(args, "_engine_state", None)
    if state is None:
        state = args._engine_state = EngineState()
    call = Call()
    if progress is not None:
        call.progress = progress
    if on_point is not None:
        call.on_point = on_point
    return handle(state, kind, payload, call)
