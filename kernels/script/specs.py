"""A captured launch as a ``KernelSpec``, so every view and verb works on it unchanged.

- parameters: the launch's integer constexprs (powers of two as block sizes), flags, num_warps and
  num_stages, the autotune config (when autotuned), and the problem sizes: the distinct dimensions
  of the wrapper's tensor arguments (named after the kernel's integer argument of the same value);
- inputs: at the script's own sizes, the tensors as they were before the captured launch; at new
  sizes, the wrapper called again with random tensors of those sizes (same dtype, rank and
  layout), its launch recorded and not run;
- the grid: a ``meta`` callable is called again; a fixed tuple follows the inferred rule
  (``grid_rule``), or stays as captured, and the notes say which;
- the reference: the captured launch's outputs at the script's sizes (the golden outputs), and at
  new sizes the script's own configuration run on the same inputs.
"""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Iterator
from typing import Any

import torch

from ..data.grid import grid_of
from ..data.params import NUM_WARPS, Param, is_pow2
from ..data.script import CapturedArg, CapturedLaunch
from ..spec import KernelSpec
from .capture import LiveLaunch
from .grid_rule import infer_grid_rule

__all__ = ["spec_from_launch"]

_TOL = {torch.float16: (1e-2, 1e-2), torch.bfloat16: (5e-2, 5e-2)}


def _ints(d: dict[str, Any]) -> dict[str, int]:
    return {k: int(v) for k, v in d.items() if isinstance(v, int) and not isinstance(v, bool)}


class _Sizes:
    """The problem sizes of a launch: distinct dimensions of the wrapper's tensor arguments."""

    def __init__(self, live: LiveLaunch) -> None:
        scalars = {k: v for k, v in _ints(live.bound).items() if k not in live.constexpr_names}
        self.tensors = {k: v for k, v in live.wrapper_args.items() if isinstance(v, torch.Tensor)}
        self.names: dict[int, str] = {}  # dimension value -> parameter name
        for tname, t in self.tensors.items():
            for i, n in enumerate(t.shape):
                if int(n) in self.names:
                    continue
                match = [k for k, v in scalars.items() if v == int(n) and not k.startswith("stride")]
                name = match[0] if match else f"{tname}_dim{i}"
                self.names[int(n)] = name if name not in self.names.values() else f"{tname}_dim{i}"

    def params(self) -> list[Param]:
        return [Param(name, "shape", value, f"problem size (dimension {value} of the script's inputs)",
                      min=1, max=1 << 31) for value, name in self.names.items()]

    def captured(self, cfg: dict[str, Any]) -> bool:
        return all(cfg.get(name) == value for value, name in self.names.items())


@contextlib.contextmanager
def _launch_recorded_not_run(into: list) -> Iterator[None]:
    """``kernel[grid](...)`` records (fn, grid, args, kwargs) and launches nothing."""
    from triton.runtime import autotuner
    from triton.runtime.jit import JITFunction

    saved = JITFunction.__dict__["run"], autotuner.Autotuner.__dict__["run"]

    def run(self: Any, *args: Any, grid: Any, warmup: bool, **kwargs: Any) -> Any:
        into.append((self, grid, args, kwargs))

    def at_run(self: Any, *args: Any, **kwargs: Any) -> Any:  # the config that ran at capture
        config = getattr(self, "best_config", None) or self.configs[0]
        return self.fn.run(*args, **kwargs, **config.all_kwargs())

    JITFunction.run, autotuner.Autotuner.run = run, at_run
    try:
        yield
    finally:
        JITFunction.run, autotuner.Autotuner.run = saved


class _Ctx:
    """Stands in for an autograd ``ctx`` when a ``forward(ctx, ...)`` wrapper is re-driven."""

    def save_for_backward(self, *a: Any) -> None:
        pass


def _like(t: torch.Tensor, shape: tuple[int, ...], device: Any, gen: torch.Generator) -> torch.Tensor:
    """A random tensor of ``shape`` with ``t``'s dtype and memory layout (a transposed view stays one)."""
    order = sorted(range(t.dim()), key=lambda i: -t.stride(i)) if t.dim() else []
    base_shape = tuple(shape[i] for i in order)
    if t.is_floating_point():
        base = torch.randn(base_shape, generator=gen, dtype=torch.float32).to(t.dtype)
    elif t.dtype == torch.bool:
        base = torch.randint(0, 2, base_shape, generator=gen).bool()
    else:
        base = torch.randint(0, 8, base_shape, generator=gen).to(t.dtype)
    inverse = sorted(range(len(order)), key=lambda i: order[i])
    return base.permute(*inverse).to(device) if order else base.to(device)


def spec_from_launch(live: LiveLaunch, name: str, origin: str, record: CapturedLaunch) -> KernelSpec:
    fn = live.fn
    sizes = _Sizes(live)
    heur = set(live.heuristics)
    consts = {k: v for k, v in live.bound.items() if k in live.constexpr_names and k not in heur}
    params: list[Param] = []
    for k, v in consts.items():
        if isinstance(v, bool):
            params.append(Param(k, "flag", v, f"constexpr {k}"))
        elif isinstance(v, int):
            params.append(Param(k, "constexpr", v, f"constexpr {k}", pow2=is_pow2(v) and v > 1, min=1,
                                max=max(1 << 17, v)))
    params.append(Param("num_warps", "launch", int(live.options.get("num_warps", 4)), "warps per program (GPU only)",
                        choices=NUM_WARPS))
    params.append(Param("num_stages", "launch", int(live.options.get("num_stages", 3)),
                        "software-pipelining stages (GPU only)", min=1, max=8))
    if live.autotune_configs:
        listing = "; ".join(f"{i}: {c}" for i, c in enumerate(live.autotune_configs))
        params.append(Param("autotune_config", "constexpr", max(0, live.autotune_choice),
                            f"which @triton.autotune config runs ({listing})",
                            choices=tuple(range(len(live.autotune_configs)))))
    resizable = live.wrapper is not None and bool(sizes.tensors)
    if resizable:
        params.extend(sizes.params())
    state: dict[str, Any] = {"bytes": 0}
    outputs = tuple(live.written)

    def make_inputs(cfg: dict, device: Any, gen: torch.Generator) -> dict[str, Any]:
        if not resizable or sizes.captured(cfg):
            bound = dict(live.bound)
            for k, t in live.before.items():
                bound[k] = t.to(device, copy=True)
            grid = live.grid
        else:
            bound, grid = _redrive(live, sizes, cfg, device, gen)
        tensors = {k: v for k, v in bound.items() if isinstance(v, torch.Tensor)}
        touched = set(live.read) | set(live.written) or set(tensors)
        state["bytes"] = sum(t.numel() * t.element_size() for k, t in tensors.items() if k in touched) + \
            sum(t.numel() * t.element_size() for k, t in tensors.items() if k in live.written)
        return {**tensors, "_launch": {"bound": bound, "grid": grid}}

    def launch(K: Any, t: dict, cfg: dict) -> Any:
        kwargs, grid = _launch_args(live, t, cfg, consts)
        return K(fn)[grid](**kwargs)

    def reference(t: dict, cfg: dict) -> dict[str, torch.Tensor]:
        if not resizable or sizes.captured(cfg):
            return {k: live.after[k].to(t[k].device).double() for k in outputs}
        return _reference_run(live, t, consts, outputs)

    def tolerance(cfg: dict) -> tuple[float, float]:
        dts = [live.after[k].dtype for k in outputs if k in live.after]
        return max((_TOL.get(d, (1e-4, 1e-4)) for d in dts), default=(1e-4, 1e-4))

    names = {p.name for p in params}
    grid_exprs = _over_params(record.grid_rule, names, _ints(live.bound))
    file, line, _ = live.call_site
    return KernelSpec(
        name=name, title=f"{fn.fn.__name__} (from your script)",
        summary=f"captured at {record.call_site}" + (f" in {live.wrapper_name}()" if live.wrapper_name else ""),
        teaching=record.grid_note, kernels=(fn,), params=tuple(params), make_inputs=make_inputs,
        launch=launch, reference=reference, outputs=outputs, bytes_moved=lambda cfg: state["bytes"],
        flops=lambda cfg: 0, metric="GB/s", tolerance_fn=tolerance, origin=origin, grid_exprs=grid_exprs,
        inplace=tuple(k for k in outputs if k in live.read))


def _over_params(rule: tuple[str, ...], params: set[str], values: dict[str, int]) -> tuple[str, ...]:
    """The grid rule over parameter names only: a name that is no parameter (a size fixed by a
    module-level launch) is replaced by its captured value."""
    import re

    if not rule:
        return ()
    out = []
    for e in rule:
        for n in _names_in(e) - params:
            if n not in values:
                return ()
            e = re.sub(rf"\b{re.escape(n)}\b", str(values[n]), e)
        out.append(e)
    return tuple(out)


def _names_in(expr: str) -> set[str]:
    import ast

    return {n.id for n in ast.walk(ast.parse(expr, mode="eval")) if isinstance(n, ast.Name)} - {"cdiv", "min", "max"}


def _redrive(live: LiveLaunch, sizes: _Sizes, cfg: dict, device: Any, gen: torch.Generator) -> tuple[dict, Any]:
    """Call the wrapper again with random tensors of the new sizes; its launch, recorded."""
    args = dict(live.wrapper_args)
    for k, t in sizes.tensors.items():
        shape = tuple(int(cfg[sizes.names[int(n)]]) for n in t.shape)
        args[k] = _like(t, shape, device, gen)
    params = list(inspect.signature(live.wrapper).parameters)
    if params and params[0] == "ctx":
        args[params[0]] = _Ctx()
    calls: list = []
    with _launch_recorded_not_run(calls):
        live.wrapper(**{k: args[k] for k in params if k in args})
    mine = [c for c in calls if c[0] is live.fn]
    if not mine:
        raise ValueError(f"{live.wrapper_name}() made no launch of {live.fn.fn.__name__} at the new sizes")
    from ..interp import bind

    fn, grid, a, kw = mine[0]
    return bind(fn, a, kw), grid


def _launch_args(live: LiveLaunch, t: dict, cfg: dict, consts: dict) -> tuple[dict, Any]:
    bound = dict(t["_launch"]["bound"])
    for k in list(bound):
        if isinstance(bound[k], torch.Tensor) and k in t:
            bound[k] = t[k]
    for k in consts:
        if k in cfg:
            bound[k] = cfg[k]
    options = {k: v for k, v in live.options.items() if k not in ("num_warps", "num_stages")}
    options["num_warps"], options["num_stages"] = cfg["num_warps"], cfg["num_stages"]
    choice = cfg.get("autotune_config", live.autotune_choice)
    if live.autotune_configs and choice != live.autotune_choice:  # another config: all its values
        c = live.autotune_configs[choice]
        bound.update(c.kwargs)
        options.update({k: v for k, v in c.all_kwargs().items() if k not in c.kwargs})
    for k, h in live.heuristics.items():
        bound[k] = h(dict(bound))
    grid = t["_launch"]["grid"]
    if not callable(grid):
        rule = infer_grid_rule(tuple(live.grid3[:len(_as_tuple(live.grid))]), _ints(live.bound),
                               _ints({k: v for k, v in live.bound.items() if k in live.constexpr_names}))
        grid = grid_of(rule, _ints(bound))[:len(rule)] if rule else grid
    return {**bound, **options}, grid


def _as_tuple(g: Any) -> tuple:
    return tuple(g) if isinstance(g, (tuple, list)) else (g,)


def _reference_run(live: LiveLaunch, t: dict, consts: dict, outputs: tuple[str, ...]) -> dict[str, torch.Tensor]:
    """The script's own configuration on the same inputs (fresh copies): the reference at new sizes."""
    ref_t = {k: (v.clone() if isinstance(v, torch.Tensor) else v) for k, v in t.items()}
    cfg = {**consts, "num_warps": live.options.get("num_warps", 4), "num_stages": live.options.get("num_stages", 3),
           "autotune_config": live.autotune_choice}
    kwargs, grid = _launch_args(live, ref_t, cfg, consts)
    any_t = next(v for v in ref_t.values() if isinstance(v, torch.Tensor))
    if any_t.device.type == "cpu":
        from ..interp import AccessGuard, Interpreter

        with Interpreter([AccessGuard()]).activate([live.fn]) as K:
            K(live.fn)[grid](**kwargs)
    else:
        live.fn[grid](**kwargs)
        torch.cuda.synchronize()
    return {k: ref_t[k].double() for k in outputs}


def describe_args(live: LiveLaunch) -> list[CapturedArg]:
    out = []
    for k, v in live.bound.items():
        if isinstance(v, torch.Tensor):
            out.append(CapturedArg(k, "tensor", tuple(v.shape), str(v.dtype).replace("torch.", ""), tuple(v.stride())))
        elif k in live.constexpr_names:
            out.append(CapturedArg(k, "constexpr", value=v if isinstance(v, (int, float, str, bool)) else str(v)))
        else:
            out.append(CapturedArg(k, "scalar", value=v if isinstance(v, (int, float, str, bool)) else str(v)))
    return out
