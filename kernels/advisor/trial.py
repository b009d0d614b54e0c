"""The mini-sweep: a finding's launch proposal (and its alternatives) tried against the current
values.

On a GPU the engine's tune sweep times every candidate and the current values (interleaved
re-measurement of the fastest, ``kernels.engine.sweep``) and the trial is **measured**: the best
passing candidate's median against the current one's. Without a GPU nothing can be timed (the
interpreter's time says nothing about num_warps or L2), so each candidate is compiled for the
target and the finding's own rule is asked again at those values: the trial is **checked** —
``after`` holds that rule's evidence there, or ``{"resolved": True}`` when it no longer fires.

A code suggestion (an uncoalesced access: change the indexing at a line) has nothing to run —
unless the kernel's own source holds the fix behind a flag (a variant file's ``BY_ROWS``):
``source_variant`` flips each flag, compiles it for the target, asks the rule again and compares
the two references on the same inputs; a flag that removes the finding and computes the same
function becomes a "variant" proposal, measured (or checked) like a launch change.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..data.advice import Finding, Proposal, Trial, severity_rank
from ..data.backends import GPU
from ..data.errors import first_line
from .gather import Gathered, _add_layout, _add_spills, target_limits

__all__ = ["VARIANT_RULES", "candidates", "check_on_target", "measure", "source_variant", "variant_proposal"]

#: the rules whose code suggestion a flag of the kernel's own source may implement
VARIANT_RULES = ("uncoalesced",)
#: a flag's variant is compared with the current one on inputs of at most this many elements
#: (both references computed on the CPU); a larger launch keeps its suggestion
VARIANT_CHECK_ELEMENTS = 1 << 25


def candidates(f: Finding) -> list[dict[str, Any]]:
    """The launch changes a finding's mini-sweep tries: its proposal, then the alternatives."""
    if f.proposal is None or not f.proposal.measurable:
        return []
    return [dict(f.proposal.changes), *(dict(a) for a in f.proposal.alternatives)]


def _light(g: Gathered, cfg: dict[str, Any], rule: str) -> Gathered:
    """``g`` at ``cfg``: compiled again, with the one extra source ``rule`` reads."""
    from ..compile.target import compile_for_target

    limits = target_limits(g.target, g.limits.n_sms)
    facts, _ = compile_for_target(g.spec, cfg, g.target, keep_asm=True, limits=limits)
    h = Gathered(spec=g.spec, cfg=g.spec.config(cfg), target=g.target, facts=facts, limits=limits,
                 n_programs=facts.n_programs, source_file=g.source_file)
    if rule in ("warps", "vector_width", "uncoalesced"):
        _add_layout(h, 0, 1)
    if rule == "spills":
        _add_spills(h, 0)
    return h


def _same_function(spec: Any, a: dict[str, Any], b: dict[str, Any], seed: int = 0) -> bool:
    """The references at ``a`` and ``b`` agree on the same inputs (a flag that only changes how
    the work is done, not what is computed); False where the inputs are too large to compare."""
    import torch

    with torch.device("meta"):
        meta = spec.make_inputs(a, "meta", torch.Generator().manual_seed(seed))
    if sum(t.numel() for t in meta.values() if isinstance(t, torch.Tensor)) > VARIANT_CHECK_ELEMENTS:
        return False
    t = spec.make_inputs(a, "cpu", torch.Generator().manual_seed(seed))
    ra, rb = spec.reference(t, a), spec.reference(t, b)
    return ra.keys() == rb.keys() and all(torch.equal(ra[k], rb[k]) for k in ra)


def source_variant(g: Gathered, f: Finding) -> dict[str, Any] | None:
    """A flag of the kernel whose other value removes ``f``'s rule's findings (compiled for the
    target) and computes the same function: ``{flag: value}``; None when no flag does."""
    from .rules import RULE_FUNCTIONS

    if f.rule not in VARIANT_RULES:
        return None
    for name in [p.name for p in g.spec.params if p.kind == "flag"]:
        change = {name: not bool(g.cfg[name])}
        try:
            cfg = g.spec.config({**g.cfg, **change})
        except Exception:  # noqa: BLE001 - ValidationError: the spec refuses the flip here
            continue
        if not RULE_FUNCTIONS[f.rule](_light(g, cfg, f.rule)) and _same_function(g.spec, g.cfg, cfg):
            return change
    return None


def variant_proposal(g: Gathered, f: Finding, change: dict[str, Any]) -> Proposal:
    """``f``'s code suggestion, done by the kernel's own source at ``change`` (``source_variant``)."""
    from . import words as W

    (name, value), = change.items()
    parts = [*f.words.get("proposal", [(W.UNCO_PROPOSAL, {"line": str(f.line)})]),
             (W.VARIANT, {"flag": name, "value": str(value), "target": g.target})]
    f.words["proposal"] = parts  # the finding's texts follow its proposal
    return Proposal("".join(t.format(**v) for t, v in parts), "variant", dict(change))


#: the evidence number of each rule that is better smaller (a tie in severity goes to the smaller)
_BADNESS = {"spills": ("spill_bytes_per_thread", 1), "tail": ("efficiency", -1), "l2_reuse": ("wave_mb", 1),
            "warps": ("elements_per_thread", 1), "vector_width": ("vector_bits", -1),
            "occupancy": ("warps_pct", -1), "uncoalesced": ("efficiency", -1)}


def _score(found: list[Finding]) -> tuple[int, float]:
    """Higher is better: the least severe finding the rule still makes at the candidate (none =
    best), then the rule's own number (fewer spilled bytes, a fuller last wave, ...)."""
    if not found:
        return (len(("high", "medium", "low", "info")) + 1, 0.0)
    worst = min(found, key=lambda x: severity_rank(x.severity))
    key, sign = _BADNESS.get(worst.rule, ("", 1))
    value = worst.evidence.get(key)
    return (severity_rank(worst.severity), -sign * float(value) if isinstance(value, (int, float)) else 0.0)


def check_on_target(g: Gathered, f: Finding) -> Trial | None:
    """Compile each candidate for the target and ask ``f``'s rule again; the best candidate's
    trial (``checked``), or None when the finding proposes no launch change."""
    from .rules import RULE_FUNCTIONS

    cands = candidates(f)
    if not cands:
        return None
    rule = RULE_FUNCTIONS[f.rule]
    best: tuple[Any, ...] | None = None
    notes = []
    for i, change in enumerate(cands):
        cfg = {**g.cfg, **change}
        try:
            h = _light(g, cfg, f.rule)
            found = rule(h)
        except Exception as e:  # noqa: BLE001 - a candidate that does not compile is reported
            notes.append(f"{change}: {first_line(f'{type(e).__name__}: {e}')}")
            continue
        score = _score(found)
        if best is None or score > best[0]:
            best = (score, i, change, found)
    if best is None:
        return Trial(changes=cands[0], note="no candidate compiled: " + "; ".join(notes))
    _, _, change, found = best
    after = dict(found[0].evidence) if found else {"resolved": True}
    return Trial(changes=change, checked=True, before=dict(f.evidence), after=after, backend="compile",
                 note=(f"compiled for {g.target}; not timed (no GPU): {len(cands)} candidate(s) checked"
                       + ("; " + "; ".join(notes) if notes else "")))


def measure(g: Gathered, f: Finding, sweep: Callable[[Any], Any], backend: str = GPU) -> Trial | None:
    """Time the current values and each candidate on ``backend`` (the GPU; the interpreter times
    only wall clock, for tests of this path) through the engine's tune sweep (``sweep(SweepRequest)
    -> SweepResult``): the best passing candidate against the current."""
    from ..data.results import SweepRequest

    cands = candidates(f)
    if not cands:
        return None
    keys = sorted({k for c in cands for k in c})
    current = {k: g.cfg[k] for k in keys}
    configs = [current] + [{k: c.get(k, g.cfg[k]) for k in keys} for c in cands]
    base = {k: v for k, v in g.cfg.items() if k not in keys}
    origin = getattr(g.spec, "origin", "catalog")
    # prune=False: the current values run even where the sweep's estimate says they cannot fit (it
    # prunes a 256x128 fp32 accumulator at 4 warps, which does run: it spills)
    res = sweep(SweepRequest(kernel=g.spec.name, base=base, axes={}, backend=backend, mode="tune",
                             configs=configs, torch_baseline=False, prune=False, remeasure_top=len(configs),
                             user_file=None if origin in ("catalog", "") else origin))
    if getattr(res, "error", None) is not None and not res.points:
        return Trial(changes=cands[0], note=f"the sweep failed: {res.error.message}")
    times: dict[tuple, tuple[float, bool]] = {}
    for p in res.points:
        t = p.timing
        key = tuple(p.values.get(k, g.cfg[k]) for k in keys)
        if t is not None:
            times[key] = (t.median_ms, bool(p.result.ok))
    now = times.get(tuple(current[k] for k in keys))
    if now is None:
        return Trial(changes=cands[0], note="the current values were not timed")
    tried = [(times[tuple(c[k] for k in keys)], c) for c in configs[1:] if tuple(c[k] for k in keys) in times]
    ok = [(t, c) for t, c in tried if t[1]]
    if not ok:
        return Trial(changes=cands[0], current_ms=now[0], note="no candidate passed its check")
    (ms, passed), change = min(ok, key=lambda x: x[0][0])
    return Trial(changes={k: v for k, v in change.items() if v != current[k]}, measured=True, current_ms=now[0],
                 proposed_ms=ms, passed=passed, before=dict(f.evidence), backend=backend,
                 note=f"tune sweep on {backend}: {len(configs)} configs, the fastest re-measured interleaved")
