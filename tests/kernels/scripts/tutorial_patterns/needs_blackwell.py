"""A script that checks for a Blackwell GPU (sm_100) and launches nothing without one, as
tutorial 10 (block-scaled matmul) does."""
import torch
import triton
import triton.language as tl


@triton.jit
def fill_kernel(out_ptr, value, BLOCK: tl.constexpr):
    tl.store(out_ptr + tl.arange(0, BLOCK), tl.full([BLOCK], value, tl.float32))


if torch.cuda.get_device_capability()[0] != 10:
    print("⛔ This example requires a Blackwell GPU")
else:
    out = torch.empty(64, device="cuda")
    fill_kernel[(1,)](out, 7.0, BLOCK=64)
    print("filled", out[0].item())
