"""Tutorial 07's pattern: a libdevice function (asin) in a kernel."""
import torch
import triton
import triton.language as tl
from triton.language.extra import libdevice

DEVICE = triton.runtime.driver.active.get_active_torch_device()


@triton.jit
def asin_kernel(x_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, libdevice.asin(x), mask=mask)


x = torch.rand(777, device=DEVICE) * 2 - 1
y = torch.empty_like(x)
asin_kernel[(triton.cdiv(777, 256),)](x, y, 777, BLOCK_SIZE=256)
assert torch.allclose(y, torch.asin(x), atol=1e-6), (y - torch.asin(x)).abs().max()
print("asin matches")
