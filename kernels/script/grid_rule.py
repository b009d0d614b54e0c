"""Infer a fixed grid's rule from one captured launch, so a changed block size or size re-grids.

A script that writes ``grid = (triton.cdiv(n, BLOCK_SIZE),)`` hands the launch a tuple of
numbers; to relaunch with another BLOCK_SIZE the grid must follow. Each dimension is matched
against ``X``, ``cdiv(X, C)`` and ``cdiv(X1, C1) * cdiv(X2, C2)`` with X an integer argument of
the launch (not a stride) and C a constexpr (not one named ``num_stages`` or ``num_warps``), and
the rule is checked on the captured launch itself — and, where the script's wrapper can be called
again, on the grids it computes at other sizes (``samples``): one launch often cannot tell rules
apart. Where several rules fit, names that look like sizes and block sizes win, and the caller
says which rule was inferred; where none fits, the grid stays fixed.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

from ..data.grid import cdiv, grid_of

__all__ = ["candidate_rules", "infer_grid_rule", "is_stride"]


def is_stride(name: str) -> bool:
    """An integer named as a stride (``stride_am``, ``input_row_stride``): never a size."""
    return "stride" in name.lower()


def _axis(x: str, c: str) -> int:
    """1 when constexpr ``c`` names the axis of size ``x`` (BLOCK_SIZE_M for M, BLOCK_N for N)."""
    return int(len(x) <= 3 and c.upper().endswith("_" + x.upper()))


def _blockish(c: str) -> int:
    return int("BLOCK" in c.upper())


Sample = tuple[tuple[int, ...], Mapping[str, int], Mapping[str, int]]  # (grid, sizes, constexprs)


def infer_grid_rule(grid: tuple[int, ...], sizes: Mapping[str, int], constexprs: Mapping[str, int],
                    samples: Sequence[Sample] = ()) -> tuple[str, ...] | None:
    """One expression per grid dimension over ``sizes`` (integer arguments) and ``constexprs``
    (integer constexprs) that reproduces ``grid``; None when no dimension rule fits. With
    ``samples`` (the grids the script's wrapper computed at other sizes), the best rule that
    reproduces every one of them too, else None: one launch can leave rules indistinguishable
    (a square matrix: ``cdiv(M, BN)`` and ``cdiv(N, BN)`` agree)."""
    for rule in candidate_rules(grid, sizes, constexprs):
        if all(_fits(rule, *sample) for sample in samples):
            return rule
    return None


def _clean(sizes: Mapping[str, int], constexprs: Mapping[str, int]) -> tuple[dict[str, int], dict[str, int]]:
    xs = {k: int(v) for k, v in sizes.items()
          if isinstance(v, int) and not isinstance(v, bool) and v > 0 and not is_stride(k)}
    cs = {k: int(v) for k, v in constexprs.items()  # a kernel's own num_stages is no block size
          if isinstance(v, int) and not isinstance(v, bool) and v > 1 and k not in ("num_warps", "num_stages")}
    return xs, cs


def _fits(rule: tuple[str, ...], grid: tuple[int, ...], sizes: Mapping[str, int], constexprs: Mapping[str, int]) -> bool:
    xs, cs = _clean(sizes, constexprs)
    try:
        return grid_of(rule, {**xs, **cs})[:len(grid)] == tuple(int(g) for g in grid)
    except (KeyError, NameError, ValueError, ZeroDivisionError, SyntaxError, TypeError):
        return False  # a name the sample lacks


def candidate_rules(grid: tuple[int, ...], sizes: Mapping[str, int], constexprs: Mapping[str, int],
                    per_dimension: int = 8) -> list[tuple[str, ...]]:
    """Every rule that reproduces ``grid`` (up to ``per_dimension`` expressions a dimension), best
    first: axis-named block sizes, block-like constexprs, and a size per dimension (not one size
    for two) score higher; ties keep the order sizes and constexprs come in."""
    xs, cs = _clean(sizes, constexprs)
    dims = [_dimension(int(g), list(xs), list(cs), xs, cs)[:per_dimension] for g in grid]
    if any(not d for d in dims):
        return []
    scored = []
    for k, combo in enumerate(itertools.product(*dims)):
        names = [n for _, _, ns in combo for n in ns]
        score = sum(sc for sc, _, _ in combo) - 2 * (len(names) - len(set(names)))
        scored.append((-score, k, tuple(e for _, e, _ in combo)))
    env = {**xs, **cs}
    return [rule for _, _, rule in sorted(scored) if grid_of(rule, env)[:len(grid)] == tuple(int(g) for g in grid)]


def _dimension(g: int, xs: list[str], cs: list[str], sizes: Mapping[str, int],
               consts: Mapping[str, int]) -> list[tuple[int, str, list[str]]]:
    """The rules for one dimension, best first (stable): axis-named block sizes and block-like
    constexprs score higher."""
    if g == 1:
        return [(0, "1", [])]
    found: list[tuple[int, str, list[str]]] = []
    for x in xs:
        if sizes[x] == g:
            found.append((1, x, [x]))
        for c in cs:
            if sizes[x] != g and cdiv(sizes[x], consts[c]) == g:
                found.append((1 + 2 * _axis(x, c) + _blockish(c), f"cdiv({x}, {c})", [x]))
    for (x1, c1), (x2, c2) in itertools.combinations(itertools.product(xs, cs), 2):
        if x1 != x2 and c1 != c2 and cdiv(sizes[x1], consts[c1]) * cdiv(sizes[x2], consts[c2]) == g:
            found.append((2 * (_axis(x1, c1) + _axis(x2, c2)) + _blockish(c1) + _blockish(c2),
                          f"cdiv({x1}, {c1}) * cdiv({x2}, {c2})", [x1, x2]))
    order = sorted(range(len(found)), key=lambda i: (-found[i][0], i))
    return [found[i] for i in order]
