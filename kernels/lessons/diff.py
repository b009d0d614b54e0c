"""A learner's trace against the reference's: access maps, out-of-bounds lanes, budgets — numpy only.

Programs are compared by their grid coordinates (x, y, z), each trace in its own grid, so a
learner's 1-D grid of 9 and a reference's 3 x 3 are not taken for the same programs. Tensors
are named by the lesson (``x``, ``out``), whatever the learner calls the kernel's parameters.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..data.lessons.result import BudgetFigure, WrongElements
from ..data.lessons.texts import normalize_lang
from ..data.trace import (
    NO_PROGRAM,
    OOB_OUTSIDE_STORAGE,
    OP_ATOMIC,
    OP_LOAD,
    OP_NAMES,
    OP_STORE,
    SEVERAL,
    Trace,
)
from .messages import elements_text, program_text, programs_text, say

__all__ = ["Side", "map_diff", "oob_texts", "budget_figures", "budget_texts", "who_touched"]

_W = ("never written", "written by several programs", "written by another program", "written, not in the reference")
_R = ("never read", "read by another program", "read by several programs", "read, not in the reference")


@dataclass
class Side:
    """One trace and where each of the lesson's tensors sits in it (label -> tensor index)."""

    trace: Trace
    index: dict[str, int]

    def owner(self, label: str, written: bool) -> np.ndarray:
        m = self.trace.maps[self.index[label]]
        return (m.writer if written else m.reader).ravel()

    def keys(self, owners: np.ndarray) -> np.ndarray:
        """Linear ids -> grid-coordinate keys comparable across grids (negatives kept)."""
        gx, gy, _ = self.trace.grid
        p = owners.astype(np.int64)
        x, y, z = p % gx, (p // gx) % gy, p // (gx * gy)
        return np.where(p < 0, p, x + (y << 20) + (z << 40))


def who_touched(trace: Trace, t: int, element: int, ops: Sequence[int]) -> np.ndarray:
    """The programs whose ``ops`` touched flat element ``element`` of tensor ``t``."""
    ev = trace.events
    rows = (ev.tensor == t) & np.isin(ev.op, list(ops))
    lanes = np.repeat(rows, ev.n_active)
    progs = np.repeat(ev.program[rows], ev.n_active[rows])
    return np.unique(progs[ev.elements[lanes] == element])


def _idx(flat: int, shape: tuple[int, ...]) -> str:
    return ", ".join(str(int(i)) for i in np.unravel_index(int(flat), shape)) if shape else "0"


def map_diff(lang: str, label: str, written: bool, got: Side, ref: Side,
             case: str = "") -> tuple[list[WrongElements], str]:
    """The elements of ``label`` whose writer (``written``) or reader differs from the reference's,
    one ``WrongElements`` per kind of mistake, and the sentence for the first kind ("" if none)."""
    info = got.trace.tensors[got.index[label]]
    shape = tuple(info.shape)
    g, r = got.owner(label, written), ref.owner(label, written)
    gk, rk = got.keys(g), ref.keys(r)
    ops = (OP_STORE, OP_ATOMIC) if written else (OP_LOAD,)
    kinds = {
        _W[0] if written else _R[0]: (g == NO_PROGRAM) & (r != NO_PROGRAM),
        _W[1] if written else _R[2]: (g == SEVERAL) & (r >= 0),
        _W[2] if written else _R[1]: (g >= 0) & (r != NO_PROGRAM) & (gk != rk),
        _W[3] if written else _R[3]: (g != NO_PROGRAM) & (r == NO_PROGRAM),
    }
    order = _W if written else _R
    out: list[WrongElements] = []
    described = 0  # elements the first sentence names
    for kind in order:
        sel = np.flatnonzero(kinds[kind])
        if sel.size == 0:
            continue
        text_sel = sel
        if kind in ("written by another program", "read by another program"):
            pair = (g == g[sel[0]]) & (r == r[sel[0]])
            text_sel = sel[pair[sel]]
        exp = r[text_sel]
        if (exp == SEVERAL).any():
            first = int(text_sel[np.flatnonzero(exp == SEVERAL)[0]])
            who = programs_text(lang, who_touched(ref.trace, ref.index[label], first, ops), ref.trace.grid)
            ref_text = say(lang, "several_eg", t=label, idx=_idx(first, shape), who=who)
        else:
            ref_text = programs_text(lang, exp, ref.trace.grid)
        text = say(lang, kind, elems=elements_text(lang, label, text_sel, shape), ref=ref_text,
                   got=programs_text(lang, g[text_sel], got.trace.grid))
        out.append(WrongElements(tensor=label, kind=kind, shape=shape, indices=sel.astype(np.int64),
                                 got=g[sel].copy(), expected=r[sel].copy(), text=text, case=case))
        described = described or int(text_sel.size)
    if not out:
        return out, ""
    rest = sum(w.count for w in out) - described
    text = out[0].text + (say(lang, "map_others", n=rest, t=label) if rest else "")
    if not written and not _contiguous(info.shape, info.strides):
        text += say(lang, "not_contiguous", t=label, strides=tuple(info.strides))
    return out, text


def _contiguous(shape: Sequence[int], strides: Sequence[int]) -> bool:
    expect = 1
    for n, s in zip(reversed(list(shape)), reversed(list(strides)), strict=True):
        if n != 1 and s != expect:
            return False
        expect *= n
    return True


def oob_texts(lang: str, trace: Trace, labels: dict[str, str]) -> list[str]:
    """One sentence per out-of-bounds record (program, op, line); ``labels``: parameter -> lesson name."""
    out = []
    infos = {t.name: t for t in trace.tensors}
    for rec in trace.oob:
        prog = program_text(lang, rec.program, trace.grid)
        verb = say(lang, f"verb_{rec.op}")
        ex = ", ".join(str(o) for o in rec.example_offsets) + (", …" if rec.count > len(rec.example_offsets) else "")
        info = infos.get(rec.nearest_tensor)
        if info is None or (rec.kind == OOB_OUTSIDE_STORAGE and not rec.example_offsets):
            out.append(say(lang, "oob_nowhere", prog=prog, verb=verb, n=rec.count, line=rec.line))
            continue
        t = labels.get(info.name, info.name)
        last = sum((n - 1) * s for n, s in zip(info.shape, info.strides, strict=True))
        offs = rec.example_offsets
        if min(offs) > last:
            key = "oob_past"
        elif max(offs) < 0:
            key = "oob_before"
        else:
            key = "oob_gap"
        out.append(say(lang, key, prog=prog, verb=verb, n=rec.count, t=t, line=rec.line, ex=ex,
                       size=info.numel, strides=tuple(info.strides)))
    return out


def _per_program(trace: Trace, t: int, op: int) -> np.ndarray:
    ev = trace.events
    rows = (ev.tensor == t) & (ev.op == op)
    pos = np.searchsorted(trace.programs, ev.program[rows])
    return np.bincount(pos, minlength=trace.programs.size)


def budget_figures(got: Side, ref: Side, items: Sequence[tuple[str, str]], case: str = "") -> list[BudgetFigure]:
    """Per-program ``tl.load``/``tl.store`` calls on each (tensor, "load"|"store") of ``items``,
    against the most any reference program makes (the limit)."""
    out = []
    for label, op_name in items:
        op = OP_NAMES.index(op_name)
        counts = _per_program(got.trace, got.index[label], op)
        limit = int(_per_program(ref.trace, ref.index[label], op).max(initial=0))
        worst = int(counts.max(initial=0))
        where = int(got.trace.programs[int(np.argmax(counts))]) if counts.size else 0
        who = program_text("en", where, got.trace.grid).removeprefix("program ")
        out.append(BudgetFigure(tensor=label, op=op_name, limit=limit, worst=worst, worst_program=who,
                                reference=limit, mean=float(counts.mean()) if counts.size else 0.0, case=case))
    return out


def budget_texts(lang: str, figures: Sequence[BudgetFigure], hints: dict[tuple[str, str], str]) -> list[str]:
    """Sentences for the figures over budget, each with the lesson's advice for that budget."""
    out = []
    for f in figures:
        if f.ok:
            continue
        text = say(lang, "budget", prog=say(lang, "program", p=f.worst_program), op=f"tl.{f.op}", t=f.tensor,
                   k=f.worst, limit=f.limit)
        hint = hints.get((f.tensor, f.op))
        sep = "：" if normalize_lang(lang) == "zh_CN" else ": "
        out.append(text + (sep + say(lang, hint) if hint else ""))
    return out
