"""A launch of 2**31 - 1 programs over a tensor of 1,024 elements (after one ordinary launch)."""
import torch
import triton
import triton.language as tl


@triton.jit
def touch_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2, mask=mask)


if __name__ == "__main__":
    x = torch.randn(1024, device="cuda")
    touch_kernel[(8,)](x, 1024, 128)
    touch_kernel[(2**31 - 1,)](x, 1024, 128)
