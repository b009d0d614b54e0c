"""A Gluon kernel (explicit layouts), launched as a plain script launches one."""
import torch
import triton
from triton.experimental import gluon
from triton.experimental.gluon import language as gl

DEVICE = triton.runtime.driver.active.get_active_torch_device()


@gluon.jit
def copy_scaled_kernel(x_ptr, y_ptr, n, BLOCK: gl.constexpr, num_warps: gl.constexpr):
    layout: gl.constexpr = gl.BlockedLayout([1], [32], [num_warps], [0])
    offs = gl.program_id(0) * BLOCK + gl.arange(0, BLOCK, layout=layout)
    mask = offs < n
    gl.store(y_ptr + offs, gl.load(x_ptr + offs, mask=mask) * 3, mask=mask)


x = torch.randn(1000, device=DEVICE)
y = torch.empty_like(x)
copy_scaled_kernel[(triton.cdiv(1000, 128),)](x, y, 1000, BLOCK=128, num_warps=4)
assert torch.equal(y, x * 3)
print("gluon copy matches")
