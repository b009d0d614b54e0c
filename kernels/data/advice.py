"""Why is it slow: the advisor's findings, each with its evidence, its source line and a proposed
change, and what trying that change gave.

GUI-safe (standard library only). The engine (``kernels.advisor``) fills these from facts
Tilescope already has — the compile for a target (registers, spills, shared memory, occupancy),
the layout engine (sectors per request), the interpreter trace (masked lanes), the grid formula
(waves, tail) and, on a GPU, the timing against the measured roofs; ``tilescope why`` and the
window's Advice card only read them.

Vocabulary:

- a **finding** names one cause (``rule``), how much it likely costs (``severity``), the numbers
  that show it (``evidence``), where it is (``line`` in ``Advice.source_file``; -1 none) and what
  shows it in the window (``shows``: the source line, the timeline, the Threads tab's access, the
  grid or the compile facts);
- a **proposal** is a change: new launch-parameter values (``changes``: a block size,
  ``num_warps``, ``num_stages``, ``GROUP_SIZE_M``: ``kind`` "launch", which can be measured) or a
  named fix at a line (``kind`` "suggestion": a mask, a stride; nothing to run) — or that fix as
  the kernel's own source holds it behind a flag (``kind`` "variant": measurable like a launch);
- a **trial** is a launch proposal tried against the current values: ``measured`` on a GPU (the
  tune sweep's interleaved re-measurement, ``gain`` = current time / proposed time), or
  ``checked`` without one (compiled for the target: the fact the finding named, before and after).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .backends import INTERPRETER

__all__ = ["RULES", "SEVERITIES", "SHOWS", "Advice", "Finding", "Proposal", "Trial", "WhyRequest",
           "severity_rank"]

#: most to least costly
SEVERITIES = ("high", "medium", "low", "info")

#: the rules, in the order a tie in severity is broken (the likelier first cause first)
RULES = ("spills", "uncoalesced", "warps", "occupancy", "tail", "l2_reuse", "vector_width", "masked_lanes",
         "roofline")

#: what shows a finding's evidence in the window
SHOWS = ("source", "timeline", "threads", "grid", "compile")


def severity_rank(severity: str) -> int:
    """0 for "high" … 3 for "info" (unknown: after all)."""
    return SEVERITIES.index(severity) if severity in SEVERITIES else len(SEVERITIES)


@dataclass(frozen=True)
class Proposal:
    """A change the finding proposes: ``changes`` (parameter -> new value; empty for a
    suggestion), ``kind`` "launch" (measurable by running it), "suggestion" (a named fix at a
    line) or "variant" (that fix as a flag of the kernel's own source: measurable), and ``text``
    (one sentence: what to change and why it helps)."""

    text: str
    kind: str = "suggestion"  # "launch" | "suggestion" | "variant"
    changes: dict[str, Any] = field(default_factory=dict)
    #: other launch changes the mini-sweep tries beside ``changes`` (the best one is reported)
    alternatives: tuple[dict[str, Any], ...] = ()

    @property
    def measurable(self) -> bool:
        return self.kind in ("launch", "variant") and bool(self.changes)


@dataclass
class Trial:
    """A launch proposal tried against the current values.

    ``measured``: timed on a GPU (``current_ms`` / ``proposed_ms`` medians of the interleaved
    re-measurement; ``gain`` = current / proposed, > 1 faster). ``checked``: not timed, but the
    proposal was compiled for the target and ``before`` / ``after`` hold the facts the finding
    named (spills, programs per SM, tail efficiency, bytes per wave …). ``note``: what was done or
    why nothing could be."""

    changes: dict[str, Any]
    measured: bool = False
    checked: bool = False
    current_ms: float | None = None
    proposed_ms: float | None = None
    before: dict[str, Any] = field(default_factory=dict)
    after: dict[str, Any] = field(default_factory=dict)
    passed: bool | None = None  # the proposed run's check against the reference (measured trials)
    backend: str = ""
    note: str = ""

    @property
    def gain(self) -> float | None:
        if self.current_ms and self.proposed_ms:
            return self.current_ms / self.proposed_ms
        return None


@dataclass
class Finding:
    """One cause, with its evidence. ``evidence``: name -> number or short text (what a user can
    check); ``line``: the Triton source line (-1 when none); ``access``: the layout access index
    (``LayoutResult.accesses``) for a coalescing or vector finding (-1 none); ``needs_gpu``: the
    finding was (or would be) made from GPU timings."""

    rule: str
    title: str
    severity: str
    detail: str = ""
    evidence: dict[str, Any] = field(default_factory=dict)
    line: int = -1
    shows: str = "source"
    access: int = -1
    proposal: Proposal | None = None
    trial: Trial | None = None
    needs_gpu: bool = False
    #: the texts as fragments for the window's translation: field ("title", "detail",
    #: "proposal") -> [(English template, {placeholder: value as text})], joined = the English
    words: dict[str, list[tuple[str, dict[str, str]]]] = field(default_factory=dict)

    @property
    def status(self) -> str:
        """What became of the advice: "measured", "checked" (compiled, not timed), "not tried"
        (a launch change nobody ran yet) or "suggestion"."""
        if self.proposal is None or not self.proposal.measurable:
            return "suggestion"
        if self.trial is not None and self.trial.measured:
            return "measured"
        if self.trial is not None and self.trial.checked:
            return "checked"
        return "not tried"


@dataclass(frozen=True)
class WhyRequest:
    """``tilescope why`` / the Advice card: ``kernel`` at ``values`` compiled for ``target``;
    ``try_changes``: run the mini-sweep of each launch proposal; ``backend``: "interpreter" (no
    timing: compile, trace and layout findings; launch proposals checked by compiling them) or
    "gpu"; ``programs``: how many programs at each end of the grid the interpreter samples."""

    kernel: str
    values: dict[str, Any] = field(default_factory=dict)
    target: str = "sm_90"
    user_file: str | None = None
    try_changes: bool = False
    backend: str = INTERPRETER
    seed: int = 0
    programs: int = 8
    generation: int = 0


@dataclass
class Advice:
    """The findings for one kernel at one set of values, most severe first; ``not_checked``: what
    could not be looked at here and why (a rule that needs a GPU on the CPU, a trace that
    failed); ``facts``: the compile facts' headline numbers; ``error`` (an ``ErrorInfo``) when
    nothing could be found at all."""

    kernel: str
    values: dict[str, Any]
    target: str
    backend: str
    findings: list[Finding] = field(default_factory=list)
    not_checked: list[str] = field(default_factory=list)
    facts: dict[str, Any] = field(default_factory=dict)
    source_file: str = ""
    notes: list[str] = field(default_factory=list)
    error: Any = None
    generation: int = 0

    @property
    def first(self) -> Finding | None:
        """The likeliest cause: the most severe finding (ties: ``RULES`` order)."""
        return self.findings[0] if self.findings else None

    def high(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "high"]

    def sort(self) -> None:
        """Most severe first; ties in ``RULES`` order."""
        self.findings.sort(key=lambda f: (severity_rank(f.severity),
                                          RULES.index(f.rule) if f.rule in RULES else len(RULES)))
