"""The launch grid as data: its formula over the parameters, and the program-id arithmetic.

A spec states its grid as one expression per dimension over its parameter names, as the Triton
tutorials write ``grid = lambda meta: (triton.cdiv(n_elements, meta['BLOCK_SIZE']),)``:
``("cdiv(N, BLOCK_SIZE)",)``. The same text is evaluated here, in the GUI (program counts before
any launch), in the engine (the launch itself) and in the plain-script capture (an inferred
rule), so the formula lives in one place. Linear program ids run x fastest, as Triton numbers
them.
"""

from __future__ import annotations

import ast
import functools
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

__all__ = ["Grid3", "cdiv", "grid_of", "n_programs", "program_xyz", "as_grid3", "check_expr"]

Grid3 = tuple[int, int, int]


def cdiv(a: int, b: int) -> int:
    return -(-int(a) // int(b))


_NODES = (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Name, ast.Load, ast.Constant, ast.Add, ast.Sub,
          ast.Mult, ast.FloorDiv, ast.Mod, ast.Pow, ast.USub, ast.Call)
_CALLS = {"cdiv": cdiv, "min": min, "max": max}


def check_expr(expr: str) -> ast.Expression:
    """Parse a grid expression; ValueError for anything but arithmetic, names and cdiv/min/max."""
    try:
        tree = ast.parse(expr, mode="eval")
    except SyntaxError as e:
        raise ValueError(f"grid expression {expr!r}: {e.msg}") from None
    for node in ast.walk(tree):
        if not isinstance(node, _NODES):
            raise ValueError(f"grid expression {expr!r}: {type(node).__name__} not allowed")
        if isinstance(node, ast.Call) and not (isinstance(node.func, ast.Name) and node.func.id in _CALLS):
            raise ValueError(f"grid expression {expr!r}: only cdiv/min/max calls allowed")
    return tree


@functools.lru_cache(maxsize=512)
def _compiled(expr: str) -> Any:
    return compile(check_expr(expr), "<grid>", "eval")


def grid_of(exprs: Sequence[str], values: Mapping[str, Any]) -> Grid3:
    """Evaluate one expression per grid dimension (1 to 3) over ``values``: a 3-tuple."""
    if not 1 <= len(exprs) <= 3:
        raise ValueError(f"a grid has 1 to 3 dimensions, got {len(exprs)}")
    env = dict(_CALLS)
    env.update(values)
    dims = []
    for e in exprs:
        dims.append(int(eval(_compiled(e), {"__builtins__": {}}, env)))  # noqa: S307 - checked in _compiled
    return as_grid3(tuple(dims))


def as_grid3(grid: Any) -> Grid3:
    """A grid given as an int or a 1-3 tuple, as a 3-tuple of non-negative ints."""
    g = tuple(int(x) for x in (grid if isinstance(grid, (tuple, list)) else (grid,)))
    if not 1 <= len(g) <= 3 or any(x < 0 for x in g):
        raise ValueError(f"bad grid {g!r}: 1 to 3 non-negative sizes")
    return (g + (1, 1))[:3]  # type: ignore[return-value]


def n_programs(grid: Sequence[int]) -> int:
    return math.prod(int(g) for g in grid) if len(grid) else 0


def program_xyz(pid: Any, grid: Sequence[int]) -> Any:
    """(x, y, z) of linear program id(s) ``pid`` (an int or a numpy array), x fastest."""
    gx = int(grid[0])
    gy = int(grid[1]) if len(grid) > 1 else 1
    if isinstance(pid, np.ndarray):
        return pid % gx, (pid // gx) % gy, pid // (gx * gy)
    pid = int(pid)
    return pid % gx, (pid // gx) % gy, pid // (gx * gy)
