"""The request service: every run, sweep point and trace starts at ``prepare``.

``prepare(spec, values, backend, seed)`` validates the values, refuses a problem that does not
fit (before allocating it), builds seeded inputs — or reuses the ones of an ``InputCache`` whose
data parameters agree — and resets the outputs: floating outputs poisoned with NaN (so unwritten
elements are caught), every other output — and any the spec lists as ``inplace`` — restored to
what ``make_inputs`` made (an accumulating kernel, atomics into a histogram, starts from the same
zeros at every launch; ``x += 1`` starts from the same x). It returns a
``Prepared`` launch: its grid (from ``spec.grid``), its tensors, and ``launch(K)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import torch

from ..data.backends import AUTO
from ..data.errors import TilescopeError
from ..data.params import ValidationError
from ..specs.spec import KernelSpec
from . import check
from .backends import Backend, check_dtype, resolve
from .memory import (
    AllocationGuard,
    InputPlan,
    budgets,
    check_fits,
    largest_shape_param,
    memory_check,
    plan_inputs,
)

__all__ = ["InputCache", "Prepared", "prepare"]


@dataclass
class InputCache:
    """One set of inputs kept across runs (sweeps and autotuning vary block sizes, not data)."""

    key: Any = None
    tensors: dict[str, Any] | None = None
    initial: dict[str, Any] = field(default_factory=dict)  # non-float outputs as make_inputs made them

    def nbytes(self) -> int:
        if not self.tensors:
            return 0
        return sum(t.numel() * t.element_size() for t in self.tensors.values() if isinstance(t, torch.Tensor))

    def clear(self) -> None:
        self.key, self.tensors, self.initial = None, None, {}


@dataclass
class Prepared:
    spec: KernelSpec
    cfg: dict[str, Any]  # the validated, typed values
    backend: Backend
    seed: int
    tensors: dict[str, Any]
    grid: tuple[int, ...] | None  # from spec.grid_exprs; None when only the launch knows it
    plan: InputPlan | None
    reused: bool  # the inputs came from the cache
    notes: list[str] = field(default_factory=list)
    #: what the inputs' shapes and types depend on, the seed left out (a torch baseline's time
    #: depends on these, not on the random values); None when the inputs cannot be planned
    data_key: Any = None

    def launch(self, K: Any) -> Any:
        """Launch the kernel through ``K`` (a backend's or the tracer's) on these tensors, on the
        grid computed once in ``prepare`` (timing loops launch many times)."""
        return self.spec.run_launch(K, self.tensors, dict(self.cfg), self.grid)


def _data_key(spec: KernelSpec, cfg: dict, be: Backend, plan: InputPlan | None) -> Any:
    """Inputs can be reused across runs whose data parameters and planned tensors agree (a
    constexpr such as HEAD_DIM may shape the inputs too, hence the plan's signature) — and whose
    seeds agree: the input key is this plus the seed."""
    if plan is None:
        return None
    data_values = tuple(sorted((p.name, repr(cfg[p.name])) for p in spec.params
                               if p.kind in ("shape", "dtype", "flag")))
    return (spec.name, spec.origin, id(spec), be.device, data_values, plan.signature())


def prepare(spec: KernelSpec, values: dict[str, Any], backend: Backend | str = AUTO, seed: int = 0,
            cache: InputCache | None = None) -> Prepared:
    """Validate, check memory, build (or reuse) the inputs and reset the outputs. Raises
    ValidationError, ResourceError, InterpreterFault, BackendUnavailable: the caller reports."""
    cfg = spec.config(values)
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**63:
        raise ValidationError(f"seed {seed!r} is out of range: a whole number from 0 to 2^63 - 1", "seed")
    be = resolve(backend) if isinstance(backend, str) else backend
    notes = list(be.notes)
    for p in spec.params:
        if p.kind == "dtype":
            check_dtype(be, cfg[p.name])
    dtype = str(cfg.get("dtype", ""))
    if be.is_interpreter and dtype in spec.interpreter_faults:
        notes.append(f"known interpreter fault for {dtype}: {spec.interpreter_faults[dtype]}")
    grid = spec.grid(cfg)
    field_ = largest_shape_param(spec, cfg)
    plan = plan_inputs(spec, cfg)
    data_key = _data_key(spec, cfg, be, plan)
    key = (data_key, int(seed)) if cache is not None and data_key is not None else None
    if cache is not None and (key is None or key != cache.key):
        cache.clear()  # before the memory check: its tensors are about to be freed
    reuse = cache is not None and key is not None and cache.key == key and cache.tensors is not None
    if reuse:
        tensors, initial = cache.tensors, cache.initial  # type: ignore[union-attr]
    else:
        if plan is not None:
            memory_check(spec, plan, be, field_)
        tensors = _build(spec, cfg, be, seed, plan, field_)
        initial = {o: tensors[o].clone() for o in spec.outputs
                   if isinstance(tensors[o], torch.Tensor) and (o in spec.inplace or not tensors[o].is_floating_point())}
        if cache is not None and key is not None:
            cache.key, cache.tensors, cache.initial = key, tensors, initial
    check.poison(tensors, [o for o in spec.outputs if o not in initial])
    for name, t0 in initial.items():
        tensors[name].copy_(t0)
    return Prepared(spec, cfg, be, int(seed), tensors, grid, plan, reuse, notes, data_key)


def _build(spec: KernelSpec, cfg: dict, be: Backend, seed: int, plan: InputPlan | None,
           field_: str | None) -> dict[str, Any]:
    gen = torch.Generator().manual_seed(int(seed))
    if plan is None:  # a builder the dry run cannot follow: count as it allocates
        with AllocationGuard(budgets(be), field_):
            tensors = spec.make_inputs(dict(cfg), be.device, gen)
        check_fits(spec, tensors, be, field_)
    else:
        tensors = spec.make_inputs(dict(cfg), be.device, gen)
    missing = [o for o in spec.outputs if o not in tensors]
    if missing:
        raise TilescopeError(f"{spec.name}: make_inputs returned no output tensor {missing[0]!r}")
    return tensors
