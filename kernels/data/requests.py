"""The request kinds as one table: what each carries, what it answers, and how it is treated.

The window and the command line ask the engine for work by kind ("run", "trace", ...). Each kind
is one row here; the engine's handler for it is one function in ``kernels.engine.handlers``. The
worker (``app.worker``), its client (``app.client``), the command line (``app.cli.remote``) and
the window's controller read the rows instead of keeping lists of their own. A new verb is a row
here plus a handler there (and a sender: a CLI verb or a window action).

GUI-safe: the payload and result types named are ``kernels.data`` types or builtins; a type that
lives in the engine is ``object`` with the engine's name in ``answers``.
"""

from __future__ import annotations

from dataclasses import dataclass

from .advice import Advice, WhyRequest
from .gpu_trace import GpuTraceResult
from .layout import LayoutRequest, LayoutResult
from .lessons.result import LessonResult
from .region import RegionAnswer, RegionRequest
from .results import RunRequest, RunResult, SweepRequest, SweepResult
from .trace import TraceRequest, TraceResult

__all__ = ["REQUESTS", "RequestKind", "kinds", "request_kind"]

_NONE = type(None)


@dataclass(frozen=True)
class RequestKind:
    """One kind of request. Flags default to "no"."""

    name: str
    #: the payload's accepted types (the worker refuses any other, in one line)
    payload: tuple[type, ...]
    #: the result's types (``object`` where the type is the engine's: see ``answers``)
    result: tuple[type, ...]
    #: what it asks and answers, in a few words
    answers: str
    #: its handler polls the cancel flag (between stages, points or programs)
    cancellable: bool = False
    #: its handler sends ``progress`` replies
    reports_progress: bool = False
    #: its handler sends a ``point`` reply per finished point before the result (a sweep)
    sends_points: bool = False
    #: keeps the worker busy for a while: the window shows it as work in flight
    long_running: bool = False
    #: a newer request of this kind makes older ones pointless (the client drops or cancels them)
    supersedes: bool = False
    #: runs the user's code: times out like a run (its own ``timeout_s``, else the default)
    timed_like_run: bool = False
    #: always runs the user's code: never in the command's own process
    worker_only: bool = False
    #: may run while a compile ahead is in flight (it does not run the interpreter, which patches
    #: ``triton.language``)
    beside_compiles: bool = False
    #: does not release the worker's live cache (a window's inputs between runs) first: it leaves it
    #: alone, or (run, trace) takes its inputs or replaces them
    keeps_live_cache: bool = False
    #: leaves the worker's kept full trace (behind a reduced one) alone
    keeps_full_trace: bool = False
    #: answered by the worker's reader thread at once (never queued; no handler)
    transport: bool = False
    #: only the client sends it, by itself (no window action or verb does)
    internal: bool = False


def _small(name: str, payload: tuple[type, ...], result: tuple[type, ...], answers: str, **flags: bool) -> RequestKind:
    """A kind that answers at once and leaves the worker's kept memory alone."""
    return RequestKind(name, payload, result, answers, beside_compiles=True, keeps_live_cache=True,
                       keeps_full_trace=True, **flags)


REQUESTS: tuple[RequestKind, ...] = (
    _small("hello", (_NONE,), (dict,), "the worker's pid, backends, kernel infos and versions", internal=True),
    _small("infos", (_NONE,), (list,), "every registered kernel's KernelInfo (tests and diagnostics)", internal=True),
    RequestKind("run", (RunRequest,), (RunResult,), "one launch: checked, timed, with compile facts",
                cancellable=True, reports_progress=True, long_running=True, supersedes=True, timed_like_run=True,
                keeps_live_cache=True),
    RequestKind("sweep", (SweepRequest,), (SweepResult,), "a grid or tune sweep, point by point",
                cancellable=True, reports_progress=True, sends_points=True, long_running=True, supersedes=True),
    # a trace takes the live cache's inputs when they are its own (a Run of the same data and seed
    # drew them), else its inputs replace them there, as another Run's would
    RequestKind("trace", (TraceRequest,), (TraceResult, GpuTraceResult),
                "a trace, routed by its backend (the GPU recorder's is a GpuTraceResult)",
                cancellable=True, reports_progress=True, long_running=True, supersedes=True, timed_like_run=True,
                keeps_live_cache=True, keeps_full_trace=True),
    _small("trace_region", (RegionRequest,), (RegionAnswer,),
           "a rectangle of the last reduced trace at full resolution"),
    RequestKind("load_file", (str,), (dict,), "a user's kernel file or plain script loaded: its infos, notes",
                long_running=True, timed_like_run=True),
    RequestKind("open_script", (dict,), (dict,), "a plain script captured (and reproducers written)",
                long_running=True, timed_like_run=True, worker_only=True),
    RequestKind("lesson_check", (tuple,), (LessonResult,), "a learner's file checked against a lesson",
                cancellable=True, long_running=True, timed_like_run=True, worker_only=True),
    _small("compile", (dict,), (tuple,), "compile facts for a chosen GPU target: (CompileFacts, notes)"),
    _small("plan_sweep", (SweepRequest,), (object,),
           "a tune sweep's plan (kernels.engine.sweep.SweepPlan, its spec left out)"),
    RequestKind("bench", (dict,), (list,), "the catalog's bench cases, Triton against torch",
                reports_progress=True, long_running=True),
    _small("precompile", (dict,), (dict,), "a config compiled ahead in the background: queued or not"),
    RequestKind("layout", (LayoutRequest,), (LayoutResult,),
                "each access's layout, vector width and memory requests, from the compiled TTGIR",
                cancellable=True, reports_progress=True),
    RequestKind("why", (WhyRequest,), (Advice,),
                "why is it slow: findings with evidence and source lines, launch proposals tried (kernels.advisor)",
                cancellable=True),
    RequestKind("ping", (_NONE,), (dict,), "the worker's pid, what it is busy with (tests and diagnostics)",
                transport=True, internal=True),
    RequestKind("cancel", (int, _NONE), (_NONE,), "stop request N (None: whatever runs or waits)",
                transport=True, internal=True),
    RequestKind("shutdown", (_NONE,), (_NONE,), "stop after what runs now", transport=True, internal=True),
)

_BY_NAME = {r.name: r for r in REQUESTS}


def request_kind(name: str) -> RequestKind:
    """The row of ``name``; KeyError naming the known kinds for anything else."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise KeyError(f"unknown request kind {name!r} (known: {', '.join(_BY_NAME)})") from None


def kinds(**flags: bool) -> frozenset[str]:
    """The names of the kinds whose flags have the given values: ``kinds(supersedes=True)``."""
    return frozenset(r.name for r in REQUESTS if all(getattr(r, f) == v for f, v in flags.items()))

