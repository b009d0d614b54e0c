"""What a lesson check answers, as plain picklable data — numpy only, no torch, no triton.

The GUI process receives a ``LessonResult`` from the worker and draws it: the message, the wrong
elements of each tensor (flat logical indices, row-major, with the program the learner's kernel
used and the one the reference uses), the per-program budget figures, and the two traces.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["LessonInfo", "WrongElements", "BudgetFigure", "LessonResult", "STAGES", "WRONG_KINDS"]

#: where a check stopped, in the order it looks: the file, running it, the lesson's own
#: questions asked first, bounds, maps, values, budgets, the lesson's other questions, done
STAGES = ("load", "run", "lesson-first", "bounds", "written", "read", "values", "budget", "lesson", "done")

#: ``WrongElements.kind``: what is wrong with those elements
WRONG_KINDS = ("never written", "written by another program", "written by several programs",
               "written, not in the reference", "never read", "read by another program",
               "read by several programs", "read, not in the reference", "wrong value")


@dataclass(frozen=True)
class LessonInfo:
    name: str  # "masks"
    number: int  # 2
    folder: str  # "02_masks" (under resources/lessons)
    titles: dict[str, str]  # language -> title (the first heading of lesson.<lang>.md)

    def title(self, lang: str = "en") -> str:
        return self.titles.get(lang) or self.titles.get("en") or self.name


@dataclass
class WrongElements:
    """Elements of one tensor that one kind of mistake touched.

    ``got`` and ``expected`` hold, per element, the program (linear id in its own trace's grid;
    -1 none, -2 several) that wrote/read it in the learner's run and in the reference's; for
    ``"wrong value"`` they are the learner's value and the reference's."""

    tensor: str  # the lesson's name for it ("out", "x"), not the kernel parameter's
    kind: str  # one of WRONG_KINDS
    shape: tuple[int, ...]
    indices: np.ndarray  # int64 [n]: flat row-major logical indices
    got: np.ndarray  # [n]
    expected: np.ndarray  # [n]
    text: str = ""  # the localized sentence naming them
    case: str = ""  # the case (autotune: the config) it belongs to; "" when the lesson has one

    @property
    def count(self) -> int:
        return int(self.indices.size)

    def mask(self) -> np.ndarray:
        """bool array of ``shape``: True at these elements (what the grid view highlights)."""
        m = np.zeros(int(np.prod(self.shape)) if self.shape else 1, bool)
        m[self.indices] = True
        return m.reshape(self.shape)


@dataclass
class BudgetFigure:
    """Per-program ``tl.load``/``tl.store`` calls (loop iterations counted) on one tensor."""

    tensor: str
    op: str  # "load" or "store"
    limit: int  # the most a program may issue
    worst: int  # the most any of the learner's programs issued
    worst_program: str  # that program, as text ("3", "(1, 0)")
    reference: int  # the most the reference's programs issue
    mean: float = 0.0  # the learner's average over programs
    case: str = ""

    @property
    def ok(self) -> bool:
        return self.worst <= self.limit


@dataclass
class LessonResult:
    name: str
    passed: bool
    message: str  # the one sentence to show first (localized)
    stage: str = "done"  # one of STAGES: where the first problem was found
    details: list[str] = field(default_factory=list)  # every finding, most specific first
    wrong: list[WrongElements] = field(default_factory=list)
    budget: list[BudgetFigure] = field(default_factory=list)
    figures: dict[str, Any] = field(default_factory=dict)  # lesson-specific numbers (tiles per wave, ...)
    export: str = ""  # the autotune lesson: the @triton.autotune(...) text
    lang: str = "en"
    path: str = ""  # the learner's file
    line: int | None = None  # the line in it that a load/run error points at
    trace: Any = None  # kernels.data.trace.Trace of the learner's launch (None when it did not run)
    reference_trace: Any = None  # the reference solution's Trace of the same launch
    elapsed_s: float = 0.0

    def wrong_in(self, tensor: str) -> list[WrongElements]:
        return [w for w in self.wrong if w.tensor == tensor]
