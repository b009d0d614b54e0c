"""Lesson 7: grouped program order and L2 reuse.

The check calls launch(a, b, c) once: a is 128 x 32, b is 32 x 128, c is 128 x 128 (float32,
c filled with NaN) and should become a @ b, in 16 x 16 tiles: an 8 x 8 grid of tiles, launched as
a 1-D grid of 64 programs. The trace models a small GPU of 8 SMs: programs 0..7 run together
(wave 0), then 8..15, ... The check counts the distinct tiles of a and b each wave loads.
"""

import triton
import triton.language as tl


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    # which tile of c is mine?
    num_pid_in_group = GROUP_SIZE_M * num_pid_n  # starter:
    group_id = pid // num_pid_in_group  # starter:
    first_pid_m = group_id * GROUP_SIZE_M  # starter:
    group_size_m = tl.minimum(num_pid_m - first_pid_m, GROUP_SIZE_M)  # starter:
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)  # starter: pid_m = pid // num_pid_n
    pid_n = (pid % num_pid_in_group) // group_size_m  # starter: pid_n = pid % num_pid_n
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :] * stride_ak
    b_ptrs = b_ptr + rk[:, None] * stride_bk + rn[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for _ in range(0, tl.cdiv(K, BLOCK_K)):
        acc = tl.dot(tl.load(a_ptrs), tl.load(b_ptrs), acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn, acc)


def launch(a, b, c):
    M, K = a.shape
    N = b.shape[1]
    grid = (triton.cdiv(M, 16) * triton.cdiv(N, 16),)
    matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
                        c.stride(1), BLOCK_M=16, BLOCK_N=16, BLOCK_K=16, GROUP_SIZE_M=4)
