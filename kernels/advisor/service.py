"""``why``: the findings for one kernel at one set of values, most severe first, each launch
proposal tried when asked (``WhyRequest.try_changes``).

``advise(spec, values, target, ...)`` is the engine-side entry; ``why(request, ...)`` serves a
``WhyRequest`` and never raises (a failure is ``Advice.error``). The GPU's run and sweep are
handed in by the request's handler (``kernels.engine.handlers``): the advisor sits below the
engine and does not import it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from ..data.advice import Advice, Trial, WhyRequest
from ..data.backends import GPU, INTERPRETER
from ..data.errors import to_error_info
from .gather import gather
from .rules import run_rules
from .trial import VARIANT_RULES, candidates, check_on_target, measure, source_variant, variant_proposal

__all__ = ["GPU_ONLY", "advise", "why"]

#: what only a GPU can tell, said on the card when the interpreter serves
GPU_ONLY = ("roofline position (needs GPU timing against the measured roofs)",
            "measured tail (needs the GPU timeline; the tail here is the formula's)",
            "measured gain of each launch proposal (needs GPU timing; here each is compiled and checked)")


def advise(spec: Any, values: dict[str, Any] | None = None, target: str = "sm_90", *, try_changes: bool = False,
           seed: int = 0, programs: int = 8, run_on_gpu: Callable[[dict], Any] | None = None,
           sweep: Callable[[Any], Any] | None = None, timeline_on_gpu: Callable[[dict], Any] | None = None,
           cancel: Any = None, sampled: Any = None, trials: int | None = None) -> Advice:
    """Gather the facts, run every rule, sort the findings, and (``try_changes``) try each launch
    proposal — of the first ``trials`` findings, all when None: measured through ``sweep`` when
    given (a GPU), else compiled for the target. A code suggestion whose fix the kernel's own
    source holds behind a flag (``trial.source_variant``) becomes a "variant" proposal, tried
    like a launch change. ``sampled``: ``gather.sample`` at these values, taken already."""
    g = gather(spec, dict(values or {}), target, seed=seed, programs=programs, run_on_gpu=run_on_gpu,
               timeline_on_gpu=timeline_on_gpu, cancel=cancel, sampled=sampled)
    on_gpu = run_on_gpu is not None
    advice = Advice(kernel=spec.name, values={k: v for k, v in g.cfg.items() if not str(k).startswith("_")},
                    target=target, backend=GPU if on_gpu else INTERPRETER, source_file=g.source_file,
                    notes=list(g.notes))
    advice.findings = run_rules(g)
    advice.sort()
    f = g.facts
    advice.facts = {"registers": f.n_regs, "spills": f.n_spills, "shared_bytes": f.shared_bytes,
                    "num_warps": f.num_warps, "num_stages": f.num_stages, "programs_per_sm": f.programs_per_sm,
                    "limiter": f.occupancy_limiter, "waves": f.waves, "programs": f.n_programs, "sms": f.n_sms}
    variants: dict[str, dict[str, Any] | None] = {}  # rule -> the flag that fixes it (one search per rule)
    for finding in advice.findings:
        if finding.proposal is not None and finding.proposal.kind == "suggestion" and finding.rule in VARIANT_RULES:
            try:
                if finding.rule not in variants:
                    variants[finding.rule] = source_variant(g, finding)
                if variants[finding.rule]:
                    finding.proposal = variant_proposal(g, finding, variants[finding.rule])
            except Exception as e:  # noqa: BLE001 - the suggestion stays
                variants[finding.rule] = None
                advice.not_checked.append(f"source variants for {finding.rule}: {type(e).__name__}: {e}")
    if try_changes:
        measuring = on_gpu and sweep is not None
        tried: dict[tuple[str, str], Trial | None] = {}  # the same candidates are tried once (a check: per rule)
        for finding in advice.findings[:trials]:
            if cancel is not None and cancel():
                advice.not_checked.append("trials: cancelled")
                break
            key = ("" if measuring else finding.rule, repr(candidates(finding)))
            try:
                if key not in tried:
                    tried[key] = measure(g, finding, sweep) if measuring else check_on_target(g, finding)
                t = tried[key]
                finding.trial = None if t is None else replace(t, before=dict(finding.evidence))
            except Exception as e:  # noqa: BLE001 - the other trials still run
                advice.not_checked.append(f"trial of {finding.rule}: {type(e).__name__}: {e}")
    advice.not_checked = list(g.not_checked) + advice.not_checked + ([] if on_gpu else list(GPU_ONLY))
    return advice


def why(request: WhyRequest, run_on_gpu: Callable[[dict], Any] | None = None,
        sweep: Callable[[Any], Any] | None = None, timeline_on_gpu: Callable[[dict], Any] | None = None,
        cancel: Any = None) -> Advice:
    """Serve a ``WhyRequest``; never raises."""
    from ..sources.lookup import get_spec

    try:
        spec = get_spec(request.kernel, request.user_file)
        advice = advise(spec, request.values, request.target, try_changes=request.try_changes, seed=request.seed,
                        programs=request.programs, run_on_gpu=run_on_gpu, sweep=sweep,
                        timeline_on_gpu=timeline_on_gpu, cancel=cancel)
    except Exception as e:  # noqa: BLE001 - every failure is reported
        advice = Advice(kernel=request.kernel, values=dict(request.values), target=request.target,
                        backend=request.backend, error=to_error_info(e, "advising"))
    advice.generation = request.generation
    return advice
