"""A matmul of square operands, as a matmul tutorial writes it: autotune configs chosen by an
``is_cuda()`` check of the active driver, a meta-lambda 1-D grid, a shape assert in the wrapper
(so M, N and K are told apart only by calling it again), and a second launch in fp8 with a
transposed operand."""
import torch
import triton
import triton.language as tl

DEVICE = triton.runtime.driver.active.get_active_torch_device()


def is_cuda():
    return triton.runtime.driver.active.get_current_target().backend == "cuda"


def get_autotune_config():
    if is_cuda():
        return [triton.Config({'BLOCK_SIZE_M': 32, 'BLOCK_SIZE_N': 16, 'BLOCK_SIZE_K': 32}, num_stages=3, num_warps=4),
                triton.Config({'BLOCK_SIZE_M': 16, 'BLOCK_SIZE_N': 32, 'BLOCK_SIZE_K': 32}, num_stages=4, num_warps=2)]
    return [triton.Config({'BLOCK_SIZE_M': 64, 'BLOCK_SIZE_N': 64, 'BLOCK_SIZE_K': 64})]


@triton.autotune(configs=get_autotune_config(), key=['M', 'N', 'K'])
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr):
    pid = tl.program_id(axis=0)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    pid_m = pid // num_pid_n
    pid_n = pid % num_pid_n
    offs_am = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_bn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        kk = k * BLOCK_SIZE_K + offs_k
        a = tl.load(a_ptr + offs_am[:, None] * stride_am + kk[None, :] * stride_ak,
                    mask=(offs_am[:, None] < M) & (kk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + kk[:, None] * stride_bk + offs_bn[None, :] * stride_bn,
                    mask=(kk[:, None] < K) & (offs_bn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
    c_mask = (offs_am[:, None] < M) & (offs_bn[None, :] < N)
    tl.store(c_ptr + offs_am[:, None] * stride_cm + offs_bn[None, :] * stride_cn, acc.to(tl.float16), mask=c_mask)


def matmul(a, b):
    assert a.shape[1] == b.shape[0], "Incompatible dimensions"
    M, K = a.shape
    K, N = b.shape
    c = torch.empty((M, N), device=a.device, dtype=torch.float16)
    grid = lambda META: (triton.cdiv(M, META['BLOCK_SIZE_M']) * triton.cdiv(N, META['BLOCK_SIZE_N']), )
    matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
                        c.stride(1))
    return c


torch.manual_seed(0)
a = torch.randn((48, 48), device=DEVICE, dtype=torch.float16)
b = torch.randn((48, 48), device=DEVICE, dtype=torch.float16)
print(torch.allclose(matmul(a, b), torch.matmul(a, b), atol=1e-2, rtol=1e-2))
if hasattr(torch, "float8_e5m2") and is_cuda():
    a8 = a.to(torch.float8_e5m2)
    b8 = b.T.to(torch.float8_e5m2)
    print(torch.allclose(matmul(a8, b8), torch.matmul(a8.to(torch.float16), b8.to(torch.float16)), atol=0.125))
