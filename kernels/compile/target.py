"""Compile a kernel for a chosen NVIDIA GPU on a machine without one (no driver, no Qt).

Triton compiles down to PTX and a cubin for any target it knows without touching a driver
(``triton.compile(ASTSource(...), target=GPUTarget("cuda", 90, 32))``), and its wheel ships
``ptxas``, ``cuobjdump`` and ``nvdisasm``. So, for sm_80, sm_89, sm_90, sm_100, ... this gives
what a GPU run shows: the IR texts (TTIR, TTGIR, LLIR, PTX, SASS), registers and spills (the
cubin's resource usage), shared memory (``metadata.shared``), num_warps, num_stages, and the
occupancy from that architecture's limits (``kernels.run.device``) through the same estimate a GPU
run uses (``kernels.compile.facts``), with the limiting resource named.

Two entry points:

``compile_for_target(spec, values=None, target="sm_90", ...) -> (CompileFacts, notes)``
    a catalog or user ``KernelSpec`` (or its registered name) at parameter values (validated as
    for a run; defaults fill the rest). Inputs come from ``spec.make_inputs`` on the CPU (on the
    ``meta`` device, without memory, when the spec's bytes model says they are large), the
    launcher runs with a recording ``K`` that captures the launch instead of running it, and that
    launch is compiled.
``compile_jit_for_target(jit_fn, args=(), kwargs=None, target="sm_90", ...) -> CompileFacts``
    a plain ``@triton.jit`` function (or an autotuned / heuristics wrapper of one) with the
    arguments of one launch, as ``kernel[grid](*args, **kwargs)`` or ``kernel.warmup(*args,
    grid=..., **kwargs)`` gets them: tensors on any device (only dtype and address alignment
    matter), scalars, constexprs and launch options (num_warps, num_stages, ...) as keywords.
    Notes go to the optional ``notes`` list.

The signature is derived exactly as ``JITFunction.run`` derives it on a GPU: Triton's own binder
(pointer dtypes, integer widths, divisibility by 16 of pointers and integers, constexprs) and the
backend's option parser, so a kernel compiled here is the kernel the GPU's first launch compiles.

Failures raise ``ValidationError`` (field "target": a target this Triton or its ptxas cannot
build; or a bad parameter value) or ``CompileError`` (the arguments do not bind, the launcher or
the compiler failed), each with a one-line message naming what failed. Results are cached in
memory by (kernel source, target, specialization, options); Triton's disk cache also serves.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import math
import re
import subprocess
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any

from ..data.errors import CompileError, TilescopeError, first_line, to_error_info
from ..data.params import ValidationError
from ..data.results import CompileFacts
from ..run import device
from . import facts as compiled

__all__ = ["available_targets", "compile_for_target", "compile_inputs", "compile_jit_for_target", "launcher_builder",
           "parse_target", "start_triton_warmup"]

#: the oldest capability accepted: the catalog compiles for sm_70 on Triton 3.6 and 3.9, and older
#: targets are outside what Triton's NVIDIA backend supports
MIN_CAPABILITY = 70

#: GPU names accepted as targets (lower case, spaces and dashes removed)
_ALIASES = {"v100": 70, "t4": 75, "a100": 80, "a10": 86, "rtx3090": 86, "l4": 89, "l40s": 89,
            "rtx4090": 89, "h100": 90, "h200": 90, "gh200": 90, "b200": 100, "gb200": 100,
            "b300": 103, "gb300": 103, "rtx5090": 120, "gb10": 121}

_CACHE_SIZE = 64
_CACHE: OrderedDict[tuple, _Entry] = OrderedDict()
_LOCK = threading.RLock()  # one compile at a time: the cache and Triton's compiler are shared by threads


# ---------------------------------------------------------------------------------------------
# Every Triton entry point used here, in one place.


@functools.lru_cache(maxsize=1)
def _triton() -> Any:
    """Triton's compile-side API. Triton 3.6 and 3.9 share all of it:

    - ``triton.compile``, ``compiler.ASTSource``, ``compiler.make_backend``, ``GPUTarget``;
    - ``runtime.jit.create_function_from_signature(signature, params, backend)``: the binder that
      ``JITFunction.run`` builds; it returns (bound args, specialization, options);
    - ``JITFunction._pack_args(backend, kwargs, bound, specialization, options)`` -> (options,
      signature, constexprs, attrs) (3.9 blanks the attributes of constexprs, 3.6 does not: both
      feed ``ASTSource`` unchanged);
    - ``backends.nvidia.compiler.get_ptxas(arch)``: the ptxas Triton runs for a target (3.6 takes
      ``ptxas-blackwell`` from sm_100 on, 3.9 from sm_90 on: asking Triton keeps that right);
    - the option keys ``JITFunction.run`` adds before parsing: ``debug`` and
      ``instrumentation_mode`` (3.6 and 3.9), ``fpsan_homomorphic_casts`` (3.9 only): copied
      where ``CUDAOptions`` has the field (``_run_kwargs``).
    """
    import types

    import triton
    from triton import knobs
    from triton.backends.compiler import GPUTarget
    from triton.backends.nvidia.compiler import CUDAOptions, get_ptxas
    from triton.compiler import ASTSource, make_backend
    from triton.runtime.autotuner import Autotuner, Heuristics
    from triton.runtime.jit import JITFunction, create_function_from_signature

    return types.SimpleNamespace(
        version=triton.__version__, compile=triton.compile, knobs=knobs, GPUTarget=GPUTarget,
        ASTSource=ASTSource, make_backend=make_backend, get_ptxas=get_ptxas,
        binder=create_function_from_signature, JITFunction=JITFunction, Autotuner=Autotuner,
        Heuristics=Heuristics, option_fields={f.name for f in dataclasses.fields(CUDAOptions)})


def _run_kwargs(fn: Any, kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """``kwargs`` with the options ``JITFunction.run`` adds before the backend parses them."""
    t = _triton()
    kw = dict(kwargs)
    kw["debug"] = kw.get("debug", getattr(fn, "debug", None)) or t.knobs.runtime.debug
    for name in ("instrumentation_mode", "fpsan_homomorphic_casts"):
        if name in t.option_fields and hasattr(t.knobs.compilation, name):
            kw[name] = getattr(t.knobs.compilation, name)
    return kw


# ---------------------------------------------------------------------------------------------
# targets


def parse_target(target: Any) -> int:
    """The capability (90 for sm_90) named by ``target``: "sm_90", "sm_90a", "90", "9.0",
    (9, 0), 90, a ``GPUTarget``, or a GPU name ("H100", "A100", "B200", ...). Raises
    ValidationError (field "target") for anything else; says nothing about buildability."""
    if hasattr(target, "arch") and hasattr(target, "backend"):  # a GPUTarget
        if target.backend != "cuda":
            raise ValidationError(f"target {target!r}: only NVIDIA (cuda) targets are supported", "target")
        target = target.arch
    if isinstance(target, tuple) and len(target) == 2 and all(isinstance(v, int) for v in target):
        return target[0] * 10 + target[1]
    if isinstance(target, int) and not isinstance(target, bool) and target >= 10:
        return target
    if isinstance(target, str):
        text = target.strip().lower()
        alias = re.sub(r"[\s_-]", "", text.removeprefix("nvidia"))
        if alias in _ALIASES:
            return _ALIASES[alias]
        m = re.fullmatch(r"(?:sm_?|compute_?|cuda:)?(\d{2,3})[af]?", text)
        if m:
            return int(m.group(1))
        m = re.fullmatch(r"(\d{1,2})\.(\d)", text)
        if m:
            return int(m.group(1)) * 10 + int(m.group(2))
    raise ValidationError(
        f"unknown target {target!r}: give an NVIDIA architecture such as 'sm_90' or '9.0', or a GPU "
        f"name ({', '.join(sorted(_ALIASES))})", "target")


@functools.lru_cache(maxsize=8)
def _ptxas_arches(path: str) -> frozenset[str]:
    """The ``sm_*`` values ``ptxas --help`` allows for ``--gpu-name``."""
    try:
        done = subprocess.run([path, "--help"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return frozenset()
    return frozenset(re.findall(r"'(sm_\d+[a-z]?)'", done.stdout))


@functools.lru_cache(maxsize=32)
def _ptxas(cap: int) -> tuple[str, str]:
    """(path, version) of the ptxas Triton runs for ``cap``; ("", why) when there is none."""
    try:
        tool = _triton().get_ptxas(cap)
        return tool.path, str(getattr(tool, "version", "") or "")
    except Exception as e:  # noqa: BLE001 - a missing or broken ptxas is reported, not raised
        return "", first_line(str(e)) or type(e).__name__


def _unbuildable(cap: int) -> str:
    """Why this Triton cannot build ``cap`` here ("" when it can)."""
    name = f"sm_{cap}"
    if cap < MIN_CAPABILITY:
        return f"{name} is older than sm_{MIN_CAPABILITY}, the oldest target Tilescope compiles for"
    path, version = _ptxas(cap)
    if not path:
        return f"no ptxas for {name}: {version}"
    if not {name, name + "a"} & _ptxas_arches(path):
        tool = path.rsplit("/", 1)[-1]
        return (f"{name} cannot be built with Triton {_triton().version}: its {tool} "
                f"({_short_version(version)}) does not know {name}")
    return ""


def _short_version(version: str) -> str:
    m = re.search(r"(?:release )?(\d+\.\d+)", version)
    return f"CUDA {m.group(1)}" if m else (version or "unknown version")


def available_targets() -> list[str]:
    """The targets this Triton and the ptxas it ships can build here, e.g. ['sm_70', ..., 'sm_121']."""
    caps: set[int] = set()
    for cap in (80, 100):  # the ptxas of older and of newer targets (they differ across versions)
        path, _ = _ptxas(cap)
        caps |= {int(re.sub(r"\D", "", a)) for a in _ptxas_arches(path)} if path else set()
    return [f"sm_{c}" for c in sorted(caps) if not _unbuildable(c)]


def _checked_target(target: Any) -> int:
    cap = parse_target(target)
    why = _unbuildable(cap)
    if why:
        raise ValidationError(f"target sm_{cap} is not available: {why} "
                              f"(available: {', '.join(available_targets()) or 'none'})", "target")
    return cap


# ---------------------------------------------------------------------------------------------
# the compile, cached


@dataclasses.dataclass
class _Entry:
    ck: Any  # Triton's CompiledKernel
    facts: dict[bool, tuple[CompileFacts, list[str]]]  # keep_asm -> facts without occupancy


def _resolve(fn: Any, args: tuple, kwargs: dict, notes: list[str]) -> tuple[Any, dict]:
    """The JITFunction behind ``fn`` and the keywords of the launch it makes: an autotuner
    compiles its first config, a heuristics wrapper adds the values it computes."""
    t = _triton()
    for _ in range(8):
        if isinstance(fn, t.JITFunction):
            return fn, kwargs
        if isinstance(fn, t.Heuristics):
            named = {**dict(zip(fn.arg_names, args, strict=False)), **kwargs}
            try:
                kwargs = {**kwargs, **{k: h(named) for k, h in fn.values.items()}}
            except Exception as e:  # noqa: BLE001 - the user's heuristic failed
                raise CompileError(f"a triton.heuristics function of {getattr(fn.fn, '__name__', 'the kernel')} "
                                   f"failed: {first_line(f'{type(e).__name__}: {e}')}") from e
        elif isinstance(fn, t.Autotuner):
            if fn.configs:
                cfg = fn.configs[0]
                kwargs = {**kwargs, **cfg.all_kwargs()}
                notes.append(f"autotuned kernel: compiled with its first config ({cfg}); on a GPU the "
                             "autotuner picks the fastest of its configs")
        else:
            break
        fn = fn.fn
    what, name = type(fn).__name__, getattr(fn, "__name__", None)
    hint = ("; TRITON_INTERPRET=1 makes triton.jit build interpreter functions, which do not compile"
            if what == "InterpretedFunction" else "")
    raise CompileError(f"{name or 'this'} is not a @triton.jit function (it is a {what}){hint}")


@functools.lru_cache(maxsize=64)
def _binder(fn: Any, cap: int) -> tuple[Any, Any, Any]:
    t = _triton()
    target = t.GPUTarget("cuda", cap, 32)
    backend = t.make_backend(target)
    return target, backend, t.binder(fn.signature, fn.params, backend)


def _n_programs(grid: Any, named: Mapping[str, Any]) -> int:
    try:
        if callable(grid):
            grid = grid(dict(named))
        if isinstance(grid, int):
            grid = (grid,)
        return int(math.prod(int(g) for g in grid)) if grid is not None else 0
    except Exception:  # noqa: BLE001 - the grid only feeds waves
        return 0


def _bind(fn: Any, args: tuple, kwargs: Mapping[str, Any], cap: int) -> tuple[Any, ...]:
    """(target, backend, launch keywords, bound args, specialization, options) as
    ``JITFunction.run`` computes them for ``fn(*args, **kwargs)`` on a GPU of capability ``cap``."""
    name = getattr(fn, "__name__", "kernel")
    kw = _run_kwargs(fn, kwargs)
    try:
        target, backend, binder = _binder(fn, cap)
        bound, specialization, options = binder(*args, **kw)
    except TypeError as e:  # missing / unexpected arguments, an argument Triton cannot pass
        raise CompileError(f"the arguments do not fit {name}: {first_line(str(e))}", detail=str(e)) from e
    except Exception as e:  # noqa: BLE001 - e.g. an unsupported argument type
        raise CompileError(f"cannot derive the signature of {name}: {first_line(f'{type(e).__name__}: {e}')}",
                           detail=str(e)) from e
    return target, backend, kw, bound, specialization, options


def _pack(fn: Any, backend: Any, kw: dict, bound: Any, specialization: Any, options: Any) -> tuple[Any, ...]:
    try:
        return fn._pack_args(backend, kw, bound, specialization, options)
    except (KeyError, AssertionError) as e:  # "Keyword argument X was specified but unrecognised"
        raise CompileError(f"{getattr(fn, '__name__', 'kernel')}: {first_line(str(e.args[0] if e.args else e))}") from e


def compile_inputs(jit_fn: Any, args: tuple | list = (), kwargs: Mapping[str, Any] | None = None,
                   target: Any = "sm_90") -> tuple[Any, dict, dict, dict, dict, Any]:
    """What ``JITFunction.run`` hands to ``triton.compile`` for one launch on ``target``:
    ``(the JITFunction, signature, constexprs, attrs, options as a dict, GPUTarget)``, so that
    ``triton.compile(ASTSource(fn, signature, constexprs, attrs), target=target, options=options)``
    elsewhere (another process) writes the very cache entry the launch then looks up. ``target``:
    a ``GPUTarget`` (e.g. the driver's current one) or anything ``parse_target`` takes. Nothing is
    compiled; raises ValidationError / CompileError as ``compile_jit_for_target``."""
    cap = parse_target(target)
    fn, kw = _resolve(jit_fn, tuple(args or ()), dict(kwargs or {}), [])
    gpu_target, backend, kw, bound, specialization, options = _bind(fn, tuple(args or ()), kw, cap)
    opts, signature, constexprs, attrs = _pack(fn, backend, kw, bound, specialization, options)
    return fn, signature, constexprs, attrs, dict(opts.__dict__), gpu_target


def start_triton_warmup() -> threading.Thread:
    """Triton's one-time start in a process, on a thread: at its first compile Triton hashes its
    own install (``triton_key``: libtriton's hundreds of megabytes; docs/benchmarks/gpu-trace.md
    says how long) and imports its Gluon front end. A caller with other work first (building inputs)
    starts this, and joins it before compiling."""

    def warm() -> None:
        with contextlib.suppress(Exception):
            from triton.runtime.cache import triton_key

            triton_key()
        with contextlib.suppress(Exception):
            import triton.experimental.gluon  # noqa: F401

    thread = threading.Thread(target=warm, name="tilescope-triton-warmup", daemon=True)
    thread.start()
    return thread


def launcher_builder(jit_fn: Any, args: tuple | list = (), kwargs: Mapping[str, Any] | None = None
                     ) -> Callable[[], None] | None:
    """Triton 3.6 (not 3.9, whose launcher is generic) builds a C launcher for each kernel
    signature with gcc at the kernel's first launch, into its cache, inside the launch (its cost:
    docs/benchmarks/gpu-trace.md). This gives a function that builds that launcher now, from the
    signature and constants the launch of ``jit_fn(*args, **kwargs)`` on the current GPU will
    have (derived here, on the calling thread), so it can run on another thread while the kernel
    compiles; the launch then finds it in the cache. None where this Triton builds no launcher or
    the launch cannot be derived (the launch then builds it itself, as always)."""
    try:
        import triton
        from triton.backends.nvidia import driver as nv

        make, build = getattr(nv, "make_launcher", None), getattr(nv, "compile_module_from_src", None)
        if make is None or build is None or not hasattr(nv, "library_dirs"):
            return None
        fn, signature, constexprs, _, _, _ = compile_inputs(jit_fn, args, kwargs,
                                                            triton.runtime.driver.active.get_current_target())
        constants = {((fn.arg_names.index(k),) if isinstance(k, str) else k): v for k, v in constexprs.items()}
        src = make(constants, dict(signature), None)
    except Exception:  # noqa: BLE001 - only a head start: the launch builds it anyway
        return None

    def build_it() -> None:
        with contextlib.suppress(Exception):
            build(src=src, name="__triton_launcher", library_dirs=nv.library_dirs(), include_dirs=nv.include_dirs,
                  libraries=nv.libraries)
    return build_it


def _compile(fn: Any, args: tuple, kwargs: Mapping[str, Any], cap: int, keep_asm: bool
             ) -> tuple[CompileFacts, list[str], dict[str, Any]]:
    """(facts without occupancy, notes, bound arguments by name) of ``fn(*args, **kwargs)``
    compiled for ``cap``."""
    t = _triton()
    name = getattr(fn, "__name__", "kernel")
    target, backend, kw, bound, specialization, options = _bind(fn, args, kwargs, cap)
    key = (fn.cache_key, cap, repr(specialization), repr(sorted(options.items(), key=lambda i: i[0])))
    with _LOCK:
        entry = _CACHE.get(key)
        if entry is None:
            opts, signature, constexprs, attrs = _pack(fn, backend, kw, bound, specialization, options)
            try:
                ck = t.compile(t.ASTSource(fn, signature, constexprs, attrs), target=target,
                               options=opts.__dict__)
            except Exception as e:  # noqa: BLE001 - every compiler failure becomes one clear line
                info = to_error_info(e, "compiling")
                msg = info.message.removeprefix("compile error: ").removeprefix("internal error while compiling: ")
                raise CompileError(f"compiling {name} for sm_{cap} failed: {msg}", detail=info.detail) from e
            entry = _CACHE[key] = _Entry(ck, {})
            while len(_CACHE) > _CACHE_SIZE:
                _CACHE.popitem(last=False)
        _CACHE.move_to_end(key)
        if keep_asm not in entry.facts:
            entry.facts[keep_asm] = compiled.kernel_facts(entry.ck, keep_asm)
        facts, notes = entry.facts[keep_asm]
    facts = dataclasses.replace(facts, asm=dict(facts.asm))
    return facts, list(notes), dict(bound)


@functools.lru_cache(maxsize=32)
def _arch_name(cap: int) -> str:
    """The name Triton gives ``cap`` in the PTX (sm_90a from sm_90 on)."""
    try:
        from triton.backends.nvidia.compiler import sm_arch_from_capability

        return sm_arch_from_capability(cap)
    except Exception:  # noqa: BLE001 - only a label
        return f"sm_{cap}"


def _occupancy(facts: CompileFacts, cap: int, n_programs: int, limits: device.DeviceLimits | None,
               n_sms: int | None) -> list[str]:
    """Fill occupancy and waves from ``limits``, else from the target's architecture limits;
    notes say what was assumed and what would not launch."""
    major, minor = divmod(cap, 10)
    notes: list[str] = []
    if limits is None:
        entry = device.capability_entry(major, minor)
        if entry != (major, minor):
            notes.append(f"no per-SM limits known for sm_{cap}: occupancy uses those of sm_{entry[0]}{entry[1]}")
        ref = device.reference_gpu(major, minor)
        sms = n_sms or (ref[1] if ref else 0)
        limits = device.limits_for_capability(major, minor, sms)
        if n_programs and not n_sms:
            notes.append(f"waves assume the {ref[1]} SMs of the {ref[0]}" if ref else "SM count unknown: no waves")
    if facts.shared_bytes and facts.shared_bytes > limits.shared_per_block:
        notes.append(f"needs {facts.shared_bytes:,} bytes of shared memory per program, more than the "
                     f"{limits.shared_per_block:,} sm_{cap} allows: it would not launch (out of resources)")
    if facts.num_warps * limits.warp_size > 1024:
        notes.append(f"{facts.num_warps} warps is more than the 1024 threads a program may have: "
                     "it would not launch")
    notes.extend(compiled.add_occupancy(facts, n_programs, limits))
    return notes


def compile_jit_for_target(jit_fn: Any, args: tuple | list = (), kwargs: Mapping[str, Any] | None = None,
                           target: Any = "sm_90", *, grid: Any = None, keep_asm: bool = True,
                           limits: device.DeviceLimits | None = None, n_sms: int | None = None,
                           notes: list[str] | None = None) -> CompileFacts:
    """Compile one launch of a plain ``@triton.jit`` function for ``target`` without a GPU.

    ``args`` / ``kwargs`` are the launch's arguments as the kernel receives them: tensors (any
    device, even ``meta``: only their dtype and data_ptr alignment matter), ints, floats,
    constexprs, and the launch options (``num_warps``, ``num_stages``, ...) as keywords. A
    ``triton.autotune`` wrapper compiles its first config; a ``triton.heuristics`` wrapper adds
    the values it computes. ``grid`` (a tuple, int or ``lambda meta: ...``) gives the program
    count for waves. Occupancy uses ``limits`` if given, else the target's per-architecture limits
    (SM count ``n_sms``, else that of a well-known GPU of the architecture).

    Returns CompileFacts: n_regs, n_spills, shared_bytes, num_warps, num_stages, asm (ttir,
    ttgir, llir, ptx, sass; empty when ``keep_asm`` is false), occupancy and waves. Notes for
    the user are appended to ``notes`` when given. Raises ValidationError (field "target") for a
    target that cannot be built here, CompileError when the arguments do not bind or the
    compiler fails."""
    out = notes if notes is not None else []
    cap = _checked_target(target)
    args = tuple(args or ())
    fn, kw = _resolve(jit_fn, args, dict(kwargs or {}), out)
    facts, fnotes, named = _compile(fn, args, kw, cap, keep_asm)
    out.append(f"compiled here for {_arch_name(cap)} (Triton {_triton().version}, ptxas "
               f"{_short_version(_ptxas(cap)[1])}); no GPU was involved")
    out.extend(fnotes)
    out.extend(_occupancy(facts, cap, _n_programs(grid, named), limits, n_sms))
    return facts


# ---------------------------------------------------------------------------------------------
# a KernelSpec at parameter values


@dataclasses.dataclass
class _Launch:
    fn: Any
    grid: Any
    args: tuple
    kwargs: dict


class _Recorder:
    """The ``K`` handed to a spec's launcher: ``K(fn)[grid](*args, **kw)`` records the launch and
    returns it instead of running anything."""

    def __init__(self) -> None:
        self.launches: list[_Launch] = []

    def __call__(self, fn: Any) -> Any:
        rec = self

        class _Bound:
            def __getitem__(self, grid: Any) -> Callable[..., _Launch]:
                def launch(*args: Any, **kwargs: Any) -> _Launch:
                    rec.launches.append(_Launch(fn, grid, args, kwargs))
                    return rec.launches[-1]
                return launch

            def __getattr__(self, name: str) -> Any:
                return getattr(fn, name)

        return _Bound()


#: inputs smaller than this (by the spec's bytes model) are built on the CPU, larger ones on the
#: meta device (no memory; but torch's first random fill there imports torch._dynamo, seconds)
_CPU_INPUT_BYTES = 256 << 20


def _capture(spec: Any, cfg: dict, seed: int) -> tuple[_Launch, list[str]]:
    """The launch ``spec`` makes at ``cfg``, and notes. Only dtypes, shapes, strides and address
    alignment matter, so large inputs are built on the meta device (every address there is a
    multiple of 16, as on a GPU); the CPU serves when the spec cannot run on meta tensors."""
    import torch

    try:
        small = int(spec.bytes_moved(cfg)) <= _CPU_INPUT_BYTES
    except Exception:  # noqa: BLE001 - no model: try the meta device first
        small = False
    failures: list[str] = []
    for dev in ("cpu", "meta") if small else ("meta", "cpu"):
        rec = _Recorder()
        stage = "building the inputs"
        try:
            gen = torch.Generator().manual_seed(seed)
            with torch.device(dev) if dev == "meta" else contextlib.nullcontext():
                tensors = spec.make_inputs(cfg, dev, gen)
                stage = "running the launcher"
                ret = spec.run_launch(rec, tensors, cfg)
        except TilescopeError:
            raise
        except Exception as e:  # noqa: BLE001 - try the other device, then report both
            failures.append(f"{stage} on {dev}: {first_line(f'{type(e).__name__}: {e}')}")
            continue
        if not rec.launches:
            raise CompileError(f"the launcher of {spec.name} made no launch")
        chosen = next((x for x in rec.launches if x is ret), rec.launches[-1])
        notes = []
        if len(rec.launches) > 1:
            notes.append(f"the launcher of {spec.name} makes {len(rec.launches)} launches: facts are for "
                         f"{getattr(chosen.fn, '__name__', 'the one it returns')}")
        return chosen, notes
    raise CompileError(f"cannot capture the launch of {spec.name}: {'; '.join(failures)}")


def _spec_of(spec: Any) -> Any:
    if isinstance(spec, str):
        from .. import catalog  # noqa: F401 - registers the bundled kernels
        from ..specs.spec import REGISTRY

        return REGISTRY.get(spec)
    return spec


def compile_for_target(spec: Any, values: Any = None, target: Any = "sm_90", *, keep_asm: bool = True,
                       limits: device.DeviceLimits | None = None, n_sms: int | None = None,
                       seed: int = 0) -> tuple[CompileFacts, list[str]]:
    """Compile ``spec`` (a KernelSpec or a registered kernel name) at ``values`` (parameter
    name -> value, as a run takes them; missing ones take their defaults) for ``target`` ("sm_80",
    "sm_89", "sm_90", "sm_100", ... see ``available_targets``) without a GPU.

    For convenience ``spec`` may also be a ``@triton.jit`` function: ``values`` is then the
    launch, ``(args, kwargs)`` or a dict of keyword arguments (see ``compile_jit_for_target``).

    Returns (CompileFacts, notes), as ``kernels.compile.facts.compile_facts`` does for a GPU run:
    registers, spills, shared memory, num_warps / num_stages (the spec's launch parameters),
    the IR texts and SASS (``keep_asm``), occupancy with its limiting resource, and waves for the
    spec's grid. Raises ValidationError for a bad value or target, CompileError otherwise."""
    s = _spec_of(spec)
    if not (hasattr(s, "make_inputs") and hasattr(s, "run_launch")):  # a jit function and a launch
        args, kwargs = ((), values) if isinstance(values, Mapping) or values is None else values
        notes: list[str] = []
        facts = compile_jit_for_target(s, tuple(args), dict(kwargs or {}), target, keep_asm=keep_asm,
                                       limits=limits, n_sms=n_sms, notes=notes)
        return facts, notes
    cap = _checked_target(target)
    if values is not None and not isinstance(values, Mapping):
        raise ValidationError(f"values for {s.name} must map parameter names to values, not "
                              f"{type(values).__name__}")
    cfg = s.config(dict(values or {}))
    launch, notes = _capture(s, cfg, seed)
    try:
        grid = s.grid(cfg)
    except Exception:  # noqa: BLE001 - the launch's own grid serves
        grid = None
    facts = compile_jit_for_target(launch.fn, launch.args, launch.kwargs, cap,
                                   grid=grid if grid is not None else launch.grid, keep_asm=keep_asm,
                                   limits=limits, n_sms=n_sms, notes=notes)
    return facts, notes
