"""The accesses of a compiled kernel and their layouts, read from its TTGIR through Triton itself.

The TTGIR text is parsed by Triton's MLIR parser (``triton._C.libtriton.ir.parse_mlir_module``);
each value's layout attribute becomes a Gluon layout object (``GluonOpBuilder.
get_gluon_layout_from_tensor`` / ``get_gluon_layout_from_memdesc``) and Triton's linear layout
of it (``GluonOpBuilder.to_linear_layout``): for a register layout the bases that map
(register, lane, warp) to an element, for a shared layout those that map a shared-memory offset
to an element. Triton 3.6 and 3.9 expose all of these; 3.6's ``ir.value`` has no ``get_shape``
(shapes are read from the type's text here on both), and neither binds an operation's location,
so source lines come from the printed TTGIR (``#locN = loc("file":line:col)``): the access
operations are listed in the text and in the walk in the same order (none nests another).

Everything that touches Triton's layout bindings is in this module.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..data.layout import LayoutInfo
from . import threads

__all__ = ["IRAccess", "IRValue", "layout_info", "read_accesses", "shared_offsets_of", "shared_linear_exposed",
           "to_linear"]

#: TTGIR operation -> what it does (``kernels.data.layout.ACCESS_OPS``); a dot gives three accesses
_ACCESS_OPS = {
    "tt.load": "load", "tt.store": "store", "tt.atomic_rmw": "atomic", "tt.atomic_cas": "atomic",
    "ttg.async_copy_global_to_local": "async_copy", "ttg.local_load": "shared_load",
    "ttg.local_store": "shared_store", "ttg.local_alloc": "shared_store", "tt.dot": "dot",
    "ttng.warp_group_dot": "dot",
}
_OP_LINE = re.compile(r"^\s*(?:%[\w#:]+(?:\s*,\s*%[\w#:]+)*\s*=\s*)?\"?([a-z_]+\.[a-z_]+)\"?[\s(]")
_LOC_REF = re.compile(r"loc\((#loc\d*)\)\s*$")
_LOC_DEF = re.compile(r"^(#loc\d*)\s*=\s*loc\((.*)\)\s*$")
_FILE_LOC = re.compile(r'^"([^"]*)":(\d+):(\d+)')
_NAMED_LOC = re.compile(r'^"[^"]*"\((.*)\)$')
_CALLSITE = re.compile(r"^callsite\((#loc\d*|.+?) at (#loc\d*|.+)\)$")
_ELEM = {"f32": "float32", "f16": "float16", "bf16": "bfloat16", "f64": "float64", "i32": "int32",
         "i64": "int64", "i16": "int16", "i8": "int8", "i1": "bool", "f8E4M3FN": "float8_e4m3fn",
         "f8E5M2": "float8_e5m2", "u8": "uint8"}


@dataclass
class IRValue:
    """One value an access uses: its shape, element type, Gluon layout object and its text."""

    shape: tuple[int, ...]
    dtype: str
    layout: Any  # a Gluon layout object (BlockedLayout, NVMMASharedLayout, ...)
    is_shared: bool
    type_text: str


@dataclass
class IRAccess:
    """One access operation of the TTGIR in text order: ``op`` (``ACCESS_OPS``, or "dot"),
    ``ir_op``, source ``line`` / ``column`` / ``file``, and its values: ``pointer`` (global
    accesses), ``shared`` (the memdesc a shared access or an async copy uses), ``register``
    (the value a shared access reads or writes), ``dot`` (a, b, accumulator)."""

    op: str
    ir_op: str
    line: int = -1
    column: int = -1
    file: str = ""
    pointer: IRValue | None = None
    shared: IRValue | None = None
    register: IRValue | None = None
    dot: tuple[IRValue, IRValue, IRValue] | None = None
    attrs: dict[str, int] = field(default_factory=dict)  # e.g. contiguity of an async copy


@functools.lru_cache(maxsize=1)
def _triton() -> Any:
    import types

    import triton.experimental.gluon.language as gl  # noqa: F401 - layout classes for the builder
    from triton._C.libtriton import gluon_ir, ir

    return types.SimpleNamespace(ir=ir, gluon_ir=gluon_ir)


def _context() -> tuple[Any, Any]:
    """An MLIR context with Triton's dialects and a Gluon builder over it. Made per call, not
    kept: nanobind reports every binding object still alive at exit as a leak on stderr."""
    t = _triton()
    ctx = t.ir.context()
    t.ir.load_dialects(ctx)
    return ctx, t.gluon_ir.GluonOpBuilder(ctx)


# ---------------------------------------------------------------------------------------------
# locations and types from the text


def _locations(text: str) -> dict[str, tuple[str, int, int]]:
    """``#locN`` -> (file, line, column); a named or call-site location resolves to the caller's
    place (the kernel's own line, where the interpreter sees the access)."""
    raw = {}
    for line in text.splitlines():
        m = _LOC_DEF.match(line.strip())
        if m:
            raw[m.group(1)] = m.group(2).strip()

    def resolve(body: str, depth: int = 0) -> tuple[str, int, int]:
        if depth > 32:
            return "", -1, -1
        body = body.strip()
        if body.startswith("#loc"):
            return resolve(raw.get(body, "unknown"), depth + 1)
        m = _FILE_LOC.match(body)
        if m:
            return m.group(1), int(m.group(2)), int(m.group(3))
        m = _NAMED_LOC.match(body)
        if m:
            return resolve(m.group(1), depth + 1)
        m = _CALLSITE.match(body)
        if m:
            return resolve(m.group(2), depth + 1)
        if body.startswith("fused"):
            inner = re.search(r"\[(.*)\]", body)
            return resolve(inner.group(1).split(",")[0], depth + 1) if inner else ("", -1, -1)
        return "", -1, -1

    return {name: resolve(body) for name, body in raw.items()}


def _parse_type(text: str) -> tuple[tuple[int, ...], str, bool]:
    """(shape, element dtype, is shared memory) of a ``tensor<...>`` / ``!ttg.memdesc<...>``
    type's text."""
    m = re.search(r"(tensor|memdesc)<([^,]*)", text)
    if not m:
        return (), "", False
    body = m.group(2)
    ptr = re.search(r"!tt\.ptr<(\w+)>", body)
    parts = body.split("x")
    dims = []
    for p in parts:
        if not p.isdigit():
            break
        dims.append(int(p))
    elem = ptr.group(1) if ptr else "x".join(parts[len(dims):]).rstrip(">")
    return tuple(dims), _ELEM.get(elem, elem), m.group(1) == "memdesc"


def _text_ops(text: str, locs: dict[str, tuple[str, int, int]]) -> list[tuple[str, tuple[str, int, int], str]]:
    """(operation, location, line text) of every access operation in text order."""
    out = []
    for line in text.splitlines():
        m = _OP_LINE.match(line)
        if not m or m.group(1) not in _ACCESS_OPS:
            continue
        ref = _LOC_REF.search(line)
        out.append((m.group(1), locs.get(ref.group(1), ("", -1, -1)) if ref else ("", -1, -1), line))
    return out


# ---------------------------------------------------------------------------------------------
# layouts through Triton


def _value(builder: Any, v: Any) -> IRValue:
    type_text = str(v.get_type())
    if not type_text.startswith(("tensor<", "!ttg.memdesc<")):  # a scalar: one pointer, no layout
        ptr = re.search(r"!tt\.ptr<(\w+)>", type_text)
        elem = ptr.group(1) if ptr else type_text
        return IRValue((), _ELEM.get(elem, elem), None, False, type_text)
    shape, dtype, shared = _parse_type(type_text)
    layout = builder.get_gluon_layout_from_memdesc(v) if shared else builder.get_gluon_layout_from_tensor(v)
    return IRValue(shape, dtype, layout, shared, type_text)


def to_linear(layout: Any, shape: tuple[int, ...]) -> Any:
    """Triton's linear layout of a Gluon layout object over ``shape``: a Gluon
    ``DistributedLinearLayout`` (reg_bases, lane_bases, warp_bases, block_bases) for a register
    layout, a ``SharedLinearLayout`` (offset_bases, block_bases) for a shared one."""
    _, builder = _context()
    if type(layout).__name__ in ("DistributedLinearLayout", "SharedLinearLayout"):
        return layout
    return builder.to_linear_layout(layout._to_ir(builder), list(shape))


def shared_linear_exposed() -> bool:
    """Whether this Triton's ``to_linear_layout`` can take a shared layout: 3.9 can; 3.6 aborts
    the process ("Expected input dimension 0 to be 'register'", an assertion in
    LinearEncodingAttr), so there the documented swizzle formulas serve (``threads``)."""
    import triton

    major, minor = (int(x) for x in triton.__version__.split(".")[:2])
    return (major, minor) >= (3, 9)


def shared_offsets_of(value: IRValue) -> np.ndarray:
    """int64 [shape]: each element's shared-memory offset (in elements) under ``value``'s shared
    layout: Triton's linear layout where exposed, else the documented formula. Raises ValueError
    for a shared layout with neither (padded, linear on 3.6)."""
    layout, shape = value.layout, value.shape
    if shared_linear_exposed():
        return threads.shared_offsets(to_linear(layout, shape), shape)
    name = type(layout).__name__
    if name == "SwizzledSharedLayout":
        return threads.swizzled_offsets(shape, int(layout.vec), int(layout.per_phase), int(layout.max_phase),
                                        [int(o) for o in layout.order])
    if name == "NVMMASharedLayout":
        return threads.nvmma_offsets(shape, int(layout.swizzle_byte_width), int(layout.element_bitwidth),
                                     bool(layout.transposed))
    raise ValueError(f"no shared offsets for {name} on this Triton")


def _access(op: Any, name: str, builder: Any) -> IRAccess:
    kind = _ACCESS_OPS[name]
    acc = IRAccess(kind, name)
    operands = [op.get_operand(i) for i in range(op.get_num_operands())]
    results = [op.get_result(i) for i in range(op.get_num_results())]
    if kind in ("load", "store", "atomic"):
        acc.pointer = _value(builder, operands[0])
    elif kind == "async_copy":
        acc.pointer, acc.shared = _value(builder, operands[0]), _value(builder, operands[1])
    elif kind == "shared_load":
        acc.shared, acc.register = _value(builder, operands[0]), _value(builder, results[0])
    elif kind == "shared_store":
        if name == "ttg.local_alloc":
            acc.shared = _value(builder, results[0])
            acc.register = _value(builder, operands[0]) if operands else None
        else:
            acc.register, acc.shared = _value(builder, operands[0]), _value(builder, operands[1])
    elif kind == "dot":
        acc.dot = (_value(builder, operands[0]), _value(builder, operands[1]), _value(builder, results[0]))
    return acc


def read_accesses(ttgir: str) -> tuple[list[IRAccess], dict[str, int]]:
    """Every access operation of a TTGIR module (text as ``CompiledKernel.asm["ttgir"]``), in
    order, with its values' layouts; and the module's ``num-warps`` / ``threads-per-warp``.
    A ``local_alloc`` without a value (a buffer filled later) is left out."""
    ctx, builder = _context()
    module = _parse_file(ttgir, ctx)
    walked: list[Any] = []
    module.walk(lambda o: walked.append(o) if o.get_name() in _ACCESS_OPS else None)
    listed = _text_ops(ttgir, _locations(ttgir))
    names = [o.get_name() for o in walked]
    if names != [n for n, _, _ in listed]:
        raise RuntimeError("the TTGIR text and Triton's walk list different access operations: "
                           f"{names} vs {[n for n, _, _ in listed]}")
    out = []
    for op, (name, (file, line, col), text) in zip(walked, listed, strict=True):
        if name == "ttg.local_alloc" and op.get_num_operands() == 0:
            continue
        acc = _access(op, name, builder)
        acc.file, acc.line, acc.column = file, line, col
        m = re.search(r"contiguity = (\d+)", text)
        if m:
            acc.attrs["contiguity"] = int(m.group(1))
        out.append(acc)
    module_attrs = {}
    for key in ("num-warps", "threads-per-warp"):
        m = re.search(rf'"ttg\.{key}" = (\d+)', ttgir)
        module_attrs[key] = int(m.group(1)) if m else (4 if key == "num-warps" else 32)
    return out, module_attrs


def _parse_file(ttgir: str, ctx: Any) -> Any:
    """Triton 3.6 and 3.9 bind only ``parse_mlir_module(path, context)``: the text goes through a
    temporary file."""
    import os
    import tempfile

    fd, path = tempfile.mkstemp(suffix=".ttgir")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(ttgir)
        return _triton().ir.parse_mlir_module(path, ctx)
    finally:
        os.unlink(path)


# ---------------------------------------------------------------------------------------------
# Gluon layout objects -> the GUI-safe description


def layout_info(layout: Any) -> LayoutInfo:
    """``kernels.data.layout.LayoutInfo`` of a Gluon layout object (kind and parameters as plain
    lists of ints; the parent of a slice or dot-operand layout described the same way)."""
    if layout is None:
        return LayoutInfo("other", {}, "scalar (no layout: one address for the whole program)")
    name = type(layout).__name__
    g = functools.partial(getattr, layout)
    lst = lambda v: [int(x) for x in v]  # noqa: E731
    if name == "BlockedLayout":
        params = {"size_per_thread": lst(g("size_per_thread")), "threads_per_warp": lst(g("threads_per_warp")),
                  "warps_per_cta": lst(g("warps_per_cta")), "order": lst(g("order"))}
        return LayoutInfo("blocked", params, _text(layout))
    if name == "SliceLayout":
        return LayoutInfo("slice", {"dim": int(g("dim"))}, _text(layout), layout_info(g("parent")))
    if name == "NVMMADistributedLayout":
        params = {"version": lst(g("version")), "warps_per_cta": lst(g("warps_per_cta")),
                  "instr_shape": lst(g("instr_shape"))}
        return LayoutInfo("mma", params, _text(layout))
    if name == "DotOperandLayout":
        return LayoutInfo("dot_operand", {"op_idx": int(g("operand_index")), "k_width": int(g("k_width"))},
                          _text(layout), layout_info(g("parent")))
    if name == "SwizzledSharedLayout":
        params = {"vec": int(g("vec")), "per_phase": int(g("per_phase")), "max_phase": int(g("max_phase")),
                  "order": lst(g("order"))}
        return LayoutInfo("swizzled_shared", params, _text(layout))
    if name == "NVMMASharedLayout":
        params = {"swizzle_bytes": int(g("swizzle_byte_width")), "element_bitwidth": int(g("element_bitwidth")),
                  "transposed": bool(g("transposed"))}
        return LayoutInfo("nvmma_shared", params, _text(layout))
    if name == "DistributedLinearLayout":
        params = {k: [lst(b) for b in g(k)] for k in ("reg_bases", "lane_bases", "warp_bases")}
        return LayoutInfo("linear", params, _text(layout))
    return LayoutInfo("other", {}, _text(layout))


def _text(layout: Any) -> str:
    """The Gluon object's repr: Triton's names for the parameters (``size_per_thread=[4], ...``)."""
    return repr(layout)
