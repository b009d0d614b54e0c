"""Lesson 4: 2-D tiles and strides.

The check calls launch(x, out) once: x is a 24 x 40 float32 matrix that is a *transposed view*
(x = base.t(), so its strides are (1, 24), not (40, 1)); out is a contiguous 24 x 40 matrix
filled with NaN and should become 3 * x - 1. Each program handles one BLOCK_M x BLOCK_N tile.
"""

import triton
import triton.language as tl

BLOCK_M, BLOCK_N = 8, 16


@triton.jit
def affine_2d_kernel(x_ptr, out_ptr, M, N, stride_xm, stride_xn, stride_om, stride_on,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(axis=0) * BLOCK_M + tl.arange(0, BLOCK_M)  # this tile's rows ...
    cols = tl.program_id(axis=1) * BLOCK_N + tl.arange(0, BLOCK_N)  # ... and columns
    inside = (rows[:, None] < M) & (cols[None, :] < N)  # a BLOCK_M x BLOCK_N mask
    # element (i, j) of a tensor lives at  base + i * stride(0) + j * stride(1)
    src = x_ptr + rows[:, None] * stride_xm + cols[None, :] * stride_xn  # starter: src = x_ptr + rows[:, None] * N + cols[None, :]
    dst = out_ptr + rows[:, None] * stride_om + cols[None, :] * stride_on
    tl.store(dst, 3 * tl.load(src, mask=inside) - 1, mask=inside)


def launch(x, out):
    M, N = x.shape
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))  # axis 0: row tiles, axis 1: column tiles
    affine_2d_kernel[grid](x, out, M, N, x.stride(0), x.stride(1), out.stride(0), out.stride(1),
                           BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
