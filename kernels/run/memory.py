"""Will a problem fit? Refuse, before anything is allocated, one that does not.

A shape too large must be refused *before* it is allocated: on the host, Linux overcommits and a
too-large tensor gets the process killed later, taking the worker with it. ``plan_inputs``
dry-runs a spec's ``make_inputs`` on shapes only; ``memory_check`` compares the plan with what is
free; a builder the dry run cannot follow runs under ``AllocationGuard``, which adds up the bytes
each tensor-creating call is about to allocate and refuses once they pass what is free.
(Building on the meta device would give the shapes without allocating, but its first use imports
torch._dynamo: seconds on every CLI run.) ``check_trace_size`` refuses a trace whose maps would
not fit the worker pipe or the host.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import torch

from ..data.errors import ResourceError
from ..specs.spec import KernelSpec
from .backends import Backend

__all__ = ["AllocationGuard", "InputPlan", "budgets", "check_fits", "check_trace_size", "host_available",
           "dry_inputs", "largest_shape_param", "memory_check", "plan_inputs"]

def host_available() -> int | None:
    try:
        import psutil

        return int(psutil.virtual_memory().available)
    except Exception:  # noqa: BLE001 - psutil is optional on the GPU host
        pass
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def _device_available() -> tuple[int, int]:
    """(bytes this process can still allocate on the current CUDA device, total)."""
    free, total = torch.cuda.mem_get_info()
    cached = max(0, torch.cuda.memory_reserved() - torch.cuda.memory_allocated())
    return free + cached, total


def _gib(n: float) -> str:
    return f"{n / 2**30:.1f} GiB" if n >= 2**28 else f"{n / 2**20:.0f} MiB"


_CREATE = {"randn", "rand", "empty", "zeros", "ones", "full", "randint", "normal"}
_LIKE = {"randn_like", "rand_like", "empty_like", "zeros_like", "ones_like", "full_like", "randint_like"}
_CONVERT = {"to", "cuda", "cpu", "double", "float", "half", "bfloat16", "contiguous", "clone"}
_CONVERT_DTYPE = {"double": torch.float64, "float": torch.float32, "half": torch.float16,
                  "bfloat16": torch.bfloat16}
_ELEMENTWISE = {"add", "sub", "mul", "div", "true_divide", "where", "pow", "exp", "abs", "neg",
                "__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__",
                "__rtruediv__", "__neg__", "__pow__"}


def _devtype(d: Any) -> str:
    if isinstance(d, (str, torch.device)):
        return torch.device(d).type
    return "cpu"


def _size_of(args: tuple, kwargs: dict, name: str) -> tuple[int, ...] | None:
    if "size" in kwargs:
        size = kwargs["size"]
    elif name == "randint":  # randint(high, size) / randint(low, high, size)
        size = next((a for a in args if isinstance(a, (tuple, list, torch.Size))), None)
    elif name == "full":
        size = args[0] if args else None
    elif args and isinstance(args[0], (tuple, list, torch.Size)):
        size = args[0]
    elif args and all(isinstance(a, int) for a in args):
        size = args
    else:
        return None
    try:
        return tuple(int(v) for v in size) if size is not None else None
    except (TypeError, ValueError):
        return None


class AllocationGuard(torch.overrides.TorchFunctionMode):
    """Refuses tensor allocations once their running total passes a per-device budget.

    ``budgets`` maps a device type ("cpu", "cuda") to bytes. Counted: creation functions (randn,
    empty, zeros, …, *_like), conversions (.to, .cuda, .double, …) and elementwise arithmetic,
    each before it runs. The total also counts temporaries that are freed on the way, so it errs
    on the side of refusing."""

    def __init__(self, budgets: dict[str, int], field: str | None = None) -> None:
        super().__init__()
        self.budgets = budgets
        self.field = field
        self.used: dict[str, int] = {}

    def _charge(self, device: str, nbytes: int, what: str) -> None:
        self.used[device] = self.used.get(device, 0) + nbytes
        budget = self.budgets.get(device)
        if budget is not None and self.used[device] > budget:
            where = "host memory" if device == "cpu" else "device memory"
            raise ResourceError(
                f"too large for {where}: the inputs need more than {_gib(self.used[device])} "
                f"(at {what}) and {_gib(budget)} is available; use smaller shapes", field=self.field)

    def __torch_function__(self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None) -> Any:
        kwargs = kwargs or {}
        try:
            self._account(getattr(func, "__name__", ""), args, kwargs)
        except ResourceError:
            raise
        except Exception:  # noqa: BLE001 - an argument form not parsed here: torch decides
            pass
        return func(*args, **kwargs)

    def _account(self, name: str, args: tuple, kwargs: dict) -> None:
        if name in _CREATE and not (args and isinstance(args[0], torch.Tensor)):
            size = _size_of(args, kwargs, name)
            if size is None:
                return
            dtype = kwargs.get("dtype") or (torch.int64 if name == "randint" else torch.get_default_dtype())
            self._charge(_devtype(kwargs.get("device")), math.prod(size) * dtype.itemsize,
                         f"{name}({', '.join(map(str, size))}) {str(dtype).replace('torch.', '')}")
        elif name in _LIKE and args and isinstance(args[0], torch.Tensor):
            x = args[0]
            dtype = kwargs.get("dtype") or x.dtype
            dev = _devtype(kwargs["device"]) if kwargs.get("device") is not None else x.device.type
            self._charge(dev, x.numel() * dtype.itemsize, f"{name} of shape {tuple(x.shape)}")
        elif name in _CONVERT and args and isinstance(args[0], torch.Tensor):
            x = args[0]
            dtype, dev = x.dtype, x.device.type
            if name == "to":
                for a in (*args[1:], kwargs.get("dtype"), kwargs.get("device")):
                    if isinstance(a, torch.dtype):
                        dtype = a
                    elif isinstance(a, (str, torch.device)):
                        dev = _devtype(a)
                    elif isinstance(a, torch.Tensor):
                        dtype, dev = a.dtype, a.device.type
                if dtype == x.dtype and dev == x.device.type:
                    return  # .to() returns the tensor itself
            elif name in ("cuda", "cpu"):
                dev = name
            elif name in _CONVERT_DTYPE:
                dtype = _CONVERT_DTYPE[name]
            self._charge(dev, x.numel() * dtype.itemsize, f".{name}() of shape {tuple(x.shape)}")
        elif name in _ELEMENTWISE:
            ts = [a for a in args if isinstance(a, torch.Tensor)]
            if ts:
                shape = torch.broadcast_shapes(*(t.shape for t in ts))
                size = max(t.element_size() for t in ts)
                self._charge(ts[0].device.type, math.prod(shape) * size, f"{name} of shape {tuple(shape)}")


def budgets(be: Backend) -> dict[str, int]:
    b: dict[str, int] = {}
    host = host_available()
    if host is not None:
        b["cpu"] = int(0.9 * host)
    if not be.is_interpreter:
        b["cuda"] = int(0.95 * _device_available()[0])
    return b


def check_fits(spec: KernelSpec, tensors: dict, be: Backend, field_: str | None) -> None:
    """After the inputs exist: is there room for the float64 reference and the comparison?"""
    sizes = [(k in spec.outputs, t.numel()) for k, t in tensors.items() if isinstance(t, torch.Tensor)]
    # the reference upcasts inputs to float64; the check holds out, ref and diff in float64
    need = sum(32 * n if is_out else 8 * n for is_out, n in sizes)
    if be.is_interpreter:
        avail, where = host_available(), "host memory"
    else:
        avail, where = _device_available()[0], "device memory"
    if avail is not None and need > 0.95 * avail:
        raise ResourceError(
            f"too large to check in {where}: the float64 reference and comparison need about "
            f"{_gib(need)} beyond the inputs and {_gib(avail)} is free; use smaller shapes", field=field_)


def largest_shape_param(spec: KernelSpec, cfg: dict) -> str | None:
    shapes = [(cfg.get(p.name, 0), p.name) for p in spec.params if p.kind == "shape"]
    return max(shapes)[1] if shapes else None


@dataclass
class InputPlan:
    """What ``make_inputs`` will build, found by a dry run that allocates nothing."""

    tensors: dict[str, tuple[tuple[int, ...], str, int]]  # name -> (shape, dtype, bytes)
    final_bytes: int  # the inputs and outputs it returns
    largest_temp: int  # bytes of the largest tensor made on the way (e.g. float32 before a cast)
    check_bytes: int  # float64 reference and comparison (upper estimate)

    def signature(self) -> tuple:
        return tuple(sorted((k, v[0], v[1]) for k, v in self.tensors.items()))


def _meta_empty(shape: Any, dtype: torch.dtype) -> torch.Tensor:
    return torch.empty(tuple(shape), dtype=dtype, device="meta")


class _DryRun(torch.overrides.TorchFunctionMode):
    """Runs ``make_inputs`` on shapes only: creation, conversion and elementwise calls return
    empty meta tensors of the right shape and dtype without running any kernel (a meta *kernel*
    would import torch._dynamo, seconds); anything else runs on those meta tensors."""

    def __init__(self) -> None:
        super().__init__()
        self.largest = 0

    def _made(self, t: torch.Tensor) -> torch.Tensor:
        self.largest = max(self.largest, t.numel() * t.element_size())
        return t

    def __torch_function__(self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None) -> Any:
        kwargs = kwargs or {}
        name = getattr(func, "__name__", "")
        if name in _CREATE and not (args and isinstance(args[0], torch.Tensor)):
            size = _size_of(args, kwargs, name)
            if size is not None:
                dtype = kwargs.get("dtype") or (torch.int64 if name == "randint" else torch.get_default_dtype())
                return self._made(_meta_empty(size, dtype))
        elif name in _LIKE and args and isinstance(args[0], torch.Tensor):
            return self._made(_meta_empty(args[0].shape, kwargs.get("dtype") or args[0].dtype))
        elif name in _CONVERT and args and isinstance(args[0], torch.Tensor):
            x = args[0]
            dtype = _CONVERT_DTYPE.get(name, x.dtype)
            if name == "to":
                for a in (*args[1:], kwargs.get("dtype")):
                    if isinstance(a, torch.dtype):
                        dtype = a
                    elif isinstance(a, torch.Tensor):
                        dtype = a.dtype
            return self._made(_meta_empty(x.shape, dtype))
        elif name in _ELEMENTWISE:
            ts = [a for a in args if isinstance(a, torch.Tensor)]
            if ts:
                shape = torch.broadcast_shapes(*(t.shape for t in ts))
                if name == "where":
                    dtype = torch.result_type(args[1], args[2])
                elif len(args) >= 2:
                    dtype = torch.result_type(args[0], args[1])
                else:
                    dtype = ts[0].dtype
                return self._made(_meta_empty(shape, dtype))
        return func(*args, **kwargs)


def dry_inputs(spec: KernelSpec, cfg: dict, dry: _DryRun | None = None) -> dict[str, Any]:
    """What ``make_inputs`` returns for ``cfg``, as empty meta tensors of the same shapes and
    dtypes (a dry run: nothing allocated, no meta kernel run). Raises what the builder raises."""
    with dry if dry is not None else _DryRun():
        return spec.make_inputs(dict(cfg), "meta", torch.Generator().manual_seed(0))


def plan_inputs(spec: KernelSpec, cfg: dict) -> InputPlan | None:
    """The tensors ``make_inputs`` builds for ``cfg``, and the bytes they take, without
    allocating them. None when the builder does something a dry run cannot follow."""
    dry = _DryRun()
    try:
        t = dry_inputs(spec, cfg, dry)
    except Exception:  # noqa: BLE001 - data-dependent builders cannot be planned
        return None
    tensors = {k: (tuple(v.shape), str(v.dtype).replace("torch.", ""), v.numel() * v.element_size())
               for k, v in t.items() if isinstance(v, torch.Tensor)}
    final = sum(b for _, _, b in tensors.values())
    # the reference upcasts inputs to float64; the check holds out, ref and diff in float64
    check_bytes = sum((32 if k in spec.outputs else 8) * (b // max(1, _itemsize(d)))
                      for k, (_, d, b) in tensors.items())
    return InputPlan(tensors, final, dry.largest, check_bytes)


#: bytes per tensor element of a trace's per-element maps (writer, reader, n_reads, n_writes,
#: n_readers: int32 each), and the most such maps a trace may hold: the trace crosses the worker
#: pipe (4 GiB frames) and is drawn by the GUI
TRACE_MAP_BYTES_PER_ELEMENT = 20
MAX_TRACE_MAP_BYTES = 1 << 31


def check_trace_size(spec: KernelSpec, values: dict) -> None:
    """Refuse (``ResourceError``, naming the largest shape) a trace whose per-element maps would
    not fit the worker pipe, or whose inputs and maps would not fit host memory. A window of
    programs does not help: the maps cover every element of every tensor."""
    cfg = spec.config(values)
    plan = plan_inputs(spec, cfg)
    if plan is None:
        return
    field_ = largest_shape_param(spec, cfg)
    n_elems = sum(b // max(1, _itemsize(d)) for _, d, b in plan.tensors.values())
    maps = n_elems * TRACE_MAP_BYTES_PER_ELEMENT
    if maps > MAX_TRACE_MAP_BYTES:
        raise ResourceError(
            f"too large to trace: the per-element maps of {n_elems:,} tensor elements would take "
            f"{_gib(maps)} (at most {_gib(MAX_TRACE_MAP_BYTES)}); a window of programs does not shrink "
            "them — trace smaller shapes", field=field_)
    host = host_available()
    need = plan.final_bytes + 2 * plan.largest_temp + 3 * maps  # deriving the maps needs ~3x them
    if host is not None and need > 0.9 * host:
        raise ResourceError(
            f"too large to trace in host memory: the inputs and the trace's maps need about {_gib(need)} "
            f"and {_gib(host)} is available; use smaller shapes", field=field_)


def _itemsize(dtype_name: str) -> int:
    return getattr(torch, dtype_name).itemsize


def memory_check(spec: KernelSpec, plan: InputPlan, be: Backend, field_: str | None) -> None:
    """Refuse, before anything is allocated, a problem that does not fit."""
    big = sorted(plan.tensors.items(), key=lambda kv: -kv[1][2])[:3]
    listing = ", ".join(f"{k} {'x'.join(map(str, s)) or 'scalar'} {d}" for k, (s, d, _) in big)
    host = host_available()
    if be.is_interpreter:
        need = plan.final_bytes + 2 * plan.largest_temp + plan.check_bytes
        if host is not None and need > 0.9 * host:
            raise ResourceError(
                f"too large for host memory: the inputs and outputs take {_gib(plan.final_bytes)} "
                f"({listing}) and the run with its float64 check about {_gib(need)}, "
                f"{_gib(host)} is available; use smaller shapes", field=field_)
        return
    avail, total = _device_available()
    if plan.final_bytes > 0.95 * avail:
        raise ResourceError(
            f"too large for device memory: the inputs and outputs take {_gib(plan.final_bytes)} "
            f"({listing}), {_gib(avail)} of {_gib(total)} is free; use smaller shapes", field=field_)
    if plan.final_bytes + plan.check_bytes > 0.95 * avail:
        raise ResourceError(
            f"too large to check in device memory: the inputs and outputs take {_gib(plan.final_bytes)} "
            f"and the float64 check about {_gib(plan.check_bytes)} more, {_gib(avail)} is free; "
            "use smaller shapes", field=field_)
    if host is not None and 2 * plan.largest_temp > 0.9 * host:
        raise ResourceError(
            f"too large for host memory: inputs are drawn on the host first ({_gib(plan.largest_temp)} "
            f"at a time) and {_gib(host)} is available; use smaller shapes", field=field_)


