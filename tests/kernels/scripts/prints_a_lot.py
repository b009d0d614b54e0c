import torch
import triton
import triton.language as tl


@triton.jit
def copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


for i in range(100_000):
    print("line", i)
x = torch.arange(100, dtype=torch.float32, device="cuda")
y = torch.empty_like(x)
copy_kernel[(4,)](x, y, 100, BLOCK=32)
print("done")
