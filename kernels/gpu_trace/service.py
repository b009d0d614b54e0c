"""The GPU recorder's entry points: a registered kernel traced from its instrumented build.

``gpu_trace_spec(spec, values, ...)`` prepares the launch (``kernels.run.prepare``, inputs on the
device), runs the spec's launcher with a ``K`` that swaps the chosen launch for the instrumented
build (``rewrite.instrument``) with its shadow buffers (``shadow.Recording``) as extra arguments,
and turns the buffers into the same ``Trace`` the interpreter recorder makes (maps, per-program
statistics, out-of-bounds records), plus the schedule (``model.Timeline``) on CUDA.

``device="cpu"`` runs the very same instrumented build under Triton's interpreter (the CPU tests
compare its maps with the interpreter recorder's element for element); the schedule needs inline
assembly and exists on CUDA only.

What the trace holds that differs from an interpreter trace: ``Trace.events`` (the per-access
record the K-step view draws) is empty, or — with ``events_window`` — recorded by the interpreter
recorder (``kernels.trace``) for that window of programs on the same seeded inputs; every map and
statistic covers every program. Maps larger than ``max_elements`` are reduced by blocks on the GPU
(``GpuTraceInfo.map_strides``); ``GpuTrace.region`` (``keep=True``) gives a part at full resolution.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..data.backends import GPU
from ..data.coarse import CoarseTrace
from ..data.errors import BackendUnavailable, ResourceError, TraceUnsupported, to_error_info
from ..data.gpu_trace import MAX_MAP_ELEMENTS, GpuTraceInfo, GpuTraceResult, Timeline
from ..data.maps import waves
from ..data.params import ValidationError
from ..data.results import ErrorInfo, Progress
from ..data.trace import AccessTable, TensorInfo, TensorMaps, Trace, TraceRequest, Window
from ..interp import Interpreter, TensorArg, bind, constexpr_names, grid3, plain
from ..interp.args import REACHED_ATTR, tensor_arg
from ..run.backends import gpu_status, interpreter_backend
from ..run.prepare import InputCache, prepare
from ..sources.lookup import get_spec
from ..specs.spec import jit_source
from .device import OOB_CAP
from .footprints import TileEvents, tile_events
from .rewrite import instrument
from .shadow import Recording

__all__ = ["GpuTrace", "build_kwargs", "gpu_trace", "gpu_trace_launch", "gpu_trace_spec", "instrumented_launch", "n_maps_of", "require_cuda"]

_CPU = interpreter_backend()
ProgressFn = Callable[[Progress], Any]


def require_cuda() -> None:
    """Raise BackendUnavailable (one line) when no CUDA device can run the GPU recorder."""
    ok, why = gpu_status()
    if not ok:
        raise BackendUnavailable(f"the GPU recorder needs a CUDA device ({why}); trace on the CPU with "
                                 "--backend interpreter")


@dataclass
class GpuTrace:
    """A GPU trace: ``trace`` (None in timeline-only mode), ``timeline`` (None without CUDA),
    ``info``; with ``keep=True`` the shadow buffers stay on the device for ``region``."""

    trace: Trace | None
    timeline: Timeline | None
    info: GpuTraceInfo
    recording: Recording | None = field(default=None, repr=False)
    #: each program's accesses from its tile records (``footprints``), when asked for
    tile_events: TileEvents | None = field(default=None, repr=False)

    def region(self, tensor: str | int, index: tuple[slice | int, ...]) -> TensorMaps:
        """Maps of ``tensor`` (name or index) over ``index`` at full resolution (needs ``keep=True``)."""
        if self.recording is None or self.recording.S == 0:
            raise ValueError("the shadow buffers were released: trace again with keep=True")
        t = tensor if isinstance(tensor, int) else [a.info.name for a in self.recording.tensors].index(tensor)
        return self.recording.region(t, index)

    def release(self) -> None:
        if self.recording is not None:
            self.recording.release()
            self.recording = None


# ---------------------------------------------------------------------------------------------
# the launch


def _tensor_arg(name: str, t: Any) -> TensorArg:
    """A tensor argument on any device (the interpreter layer's ``tensor_arg`` takes CPU tensors)."""
    if t.device.type == "cpu":
        return tensor_arg(name, t)
    st, shape, strides = t.untyped_storage(), tuple(t.shape), tuple(t.stride())
    last = sum((n - 1) * s for n, s in zip(shape, strides, strict=True)) if t.numel() else 0
    info = TensorInfo(name, shape, strides, str(t.dtype).removeprefix("torch."), t.storage_offset(), t.element_size())
    return TensorArg(info, t.data_ptr(), st.data_ptr(), st.nbytes(), 0, last, t.is_contiguous())


def _split(bound: dict[str, Any], consts: set[str]) -> tuple[list[TensorArg], dict[str, Any], dict[str, Any]]:
    """(tensors, scalars, constexprs) of a bound launch; a tuple's tensors are named ``arg[i]``."""
    import torch

    tensors: list[TensorArg] = []
    scalars: dict[str, Any] = {}
    constexprs: dict[str, Any] = {}
    for name, v in bound.items():
        if name in consts:
            constexprs[name] = plain(v)
            continue
        parts = [(f"{name}[{i}]", x) for i, x in enumerate(v)] if isinstance(v, tuple) else [(name, v)]
        found = [_tensor_arg(n, x) for n, x in parts if isinstance(x, torch.Tensor)]
        # a pointer table's tensors (kernels.script.pointer_tables) and a descriptor's base are
        # reached by the kernel too: their addresses belong to them, not out of bounds
        found += [_tensor_arg(n, t) for n, t in getattr(v, REACHED_ATTR, ())]
        if hasattr(v, "block_shape") and isinstance(getattr(v, "base", None), torch.Tensor):
            tensors.append(_tensor_arg(f"{name}.base", v.base))
        if found:
            tensors += found
        else:
            scalars[name] = plain(v)
    return tensors, scalars, constexprs


@dataclass
class _Launched:
    fn: Any  # the user's JITFunction (the instrumented build ran in its place)
    grid: tuple[int, int, int]
    tensors: list[TensorArg]
    scalars: dict[str, Any]
    constexprs: dict[str, Any]
    rec: Recording
    n_sites: int
    passes: int = 1
    lane_sites: int = 0
    compiled: Any = None
    compile_s: float = 0.0
    launch_s: float = 0.0
    kernel_ms: float | None = None


class _Capture:
    """``K`` for the spec's launcher: launch ``index`` runs instrumented, earlier ones plainly,
    later ones not at all (a trace is of one launch)."""

    def __init__(self, index: int, run: Callable[..., Any], record: Callable[..., _Launched]) -> None:
        self.index, self.run, self.record = index, run, record
        self.n = 0
        self.done: _Launched | None = None

    def K(self, fn: Any) -> Any:
        cap = self

        class Site:
            def __getitem__(self, grid: Any) -> Callable[..., Any]:
                return lambda *args, **kwargs: cap.launch(fn, grid, args, kwargs)

            def __getattr__(self, name: str) -> Any:
                return getattr(fn, name)
        return Site()

    def launch(self, fn: Any, grid: Any, args: tuple, kwargs: dict) -> Any:
        i, self.n = self.n, self.n + 1
        if i == self.index:
            self.done = self.record(fn, grid, args, kwargs)
            return getattr(self.done, "compiled", None)
        return self.run(fn, grid, args, kwargs) if i < self.index else None


def _record_launch(fn: Any, grid: Any, args: tuple, kwargs: dict, *, mode: str, device: str,
                   run: Callable[..., Any]) -> _Launched:
    if type(fn).__name__.startswith("Gluon"):  # its instrumented twin would be a Triton kernel: no compile
        raise TraceUnsupported(f"{fn.fn.__name__} is a Gluon kernel: the GPU recorder instruments Triton kernels "
                               "only, and the interpreter cannot run Gluon; its runs and checks work, and the "
                               "layout view shows its layouts")
    bound = bind(fn, args, kwargs)
    g3 = grid3(grid, bound)
    tensors, scalars, constexprs = _split(bound, constexpr_names(fn))
    inst = instrument(fn, mode)
    n_programs = int(g3[0] * g3[1] * g3[2])
    n_maps = n_maps_of(inst, mode)
    on_gpu = device != "cpu"
    if on_gpu:
        import torch

        need = Recording.nbytes_needed(tensors, n_programs, n_maps) + (_Inputs.nbytes(tensors) if n_maps else 0)
        free = torch.cuda.mem_get_info()[0]
        if need > 0.9 * free:
            raise ResourceError(f"the GPU recorder needs {need / 2**30:.1f} GiB of shadow maps, more than the "
                                f"{free / 2**30:.1f} GiB free on the device: trace a smaller problem")
    rec = Recording(tensors, n_programs, device, n_maps, with_maps=mode == "maps")
    kw = build_kwargs(kwargs, rec, mode, on_gpu)
    out = _Launched(fn, g3, tensors, scalars, constexprs, rec, inst.n_sites)

    def launch_once(lanes: int) -> None:
        kw["_TS_LANES"] = lanes
        if on_gpu:
            _gpu_launch(inst.fn, grid, args, kw, out)
        else:
            t0 = time.perf_counter()
            run(inst.fn, grid, args, kw)
            out.launch_s += time.perf_counter() - t0

    if mode != "maps":
        launch_once(-1)
        return out
    saved = _Inputs(bound.values())
    out.passes, out.lane_sites = _maps_passes(launch_once, rec, saved, inst.n_sites)
    return out


def n_maps_of(inst: Any, mode: str) -> int:
    """The shadow maps a build of ``mode`` records (none for the timeline build)."""
    return (7 if inst.has_atomics else 6) if mode == "maps" else 0


def build_kwargs(kwargs: dict, rec: Recording, mode: str, on_gpu: bool) -> dict[str, Any]:
    """The instrumented build's keyword arguments: the launch's own, the maps build's launch
    options and the recording's buffers and constexprs (``_TS_LANES`` is set per launch)."""
    return {**kwargs, **_maps_options(mode), **rec.kwargs(time=on_gpu)}


class _Inputs:
    """A copy of the storages of a launch's tensors, to run it again on the same inputs."""

    def __init__(self, values: Any) -> None:
        import torch

        found: dict[tuple, Any] = {}
        for v in values:
            for x in (v if isinstance(v, tuple) else (v,)):
                if isinstance(x, torch.Tensor) and x.untyped_storage().nbytes():
                    st = x.untyped_storage()
                    found.setdefault((st.device.type, st.data_ptr()), st)
        self.saved = [(st, st.clone()) for st in found.values()]

    @staticmethod
    def nbytes(tensors: list[TensorArg]) -> int:
        return sum({a.storage_ptr: a.storage_nbytes for a in tensors}.values())

    def restore(self) -> None:
        for st, copy in self.saved:
            st.copy_(copy)


def _maps_passes(launch_once: Callable[[int], None], rec: Recording, saved: _Inputs, n_sites: int
                 ) -> tuple[int, int]:
    """Launch the maps build with the per-lane path compiled into no access site that can do
    without it (``device.lanes_mask``): it is most of the build's registers and compile time, and
    a matmul's every access is a tile record. When sites flag that they met an access that is not
    a tile, launch again on the restored inputs with the per-lane path in those sites (and, should
    another site flag then — its accesses depend on data the first launch did not load — a third
    time with it everywhere). (launches, sites with the per-lane path in the last one)."""
    from .device import FLAG_SITES, lanes_mask

    sites: int | None = 0
    for n in range(1, 4):
        launch_once(lanes_mask(sites))
        flagged = rec.flags()
        if not flagged:
            break
        saved.restore()
        rec.reset()
        sites = flagged if n == 1 else None
    compiled = n_sites if sites is None else bin(sites).count("1") + max(0, n_sites - FLAG_SITES)
    return n, compiled


#: launch options of the maps build: Triton's software pipeliner runs a loop's loads (and so the
#: recording before each) for iterations past the loop's end with their lanes switched off; the
#: recording cannot tell those from real fully masked accesses (H200, Triton 3.6: a plain matmul's
#: programs counted one K step too many, all lanes masked). None: the launch's own
MAPS_NUM_STAGES: int | None = 1


def _maps_options(mode: str) -> dict[str, Any]:
    return {"num_stages": MAPS_NUM_STAGES} if mode == "maps" and MAPS_NUM_STAGES is not None else {}


def _gpu_launch(fn: Any, grid: Any, args: tuple, kw: dict, out: _Launched) -> None:
    """Compile (timed apart: ``JITFunction.warmup(*args, grid=..., **kwargs)``, the same in Triton
    3.6 and 3.9; on 3.6 the kernel's C launcher is built on a thread meanwhile,
    ``compile_target.launcher_builder``), then the launch on CUDA events."""
    import threading

    import torch

    from ..compile.target import launcher_builder

    t0 = time.perf_counter()
    build = launcher_builder(fn, args, kw) if out.compiled is None else None  # Triton 3.6: gcc, beside the compile
    helper = threading.Thread(target=build, name="tilescope-launcher", daemon=True) if build else None
    if helper is not None:
        helper.start()
    fn.warmup(*args, grid=grid, **kw)
    if helper is not None:
        helper.join()
    t1 = time.perf_counter()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    out.compiled = fn[grid](*args, **kw)
    end.record()
    torch.cuda.synchronize()
    out.compile_s += t1 - t0
    out.launch_s += time.perf_counter() - t1
    out.kernel_ms = float(start.elapsed_time(end))  # the last launch's


def instrumented_launch(launch: Callable[[Any], Any], mode: str, *, device: str = "cuda", launch_index: int = 0,
                        ) -> tuple[Callable[[], Any], Recording | None]:
    """A function of no arguments that runs launch ``launch_index`` of ``launch(K)`` again — as
    the maps build (``mode="maps"``), the timeline build (``"timeline"``) or as written
    (``"plain"``) — on the same arguments and shadow buffers (not reset between calls): what a
    benchmark times to see the recording's cost. Nothing runs until it is called (CUDA only)."""
    got: list[tuple] = []

    def capture(fn: Any, grid: Any, args: tuple, kwargs: dict) -> _Launched:
        got.append((fn, grid, args, kwargs))
        return None  # type: ignore[return-value]

    cap = _Capture(launch_index, lambda *a: None, capture)
    launch(cap.K)
    if not got:
        raise ValueError(f"the launcher made {cap.n} launch(es); launch {launch_index} never happened")
    fn, grid, args, kwargs = got[0]
    if mode == "plain":
        return (lambda: fn[grid](*args, **kwargs)), None
    bound = bind(fn, args, kwargs)
    g3 = grid3(grid, bound)
    tensors, _, _ = _split(bound, constexpr_names(fn))
    inst = instrument(fn, mode)
    rec = Recording(tensors, int(np.prod(g3)), device, 7 if inst.has_atomics else 6, with_maps=mode == "maps")
    kw = build_kwargs(kwargs, rec, mode, device != "cpu")

    def once(lanes: int) -> Any:
        kw["_TS_LANES"] = lanes
        if mode == "maps":  # each launch records its tiles afresh (not past the capacity into the per-lane path)
            rec.stats[:, 4].zero_()
        return inst.fn[grid](*args, **kw)

    if mode == "maps":  # the build the trace's last launch uses (inputs are not restored: a benchmark)
        rec.passes, _ = _maps_passes(once, rec, _Inputs(()), inst.n_sites)
    return (lambda: once(kw["_TS_LANES"])), rec


# ---------------------------------------------------------------------------------------------
# the trace


def _no_events() -> AccessTable:
    z32 = np.zeros(0, np.int32)
    return AccessTable(program=z32, op=np.zeros(0, np.int8), tensor=np.zeros(0, np.int16), line=z32,
                       iters=np.zeros((0, 0), np.int32), n_active=z32, n_masked=z32, n_oob=z32,
                       lane_start=np.zeros(0, np.int64), elements=z32)


def _occupancy(ln: _Launched, on_gpu: bool) -> tuple[int, int]:
    """(SMs, programs per SM) of the build that ran (its compile facts; the maps build holds more
    registers than the kernel as written): the timeline's formula. (132, 1) without CUDA."""
    if not on_gpu or ln.compiled is None:
        return 132, 1
    from ..compile import facts as compiled
    from ..run.device import device_facts

    facts, _ = compiled.compile_facts(ln.compiled, int(np.prod(ln.grid)), device_facts(GPU).limits,
                                      keep_asm=False)
    return int(facts.n_sms or 132), max(1, int(facts.programs_per_sm or 1))


def _build_trace(kernel: str, shown: dict, ln: _Launched, info: GpuTraceInfo, max_elements: int | None,
                 n_sms: int, per_sm: int) -> Trace:
    rec = ln.rec
    maps = []
    for t in range(len(ln.tensors)):
        m, stride = rec.tensor_maps(t, max_elements)
        maps.append(m)
        info.map_strides.append(stride)
        if stride:
            info.notes.append(f"{ln.tensors[t].info.name}: maps reduced by blocks of {'x'.join(map(str, stride))} "
                              "elements on the device")
    oob, n_bad = rec.oob_records()
    if n_bad > OOB_CAP:
        info.notes.append(f"{n_bad} accesses had out-of-bounds lanes; the first {OOB_CAP} are itemized")
    source, source_file, first = jit_source(ln.fn)
    pids = np.arange(rec.n_programs, dtype=np.int32)
    import triton

    return Trace(kernel=kernel, values=shown, grid=ln.grid, programs=pids, window=None,
                 tensors=[a.info for a in ln.tensors], scalars=ln.scalars, constexprs=ln.constexprs,
                 events=_no_events(), oob=oob, maps=maps, stats=rec.program_stats(), source=source,
                 source_file=source_file, source_first_line=first, n_sms=n_sms, programs_per_sm=per_sm,
                 wave=waves(pids, n_sms, per_sm), triton_version=triton.__version__,
                 record_s=ln.compile_s + ln.launch_s, launch_index=0, kernel_fn=ln.fn.fn.__name__)


def gpu_trace_launch(launch: Callable[[Any], Any], *, kernel: str = "", values: dict[str, Any] | None = None,
                     device: str | None = None, timeline_only: bool = False,
                     max_elements: int | None = MAX_MAP_ELEMENTS, launch_index: int = 0, keep: bool = False,
                     kernels: tuple[Any, ...] = (), n_sms: int | None = None, programs_per_sm: int = 1,
                     progress: ProgressFn | None = None, events_from_tiles: bool = False) -> GpuTrace:
    """Trace one launch made by ``launch(K)`` (which calls ``K(jit_fn)[grid](...)`` with tensors on
    ``device``) from its instrumented build. ``n_sms`` (default: the device's) and
    ``programs_per_sm`` are the trace's wave model, as for the interpreter recorder (the kernel as
    written fits more programs on an SM than its maps build; ``kernels.data.maps.rewave`` changes
    it later). ``events_from_tiles``: each program's accesses over the maps' cells
    (``footprints.tile_events``) in ``GpuTrace.tile_events``. Other arguments as for ``gpu_trace_spec``."""
    device = device or "cuda"
    on_gpu = device != "cpu"
    if on_gpu:
        require_cuda()
    elif timeline_only:
        raise BackendUnavailable("the timeline reads %smid and %globaltimer on a CUDA device; the "
                                 "interpreter has neither")
    mode = "timeline" if timeline_only else "maps"
    if progress is not None:
        progress(Progress("recording", 0.2))
    ln = _run_launcher(launch, kernels, mode, device, launch_index)
    name = kernel or ln.fn.fn.__name__
    info = GpuTraceInfo(device=_device_name(on_gpu), mode=mode, compile_s=ln.compile_s, launch_s=ln.launch_s,
                        kernel_ms=ln.kernel_ms, shadow_bytes=ln.rec.nbytes, n_sites=ln.n_sites, passes=ln.passes,
                        lane_sites=ln.lane_sites)
    if ln.passes > 1:
        info.notes.append(f"{ln.lane_sites} of {ln.n_sites} access sites recorded lane by lane: the maps build "
                          f"ran {ln.passes} times on the same inputs")
    if progress is not None:
        progress(Progress("deriving maps", 0.8))
    t0 = time.perf_counter()
    built_sms, built_per_sm = _occupancy(ln, on_gpu)
    timeline = None
    if on_gpu:
        sm, start, end = ln.rec.schedule()
        timeline = Timeline(ln.grid, sm, start, end, built_sms, built_per_sm, recording_build=mode == "maps",
                            kernel=name)
    trace = None
    if mode == "maps":
        trace = _build_trace(name, dict(values or {}), ln, info, max_elements, n_sms or built_sms,
                             max(1, int(programs_per_sm)))
        trace.launch_index = launch_index
    events = tile_events(ln.rec, info.map_strides) if trace is not None and events_from_tiles else None
    ln.rec.records = None
    info.derive_s = time.perf_counter() - t0
    if trace is not None:
        trace.derive_s = info.derive_s
    out = GpuTrace(trace, timeline, info, ln.rec if keep else None, events)
    if not keep:
        ln.rec.release()
    return out


def _device_name(on_gpu: bool) -> str:
    if not on_gpu:
        return _CPU.device_name
    import torch

    return torch.cuda.get_device_name()


def gpu_trace_spec(spec: Any, values: dict[str, Any] | None = None, *, seed: int = 0, timeline_only: bool = False,
                   max_elements: int | None = MAX_MAP_ELEMENTS, device: str | None = None,
                   events_window: Window | str | tuple[int, int] | None = None, launch_index: int = 0,
                   keep: bool = False, n_sms: int | None = None, programs_per_sm: int = 1,
                   progress: ProgressFn | None = None, cache: InputCache | None = None,
                   events_from_tiles: bool = False) -> GpuTrace:
    """Trace a registered kernel from its instrumented build (see the module doc).

    - ``timeline_only``: a light build that reads only the schedule (CUDA only; no ``trace``);
    - ``max_elements``: maps of larger tensors are reduced by blocks on the device (None: never);
    - ``device``: "cuda" (default; BackendUnavailable without it) or "cpu" (the interpreter);
    - ``events_window``: programs whose per-access events the interpreter recorder adds;
    - ``keep``: keep the shadow buffers for ``GpuTrace.region``; otherwise freed here;
    - ``n_sms`` / ``programs_per_sm``: the trace's wave model (see ``gpu_trace_launch``);
    - ``events_from_tiles``: see ``gpu_trace_launch``;
    - ``cache``: inputs of the same data and seed kept there (the worker's live cache, a window's
      last Run) are taken instead of drawn again; the launch writes only the outputs, which
      ``prepare`` resets before every launch. Inputs built here are left in it.

    Raises ValidationError, BackendUnavailable, ResourceError, TraceUnsupported, CompileError or
    the launch's own error."""
    on_gpu = (device or "cuda") != "cpu"
    if on_gpu:
        require_cuda()
    if progress is not None:
        progress(Progress("building inputs", 0.0))
    from ..compile.target import start_triton_warmup
    from ..run.backends import resolve

    warming = start_triton_warmup() if on_gpu else None  # beside the inputs
    p = prepare(spec, dict(values or {}), resolve(GPU) if on_gpu else _CPU, seed, cache=cache)
    if warming is not None:
        warming.join()
    shown = {k: v for k, v in p.cfg.items() if not str(k).startswith("_")}
    got = gpu_trace_launch(p.launch, kernel=spec.name, values=shown, device=device, timeline_only=timeline_only,
                           max_elements=max_elements, launch_index=launch_index, keep=keep,
                           kernels=tuple(spec.kernels), n_sms=n_sms, programs_per_sm=programs_per_sm,
                           progress=progress, events_from_tiles=events_from_tiles)
    if got.trace is not None and events_window is not None:
        _add_events(got.trace, got.info, spec, values, seed, events_window)
    if progress is not None:
        progress(Progress("done", 1.0))
    return got


def _run_launcher(launch: Callable[[Any], Any], kernels: tuple[Any, ...], mode: str, device: str,
                  launch_index: int) -> _Launched:
    if device != "cpu":
        cap = _Capture(launch_index, lambda fn, grid, a, kw: fn[grid](*a, **kw),
                       lambda fn, grid, a, kw: _record_launch(fn, grid, a, kw, mode=mode, device=device, run=None))
        launch(cap.K)
    else:
        with Interpreter([]).activate(kernels) as IK:
            def run(fn: Any, grid: Any, a: tuple, kw: dict) -> Any:
                return IK(fn)[grid](*a, **kw)

            cap = _Capture(launch_index, run,
                           lambda fn, grid, a, kw: _record_launch(fn, grid, a, kw, mode=mode, device=device, run=run))
            launch(cap.K)
    if cap.done is None:
        raise ValueError(f"the launcher made {cap.n} launch(es); launch {launch_index} never happened")
    return cap.done


def _add_events(trace: Trace, info: GpuTraceInfo, spec: Any, values: Any, seed: int,
                window: Window | str | tuple[int, int]) -> None:
    """Per-access events of a window of programs, from the interpreter recorder on the same inputs."""
    from ..trace import trace_spec

    cpu = trace_spec(spec, dict(values or {}), seed=seed, window=window, n_sms=trace.n_sms,
                     programs_per_sm=trace.programs_per_sm)
    trace.events, trace.loop_lines, trace.loop_parents = cpu.events, cpu.loop_lines, cpu.loop_parents
    info.events = f"interpreter recorder, {cpu.window or 'every program'}"


# ---------------------------------------------------------------------------------------------
# the request


def gpu_trace(request: TraceRequest, *, timeline_only: bool = False, max_elements: int | None = MAX_MAP_ELEMENTS,
              device: str | None = None, progress: ProgressFn | None = None,
              on_kept: Callable[[GpuTrace], Any] | None = None, cache: InputCache | None = None,
              events_from_tiles: bool = False) -> GpuTraceResult:
    """Serve a ``TraceRequest`` on the GPU (``request.window``, if any, picks the programs whose
    per-access events the interpreter recorder adds). ``on_kept``: the shadow buffers stay on the
    device and it gets the ``GpuTrace`` (for ``GpuTrace.region``; it releases them). ``cache``:
    see ``gpu_trace_spec``; without one, the light timeline build still takes the maps build's
    inputs (one set drawn per request). ``events_from_tiles``: a trace with no per-access events
    (none asked of the interpreter, or dropped as the maps were reduced) gets every program's
    accesses from its tile records, over the cells drawn (what lights a pinned program). Never raises: failures come back as
    ``GpuTraceResult.error`` (an ErrorInfo)."""
    cache = cache if cache is not None else InputCache()
    try:
        spec = get_spec(request.kernel, request.user_file)
        window = None
        if request.window:
            try:
                window = Window.parse(request.window)
            except ValueError as e:
                raise ValidationError(str(e), "window") from None
        timeline_only = timeline_only or not getattr(request, "maps", True)
        got = gpu_trace_spec(spec, request.values, seed=request.seed, timeline_only=timeline_only,
                             max_elements=max_elements, device=device, events_window=window,
                             n_sms=request.n_sms, programs_per_sm=request.programs_per_sm, progress=progress,
                             keep=on_kept is not None and not timeline_only, cache=cache,
                             events_from_tiles=events_from_tiles)
        if got.recording is not None:
            on_kept(got)
        timeline = got.timeline
        if getattr(request, "timeline", False) and not timeline_only:
            timeline = _light_timeline(spec, request, got.info, device, cache) or timeline
        trace = _reduced_as_cells(got.trace, got.info) if got.trace is not None else None
        if trace is not None and got.tile_events is not None and not len(trace.events):
            _with_tile_events(trace, got.tile_events, got.info)
        return GpuTraceResult(request, trace, timeline, got.info)
    except ValueError as e:
        if isinstance(e, ValidationError):
            return GpuTraceResult(request, error=to_error_info(e))
        return GpuTraceResult(request, error=ErrorInfo(kind="validation", message=str(e)))
    except Exception as e:  # noqa: BLE001 - every failure is reported, the worker keeps serving
        return GpuTraceResult(request, error=to_error_info(e, "tracing"))


def _with_tile_events(trace: Trace, te: TileEvents, info: GpuTraceInfo) -> None:
    """``trace``'s per-access events from its tile records (their lanes are the cells drawn)."""
    trace.events = te.events
    if isinstance(trace, CoarseTrace):
        trace.lanes_active = te.element_lanes
        trace.full_lanes = int(te.element_lanes.sum(dtype=np.int64))
    info.events = "the tile records of the GPU recording (each access's box of cells; no loop steps)"
    info.notes.extend(te.notes)


def _light_timeline(spec: Any, request: TraceRequest, info: GpuTraceInfo, device: str | None,
                    cache: InputCache) -> Timeline | None:
    """The schedule of the kernel's light timeline build (the maps build's is slowed by its
    recording and fits fewer programs on an SM); None under the interpreter (no clocks there)."""
    if (device or "cuda") == "cpu":
        info.notes.append("no schedule: the interpreter has no SMs or clocks")
        return None
    light = gpu_trace_spec(spec, request.values, seed=request.seed, timeline_only=True, cache=cache)
    info.notes.append("the timeline is of the light timeline build; the maps of the recording build")
    return light.timeline


def _reduced_as_cells(trace: Trace, info: GpuTraceInfo) -> Trace:
    """``trace`` itself when no map was reduced; else the same launch as a ``CoarseTrace``
    (kernels.data.coarse): each tensor described by its map, a cell per map element, with the
    tensor's real shape and the cell's size kept, so the window titles the real shape and says
    how many elements a cell holds. Per-access events (full-resolution element indices) are
    dropped then, with a note. A tensor of more than two dimensions is described as its map
    alone (its cells are not rows × columns of the tensor)."""
    cells, full, tensors, reduced = [], [], [], False
    strides = list(info.map_strides) + [()] * max(0, len(trace.tensors) - len(info.map_strides))
    for t, m, k in zip(trace.tensors, trace.maps, strides[:len(trace.tensors)], strict=True):
        shape = tuple(int(n) for n in m.writer.shape)
        if shape == tuple(t.shape):
            cells.append((1, 1))
            full.append(t)
            tensors.append(t)
            continue
        reduced = True
        drawn = TensorInfo(t.name, shape, tuple(int(np.prod(shape[i + 1:])) for i in range(len(shape))),
                           t.dtype, 0, t.element_size)
        tensors.append(drawn)
        k = tuple(int(x) for x in k)
        if len(shape) <= 2 and len(k) == len(shape):
            cells.append((k[0], k[1]) if len(k) == 2 else (1, k[0]))
            full.append(t)
        else:
            cells.append((1, 1))
            full.append(drawn)
    if not reduced:
        return trace
    if len(trace.events):
        info.notes.append("per-access events dropped: some maps are reduced by blocks")
    base = {f.name: getattr(trace, f.name) for f in dataclasses.fields(Trace)}
    base.update(tensors=tensors, events=_no_events())
    return CoarseTrace(**base, cells=cells, full_tensors=full, lanes_active=np.zeros(0, np.int32), full_lanes=0)
