"""Host tensor descriptors (TMA) and the runtime allocator, as a captured launch needs them again.

- A ``TensorDescriptor`` argument (``TensorDescriptor.from_tensor(x, block_shape)``, tutorials 06
  and 09) addresses its ``base`` tensor: the base is what the launch reads or writes. ``bases``
  names each one ``<arg>.base`` (the name ``kernels.interp`` gives its accesses), so its contents
  are kept before and after the launch like any tensor argument's, and ``rebuild`` gives a re-run
  descriptors of the same shape, strides and block over that run's copies.
- A descriptor's block is the kernel's tile (``from_tensor(x, [BM, BN])``, or an autotune config's
  ``pre_hook`` setting ``block_shape``): ``follow_blocks`` gives a run with other constexprs
  descriptors whose block dimensions follow the constexprs they equalled at capture (of several
  equal ones, the first not taken by an earlier dimension, in the kernel's order).
- A kernel that builds descriptors itself (``tl.make_tensor_descriptor``) needs global scratch
  memory from the allocator the script set with ``triton.set_allocator``. Triton keeps it in a
  ``ContextVar``: a re-run in another thread (the worker's) would not see it. ``allocator()``
  reads the one in force at the launch; ``using(allocator)`` sets it around a re-run.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator
from typing import Any

import torch

__all__ = ["is_descriptor", "bases", "rebuild", "follow_blocks", "allocator", "using"]


def is_descriptor(v: Any) -> bool:
    return dataclasses.is_dataclass(v) and hasattr(v, "block_shape") and isinstance(getattr(v, "base", None),
                                                                                    torch.Tensor)


def bases(bound: dict[str, Any]) -> dict[str, torch.Tensor]:
    """``<arg>.base`` -> the tensor each descriptor argument addresses."""
    return {f"{k}.base": v.base for k, v in bound.items() if is_descriptor(v)}


def rebuild(bound: dict[str, Any], copies: dict[str, torch.Tensor]) -> dict[str, Any]:
    """``bound`` with each descriptor over ``copies[<arg>.base]`` instead of its captured base."""
    out = dict(bound)
    for k, v in bound.items():
        if is_descriptor(v) and f"{k}.base" in copies:
            copy = copies[f"{k}.base"]
            # a descriptor over its base's own strides (``from_tensor``) follows the copy's, which are
            # compact where the base was a strided view
            strides = list(copy.stride()) if list(v.strides) == list(v.base.stride()) else v.strides
            out[k] = dataclasses.replace(v, base=copy, strides=strides)
    return out


def _block_names(v: Any, captured: dict[str, Any], consts: list[str]) -> list[str | None]:
    names: list[str | None] = []
    for b in v.block_shape:
        same = [c for c in consts if isinstance(captured.get(c), int) and not isinstance(captured[c], bool)
                and captured[c] == b and c not in names]
        names.append(same[0] if same else None)
    return names


def follow_blocks(bound: dict[str, Any], captured: dict[str, Any], consts: set[str]) -> dict[str, Any]:
    """``bound`` with each descriptor's block dimensions set from ``bound``'s constexprs, where the
    captured launch's block dimension equalled a constexpr of ``captured`` (its bound arguments)."""
    order = [k for k in captured if k in consts]
    out = dict(bound)
    for k, v in bound.items():
        if not is_descriptor(v) or not is_descriptor(captured.get(k)):
            continue
        names = _block_names(captured[k], captured, order)
        block = [int(bound[n]) if n is not None and n in bound else b for n, b in zip(names, v.block_shape, strict=True)]
        if block != list(v.block_shape):
            out[k] = dataclasses.replace(v, block_shape=block)
    return out


def allocator() -> Any:
    """The allocator ``triton.set_allocator`` put in force here (None: none was set)."""
    try:
        from triton.runtime import _allocation
    except ImportError:
        return None
    a = _allocation._allocator.get()
    return None if isinstance(a, _allocation.NullAllocator) else a


@contextlib.contextmanager
def using(alloc: Any) -> Iterator[None]:
    """Run with ``alloc`` as Triton's allocator (nothing changes for None), put back after."""
    if alloc is None:
        yield
        return
    from triton.runtime import _allocation

    token = _allocation._allocator.set(alloc)
    try:
        yield
    finally:
        _allocation._allocator.reset(token)
