"""A script that changes torch's and Python's global state as it is imported."""
import os

import torch
import triton
import triton.language as tl

torch.set_default_device("cuda")
torch.set_default_dtype(torch.float64)
torch.set_grad_enabled(False)
os.chdir("/")


@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


os.environ["TRITON_INTERPRET"] = "1"  # after the kernel: a @jit made now would be an interpreted one


def copy(x):
    out = torch.empty_like(x)
    copy_kernel[(triton.cdiv(x.numel(), 128),)](x, out, x.numel(), 128)
    return out


if __name__ == "__main__":
    copy(torch.randn(1000, dtype=torch.float32))
