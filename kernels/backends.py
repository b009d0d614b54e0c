"""The same ``@triton.jit`` function run two ways: compiled on the GPU, or interpreted on the CPU.

The choice is per run, not per process: Tilescope never sets ``TRITON_INTERPRET``. Each backend
gives the launcher its ``K``: on the GPU ``K(fn) = fn`` (the JITFunction compiles and launches),
under the interpreter ``K(fn) = InterpretedFunction(fn.fn)`` (one twin per function, cached).

Under the interpreter ``K(fn)[grid](...)`` runs the launch program by program through the
tracer's narrow interface to the interpreter (``kernels.trace._interp``), with every load, store
and atomic checked first: lanes whose addresses fall outside every tensor argument's storage stop
the run with ``OutOfBoundsAccess`` (program, op, source line, lane count) *before* memory is
touched. Unguarded, the interpreter dereferences the address and the process dies of SIGSEGV.

Without ``TRITON_INTERPRET`` nothing turns the *other* jit functions a kernel calls into
interpreted ones: a kernel's own ``@triton.jit`` helpers, and triton.language's (``tl.max``,
``tl.sum``, ``tl.cdiv`` are JITFunctions), refuse to be called outside a compiled kernel. So an
interpreted run happens inside ``Backend.activate()``, which swaps every JITFunction in
``triton.language`` and in the kernel modules' globals for its interpreted twin and restores
them on exit. Not thread-safe: one interpreted run at a time (the worker runs one at a time).
"""

from __future__ import annotations

import importlib
import linecache
import sys
import types
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import triton
import triton.language as tl

from .errors import BackendUnavailable, InterpreterFault, OutOfBoundsAccess

__all__ = [
    "AccessGuard",
    "Backend",
    "Bf16Probe",
    "INTERPRETER_NOTE",
    "bf16_probe",
    "check_dtype",
    "gpu_status",
    "interpreted",
    "resolve",
]

INTERPRETER_NOTE = "num_warps and num_stages have no effect under the interpreter"


def gpu_status() -> tuple[bool, str]:
    """(CUDA usable?, why not). Never raises."""
    try:
        import torch
    except ImportError as e:  # pragma: no cover - torch is a dependency
        return False, f"torch is not importable ({e})"
    try:
        if torch.cuda.is_available():
            return True, ""
    except Exception as e:  # a broken driver install raises here
        return False, f"CUDA is installed but unusable: {e}"
    if torch.version.cuda is None:
        return False, f"this torch ({torch.__version__}) is a CPU-only build"
    return False, "torch sees no CUDA device (driver missing or no GPU visible)"


# ---------------------------------------------------------------------------------------------
# interpreted twins


_TWINS: dict[int, Any] = {}  # id(JITFunction) -> its InterpretedFunction (kept with the fn alive)
_TWIN_KEEP: dict[int, Any] = {}  # id -> the JITFunction, so the id is never reused while cached


def _jit_types() -> tuple[type, type]:
    from triton.runtime.interpreter import InterpretedFunction
    from triton.runtime.jit import JITFunction

    return JITFunction, InterpretedFunction


def interpreted(fn: Any) -> Any:
    """The interpreted twin of a JITFunction (cached: one per function, so identity holds)."""
    JITFunction, InterpretedFunction = _jit_types()
    if isinstance(fn, InterpretedFunction):
        return fn
    if isinstance(fn, JITFunction):
        twin = _TWINS.get(id(fn))
        if twin is None:
            twin = InterpretedFunction(fn.fn)
            _TWINS[id(fn)] = twin
            _TWIN_KEEP[id(fn)] = fn
        return twin
    if hasattr(fn, "configs") and hasattr(fn, "fn"):  # triton.autotune / heuristics wrapper
        raise InterpreterFault(
            f"{getattr(fn, '__name__', fn)!r} is wrapped in @triton.autotune or @triton.heuristics, "
            "which need a GPU driver; under the interpreter give plain @triton.jit functions "
            "(Tilescope tunes through KernelSpec.autotune_configs instead)")
    raise InterpreterFault(f"{fn!r} is not a @triton.jit function, so the interpreter cannot run it")


class _Swapper:
    """Swaps JITFunction globals for interpreted twins, remembering how to put them back."""

    def __init__(self) -> None:
        self.saved: list[tuple[Any, str, Any]] = []  # (namespace dict or module, name, original)
        self.seen_namespaces: set[int] = set()

    def swap_module_attrs(self, mod: types.ModuleType) -> None:
        JITFunction, _ = _jit_types()
        for name, value in list(vars(mod).items()):
            if isinstance(value, JITFunction):
                self.saved.append((mod, name, value))
                setattr(mod, name, interpreted(value))

    def swap_globals_of(self, fn: Any) -> None:
        """Swap the JITFunctions in ``fn``'s module globals, and in theirs, transitively."""
        JITFunction, InterpretedFunction = _jit_types()
        py = getattr(fn, "fn", fn)
        g = getattr(py, "__globals__", None)
        if g is None or id(g) in self.seen_namespaces:
            return
        self.seen_namespaces.add(id(g))
        found = []
        for name, value in list(g.items()):
            if isinstance(value, JITFunction):
                self.saved.append((g, name, value))
                g[name] = interpreted(value)
                found.append(value)
        for value in found:  # helpers defined in other modules may call their own helpers
            self.swap_globals_of(value)

    def restore(self) -> None:
        while self.saved:
            ns, name, original = self.saved.pop()
            if isinstance(ns, dict):
                ns[name] = original
            else:
                setattr(ns, name, original)
        self.seen_namespaces.clear()


def _language_modules() -> list[types.ModuleType]:
    import triton.language as tl

    return [tl] + [m for m in vars(tl).values()
                   if isinstance(m, types.ModuleType) and m.__name__.startswith("triton.language.")]


class _LanguageSnapshot:
    """triton.language as it stood, to be put back after an interpreted run.

    The interpreter patches triton.language's builtins for the length of a launch and restores
    them, but a *nested* call (an interpreted helper, or ``tl.cdiv``/``tl.max`` whose module sees
    ``triton.language.core`` rather than ``triton.language``) patches again and never restores.
    Left so, the next GPU compile in this process fails ("'value' object has no attribute
    'dtype'"). So every triton.language module, and every class they define, is snapshotted
    before the run and any attribute that changed is put back afterwards."""

    def __init__(self) -> None:
        objs: dict[int, Any] = {}
        for name, mod in list(sys.modules.items()):
            if mod is None or not (name == "triton.language" or name.startswith("triton.language.")):
                continue
            objs[id(mod)] = mod
            for v in list(vars(mod).values()):
                if isinstance(v, type) and getattr(v, "__module__", "").startswith("triton.language"):
                    objs[id(v)] = v
        self.saved = [(o, dict(vars(o))) for o in objs.values()]

    def restore(self) -> None:
        for obj, before in self.saved:
            now = vars(obj)
            # Names added to a *module* stay: the interpreter copies its own globals (np,
            # interpreter_semantic, …) into the module of each function it rewrites, and caches
            # the rewrite, which needs them on the next run. Names added to a class go.
            if isinstance(obj, type):
                for k in [k for k in now if k not in before]:
                    try:
                        delattr(obj, k)
                    except (AttributeError, TypeError):
                        pass
            for k, v in before.items():
                if now.get(k, _MISSING) is not v:
                    try:
                        setattr(obj, k, v)
                    except (AttributeError, TypeError):
                        pass


_MISSING = object()


# ---------------------------------------------------------------------------------------------
# the interpreter's access guard

_OP_WORDS = {0: "load", 1: "store", 2: "atomic"}  # kernels.trace.model.OP_LOAD/OP_STORE/OP_ATOMIC


class AccessGuard:
    """Checks each access of an interpreted launch against the tensor arguments' storages.

    ``on_access`` is an ``_interp.OnAccess`` hook. The common case costs two reductions and a
    bisect: every lane (masked ones included) inside one storage. Otherwise the active lanes are
    checked one by one (vectorized ``searchsorted``), and any outside every storage raise
    ``OutOfBoundsAccess`` before the builder's real load/store runs."""

    def __init__(self, args: list[Any], grid: tuple[int, int, int], code: Any, kernel_name: str) -> None:
        spans = sorted((a.storage_ptr, a.storage_ptr + a.storage_nbytes, a.info.name, a.info.element_size)
                       for a in args if a.storage_nbytes)
        self.spans = spans
        merged: list[list[int]] = []
        for lo, hi, _, _ in spans:
            if merged and lo <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], hi)
            else:
                merged.append([lo, hi])
        self.starts_l = [m[0] for m in merged]
        self.ends_l = [m[1] for m in merged]
        self.grid = grid
        self.code = code
        self.kernel_name = kernel_name
        self.pid = -1

    def _inside_one(self, lo: int, hi: int) -> bool:
        i = bisect_right(self.starts_l, lo) - 1
        return i >= 0 and hi < self.ends_l[i]

    def on_access(self, op: int, ptrs: Any, mask: Any) -> None:
        import numpy as np

        if ptrs.size == 0 or self._inside_one(int(ptrs.min()), int(ptrs.max())):
            return None
        if mask is None:
            act = ptrs.reshape(-1)
        else:
            act = ptrs[np.broadcast_to(mask, ptrs.shape)]
        if act.size == 0 or self._inside_one(int(act.min()), int(act.max())):
            return None
        starts = np.array(self.starts_l, dtype=np.uint64)
        ends = np.array(self.ends_l, dtype=np.uint64)
        idx = np.searchsorted(starts, act, side="right") - 1
        inside = (idx >= 0) & (act < ends[np.maximum(idx, 0)])
        if bool(inside.all()):
            return None
        raise self._violation(op, act, ~inside)

    def _violation(self, op: int, act: Any, bad: Any) -> OutOfBoundsAccess:
        word = _OP_WORDS.get(op, "access")
        n_bad, n_act = int(bad.sum()), int(act.size)
        first = int(act[bad][0])
        line, text, file = self._line()
        gx, gy, _ = self.grid
        pid = self.pid
        xyz = (pid % gx, (pid // gx) % gy, pid // (gx * gy)) if pid >= 0 else ()
        where = f" at line {line}" + (f" `{text}`" if text else "") if line > 0 else ""
        msg = (f"out-of-bounds {word} in {self.kernel_name}: program {pid} {xyz}{where}: {n_bad} of {n_act} "
               f"active lanes address memory outside every tensor argument ({self._nearest(first)}); "
               f"stopped before the {word} touched memory (on a GPU the kernel would fault here). "
               "Trace this run to see every lane.")
        detail = (f"kernel {self.kernel_name}, grid {self.grid}, program {pid} {xyz}\n"
                  f"source: {file}:{line}\n" if line > 0 else f"kernel {self.kernel_name}, program {pid}\n")
        detail += "tensor arguments (storage byte ranges):\n" + "\n".join(
            f"  {name}: 0x{lo:x}..0x{hi:x} ({(hi - lo) // max(1, es)} elements of {es} B)"
            for lo, hi, name, es in self.spans)
        bad_addrs = act[bad][:8].tolist()
        detail += "\nfirst out-of-bounds addresses: " + ", ".join(f"0x{int(a):x}" for a in bad_addrs)
        return OutOfBoundsAccess(msg, detail=detail)

    def _nearest(self, a: int) -> str:
        best = None
        for lo, hi, name, es in self.spans:
            if a >= hi:
                d, text = a - hi, f"the first is {(a - hi) // max(1, es) + 1} elements past the end of {name}"
            elif a < lo:
                d, text = lo - a, f"the first is {-(-(lo - a) // max(1, es))} elements before the start of {name}"
            else:
                continue
            if best is None or d < best[0]:
                best = (d, text)
        return best[1] if best is not None else "the kernel has no tensor arguments"

    def _line(self) -> tuple[int, str, str]:
        """(line, its text, file) of the kernel's frame making the access (0 when not found)."""
        f = sys._getframe(2)
        while f is not None and f.f_code is not self.code:
            f = f.f_back
        if f is None:
            return 0, "", ""
        file = f.f_code.co_filename
        return f.f_lineno, linecache.getline(file, f.f_lineno).strip(), file


def _find_cause(e: BaseException, kind: type) -> BaseException | None:
    seen = set()
    while e is not None and id(e) not in seen:
        if isinstance(e, kind):
            return e
        seen.add(id(e))
        e = e.__cause__ or e.__context__
    return None


class _GuardedLaunch:
    """What ``K(fn)`` is under the interpreter: ``[grid](*args, **kwargs)`` runs every program
    with the access guard on, reporting ``progress`` between programs."""

    def __init__(self, backend: Backend, fn: Any) -> None:
        self.backend = backend
        self.fn = fn

    def __getitem__(self, grid: Any) -> Callable[..., None]:
        return lambda *args, **kwargs: self.backend._run_guarded(self.fn, grid, args, kwargs)

    def __getattr__(self, name: str) -> Any:  # anything else a launcher uses: the plain twin's
        return getattr(interpreted(self.fn), name)


# ---------------------------------------------------------------------------------------------
# backends


@dataclass
class Backend:
    """One way of running kernels. ``name`` is "gpu" or "interpreter"; ``device`` a torch device."""

    name: str
    device: str
    device_name: str
    notes: list[str] = field(default_factory=list)
    #: notes of the runs inside the current ``activate()`` (e.g. the guard was unavailable)
    run_notes: list[str] = field(default_factory=list)
    _swapper: _Swapper | None = field(default=None, repr=False)
    _rewrites: dict[int, Any] = field(default_factory=dict, repr=False)
    _progress: Callable[[int, int], None] | None = field(default=None, repr=False)

    @property
    def is_interpreter(self) -> bool:
        return self.name == "interpreter"

    def K(self, fn: Any) -> Any:
        """What the launcher calls ``K(jit_fn)``: the function this backend runs (under the
        interpreter, a guarded launch of the function's interpreted twin)."""
        if not self.is_interpreter:
            return fn
        interpreted(fn)  # refuses autotune wrappers and non-jit functions with a clear message
        if self._swapper is not None:  # a kernel not listed in spec.kernels: swap its helpers too
            self._swapper.swap_globals_of(fn)
        return _GuardedLaunch(self, fn)

    def _run_guarded(self, fn: Any, grid: Any, args: tuple, kwargs: dict) -> None:
        """One interpreted launch, program by program, every access checked first."""
        from .trace import _interp, recorder
        from .trace.errors import TraceUnsupported

        try:
            _interp.require()
        except TraceUnsupported as e:  # a Triton without the hooks: run unguarded, and say so
            note = f"out-of-bounds accesses are not checked on this Triton ({e.message})"
            if note not in self.run_notes:
                self.run_notes.append(note)
            interpreted(fn)[grid](*args, **kwargs)
            return
        bound = recorder._bind(fn, args, kwargs)
        grid3 = recorder._grid3(grid, bound)
        targs = recorder._collect_args(bound, _interp.constexpr_names(fn))[0]
        kernel = self._rewrites.get(id(fn))
        if kernel is None:
            kernel = self._rewrites[id(fn)] = _interp.rewrite(fn)
        guard = AccessGuard(targs, grid3, kernel.__code__, fn.fn.__name__)
        n = grid3[0] * grid3[1] * grid3[2]
        progress = self._progress
        step = max(1, n // 50)

        def before_program(pid: int) -> None:
            guard.pid = pid
            if progress is not None and pid % step == 0:
                progress(pid, n)

        import numpy as np

        with recorder._ONE_AT_A_TIME:
            try:
                with _interp.hooks(guard.on_access), _interp.prepared(kernel, fn, bound, grid3) as run:
                    run(np.arange(n, dtype=np.int64), before_program)
            except OutOfBoundsAccess:
                raise
            except Exception as e:
                # an access guard's refusal inside a jit helper comes back wrapped
                oob = _find_cause(e, OutOfBoundsAccess)
                if oob is not None:
                    raise oob from None
                raise recorder._kernel_error(e, guard.pid, grid3, kernel.__code__, fn.fn.__name__) from e

    @contextmanager
    def activate(self, kernels: Iterable[Any] = (),
                 progress: Callable[[int, int], None] | None = None) -> Iterator[Callable[[Any], Any]]:
        """Context of one run; yields ``K``. Under the interpreter the jit helpers the kernels
        can reach (their modules' globals, triton.language) are interpreted twins inside, and
        ``progress(program, n_programs)`` is called between programs (a launch is not cancelled
        part-way: the engine polls cancel between stages, the worker client kills on a timeout)."""
        if not self.is_interpreter:
            yield self.K
            return
        self.run_notes = []
        self._rewrites = {}
        self._progress = progress
        snapshot = _LanguageSnapshot()
        swapper = _Swapper()
        try:
            # Triton's argument specialization imports gluon lazily and copies the language
            # helpers as they stand then; import it while they are still JITFunctions.
            importlib.import_module("triton.experimental.gluon")
        except ImportError:
            pass
        try:
            for mod in _language_modules():
                swapper.swap_module_attrs(mod)
            for k in kernels:
                swapper.swap_globals_of(k)
            self._swapper = swapper
            yield self.K
        finally:
            self._swapper = None
            self._rewrites = {}
            self._progress = None
            swapper.restore()
            snapshot.restore()


def resolve(requested: str) -> Backend:
    """The backend for ``requested`` ("gpu", "interpreter", "auto"); raises BackendUnavailable."""
    if requested not in ("gpu", "interpreter", "auto"):
        raise BackendUnavailable(f"unknown backend {requested!r} (choose gpu, interpreter or auto)")
    ok, why = gpu_status()
    if requested == "gpu" and not ok:
        raise BackendUnavailable(f"no CUDA device: {why}; use --backend interpreter")
    if requested == "gpu" or (requested == "auto" and ok):
        import torch

        return Backend("gpu", "cuda", torch.cuda.get_device_name())
    return Backend("interpreter", "cpu", "CPU (Triton interpreter)", notes=[INTERPRETER_NOTE])


# ---------------------------------------------------------------------------------------------
# the bf16 probe


@dataclass(frozen=True)
class Bf16Probe:
    ok: bool
    detail: str  # what the probe computed (or raised)
    triton_version: str


_PROBE: Bf16Probe | None = None


@triton.jit
def _times_two(x_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs) * 2)


def bf16_probe() -> Bf16Probe:
    """Run ``x * 2`` on bf16 under the interpreter once per process and compare with torch.

    Triton 3.9's interpreter returns garbage for bf16 arithmetic and 3.6's raises; a run whose
    answer is known to be wrong teaches the wrong thing, so bf16 interpreter runs are refused
    while this probe fails."""
    global _PROBE
    if _PROBE is not None:
        return _PROBE
    import torch

    x = torch.tensor([1.0, 1.5, -2.25, 3.0, 0.5, 100.0, 7.0, -0.125], dtype=torch.bfloat16)
    out = torch.full_like(x, float("nan"))
    expected = x * 2
    try:
        with Backend("interpreter", "cpu", "").activate([_times_two]) as K:
            K(_times_two)[(1,)](x, out, N=8)
    except Exception as e:  # noqa: BLE001 - any failure is the probe's answer
        cause = e.__cause__ or e
        detail = f"bf16 x*2 raised {type(cause).__name__}: {str(cause).splitlines()[0] if str(cause) else ''}"
        _PROBE = Bf16Probe(False, detail, triton.__version__)
        return _PROBE
    if torch.equal(out, expected):
        _PROBE = Bf16Probe(True, "bf16 x*2 exact", triton.__version__)
    else:
        got = ", ".join(f"{v:g}" for v in out[:4].float().tolist())
        want = ", ".join(f"{v:g}" for v in expected[:4].float().tolist())
        _PROBE = Bf16Probe(False, f"bf16 x*2 gave [{got}, …], expected [{want}, …]", triton.__version__)
    return _PROBE


def check_dtype(backend: Backend, dtype: str | None) -> None:
    """Refuse interpreter runs in a dtype the interpreter gets wrong (raises InterpreterFault)."""
    if not backend.is_interpreter or dtype != "bf16":
        return
    p = bf16_probe()
    if not p.ok:
        raise InterpreterFault(
            f"bf16 is refused under the interpreter: Triton {p.triton_version}'s interpreter gets "
            f"bf16 arithmetic wrong ({p.detail}); use fp32 or fp16 here, or run bf16 on a GPU",
            field="dtype")
