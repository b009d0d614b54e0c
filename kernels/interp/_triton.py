"""Every contact with Triton's *private* interpreter internals, and every Triton-version
difference, in one file.

``triton.runtime.interpreter`` is not a public API: a Triton release may rename what Tilescope
leans on. So the rest of ``kernels.interp`` (and through it the guard, the tracer and the launch
capture) reaches it only through this narrow interface:

- ``interpreted(jit_fn)``: the interpreted twin of a JITFunction (cached); ``Swapper`` and
  ``LanguageSnapshot``: make a kernel's jit helpers (and triton.language's) callable under the
  interpreter for the length of a run, and put everything back afterwards;

- ``require()``: check that every hook exists; ``TraceUnsupported`` names the first missing one.
  Called before anything runs, so a future Triton gives a clear error, never a wrong map;
- ``rewrite(jit_fn, transform)``: the kernel rewritten as the interpreter rewrites it (its AST
  pass), with an extra AST pass of ours first (the loop counters), line numbers kept, and
  ``range`` loop variables given the GPU's integer type (``loop_vars``);
- ``hooks(on_access)``: observe every load, store and atomic of the interpreter's builder, and
  switch off the lanes ``on_access`` returns (out-of-bounds addresses) before memory is touched;
- ``prepared(...)`` / ``run_programs(...)``: run a chosen set of programs of one launch (a window
  of the grid, or one part of it per forked process);
- ``constexpr_names(jit_fn)``;
- ``_gpu_only_twins``: libdevice's math functions computed with NumPy, PDL's grid-dependency
  control as no-ops (programs run in order), for the length of a launch.

While a launch is prepared, ``_faster_interpreter`` also makes three result-preserving changes
(helpers patched and rewritten once per run, a memoized ``_get_np_dtype``, the dead overflow
check skipped) and one fix (Triton 3.6's ``__index__`` under NumPy 2); see there.

Checked against Triton 3.6 and 3.9. They differ in the builder's signatures
(``create_masked_load(ptrs, mask, other, cache_modifier, eviction_policy, is_volatile)`` in 3.6,
``(ptrs, mask, other, cache_policy, is_volatile)`` in 3.9; stores likewise) — the hooks take the
leading arguments they need and pass the rest through — and 3.9 adds ``create_atomic_load`` /
``create_atomic_store`` (routed to the masked load/store, recorded as atomics here).
Every patch is undone on exit, also on error.
"""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import importlib
import inspect
import sys
import types
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from ..data.errors import InterpreterFault, TraceUnsupported
from ..data.trace import OP_ATOMIC, OP_LOAD, OP_STORE
from . import loop_vars

__all__ = ["require", "rewrite", "hooks", "prepared", "constexpr_names", "OnAccess", "interpreted",
           "Swapper", "LanguageSnapshot", "language_modules", "import_gluon", "jit_types"]

#: on_access(op, ptrs, mask) -> lanes to switch off (bool, ptrs' shape) or None.
#: ``ptrs`` is the uint64 address array of the access, ``mask`` its bool mask (None: all lanes).
OnAccess = Callable[[int, np.ndarray, "np.ndarray | None"], "np.ndarray | None"]

_MODULE_NAMES = ("interpreter_builder", "InterpreterBuilder", "TensorHandle", "FunctionRewriter",
                 "InterpretedFunction", "_patch_lang", "_implicit_cvt", "_LangPatchScope")
_BUILDER_HOOKS = ("create_masked_load", "create_masked_store", "create_atomic_rmw", "create_atomic_cas",
                  "set_grid_dim", "set_grid_idx")
_BUILDER_ATOMIC_VIA_MASKED = ("create_atomic_load", "create_atomic_store")  # 3.9 only
_REWRITER_NAMES = ("_get_jit_fn_file_line", "_find_def", "_prepare_source", "ast_transformer")


def _module() -> Any:
    try:
        import triton.runtime.interpreter as m
    except ImportError as e:  # pragma: no cover - triton is a dependency
        raise TraceUnsupported(f"Triton's interpreter cannot be imported ({e})",
                               hook="triton.runtime.interpreter") from e
    return m


def _version() -> str:
    import triton

    return getattr(triton, "__version__", "?")


def _missing(where: str, name: str) -> TraceUnsupported:
    hook = f"{where}.{name}"
    return TraceUnsupported(
        f"the tracer cannot run on Triton {_version()}: its interpreter has no {hook} "
        f"(the tracer was written against Triton 3.6 and 3.9 and needs that hook to observe "
        f"loads and stores)", hook=hook)


def require() -> None:
    """Raise ``TraceUnsupported`` naming the first interpreter hook this Triton lacks."""
    m = _module()
    for name in _MODULE_NAMES:
        if not hasattr(m, name):
            raise _missing("triton.runtime.interpreter", name)
    for name in _BUILDER_HOOKS:
        if not callable(getattr(m.InterpreterBuilder, name, None)):
            raise _missing("InterpreterBuilder", name)
    for name in _REWRITER_NAMES:
        if not hasattr(m.FunctionRewriter, name):
            raise _missing("FunctionRewriter", name)
    if not callable(getattr(m._LangPatchScope, "restore", None)):
        raise _missing("_LangPatchScope", "restore")


def constexpr_names(jit_fn: Any) -> set[str]:
    """Names of the ``tl.constexpr`` parameters (passed to the interpreted kernel as they are)."""
    params = getattr(jit_fn, "params", None)
    if params is not None and all(hasattr(p, "is_constexpr") for p in params):
        return {p.name for p in params if p.is_constexpr}
    ann = getattr(getattr(jit_fn, "fn", jit_fn), "__annotations__", {})
    return {n for n, t in ann.items() if "constexpr" in str(t)}


def rewrite(jit_fn: Any, transform: Callable[[ast.Module], ast.Module] | None = None,
            extra_globals: dict[str, Any] | None = None) -> Callable[..., Any]:
    """The kernel as the interpreter runs it, after ``transform`` (an extra AST pass).

    Mirrors ``FunctionRewriter.rewrite_ast`` (the source from the ``def`` line, Triton's AST pass,
    line numbers shifted to the file's), but executes in a *copy* of the kernel's globals with
    ``extra_globals`` added, so the user's module is left untouched. Raises TraceUnsupported when
    the kernel's source is unavailable (the counters need it). Loop variables of ``range`` /
    ``tl.range`` become scalar tensors of the GPU's type (``loop_vars``: int32 wraps there)."""
    require()
    m = _module()
    fn = getattr(jit_fn, "fn", jit_fn)
    try:
        lines, _ = inspect.getsourcelines(fn)
    except (OSError, TypeError) as e:
        raise TraceUnsupported(f"the source of kernel {fn.__name__!r} is not available ({e}); the "
                               "tracer needs it to follow loops and source lines",
                               hook="inspect.getsourcelines") from e
    rw = m.FunctionRewriter(fn)
    rw.filename, rw.def_file_lineno = rw._get_jit_fn_file_line()
    rw.def_lineno = rw._find_def(lines)
    tree = ast.parse(rw._prepare_source(lines))
    if transform is not None:
        tree = transform(tree)
    tree = loop_vars.TypedLoops().visit(tree)
    tree = rw.ast_transformer.visit(tree)
    ast.fix_missing_locations(tree)
    ast.increment_lineno(tree, rw.def_file_lineno - 1)
    code = compile(tree, filename=rw.filename, mode="exec")
    g = dict(fn.__globals__)
    for key, value in vars(m).items():  # what Triton's _compile_and_exec adds (interpreter_semantic …)
        g.setdefault(key, value)
    g[loop_vars.RANGE_NAME] = _TYPED_RANGE
    g.update(extra_globals or {})
    ns: dict[str, Any] = {}
    exec(code, g, ns)  # noqa: S102 - the user's own kernel, as Triton's interpreter does
    return ns[fn.__name__]


def _scalars(ty: Any) -> Callable[[int], Any]:
    """Maker of the interpreter's scalar tensors of Triton type ``ty`` (as ``_implicit_cvt`` makes them)."""
    m = _module()
    import triton.language as tl

    np_dtype, handle, tensor = m._get_np_dtype(ty), m.TensorHandle, tl.tensor
    return lambda value: tensor(handle(np.array([value], dtype=np_dtype), ty), ty)


_TYPED_RANGE = loop_vars.typed_range(_scalars)


@contextlib.contextmanager
def hooks(on_access: OnAccess) -> Iterator[None]:
    """Observe the interpreter builder's loads, stores and atomics while the context is open.

    Lanes that ``on_access`` returns are removed from the access *before* the real operation: a
    load gives ``other`` (or 0) there, a store writes nothing, so an out-of-bounds address is
    recorded and never dereferenced. Patches are instance attributes of the builder, removed on
    exit whatever happens."""
    require()
    m = _module()
    b = m.interpreter_builder
    TH = m.TensorHandle
    import triton.language as tl

    orig = {name: getattr(b, name) for name in
            ("create_masked_load", "create_masked_store", "create_atomic_rmw", "create_atomic_cas")}
    atomic_depth = [0]  # > 0 inside 3.9's create_atomic_load/store (they call the masked ones)

    def _cleared(mask: Any, ptrs: Any, off: np.ndarray) -> Any:
        keep = ~off
        if mask is None:
            return TH(keep, tl.int1)
        return TH(np.logical_and(np.broadcast_to(mask.data, off.shape), keep), mask.dtype)

    def load(ptrs: Any, mask: Any, other: Any, *rest: Any, **kw: Any) -> Any:
        op = OP_ATOMIC if atomic_depth[0] else OP_LOAD
        off = on_access(op, ptrs.data, None if mask is None else mask.data)
        if off is not None:
            mask = _cleared(mask, ptrs, off)
        return orig["create_masked_load"](ptrs, mask, other, *rest, **kw)

    def store(ptrs: Any, value: Any, mask: Any, *rest: Any, **kw: Any) -> Any:
        op = OP_ATOMIC if atomic_depth[0] else OP_STORE
        off = on_access(op, ptrs.data, None if mask is None else mask.data)
        if off is not None:
            mask = _cleared(mask, ptrs, off)
        return orig["create_masked_store"](ptrs, value, mask, *rest, **kw)

    def atomic_rmw(rmw_op: Any, ptr: Any, val: Any, mask: Any, *rest: Any, **kw: Any) -> Any:
        off = on_access(OP_ATOMIC, ptr.data, None if mask is None else mask.data)
        if off is not None:
            mask = _cleared(mask, ptr, off)
        return orig["create_atomic_rmw"](rmw_op, ptr, val, mask, *rest, **kw)

    def atomic_cas(ptr: Any, cmp: Any, val: Any, *rest: Any, **kw: Any) -> Any:
        off = on_access(OP_ATOMIC, ptr.data, None)
        if off is None:
            return orig["create_atomic_cas"](ptr, cmp, val, *rest, **kw)
        # compare-and-swap has no mask: run it on the in-bounds lanes only, 0 elsewhere
        keep = ~off

        def sub(h: Any) -> Any:
            return TH(np.ascontiguousarray(np.broadcast_to(h.data, off.shape)[keep]), h.dtype)

        res = orig["create_atomic_cas"](sub(ptr), sub(cmp), sub(val), *rest, **kw)
        out = np.zeros(off.shape, dtype=res.data.dtype)
        out[keep] = res.data
        return TH(out, res.dtype)

    def via_masked(name: str) -> Callable[..., Any]:
        method = getattr(b, name)

        def call(*args: Any, **kw: Any) -> Any:
            atomic_depth[0] += 1
            try:
                return method(*args, **kw)
            finally:
                atomic_depth[0] -= 1
        return call

    patches = {"create_masked_load": load, "create_masked_store": store,
               "create_atomic_rmw": atomic_rmw, "create_atomic_cas": atomic_cas}
    for name in _BUILDER_ATOMIC_VIA_MASKED:
        if callable(getattr(b, name, None)):
            patches[name] = via_masked(name)
    own = vars(b)
    saved = {name: own[name] for name in patches if name in own}
    try:
        for name, fn in patches.items():
            setattr(b, name, fn)
        yield
    finally:
        for name in patches:
            if name in saved:
                setattr(b, name, saved[name])
            else:
                own.pop(name, None)


@contextlib.contextmanager
def prepared(kernel: Callable[..., Any], jit_fn: Any, bound: dict[str, Any], grid: tuple[int, int, int],
             check_overflow: bool = False) -> Iterator[Callable[[np.ndarray, Callable[[int], None] | None], None]]:
    """Set up one launch and yield ``run(pids, before_program)``, which runs those programs.

    Mirrors the body of ``GridExecutor.__call__`` (patch triton.language, convert the arguments,
    set the grid, call the kernel per program) with our own loop, so that a window of the grid
    can run alone, or parts of it in forked processes (``run`` is called in each). Patches are
    undone when the context closes.

    ``check_overflow``: the interpreter's ``sanitize_overflow`` recomputes every integer
    add/sub/mul in int64 and compares — about 40% of a vector-add program's time — and then
    hands the result to ``device_assert``, which drops it unless ``debug`` is on (the default:
    off). Without ``check_overflow`` that dead work is skipped (nothing observable changes: int32
    arithmetic wraps, as in compiled GPU code, and wrapped addresses are flagged out of bounds).
    With it, the run is a debug run: int32 overflow and the kernel's ``tl.device_assert`` raise."""
    require()
    m = _module()
    consts = constexpr_names(jit_fn)
    b = m.interpreter_builder
    saved_options = getattr(b, "options", None)
    with _faster_interpreter(m) as scopes:
        if dataclasses.is_dataclass(saved_options) and hasattr(saved_options, "sanitize_overflow") \
                and hasattr(saved_options, "debug"):
            if check_overflow:
                b.options = dataclasses.replace(saved_options, sanitize_overflow=True, debug=True)
            elif not saved_options.debug:  # the check's assertion would be dropped: skip the work
                b.options = dataclasses.replace(saved_options, sanitize_overflow=False)
            scopes.insert(0, _Restore(lambda: setattr(b, "options", saved_options)))
        # patched first, undone last: the helpers' patches (made later) are undone before it
        scopes.append(m._patch_lang(getattr(jit_fn, "fn", jit_fn)))
        if _may_need_gpu_only_twins(jit_fn):  # hundreds of attributes patched: only where the file may call them
            scopes.append(_gpu_only_twins(m))
        args = {name: value if name in consts else m._implicit_cvt(value) for name, value in bound.items()}
        b.set_grid_dim(*grid)
        gx, gy = int(grid[0]), int(grid[1])

        def run(pids: np.ndarray, before_program: Callable[[int], None] | None = None) -> None:
            set_idx = b.set_grid_idx
            for pid in pids.tolist():
                rest = pid // gx
                set_idx(pid % gx, rest % gy, rest // gy)
                if before_program is not None:
                    before_program(pid)
                kernel(**args)

        yield run


class _Restore:
    """A scope-like undo step (``restore()``) for the ``_faster_interpreter`` stack."""

    def __init__(self, undo: Callable[[], None]) -> None:
        self.restore = undo


@contextlib.contextmanager
def _faster_interpreter(m: Any) -> Iterator[list[Any]]:
    """Two speed-ups that leave the interpreter's results unchanged, and one fix; undone on exit.

    - A device-function call (``InterpretedFunction.__call__``: a kernel's jit helper, or
      ``tl.cdiv``) re-patches triton.language on *every* call (~1 ms, patches it never undoes);
      here each helper's module is patched once per run, and undone at the end (the scopes
      yielded, undone last-in first-out). Helpers are rewritten once per run into a copy of
      their globals, like the kernel: the interpreter's class-wide cache of rewrites depends on
      names it injects into the helper's module, which other code may have removed since;
    - ``_get_np_dtype`` builds a 20-entry dict on every call; here its answers are cached.
    - Triton 3.6 turns a tensor into a loop bound with ``int(array of shape (1,))``, which NumPy 2
      refuses (``for k in range(0, tl.cdiv(K, BLOCK_K))`` fails); ``__index__`` here converts a
      one-element array as 3.9 does (``squeeze``), and still refuses larger ones."""
    saved_call = m.InterpretedFunction.__dict__.get("__call__")
    saved_np_dtype = m.__dict__.get("_get_np_dtype")
    scopes: list[Any] = []
    patched: set[int] = set()
    error_type = getattr(m, "InterpreterError", None)

    rewritten: dict[Any, Callable[..., Any]] = {}

    def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        key = id(self.fn.__globals__)
        if key not in patched:
            patched.add(key)
            scopes.append(m._patch_lang(self.fn))
        fn = rewritten.get(self.fn)
        if fn is None:
            try:  # our own rewrite, in a copy of the helper's globals (see ``rewrite``)
                fn = rewrite(self)
            except TraceUnsupported:  # no source: the interpreter's own (cached) rewrite
                fn = self.rewrite()
            rewritten[self.fn] = fn
        try:
            return fn(*args, **kwargs)
        except Exception as e:
            if error_type is None:
                raise
            raise error_type(repr(e)) from e

    cache: dict[Any, Any] = {}

    def np_dtype(tt: Any) -> Any:
        # keyed by class and name: block types (unhashable) are named by shape and element type
        key = (type(tt), getattr(tt, "name", None))
        r = cache.get(key)
        if r is None:
            r = saved_np_dtype(tt)
            if key[1] is not None:
                cache[key] = r
        return r

    saved_patch_tensor = m.__dict__.get("_patch_lang_tensor")

    def index(self: Any) -> int:
        data = self.handle.data
        return int(data.reshape(()) if getattr(data, "size", 0) == 1 else data)

    def patch_tensor(tensor: Any, scope: Any) -> None:
        saved_patch_tensor(tensor, scope)
        scope.set_attr(tensor, "__index__", index)

    use_call = saved_call is not None and callable(getattr(m.InterpretedFunction, "rewrite", None))
    try:
        if use_call:
            m.InterpretedFunction.__call__ = call
        if saved_np_dtype is not None:
            m._get_np_dtype = np_dtype
        if saved_patch_tensor is not None:
            m._patch_lang_tensor = patch_tensor
        yield scopes
    finally:
        while scopes:
            scopes.pop().restore()
        if use_call:
            m.InterpretedFunction.__call__ = saved_call
        if saved_np_dtype is not None:
            m._get_np_dtype = saved_np_dtype
        if saved_patch_tensor is not None:
            m._patch_lang_tensor = saved_patch_tensor


# ---------------------------------------------------------------------------------------------
# what Triton's interpreter lacks and a CPU can still do: libdevice functions, PDL's grid control

def _round_half_away(x: np.ndarray) -> np.ndarray:
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


#: libdevice functions (``__nv_asinf`` -> ``asin``) NumPy computes: an extern call under the
#: interpreter runs this instead of raising "extern_elementwise not supported in interpreter mode"
_NP_EXTERN: dict[str, Callable[..., Any]] = {
    "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "atan2": np.arctan2, "asinh": np.arcsinh,
    "acosh": np.arccosh, "atanh": np.arctanh, "sin": np.sin, "cos": np.cos, "tan": np.tan, "sinh": np.sinh,
    "cosh": np.cosh, "tanh": np.tanh, "exp": np.exp, "exp2": np.exp2, "expm1": np.expm1, "log": np.log,
    "log2": np.log2, "log10": np.log10, "log1p": np.log1p, "sqrt": np.sqrt, "cbrt": np.cbrt,
    "rsqrt": lambda x: 1 / np.sqrt(x), "rcp": lambda x: 1 / x, "exp10": lambda x: np.power(x.dtype.type(10), x),
    "sinpi": lambda x: np.sin(np.pi * x), "cospi": lambda x: np.cos(np.pi * x),
    "erf": np.vectorize(__import__("math").erf), "erfc": np.vectorize(__import__("math").erfc),
    "lgamma": np.vectorize(__import__("math").lgamma), "tgamma": np.vectorize(__import__("math").gamma),
    "pow": np.power, "powi": np.power, "fmod": np.fmod, "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc,
    "rint": np.rint, "nearbyint": np.rint, "round": _round_half_away, "fabs": np.abs, "abs": np.abs,
    "fmin": np.fmin, "fmax": np.fmax, "hypot": np.hypot, "copysign": np.copysign, "fma": lambda x, y, z: x * y + z,
    "isnan": np.isnan, "isinf": np.isinf, "isfinited": np.isfinite, "finitef": np.isfinite, "signbit": np.signbit,
    "saturate": lambda x: np.clip(x, 0, 1), "div": np.divide, "fdiv": np.divide, "add": np.add, "mul": np.multiply,
    "sub": np.subtract,
}


def _extern_name(symbol: str) -> str | None:
    """``__nv_asinf`` -> ``asin``; ``__nv_fast_expf`` -> ``exp``; ``__nv_fdiv_rn`` -> ``fdiv``."""
    name = symbol[5:] if symbol.startswith("__nv_") else symbol
    for cut in (lambda s: s, lambda s: s[5:] if s.startswith("fast_") else s):
        n = cut(name)
        for suffix in ("_rn", "_rz", "_rd", "_ru"):
            n = n[:-len(suffix)] if n.endswith(suffix) else n
        for cand in (n, n[:-1] if n.endswith("f") else n):
            if cand in _NP_EXTERN:
                return cand
    return None


def _extern_elementwise(m: Any) -> Callable[..., Any]:
    def create(self: Any, lib_name: str, lib_path: str, symbol: str, args: list, ret: Any, is_pure: bool) -> Any:
        name = _extern_name(symbol)
        if name is None:
            raise NotImplementedError(f"the libdevice/extern function {symbol} has no CPU twin here "
                                      "(Tilescope computes libdevice's math functions with NumPy); run it on a GPU")
        scalar = getattr(ret, "scalar", ret)
        with np.errstate(all="ignore"):
            out = _NP_EXTERN[name](*[a.data for a in args])
        return m.TensorHandle(np.asarray(out).astype(m._get_np_dtype(scalar)), scalar)
    return create


#: words in a kernel's (or a helper's) source that may reach libdevice or PDL
_GPU_ONLY_WORDS = ("libdevice", "gdc_", "extern", "extra")


def _may_need_gpu_only_twins(jit_fn: Any) -> bool:
    """Does the kernel's file (its jit helpers' too, when they live there) mention libdevice or PDL?
    A cheap test on the cached source lines; a file that cannot be read gets the twins."""
    import linecache

    code = getattr(getattr(jit_fn, "fn", jit_fn), "__code__", None)
    lines = linecache.getlines(code.co_filename) if code is not None else []
    text = "".join(lines) if lines else (getattr(jit_fn, "src", "") or "")
    return not text or any(w in text for w in _GPU_ONLY_WORDS)


def _gpu_only_twins(m: Any) -> Any:
    """libdevice (``tl.extra.libdevice``, a stub module until a GPU backend fills it, and
    ``tl.extra.cuda.libdevice``) computed with NumPy, and PDL's ``gdc_wait`` /
    ``gdc_launch_dependents`` as no-ops: the interpreter runs a launch's programs one after
    another after the previous launch has finished, so what they order is already in order. A
    scope: ``restore()`` undoes it."""
    scope = m._LangPatchScope()
    b = m.interpreter_builder
    scope.set_attr(type(b), "create_extern_elementwise", _extern_elementwise(m))
    try:
        import triton.language as tl
        from triton.language.extra import libdevice as stub
        from triton.language.extra.cuda import gdc
        from triton.language.extra.cuda import libdevice as cuda_libdevice
    except ImportError:
        return scope
    for name in dir(stub):
        member = getattr(cuda_libdevice, name, None)
        if not name.startswith("_") and member is not None and tl.core.is_builtin(member):
            m._patch_attr(stub, name, member, b, scope)
    cuda_modules = {id(x): x for x in (sys.modules.get("triton.language.extra.cuda"),
                                       getattr(getattr(tl, "extra", None), "cuda", None)) if x is not None}
    for lib in {id(x): x for x in [cuda_libdevice] + [getattr(c, "libdevice", None) for c in cuda_modules.values()]
                if x is not None}.values():
        m._patch_builtin(lib, b, scope)

    def no_op(*args: Any, **kwargs: Any) -> None:
        return None
    for mod in (gdc, *cuda_modules.values()):
        for name in ("gdc_wait", "gdc_launch_dependents"):
            if hasattr(mod, name):
                scope.set_attr(mod, name, no_op)
    return scope


# ---------------------------------------------------------------------------------------------
# interpreted twins: a kernel's jit helpers made callable under the interpreter for one run

_TWINS: dict[int, Any] = {}  # id(JITFunction) -> its InterpretedFunction (kept with the fn alive)
_TWIN_KEEP: dict[int, Any] = {}  # id -> the JITFunction, so the id is never reused while cached


def jit_types() -> tuple[type, type]:
    from triton.runtime.interpreter import InterpretedFunction
    from triton.runtime.jit import JITFunction

    return JITFunction, InterpretedFunction


def interpreted(fn: Any) -> Any:
    """The interpreted twin of a JITFunction (cached: one per function, so identity holds)."""
    JITFunction, InterpretedFunction = jit_types()
    if isinstance(fn, InterpretedFunction):
        return fn
    if isinstance(fn, JITFunction):
        twin = _TWINS.get(id(fn))
        if twin is None:
            twin = InterpretedFunction(fn.fn)
            _TWINS[id(fn)] = twin
            _TWIN_KEEP[id(fn)] = fn
        return twin
    if hasattr(fn, "fn") and (hasattr(fn, "configs") or hasattr(fn, "values")):  # autotune/heuristics
        raise InterpreterFault(
            f"{getattr(fn, '__name__', fn)!r} is wrapped in @triton.autotune or @triton.heuristics, "
            "which need a GPU driver; under the interpreter give plain @triton.jit functions "
            "(Tilescope tunes through KernelSpec.autotune_configs instead)")
    raise InterpreterFault(f"{fn!r} is not a @triton.jit function, so the interpreter cannot run it")


class Swapper:
    """Swaps JITFunction globals for interpreted twins, remembering how to put them back."""

    def __init__(self) -> None:
        self.saved: list[tuple[Any, str, Any]] = []  # (namespace dict or module, name, original)
        self.seen_namespaces: set[int] = set()

    def swap_module_attrs(self, mod: types.ModuleType) -> None:
        JITFunction, _ = jit_types()
        for name, value in list(vars(mod).items()):
            if isinstance(value, JITFunction):
                self.saved.append((mod, name, value))
                setattr(mod, name, interpreted(value))

    def swap_globals_of(self, fn: Any) -> None:
        """Swap the JITFunctions in ``fn``'s module globals, and in theirs, transitively."""
        JITFunction, InterpretedFunction = jit_types()
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


def language_modules() -> list[types.ModuleType]:
    import triton.language as tl

    return [tl] + [m for m in vars(tl).values()
                   if isinstance(m, types.ModuleType) and m.__name__.startswith("triton.language.")]


class LanguageSnapshot:
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


def import_gluon() -> None:
    """Triton's argument specialization imports gluon lazily and copies the language helpers as
    they stand then; import it while they are still JITFunctions (before any swap)."""
    try:
        importlib.import_module("triton.experimental.gluon")
    except ImportError:
        pass
