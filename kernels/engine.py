"""The engine: run one kernel configuration, sweep a grid of them, benchmark the catalog.

``run(req)`` resolves the spec (loading ``req.user_file`` first), validates the values, checks
that the problem fits in memory, builds seeded inputs, poisons the outputs with NaN, launches on
the chosen backend, checks against the float64 reference, times Triton and torch in the same
run and collects the compile facts. It never raises for bad input or a failing kernel: every
failure is ``RunResult.error`` (kinds: validation, compile, launch, out_of_bounds, oom,
interpreter, user_file, cancelled, internal). Under the interpreter every access is checked
against the tensor arguments' storages first (``backends.AccessGuard``): a kernel addressing
memory it does not own stops with ``out_of_bounds`` instead of crashing the process.

Progress is reported as ``progress(stage, fraction)`` with stages "compiling", "running",
"checking", "timing" (then "done"); ``cancel()`` is polled between stages.

Memory: ``plan_inputs`` dry-runs ``make_inputs`` on shapes only, so a problem too large for the
device (or, on the interpreter, the host) is refused before anything is allocated. Sweeps and
``bench_all`` reuse one set of inputs across points whose shape/dtype/flag values and planned
tensors agree: a spec's ``make_inputs`` must draw its data from those values and the seed only.
"""

from __future__ import annotations

import itertools
import math
import statistics
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import torch
import triton

from . import backends, bench, check, compiled, device, userfile
from .errors import Cancelled, ResourceError, TilescopeError, first_line, to_error_info
from .params import ValidationError
from .results import (
    ErrorInfo,
    KernelInfo,
    RunRequest,
    RunResult,
    SweepPoint,
    SweepRequest,
    SweepResult,
)
from .spec import REGISTRY, KernelSpec

__all__ = [
    "AllocationGuard",
    "InputPlan",
    "bench_all",
    "check_trace_size",
    "describe_backends",
    "get_spec",
    "infos",
    "median_ratio",
    "plan_inputs",
    "run",
    "sweep",
]

Progress = Callable[[str, float], None]
Cancel = Callable[[], bool]

_catalog_loaded = False


def _load_catalog() -> None:
    global _catalog_loaded
    if not _catalog_loaded:
        import kernels.catalog  # noqa: F401  (registers the bundled specs)

        _catalog_loaded = True


def get_spec(name: str, user_file: str | None = None) -> KernelSpec:
    """The registered spec ``name`` (after loading the catalog and ``user_file``, if given)."""
    _load_catalog()
    if user_file:
        userfile.ensure_loaded(user_file)
    return REGISTRY.get(name)


def infos() -> list[KernelInfo]:
    """KernelInfo of every registered kernel (the catalog, and user files loaded so far)."""
    _load_catalog()
    return [s.info() for s in REGISTRY]


def describe_backends() -> dict[str, Any]:
    """What can run here: GPU available (and why not), device name, versions, bf16 probe."""
    ok, why = backends.gpu_status()
    probe = backends.bf16_probe()
    return {
        "gpu_available": ok,
        "gpu_reason": why,
        "device_name": torch.cuda.get_device_name() if ok else None,
        "default": "gpu" if ok else "interpreter",
        "triton_version": triton.__version__,
        "torch_version": torch.__version__,
        "interpreter_bf16_ok": probe.ok,
        "interpreter_bf16_detail": probe.detail,
    }


# ---------------------------------------------------------------------------------------------
# memory
#
# A shape too large must be refused *before* it is allocated: on the host, Linux overcommits and
# a too-large tensor gets the process killed later, taking the worker with it. ``make_inputs``
# runs under ``AllocationGuard``, which adds up the bytes each tensor-creating call is about to
# allocate and refuses once they pass what is free. (Building on the meta device would give the
# shapes without allocating, but its first use imports torch._dynamo: seconds on every CLI run.)


def _host_available() -> int | None:
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


def _budgets(be: backends.Backend) -> dict[str, int]:
    b: dict[str, int] = {}
    host = _host_available()
    if host is not None:
        b["cpu"] = int(0.9 * host)
    if not be.is_interpreter:
        b["cuda"] = int(0.95 * _device_available()[0])
    return b


def _check_fits(spec: KernelSpec, tensors: dict, be: backends.Backend, field_: str | None) -> None:
    """After the inputs exist: is there room for the float64 reference and the comparison?"""
    sizes = [(k in spec.outputs, t.numel()) for k, t in tensors.items() if isinstance(t, torch.Tensor)]
    # the reference upcasts inputs to float64; the check holds out, ref and diff in float64
    need = sum(32 * n if is_out else 8 * n for is_out, n in sizes)
    if be.is_interpreter:
        avail, where = _host_available(), "host memory"
    else:
        avail, where = _device_available()[0], "device memory"
    if avail is not None and need > 0.95 * avail:
        raise ResourceError(
            f"too large to check in {where}: the float64 reference and comparison need about "
            f"{_gib(need)} beyond the inputs and {_gib(avail)} is free; use smaller shapes", field=field_)


def _largest_shape_param(spec: KernelSpec, cfg: dict) -> str | None:
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


def plan_inputs(spec: KernelSpec, cfg: dict) -> InputPlan | None:
    """The tensors ``make_inputs`` builds for ``cfg``, and the bytes they take, without
    allocating them. None when the builder does something a dry run cannot follow."""
    gen = torch.Generator().manual_seed(0)
    dry = _DryRun()
    try:
        with dry:
            t = spec.make_inputs(dict(cfg), "meta", gen)
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
    field_ = _largest_shape_param(spec, cfg)
    n_elems = sum(b // max(1, _itemsize(d)) for _, d, b in plan.tensors.values())
    maps = n_elems * TRACE_MAP_BYTES_PER_ELEMENT
    if maps > MAX_TRACE_MAP_BYTES:
        raise ResourceError(
            f"too large to trace: the per-element maps of {n_elems:,} tensor elements would take "
            f"{_gib(maps)} (at most {_gib(MAX_TRACE_MAP_BYTES)}); a window of programs does not shrink "
            "them — trace smaller shapes", field=field_)
    host = _host_available()
    need = plan.final_bytes + 2 * plan.largest_temp + 3 * maps  # deriving the maps needs ~3x them
    if host is not None and need > 0.9 * host:
        raise ResourceError(
            f"too large to trace in host memory: the inputs and the trace's maps need about {_gib(need)} "
            f"and {_gib(host)} is available; use smaller shapes", field=field_)


def _itemsize(dtype_name: str) -> int:
    return getattr(torch, dtype_name).itemsize


def _memory_check(spec: KernelSpec, plan: InputPlan, be: backends.Backend, field_: str | None) -> None:
    """Refuse, before anything is allocated, a problem that does not fit."""
    big = sorted(plan.tensors.items(), key=lambda kv: -kv[1][2])[:3]
    listing = ", ".join(f"{k} {'x'.join(map(str, s)) or 'scalar'} {d}" for k, (s, d, _) in big)
    host = _host_available()
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


# ---------------------------------------------------------------------------------------------
# input cache (sweeps and autotuning reuse one set of inputs across block sizes)


@dataclass
class _InputCache:
    key: Any = None
    tensors: dict[str, Any] | None = None

    def nbytes(self) -> int:
        if not self.tensors:
            return 0
        return sum(t.numel() * t.element_size() for t in self.tensors.values() if isinstance(t, torch.Tensor))

    def clear(self) -> None:
        self.key, self.tensors = None, None


def _input_key(spec: KernelSpec, cfg: dict, be: backends.Backend, seed: int, plan: InputPlan | None) -> Any:
    """Inputs can be reused across runs whose data parameters and planned tensors agree (a
    constexpr such as HEAD_DIM may shape the inputs too, hence the plan's signature)."""
    if plan is None:
        return None
    data_values = tuple(sorted((p.name, repr(cfg[p.name])) for p in spec.params
                               if p.kind in ("shape", "dtype", "flag")))
    return (spec.name, spec.origin, id(spec), be.device, seed, data_values, plan.signature())


# ---------------------------------------------------------------------------------------------
# one run


@dataclass
class _State:
    stage: str = "preparing"
    notes: list[str] = field(default_factory=list)


def _versions(res: RunResult) -> None:
    res.triton_version = triton.__version__
    res.torch_version = torch.__version__


def run(req: RunRequest, progress: Progress | None = None, cancel: Cancel | None = None,
        _cache: _InputCache | None = None, _torch_timing: Any = None) -> RunResult:
    """Run one configuration; every failure is returned in ``RunResult.error``."""
    t0 = time.perf_counter()
    res = RunResult(request=req, kernel=req.kernel, values=dict(req.values), backend=req.backend,
                    device="", generation=req.generation)
    _versions(res)
    st = _State()
    try:
        spec = get_spec(req.kernel, req.user_file)
        _run_spec(res, spec, req, st, progress, cancel, _cache, _torch_timing)
    except Exception as e:  # noqa: BLE001 - the engine reports, it does not raise
        res.error = to_error_info(e, st.stage)
        if res.error.kind == "launch" and "illegal" in res.error.message.lower():
            res.error.message += " — the CUDA context is now unusable: restart the worker"
        if _cache is not None and res.error.kind in ("launch", "oom"):
            _cache.clear()
    res.notes = st.notes + [n for n in res.notes if n not in st.notes]
    res.wall_s = time.perf_counter() - t0
    return res


def _tick(progress: Progress | None, cancel: Cancel | None, stage: str, fraction: float) -> None:
    if cancel is not None and cancel():
        raise Cancelled(f"cancelled before {stage}")
    if progress is not None:
        progress(stage, fraction)


def _run_spec(res: RunResult, spec: KernelSpec, req: RunRequest, st: _State,
              progress: Progress | None, cancel: Cancel | None, cache: _InputCache | None,
              torch_timing_given: Any) -> None:
    cfg = spec.config(req.values)
    res.values = dict(cfg)
    be = backends.resolve(req.backend)
    res.backend, res.device = be.name, be.device_name
    st.notes.extend(be.notes)
    for p in spec.params:
        if p.kind == "dtype":
            backends.check_dtype(be, cfg[p.name])
    dtype = str(cfg.get("dtype", ""))
    if be.is_interpreter and dtype in spec.interpreter_faults:
        st.notes.append(f"known interpreter fault for {dtype}: {spec.interpreter_faults[dtype]}")

    # -- memory, inputs --------------------------------------------------------------------------
    field_ = _largest_shape_param(spec, cfg)
    plan = plan_inputs(spec, cfg)
    key = _input_key(spec, cfg, be, req.seed, plan) if cache is not None else None
    if cache is not None and (key is None or key != cache.key):
        cache.clear()  # before the memory check: its tensors are about to be freed
    reuse = cache is not None and key is not None and cache.key == key and cache.tensors is not None
    if plan is not None and not reuse:
        _memory_check(spec, plan, be, field_)
    _tick(progress, cancel, "compiling", 0.05)
    st.stage = "building inputs"
    if reuse:
        tensors = cache.tensors  # type: ignore[union-attr]
    else:
        gen = torch.Generator().manual_seed(int(req.seed))
        if plan is None:  # a builder the dry run cannot follow: count as it allocates
            with AllocationGuard(_budgets(be), field_):
                tensors = spec.make_inputs(dict(cfg), be.device, gen)
            _check_fits(spec, tensors, be, field_)
        else:
            tensors = spec.make_inputs(dict(cfg), be.device, gen)
        if cache is not None and key is not None:
            cache.key, cache.tensors = key, tensors
    missing = [o for o in spec.outputs if o not in tensors]
    if missing:
        raise TilescopeError(f"{spec.name}: make_inputs returned no output tensor {missing[0]!r}")
    check.poison(tensors, spec.outputs)

    # -- launch ----------------------------------------------------------------------------------
    st.stage = "launch"
    cfg_run = dict(cfg)

    t_next = [time.perf_counter() + 0.5]

    def program_progress(pid: int, n: int) -> None:
        # interpreted launches run program by program: a long one reports how far it got
        # (the stage stays "running"; a short one reports nothing more)
        now = time.perf_counter()
        if progress is not None and now >= t_next[0]:
            t_next[0] = now + 0.25
            progress("running", 0.05 + 0.25 * pid / max(1, n))

    with be.activate(spec.kernels, progress=program_progress) as K:
        t_launch = time.perf_counter()
        ret = spec.launch(K, tensors, cfg_run)
        if not be.is_interpreter:
            _tick(progress, None, "running", 0.3)
            torch.cuda.synchronize()
        launch_ms = (time.perf_counter() - t_launch) * 1e3
        st.notes.extend(n for n in be.run_notes if n not in st.notes)
    grid = cfg_run.get("_grid")
    res.grid = tuple(int(g) for g in grid) if grid is not None else ()
    if grid is None:
        st.notes.append("the launcher did not record its grid (cfg['_grid'])")
    if be.is_interpreter:
        _tick(progress, None, "running", 0.3)

    # -- check -----------------------------------------------------------------------------------
    _tick(progress, cancel, "checking", 0.45)
    st.stage = "checking"
    refs = spec.reference(tensors, cfg)
    atol, rtol = spec.tolerance(cfg)
    res.check = check.check_outputs(tensors, refs, spec.outputs, atol, rtol, dtype, req.keep_error_map)
    del refs
    if not res.check.passed and cache is not None:
        cache.clear()  # a kernel that writes where it should not may have touched the inputs

    # -- timing ----------------------------------------------------------------------------------
    timing = torch_timing = None
    peak_gbps = peak_tflops = None
    if req.bench:
        _tick(progress, cancel, "timing", 0.6)
        st.stage = "timing"
        if be.is_interpreter:
            # the launch above was the timed run: the interpreter's speed is Python's, not a GPU's
            timing = bench.timing_from_samples([launch_ms], bench.INTERPRETER_METHOD, True)
            if req.torch_baseline and spec.torch_op is not None:
                torch_timing = torch_timing_given or bench.wall_time(
                    lambda: spec.torch_op(tensors, cfg), reps=21, method=bench.CPU_TORCH_METHOD,
                    is_interpreter=False, budget_s=0.5)
        else:
            with be.activate(spec.kernels) as K:
                timing = bench.gpu_time(lambda: spec.launch(K, tensors, dict(cfg)))
            if req.torch_baseline and spec.torch_op is not None:
                torch_timing = torch_timing_given or bench.gpu_time(lambda: spec.torch_op(tensors, cfg))
            try:
                pk = device.peaks()
            except Exception as e:  # noqa: BLE001 - a failed peak measurement loses only the %
                pk = None
                st.notes.append(f"device peaks not measured: {first_line(str(e))}")
            if pk is not None:
                peak_gbps, peak_tflops = pk.copy_gbps, pk.matmul_tflops
    res.timing = timing
    res.metrics = bench.metrics(spec.bytes_moved(cfg), spec.flops(cfg), timing, torch_timing,
                                peak_gbps, peak_tflops)

    # -- compile facts ---------------------------------------------------------------------------
    if req.compile_facts:
        st.stage = "reading compile facts"
        if be.is_interpreter:
            st.notes.append("compile facts (registers, shared memory, IR, occupancy) need a GPU: "
                            "the interpreter does not compile")
        elif ret is None or not hasattr(ret, "metadata"):
            st.notes.append("the launcher returned no compiled kernel: compile facts unavailable")
        else:
            limits = device.device_facts("gpu").limits
            n_programs = math.prod(res.grid) if res.grid else 0
            res.compile, notes = compiled.compile_facts(ret, n_programs, limits, req.keep_asm)
            st.notes.extend(notes)
    _tick(progress, None, "done", 1.0)


# ---------------------------------------------------------------------------------------------
# sweeps


def _norm(spec: KernelSpec, name: str, value: Any) -> Any:
    """A value as the spec parses it, so that "128" and 128 name the same sweep point."""
    try:
        return spec.param(name).parse(value)
    except (KeyError, ValidationError):
        return value


def sweep(req: SweepRequest, progress: Progress | None = None, cancel: Cancel | None = None,
          on_point: Callable[[SweepPoint], None] | None = None) -> SweepResult:
    """Run every combination of the 1–2 swept parameters; best = fastest passing point."""
    out = SweepResult(request=req, points=[], best=None, generation=req.generation)
    try:
        spec = get_spec(req.kernel, req.user_file)
    except Exception as e:  # noqa: BLE001
        out.error = to_error_info(e)
        return out
    names = list(req.axes)
    if not 1 <= len(names) <= 2:
        out.error = ErrorInfo("validation", f"a sweep takes one or two parameters, got {len(names)}"
                              + (f" ({', '.join(names)})" if names else ""))
        return out
    known = {p.name for p in spec.params}
    for n in names:
        if n not in known:
            out.error = ErrorInfo("validation", f"unknown parameter {n!r} (known: {', '.join(sorted(known))})",
                                  field=n)
            return out
        if not req.axes[n]:
            out.error = ErrorInfo("validation", f"no values to sweep for {n}", field=n)
            return out
    combos = [dict(zip(names, vals, strict=True)) for vals in itertools.product(*(req.axes[n] for n in names))]
    skip = {tuple(_norm(spec, n, s.get(n)) for n in names) for s in req.skip}
    todo = [c for c in combos if tuple(_norm(spec, n, c[n]) for n in names) not in skip]
    cache = _InputCache()
    torch_timings: dict[Any, Any] = {}
    for i, combo in enumerate(todo):
        if cancel is not None and cancel():
            out.error = ErrorInfo("cancelled", f"cancelled after {i} of {len(todo)} points")
            break
        values = {**req.base, **combo}

        def sub(stage: str, f: float, i: int = i) -> None:
            if progress is not None:
                progress(f"{stage} ({i + 1}/{len(todo)})", (i + f) / len(todo))

        rreq = RunRequest(kernel=req.kernel, values=values, backend=req.backend, seed=req.seed,
                          torch_baseline=req.torch_baseline, keep_asm=False, keep_error_map=False,
                          user_file=req.user_file, generation=req.generation)
        # torch's time depends on the data only: measure it once per input set
        r = run(rreq, sub, None, _cache=cache, _torch_timing=torch_timings.get(cache.key))
        if cache.key is not None and r.metrics is not None and r.metrics.torch_timing is not None:
            torch_timings.setdefault(cache.key, r.metrics.torch_timing)
        pt = SweepPoint(values={n: _norm(spec, n, combo[n]) for n in names}, result=r)
        out.points.append(pt)
        if on_point is not None:
            on_point(pt)
    cache.clear()
    out.best = _best([p.result for p in out.points])
    return out


def _best(results: list[RunResult]) -> int | None:
    best, best_ms = None, math.inf
    for i, r in enumerate(results):
        if r.ok and r.timing is not None and r.timing.median_ms < best_ms:
            best, best_ms = i, r.timing.median_ms
    return best


# ---------------------------------------------------------------------------------------------
# benchmark the catalog


def _shrink_for_interpreter(spec: KernelSpec, values: dict) -> tuple[dict, list[str]]:
    """Interpreter-sized values: each shape at most the spec's default (the GUI's everyday size);
    bf16 becomes fp32 when the interpreter's bf16 is refused."""
    notes: list[str] = []
    out = dict(values)
    changed = []
    for p in spec.params:
        if p.kind == "shape" and isinstance(out.get(p.name), int) and out[p.name] > p.default:
            changed.append(f"{p.name} {out[p.name]} → {p.default}")
            out[p.name] = p.default
    if changed:
        notes.append("shapes shrunk for the interpreter: " + ", ".join(changed))
    if out.get("dtype") == "bf16" and not backends.bf16_probe().ok:
        out["dtype"] = "fp32"
        notes.append("bf16 → fp32: the interpreter's bf16 is refused")
    if not spec.validate(out).ok:  # the shrunk shapes broke a rule: use the defaults throughout
        out = spec.defaults()
        notes.append("the case does not fit the interpreter: ran the kernel's defaults")
    return out, notes


def _row(spec: KernelSpec, case: dict, r: RunResult, notes: list[str]) -> dict[str, Any]:
    m = r.metrics
    pct = None
    if m is not None:
        pct = m.pct_peak_flops if spec.metric == "TFLOP/s" else m.pct_peak_bw
    return {
        "kernel": spec.name,
        "title": spec.title,
        "case": dict(case),
        "values": dict(r.values),
        "backend": r.backend,
        "device": r.device,
        "passed": bool(r.check.passed) if r.check is not None else None,
        "check_reason": r.check.reason if r.check is not None else "",
        "max_abs_err": r.check.max_abs_err if r.check is not None else None,
        "triton_ms": r.timing.median_ms if r.timing else None,
        "torch_ms": m.torch_timing.median_ms if m and m.torch_timing else None,
        "ratio": m.ratio_vs_torch if m else None,
        "metric": spec.metric,
        "gbps": m.gbps if m else None,
        "tflops": m.tflops if m else None,
        "torch_gbps": m.torch_gbps if m else None,
        "torch_tflops": m.torch_tflops if m else None,
        "pct_peak": pct,
        "timing_method": r.timing.method if r.timing else "",
        "n_regs": r.compile.n_regs if r.compile else None,
        "n_spills": r.compile.n_spills if r.compile else None,
        "autotune": None,
        "notes": list(notes) + [n for n in r.notes if n != backends.INTERPRETER_NOTE],
        "error": r.error.message if r.error else None,
        "error_kind": r.error.kind if r.error else None,
    }


def bench_all(backend: str = "auto", progress: Progress | None = None,
              names: Iterable[str] | None = None, autotune: bool = True) -> list[dict[str, Any]]:
    """Every spec's bench cases, Triton against torch in the same run, one dict per case.

    On the GPU a spec's ``autotune_configs`` are each timed on the case's inputs and the fastest
    passing one is kept (``row["autotune"]`` says which won). On the interpreter the shapes are
    shrunk to run in seconds (the row's notes say so) and no configs are tried."""
    _load_catalog()
    try:
        be = backends.resolve(backend)
    except TilescopeError as e:
        return [{"kernel": "*", "error": e.message, "error_kind": e.kind}]
    wanted = list(names) if names is not None else None
    specs = [s for s in REGISTRY if wanted is None or s.name in wanted]
    if wanted is not None:
        unknown = [n for n in wanted if n not in REGISTRY]
        if unknown:
            return [{"kernel": n, "error": f"unknown kernel {n!r}", "error_kind": "validation"} for n in unknown]
    jobs = [(s, c) for s in specs for c in (s.bench_cases or ({},))]
    rows: list[dict[str, Any]] = []
    for j, (spec, case) in enumerate(jobs):
        if progress is not None:
            progress(f"{spec.name} ({j + 1}/{len(jobs)})", j / max(1, len(jobs)))
        values = {**spec.defaults(), **case}
        notes: list[str] = []
        if be.is_interpreter:
            values, notes = _shrink_for_interpreter(spec, values)
        configs = list(spec.autotune_configs) if (autotune and not be.is_interpreter) else []
        cache = _InputCache()
        base = RunRequest(kernel=spec.name, values=values, backend=be.name, keep_asm=False,
                          keep_error_map=False, user_file=None if spec.origin == "catalog" else spec.origin)
        first = run(base, _cache=cache)
        if not configs:
            rows.append(_row(spec, case, first, notes))
            cache.clear()
            continue
        torch_t = first.metrics.torch_timing if first.metrics else None
        tried = [("case", dict(case), first)]
        for cv in configs:
            rr = RunRequest(kernel=spec.name, values={**values, **cv}, backend=be.name, keep_asm=False,
                            keep_error_map=False, user_file=base.user_file)
            tried.append(("config", dict(cv), run(rr, _cache=cache, _torch_timing=torch_t)))
        cache.clear()
        b = _best([t[2] for t in tried])
        chosen = tried[b][2] if b is not None else first
        row = _row(spec, case, chosen, notes)
        row["autotune"] = {
            "tried": len(tried),
            "best": (dict(tried[b][1]) if b is not None else None),
            "best_is_case": b == 0,
            "results": [{"source": src, "config": cv, "ms": r.timing.median_ms if r.timing else None,
                         "passed": bool(r.check.passed) if r.check else False,
                         "error": r.error.message if r.error else None} for src, cv, r in tried],
        }
        rows.append(row)
    if progress is not None:
        progress("done", 1.0)
    return rows


def median_ratio(rows: list[dict[str, Any]], kernel: str) -> float | None:
    """A kernel's ratio against torch summarized over its rows (median of the rows that have one)."""
    rs = [r["ratio"] for r in rows if r.get("kernel") == kernel and r.get("ratio")]
    return statistics.median(rs) if rs else None

