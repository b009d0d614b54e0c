"""Lesson 9: num_warps and the layout.

The check calls launch(x, out, num_warps=W) once for each W in 2, 4 and 8: x holds 4096 float32
values, out is filled with NaN and should become 3 * x. For each W it compiles your kernel for an
sm_90 GPU (no GPU needed) and reads the layout Triton chose for the load of x: which warp, lane
and register of a program hold each element of its block. Then it asks which_warp(i, W) for
every element i of a block and compares your answers with that layout.
"""

import triton
import triton.language as tl

BLOCK_SIZE = 1024  # elements per program: keep 1024 for this lesson


@triton.jit
def triple_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)  # the access the check reads the layout of
    tl.store(out_ptr + offsets, x * 3, mask=mask)


def launch(x, out, num_warps=4):
    n_elements = x.numel()
    grid = (triton.cdiv(n_elements, BLOCK_SIZE),)
    triple_kernel[grid](x, out, n_elements, BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps)


def which_warp(i, num_warps):
    """Your prediction: the warp of a program that holds element i (0 <= i < BLOCK_SIZE) of its
    block of x, when the kernel runs with num_warps warps of 32 threads."""
    return (i // (32 * 4)) % num_warps  # starter: return i // (BLOCK_SIZE // num_warps)  # TODO: your prediction
