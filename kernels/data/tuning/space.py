"""The space a sweep walks: axes (a cartesian product) and/or explicit configs, minus what the
``where`` constraints exclude and the points already done. Pure Python (no torch, no triton), so
the GUI process can count a space before it asks the worker to run it.

A point is a dict of the varied parameters' typed values. Launch options (``num_warps``,
``num_stages``, ``maxnreg``, ``num_ctas``) may be varied even when the spec has no such
parameter; they are then passed to the launch directly.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..params import Param, Rule, ValidationError

__all__ = ["LAUNCH_OPTIONS", "MAX_POINTS", "Space", "build_space", "check_where", "normalize"]

#: Triton launch options a sweep may vary (the interpreter ignores all of them)
LAUNCH_OPTIONS: tuple[str, ...] = ("num_warps", "num_stages", "maxnreg", "num_ctas")
#: combinations enumerated at most (before ``where``): a larger space is refused, not truncated
MAX_POINTS = 100_000


@dataclass
class Space:
    names: list[str]  # the varied parameters: the axes in order, then the configs' other keys
    points: list[dict[str, Any]]  # each point's values for ``names`` (typed where they parse)
    indices: list[int]  # each point's position in the full enumeration
    filtered: int = 0  # removed by ``where``
    skipped: int = 0  # removed by ``skip`` (already done)


def normalize(params: Mapping[str, Param], name: str, value: Any) -> Any:
    """A value as the spec parses it, so that "128" and 128 name the same point. A value that
    does not parse stays as given: the run reports it against its field."""
    p = params.get(name)
    if p is None:
        if name in LAUNCH_OPTIONS and isinstance(value, str):
            try:
                return int(value.strip(), 0)
            except ValueError:
                return value
        return value
    try:
        return p.parse(value)
    except ValidationError:
        return value


def check_where(where: Iterable[str]) -> list[Rule]:
    """The constraints as rules; a malformed one is a ValidationError naming it."""
    rules = []
    for expr in where:
        if not isinstance(expr, str) or not expr.strip():
            raise ValidationError(f"an empty constraint in where: {expr!r}", "where")
        r = Rule(expr.strip(), expr.strip())
        try:
            r.holds({})
        except NameError:
            pass  # names are checked against each point's values
        except SyntaxError as e:
            raise ValidationError(f"where {expr!r}: not an expression ({e.msg})", "where") from None
        except ValueError as e:
            raise ValidationError(f"where {expr!r}: {e}", "where") from None
        except Exception:  # noqa: BLE001 - e.g. a comparison of names not given yet
            pass
        rules.append(r)
    return rules


def _holds(rule: Rule, env: Mapping[str, Any]) -> bool:
    try:
        return rule.holds(env)
    except NameError as e:
        raise ValidationError(f"where {rule.expr!r}: {e} (known: {', '.join(sorted(env))})", "where") from None
    except Exception as e:  # noqa: BLE001 - a type error on some point's values
        raise ValidationError(f"where {rule.expr!r} failed on {_short(env)}: {type(e).__name__}: {e}",
                              "where") from None


def _short(values: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in values.items())


def build_space(params: Sequence[Param], base: Mapping[str, Any], axes: Mapping[str, Sequence[Any]],
                configs: Sequence[Mapping[str, Any]] = (), where: Iterable[str] = (),
                skip: Sequence[Mapping[str, Any]] = ()) -> Space:
    """Enumerate the points: every combination of ``axes`` (in their order, the last varying
    fastest), each combined with every config of ``configs``; then drop the points whose
    ``where`` is false and those in ``skip``. Raises ValidationError for an unknown name, an
    empty axis, a name both in the axes and a config, a bad constraint or a too-large space."""
    by_name = {p.name: p for p in params}
    known = set(by_name) | set(LAUNCH_OPTIONS)
    names = list(axes)
    for c in configs:
        for k in c:
            if k in axes:
                raise ValidationError(f"{k} is both an axis and a key of configs: give it in one place", k)
            if k not in names:
                names.append(k)
    for n in names:
        if n not in known:
            raise ValidationError(f"unknown parameter {n!r} (known: {', '.join(sorted(by_name))})", n)
    for n, vals in axes.items():
        if not vals:
            raise ValidationError(f"no values to sweep for {n}", n)
    total = math.prod(len(v) for v in axes.values()) * max(1, len(configs))
    if total > MAX_POINTS:
        raise ValidationError(f"the space has {total:,} combinations (at most {MAX_POINTS:,}): "
                              "give fewer values or explicit configs", names[0] if names else None)
    rules = check_where(where)
    fixed = {p.name: p.default for p in params}
    fixed.update({k: normalize(by_name, k, v) for k, v in base.items()})
    done = {tuple(normalize(by_name, n, s.get(n)) for n in names) for s in skip}
    out = Space(names=names, points=[], indices=[])
    combos = itertools.product(*(axes[n] for n in axes))
    for i, (combo, cfg) in enumerate(itertools.product(combos, list(configs) or [{}])):
        point = {n: normalize(by_name, n, v) for n, v in zip(axes, combo, strict=True)}
        point.update({k: normalize(by_name, k, v) for k, v in cfg.items()})
        env = {**fixed, **point}
        values = {n: env.get(n) for n in names}
        if not all(_holds(r, env) for r in rules):
            out.filtered += 1
            continue
        if tuple(values[n] for n in names) in done:
            out.skipped += 1
            continue
        out.points.append(values)
        out.indices.append(i)
    return out
