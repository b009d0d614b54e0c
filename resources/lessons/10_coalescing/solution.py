"""Lesson 10: coalescing.

The check calls launch(x, out) once: x is a 128 × 128 float32 matrix stored row by row
(x[r, c] is at x_ptr + r * 128 + c), out a matrix of the same shape filled with NaN; out should
become 2 * x. It compiles your kernel for an sm_90 GPU (no GPU needed), traces it on the
interpreter for the address of every lane, and counts, for each warp instruction of every load
and store, the 32-byte sectors of memory it touches. The budget: the sectors a warp's 32
neighbouring reads fill (32 lanes × 4 bytes = 128 bytes = 4 sectors per request for one float32
a lane), for every load and store.
"""

import triton
import triton.language as tl

N = 128  # rows and columns of x: keep 128


@triton.jit
def double_kernel(x_ptr, out_ptr, stride_row, N: tl.constexpr):
    p = tl.program_id(axis=0)
    k = tl.arange(0, N)
    offsets = p * stride_row + k  # starter: offsets = k * stride_row + p  # program p walks down column p
    x = tl.load(x_ptr + offsets)
    tl.store(out_ptr + offsets, x * 2)


def launch(x, out):
    n = x.shape[0]
    double_kernel[(n,)](x, out, x.stride(0), N=N, num_warps=4)
