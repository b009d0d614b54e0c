"""``tilescope why KERNEL``: why is it slow — findings with their evidence, most severe first, each
tied to a Triton source line where there is one, with a proposed change.

Facts read: the compile for ``--target`` (registers, spills and the line that owns them,
occupancy), the layout engine (sectors per request), the interpreter trace of the first and last
programs (masked lanes), the grid (tail, L2 reuse of a grouped matmul order); with ``--backend
gpu`` also the timing against the measured roofs. ``--try`` tries each launch-parameter proposal:
on a GPU a mini tune sweep measures it against the current values; without one each candidate is
compiled for the target and the finding's rule asked again ("checked", not measured). A code
suggestion the kernel's own source makes behind a flag (a variant file's ``BY_ROWS``) is tried
the same way, as "the kernel's own fixed variant".

Exit status: 0 done (findings or none); 1 the kernel failed to compile or run; 2 bad input.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from .common import EXIT_OK, error_exit
from .layout import _quiet_exit
from .options import add_value_args, collect_values, get_spec
from .output import to_jsonable
from .remote import compute

__all__ = ["add_parser", "advice_lines", "cmd_why"]


def add_parser(sub: Any) -> None:
    p = sub.add_parser("why", help="why is it slow: findings with evidence, source lines and proposed changes",
                       description=__doc__.split("\n\n")[0] if __doc__ else None)
    add_value_args(p)
    p.add_argument("--file", "-f", metavar="PATH", help="a kernel file or plain Triton script")
    p.add_argument("--target", "-t", default="sm_90", help="the GPU to compile for: sm_80, sm_90, … (no GPU needed)")
    p.add_argument("--try", dest="try_changes", action="store_true",
                   help="try each launch proposal (measured on a GPU; compiled and checked without one)")
    p.add_argument("--backend", "-b", choices=("interpreter", "gpu"), default="interpreter",
                   help="gpu: time the kernel and measure the proposals (default: interpreter, no timing)")
    p.add_argument("--programs", type=int, default=8, metavar="N",
                   help="programs the interpreter samples at each end of the grid (default 8)")
    p.add_argument("--seed", type=int, default=0, help="input random seed")
    p.add_argument("--json", action="store_true", help="print machine-readable JSON")
    p.add_argument("--timeout", type=float, metavar="SECONDS", help="work in a worker process, stopped after SECONDS")
    p.add_argument("--verbose", "-v", action="store_true", help="print error details")
    p.set_defaults(func=cmd_why)


def cmd_why(args: argparse.Namespace) -> int:
    from kernels.data.advice import WhyRequest

    spec = get_spec(args)
    values = collect_values(args, spec)
    req = WhyRequest(kernel=spec.name, values=values, target=args.target, user_file=args.file,
                     try_changes=args.try_changes, backend=args.backend, seed=args.seed,
                     programs=max(1, args.programs))
    res = compute("why", req, args)
    _quiet_exit()  # Triton's Gluon builder lists "leaked" objects at exit once a layout was read
    if res.error is not None:
        return error_exit(res.error, args.verbose)
    if args.json:
        out = to_jsonable(res)
        for d, f in zip(out["findings"], res.findings, strict=True):
            d["status"] = f.status  # measured / checked / not tried / suggestion
            if f.trial is not None:
                d["trial"]["gain"] = f.trial.gain
        print(json.dumps(out, indent=2, default=str))
    else:
        print("\n".join(advice_lines(res)))
    return EXIT_OK


def _trial_text(f: Any) -> str:
    t = f.trial
    if f.status == "suggestion":
        return "suggestion only (nothing to run)"
    if t is None:
        kind = "the kernel's own fixed variant" if f.proposal.kind == "variant" else "launch change"
        return f"{kind}, not tried (--try)"
    change = ", ".join(f"{k}={v}" for k, v in t.changes.items())
    if t.measured:
        return (f"measured on the GPU: {change}: {t.current_ms:.4f} -> {t.proposed_ms:.4f} ms "
                f"({t.gain:.2f}x){'' if t.passed else ', check FAILED'}")
    if t.checked:
        after = "the finding is gone" if t.after.get("resolved") else \
            ", ".join(f"{k} {v}" for k, v in t.after.items())
        return f"checked by compiling {change}: {after} (not timed)"
    return f"not tried: {t.note}"


def advice_lines(res: Any) -> list[str]:
    """The findings as text: one block each, most severe first, then what was not checked."""
    vals = ", ".join(f"{k}={v}" for k, v in res.values.items())
    out = [f"{res.kernel} ({vals}) compiled for {res.target}, {res.backend}"]
    fx = res.facts
    if fx:
        out.append(f"  {fx.get('registers')} registers, {fx.get('spills')} spilled, {fx.get('shared_bytes')} B shared, "
                   f"{fx.get('programs_per_sm')} programs per SM ({fx.get('limiter')}), {fx.get('programs')} programs "
                   f"on {fx.get('sms')} SMs")
    if not res.findings:
        out.append("no finding: nothing Tilescope can see holds this kernel back here")
    for i, f in enumerate(res.findings, 1):
        where = f" (line {f.line})" if f.line >= 0 else ""
        out.append(f"{i}. [{f.severity}] {f.title}{where}")
        if f.detail:
            out.append(f"   {f.detail}")
        out.append("   evidence: " + ", ".join(f"{k}={v}" for k, v in f.evidence.items() if v is not None))
        if f.proposal is not None:
            out.append(f"   proposal: {f.proposal.text}")
        out.append(f"   advice: {_trial_text(f)}")
    out += [f"not checked: {n}" for n in res.not_checked]
    out += [f"note: {n}" for n in res.notes]
    return out
