"""A captured launch as a ``KernelSpec``, so every view and verb works on it unchanged.

- parameters: the launch's integer constexprs (powers of two as block sizes), flags, num_warps and
  num_stages (a kernel parameter of either name is that one parameter), the autotune config (when
  autotuned), and the problem sizes: the dimensions of the wrapper's tensor arguments, one size
  per value unless calling the wrapper again shows them independent (a square matmul's M, N, K),
  named after the kernel integer each becomes (else the wrapper's local of that value);
- inputs: at the script's own sizes, the tensors as they were before the captured launch; at new
  sizes, the wrapper called again with random tensors of those sizes (same dtype, rank and
  layout), its launch recorded and not run (a ``kernel.warmup`` in it included); a wrapper that
  cannot be called again (an autograd ``backward``) keeps the sizes fixed, and says why;
- the grid: a ``meta`` callable is called again; a fixed tuple follows the inferred rule
  (``grid_rule``), or stays as captured, and the notes say which;
- the reference: the captured launch's outputs at the script's sizes (the golden outputs), and at
  new sizes the script's own configuration run on the same inputs.
"""

from __future__ import annotations

import contextlib
import inspect
import io
from collections.abc import Iterator
from typing import Any

import torch

from ..data.grid import grid_of
from ..data.params import NUM_WARPS, Param, is_pow2
from ..data.script import CapturedArg, CapturedLaunch
from ..specs.spec import KernelSpec
from . import descriptors, global_state, pointer_tables
from .capture import LiveLaunch, _OutOfTime, _time_budget, warm_kernel
from .cuda_on_cpu import cuda_on_cpu
from .grid_rule import infer_grid_rule, is_stride

__all__ = ["spec_from_launch"]

_TOL = {torch.float16: (1e-2, 1e-2), torch.bfloat16: (5e-2, 5e-2)}


def _ints(d: dict[str, Any]) -> dict[str, int]:
    return {k: int(v) for k, v in d.items() if isinstance(v, int) and not isinstance(v, bool)}


#: the launch options a size or a kernel's own constexpr may not be named after
_LAUNCH_OPTIONS = ("num_warps", "num_stages")
#: how long calling the wrapper again to find the sizes may take, in all, when the script is opened
_PROBE_BUDGET_S = 20.0

Dim = tuple[str, int]  # (tensor argument of the wrapper, dimension)


class _Sizes:
    """The problem sizes of a launch: the dimensions of the wrapper's tensor arguments, one size
    per value (dimensions of one value change together), split where calling the wrapper again
    shows them independent (``_split``: a square matmul's M, N, K). Each is named after the
    kernel's integer argument it becomes (not a stride), else the wrapper's integer local of that
    value (``M, N = x.shape``), else ``<tensor>_dim<i>``. ``error`` says why the wrapper cannot
    be called again, or not within ``_PROBE_BUDGET_S`` (then there are no sizes to change)."""

    def __init__(self, live: LiveLaunch) -> None:
        self.live = live
        self.tensors = {k: v for k, v in live.wrapper_args.items() if isinstance(v, torch.Tensor)}
        self.groups: list[tuple[str, int, list[Dim]]] = []  # name, value at capture, its dimensions
        self.error = ""
        if live.wrapper is None or not self.tensors:
            return
        try:
            with _time_budget(_PROBE_BUDGET_S):
                self._find()
        except _OutOfTime:
            self.groups, self.error = [], f"{live.wrapper_name}() took over {_PROBE_BUDGET_S:g} s to call again here"
        except Exception as e:  # noqa: BLE001 - the script's own code: any failure means "fixed sizes"
            self.error = f"{live.wrapper_name}() could not be called again here ({type(e).__name__}: {e})"

    def _find(self) -> None:
        _redrive(self.live, self.shapes({}), self._device(), None)  # can it be called again at all?
        by_value: dict[int, list[Dim]] = {}
        for tname, t in self.tensors.items():
            for i, n in enumerate(t.shape):
                by_value.setdefault(int(n), []).append((tname, i))
        taken = set(self.live.constexpr_names) | set(_LAUNCH_OPTIONS) | {"autotune_config"}
        for value, dims in by_value.items():
            for block, kernel_name in self._split(value, dims):
                self.groups.append((self._name(value, block, kernel_name, taken), value, block))
                taken.add(self.groups[-1][0])

    # -- what the rest of the spec asks ------------------------------------------------------------
    def params(self) -> list[Param]:
        return [Param(name, "shape", value, f"problem size ({_dims_text(dims)}, {value} in the script)",
                      min=1, max=1 << 31) for name, value, dims in self.groups]

    def values(self) -> dict[str, int]:
        return {name: value for name, value, _ in self.groups}

    def captured(self, cfg: dict[str, Any]) -> bool:
        return all(cfg.get(name, value) == value for name, value, _ in self.groups)

    def shapes(self, sizes: dict[Dim, int]) -> dict[str, tuple[int, ...]]:
        """Each tensor's shape with the dimensions in ``sizes`` changed."""
        return {k: tuple(sizes.get((k, i), int(n)) for i, n in enumerate(t.shape)) for k, t in self.tensors.items()}

    def shapes_for(self, cfg: dict[str, Any]) -> dict[str, tuple[int, ...]]:
        return self.shapes({d: int(cfg.get(name, value)) for name, value, dims in self.groups for d in dims})

    def grid_samples(self, want: int = 2) -> list[tuple[tuple[int, ...], dict[str, int], dict[str, int], dict[str, int]]]:
        """The grids the wrapper computes at ``want`` other sizes (small ones, each size its own
        value so that rules over different sizes disagree): (grid, the kernel's integers, its
        constexprs, the sizes by name) each — none where the wrapper cannot be called again, or
        its grid is a callable, or it refuses every size tried. Computed once."""
        if getattr(self, "_samples", None) is None:
            self._samples = self._grid_samples(want)
        return self._samples

    def _grid_samples(self, want: int) -> list[tuple[tuple[int, ...], dict[str, int], dict[str, int], dict[str, int]]]:
        out: list[tuple[tuple[int, ...], dict[str, int], dict[str, int], dict[str, int]]] = []
        if self.error or not self.groups:
            return out
        tries = [lambda i, v, k=k: 48 * k + 16 * i + 5 for k in (1, 2)] + \
                [lambda i, v, k=k: 64 * (k + i + 1) for k in (1, 2)] + \
                [lambda i, v, k=k: v * (k + 1 + i) for k in (1, 2)]
        try:
            with _time_budget(_PROBE_BUDGET_S):
                for new in tries:
                    if len(out) >= want:
                        break
                    sizes = {d: new(i, value) for i, (_, value, dims) in enumerate(self.groups) for d in dims}
                    shapes = self.shapes(sizes)
                    if sum(_numel(sh) for sh in shapes.values()) > 1 << 24:
                        continue  # the probe allocates them (uninitialised): keep it small
                    try:
                        bound, grid = _redrive(self.live, shapes, self._device(), None)
                    except _OutOfTime:
                        raise
                    except Exception:  # noqa: BLE001 - the wrapper refused these sizes
                        continue
                    if callable(grid):
                        return []
                    ints = _ints(bound)
                    consts = {k: v for k, v in ints.items() if k in self.live.constexpr_names}
                    named = {name: new(i, value) for i, (name, value, _) in enumerate(self.groups)}
                    out.append((tuple(int(g) for g in _as_tuple(grid)),
                                {k: v for k, v in ints.items() if k not in consts}, consts, named))
        except _OutOfTime:
            pass
        return out

    # -- naming and splitting ----------------------------------------------------------------------
    def _device(self) -> Any:
        return next(iter(self.tensors.values())).device

    def _scalars(self, bound: dict[str, Any]) -> dict[str, int]:
        return {k: v for k, v in _ints(bound).items() if k not in self.live.constexpr_names and not is_stride(k)}

    def _name(self, value: int, block: list[Dim], kernel_name: str | None, taken: set[str]) -> str:
        scalars = self._scalars(self.live.bound)
        local = [k for k, v in self.live.wrapper_ints.items()
                 if v == value and not is_stride(k) and k not in self.live.bound]
        candidates = ([kernel_name] if kernel_name else []) + [k for k, v in scalars.items() if v == value] + local
        fresh = [c for c in candidates if c not in taken]
        return fresh[0] if fresh else f"{block[0][0]}_dim{block[0][1]}"

    def _probe(self, sizes: dict[Dim, int], value: int, new: int) -> tuple[bool, list[str]]:
        """Call the wrapper with the dimensions in ``sizes`` changed (empty tensors, the launch
        recorded): did it accept them, and which of the kernel's integers went from ``value`` to
        ``new``."""
        try:
            bound, _ = _redrive(self.live, self.shapes(sizes), self._device(), None)
        except _OutOfTime:
            raise  # the budget of the whole probe: not a refusal of these sizes
        except Exception:  # noqa: BLE001 - the wrapper refused these sizes (an assert, a shape check)
            return False, []
        was = self._scalars(self.live.bound)
        return True, [k for k, v in self._scalars(bound).items() if v == new and was.get(k) == value]

    def _split(self, value: int, dims: list[Dim]) -> list[tuple[list[Dim], str | None]]:
        """The dimensions of one value, in blocks that change independently, each with the kernel
        integer it becomes: a dimension the kernel takes alone is its own size; the others change
        together, as one more size where the kernel takes them (a matmul's shared K), else with
        the one size found (a second operand of the same length). Anything less clear: one block."""
        whole: list[tuple[list[Dim], str | None]] = [(dims, None)]
        if len(dims) < 2 or value < 2:
            return whole
        taken = {int(n) for t in self.tensors.values() for n in t.shape} | set(_ints(self.live.bound).values())
        new = next(value + 16 * j for j in range(1, 1000) if value + 16 * j not in taken)
        singles: list[tuple[list[Dim], str | None]] = []
        rest: list[Dim] = []
        for d in dims:
            _, became = self._probe({d: new}, value, new)
            if became:
                singles.append(([d], became[0]))
            else:
                rest.append(d)
        if not singles:
            return whole
        if rest:
            ok, became = self._probe(dict.fromkeys(rest, new), value, new)
            if ok and became:
                singles.append((rest, became[0]))
            elif ok and len(singles) == 1:
                singles = [(singles[0][0] + rest, singles[0][1])]
            else:
                return whole
        names = [n for _, n in singles]
        return singles if len(set(names)) == len(names) else whole


def _numel(shape: tuple[int, ...]) -> int:
    n = 1
    for d in shape:
        n *= int(d)
    return n


def _dims_text(dims: list[Dim]) -> str:
    return ", ".join(f"{t}.shape[{i}]" for t, i in dims)


@contextlib.contextmanager
def _launch_recorded_not_run(into: list, *, on_gpu: bool) -> Iterator[None]:
    """``kernel[grid](...)`` records (fn, grid, args, kwargs) and launches nothing; so does the
    launch of what ``kernel.warmup(...)`` gives (``warm_kernel``: compiled on the GPU when
    ``on_gpu``, else for the emulated one)."""
    from triton.runtime import autotuner
    from triton.runtime.jit import JITFunction

    saved = JITFunction.__dict__["run"], autotuner.Autotuner.__dict__["run"]

    def record(fn: Any, grid: Any, args: tuple, kwargs: dict) -> None:
        into.append((fn, grid, args, kwargs))

    def run(self: Any, *args: Any, grid: Any, warmup: bool, **kwargs: Any) -> Any:
        if warmup:
            return warm_kernel(self, args, kwargs, grid, record, [], real_run=saved[0] if on_gpu else None)
        return record(self, grid, args, kwargs)

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


def _like(t: torch.Tensor, shape: tuple[int, ...], device: Any, gen: torch.Generator | None) -> torch.Tensor:
    """A random tensor of ``shape`` with ``t``'s dtype and memory layout (a transposed view stays
    one); without ``gen``, an uninitialised one (to probe the wrapper)."""
    order = sorted(range(t.dim()), key=lambda i: -t.stride(i)) if t.dim() else []
    base_shape = tuple(shape[i] for i in order)
    if gen is None:
        base = torch.empty(base_shape, dtype=t.dtype, device=device)
    elif t.is_floating_point():
        base = torch.randn(base_shape, generator=gen, dtype=torch.float32).to(t.dtype)
    elif t.dtype == torch.bool:
        base = torch.randint(0, 2, base_shape, generator=gen).bool()
    else:
        base = torch.randint(0, 8, base_shape, generator=gen).to(t.dtype)
    inverse = sorted(range(len(order)), key=lambda i: order[i])
    return base.permute(*inverse).to(device) if order else base.to(device)


def spec_from_launch(live: LiveLaunch, name: str, origin: str, record: CapturedLaunch) -> KernelSpec:
    """The spec of one captured launch. ``record`` learns what only the spec finds out: whether
    the wrapper can be called again (``resizable``), and a fixed grid's relation to the sizes."""
    fn = live.fn
    sizes = _Sizes(live)
    heur = set(live.heuristics)
    consts = {k: v for k, v in live.bound.items() if k in live.constexpr_names and k not in heur}
    params: list[Param] = []
    for k, v in consts.items():
        if isinstance(v, bool):
            params.append(Param(k, "flag", v, f"constexpr {k}"))
        elif isinstance(v, int) and k not in _LAUNCH_OPTIONS:
            params.append(Param(k, "constexpr", v, f"constexpr {k}", pow2=is_pow2(v) and v > 1, min=1,
                                max=max(1 << 17, v)))
    # a kernel parameter named num_warps / num_stages takes the value (Triton binds it, not the option)
    shadowed = {k: (int(v), f"the kernel's own constexpr {k} (it takes the launch option's name)")
                for k, v in consts.items() if k in _LAUNCH_OPTIONS and isinstance(v, int) and not isinstance(v, bool)}
    warps, w_help = shadowed.get("num_warps", (int(live.options.get("num_warps", 4)), "warps per program (GPU only)"))
    stages, s_help = shadowed.get("num_stages", (int(live.options.get("num_stages", 3)),
                                                 "software-pipelining stages (GPU only)"))
    params.append(Param("num_warps", "launch", warps, w_help, choices=NUM_WARPS))
    params.append(Param("num_stages", "launch", stages, s_help, min=1, max=8))
    if live.autotune_configs:
        listing = "; ".join(f"{i}: {c}" for i, c in enumerate(live.autotune_configs))
        params.append(Param("autotune_config", "constexpr", max(0, live.autotune_choice),
                            f"which @triton.autotune config runs ({listing})",
                            choices=tuple(range(len(live.autotune_configs)))))
    resizable = bool(sizes.groups) and not live.reached  # a pointer table's groups: as the script made them
    params.extend(sizes.params())
    kernel_rule = _verify_grid_rule(live, record, sizes) if resizable else _captured_rule(live)
    _tell(record, sizes, consts)
    state: dict[str, Any] = {"bytes": 0}
    outputs = tuple(live.written)

    def make_inputs(cfg: dict, device: Any, gen: torch.Generator) -> dict[str, Any]:
        met: dict[str, torch.Tensor] = {}  # tensors reached through addresses or descriptors: fresh copies
        if not resizable or sizes.captured(cfg):
            bound = dict(live.bound)
            for k, t in live.before.items():
                (bound if k in live.bound else met)[k] = t.to(device, copy=True)
            bound = descriptors.rebuild(pointer_tables.rebuild(bound, live.reached, met), met)
            grid = live.grid
        else:
            bound, grid = _redrive(live, sizes.shapes_for(cfg), device, gen)
            met = descriptors.bases(bound)
        tensors = {k: v for k, v in bound.items() if isinstance(v, torch.Tensor)} | met
        # what the launch will change, as it is before the launch: the reference at new sizes
        # starts from it (an atomic histogram's zeroed bins, an in-place update's input)
        before = {k: tensors[k].clone() for k in outputs if k in tensors}
        touched = set(live.read) | set(live.written) or set(tensors)
        state["bytes"] = sum(t.numel() * t.element_size() for k, t in tensors.items() if k in touched) + \
            sum(t.numel() * t.element_size() for k, t in tensors.items() if k in live.written)
        return {**tensors, "_launch": {"bound": bound, "grid": grid, "before": before}}

    def launch(K: Any, t: dict, cfg: dict) -> Any:
        kwargs, grid = _launch_args(live, t, cfg, consts, kernel_rule)
        with descriptors.using(live.allocator):  # set by the script in its thread; a run may be in another
            return K(fn)[grid](**kwargs)

    def reference(t: dict, cfg: dict) -> dict[str, torch.Tensor]:
        if not resizable or sizes.captured(cfg):
            return {k: live.after[k].to(t[k].device).double() for k in outputs}
        return _reference_run(live, t, consts, outputs, kernel_rule)

    def tolerance(cfg: dict) -> tuple[float, float]:
        dts = [live.after[k].dtype for k in outputs if k in live.after]
        return max((_TOL.get(d, (1e-4, 1e-4)) for d in dts), default=(1e-4, 1e-4))

    names = {p.name for p in params}
    grid_exprs = _over_params(record.grid_rule, names, _ints(live.bound))
    return KernelSpec(
        name=name, title=f"{fn.fn.__name__} · launch {record.index + 1}",
        summary=(f"launch #{record.index + 1} at {record.call_site}"
                 + (f" in {live.wrapper_name}()" if live.wrapper_name else "")
                 + f": grid {'×'.join(map(str, record.grid))}; "
                 + ", ".join(a.describe() for a in record.args if a.kind == "tensor")),
        teaching=f"{record.grid_note}. {record.resize_note}.", kernels=(fn,), params=tuple(params), make_inputs=make_inputs,
        launch=launch, reference=reference, outputs=outputs, bytes_moved=lambda cfg: state["bytes"],
        flops=lambda cfg: 0, metric="GB/s", tolerance_fn=tolerance, origin=origin, grid_exprs=grid_exprs,
        inplace=tuple(k for k in outputs if k in live.read))


def _tell(record: CapturedLaunch, sizes: _Sizes, consts: dict) -> None:
    """What the sizes add to the record: a wrapper that cannot be called again keeps the sizes
    fixed (and says why); a fixed grid without a rule over the kernel's integers may still be a
    size of the wrapper's (``(M,)`` with ``M = x.shape[0]``), or is the script's own arithmetic,
    done again by the wrapper at new sizes."""
    if sizes.error:
        record.resizable = False
        record.resize_note = "sizes: fixed — " + sizes.error
    if record.grid_kind != "tuple" or record.grid_rule or not sizes.groups or "fits the captured" in record.grid_note:
        return
    samples = [(g, named, cs) for g, _, cs, named in sizes.grid_samples()]
    rule = infer_grid_rule(record.grid, sizes.values(), _ints(consts), samples) if len(samples) >= 2 else None
    if rule:
        record.grid_rule = rule
        record.grid_note = (f"grid: {', '.join(rule)} — the wrapper's size{'s' if len(rule) > 1 else ''} "
                            f"(checked on the captured launch {record.grid} and at {len(samples)} other sizes); "
                            f"{record.wrapper}() computes it again at new sizes")
    else:
        record.grid_note = (f"grid: fixed at {record.grid} as the script computed it (no rule over the "
                            f"launch's integers or sizes fits); {record.wrapper}() computes it again at new sizes")


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


def _redrive(live: LiveLaunch, shapes: dict[str, tuple[int, ...]], device: Any,
             gen: torch.Generator | None) -> tuple[dict, Any]:
    """Call the wrapper again with random tensors of ``shapes`` (uninitialised ones without
    ``gen``, to probe it); its launch, recorded, not run. CUDA is served on the CPU for it as at
    capture, and what it prints is dropped."""
    args = dict(live.wrapper_args)
    for k, shape in shapes.items():
        args[k] = _like(live.wrapper_args[k], shape, device, gen)
    params = list(inspect.signature(live.wrapper).parameters)
    if params and params[0] == "ctx":
        args[params[0]] = _Ctx()
    calls: list = []
    on_gpu = torch.device(device).type != "cpu"
    with global_state.kept(), _launch_recorded_not_run(calls, on_gpu=on_gpu), \
            (contextlib.nullcontext() if on_gpu else cuda_on_cpu(live.wrapper.__code__.co_filename)), \
            contextlib.redirect_stdout(io.StringIO()):
        live.wrapper(**{k: args[k] for k in params if k in args})
    mine = [c for c in calls if c[0] is live.fn]
    if not mine:
        raise ValueError(f"{live.wrapper_name}() made no launch of {live.fn.fn.__name__} at the new sizes")
    from ..interp import bind

    fn, grid, a, kw = mine[0]
    return bind(fn, a, kw), grid


def _captured_rule(live: LiveLaunch) -> tuple[str, ...] | None:
    """The rule of a fixed grid over the kernel's integers, from the captured launch alone (sizes
    that cannot change: only the constexprs move it)."""
    if callable(live.grid):
        return None
    return infer_grid_rule(tuple(live.grid3[:len(_as_tuple(live.grid))]), _ints(live.bound),
                           _ints({k: v for k, v in live.bound.items() if k in live.constexpr_names}))


def _verify_grid_rule(live: LiveLaunch, record: CapturedLaunch, sizes: _Sizes) -> tuple[str, ...] | None:
    """A fixed grid's rule over the kernel's integers, trusted only once it also gives the grids
    the wrapper computes at two other sizes; else None (the grid stays as the wrapper computes it
    and the record says the rule could not be confirmed)."""
    if callable(live.grid):
        return None
    first = _captured_rule(live)
    if first is None:
        return None
    samples = [sample[:3] for sample in sizes.grid_samples()]
    consts = _ints({k: v for k, v in live.bound.items() if k in live.constexpr_names})
    ints = _ints(live.bound)
    rule = infer_grid_rule(tuple(live.grid3[:len(_as_tuple(live.grid))]), {k: v for k, v in ints.items()
                                                                            if k not in consts}, consts, samples)
    if len(samples) < 2 or rule is None:
        why = ("the wrapper could not be called at two other sizes to check it" if len(samples) < 2
               else "no rule also gives the grids the wrapper computes at other sizes")
        record.grid_rule = ()
        record.grid_note = (f"grid: fixed at {record.grid} — the rule {', '.join(first)} fits the captured launch "
                            f"but {why}; {record.wrapper}() computes the grid again at new sizes, and a changed "
                            "block size keeps this grid")
        return None
    if record.grid_kind == "tuple":
        record.grid_rule = rule
        record.grid_note = (f"grid: inferred rule {', '.join(rule)} (checked on the captured launch {record.grid} "
                            f"and on the wrapper's grids at {len(samples)} other sizes)")
    return rule


def _launch_args(live: LiveLaunch, t: dict, cfg: dict, consts: dict,
                 rule: tuple[str, ...] | None) -> tuple[dict, Any]:
    bound = dict(t["_launch"]["bound"])
    for k in list(bound):
        if isinstance(bound[k], torch.Tensor) and k in t:
            bound[k] = t[k]
    for k in consts:
        if k in cfg:
            bound[k] = cfg[k]
    options = {k: v for k, v in live.options.items() if k not in _LAUNCH_OPTIONS}
    options.update({k: cfg[k] for k in _LAUNCH_OPTIONS if k not in bound})  # else the kernel's own (above)
    choice = cfg.get("autotune_config", live.autotune_choice)
    if live.autotune_configs and choice != live.autotune_choice:  # another config: all its values
        c = live.autotune_configs[choice]
        bound.update(c.kwargs)
        options.update({k: v for k, v in c.all_kwargs().items() if k not in c.kwargs})
    for k, h in live.heuristics.items():
        bound[k] = h(dict(bound))
    ran = live.autotune_configs[choice] if live.autotune_configs and 0 <= choice < len(live.autotune_configs) else None
    if ran is not None and ran.pre_hook is not None:  # the config's own setup, as Triton runs it before a launch
        ran.pre_hook({**bound, **options})  # (06's and 09's set their descriptors' blocks from BLOCK_*)
    else:
        bound = descriptors.follow_blocks(bound, live.bound, live.constexpr_names)  # the tile follows BLOCK_*
    grid = t["_launch"]["grid"]
    if callable(grid):  # the script's lambda, called here as Triton would: every backend sees the numbers
        return {**bound, **options}, tuple(int(g) for g in _as_tuple(grid(dict(bound))))
    return {**bound, **options}, (grid_of(rule, _ints(bound))[:len(rule)] if rule else grid)


def _as_tuple(g: Any) -> tuple:
    return tuple(g) if isinstance(g, (tuple, list)) else (g,)


def _reference_run(live: LiveLaunch, t: dict, consts: dict, outputs: tuple[str, ...],
                   rule: tuple[str, ...] | None) -> dict[str, torch.Tensor]:
    """The script's own configuration on the same inputs (fresh copies, the outputs as they were
    before the launch — the check runs after it): the reference at new sizes."""
    before = t["_launch"].get("before", {})
    ref_t = {k: (before.get(k, v).clone() if isinstance(v, torch.Tensor) else v) for k, v in t.items()}
    cfg = {"num_warps": live.options.get("num_warps", 4), "num_stages": live.options.get("num_stages", 3), **consts,
           "autotune_config": live.autotune_choice}
    kwargs, grid = _launch_args(live, ref_t, cfg, consts, rule)
    kwargs = descriptors.rebuild(kwargs, {k: v for k, v in ref_t.items() if isinstance(v, torch.Tensor)})
    any_t = next(v for v in ref_t.values() if isinstance(v, torch.Tensor))
    if any_t.device.type == "cpu":
        from ..interp import AccessGuard, Interpreter

        with Interpreter([AccessGuard()]).activate([live.fn]) as K:
            K(live.fn)[grid](**kwargs)
    else:
        with descriptors.using(live.allocator):
            live.fn[grid](**kwargs)
        torch.cuda.synchronize()
    return {k: ref_t[k].double() for k in outputs}


def describe_args(live: LiveLaunch) -> list[CapturedArg]:
    out = []
    met = {r.name: r.tensor for r in live.reached} | descriptors.bases(live.bound)
    for k, v in [*live.bound.items(), *met.items()]:
        if isinstance(v, torch.Tensor):
            out.append(CapturedArg(k, "tensor", tuple(v.shape), str(v.dtype).replace("torch.", ""), tuple(v.stride())))
        elif k in live.constexpr_names:
            out.append(CapturedArg(k, "constexpr", value=v if isinstance(v, (int, float, str, bool)) else str(v)))
        else:
            out.append(CapturedArg(k, "scalar", value=v if isinstance(v, (int, float, str, bool)) else str(v)))
    return out
