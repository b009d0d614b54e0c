"""A launch's arguments as the interpreter layer sees them: bound to the kernel's signature,
split into tensors (with the addresses that map a lane to a logical element), scalars and
constexprs, and the grid resolved to three sizes."""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..data.grid import Grid3, as_grid3
from ..data.trace import TensorInfo

#: set on a pointer table (an int64 tensor of addresses) by ``kernels.script.pointer_tables``:
#: [(name, tensor), ...] the tensors its addresses point into, which the launch accesses too
REACHED_ATTR = "_tilescope_reached"

__all__ = ["REACHED_ATTR", "TensorArg", "tensor_arg", "collect_args", "plain", "bind", "grid3", "launch_options"]


@dataclass
class TensorArg:
    """A tensor argument with the addresses needed to turn its lanes into logical indices."""

    info: TensorInfo
    data_ptr: int  # address of logical element 0
    storage_ptr: int
    storage_nbytes: int
    min_off: int  # lowest / highest element offset of a logical element, relative to data_ptr
    max_off: int
    contiguous: bool  # row-major contiguous: logical index = element offset
    _inverse: np.ndarray | None = field(default=None, repr=False)

    @property
    def lo(self) -> int:  # first byte of the view's footprint
        return self.data_ptr + self.min_off * self.info.element_size

    @property
    def hi(self) -> int:  # one past its last byte
        return self.data_ptr + (self.max_off + 1) * self.info.element_size

    def inverse(self) -> np.ndarray:
        """int64 [max_off - min_off + 1]: element offset - min_off -> logical flat index, -1 where
        no logical element lives (gaps of strided views). Stride-0 (broadcast) dimensions map
        several logical elements to one offset; the last one is kept."""
        if self._inverse is None:
            offs = np.zeros((), dtype=np.int64)
            for n, s in zip(self.info.shape, self.info.strides, strict=True):
                offs = offs[..., None] + np.arange(n, dtype=np.int64) * s
            inv = np.full(self.max_off - self.min_off + 1, -1, dtype=np.int64)
            inv[offs.ravel() - self.min_off] = np.arange(self.info.numel, dtype=np.int64)
            self._inverse = inv
        return self._inverse


def _dtype_name(dt: Any) -> str:
    return str(dt).replace("torch.", "")


def tensor_arg(name: str, value: Any) -> TensorArg | None:
    base = getattr(value, "base", None) if type(value).__name__ == "TensorWrapper" else value
    if base is None or not hasattr(base, "untyped_storage") or not hasattr(base, "stride"):
        return None
    if base.device.type != "cpu":
        raise ValueError(f"argument {name!r} is on {base.device}; the tracer runs on the CPU — "
                         "build the inputs on device 'cpu'")
    shape = tuple(int(s) for s in base.shape)
    strides = tuple(int(s) for s in base.stride())
    esize = int(base.element_size())
    storage = base.untyped_storage()
    if any(s < 0 for s in strides):  # torch has none; guard anyway
        raise ValueError(f"argument {name!r} has a negative stride")
    numel = int(np.prod(shape)) if shape else 1
    max_off = sum((n - 1) * s for n, s in zip(shape, strides, strict=True)) if numel else 0
    dtype = _dtype_name(value.dtype) if value is not base else _dtype_name(base.dtype)
    info = TensorInfo(name=name, shape=shape, strides=strides, dtype=dtype,
                      storage_offset=int(base.storage_offset()), element_size=esize)
    return TensorArg(info, int(base.data_ptr()), int(storage.data_ptr()), int(storage.nbytes()), 0, int(max_off),
                bool(base.is_contiguous()))


def collect_args(bound: dict[str, Any], consts: set[str]) -> tuple[list[TensorArg], dict[str, Any], dict[str, Any]]:
    tensors: list[TensorArg] = []
    scalars: dict[str, Any] = {}
    constexprs: dict[str, Any] = {}

    def walk(name: str, value: Any) -> bool:
        arg = tensor_arg(name, value)
        if arg is not None:
            tensors.append(arg)
            for reached_name, t in getattr(value, REACHED_ATTR, ()):  # a pointer table's tensors
                walk(reached_name, t)
            return True
        if isinstance(value, tuple) and value:
            found = [walk(f"{name}[{i}]", v) for i, v in enumerate(value)]
            return any(found)
        if _is_descriptor(value):  # a TensorDescriptor: its loads and stores address its base
            return walk(f"{name}.base", value.base)
        return False

    for name, value in bound.items():
        if name in consts:
            constexprs[name] = plain(value)
        elif not walk(name, value):
            scalars[name] = plain(value)
    return tensors, scalars, constexprs


def _is_descriptor(v: Any) -> bool:
    return hasattr(v, "block_shape") and hasattr(getattr(v, "base", None), "untyped_storage")


def plain(v: Any) -> Any:
    """A picklable, torch/triton-free form of an argument value."""
    v = getattr(v, "value", v) if type(v).__name__ == "constexpr" else v
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, tuple):
        return tuple(plain(x) for x in v)
    return str(v)


def bind(jit_fn: Any, args: tuple, kwargs: dict) -> dict[str, Any]:
    sig = inspect.signature(jit_fn.fn)
    names = set(sig.parameters)
    # launch options (num_warps, num_stages, ...) are not kernel parameters: drop them, as Triton does
    kw = {k: v for k, v in kwargs.items() if k in names}
    try:
        ba = sig.bind(*args, **kw)
    except TypeError as e:
        raise ValueError(f"arguments do not fit {jit_fn.fn.__name__}{sig}: {e}") from None
    ba.apply_defaults()
    return dict(ba.arguments)


def grid3(grid: Any, bound: dict[str, Any]) -> Grid3:
    """The launch grid as a 3-tuple: a callable grid is called with the bound arguments (its
    ``meta``), as Triton does."""
    return as_grid3(grid(bound) if callable(grid) else grid)


def launch_options(jit_fn: Any, kwargs: dict) -> dict[str, Any]:
    """The keyword arguments of a launch that are not kernel parameters (num_warps, num_stages,
    maxnreg, …): Triton's launch options."""
    names = set(inspect.signature(jit_fn.fn).parameters)
    return {k: plain(v) for k, v in kwargs.items() if k not in names}
