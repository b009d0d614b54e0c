"""Where the capture's arithmetic cannot follow the GPU's: a ``range()`` loop variable is a Python
integer under Triton's interpreter, so ``row * STRIDE`` past 2³¹ never wraps there, while the
GPU's int32 does. ``loop_products_past_int32(fn, bound)`` finds, before the launch, the products
of a loop variable and an integer argument or constexpr whose largest value passes 2³¹ − 1 with
this launch's values; the capture names them in its notes, so a result that differs from the
GPU's is not taken for the kernel's fault.

A static look at the kernel's own source (``ast``): loops ``for v in range(stop)`` /
``range(start, stop[, step])`` / ``tl.range(...)`` whose bounds are integers, names of integer
arguments or ``cdiv`` of them; products ``v * N`` / ``N * v`` in the loop's body. Anything less
plain is not judged (no note).
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from typing import Any

__all__ = ["loop_products_past_int32"]

_INT32_MAX = 2**31 - 1


def _value(node: ast.AST, ints: dict[str, int]) -> int | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.Name):
        return ints.get(node.id)
    if isinstance(node, ast.BinOp):
        a, b = _value(node.left, ints), _value(node.right, ints)
        if a is None or b is None:
            return None
        if isinstance(node.op, ast.Add):
            return a + b
        if isinstance(node.op, ast.Sub):
            return a - b
        if isinstance(node.op, ast.Mult):
            return a * b
        if isinstance(node.op, ast.FloorDiv) and b:
            return a // b
    if isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) == "cdiv" \
            and len(node.args) == 2:
        a, b = _value(node.args[0], ints), _value(node.args[1], ints)
        return None if a is None or not b else -(-a // b)
    return None


def _loop_max(it: ast.AST, ints: dict[str, int]) -> int | None:
    """The largest value of the loop variable of ``for v in <it>``, or None when unknown."""
    if not isinstance(it, ast.Call) or getattr(it.func, "attr", getattr(it.func, "id", "")) not in ("range",):
        return None
    args = [_value(a, ints) for a in it.args]
    if not args or any(a is None for a in args):
        return None
    start, stop, step = (0, args[0], 1) if len(args) == 1 else (args[0], args[1], args[2] if len(args) > 2 else 1)
    if step <= 0 or stop <= start:
        return None
    return start + (stop - 1 - start) // step * step


def loop_products_past_int32(fn: Any, bound: dict[str, Any]) -> list[str]:
    """``"row * STRIDE (up to 2,147,483,654)"`` for each product of a loop variable and an integer
    of this launch that passes int32 (none when the source cannot be read)."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn.fn)))
    except (OSError, TypeError, SyntaxError, AttributeError):
        return []
    ints = {k: int(v) for k, v in bound.items() if isinstance(v, int) and not isinstance(v, bool)}
    found: list[str] = []
    for loop in ast.walk(tree):
        if not isinstance(loop, ast.For) or not isinstance(loop.target, ast.Name):
            continue
        top = _loop_max(loop.iter, ints)
        if top is None:
            continue
        var = loop.target.id
        for node in ast.walk(ast.Module(body=loop.body, type_ignores=[])):
            if not isinstance(node, ast.BinOp) or not isinstance(node.op, ast.Mult):
                continue
            for a, b in ((node.left, node.right), (node.right, node.left)):
                if isinstance(a, ast.Name) and a.id == var:
                    other = _value(b, ints)
                    if other is not None and abs(top * other) > _INT32_MAX:
                        found.append(f"{ast.unparse(node)} (up to {top * other:,})")
    return list(dict.fromkeys(found))
