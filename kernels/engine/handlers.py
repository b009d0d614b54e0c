"""The engine's answer to each request kind of ``kernels.data.requests``: one handler per row.

``handle(state, kind, payload, call)`` is the one entry: the worker (``app.worker``) calls it for
each request it takes off its queue, the command line (``app.cli.remote``) for work it does in its
own process. ``EngineState`` is what lives between requests in one process: the live cache (a
window's inputs, references and timings between runs), the kept full trace behind a reduced one
(for ``trace_region``), the compile-ahead thread and the one that compiles a GPU Run's trace
builds ahead (``kernels.engine.trace_ahead``). What a request may leave alone is its row's
business (``keeps_live_cache``, ``keeps_full_trace``, ``beside_compiles``); ``handle`` applies it.

A handler is ``(state, payload, call) -> result``: ``call`` carries the progress callback, the
cancel poll and, for a sweep, the per-point callback. No Qt; the engine is imported on first use.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..data.backends import AUTO, GPU, INTERPRETER
from ..data.requests import request_kind

__all__ = ["HANDLERS", "Call", "EngineState", "handle"]


def _ignore(_: Any) -> None:
    return None


def _never() -> bool:
    return False


@dataclass
class Call:
    """How one request reports back: ``progress(Progress)``, ``cancel() -> bool``, ``on_point(point)``."""

    progress: Callable[[Any], None] = _ignore
    cancel: Callable[[], bool] = _never
    on_point: Callable[[Any], None] = _ignore


@dataclass
class EngineState:
    """What one process keeps between requests (each made on first use)."""

    #: kernels.engine.run.LiveCache: what a window's repeated runs reuse
    live: Any = None
    #: kernels.engine.kept_trace.KeptTrace: the full trace behind the last reduced one
    kept_trace: Any = None
    #: kernels.engine.precompile.Precompiler, once a compile ahead was asked for
    precompiler_started: Any = None
    #: kernels.engine.trace_ahead.TraceBuildsAhead, once a GPU Run was answered
    trace_ahead_started: Any = None
    #: the target the trace builds are compiled ahead for (None: the GPU's; a name such as "sm_90")
    trace_ahead_target: Any = None

    @property
    def live_cache(self) -> Any:
        """The inputs, references, torch timings and compile facts kept between ``run`` requests
        (``kernels.engine.run.LiveCache``); released by a request whose row does not keep it."""
        if self.live is None:
            from .run import LiveCache

            self.live = LiveCache()
        return self.live

    @property
    def precompiler(self) -> Any:
        """Compiles ahead the configs the window is about to run (``kernels.engine.precompile``):
        of registered kernels only (a background thread never loads a user's file)."""
        if self.precompiler_started is None:
            from ..specs.spec import REGISTRY
            from .precompile import Precompiler

            self.precompiler_started = Precompiler(lambda r: REGISTRY.get(r.kernel),
                                                   lambda: self.live.tensors if self.live is not None else None)
        return self.precompiler_started

    @property
    def trace_ahead(self) -> Any:
        """Compiles a GPU Run's trace builds ahead (``kernels.engine.trace_ahead``): of registered
        kernels only, for the GPU's target."""
        if self.trace_ahead_started is None:
            from ..specs.spec import REGISTRY
            from .trace_ahead import TraceBuildsAhead

            self.trace_ahead_started = TraceBuildsAhead(lambda r: REGISTRY.get(r.kernel))
        return self.trace_ahead_started

    @property
    def precompiling(self) -> bool:
        """A compile ahead is running now."""
        pre = self.precompiler_started
        return pre is not None and pre.compiling is not None

    def release_for(self, kind: str) -> None:
        """Give back the memory a request of ``kind`` may need (its row says what it keeps)."""
        row = request_kind(kind)
        if self.live is not None and not row.keeps_live_cache:
            self.live.release()  # sweeps, traces, loads…: their memory, not a window's inputs
        if self.kept_trace is not None and not row.keeps_full_trace:
            self.kept_trace.release()  # a trace replaces it; runs, sweeps, loads… may need its memory

    def apart_from_compiles(self, kind: str, payload: Any) -> Any:
        """A request that may run the interpreter waits for the compiles ahead in flight (and drops
        the queued ones); GPU runs and sweeps, and the kinds marked ``beside_compiles``, run beside
        them. A trace waits so too: the one of the config whose trace builds compile is what they
        are for (its compile is then a cache hit)."""
        pres = [p for p in (self.precompiler_started, self.trace_ahead_started) if p is not None]
        on_gpu = kind in ("run", "sweep") and getattr(payload, "backend", None) == GPU
        if not pres or on_gpu or request_kind(kind).beside_compiles:
            return contextlib.nullcontext()
        stack = contextlib.ExitStack()
        for p in pres:
            stack.enter_context(p.exclusive())
        return stack


def handle(state: EngineState, kind: str, payload: Any, call: Call | None = None) -> Any:
    """The answer to one request of ``kind`` (exceptions are the caller's to report). Refuses a
    kind without a handler or a payload of a type its row does not accept, in one line."""
    row = request_kind(kind)
    handler = HANDLERS.get(kind)
    if handler is None:
        raise ValueError(f"no handler for the request kind {kind!r} (it is answered by the worker's reader)")
    if not isinstance(payload, row.payload):
        names = " or ".join(t.__name__ for t in row.payload)
        raise TypeError(f"a {kind} request carries a {names}, not a {type(payload).__name__}")
    state.release_for(kind)
    if state.trace_ahead_started is not None and kind != "trace":
        state.trace_ahead_started.drop()  # a new request: the trace builds queued are not for it
    with state.apart_from_compiles(kind, payload):
        return handler(state, payload, call or Call())


# ---------------------------------------------------------------------------------------------
# the handlers, in the table's order


def _versions() -> dict[str, str]:
    out = {"python": sys.version.split()[0]}
    for name in ("torch", "triton", "numpy"):
        mod = sys.modules.get(name)
        out[name] = str(getattr(mod, "__version__", "")) if mod else ""
    from ..data.wire import wire_version

    out["tilescope_wire"] = wire_version()  # a remote window checks it (app.transport_ssh)
    return out


def _hello(state: EngineState, payload: None, call: Call) -> dict[str, Any]:
    from .. import engine

    backends = engine.describe_backends()
    infos = engine.infos()
    if backends.get("gpu_available"):  # a GPU worker's one-time costs, paid while the user looks
        from ..tune import warm_start

        warm_start.start(gpu=True)
        state.trace_ahead.warm()  # the first trace's (kernels.engine.trace_ahead)
    return {"pid": os.getpid(), "backends": backends, "infos": infos, "versions": _versions(),
            "executable": sys.executable}


def _infos(state: EngineState, payload: None, call: Call) -> Any:
    from .. import engine

    return engine.infos()


def _run(state: EngineState, payload: Any, call: Call) -> Any:
    from .. import engine

    # a repeated run (same shapes, dtype and seed) reuses inputs, references, torch's timing and
    # compile facts; the error map comes back reduced to what a screen shows (kernels.run.check). A
    # compile ahead of this very config in flight is waited for, not done a second time
    if state.precompiler_started is not None and payload.backend != INTERPRETER:
        state.precompiler_started.wait_for(payload, call.cancel)
    result = engine.run(payload, progress=call.progress, cancel=call.cancel, _cache=state.live_cache)
    _trace_builds_ahead(state, payload, result)
    return result


def _trace_builds_ahead(state: EngineState, payload: Any, result: Any) -> None:
    """After a Run on the GPU, the trace builds of its config compile in the background (the
    user's next click is often Trace): registered kernels, the config as a trace sends it (a
    trace takes no launch options)."""
    from ..data.results import RunRequest

    if getattr(result, "error", None) is not None or getattr(result, "backend", None) != GPU or payload.user_file:
        return
    state.trace_ahead.submit(RunRequest(payload.kernel, dict(payload.values), backend=GPU), state.trace_ahead_target)


def _sweep(state: EngineState, payload: Any, call: Call) -> Any:
    from .. import engine

    return engine.sweep(payload, progress=call.progress, cancel=call.cancel, on_point=call.on_point)


def _trace(state: EngineState, payload: Any, call: Call) -> Any:
    from .trace_router import serve_trace

    # routed by the request's backend: the interpreter recorder (it refuses traces too large for
    # the pipe or the host before building them), the GPU recorder, or interpreter vs GPU; the
    # window's request (``max_cells``) gets back no more than it can draw, and the full trace
    # behind it is kept for ``trace_region`` (kernels.engine.kept_trace). The inputs are the live
    # cache's when the window's last Run drew the same ones (a GPU trace of vector add 2^26 drew
    # them again on the CPU for ~1 s: docs/benchmarks/gpu-trace.md)
    if getattr(payload, "max_cells", None):
        from .kept_trace import KeptTrace

        state.kept_trace = state.kept_trace or KeptTrace()
        return state.kept_trace.serve(payload, call.progress, call.cancel, cache=state.live_cache)
    return serve_trace(payload, progress=call.progress, cancel=call.cancel, cache=state.live_cache)


def _trace_region(state: EngineState, payload: Any, call: Call) -> Any:
    """A rectangle of the last reduced trace at full resolution; refused in one line when that
    trace is no longer kept or the rectangle is too large."""
    from .kept_trace import KeptTrace

    return (state.kept_trace or KeptTrace()).answer(payload)


def _load_file(state: EngineState, payload: str, call: Call) -> Any:
    from .. import engine
    from ..script import SCRIPTS
    from ..sources import userfile

    engine.load_catalog()  # first: a file taking a catalog kernel's name is refused
    with _Strays() as notes:
        specs = userfile.load(payload)  # KernelSpecs hold jit functions: send their infos
    script = SCRIPTS.get(specs[0].origin) if specs else None  # a plain script: what its capture saw
    return {"loaded": [s.info() for s in specs], "infos": engine.infos(),
            "script": script[0] if script is not None else None, "notes": notes}


def _open_script(state: EngineState, payload: dict, call: Call) -> Any:
    """``tilescope open``: capture a plain script (payload: path, backend, budget_s, reproducer
    folder or None); the capture and the reproducer files written."""
    from .. import engine
    from ..script import live_launch, open_script
    from ..script.reproducer import export_reproducer

    o = payload
    engine.load_catalog()
    with _Strays() as notes:
        cap, specs = open_script(o["path"], o.get("backend", AUTO), budget_s=float(o.get("budget_s", 30.0)))
    cap.notes.extend(notes)
    written = []
    if o.get("reproducer"):
        for rec, spec in zip(cap.launches, specs, strict=True):
            name = f"{rec.spec_name.replace('.', '_').replace('#', '_')}_repro"
            written.append(export_reproducer(live_launch(cap.path, rec.index), o["reproducer"], name,
                                             spec.tolerance(spec.defaults())))
    return {"capture": cap, "written": written}


def _lesson_check(state: EngineState, payload: tuple, call: Call) -> Any:
    from ..lessons import check_lesson

    name, path, lang = payload
    return check_lesson(name, path, lang, cancel=call.cancel)


def _compile(state: EngineState, payload: dict, call: Call) -> Any:
    """Compile facts for a target (payload: kernel, user_file, values, target, keep_asm); (facts, notes)."""
    from .. import engine
    from ..compile.target import compile_for_target

    o = payload
    spec = engine.get_spec(o["kernel"], o.get("user_file"))
    return compile_for_target(spec, o["values"], o["target"], keep_asm=o["keep_asm"])


def _plan_sweep(state: EngineState, payload: Any, call: Call) -> Any:
    """A tune sweep's plan for the command line (its ``spec`` holds jit functions: left out)."""
    from .sweep import plan_sweep

    return dataclasses.replace(plan_sweep(payload), spec=None)


def _bench(state: EngineState, payload: dict, call: Call) -> Any:
    from .. import engine

    o = payload
    return engine.bench_all(o.get("backend", AUTO), progress=call.progress, names=o.get("names"),
                            autotune=bool(o.get("autotune", True)))


def _precompile(state: EngineState, payload: dict, call: Call) -> Any:
    """Compile ahead (payload: {"request": the RunRequest a Run would send, "target": None for
    the GPU's, or e.g. "sm_90"}); answered at once, the compile runs in a background thread."""
    return {"status": state.precompiler.submit(payload["request"], payload.get("target"))}


def _layout(state: EngineState, payload: Any, call: Call) -> Any:
    """Each access's layout and costs (``kernels.layout``): the interpreter run that gives the
    addresses reports the programs done and stops on cancel (a ``LayoutResult`` with ``error``)."""
    from ..layout.service import layout

    return layout(payload, progress=call.progress, cancel=call.cancel)


def _why(state: EngineState, payload: Any, call: Call) -> Any:
    """The advisor's findings (``kernels.advisor``); on a GPU its run and its mini-sweeps go
    through the engine's run and tune sweep (the advisor does not import the engine)."""
    from ..advisor.service import why

    if payload.backend != GPU:
        return why(payload, cancel=call.cancel)
    from .. import engine
    from ..data.params import ValidationError
    from ..data.results import RunRequest
    from ..run.backends import gpu_status

    usable, reason = gpu_status()
    if not usable:  # refused in one line, before anything is gathered (a handler's answer never raises)
        from ..data.advice import Advice
        from ..data.errors import to_error_info

        err = ValidationError(f"no GPU here ({reason}): the interpreter backend gives what it can", "backend")
        return Advice(kernel=payload.kernel, values=dict(payload.values), target=payload.target, backend=GPU,
                      error=to_error_info(err), generation=payload.generation)

    def run_on_gpu(cfg: dict) -> Any:
        return engine.run(RunRequest(payload.kernel, cfg, backend=GPU, seed=payload.seed,
                                     user_file=payload.user_file), cancel=call.cancel)

    def sweep(request: Any) -> Any:
        return engine.sweep(request, progress=call.progress, cancel=call.cancel)

    def timeline_on_gpu(cfg: dict) -> Any:  # the schedule only: a light build, no maps
        from ..data.trace import TraceRequest
        from .trace_router import serve_trace

        res = serve_trace(TraceRequest(payload.kernel, cfg, seed=payload.seed, user_file=payload.user_file,
                                       backend=GPU, timeline=True, maps=False), cancel=call.cancel)
        return getattr(res, "timeline", None)

    return why(payload, run_on_gpu=run_on_gpu, sweep=sweep, timeline_on_gpu=timeline_on_gpu, cancel=call.cancel)


HANDLERS: dict[str, Callable[[EngineState, Any, Call], Any]] = {
    "hello": _hello,
    "infos": _infos,
    "run": _run,
    "sweep": _sweep,
    "trace": _trace,
    "trace_region": _trace_region,
    "load_file": _load_file,
    "open_script": _open_script,
    "lesson_check": _lesson_check,
    "compile": _compile,
    "plan_sweep": _plan_sweep,
    "bench": _bench,
    "precompile": _precompile,
    "layout": _layout,
    "why": _why,
}


# ---------------------------------------------------------------------------------------------
# a user's file that forks as it loads


class _Strays:
    """``with _Strays() as notes``: child processes started inside the block and still there
    after it (a kernel file that forked at import) are stopped, and ``notes`` says so."""

    def __enter__(self) -> list[str]:
        self.notes: list[str] = []
        self.before = _children()
        return self.notes

    def __exit__(self, *exc: object) -> None:
        new = sorted(_children() - self.before)
        if not new:
            return
        import psutil

        for pid in new:
            try:
                p = psutil.Process(pid)
                p.kill()
                p.wait(timeout=2.0)
            except (psutil.Error, OSError):
                pass
        self.notes.append(f"the file started {len(new)} process(es) as it was loaded (os.fork?); "
                          "they were stopped")


def _children() -> set[int]:
    try:
        import psutil

        return {p.pid for p in psutil.Process().children()}
    except Exception:  # noqa: BLE001 — without psutil nothing is stopped here (the process group still is)
        return set()
