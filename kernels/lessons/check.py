"""``check_lesson``: run a learner's file under the tracer and hold it against the reference solution.

For each case of the lesson (one, or one per autotune candidate):

1. the inputs are made from a fixed seed, each in its own storage with a NaN guard band on both
   sides (a lane that runs off a tensor lands in that band: it is reported as out of bounds,
   never taken for an element of a neighbouring tensor), and the outputs are filled with NaN;
2. ``launch(*args, **meta)`` runs with every load and store recorded (``kernels.trace``);
3. the reference solution's trace of the same case (cached per process) is the model for the
   access maps: which program wrote and read each element;
4. findings, in this order: out-of-bounds lanes, elements written by the wrong program (or none,
   or several), elements read by the wrong program, wrong values (against a float64 torch
   reference; unwritten elements are still NaN), per-program load/store budgets, and the
   lesson's own questions (``defs``). The first is the message; all are in ``details``.

Never raises for a learner's mistake: every problem is a failed ``LessonResult``.
"""

from __future__ import annotations

import os
import re
import time
import types
from typing import Any

import numpy as np
import torch

from ..data.errors import InterpreterFault, TraceCancelled, TraceUnsupported
from ..data.lessons.result import STAGES, BudgetFigure, LessonResult, WrongElements
from ..data.lessons.texts import lesson_info, normalize_lang, solution_path
from ..run.check import compare
from ..trace import trace_launch
from .defs import LESSONS, Case, Extra, Lesson, Run
from .diff import Side, budget_figures, budget_texts, map_diff, oob_texts
from .loader import Launches, LessonFileError, launcher, line_in, load_file, unload
from .messages import grid_text, say

__all__ = ["check_lesson", "lesson_inputs", "GUARD"]

GUARD = 2048  # elements of NaN on each side of every tensor's storage

_REFERENCE: dict[tuple[str, str, int], Run] = {}


class _Stop(Exception):
    """A finding after which the check cannot go on (the file did not load or run)."""

    def __init__(self, stage: str, text: str, line: int | None = None) -> None:
        super().__init__(text)
        self.stage, self.text, self.line = stage, text, line


def _guarded(t: torch.Tensor) -> torch.Tensor:
    """A copy of ``t`` (same shape and strides) inside a larger storage filled with NaN."""
    extent = 1 + sum((n - 1) * s for n, s in zip(t.shape, t.stride(), strict=True)) if t.numel() else 0
    buf = torch.full((2 * GUARD + extent,), float("nan"), dtype=t.dtype)
    view = buf.as_strided(tuple(t.shape), tuple(t.stride()), GUARD)
    view.copy_(t)
    return view


def lesson_inputs(lesson: Lesson) -> tuple[dict[str, torch.Tensor], dict[str, torch.Tensor]]:
    """(guarded launch arguments with outputs NaN, the torch reference's outputs)."""
    raw = lesson.args(torch.Generator().manual_seed(0))
    expected = {k: v.to(torch.float64) for k, v in lesson.reference(raw).items()}
    args = {}
    for k, v in raw.items():
        args[k] = _guarded(v)
        if k in lesson.outputs:
            args[k].fill_(float("nan"))
    return args, expected


def _same(a: Any, b: torch.Tensor) -> bool:
    return a is b or (isinstance(a, torch.Tensor) and a.data_ptr() == b.data_ptr()
                      and tuple(a.shape) == tuple(b.shape) and a.stride() == b.stride())


def _plain_jit(module: types.ModuleType, lang: str) -> None:
    from triton.runtime.autotuner import Autotuner, Heuristics

    for k, v in vars(module).items():
        if isinstance(v, (Autotuner, Heuristics)):
            raise _Stop("load", say(lang, "autotuned", name=k))


def _run(lesson: Lesson, module: types.ModuleType, path: str, case: Case, lang: str, cancel: Any) -> Run:
    args, expected = lesson_inputs(lesson)
    names = ", ".join(args)
    seen = Launches()
    try:
        tr = trace_launch(launcher(module, list(args.values()), dict(case.meta), seen), kernel=lesson.name,
                          values=dict(case.meta), n_sms=lesson.n_sms, workers=1, cancel=cancel)
    except TraceCancelled:
        raise
    except InterpreterFault as e:
        m = re.search(r"at line (\d+)", e.message)
        raise _Stop("run", say(lang, "kernel_failed", msg=e.message), int(m.group(1)) if m else None) from None
    except TraceUnsupported as e:
        raise _Stop("run", say(lang, "unsupported", msg=e.message)) from None
    except Exception as e:  # noqa: BLE001 - the learner's launch(...) raised
        if isinstance(e, ValueError) and not seen.bindings and "never happened" in str(e):
            raise _Stop("run", say(lang, "no_kernel", args=names)) from None
        line = line_in(e, path)
        text = str(e).strip().splitlines()
        exc = f"{type(e).__name__}: {text[0][:300]}" if text else type(e).__name__
        raise _Stop("run", say(lang, "launch_raised", where=f"{path}:{line}" if line else path, args=names,
                               exc=exc), line) from None
    if len(seen.bindings) > 1:
        raise _Stop("run", say(lang, "launches", args=names, n=len(seen.bindings)))
    index: dict[str, int] = {}
    for label, t in args.items():
        param = next((p for p, v in seen.bindings[0].items() if _same(v, t)), None)
        if param is None:
            raise _Stop("run", say(lang, "arg_missing", t=label))
        index[label] = tr.tensor_index(param)
    return Run(case=case, args=args, expected=expected, side=Side(tr, index), launches=len(seen.bindings))


def _reference(lesson: Lesson, case: Case, lang: str) -> Run:
    """The reference solution's run of ``case`` (cached while the solution file is unchanged). A
    learner's candidate config that the solution cannot run is the learner's finding; the
    solution failing its own lesson is a bug here (RuntimeError)."""
    p = solution_path(lesson.name)
    key = (lesson.name, repr(case.meta), os.stat(p).st_mtime_ns)
    run = _REFERENCE.get(key)
    if run is None:
        module = load_file(p)
        try:
            run = _run(lesson, module, str(p), case, lang, None)
        except _Stop as e:
            if not case.label:
                raise RuntimeError(f"lesson {lesson.name}: the reference solution failed: {e.text}") from None
            raise _Stop("lesson-first", say(lang, "ref_failed", why=e.text)) from None
        finally:
            unload(module)
        _REFERENCE[key] = run
    return run


def _values(lesson: Lesson, lang: str, got: Run, case: str) -> tuple[list[str], list[WrongElements]]:
    texts, wrong = [], []
    for label in lesson.outputs:
        out, ref = got.args[label], got.expected[label]
        res = compare(out, ref, lesson.atol, lesson.rtol, name=label)
        if res.passed:
            continue
        o = out.detach().double().numpy().ravel()
        r = ref.numpy().ravel()
        bad = np.flatnonzero(~(np.abs(o - r) <= lesson.atol + lesson.rtol * np.abs(r)))
        i = int(bad[0]) if bad.size else 0
        idx = ", ".join(str(int(v)) for v in np.unravel_index(i, tuple(out.shape)))
        if res.n_unwritten:
            text = say(lang, "values_nan", t=label, n=res.n_unwritten, total=res.n_elements)
        else:
            text = say(lang, "values", t=label, n=res.n_mismatch, total=res.n_elements,
                       err=f"{res.max_abs_err:.3g}", idx=idx, val=f"{o[i]:.6g}", exp=f"{r[i]:.6g}")
        texts.append(text)
        wrong.append(WrongElements(tensor=label, kind="wrong value", shape=tuple(out.shape), indices=bad,
                                   got=o[bad], expected=r[bad], text=text, case=case))
    return texts, wrong


def _compare(lesson: Lesson, lang: str, got: Run, ref: Run) -> tuple[list[tuple[str, str]], list[WrongElements],
                                                                     list[BudgetFigure]]:
    label = got.case.label
    g, r = got.side, ref.side
    findings: list[tuple[str, str]] = []
    wrong: list[WrongElements] = []
    labels = {g.trace.tensors[i].name: k for k, i in g.index.items()}
    oob = oob_texts(lang, g.trace, labels)
    if oob:
        findings.append(("bounds", oob[0] + (say(lang, "and_more", n=len(oob) - 1) if len(oob) > 1 else "")))
        findings += [("bounds", t) for t in oob[1:]]
    for stage, tensors in (("written", lesson.written), ("read", lesson.read)):
        for t in tensors:
            w, text = map_diff(lang, t, stage == "written", g, r, case=label)
            wrong += w
            if text:
                findings.append((stage, text))
    if g.trace.grid != r.trace.grid:
        findings.append(("written", say(lang, "grid", got=grid_text(g.trace.grid), n=g.trace.n_programs,
                                        ref=grid_text(r.trace.grid), m=r.trace.n_programs)))
    texts, w = _values(lesson, lang, got, label)
    findings += [("values", t) for t in texts]
    wrong += w
    figures = budget_figures(g, r, lesson.budget, case=label)
    findings += [("budget", t) for t in budget_texts(lang, figures, lesson.budget_hints)]
    if label:
        findings = [(s, f"[{label}] {t}") for s, t in findings]
    return findings, wrong, figures


def check_lesson(name: str, path: str | os.PathLike, lang: str = "en", *, cancel: Any = None) -> LessonResult:
    """Check the learner's file ``path`` for lesson ``name`` (see the module doc). ``cancel()``:
    polled between programs; true -> ``kernels.data.errors.TraceCancelled`` (the only exception)."""
    t0 = time.perf_counter()
    lang = normalize_lang(lang)
    info = lesson_info(name)
    lesson = LESSONS[info.name]
    shown = str(path)
    result = LessonResult(name=info.name, passed=False, message="", lang=lang, path=shown)
    try:
        module = load_file(path)
    except LessonFileError as e:
        result.stage, result.line = "load", e.line
        result.message = say(lang, e.key, **e.values)
        result.details = [result.message]
        result.elapsed_s = time.perf_counter() - t0
        return result
    findings: list[tuple[str, str]] = []
    runs: list[tuple[Run, Run]] = []
    extra = Extra()
    try:
        if not callable(getattr(module, "launch", None)):
            args = ", ".join(lesson.args(torch.Generator().manual_seed(0)))
            raise _Stop("load", say(lang, "no_launch", path=shown, args=args))
        _plain_jit(module, lang)
        cases, problems = lesson.cases(lang, module) if lesson.cases else ([Case()], [])
        findings += [("lesson-first", p) for p in problems]
        for case in cases:
            try:
                got = _run(lesson, module, shown, case, lang, cancel)
                ref = _reference(lesson, case, lang)
            except _Stop as e:
                raise _Stop(e.stage, f"[{case.label}] {e.text}" if case.label else e.text, e.line) from None
            runs.append((got, ref))
            f, w, b = _compare(lesson, lang, got, ref)
            findings += f
            result.wrong += w
            result.budget += b
        if runs and lesson.extra is not None and not problems:
            extra = lesson.extra(lang, module, runs)
            findings += extra.findings
    except _Stop as e:
        findings.append((e.stage, e.text))
        result.line = e.line
    finally:
        unload(module)
    if runs:
        bad = next((g for g, r in runs if _fails(g, findings)), runs[0][0])
        result.trace = bad.side.trace
        result.reference_trace = next(r for g, r in runs if g is bad).side.trace
    findings.sort(key=lambda f: STAGES.index(f[0]))
    result.figures, result.export = extra.figures, "" if findings else extra.export
    result.details = [t for _, t in findings]
    if findings:
        result.stage, result.message = findings[0]
    else:
        result.passed, result.stage = True, "done"
        result.message = say(lang, "passed") + _budget_summary(lang, result.budget) + extra.suffix
    result.elapsed_s = time.perf_counter() - t0
    return result


def _fails(run: Run, findings: list[tuple[str, str]]) -> bool:
    label = run.case.label
    return bool(label) and any(t.startswith(f"[{label}] ") for _, t in findings)


def _budget_summary(lang: str, figures: list[BudgetFigure]) -> str:
    if not figures:
        return ""
    seen: dict[tuple[str, str], int] = {}
    for f in figures:
        seen[(f.tensor, f.op)] = max(seen.get((f.tensor, f.op), 0), f.worst)
    parts = [say(lang, "budget_ok", op=f"tl.{op}", t=t, k=k) for (t, op), k in seen.items()]
    return say(lang, "passed_budget", figures=("、" if lang == "zh_CN" else ", ").join(parts))
