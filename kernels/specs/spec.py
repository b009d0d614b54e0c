"""The vocabulary of the engine: ``KernelSpec`` and the registry that collects them.

A spec bundles what Tilescope needs to run, check, time and explain one kernel:

- ``kernels``: the ``@triton.jit`` functions (the first is the one whose source is shown first);
- ``params`` / ``rules``: what the user may change, and the constraints (see ``kernels.data.params``);
- ``make_inputs(cfg, device, gen)``: a dict of named tensors, inputs *and* outputs (outputs are
  allocated here and poisoned with NaN by the engine before each launch);
- ``grid_exprs``: the grid, one expression per dimension over the parameter names, as the
  tutorials write ``grid = lambda meta: (triton.cdiv(n, meta['BLOCK_SIZE']),)``:
  ``("cdiv(N, BLOCK_SIZE)",)`` (``kernels.data.grid``). ``spec.grid(values)`` evaluates it, so the
  program count is known before any launch (the GUI evaluates the same text);
- ``launch(K, t, cfg, grid)``: launches the kernel on ``grid``; ``K(jit_fn)`` turns a jit
  function into what the chosen backend runs (the JITFunction itself on the GPU, an interpreted
  launch on the CPU, a recording one for the tracer), so one launcher serves every backend.
  Returns what ``K(fn)[grid](...)`` returned (a CompiledKernel on the GPU). A launcher of three
  arguments ``(K, t, cfg)`` (older user files, specs without ``grid_exprs``) computes its own;
- ``reference(t, cfg)``: the expected outputs, ``{name: tensor}``, computed in higher precision;
- ``torch_op(t, cfg)``: the torch equivalent for timing side by side (None when there is none);
- ``bytes_moved(cfg)`` / ``flops(cfg)``: the model used for GB/s and TFLOP/s;
- ``metric``: which of the two the plots show.

Specs register with ``@register`` (a decorator returning its argument) or ``register(spec)``;
user kernel files do the same.
"""

from __future__ import annotations

import inspect
import textwrap
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..data.grid import grid_of
from ..data.params import Param, Rule, Validation, ValidationError, validate
from ..data.results import KernelInfo

__all__ = ["KernelSpec", "Registry", "REGISTRY", "register", "jit_source"]

#: (atol, rtol) per input dtype for outputs compared against a float64 reference.
DEFAULT_TOLERANCES: dict[str, tuple[float, float]] = {
    "fp32": (1e-4, 1e-4),
    "fp16": (1e-2, 1e-2),
    "bf16": (5e-2, 5e-2),
}


@dataclass
class KernelSpec:
    name: str
    title: str
    summary: str
    kernels: tuple[Any, ...]  # triton JITFunctions
    params: tuple[Param, ...]
    make_inputs: Callable[[dict, Any, Any], dict]
    launch: Callable[[Callable, dict, dict], Any]
    reference: Callable[[dict, dict], dict]
    outputs: tuple[str, ...]
    bytes_moved: Callable[[dict], int]
    flops: Callable[[dict], int]
    metric: str = "GB/s"
    torch_op: Callable[[dict, dict], Any] | None = None
    rules: tuple[Rule, ...] = ()
    teaching: str = ""
    tolerances: dict[str, tuple[float, float]] = field(default_factory=lambda: dict(DEFAULT_TOLERANCES))
    #: configs tried by the engine's own autotuning (dicts of param values), GPU only
    autotune_configs: tuple[dict, ...] = ()
    #: rows of ``bench --all`` on the GPU: each a dict of parameter overrides; a kernel's ratio
    #: against torch is summarized as the median over its rows (softmax over several widths)
    bench_cases: tuple[dict, ...] = ()
    #: (atol, rtol) for a given config when the dtype table is not enough (e.g. grows with K)
    tolerance_fn: Callable[[dict], tuple[float, float]] | None = None
    #: dtypes whose interpreter results are known to be wrong on some Triton versions; value = why
    interpreter_faults: dict[str, str] = field(default_factory=dict)
    origin: str = "catalog"
    #: the grid, one expression per dimension over the parameter names (see the module doc)
    grid_exprs: tuple[str, ...] = ()
    #: outputs the kernel also reads (``x += 1`` in place): restored to their built content before
    #: each launch instead of poisoned with NaN
    inplace: tuple[str, ...] = ()

    # -- the grid and the launch ----------------------------------------------------------------
    def grid(self, values: Mapping[str, Any]) -> tuple[int, ...] | None:
        """The launch grid for ``values`` (as many sizes as ``grid_exprs`` has), before any
        launch; None when the spec states no grid."""
        if not self.grid_exprs:
            return None
        return grid_of(self.grid_exprs, values)[:len(self.grid_exprs)]

    def run_launch(self, K: Callable, tensors: dict, cfg: dict, grid: tuple[int, ...] | None = None) -> Any:
        """Call the launcher with ``grid`` (default: from ``grid_exprs``), or let a 3-argument
        launcher compute its own."""
        grid = self.grid(cfg) if grid is None else grid
        if grid is None or _arity(self.launch) == 3:
            return self.launch(K, tensors, cfg)
        return self.launch(K, tensors, cfg, grid)

    # -- parameters -----------------------------------------------------------------------------
    def defaults(self) -> dict[str, Any]:
        return {p.name: p.default for p in self.params}

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)

    def validate(self, given: Mapping[str, Any]) -> Validation:
        return validate(self.params, self.rules, given)

    def config(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """Validated, typed values; raises ValidationError naming the first bad field."""
        v = self.validate(given)
        if not v.ok:
            raise v.first_error()  # type: ignore[misc]
        return dict(v.values)

    def tolerance(self, cfg: Mapping[str, Any]) -> tuple[float, float]:
        if self.tolerance_fn is not None:
            return self.tolerance_fn(dict(cfg))
        return self.tolerances.get(cfg.get("dtype", "fp32"), DEFAULT_TOLERANCES["fp32"])

    # -- presentation ---------------------------------------------------------------------------
    def source(self) -> tuple[str, str, int]:
        """(source text of all jit functions, file, first line number)."""
        texts, file, first = [], "", 0
        for k in self.kernels:
            text, f, line = jit_source(k)
            if not texts:
                file, first = f, line
            texts.append(text)
        return "\n\n".join(texts), file, first

    def info(self) -> KernelInfo:
        src, file, first = self.source()
        return KernelInfo(
            name=self.name, title=self.title, summary=self.summary, teaching=self.teaching,
            params=tuple(self.params), rules=tuple(self.rules), source=src, source_file=file,
            source_first_line=first, metric=self.metric, outputs=tuple(self.outputs), origin=self.origin,
            grid_exprs=tuple(self.grid_exprs),
        )


def _arity(fn: Callable) -> int:
    try:
        return len(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return 4


def jit_source(k: Any) -> tuple[str, str, int]:
    fn = getattr(k, "fn", k)
    try:
        lines, first = inspect.getsourcelines(fn)
        file = inspect.getsourcefile(fn) or ""
    except (OSError, TypeError):
        return getattr(k, "src", ""), "", 0
    return textwrap.dedent("".join(lines)), file, first


class Registry:
    """Collects specs by name. ``@REGISTRY`` / ``register(spec)`` adds and returns the spec."""

    def __init__(self) -> None:
        self._specs: dict[str, KernelSpec] = {}

    def __call__(self, spec: KernelSpec) -> KernelSpec:
        self._specs[spec.name] = spec
        return spec

    def get(self, name: str) -> KernelSpec:
        try:
            return self._specs[name]
        except KeyError:
            known = ", ".join(sorted(self._specs)) or "none"
            raise ValidationError(f"unknown kernel {name!r} (known: {known})", "kernel") from None

    def __contains__(self, name: str) -> bool:
        return name in self._specs

    def __iter__(self) -> Iterator[KernelSpec]:
        return iter(list(self._specs.values()))

    def __len__(self) -> int:
        return len(self._specs)

    def names(self) -> list[str]:
        return list(self._specs)

    def remove(self, name: str) -> None:
        self._specs.pop(name, None)


REGISTRY = Registry()
register = REGISTRY
