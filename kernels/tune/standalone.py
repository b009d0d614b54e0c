"""What a tuned kernel needs to run without Tilescope, as source text: the carry of an export.

``carry(spec)`` collects, from the live objects of a spec's launcher:

- the ``@triton.jit`` functions it launches and every jit function of their modules (the helpers
  a kernel may call), helpers first — the same rule as the plain-script reproducer;
- the launcher itself (``launch(K, t, cfg, grid)``), its plain helper functions (attention's
  ``_sm_scale``), the constants and modules they read, and the values a closure holds
  (``is_mul`` of vector add, the kernel of softmax);
- the grid: the spec's ``grid_exprs`` as a Python expression over ``cfg``.

``carry_lines(c)`` is that as module text, the launcher bound to ``_SPEC_LAUNCH``; with no GPU the
module sets ``TRITON_INTERPRET=1`` before it imports Triton (``HEAD``), as the reproducer does, so
the jit functions are Triton's interpreter functions, running on CPU tensors. Anything the launcher reads that is neither a jit function, a plain function
of its own, a module nor a literal constant (Tilescope's own machinery: a plain script's captured
launcher) makes ``carry`` raise ``Unportable`` naming it: such a kernel's module imports
Tilescope instead (``kernels.tune.export``).
"""

from __future__ import annotations

import ast
import inspect
import textwrap
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..specs.spec import KernelSpec, jit_source

__all__ = ["HEAD", "Carry", "Unportable", "carry", "carry_lines"]

_LITERALS = (bool, int, float, str, type(None))
_GRID_CALLS = {"cdiv", "min", "max"}


#: the module's first lines: without a GPU, ``TRITON_INTERPRET=1`` while Triton is imported and the
#: kernels are decorated (Triton's own jit helpers, ``tl.cdiv``…, must be interpreter functions
#: too); in a process that imported Triton before without it (``_LATE``) the jit functions stay
#: compiled ones and the launch goes through Tilescope's interpreter, if there is one. Under the
#: interpreter the module carries its own copy of the one Triton fix it needs (Triton 3.6 makes a
#: loop bound with ``int(array of shape (1,))``, which NumPy 2 refuses; Tilescope's copy, for its
#: own runs, is in kernels/interp/_triton.py): the export must run where Tilescope is not installed
HEAD = """import os
import sys

import torch

_ON_GPU = torch.cuda.is_available()
_INTERPRET = os.environ.get('TRITON_INTERPRET')
_LATE = not _ON_GPU and 'triton' in sys.modules and _INTERPRET != '1'
if not _ON_GPU and not _LATE:  # no GPU: Triton's interpreter runs the kernels on CPU tensors
    os.environ['TRITON_INTERPRET'] = '1'

import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from torch.library import triton_op, wrap_triton  # noqa: E402

if os.environ.get('TRITON_INTERPRET') == '1':  # Triton 3.6's interpreter under NumPy 2 (see below)
    from triton.runtime import interpreter as _interp

    _patch_tensor = getattr(_interp, '_patch_lang_tensor', None)

    def _index(self):
        data = self.handle.data
        return int(data.reshape(()) if getattr(data, 'size', 0) == 1 else data)

    def _patch_lang_tensor(tensor, *rest):
        _patch_tensor(tensor, *rest)
        tensor.__index__ = _index

    if _patch_tensor is not None:
        _interp._patch_lang_tensor = _patch_lang_tensor"""


class Unportable(ValueError):
    """The launcher reads something that cannot be written out as source."""


@dataclass
class Carry:
    jit: list[Any] = field(default_factory=list)  # JITFunctions, helpers first
    imports: dict[str, str] = field(default_factory=dict)  # local name -> module
    constants: dict[str, str] = field(default_factory=dict)  # name -> source of its value
    functions: list[str] = field(default_factory=list)  # plain function sources, dependencies first
    launcher: str = ""  # the launcher's name in the module
    kernels: list[str] = field(default_factory=list)  # the jit functions the spec launches
    takes_grid: bool = True
    grid: str | None = None  # "(expr, ...)" over cfg, None: the launcher computes its own


def _is_jit(v: Any) -> bool:
    from triton.runtime.jit import JITFunction

    return isinstance(v, JITFunction)


def _module_jits(fn: Any) -> list[Any]:
    """``fn`` and every jit function of its module (the helpers it may call), helpers first."""
    out = [fn]
    for v in fn.fn.__globals__.values():
        if _is_jit(v) and v is not fn and v not in out:
            out.append(v)
    return out[1:] + out[:1]


def _literal(name: str, v: Any) -> str:
    import triton.language as tl

    if isinstance(v, tl.constexpr):
        return f"tl.constexpr({_literal(name, v.value)})"
    if isinstance(v, _LITERALS) or (isinstance(v, (tuple, list)) and all(isinstance(x, _LITERALS) for x in v)):
        text = repr(v)
        if ast.literal_eval(text) == v:
            return text
    raise Unportable(f"{name} = {type(v).__name__} cannot be written as source")


def _read(c: Carry, name: str, v: Any, seen: set[int]) -> None:
    """Carry one global (or closure value) ``name`` the launcher or a helper reads."""
    if _is_jit(v):
        for j in _module_jits(v):
            if j not in c.jit:
                c.jit.append(j)
                _reads(c, j.fn, seen, jit=True)
        own = getattr(v.fn, "__name__", name)
        if own != name:
            c.constants[name] = own
    elif isinstance(v, types.ModuleType):
        c.imports[name] = v.__name__
    elif isinstance(v, types.FunctionType):
        if id(v) in seen:
            return
        seen.add(id(v))
        _reads(c, v, seen)
        src = textwrap.dedent(inspect.getsource(v))
        c.functions.append(src if v.__name__ == name else f"{src}\n{name} = {v.__name__}\n")
    else:
        c.constants[name] = _literal(name, v)


def _reads(c: Carry, fn: Callable, seen: set[int], jit: bool = False) -> None:
    try:
        cv = inspect.getclosurevars(fn)
    except TypeError as e:
        raise Unportable(f"{getattr(fn, '__name__', fn)}: {e}") from None
    for name, v in {**cv.globals, **cv.nonlocals}.items():
        if jit and not (_is_jit(v) or isinstance(v, types.ModuleType)):
            c.constants.setdefault(name, _literal(name, v))  # a kernel's module-level constexpr
            continue
        _read(c, name, v, seen)


def _grid_text(exprs: tuple[str, ...]) -> str:
    """``("cdiv(N, BLOCK_SIZE)",)`` -> ``"(cdiv(cfg['N'], cfg['BLOCK_SIZE']),)"``."""

    class Names(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.AST:
            if node.id in _GRID_CALLS:
                return node
            return ast.Subscript(ast.Name("cfg", ast.Load()), ast.Constant(node.id), ast.Load())

    parts = [ast.unparse(Names().visit(ast.parse(e, mode="eval"))) for e in exprs]
    return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"


def carry(spec: KernelSpec) -> Carry:
    """What ``spec``'s launcher needs, as source (raises Unportable)."""
    c = Carry()
    fn = spec.launch
    if not isinstance(fn, types.FunctionType):
        raise Unportable(f"{spec.name}: its launcher is a {type(fn).__name__}, not a function")
    seen = {id(fn)}
    _reads(c, fn, seen)
    params = list(inspect.signature(fn).parameters)
    c.takes_grid = len(params) == 4
    c.grid = _grid_text(spec.grid_exprs) if spec.grid_exprs and c.takes_grid else None
    if c.takes_grid and c.grid is None:
        raise Unportable(f"{spec.name}: a four-argument launcher without grid expressions")
    src = textwrap.dedent(inspect.getsource(fn))
    c.launcher = fn.__name__
    c.kernels = [getattr(getattr(k, "fn", k), "__name__", "") for k in spec.kernels]
    c.functions.append(src)
    if not c.jit:
        raise Unportable(f"{spec.name}: its launcher launches no jit function it names")
    return c


def _jit_text(j: Any) -> str:
    text, _, _ = jit_source(j)
    if not text:
        raise Unportable(f"{getattr(j.fn, '__name__', j)}: no source")
    text = textwrap.dedent(text)
    return text if text.lstrip().startswith("@") else "@triton.jit\n" + text


def carry_lines(c: Carry) -> list[str]:
    """The module text of ``c``, after ``HEAD`` (torch, then Triton, in interpreter mode without a GPU)."""
    lines = [f"import {m}" if n == m else f"import {m} as {n}"
             for n, m in sorted(c.imports.items()) if n not in ("os", "sys", "torch", "triton", "tl")]
    jit_names = {getattr(j.fn, "__name__", "") for j in c.jit}
    consts = {n: v for n, v in c.constants.items() if v not in jit_names}
    aliases = {n: v for n, v in c.constants.items() if v in jit_names}
    lines += [f"{n} = {v}" for n, v in consts.items()]
    lines += ["", "", *"\n\n".join(_jit_text(j) for j in c.jit).splitlines()]
    lines += ["", "", *[f"{n} = {v}" for n, v in aliases.items()]]
    lines += [f"_KERNELS = ({''.join(f'{n}, ' for n in c.kernels)})  # what the launcher launches"]
    lines += ["", "", "def cdiv(a, b):", "    return -(-a // b)", ""]
    for f in c.functions:
        lines += ["", *f.rstrip().splitlines(), ""]
    lines += ["", f"_SPEC_LAUNCH = {c.launcher}  # the spec's launcher, as Tilescope runs it"]
    return lines
