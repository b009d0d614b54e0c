"""Loop variables with the GPU's integer type: ``for i in range(...)`` / ``tl.range(...)``.

Triton's GPU compiler gives the induction variable of a ``range``/``tl.range`` loop the type the
bounds promote to (``integer_promote_impl`` over start, end and step, each as ``to_tensor``
types it: a constexpr or literal that fits is int32) — int32 in nearly every kernel, int64 when
a bound is. Triton's interpreter iterates a Python ``range`` instead, so ``i`` is a Python int and
``i * STRIDE`` past 2³¹ never wraps there, where the GPU's int32 does. ``TypedLoops`` (an AST
pass over the kernel and its jit helpers, run by ``_triton.rewrite``) turns::

    for i in range(a, b, c):        into        for i in __tilescope_range__(range, a, b, c):

and ``typed_range`` yields each value as a scalar tensor of the promoted type, so arithmetic on
it follows the interpreter's tensor semantics (NumPy int32, wrapping) as the GPU's does.
``tl.static_range`` is left alone: its variable is a constexpr on the GPU too (no wrap). A call
that does not give a Python ``range``, or bounds that are not integers, iterate as before.
Pure ``ast`` plus Triton's public dtypes; the scalar tensor is made by ``_triton``.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["RANGE_NAME", "TypedLoops", "loop_type", "typed_range"]

RANGE_NAME = "__tilescope_range__"


def _is_range_call(it: ast.AST) -> bool:
    if not isinstance(it, ast.Call):
        return False
    f = it.func
    return (isinstance(f, ast.Name) and f.id == "range") or (isinstance(f, ast.Attribute) and f.attr == "range")


class TypedLoops(ast.NodeTransformer):
    """Routes the iterator of every ``range``/``tl.range`` loop through ``RANGE_NAME``."""

    def visit_For(self, node: ast.For) -> ast.AST:
        self.generic_visit(node)
        it = node.iter
        if _is_range_call(it):
            assert isinstance(it, ast.Call)
            node.iter = ast.copy_location(
                ast.Call(func=ast.Name(id=RANGE_NAME, ctx=ast.Load()), args=[it.func, *it.args],
                         keywords=it.keywords), it)
        return node


def _int_type(x: Any) -> Any:
    """The Triton integer type a loop bound has on the GPU (``to_tensor``'s rule), or None."""
    import triton.language as tl

    if isinstance(x, tl.constexpr):
        x = x.value
    if isinstance(x, tl.tensor):
        return x.dtype if x.dtype.is_int() and not x.dtype.is_bool() else None
    if isinstance(x, bool) or not isinstance(x, int):
        return None
    if -2**31 <= x < 2**31:
        return tl.int32
    if 2**31 <= x < 2**32:
        return tl.uint32
    if -2**63 <= x < 2**63:
        return tl.int64
    return tl.uint64 if 2**63 <= x < 2**64 else None


def _promote(a: Any, b: Any) -> Any:
    """Triton's ``integer_promote_impl`` (C's usual arithmetic conversions)."""
    import triton.language as tl

    a_rank, b_rank = a.int_bitwidth, b.int_bitwidth
    unsigned = tl.dtype.SIGNEDNESS.UNSIGNED
    if a.int_signedness == b.int_signedness:
        return a if a_rank > b_rank else b
    if a.int_signedness == unsigned:
        return a if a_rank >= b_rank else b
    return b if b_rank >= a_rank else a


def loop_type(args: tuple, kwargs: dict) -> Any:
    """The induction variable's type for ``range(*args)`` / ``tl.range(*args, **kwargs)``, or None."""
    if kwargs.keys() - {"step", "num_stages", "loop_unroll_factor", "disallow_acc_multi_buffer", "flatten",
                        "warp_specialize", "disable_licm"}:
        return None
    args = args[:3]  # tl.range's further positional parameters are num_stages, …
    if not args or (len(args) == 3 and "step" in kwargs):
        return None
    bounds = [0, *args] if len(args) == 1 else list(args)
    step = kwargs.get("step", bounds[2] if len(bounds) > 2 else 1)
    types = [_int_type(x) for x in (bounds[0], bounds[1], 1 if step is None else step)]
    if any(t is None for t in types):
        return None
    return _promote(_promote(types[0], types[1]), types[2])


def typed_range(scalars: Callable[[Any], Callable[[int], Any]]) -> Callable[..., Iterable[Any]]:
    """``RANGE_NAME``'s value; ``scalars(tl_type)`` gives the maker of that type's interpreter scalars."""

    def loop(fn: Any, *args: Any, **kwargs: Any) -> Iterable[Any]:
        values = fn(*args, **kwargs)
        if type(values) is not range:
            return values
        ty = loop_type(args, kwargs)
        if ty is None:
            return values
        make = scalars(ty)
        return (make(i) for i in values)
    return loop
