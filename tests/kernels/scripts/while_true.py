import torch
import triton
import triton.language as tl


@triton.jit
def inc_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1, mask=offs < n)


x = torch.zeros(50, device="cuda")
inc_kernel[(1,)](x, 50, BLOCK=64)
while True:
    pass
