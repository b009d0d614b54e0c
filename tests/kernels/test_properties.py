"""Property tests: for every catalog kernel, hypothesis draws parameter values and shapes (mostly
valid, sometimes with one bad value, sometimes typed as text the way the GUI and CLI pass them)
and runs them on the interpreter. Either validation accepts them and the run passes its
correctness check, or the run is refused with a reason (an ErrorInfo with a message, naming the
field) — never an unhandled exception (which the engine would report as kind "internal").

If this fails, some corner of a kernel's parameter space gives a wrong answer, or a value the
panel lets through crashes inside the engine. The failing example is printed; it is small.
Examples are derandomized (the same on every run) and sized for the interpreter.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from kernels import engine
from kernels.data.params import Param
from kernels.data.results import RunRequest
from kernels.run import backends
from kernels.specs.spec import REGISTRY

engine.load_catalog()
CATALOG = sorted(s.name for s in REGISTRY if s.origin == "catalog")

#: the largest shape drawn, per parameter (the interpreter runs ~1 ms per program): default 96
SHAPE_CAP = {"N": 96, "M": 48, "K": 80, "BATCH": 2, "HEADS": 2, "N_CTX": 80}
ELEMENTWISE_N = 300  # 1-D kernels: up to 300 elements (300 programs when BLOCK_SIZE is 1)
BLOCK_CAP = 128


def _is_1d(spec) -> bool:
    return [p.name for p in spec.params if p.kind == "shape"] == ["N"]


def _valid(spec, p: Param) -> st.SearchStrategy:
    if p.kind == "shape":
        return st.integers(1, ELEMENTWISE_N if _is_1d(spec) else SHAPE_CAP.get(p.name, 96))
    if p.kind == "dtype":
        # bf16 is refused while this Triton's interpreter gets it wrong: drawn as a bad value then
        ok = tuple(d for d in p.choices or () if d != "bf16" or backends.bf16_probe().ok)
        return st.sampled_from(ok)
    if p.choices is not None:
        return st.sampled_from(tuple(p.choices))
    if p.kind == "flag":
        return st.booleans()
    if p.pow2:
        lo, hi = p.min or 1, min(p.max or BLOCK_CAP, BLOCK_CAP)
        return st.sampled_from([1 << k for k in range(12) if lo <= 1 << k <= hi])
    return st.integers(p.min if p.min is not None else 0, p.max if p.max is not None else 8)


def _invalid(p: Param) -> st.SearchStrategy:
    if p.kind == "shape":
        return st.sampled_from([0, -3, "many", 2.5])
    if p.kind == "dtype":
        return st.sampled_from(["fp64", "int8", ""] + (["bf16"] if "bf16" in (p.choices or ()) else []))
    if p.kind == "flag":
        return st.sampled_from(["maybe", 2])
    bad: list = ["abc", -1]
    if p.choices is not None:
        bad += [3, 64, 0]
    if p.pow2:
        bad += [0, 3 * (p.min or 1) + 1]
    if p.min is not None:
        bad.append(p.min - 1)
    if p.max is not None:
        bad.append(p.max * 2)
    return st.sampled_from(bad)


def _as_text(v):
    return str(v).lower() if isinstance(v, bool) else str(v)


@pytest.mark.parametrize("name", CATALOG)
@settings(max_examples=40, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_any_values_pass_or_are_refused_with_a_reason(name, data):
    spec = REGISTRY.get(name)
    values = {p.name: data.draw(_valid(spec, p), label=p.name) for p in spec.params}
    if data.draw(st.integers(0, 3), label="one bad value?") == 0:
        p = data.draw(st.sampled_from(spec.params), label="bad parameter")
        values[p.name] = data.draw(_invalid(p), label=f"bad {p.name}")
    if data.draw(st.booleans(), label="typed as text"):
        values = {k: _as_text(v) for k, v in values.items()}

    v = spec.validate(values)
    r = engine.run(RunRequest(name, values, backend="interpreter", bench=False, torch_baseline=False,
                              compile_facts=False, keep_asm=False))
    e = r.error
    assert e is None or e.kind != "internal", f"{values}: unhandled {e.message}\n{e.detail}"
    if not v.ok:
        assert e is not None and e.kind == "validation" and e.message, (values, e)
        assert e.field == v.first_error().field, (values, e)
        event("refused by validation")
        return
    if e is not None and e.kind == "interpreter" and e.field == "dtype":
        assert not backends.bf16_probe().ok  # bf16 refused because this interpreter gets it wrong
        event("bf16 refused on the interpreter")
        return
    assert e is None, f"{values}: {e.kind}: {e.message}"
    assert r.check is not None and r.check.passed, f"{values}: {r.check.reason}"
    assert r.check.n_unwritten == 0 and r.grid
    event("ran and passed")
