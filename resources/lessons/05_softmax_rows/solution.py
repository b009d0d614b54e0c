"""Lesson 5: one row per program (softmax).

The check calls launch(x, out) once: x is a 6 x 50 float32 matrix whose rows are 64 elements
apart in memory (x.stride(0) == 64), out is a contiguous 6 x 50 matrix filled with NaN and
should become softmax(x) along each row. Program r handles row r, all of it in one block.
"""

import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, out_ptr, x_row_stride, out_row_stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)  # one row per program
    col = tl.arange(0, BLOCK_SIZE)
    valid = col < n_cols
    # lanes past the row's end read -inf: they change neither the max nor the sum of exp
    v = tl.load(x_ptr + row * x_row_stride + col, mask=valid, other=-float("inf"))
    e = tl.exp(v - tl.max(v, axis=0))
    tl.store(out_ptr + row * out_row_stride + col, e / tl.sum(e, axis=0), mask=valid)


def launch(x, out):
    n_rows, n_cols = x.shape
    BLOCK_SIZE = triton.next_power_of_2(n_cols)  # starter: BLOCK_SIZE = 32
    softmax_kernel[(n_rows,)](x, out, x.stride(0), out.stride(0), n_cols, BLOCK_SIZE=BLOCK_SIZE)
