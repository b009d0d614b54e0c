"""A sweep's winner and top configs as code to paste or import.

- ``autotune_text``: a ``@triton.autotune(configs=[triton.Config(...), ...], key=[...])``
  decorator for the spec's kernel, fastest first;
- ``triton_op_text``: a complete Python module: a ``torch.library.triton_op`` that launches the
  tuned kernel through the spec's own launcher (which computes strides and derived constexprs)
  with the winner's values, taking its shapes from the tensors it is given. On CUDA tensors it
  launches through ``wrap_triton`` (so ``torch.compile`` sees the kernel); on CPU tensors through
  Tilescope's interpreter. Run the module to check it against the spec's reference.

What the launcher does is found by running it on meta tensors with a recording ``K`` (nothing
is allocated or launched); which tensor dimension holds which shape parameter, by planning the
inputs (``kernels.run.memory.plan_inputs``) again with that parameter changed.
"""

from __future__ import annotations

import inspect
import keyword
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
import triton

from ..data.backends import INTERPRETER
from ..data.results import SweepPoint, SweepResult
from ..data.tuning.rank import fmt_ms, values_text
from ..data.tuning.space import LAUNCH_OPTIONS
from ..run.memory import InputPlan, plan_inputs
from ..specs.spec import KernelSpec
from . import standalone

__all__ = ["LaunchShape", "autotune_text", "export_texts", "launch_shape", "top_configs", "triton_op_text"]

_DTYPE_NAMES = {"float32": "fp32", "float16": "fp16", "bfloat16": "bf16"}
_REPO = Path(__file__).resolve().parents[2]


# ---------------------------------------------------------------------------------------------
# what the launcher passes


@dataclass
class LaunchShape:
    """The first launch of a spec's launcher, as recorded on meta tensors."""

    kernel: Any  # the JITFunction launched
    args: dict[str, Any]  # argument name -> value (tensors as meta tensors)
    constexprs: list[str]  # the kernel's constexpr argument names
    options: dict[str, Any] = field(default_factory=dict)  # launch options (num_warps, …)


class _Record:
    def __init__(self, fn: Any, calls: list[LaunchShape]) -> None:
        self.fn, self.calls = fn, calls

    def __getitem__(self, grid: Any) -> Any:
        def record(*args: Any, **kwargs: Any) -> None:
            py = getattr(self.fn, "fn", self.fn)
            sig = inspect.signature(py)
            opts = {k: kwargs.pop(k) for k in list(kwargs) if k not in sig.parameters}
            bound = sig.bind_partial(*args, **kwargs).arguments
            const = [p.name for p in sig.parameters.values() if "constexpr" in str(p.annotation)]
            self.calls.append(LaunchShape(self.fn, dict(bound), const, opts))
        return record

    def __getattr__(self, name: str) -> Any:
        return getattr(self.fn, name)


def _meta_inputs(plan: InputPlan) -> dict[str, torch.Tensor]:
    return {k: torch.empty(shape, dtype=getattr(torch, dt), device="meta") for k, (shape, dt, _) in plan.tensors.items()}


def launch_shape(spec: KernelSpec, cfg: Mapping[str, Any]) -> LaunchShape | None:
    """What the launcher passes to its first kernel for ``cfg`` (None when it cannot be seen)."""
    plan = plan_inputs(spec, dict(cfg))
    if plan is None:
        return None
    calls: list[LaunchShape] = []
    try:
        spec.run_launch(lambda fn: _Record(fn, calls), _meta_inputs(plan), dict(cfg))
    except Exception:  # noqa: BLE001 - a launcher that needs real data
        pass
    return calls[0] if calls else None


def _autotune_key(spec: KernelSpec, cfg: Mapping[str, Any], shape: LaunchShape | None) -> list[str]:
    """The kernel's size arguments: those named as a shape parameter, else (no such name) the
    integer arguments equal to a shape parameter's value, strides left out."""
    if shape is None:
        return []
    sizes = [p.name for p in spec.params if p.kind == "shape"]
    named = [n for n in shape.args if n in sizes and n not in shape.constexprs]
    if named:
        return named
    values = {cfg[n] for n in sizes}
    return [n for n, v in shape.args.items() if isinstance(v, int) and not isinstance(v, bool)
            and v in values and n not in shape.constexprs and not n.startswith("stride")]


# ---------------------------------------------------------------------------------------------
# the configs


def _full_values(p: SweepPoint) -> dict[str, Any]:
    """Every value of a point: the run's validated values and the launch options passed besides."""
    return {**p.result.values, **{k: v for k, v in p.values.items() if k in LAUNCH_OPTIONS and v is not None}}


def _tuned_names(spec: KernelSpec, values: Mapping[str, Any]) -> list[str]:
    """Names a config sets: the spec's constexprs and launch options, and extra launch options."""
    names = [p.name for p in spec.params if p.kind in ("constexpr", "launch")]
    return names + [k for k in LAUNCH_OPTIONS if k in values and k not in names]


def top_configs(spec: KernelSpec, result: SweepResult, top: int = 5) -> list[int]:
    """Indices of up to ``top`` points, each group's winner first, then each group's second…,
    no two with the same config (constexprs and launch options)."""
    seen: set[str] = set()
    out: list[int] = []
    for e in sorted(result.ranking, key=lambda e: (e.rank, e.median_ms)):
        values = _full_values(result.points[e.index])
        key = repr([(n, values.get(n)) for n in _tuned_names(spec, values)])
        if key not in seen:
            seen.add(key)
            out.append(e.index)
        if len(out) >= top:
            break
    return out


def _config_text(spec: KernelSpec, values: Mapping[str, Any], constexprs: Sequence[str]) -> str:
    kw = {n: values[n] for n in _tuned_names(spec, values) if n in constexprs and n in values}
    launch = [f"{n}={values[n]!r}" for n in _tuned_names(spec, values)
              if n in LAUNCH_OPTIONS and values.get(n) is not None]
    return f"triton.Config({kw!r}{''.join(', ' + a for a in launch)})"


def autotune_text(spec: KernelSpec, result: SweepResult, top: int = 5) -> str:
    """``@triton.autotune(...)`` over the sweep's fastest configs, fastest first."""
    picks = top_configs(spec, result, top)
    if not picks:
        raise ValueError("no point passed: nothing to export")
    winner = _full_values(result.points[picks[0]])
    shape = launch_shape(spec, winner)
    constexprs = shape.constexprs if shape is not None else [p.name for p in spec.params if p.kind == "constexpr"]
    key = _autotune_key(spec, winner, shape)
    lines = [f"# {spec.name}: the {len(picks)} fastest configs of a Tilescope sweep{_where(result)}, fastest first"]
    set_names = [n for n in _tuned_names(spec, winner) if n in constexprs or n in LAUNCH_OPTIONS]
    lines.append(f"# the call no longer passes {', '.join(set_names)}")
    derived = [n for n in constexprs if n not in set_names]
    if derived:
        lines.append(f"# it still passes {', '.join(derived)} (the spec's launcher computes them; one that "
                     "depends on a tuned value belongs in @triton.heuristics)")
    if not key:
        lines.append("# key: no size argument was found; name the arguments whose change should re-tune")
    lines += ["@triton.autotune(", "    configs=["]
    for i in picks:
        p = result.points[i]
        t = p.timing
        note = f"  # {fmt_ms(t.median_ms)}" if t is not None else ""
        lines.append(f"        {_config_text(spec, _full_values(p), constexprs)},{note}")
    lines += ["    ],", f"    key={key!r},", ")"]
    return "\n".join(lines) + "\n"


def _where(result: SweepResult) -> str:
    p = result.points[result.best] if result.best is not None else (result.points[0] if result.points else None)
    if p is None:
        return ""
    r = p.result
    return f" on {r.device}, Triton {r.triton_version or triton.__version__}"


# ---------------------------------------------------------------------------------------------
# the triton_op module


@dataclass
class _Binding:
    """How the op finds each value the launcher needs."""

    inputs: list[str]  # tensor arguments, in make_inputs order
    outputs: list[str]
    sizes: dict[str, tuple[str, int]]  # shape parameter -> (input tensor, dimension)
    out_shapes: dict[str, list[str]] | None  # output -> dimension expressions; None: the caller allocates
    out_dtypes: dict[str, str]  # output -> dtype expression
    out_zero: dict[str, bool]  # output -> allocate zeros (not a float tensor: an accumulator)
    keywords: dict[str, Any]  # further arguments: name -> default (shapes not seen in the inputs, flags)


def _alternatives(v: int) -> list[int]:
    return [x for x in (v * 2, v + 1, v + 16, v // 2) if x >= 1 and x != v]


def _bind(spec: KernelSpec, cfg: Mapping[str, Any]) -> _Binding:
    plan = plan_inputs(spec, dict(cfg))
    if plan is None:
        raise ValueError(f"{spec.name}: its make_inputs cannot be planned on shapes alone")
    t0 = plan.tensors
    inputs = [k for k in t0 if k not in spec.outputs]
    outputs = [k for k in t0 if k in spec.outputs]
    sizes: dict[str, tuple[str, int]] = {}
    out_dims: dict[str, list[str | None]] = {o: [None] * len(t0[o][0]) for o in outputs}
    changed: dict[str, list[bool]] = {o: [False] * len(t0[o][0]) for o in outputs}
    for p in (p for p in spec.params if p.kind == "shape"):
        v = cfg[p.name]
        for alt in _alternatives(v):
            trial = {**cfg, p.name: alt}
            if not spec.validate(trial).ok:
                continue
            plan2 = plan_inputs(spec, spec.config(trial))
            if plan2 is None or plan2.tensors.keys() != t0.keys():
                continue
            hits = [(k, d) for k in inputs for d, (a, b) in enumerate(zip(t0[k][0], plan2.tensors[k][0], strict=False))
                    if a == v and b == alt]
            if hits:
                sizes[p.name] = hits[0]
            for o in outputs:
                for d, (a, b) in enumerate(zip(t0[o][0], plan2.tensors[o][0], strict=False)):
                    if a != b:
                        changed[o][d] = True
                        if a == v and b == alt:
                            out_dims[o][d] = p.name
            break
    out_shapes: dict[str, list[str]] | None = {}
    for o in outputs:
        dims = []
        for d, size in enumerate(t0[o][0]):
            name = out_dims[o][d]
            if name is not None and name in sizes:
                dims.append(f"cfg[{name!r}]")
            elif not changed[o][d]:
                dims.append(str(size))
            else:
                out_shapes = None
                break
        if out_shapes is None:
            break
        out_shapes[o] = dims
    first_dtype = t0[inputs[0]][1] if inputs else ""
    out_dtypes = {o: (f"{inputs[0]}.dtype" if t0[o][1] == first_dtype else f"torch.{t0[o][1]}") for o in outputs}
    out_zero = {o: not getattr(torch, t0[o][1]).is_floating_point for o in outputs}
    keywords: dict[str, Any] = {}
    for p in spec.params:
        if (p.kind == "shape" and p.name not in sizes) or p.kind == "flag":
            keywords[p.name] = cfg[p.name]
    return _Binding(inputs, outputs, sizes, out_shapes, out_dtypes, out_zero, keywords)


def _ident(name: str) -> str:
    s = re.sub(r"\W", "_", name)
    s = s if s and not s[0].isdigit() else f"k_{s}"
    return s + "_" if keyword.iskeyword(s) else s


def _kernel_imports(spec: KernelSpec, user_file: str | None) -> list[str]:
    lines = []
    for k in spec.kernels:
        py = getattr(k, "fn", k)
        mod, name = getattr(py, "__module__", ""), getattr(py, "__name__", "")
        if user_file or not mod or mod == "__main__" or mod.startswith("tilescope_user"):
            src = user_file or inspect.getsourcefile(py) or "?"
            lines.append(f"# the kernel's source: {name} in {src}")
        else:
            lines.append(f"from {mod} import {name}  # noqa: E402,F401 - the tuned kernel's source")
    return lines


_LAUNCH = """def _launch(tensors, cfg):
    if all(t.device.type == 'cuda' for t in tensors.values() if isinstance(t, torch.Tensor)):
        SPEC.run_launch({K}, tensors, cfg)
        return
    from kernels.run.backends import resolve  # not on a GPU: Triton's interpreter, through Tilescope

    with resolve({interpreter!r}).activate(SPEC.kernels) as K:
        SPEC.run_launch(K, tensors, cfg)"""

_LAUNCH_STANDALONE = """class _Options:
    def __init__(self, k, extra):
        self.k, self.extra = k, extra

    def __getitem__(self, grid):
        launch = self.k[grid]
        return lambda *args, **kwargs: launch(*args, **{{**kwargs, **self.extra}})


def _K(fn):
    k = wrap_triton(fn) if _ON_GPU else fn  # a CPU tensor runs on the interpreter (no GPU here)
    return _Options(k, EXTRA) if EXTRA else k


def _launch(tensors, cfg):
    if _LATE:  # Triton was imported before this module, not in interpreter mode
        try:
            from kernels.run.backends import resolve
        except ImportError:
            raise RuntimeError('no GPU here, and Triton was imported before this module without '
                               'TRITON_INTERPRET=1: set it before importing triton') from None
        with resolve({interpreter!r}).activate(_KERNELS) as K:
            _SPEC_LAUNCH(K, tensors, cfg{grid})
        return
    _SPEC_LAUNCH(_K, tensors, cfg{grid})"""

_SELF_CHECK_SPEC = """    try:
        from kernels.sources.lookup import get_spec
    except ImportError:
        sys.exit("the check compares with Tilescope's reference: run it where Tilescope is installed")
    SPEC = get_spec({spec_args})
"""

_SELF_CHECK = """def _self_check(argv):
{spec}    values = {{**FIXED, **CONFIG, **dict(a.split('=', 1) for a in argv)}}
    cfg = SPEC.config(values)
    device = 'cuda' if torch.cuda.is_available() else 'cpu'
    t = SPEC.make_inputs(dict(cfg), device, torch.Generator().manual_seed(0))
    {got}
    refs = SPEC.reference(t, cfg)
    atol, rtol = SPEC.tolerance(cfg)
    for name, out in zip(OUTPUTS, got):
        torch.testing.assert_close(out.double(), refs[name].double().to(out.device), atol=atol, rtol=rtol)
    print(f'ok: {fname} matches the reference on {{device}} at ' + ', '.join(f'{{k}}={{v}}' for k, v in cfg.items()))


if __name__ == '__main__':
    _self_check(sys.argv[1:])"""


def triton_op_text(spec: KernelSpec, result: SweepResult, op_name: str | None = None, top: int = 5,
                   functional: bool | None = None) -> str:
    """A runnable module: a ``torch.library.triton_op`` launching the winner's config. It returns
    its outputs when their shapes follow from the inputs' (``functional`` None or True), else
    (or with ``functional=False``) it takes them as arguments and writes them in place."""
    picks = top_configs(spec, result, top)
    if not picks:
        raise ValueError("no point passed: nothing to export")
    win = result.points[picks[0]]
    values = _full_values(win)
    params = {p.name for p in spec.params}
    tuned = [n for n in _tuned_names(spec, values) if n in values]
    config = {n: values[n] for n in tuned if n in params}
    extra = {n: values[n] for n in tuned if n not in params}
    fixed = {k: v for k, v in win.result.values.items() if k not in config}
    b = _bind(spec, win.result.values)
    fname = _ident(spec.name)
    op = op_name or f"tilescope::{fname}"
    user_file = result.request.user_file
    has_dtype = any(p.kind == "dtype" for p in spec.params)
    first = b.inputs[0] if b.inputs else None
    if functional and b.out_shapes is None:
        raise ValueError(f"{spec.name}: its outputs' shapes do not follow from its inputs'; use functional=False")
    functional = b.out_shapes is not None and functional is not False
    args = [f"{n}: torch.Tensor" for n in b.inputs] + ([] if functional else [f"{o}: torch.Tensor" for o in b.outputs])
    args += [f"{k}: {type(v).__name__} = {v!r}" for k, v in b.keywords.items()]
    ret = ("torch.Tensor" if len(b.outputs) == 1 else f"tuple[{', '.join(['torch.Tensor'] * len(b.outputs))}]") \
        if functional else "None"
    cfg_items = [f"{k!r}: {n}.shape[{d}]" for k, (n, d) in b.sizes.items()]
    if has_dtype and first:
        cfg_items.append(f"'dtype': _DTYPES[{first}.dtype]")
    cfg_items += [f"{k!r}: {k}" for k in b.keywords]
    t = win.timing
    rows = [f"    {values_text({n: result.points[i].values[n] for n in result.names})}"
            + (f" — {fmt_ms(result.points[i].timing.median_ms)}" if result.points[i].timing else "")
            for i in picks]
    try:
        carried = standalone.carry(spec)
    except standalone.Unportable as e:
        carried, unportable = None, str(e)
    cfg_text = f"{{**FIXED, **CONFIG, {', '.join(cfg_items)}}}"
    body = [f"    cfg = SPEC.config({cfg_text})" if carried is None else f"    cfg = {cfg_text}"]
    if functional:
        dev = f"{first}.device" if first else "'cuda'"
        for o in b.outputs:
            alloc = "torch.zeros" if b.out_zero[o] else "torch.empty"
            dims = ", ".join(b.out_shapes[o]) + ("," if len(b.out_shapes[o]) == 1 else "")  # type: ignore[index]
            body.append(f"    {o} = {alloc}(({dims}), dtype={b.out_dtypes[o]}, device={dev})")
    body.append(f"    _launch({{{', '.join(f'{n!r}: {n}' for n in b.inputs + b.outputs)}}}, cfg)")
    if functional:
        body.append(f"    return {', '.join(b.outputs)}")
    call_args = ", ".join([f"t[{n!r}]" for n in b.inputs] + ([] if functional else [f"t[{o!r}]" for o in b.outputs])
                          + [f"{k}=cfg[{k!r}]" for k in b.keywords])
    got = (f"got = {fname}({call_args})\n    got = got if isinstance(got, tuple) else (got,)" if functional
           else f"{fname}({call_args})\n    got = tuple(t[o] for o in OUTPUTS)")
    group = next((e.group for e in result.ranking if e.index == picks[0]), "")
    verdict = next((v for v in result.verdicts if not group or v.startswith(f"[{group}]")), "")
    lines = [
        f'"""{spec.title}, tuned by Tilescope: a torch.library.triton_op with the winner\'s config.',
        "",
        f"Exported {time.strftime('%Y-%m-%d %H:%M')} from a sweep of {len(result.points)} points{_where(result)},",
        f"at {values_text(fixed)}.",
        f"{verdict}" if verdict else f"winner: {values_text({**config, **extra})}" + (f" — {fmt_ms(t.median_ms)}" if t else ""),
        "",
        "Fastest first:",
        *rows,
        "",
        f"    from <this module> import {fname}",
        f"    out = {fname}({', '.join(b.inputs + ([] if functional else b.outputs))})",
        "",
        "Shapes and dtype come from the tensors; the tuned values are CONFIG. CUDA tensors launch",
        "through wrap_triton (torch.compile sees the kernel); CPU tensors run on Triton's interpreter.",
        *(["The kernel's source, its launcher and the grid are below: this module needs torch and",
           "Triton only (Tilescope is needed by the check alone)."] if carried is not None else
          [f"It imports Tilescope for the launch ({unportable})."]),
        "Check against the spec's reference: python <this file> [NAME=VALUE ...]",
        '"""',
        *_head_lines(spec, user_file, extra, carried),
        "#: the winner's tuned values: constexprs and launch options",
        f"CONFIG = {config!r}",
        "#: the values the sweep held (shapes and dtype are taken from the tensors at each call)",
        f"FIXED = {fixed!r}",
        *(["#: launch options passed besides the spec's parameters", f"EXTRA = {extra!r}"] if extra or carried
          else []),
        f"OUTPUTS = {tuple(b.outputs)!r}",
        f"_DTYPES = {{{', '.join(f'torch.{k}: {v!r}' for k, v in _DTYPE_NAMES.items())}}}",
        "",
        "",
        *(_LAUNCH.format(K="with_options(wrap_triton, EXTRA)" if extra else "wrap_triton", interpreter=INTERPRETER)
          if carried is None else
          _LAUNCH_STANDALONE.format(grid=", _grid(cfg)" if carried.takes_grid else "", interpreter=INTERPRETER)
          + ("" if carried.grid is None else f"\n\n\ndef _grid(cfg):\n    return {carried.grid}")).splitlines(),
        "",
        "",
        f"@triton_op({op!r}, mutates_args={() if functional else tuple(b.outputs)!r})",
        f"def {fname}({', '.join(args)}) -> {ret}:",
        f"    {spec.summary!r}",
        *body,
        "",
        "",
        *_SELF_CHECK.format(got=got, fname=fname, spec="" if carried is None else _SELF_CHECK_SPEC.format(
            spec_args=f"{spec.name!r}{f', user_file={user_file!r}' if user_file else ''}")).splitlines(),
    ]
    return "\n".join(lines) + "\n"


def _head_lines(spec: KernelSpec, user_file: str | None, extra: Mapping[str, Any],
                carried: standalone.Carry | None) -> list[str]:
    """The module's imports: torch, Triton and the carried source; or Tilescope's spec."""
    if carried is not None:
        return [*standalone.HEAD.splitlines(), *standalone.carry_lines(carried), ""]
    return [
        "import sys",
        "",
        "import torch",
        "from torch.library import triton_op, wrap_triton",
        "",
        "try:",
        "    import kernels  # noqa: F401 - Tilescope's engine: the spec's launcher and reference",
        "except ImportError:  # run from outside Tilescope's checkout: use the one this came from",
        f"    sys.path.insert(0, {str(_REPO)!r})",
        "",
        *_kernel_imports(spec, user_file),
        "from kernels.sources.lookup import get_spec  # noqa: E402",
        *(["from kernels.run.backends import with_options  # noqa: E402"] if extra else []),
        "",
        f"SPEC = get_spec({spec.name!r}{f', user_file={user_file!r}' if user_file else ''})",
    ]


def export_texts(spec: KernelSpec, result: SweepResult, top: int = 5) -> dict[str, str]:
    """{"autotune": decorator text, "triton_op": module text} for a sweep with a passing point."""
    return {"autotune": autotune_text(spec, result, top), "triton_op": triton_op_text(spec, result, top=top)}
