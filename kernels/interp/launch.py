"""One interpreted launch, with observers: the single path every interpreted run takes.

``Interpreter`` is a session (one engine run, one trace, one script capture). Inside
``activate()`` the kernels' jit helpers and triton.language's are interpreted twins, and ``K(fn)``
is what a launcher calls: ``K(fn)[grid](*args, **kwargs)`` binds the arguments, resolves the
grid, rewrites the kernel (with the observers' AST passes), installs the access hooks and runs
the programs, calling the observers along the way (``observer.Observer``). Not thread-safe: the
interpreter's builder is one object per process, so launches take a process-wide lock.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from ..data.errors import Cancelled, InterpreterFault, OutOfBoundsAccess, TraceUnsupported
from . import _triton
from .args import bind, collect_args, grid3, launch_options
from .observer import LaunchInfo, Observer
from .spans import StorageSpans

__all__ = ["Interpreter", "ONE_AT_A_TIME", "kernel_error"]

#: the interpreter's builder is one object per process: one launch at a time (other threads wait)
ONE_AT_A_TIME = threading.RLock()

#: observers(launch index, jit fn) -> the observers of that launch
ObserversFor = Callable[[int, Any], Sequence[Observer]]


def _find_cause(e: BaseException, kind: type) -> BaseException | None:
    seen = set()
    while e is not None and id(e) not in seen:
        if isinstance(e, kind):
            return e
        seen.add(id(e))
        e = e.__cause__ or e.__context__
    return None


def kernel_error(e: BaseException, launch: LaunchInfo) -> InterpreterFault:
    """A kernel's failure under the interpreter, naming its program and source line."""
    line = -1
    tb = e.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code is launch.code:
            line = tb.tb_lineno
        tb = tb.tb_next
    where = f" at line {line}" if line > 0 else ""
    cause = e.__cause__ if type(e).__name__ == "InterpreterError" and e.__cause__ else e
    msg = (f"{launch.name}: program {launch.pid} {launch.xyz()}{where} failed under the interpreter: "
           f"{type(cause).__name__}: {cause}")
    return InterpreterFault(msg.splitlines()[0][:400], detail=msg)


class _Launchable:
    def __init__(self, session: Interpreter, fn: Any) -> None:
        self.session = session
        self.fn = fn

    def __getitem__(self, grid: Any) -> Callable[..., None]:
        return lambda *args, **kwargs: self.session.launch(self.fn, grid, args, kwargs)

    def __getattr__(self, name: str) -> Any:  # anything else a launcher uses: the plain twin's
        return getattr(_triton.interpreted(self.fn), name)


class Interpreter:
    """An interpreter session. ``observers``: a list watching every launch, or a function
    ``observers(launch_index, jit_fn) -> list`` choosing per launch (the tracer records one launch of
    several). ``check_overflow``: a debug run (int32 overflow and ``tl.device_assert`` raise)."""

    def __init__(self, observers: Sequence[Observer] | ObserversFor = (), check_overflow: bool = False) -> None:
        self._observers = observers
        self.check_overflow = check_overflow
        self.n_launches = 0
        self.notes: list[str] = []  # said once per session (e.g. a Triton without the hooks)
        self._swapper: _triton.Swapper | None = None
        self._rewrites: dict[int, Any] = {}

    # -- the session -------------------------------------------------------------------------------
    @contextlib.contextmanager
    def activate(self, kernels: Iterable[Any] = ()) -> Iterator[Callable[[Any], _Launchable]]:
        """Context of one run; yields ``K``. The jit helpers the kernels can reach (their modules'
        globals, triton.language) are interpreted twins inside; all is put back on exit."""
        snapshot = _triton.LanguageSnapshot()
        swapper = _triton.Swapper()
        _triton.import_gluon()
        try:
            for mod in _triton.language_modules():
                swapper.swap_module_attrs(mod)
            for k in kernels:
                swapper.swap_globals_of(k)
            self._swapper = swapper
            yield self.K
        finally:
            self._swapper = None
            self._rewrites = {}
            swapper.restore()
            snapshot.restore()

    def K(self, fn: Any) -> _Launchable:
        """What a launcher calls ``K(jit_fn)``: ``K(fn)[grid](...)`` runs the launch here."""
        _triton.interpreted(fn)  # refuses autotune wrappers and non-jit functions with a clear message
        if self._swapper is not None:  # a kernel not listed in activate(): swap its helpers too
            self._swapper.swap_globals_of(fn)
        return _Launchable(self, fn)

    # -- one launch --------------------------------------------------------------------------------
    def launch(self, fn: Any, grid: Any, args: tuple, kwargs: dict) -> None:
        with ONE_AT_A_TIME:
            try:
                _triton.require()
            except TraceUnsupported as e:
                self._launch_unobserved(fn, grid, args, kwargs, e)
                return
            index = self.n_launches
            self.n_launches += 1
            observers = list(self._observers(index, fn) if callable(self._observers) else self._observers)
            bound = bind(fn, args, kwargs)
            g3 = grid3(grid, bound)
            for o in observers:
                o.on_bind(fn, bound, g3)
            self._run(self._info(index, fn, grid, g3, args, kwargs, bound), observers)

    def _info(self, index: int, fn: Any, grid: Any, g3: Any, args: tuple, kwargs: dict,
              bound: dict[str, Any]) -> LaunchInfo:
        tensors, scalars, constexprs = collect_args(bound, _triton.constexpr_names(fn))
        return LaunchInfo(index=index, fn=fn, grid=grid, grid3=g3, args=args, kwargs=kwargs,
                          bound=bound, tensors=tensors, scalars=scalars, constexprs=constexprs,
                          options=launch_options(fn, kwargs), spans=StorageSpans(tensors))

    def _kernel(self, fn: Any, observers: list[Observer]) -> Any:
        passes = [o.transform for o in observers if o.transform is not None]
        if not passes:
            kernel = self._rewrites.get(id(fn))
            if kernel is None:
                kernel = self._rewrites[id(fn)] = _triton.rewrite(fn)
            return kernel
        extra: dict[str, Any] = {}
        for _, g in passes:
            extra.update(g)

        def chain(tree: Any) -> Any:
            for visit, _ in passes:
                tree = visit(tree)
            return tree
        return _triton.rewrite(fn, chain, extra)

    def _run(self, info: LaunchInfo, observers: list[Observer]) -> None:
        kernel = self._kernel(info.fn, observers)
        info.code = kernel.__code__
        for o in observers:
            o.on_launch(info)
        watching = [o for o in observers if o.watches_accesses]
        hooks = (_triton.hooks(self._dispatch(info, watching)) if watching else contextlib.nullcontext())
        try:
            with hooks, _triton.prepared(kernel, info.fn, info.bound, info.grid3, self.check_overflow) as run:
                if not any(o.run(info, run) for o in observers):
                    run(np.arange(info.n_programs, dtype=np.int64), self._before_program(info, observers))
        except (OutOfBoundsAccess, Cancelled, InterpreterFault):
            raise
        except Exception as e:
            for kind in (OutOfBoundsAccess, Cancelled):  # raised inside a jit helper: comes back wrapped
                cause = _find_cause(e, kind)
                if cause is not None:
                    raise cause from None
            raise kernel_error(e, info) from e
        for o in observers:
            o.on_end(info)

    @staticmethod
    def _before_program(info: LaunchInfo, observers: list[Observer]) -> Callable[[int], None]:
        if len(observers) == 1:
            one = observers[0].on_program

            def before(pid: int) -> None:
                info.pid = pid
                one(info, pid)
            return before

        def before_all(pid: int) -> None:
            info.pid = pid
            for o in observers:
                o.on_program(info, pid)
        return before_all

    @staticmethod
    def _dispatch(info: LaunchInfo, watching: list[Observer]) -> _triton.OnAccess:
        if len(watching) == 1:
            one = watching[0].on_access
            return lambda op, ptrs, mask: one(info, op, ptrs, mask)

        def all_(op: int, ptrs: np.ndarray, mask: np.ndarray | None) -> np.ndarray | None:
            off = None
            for o in watching:
                o_off = o.on_access(info, op, ptrs, mask)
                if o_off is not None:
                    off = o_off if off is None else (off | o_off)
            return off
        return all_

    def _launch_unobserved(self, fn: Any, grid: Any, args: tuple, kwargs: dict, why: TraceUnsupported) -> None:
        """A Triton without the hooks: the plain interpreter runs the launch, unobserved, and the
        session says so (an observer that cannot work without the hooks raises instead)."""
        if callable(self._observers) or any(getattr(o, "requires_hooks", False) for o in self._observers):
            raise why
        note = f"out-of-bounds accesses are not checked on this Triton ({why.message})"
        if note not in self.notes:
            self.notes.append(note)
        _triton.interpreted(fn)[grid](*args, **kwargs)
