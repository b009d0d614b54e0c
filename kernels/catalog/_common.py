"""Helpers shared by the catalog modules."""

from __future__ import annotations

import importlib
import types
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import torch

__all__ = ["ELEMENT_BYTES", "TORCH_DTYPES", "BF16_INTERPRETER_FAULT", "interpreter_compat", "next_pow2", "randn", "rand"]

TORCH_DTYPES = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}
ELEMENT_BYTES = {"fp32": 4, "fp16": 2, "bf16": 2}

#: why bf16 results under the interpreter are not to be trusted (see KernelSpec.interpreter_faults)
BF16_INTERPRETER_FAULT = (
    "Triton 3.9's interpreter computes bf16 arithmetic and bf16 tl.dot wrongly; "
    "check bf16 on the GPU"
)


def next_pow2(n: int) -> int:
    """The smallest power of two >= n (1 for n <= 1): the block that covers a whole row."""
    return 1 if n <= 1 else 1 << (int(n) - 1).bit_length()


def randn(shape, dtype, device, gen, scale: float = 1.0):
    """Fresh normal random values drawn on the CPU from ``gen`` (reproducible on any device)."""
    x = torch.randn(shape, generator=gen, dtype=torch.float32) * scale
    return x.to(device=device, dtype=dtype)


def rand(shape, dtype, device, gen, lo: float = 0.0, hi: float = 1.0):
    """Fresh uniform random values in [lo, hi), drawn on the CPU from ``gen``."""
    x = torch.rand(shape, generator=gen, dtype=torch.float32) * (hi - lo) + lo
    return x.to(device=device, dtype=dtype)


@contextmanager
def interpreter_compat() -> Iterator[None]:
    """Run interpreted kernels (``InterpretedFunction(fn.fn)[grid](...)``) safely; wrap each launch.

    Three gaps of Triton's interpreter when it is used without the TRITON_INTERPRET variable:

    1. ``tl.max``, ``tl.sum``, ``tl.cdiv`` (and, on Triton 3.9, ``tl.zeros``) are themselves
       JITFunctions, which refuse to be called outside a compiled kernel. Inside this context
       every JITFunction attribute of ``triton.language`` and its submodules is swapped for one
       interpreted twin (one per function, so identity checks such as the interpreter's fast
       path for ``tl.standard._elementwise_max`` still hold).
    2. Those twins patch ``triton.language`` for the interpreter on each call and never undo it,
       which would break the next *compiled* kernel in the same process. Every attribute of the
       language modules and classes is snapshotted here and put back on exit.
    3. Triton 3.6 turns a tensor into a loop bound with ``int(array_of_shape_1)``, which NumPy 2
       refuses, so ``for k in range(0, K, BLOCK_K)`` fails; ``__index__`` is patched to squeeze.

    Not thread-safe: run one interpreted launch at a time.
    """
    import triton.language as tl
    import triton.runtime.interpreter as interp
    from triton.runtime.jit import JITFunction

    try:  # imported lazily by Triton's argument specialization; it copies the helpers as they
        # stand, so it must be imported while they are still JITFunctions
        importlib.import_module("triton.experimental.gluon")
    except ImportError:
        pass
    modules = [tl] + [m for m in vars(tl).values() if isinstance(m, types.ModuleType)
                      and m.__name__.startswith("triton.language")]
    classes = [c for c in (getattr(tl.core, n, None) for n in ("tensor", "dtype", "condition",
                                                                "tensor_descriptor_base"))
               if isinstance(c, type)]
    snapshot = [(obj, dict(vars(obj))) for obj in modules + classes]
    twins: dict[int, Any] = {}
    swaps: list[tuple[types.ModuleType, str, Any]] = []
    for mod in modules:
        for name, value in list(vars(mod).items()):
            if isinstance(value, JITFunction):
                swaps.append((mod, name, twins.setdefault(id(value), interp.InterpretedFunction(value.fn))))
    orig_patch_tensor = getattr(interp, "_patch_lang_tensor", None)

    def _patch_lang_tensor(tensor, scope):  # gap 3
        orig_patch_tensor(tensor, scope)
        scope.set_attr(tensor, "__index__", lambda self: int(self.handle.data.reshape(-1)[0]))

    try:
        for mod, name, twin in swaps:
            setattr(mod, name, twin)
        if orig_patch_tensor is not None:
            interp._patch_lang_tensor = _patch_lang_tensor
        yield
    finally:
        if orig_patch_tensor is not None:
            interp._patch_lang_tensor = orig_patch_tensor
        for obj, saved in snapshot:
            current = dict(vars(obj))
            for name, value in saved.items():
                if current.get(name, _MISSING) is not value:
                    setattr(obj, name, value)
            if isinstance(obj, type):  # e.g. an __index__ the interpreter added to tl.tensor
                for name in current.keys() - saved.keys():
                    delattr(obj, name)
            # Names added to a module's namespace stay: they are the interpreter's helpers
            # (interpreter_semantic, ...) that its cached rewrites of tl.max & co. look up there.


_MISSING = object()
