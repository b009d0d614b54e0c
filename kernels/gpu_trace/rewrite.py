"""The instrumented build: a ``@triton.jit`` kernel's source rewritten so that it also records.

``instrument(jit_fn, mode)`` parses the kernel's source (and, in ``"maps"`` mode, that of every
jit helper it calls that reaches a load, store or atomic), rewrites it with ``ast`` and compiles
the result into new ``JITFunction``\\ s; the user's functions and modules are never touched.

- ``"maps"``: each ``tl.load`` / ``tl.store`` / ``tl.atomic_*`` call becomes a call of a small
  generated wrapper that first calls ``device.record`` (which updates the shadow maps and
  statistics and returns the mask without the out-of-bounds lanes) and then makes the original
  call with the call site's own arguments, forwarded by name (so Triton 3.6's ``boundary_check``
  and 3.9's keyword-only cache options both pass through). Pointer and mask are evaluated once.
  Helpers get the recording state as extra keyword arguments, and the source line of the call in
  the kernel (an access inside a helper is reported at the kernel line that called it, as the
  interpreter recorder does);
- ``"timeline"``: accesses are left alone; only the program's SM and start/end times are read.

Both modes add the same parameters to the kernel (``KERNEL_PARAMS``, passed by keyword at the
launch) and compute the linear program id first. ``_TS_TIME`` (constexpr) switches the clock
reads on; it must be False under the interpreter, which has no inline assembly. Each access site
gets a number (``_TS_SITE``, in the order rewritten, helpers included) and ``_TS_LANES``
(constexpr, passed down like ``_TS_TABLE``) says which sites have the per-lane path compiled in
(``device.lanes_mask``; -1: all).

The generated source is written to a file (Triton and the interpreter read a function's source
through ``inspect``) under the system's temporary folder, named by its hash.
"""

from __future__ import annotations

import ast
import builtins
import hashlib
import inspect
import os
import tempfile
import textwrap
from dataclasses import dataclass, field
from typing import Any

import triton
import triton.language as tl
from triton.runtime.jit import JITFunction

from ..data.errors import TraceUnsupported
from . import device

__all__ = ["Instrumented", "instrument", "KERNEL_PARAMS", "ACCESS_OPS"]

#: the kernel's added parameters (tensors), passed by keyword at the launch
KERNEL_PARAMS = ("_ts_meta", "_ts_maps", "_ts_stats", "_ts_oob", "_ts_tiles", "_ts_timeline")
_STATE = ("_ts_pid", "_ts_meta", "_ts_maps", "_ts_stats", "_ts_oob", "_ts_tiles")  # what an access needs
_CONSTS = ("_TS_TABLE", "_TS_LANES")  # the kernel's constexprs an access needs (device.record)
#: triton.language function -> op code (kernels.data.trace.OP_*); atomic_cas has no mask
ACCESS_OPS = {"load": 0, "store": 1, "atomic_cas": 2,
              **{f"atomic_{k}": 2 for k in ("add", "max", "min", "and", "or", "xor", "xchg")}}


@dataclass
class Instrumented:
    fn: Any  # the instrumented kernel (a JITFunction)
    mode: str  # "maps" | "timeline"
    n_sites: int = 0  # accesses rewritten, helpers included
    has_atomics: bool = False
    helpers: list[str] = field(default_factory=list)  # helper functions rewritten
    files: list[str] = field(default_factory=list)  # the generated sources


_CACHE: dict[tuple, Instrumented] = {}


def instrument(jit_fn: Any, mode: str = "maps") -> Instrumented:
    """The instrumented build of ``jit_fn`` (cached per function, source and mode). Raises
    TraceUnsupported when a source is unavailable or a call cannot be rewritten."""
    if mode not in ("maps", "timeline"):
        raise ValueError(f"mode must be 'maps' or 'timeline', not {mode!r}")
    py = getattr(jit_fn, "fn", jit_fn)
    key = (id(py), mode, _source_of(py)[0])
    hit = _CACHE.get(key)
    if hit is None:
        b = _Builder(mode)
        fn = b.build(jit_fn, kernel=True)
        hit = _CACHE[key] = Instrumented(fn, mode, b.n_sites, b.has_atomics, b.helper_names, b.files)
    return hit


# ---------------------------------------------------------------------------------------------
# resolving what a call calls


def _source_of(py: Any) -> tuple[str, int]:
    try:
        lines, first = inspect.getsourcelines(py)
    except (OSError, TypeError) as e:
        raise TraceUnsupported(f"the source of {getattr(py, '__name__', py)!r} is not available ({e}); the "
                               "GPU recorder rewrites it", hook="inspect.getsourcelines") from e
    return textwrap.dedent("".join(lines)), first


def _resolve(node: ast.AST, g: dict[str, Any]) -> Any:
    """The object a ``Name`` / ``a.b.c`` expression names in the globals ``g`` (None if unknown)."""
    if isinstance(node, ast.Name):
        return g.get(node.id, getattr(builtins, node.id, None))
    if isinstance(node, ast.Attribute):
        base = _resolve(node.value, g)
        return getattr(base, node.attr, None) if base is not None else None
    return None


_TL_ACCESS = {id(getattr(tl, name)): name for name in ACCESS_OPS}


def _user_jit(obj: Any) -> Any:
    """The Python function of a user's jit helper (not triton.language's), else None."""
    py = getattr(obj, "fn", None)
    if not callable(py) or not (isinstance(obj, JITFunction) or type(obj).__name__ == "InterpretedFunction"):
        return None
    mod = getattr(py, "__module__", "") or ""
    return None if mod.startswith("triton.") else py


def _signature(kind: str) -> inspect.Signature:
    sig = inspect.signature(getattr(tl, kind))
    return sig.replace(parameters=[p for p in sig.parameters.values() if not p.name.startswith("_")])


# ---------------------------------------------------------------------------------------------
# the rewrite


@dataclass
class _File:
    """One generated source file: one rewritten function, its access wrappers, extra globals."""

    extra: dict[str, Any] = field(default_factory=dict)
    wrappers: dict[tuple, str] = field(default_factory=dict)  # (kind, params) -> wrapper name
    texts: list[str] = field(default_factory=list)


def _wrapper_text(name: str, kind: str, params: list[str]) -> str:
    has_mask = kind != "atomic_cas"
    head = ["pointer", "mask"] if has_mask else ["pointer"]
    rest = [p for p in params if p not in head]
    sig = ", ".join(head + rest + list(_STATE) + [f"{c}: _ts_constexpr" for c in (*_CONSTS, "_TS_SITE", "_TS_LINE")])
    op = ACCESS_OPS[kind]
    mask = "mask" if has_mask else "None"
    fwd = "".join(f", {p}={p}" for p in rest) + (", mask=_ts_keep" if has_mask else "")
    return (f"def {name}({sig}):\n"
            f"    _ts_keep = _ts_record(pointer, {mask}, {', '.join(_STATE)}, {', '.join(_CONSTS)}, {op}, _TS_SITE, "
            "_TS_LINE)\n"
            f"    {'' if kind == 'store' else 'return '}_ts_tl.{kind}(pointer{fwd})\n")  # a store returns nothing


class _Sites(ast.NodeTransformer):
    """Rewrites the access calls and the calls of recording helpers in one function body."""

    def __init__(self, builder: _Builder, file: _File, g: dict[str, Any], kernel: bool, line0: int) -> None:
        self.b, self.file, self.g, self.kernel, self.line0 = builder, file, g, kernel, line0

    def _line(self, node: ast.AST) -> ast.expr:
        return ast.Constant(node.lineno + self.line0) if self.kernel else ast.Name("_TS_LINE", ast.Load())

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        obj = _resolve(node.func, self.g)
        kind = _TL_ACCESS.get(id(obj)) if obj is not None else None
        if kind is not None:
            return self._access(node, kind)
        py = _user_jit(obj) if obj is not None else None
        if py is not None:
            name = self.b.helper(obj, py, self.file)
            if name is not None:
                node.func = ast.Name(name, ast.Load())
                node.keywords += [ast.keyword(s, ast.Name(s, ast.Load())) for s in (*_STATE, *_CONSTS)]
                node.keywords.append(ast.keyword("_TS_LINE", self._line(node)))
        return node

    def _access(self, node: ast.Call, kind: str) -> ast.AST:
        if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            raise TraceUnsupported(f"line {node.lineno + self.line0}: tl.{kind} called with *args/**kwargs; the "
                                   "GPU recorder needs its arguments written out", hook=f"tl.{kind}")
        try:
            bound = _signature(kind).bind(*node.args, **{k.arg: k.value for k in node.keywords}).arguments
        except TypeError as e:
            raise TraceUnsupported(f"line {node.lineno + self.line0}: tl.{kind}: {e}", hook=f"tl.{kind}") from None
        params = list(bound)
        key = (kind, tuple(params))
        name = self.file.wrappers.get(key)
        if name is None:
            name = self.file.wrappers[key] = f"_ts_{kind}_{len(self.file.wrappers)}"
            self.file.texts.append(_wrapper_text(name, kind, params))
        site = self.b.n_sites
        self.b.n_sites += 1
        self.b.has_atomics |= kind.startswith("atomic")
        args = [bound["pointer"]]
        if kind != "atomic_cas":
            args.append(bound.get("mask", ast.Constant(None)))
        args += [bound[p] for p in params if p not in ("pointer", "mask")]
        args += [ast.Name(s, ast.Load()) for s in (*_STATE, *_CONSTS)] + [ast.Constant(site), self._line(node)]
        return ast.copy_location(ast.Call(ast.Name(name, ast.Load()), args, []), node)


def _add_params(fdef: ast.FunctionDef, names: list[str], constexprs: list[tuple[str, Any]]) -> None:
    """Append parameters, each with a default (they follow any defaulted parameter of the user's)."""
    a = fdef.args
    if a.vararg or a.kwarg or a.kwonlyargs:
        raise TraceUnsupported(f"{fdef.name}: *args, **kwargs and keyword-only parameters cannot be "
                               "instrumented", hook="signature")
    for n in names:
        a.args.append(ast.arg(n))
        a.defaults.append(ast.Constant(None))
    for n, v in constexprs:
        a.args.append(ast.arg(n, ast.Name("_ts_constexpr", ast.Load())))
        a.defaults.append(ast.Constant(v))


def _stmts(text: str) -> list[ast.stmt]:
    return ast.parse(textwrap.dedent(text)).body


def _kernel_frame(fdef: ast.FunctionDef) -> None:
    """Program id first, clock reads around the body (before every ``return`` too)."""
    end = "if _TS_TIME:\n    _ts_finish(_ts_timeline, _ts_pid, _ts_t0, _ts_sm)\n"

    class Returns(ast.NodeTransformer):
        def visit_Return(self, node: ast.Return) -> list[ast.stmt]:
            return [*_stmts(end), node]

    body = [Returns().visit(s) for s in fdef.body]
    doc = body[:1] if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) else []
    start = _stmts("_ts_pid = _ts_linear_pid()\n"
                   "if _TS_TIME:\n    _ts_t0 = _ts_begin_clock()\n    _ts_sm = _ts_begin_sm()\n")
    tail = [] if body and isinstance(body[-1], ast.Return) else _stmts(end)
    fdef.body = doc + start + body[len(doc):] + tail


_RUNTIME = {"_ts_tl": tl, "_ts_constexpr": tl.constexpr, "_ts_record": device.record,
            "_ts_linear_pid": device.linear_pid, "_ts_begin_clock": device.begin_clock,
            "_ts_begin_sm": device.begin_sm, "_ts_finish": device.finish}


class _Builder:
    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.n_sites = 0
        self.has_atomics = False
        self.helper_names: list[str] = []
        self.files: list[str] = []
        self._helpers: dict[int, Any] = {}  # id(python fn) -> instrumented JITFunction, or None

    def helper(self, obj: Any, py: Any, caller: _File) -> str | None:
        """The name, in the caller's file, of the instrumented ``py`` (None: it records nothing)."""
        if id(py) not in self._helpers:
            self._helpers[id(py)] = None  # a recursive call sees "nothing to record" (Triton has no recursion)
            before = self.n_sites
            fn = self.build(obj, kernel=False)
            self._helpers[id(py)] = fn if self.n_sites > before else None
            if self.n_sites > before:
                self.helper_names.append(py.__name__)
        fn = self._helpers[id(py)]
        if fn is None:
            return None
        name = f"_ts_h_{py.__name__}_{abs(id(py)) % 10**6}"
        caller.extra[name] = fn
        return name

    def build(self, jit_fn: Any, kernel: bool) -> Any:
        py = getattr(jit_fn, "fn", jit_fn)
        src, first = _source_of(py)
        tree = ast.parse(src)
        fdef = next((n for n in tree.body if isinstance(n, ast.FunctionDef)), None)
        if fdef is None:
            raise TraceUnsupported(f"no function definition in the source of {py.__name__!r}", hook="source")
        fdef.decorator_list = []
        file = _File()
        if self.mode == "maps":
            fdef = _Sites(self, file, py.__globals__, kernel, first - 1).visit(fdef)
        if kernel:
            _add_params(fdef, list(KERNEL_PARAMS), [("_TS_TABLE", 0), ("_TS_LANES", -1), ("_TS_TIME", False)])
            _kernel_frame(fdef)
        else:
            _add_params(fdef, list(_STATE), [("_TS_TABLE", 0), ("_TS_LANES", -1), ("_TS_LINE", 0)])
        ast.fix_missing_locations(fdef)
        text = ast.unparse(fdef) + "\n\n\n" + "\n\n".join(file.texts)
        return self._compile(jit_fn, text, file, kernel)

    def _compile(self, jit_fn: Any, text: str, file: _File, kernel: bool) -> Any:
        py = getattr(jit_fn, "fn", jit_fn)
        header = f"# Tilescope GPU recorder: the instrumented build of {py.__module__}.{py.__qualname__}\n"
        text = header + text
        path = _write(py.__name__, text)
        self.files.append(path)
        g = dict(py.__globals__)
        g.update(_RUNTIME)
        g.update(file.extra)
        exec(compile(text, path, "exec"), g)  # noqa: S102 - the user's own kernel, rewritten
        for name in list(file.wrappers.values()):
            g[name] = triton.jit(g[name])
        opts: dict[str, Any] = {}
        for attr in ("do_not_specialize", "do_not_specialize_on_alignment", "debug") if kernel else ("noinline", "debug"):
            value = getattr(jit_fn, attr, None)
            if value:
                opts[attr] = value
        g[py.__name__] = fn = triton.jit(g[py.__name__], **opts)
        return fn


def _write(name: str, text: str) -> str:
    folder = os.path.join(tempfile.gettempdir(), f"tilescope-gpu-trace-{os.getuid() if hasattr(os, 'getuid') else 0}")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, f"{name}_{hashlib.sha1(text.encode()).hexdigest()[:16]}.py")
    if not os.path.exists(path):
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    return path
