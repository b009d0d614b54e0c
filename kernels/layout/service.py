"""``layout``: every access of a kernel's compiled launch with its layout, which thread holds each
element, and what the access costs — compiled for any target and traced on the CPU, no GPU.

1. compile the launch for ``target`` (``kernels.compile.target``: the TTGIR and PTX a GPU of
   that architecture would run);
2. read each access and its layouts from the TTGIR through Triton (``ttgir``), element ->
   (warp, lane, register) from Triton's linear layouts (``threads``), the vector width of each
   global access from the PTX (``ptx``);
3. run the launch on the interpreter (``kernels.interp``) and count, per warp instruction, the
   requests and 32-byte sectors of each global access (``observe``, ``coalescing``); bank
   conflicts of shared accesses from their shared layout (no run needed).
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from ..data.errors import to_error_info
from ..data.layout import AccessLayout, LayoutRequest, LayoutResult, ThreadMap
from ..data.params import ValidationError
from ..data.trace import Window
from . import ptx as ptx_mod
from .coalescing import CoalescingCounter, bank_conflicts, ldmatrix_conflicts, shared_vector
from .threads import thread_map
from .ttgir import IRAccess, IRValue, layout_info, read_accesses, shared_offsets_of, to_linear

__all__ = ["accesses_of_compiled", "layout", "layout_jit", "layout_spec"]

_BITS = {"float32": 32, "float16": 16, "bfloat16": 16, "float64": 64, "int32": 32, "int64": 64, "int16": 16,
         "int8": 8, "uint8": 8, "bool": 8, "float8_e4m3fn": 8, "float8_e5m2": 8}


def _bits(dtype: str) -> int:
    return _BITS.get(dtype, 32)


def _register_access(index: int, op: str, acc: IRAccess, value: IRValue, num_warps: int) -> AccessLayout:
    out = AccessLayout(index=index, op=op, ir_op=acc.ir_op, layout=layout_info(value.layout),
                       shape=tuple(value.shape), dtype=value.dtype, line=acc.line, column=acc.column)
    if value.layout is None:  # a scalar: every thread holds the one element (a store: one writes it)
        out.threads = ThreadMap((), np.zeros((num_warps, 32, 1), dtype=np.int64))
        return out
    out.threads = thread_map(to_linear(value.layout, value.shape), tuple(value.shape), num_warps)
    return out


def _shared_access(index: int, op: str, acc: IRAccess, value: IRValue) -> AccessLayout:
    out = AccessLayout(index=index, op=op, ir_op=acc.ir_op, layout=layout_info(value.layout),
                       shape=tuple(value.shape), dtype=value.dtype, line=acc.line, column=acc.column)
    try:  # where each element sits in shared memory: the Threads view draws its bank
        out.shared_offsets = shared_offsets_of(value)
    except ValueError as e:
        out.notes.append(str(e))
    return out


def _add_bank_conflicts(a: AccessLayout, acc: IRAccess) -> None:
    if a.threads is None or acc.shared is None:
        return
    a.shared_layout = layout_info(acc.shared.layout)
    try:
        offsets = shared_offsets_of(acc.shared)
    except ValueError as e:
        a.notes.append(str(e))
        return
    if tuple(offsets.shape) != tuple(a.shape):
        a.notes.append(f"shared buffer {offsets.shape} and register block {a.shape} differ: no bank conflicts")
        return
    esize = _bits(a.dtype) // 8
    parent = a.layout.parent
    if (a.op == "shared_load" and a.layout.kind == "dot_operand" and parent is not None and parent.kind == "mma"
            and parent.params["version"][0] == 2 and esize == 2):
        # mma.sync operands: Triton loads them with ldmatrix (16 bytes per lane, 8x8 matrices)
        a.vector_bits = 128
        a.bank_conflicts = ldmatrix_conflicts(a.threads, offsets, esize, _contiguous_dim(a.shared_layout))
        a.notes.append("read with ldmatrix.x4 (four 8x8 matrices, one wavefront each without conflicts)")
        return
    vec = shared_vector(a.threads, offsets, _bits(a.dtype))
    a.vector_bits = vec * _bits(a.dtype)
    a.bank_conflicts = bank_conflicts(a.threads, offsets, esize, vec)


def _contiguous_dim(shared: Any) -> int:
    """The dimension a 2-D shared layout keeps contiguous (its order[0]; an NVMMA layout: the
    last unless transposed)."""
    if shared.kind == "swizzled_shared":
        return int(shared.params["order"][0])
    if shared.kind == "nvmma_shared":
        return 0 if shared.params.get("transposed") else 1
    return 1


def accesses_of_compiled(ttgir: str, ptx: str) -> tuple[list[AccessLayout], int]:
    """The accesses of one compiled kernel (its TTGIR and PTX texts) and its num_warps. An
    access the pipeliner copied (prologue and loop body, same place and layout) is listed once."""
    ir_accesses, attrs = read_accesses(ttgir)
    num_warps = attrs["num-warps"]
    instrs = ptx_mod.memory_instructions(ptx)
    out: list[AccessLayout] = []
    seen: set[tuple] = set()
    for acc in ir_accesses:
        made: list[AccessLayout] = []
        if acc.op in ("load", "store", "atomic", "async_copy") and acc.pointer is not None:
            a = _register_access(len(out) + len(made), acc.op, acc, acc.pointer, num_warps)
            a.vector_bits = ptx_mod.vector_bits_at(instrs, acc.op, acc.line, acc.column)
            if acc.shared is not None:
                a.shared_layout = layout_info(acc.shared.layout)
            if not a.vector_bits:
                a.notes.append("no global memory instruction found at this place in the PTX")
            made.append(a)
        elif acc.op in ("shared_load", "shared_store") and acc.register is not None:
            a = _register_access(len(out), acc.op, acc, acc.register, num_warps)
            _add_bank_conflicts(a, acc)
            made.append(a)
        elif acc.op == "dot" and acc.dot is not None:
            for op, value in zip(("dot_a", "dot_b", "accumulator"), acc.dot, strict=True):
                idx = len(out) + len(made)
                made.append(_shared_access(idx, op, acc, value) if value.is_shared
                            else _register_access(idx, op, acc, value, num_warps))
        for a in made:
            key = (a.op, a.line, a.column, a.layout.text, a.shape)
            if key in seen:
                continue
            seen.add(key)
            a.index = len(out)
            out.append(a)
    return out, num_warps


def _kernel_name(ttgir: str) -> str:
    m = re.search(r"tt\.func public @(\w+)", ttgir)
    return m.group(1) if m else ""


def layout_spec(spec: Any, values: dict[str, Any] | None = None, target: str = "sm_90", *,
                coalescing: bool = True, programs: str = "", seed: int = 0, progress: Any = None,
                cancel: Any = None) -> LayoutResult:
    """Every access of ``spec``'s launch at ``values`` compiled for ``target``, with its layout
    and thread map; with ``coalescing``, the launch (the programs of the ``programs`` window,
    "" = all) runs on the interpreter and each global access gets its requests and sectors
    (``progress(Progress)`` while it runs, ``cancel()`` polled between programs).
    Raises ValidationError / CompileError / InterpreterFault / Cancelled."""
    from ..compile.target import compile_for_target

    facts, notes = compile_for_target(spec, dict(values or {}), target, keep_asm=True)

    def run(K: Any) -> None:
        from ..run.backends import interpreter_backend
        from ..run.prepare import prepare

        prepare(spec, dict(values or {}), interpreter_backend(), seed).launch(K)

    return _analyze(spec.name, target, facts.asm, notes, run if coalescing else None, tuple(spec.kernels), programs,
                    progress, cancel)


def layout_jit(fn: Any, grid: Any, args: tuple = (), kwargs: dict[str, Any] | None = None, target: str = "sm_90",
               *, coalescing: bool = True, programs: str = "") -> LayoutResult:
    """The same for one launch of a plain ``@triton.jit`` function, ``fn[grid](*args, **kwargs)``
    with CPU tensors (launch options such as ``num_warps`` among ``kwargs``). A Gluon kernel
    (``@gluon.jit``: its layouts written by hand) is compiled too, but the interpreter cannot run
    it: no coalescing numbers, shared-memory bank conflicts only."""
    if type(fn).__name__ == "GluonJITFunction":
        asm, notes = _compile_gluon(fn, args, dict(kwargs or {}), target)
        res = _analyze(fn.__name__, target, asm, notes, None, (fn,), programs)
        if coalescing:
            res.notes.append("a Gluon kernel does not run under Triton's interpreter: no coalescing numbers")
        return res
    from ..compile.target import compile_jit_for_target

    notes: list[str] = []
    facts = compile_jit_for_target(fn, args, dict(kwargs or {}), target, grid=grid, notes=notes)

    def run(K: Any) -> None:
        K(fn)[grid](*args, **dict(kwargs or {}))

    return _analyze(fn.__name__, target, facts.asm, notes, run if coalescing else None, (fn,), programs)


def _compile_gluon(fn: Any, args: tuple, kwargs: dict[str, Any], target: str) -> tuple[dict[str, str], list[str]]:
    """TTGIR and PTX of a Gluon kernel for ``target``: the launch's signature derived as for any
    kernel (``compile.target.compile_inputs``), compiled from Gluon's own AST source (Triton 3.6
    and 3.9: ``triton.experimental.gluon._runtime.GluonASTSource``)."""
    import triton
    from triton.experimental.gluon._runtime import GluonASTSource

    from ..compile.target import compile_inputs

    jit, signature, constexprs, attrs, options, gpu_target = compile_inputs(fn, args, kwargs, target)
    ck = triton.compile(GluonASTSource(jit, signature, constexprs, attrs), target=gpu_target, options=options)
    note = f"compiled here for {target} (Triton {triton.__version__}, Gluon); no GPU was involved"
    return {"ttgir": ck.asm.get("ttgir", ""), "ptx": ck.asm.get("ptx", "")}, [note]


def _analyze(name: str, target: str, asm: dict[str, str], notes: list[str], run: Any, kernels: tuple,
             programs: str, progress: Any = None, cancel: Any = None) -> LayoutResult:
    import triton

    ttgir, ptx = asm.get("ttgir", ""), asm.get("ptx", "")
    accesses, num_warps = accesses_of_compiled(ttgir, ptx)
    src = re.search(r'loc\("([^"]+\.py)":\d+:\d+\)', ttgir)
    result = LayoutResult(kernel=name, target=target, num_warps=num_warps, accesses=accesses,
                          source_file=src.group(1) if src else "", triton_version=triton.__version__,
                          notes=[n for n in notes if "no GPU was involved" in n])
    if run is not None:
        _measure(result, run, kernels, programs, _kernel_name(ttgir), progress, cancel)
    return result


def _measure(result: LayoutResult, run: Any, kernels: tuple, programs: str, kernel_name: str, progress: Any = None,
             cancel: Any = None) -> None:
    from ..interp import AccessGuard, Interpreter
    from .observe import AddressObserver

    counters = {}
    for i, a in enumerate(result.accesses):
        if a.op in ("load", "store", "atomic", "async_copy") and a.threads is not None and a.vector_bits:
            vec = max(1, a.vector_bits // _bits(a.dtype))
            counters[i] = CoalescingCounter(a.threads, vec, _bits(a.dtype) // 8,
                                            dedupe=a.op in ("store", "atomic"))
    try:
        window = Window.parse(programs) if programs else None
    except ValueError as e:
        raise ValidationError(str(e), "programs") from None
    observer = AddressObserver(result.accesses, counters, window, progress, cancel)

    def observers(index: int, fn: Any) -> list[Any]:
        name = getattr(getattr(fn, "fn", None), "__name__", "")
        return [AccessGuard(), observer] if name == kernel_name else [AccessGuard()]

    session = Interpreter(observers)
    with session.activate(kernels) as K:
        run(K)
    for i, c in counters.items():
        a = result.accesses[i]
        a.coalescing = c.result()
        a.tensor = observer.tensor_names.get(i, "")
    by_line = {}
    for i, n in observer.executions.items():
        result.accesses[i].executions = n
        by_line.setdefault(result.accesses[i].line, n)
    for a in result.accesses:
        if a.op in ("shared_load", "shared_store") and not a.executions:
            a.executions = by_line.get(a.line, 0)
    result.n_programs = observer.n_programs
    result.grid = observer.grid
    if observer.unmatched:
        result.notes.append(f"{observer.unmatched} interpreter accesses matched no compiled access (by line)")
    if observer.shape_mismatch:
        result.notes.append(f"{observer.shape_mismatch} interpreter accesses had another block shape than the "
                            "compiled access at their line: not counted")


def layout(request: LayoutRequest, progress: Any = None, cancel: Any = None) -> LayoutResult:
    """Serve a ``LayoutRequest``; never raises: a failure (a cancel included) comes back as
    ``LayoutResult.error``. ``progress`` / ``cancel`` as for ``layout_spec``."""
    from ..sources.lookup import get_spec

    try:
        spec = get_spec(request.kernel, request.user_file)
        return layout_spec(spec, request.values, request.target, coalescing=request.coalescing,
                           programs=request.programs, seed=request.seed, progress=progress, cancel=cancel)
    except Exception as e:  # noqa: BLE001 - every failure is reported
        return LayoutResult(kernel=request.kernel, target=request.target, num_warps=0, accesses=[],
                            error=to_error_info(e, "reading the layouts"))
