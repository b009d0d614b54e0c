"""Lesson 6: tiled matmul and the K loop.

The check calls launch(a, b, c) once: a is 32 x 64, b is 64 x 32 (float32), c is 32 x 32 filled
with NaN and should become a @ b. Program (i, j) of the 2 x 2 grid computes the 16 x 16 tile
(i, j) of c, walking K in steps of BLOCK_K. Every size here is a multiple of its block: no masks.
"""

import triton
import triton.language as tl

BM, BN, BK = 16, 16, 16


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)  # the tile of c, kept in registers
    for k0 in range(0, K, BLOCK_K):
        offs_k = k0 + tl.arange(0, BLOCK_K)  # starter: offs_k = tl.arange(0, BLOCK_K)
        a_tile = tl.load(a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak)
        b_tile = tl.load(b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn)
        acc += tl.dot(a_tile, b_tile)
    tl.store(c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn, acc)


def launch(a, b, c):
    (M, K), N = a.shape, b.shape[1]
    matmul_kernel[(M // BM, N // BN)](a, b, c, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                      c.stride(0), c.stride(1), BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK)
