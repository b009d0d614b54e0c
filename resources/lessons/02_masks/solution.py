"""Lesson 2: masks.

The check calls launch(x, y, out) once: x and y hold 200 float32 values each, out is filled
with NaN, and out should become x + y. A lane that reads or writes past the end of a tensor is
recorded as out of bounds (on a GPU it would read garbage or crash).
"""

import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    block_start = tl.program_id(axis=0) * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    in_bounds = offsets < n_elements  # starter:
    a = tl.load(x_ptr + offsets, mask=in_bounds)  # starter: a = tl.load(x_ptr + offsets)
    b = tl.load(y_ptr + offsets, mask=in_bounds)  # starter: b = tl.load(y_ptr + offsets)
    tl.store(out_ptr + offsets, a + b, mask=in_bounds)  # starter: tl.store(out_ptr + offsets, a + b)


def launch(x, y, out):
    n = out.numel()
    add_kernel[(triton.cdiv(n, 64),)](x, y, out, n, BLOCK_SIZE=64)
