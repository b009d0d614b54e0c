"""The same ``@triton.jit`` function run two ways: compiled on the GPU, or interpreted on the CPU.

The choice is per run, not per process: Tilescope never sets ``TRITON_INTERPRET``. Each backend
gives the launcher its ``K``: on the GPU ``K(fn) = fn`` (the JITFunction compiles and launches),
under the interpreter ``K(fn) = InterpretedFunction(fn.fn)`` (one twin per function, cached).

Without ``TRITON_INTERPRET`` nothing turns the *other* jit functions a kernel calls into
interpreted ones: a kernel's own ``@triton.jit`` helpers, and triton.language's (``tl.max``,
``tl.sum``, ``tl.cdiv`` are JITFunctions), refuse to be called outside a compiled kernel. So an
interpreted run happens inside ``Backend.activate()``, which swaps every JITFunction in
``triton.language`` and in the kernel modules' globals for its interpreted twin and restores
them on exit. Not thread-safe: one interpreted run at a time (the worker runs one at a time).
"""

from __future__ import annotations

import importlib
import sys
import types
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import triton
import triton.language as tl

from .errors import BackendUnavailable, InterpreterFault

__all__ = [
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
# backends


@dataclass
class Backend:
    """One way of running kernels. ``name`` is "gpu" or "interpreter"; ``device`` a torch device."""

    name: str
    device: str
    device_name: str
    notes: list[str] = field(default_factory=list)
    _swapper: _Swapper | None = field(default=None, repr=False)

    @property
    def is_interpreter(self) -> bool:
        return self.name == "interpreter"

    def K(self, fn: Any) -> Any:
        """What the launcher calls ``K(jit_fn)``: the function this backend runs."""
        if not self.is_interpreter:
            return fn
        twin = interpreted(fn)
        if self._swapper is not None:  # a kernel not listed in spec.kernels: swap its helpers too
            self._swapper.swap_globals_of(fn)
        return twin

    @contextmanager
    def activate(self, kernels: Iterable[Any] = ()) -> Iterator[Callable[[Any], Any]]:
        """Context of one run; yields ``K``. Under the interpreter the jit helpers the kernels
        can reach (their modules' globals, triton.language) are interpreted twins inside."""
        if not self.is_interpreter:
            yield self.K
            return
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
