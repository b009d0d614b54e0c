"""Helpers shared by the catalog modules."""

from __future__ import annotations

import torch

TORCH_DTYPES = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}
ELEMENT_BYTES = {"fp32": 4, "fp16": 2, "bf16": 2}


def randn(shape, dtype, device, gen, scale: float = 1.0):
    """Fresh normal random values drawn on the CPU from ``gen`` (reproducible on any device)."""
    x = torch.randn(shape, generator=gen, dtype=torch.float32) * scale
    return x.to(device=device, dtype=dtype)
