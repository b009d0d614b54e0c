"""Every sentence a lesson check says, in English and Simplified Chinese — numpy only.

The sentences live in ``resources/lessons/messages.json`` (key -> {"en", "zh_CN"}: ``str.format``
texts), where a translator can edit them. ``say(lang, key, **values)`` formats one message;
``program_text`` / ``programs_text`` name programs the way a learner writes them (``program 3``, ``program (1, 0)`` in a 2-D grid), and
``elements_text`` names a set of elements compactly (``elements 96..127 of out``,
``elements out[0..5, 32..49]``) with the total when the list is cut short.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from ..data.lessons.texts import LESSONS_DIR, normalize_lang

__all__ = ["say", "program_text", "programs_text", "elements_text", "runs", "grid_text"]

NO_PROGRAM, SEVERAL = -1, -2  # as in kernels.data.trace


@lru_cache(maxsize=1)
def _catalog() -> dict[str, dict[str, str]]:
    """resources/lessons/messages.json: message key -> {"en": ..., "zh_CN": ...} (str.format texts)."""
    return json.loads((LESSONS_DIR / "messages.json").read_text(encoding="utf-8"))


def say(lang: str, key: str, **values: object) -> str:
    texts = _catalog()[key]
    if normalize_lang(lang) == "zh_CN" and "zh_CN" in texts:
        return texts["zh_CN"].format(**values).replace("） ", "）")  # no space after a full-width bracket
    return texts["en"].format(**values)


def grid_text(grid: Sequence[int]) -> str:
    """(4, 1, 1) -> "(4,)", (3, 2, 1) -> "(3, 2)"."""
    g = [int(v) for v in grid]
    while len(g) > 1 and g[-1] == 1:
        g.pop()
    return "(" + ", ".join(str(v) for v in g) + ("," if len(g) == 1 else "") + ")"


def _xyz(pid: int, grid: Sequence[int]) -> str:
    gx, gy, gz = (int(v) for v in grid)
    x, y, z = pid % gx, (pid // gx) % gy, pid // (gx * gy)
    if gy == 1 and gz == 1:
        return str(pid)
    return f"({x}, {y})" if gz == 1 else f"({x}, {y}, {z})"


def program_text(lang: str, pid: int, grid: Sequence[int]) -> str:
    if pid == NO_PROGRAM:
        return say(lang, "no_program")
    if pid == SEVERAL:
        return say(lang, "several")
    return say(lang, "program", p=_xyz(int(pid), grid))


def runs(values: np.ndarray) -> list[tuple[int, int]]:
    """Sorted distinct ints -> inclusive (first, last) runs of consecutive values."""
    v = np.asarray(values, dtype=np.int64)
    if v.size == 0:
        return []
    cut = np.flatnonzero(np.diff(v) != 1) + 1
    starts, ends = np.r_[v[0], v[cut]], np.r_[v[cut - 1], v[-1]]
    return [(int(a), int(b)) for a, b in zip(starts, ends, strict=True)]


def _span(a: int, b: int) -> str:
    return str(a) if a == b else f"{a}..{b}"


def programs_text(lang: str, pids: np.ndarray, grid: Sequence[int], limit: int = 4) -> str:
    """A set of programs: "program 3", "programs 4..6", "programs (0, 1), (1, 1)", "several programs"."""
    p = np.unique(np.asarray(pids, dtype=np.int64))
    if p.size == 1:
        return program_text(lang, int(p[0]), grid)
    if (p < 0).any():
        return say(lang, "several")
    if int(grid[1]) == 1 and int(grid[2]) == 1:
        parts = [_span(a, b) for a, b in runs(p)]
    else:
        parts = [_xyz(int(q), grid) for q in p]
    text = ", ".join(parts[:limit]) + (", …" if len(parts) > limit else "")
    return say(lang, "programs", p=text)


def _boxes(flat: np.ndarray, shape: tuple[int, ...]) -> list[tuple[tuple[int, int], list[tuple[int, int]]]]:
    """2-D elements as boxes: (row run, column runs), rows merged where their columns agree."""
    rows, cols = np.divmod(flat, shape[1])
    out: list[tuple[tuple[int, int], list[tuple[int, int]]]] = []
    for r in np.unique(rows).tolist():
        cr = runs(np.sort(cols[rows == r]))
        if out and out[-1][1] == cr and out[-1][0][1] == r - 1:
            out[-1] = ((out[-1][0][0], r), cr)
        else:
            out.append(((r, r), cr))
    return out


def elements_text(lang: str, tensor: str, flat: np.ndarray, shape: tuple[int, ...], limit: int = 3) -> str:
    """Name a set of elements (flat row-major indices) of ``tensor``."""
    f = np.unique(np.asarray(flat, dtype=np.int64))
    cut = False
    if len(shape) <= 1:
        parts = [_span(a, b) for a, b in runs(f)]
        cut = len(parts) > limit
        text = say(lang, "elements_1d", runs=", ".join(parts[:limit]) + (", …" if cut else ""), t=tensor)
    else:
        if len(shape) == 2:
            parts = [f"{tensor}[{_span(*r)}, {_span(*c)}]" for r, cs in _boxes(f, shape) for c in cs]
        else:
            parts = [f"{tensor}[{', '.join(str(int(i)) for i in np.unravel_index(int(k), shape))}]" for k in f]
        cut = len(parts) > limit
        text = say(lang, "elements_nd", boxes=", ".join(parts[:limit]) + (", …" if cut else ""))
    return text + (say(lang, "elements_total", n=int(f.size)) if cut else "")
