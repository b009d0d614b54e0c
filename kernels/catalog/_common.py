"""Helpers shared by the catalog modules."""

from __future__ import annotations

import torch

__all__ = ["ELEMENT_BYTES", "TORCH_DTYPES", "BF16_INTERPRETER_FAULT", "next_pow2", "randn", "rand"]

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
