"""Infer a fixed grid's rule from one captured launch, so a changed block size or size re-grids.

A script that writes ``grid = (triton.cdiv(n, BLOCK_SIZE),)`` hands the launch a tuple of
numbers; to relaunch with another BLOCK_SIZE the grid must follow. Each dimension is matched
against ``X``, ``cdiv(X, C)`` and ``cdiv(X1, C1) * cdiv(X2, C2)`` with X an integer argument of
the launch (not a stride) and C a constexpr (not one named ``num_stages`` or ``num_warps``), and
the rule is checked on the captured launch itself. Where several rules fit, names that look like
sizes and block sizes win, and the caller says which rule was inferred; where none fits, the grid
stays fixed.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping

from ..data.grid import cdiv, grid_of

__all__ = ["infer_grid_rule", "is_stride"]


def is_stride(name: str) -> bool:
    """An integer named as a stride (``stride_am``, ``input_row_stride``): never a size."""
    return "stride" in name.lower()


def _axis(x: str, c: str) -> int:
    """1 when constexpr ``c`` names the axis of size ``x`` (BLOCK_SIZE_M for M, BLOCK_N for N)."""
    return int(len(x) <= 3 and c.upper().endswith("_" + x.upper()))


def _blockish(c: str) -> int:
    return int("BLOCK" in c.upper())


def infer_grid_rule(grid: tuple[int, ...], sizes: Mapping[str, int],
                    constexprs: Mapping[str, int]) -> tuple[str, ...] | None:
    """One expression per grid dimension over ``sizes`` (integer arguments) and ``constexprs``
    (integer constexprs) that reproduces ``grid``; None when no dimension rule fits."""
    sizes = {k: int(v) for k, v in sizes.items()
             if isinstance(v, int) and not isinstance(v, bool) and v > 0 and not is_stride(k)}
    consts = {k: int(v) for k, v in constexprs.items()  # a kernel's own num_stages is no block size
              if isinstance(v, int) and not isinstance(v, bool) and v > 1 and k not in ("num_warps", "num_stages")}
    rule: list[str] = []
    used: list[str] = []  # sizes used by earlier dimensions: prefer fresh ones (M, then N)
    for g in grid:
        expr = _dimension(int(g), list(sizes), list(consts), sizes, consts, used)
        if expr is None:
            return None
        rule.append(expr)
    env = {**sizes, **consts}
    if grid_of(rule, env)[:len(grid)] != tuple(int(g) for g in grid):  # the check on the launch itself
        return None
    return tuple(rule)


def _dimension(g: int, xs: list[str], cs: list[str], sizes: Mapping[str, int], consts: Mapping[str, int],
               used: list[str]) -> str | None:
    """The best-scoring rule for one dimension: axis-named block sizes, block-like constexprs and
    sizes not used by an earlier dimension score higher."""
    best: tuple[int, str, list[str]] | None = None

    def offer(score: int, expr: str, names: list[str]) -> None:
        nonlocal best
        score -= sum(2 for n in names if n in used)
        if best is None or score > best[0]:
            best = (score, expr, names)

    if g == 1:
        return "1"
    for x in xs:
        if sizes[x] == g:
            offer(1, x, [x])
        for c in cs:
            if sizes[x] != g and cdiv(sizes[x], consts[c]) == g:
                offer(1 + 2 * _axis(x, c) + _blockish(c), f"cdiv({x}, {c})", [x])
    for (x1, c1), (x2, c2) in itertools.combinations(itertools.product(xs, cs), 2):
        if x1 != x2 and c1 != c2 and cdiv(sizes[x1], consts[c1]) * cdiv(sizes[x2], consts[c2]) == g:
            offer(2 * (_axis(x1, c1) + _axis(x2, c2)) + _blockish(c1) + _blockish(c2),
                  f"cdiv({x1}, {c1}) * cdiv({x2}, {c2})", [x1, x2])
    if best is None:
        return None
    used.extend(best[2])
    return best[1]
