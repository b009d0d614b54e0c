"""The lessons as the check needs them: inputs, references, what is compared, the lesson's own questions.

Every lesson calls the learner's ``launch(*args)`` once per case with the tensors of ``args`` (in
that order; outputs filled with NaN). The autotune lesson has a case per candidate config and
calls ``launch(*args, **meta)`` with the config's values. The texts in
``resources/lessons/<nn>_<name>/`` describe the same conventions to the learner.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from ..data.maps import footprint
from . import layout_checks
from .diff import Side
from .messages import programs_text, say

__all__ = ["Case", "Run", "Extra", "Lesson", "LESSONS"]


@dataclass(frozen=True)
class Case:
    label: str = ""  # "" when the lesson has one case; the autotune lesson: the config
    meta: tuple[tuple[str, Any], ...] = ()  # keyword arguments of launch(...)


@dataclass
class Run:
    case: Case
    args: dict[str, torch.Tensor]
    expected: dict[str, torch.Tensor]  # the torch reference's outputs
    side: Side
    launches: int = 1


@dataclass
class Extra:
    """A lesson's own findings (stage, text), numbers for the result, and words for a pass."""

    findings: list[tuple[str, str]] = field(default_factory=list)
    figures: dict[str, Any] = field(default_factory=dict)
    export: str = ""
    suffix: str = ""


Args = Callable[[torch.Generator], dict[str, torch.Tensor]]
Cases = Callable[[str, types.ModuleType], tuple[list[Case], list[str]]]
ExtraFn = Callable[[str, types.ModuleType, list[tuple[Run, Run]]], Extra]


@dataclass(frozen=True)
class Lesson:
    name: str
    args: Args  # launch's tensors, in order, from a seeded generator
    outputs: tuple[str, ...]
    reference: Callable[[dict[str, torch.Tensor]], dict[str, torch.Tensor]]
    written: tuple[str, ...]  # tensors whose writer map must be the reference solution's
    read: tuple[str, ...]  # tensors whose reader map must be the reference solution's
    promise: str  # what the check says to the starter (English; the tests hold the lesson to it)
    budget: tuple[tuple[str, str], ...] = ()  # (tensor, "load" | "store"): per-program call limits
    budget_hints: dict[tuple[str, str], str] = field(default_factory=dict)  # -> messages key
    atol: float = 1e-5
    rtol: float = 1e-5
    n_sms: int = 132  # the wave model of the trace
    cases: Cases | None = None
    extra: ExtraFn | None = None


def _randn(g: torch.Generator, *shape: int) -> torch.Tensor:
    return torch.randn(*shape, generator=g, dtype=torch.float32)


def _empty(*shape: int) -> torch.Tensor:
    return torch.empty(*shape, dtype=torch.float32)


# -- lesson 1: which program writes element i? -----------------------------------------------------------

def _which_program(lang: str, module: types.ModuleType, runs: list[tuple[Run, Run]]) -> Extra:
    fn = getattr(module, "which_program", None)
    if not callable(fn):
        return Extra(findings=[("lesson", say(lang, "which_missing"))])
    got = runs[0][0].side
    writer = got.owner("out", written=True)
    said = np.empty(writer.size, np.int64)
    for i in range(writer.size):
        try:
            said[i] = int(fn(i))
        except Exception as e:  # noqa: BLE001 - the learner's function
            return Extra(findings=[("lesson", say(lang, "which_raised", i=i, exc=f"{type(e).__name__}: {e}"))])
    bad = np.flatnonzero(said != writer)
    if bad.size:
        i = int(bad[0])
        return Extra(findings=[("lesson", say(lang, "which_wrong", n=bad.size, total=writer.size, i=i,
                                             pid=int(writer[i]), said=int(said[i])))])
    return Extra(suffix=say(lang, "which_ok", n=writer.size))


# -- lesson 7: distinct tiles per wave ------------------------------------------------------------------

def tiles_per_wave(side: Side, tile_a: int, tile_b: int) -> list[int]:
    """Distinct tiles of a and b that each wave of programs loads (elements read / tile size)."""
    tr = side.trace
    out = []
    for w in np.unique(tr.wave):
        fps = footprint(tr, tr.programs[tr.wave == w], op="load")
        a = int(fps[side.index["a"]].read.sum())
        b = int(fps[side.index["b"]].read.sum())
        out.append(-(-a // tile_a) + -(-b // tile_b))
    return out


def _tiles(lang: str, module: types.ModuleType, runs: list[tuple[Run, Run]]) -> Extra:
    got, ref = runs[0][0].side, runs[0][1].side
    c = ref.trace.constexprs
    bm, bn, bk = int(c["BLOCK_M"]), int(c["BLOCK_N"]), int(c["BLOCK_K"])
    mine, theirs = tiles_per_wave(got, bm * bk, bk * bn), tiles_per_wave(ref, bm * bk, bk * bn)
    figures = {"tiles_per_wave": mine, "reference_tiles_per_wave": theirs, "tile": (bm, bn, bk),
               "programs_per_wave": got.trace.programs_per_wave}
    mean, ref_mean = float(np.mean(mine)), float(np.mean(theirs))
    if mean <= ref_mean:
        return Extra(figures=figures, suffix=say(lang, "tiles_ok", per=got.trace.programs_per_wave, mean=mean))
    n = min(len(mine), len(theirs))
    w = int(np.argmax(np.array(mine[:n]) - np.array(theirs[:n])))  # the wave that loses most (the first of those)
    progs = got.trace.programs[got.trace.wave == w]
    text = say(lang, "tiles", w=w, p=programs_text(lang, progs, got.trace.grid).split(" ", 1)[-1], got=mine[w],
               tile=f"{bm}x{bk}", ref=theirs[w], g=int(c["GROUP_SIZE_M"]), nw=len(mine), got_mean=mean,
               ref_mean=ref_mean)
    return Extra(findings=[("lesson-first", text)], figures=figures)


# -- lesson 8: autotune candidates ----------------------------------------------------------------------

def _config(c: Any) -> dict[str, Any] | None:
    """A triton.Config or a dict -> launch keyword arguments (kwargs, num_warps, num_stages)."""
    if isinstance(c, dict):
        return dict(c)
    if hasattr(c, "kwargs") and hasattr(c, "num_warps"):
        return {**c.kwargs, "num_warps": c.num_warps, "num_stages": c.num_stages}
    return None


def _kernel_params(module: types.ModuleType) -> tuple[str, list[str], set[str]]:
    """(name, parameters, tl.constexpr parameters) of the file's first @triton.jit function."""
    from ..interp import constexpr_names
    from .loader import jit_functions

    fn = next(iter(jit_functions(module).values()), None)
    if fn is None:
        return "kernel", [], set()
    return fn.__name__, list(fn.arg_names), constexpr_names(fn)


def _candidates(lang: str, module: types.ModuleType) -> tuple[list[Case], list[str]]:
    configs = getattr(module, "CONFIGS", None)
    if not isinstance(configs, (list, tuple)) or len(configs) < 2:
        return [], [say(lang, "cfg_none")]
    kernel, params, consts = _kernel_params(module)
    cases: list[Case] = []
    for i, c in enumerate(configs):
        meta = _config(c)
        if meta is None:
            return [], [say(lang, "cfg_bad", i=i, what=type(c).__name__)]
        for p in meta:
            if p not in consts and p not in ("num_warps", "num_stages"):
                return [], [say(lang, "cfg_param", i=i, p=p, kernel=kernel, params=", ".join(sorted(consts)))]
        label = ", ".join(f"{k}={v}" for k, v in meta.items() if k != "num_stages")
        for j, other in enumerate(cases):
            if other.meta == tuple(meta.items()):
                return [], [say(lang, "cfg_dupe", i=i, j=j)]
        cases.append(Case(label=label, meta=tuple(meta.items())))
    key = getattr(module, "KEY", None)
    if not isinstance(key, (list, tuple)) or not key:
        return [], [say(lang, "key_none")]
    for k in key:
        if k not in params:
            return [], [say(lang, "key_bad", k=k, kernel=kernel, params=", ".join(params))]
        if k in consts:
            return [], [say(lang, "key_const", k=k)]
    return cases, []


def export_autotune(configs: list[dict[str, Any]], key: list[str]) -> str:
    """The ``@triton.autotune(configs=[...], key=[...])`` text for these launch keyword sets."""
    lines = ["@triton.autotune(", "    configs=["]
    for meta in configs:
        kw = {k: v for k, v in meta.items() if k not in ("num_warps", "num_stages")}
        opts = "".join(f", {k}={meta[k]}" for k in ("num_warps", "num_stages") if k in meta)
        lines.append(f"        triton.Config({kw!r}{opts}),")
    lines += ["    ],", f"    key={list(key)!r},", ")", "@triton.jit"]
    return "\n".join(lines) + "\n"


def _autotune(lang: str, module: types.ModuleType, runs: list[tuple[Run, Run]]) -> Extra:
    table = []
    for got, _ in runs:
        tr = got.side.trace
        table.append({"config": got.case.label, "programs": tr.n_programs,
                      "masked_lanes": float(tr.stats.masked_fraction.mean()) if tr.programs.size else 0.0,
                      "interpreter_s": tr.record_s})
    export = export_autotune([dict(got.case.meta) for got, _ in runs], list(module.KEY))
    return Extra(figures={"candidates": table, "timed": "interpreter wall clock: says nothing about a GPU"},
                 export=export, suffix=say(lang, "autotune_ok"))


# -- lessons 9 and 10: inside a program (the layout engine's answers, ``layout_checks``) --------------

def _warps_cases(lang: str, module: types.ModuleType) -> tuple[list[Case], list[str]]:
    return [Case(label=label, meta=meta) for label, meta in layout_checks.warps_cases()], []


def _which_warp(lang: str, module: types.ModuleType, runs: list[tuple[Run, Run]]) -> Extra:
    findings, figures, suffix = layout_checks.which_warp_verdict(lang, module, runs)
    return Extra(findings=findings, figures=figures, suffix=suffix)


def _coalescing(lang: str, module: types.ModuleType, runs: list[tuple[Run, Run]]) -> Extra:
    findings, figures, suffix = layout_checks.coalescing_verdict(lang, module, runs)
    return Extra(findings=findings, figures=figures, suffix=suffix)


# -- the lessons ----------------------------------------------------------------------------------------

LESSONS: dict[str, Lesson] = {les.name: les for les in (
    Lesson("program_id", args=lambda g: {"x": _randn(g, 100), "out": _empty(100)}, outputs=("out",),
           reference=lambda a: {"out": a["x"] * 2}, written=("out",), read=("x",),
           promise="which_program(i) disagrees with the trace", extra=_which_program),
    Lesson("masks", args=lambda g: {"x": _randn(g, 200), "y": _randn(g, 200), "out": _empty(200)},
           outputs=("out",), reference=lambda a: {"out": a["x"] + a["y"]}, written=("out",), read=("x", "y"),
           promise="past the end of x"),
    Lesson("grid", args=lambda g: {"x": _randn(g, 1000), "out": _empty(1000)}, outputs=("out",),
           reference=lambda a: {"out": torch.relu(a["x"])}, written=("out",), read=("x",),
           promise="elements 896..999 of out were never written; the reference writes them from program 7"),
    Lesson("tiles_2d", args=lambda g: {"x": _randn(g, 40, 24).t(), "out": _empty(24, 40)}, outputs=("out",),
           reference=lambda a: {"out": a["x"] * 3 - 1}, written=("out",), read=("x",),
           promise="; the reference reads them from program (0, 0)"),
    Lesson("softmax_rows", args=lambda g: {"x": _randn(g, 6, 64)[:, :50], "out": _empty(6, 50)},
           outputs=("out",), reference=lambda a: {"out": torch.softmax(a["x"].double(), dim=1)},
           written=("out",), read=("x",), budget=(("x", "load"), ("out", "store")),
           budget_hints={("x", "load"): "budget_row_once"},
           promise="elements out[0..5, 32..49] were never written; the reference writes them from programs 0..5"),
    Lesson("matmul_k_loop", args=lambda g: {"a": _randn(g, 32, 64), "b": _randn(g, 64, 32), "c": _empty(32, 32)},
           outputs=("c",), reference=lambda a: {"c": a["a"].double() @ a["b"].double()}, written=("c",),
           read=("a", "b"), atol=1e-4, rtol=1e-4, budget=(("a", "load"), ("b", "load"), ("c", "store")),
           budget_hints={("a", "load"): "budget_k_step", ("b", "load"): "budget_k_step",
                         ("c", "store"): "budget_store_once"},
           promise="were never read; the reference reads them from several programs"),
    Lesson("grouped_order", args=lambda g: {"a": _randn(g, 128, 32), "b": _randn(g, 32, 128),
                                            "c": _empty(128, 128)},
           outputs=("c",), reference=lambda a: {"c": a["a"].double() @ a["b"].double()}, written=("c",),
           read=("a", "b"), atol=1e-4, rtol=1e-4, n_sms=8, extra=_tiles,
           promise="distinct 16x16 tiles of a and b; the grouped order (GROUP_SIZE_M = 4) loads 12"),
    Lesson("autotune", args=lambda g: {"x": _randn(g, 200), "out": _empty(200)}, outputs=("out",),
           reference=lambda a: {"out": a["x"] * 0.5}, written=("out",), read=("x",),
           cases=_candidates, extra=_autotune,
           promise="[BLOCK_SIZE=32, num_warps=1] elements 128..199 of out were never written"),
    Lesson("num_warps", args=lambda g: {"x": _randn(g, 4096), "out": _empty(4096)}, outputs=("out",),
           reference=lambda a: {"out": a["x"] * 3}, written=("out",), read=("x",), cases=_warps_cases,
           extra=_which_warp, promise="which_warp(i, 2) disagrees with the layout for 512 of 1024 elements"),
    Lesson("coalescing", args=lambda g: {"x": _randn(g, 128, 128), "out": _empty(128, 128)}, outputs=("out",),
           reference=lambda a: {"out": a["x"] * 2}, written=(), read=(), extra=_coalescing,
           promise="touches 32.0 sectors per request (ideal 4.0"),
)}
