"""int32 products past 2**31: on the GPU both wrap negative (a loop variable times a constexpr, a
program id times an argument); the capture must compute the same, or say it cannot."""
import torch
import triton
import triton.language as tl


@triton.jit
def wrap3_kernel(out_ptr, n_rows, STRIDE: tl.constexpr, BLOCK: tl.constexpr):
    for row in range(0, n_rows):
        base = row * STRIDE  # int32 on the GPU: negative past 2**31
        offs = tl.arange(0, BLOCK)
        tl.store(out_ptr + row * BLOCK + offs, tl.zeros([BLOCK], tl.float32) + (base < 0).to(tl.float32))


@triton.jit
def wrap4_kernel(out_ptr, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    base = row * stride
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + row * BLOCK + offs, tl.zeros([BLOCK], tl.float32) + (base < 0).to(tl.float32))


if __name__ == "__main__":
    out = torch.empty(4 * 16, device="cuda")
    wrap3_kernel[(1,)](out, 4, 2**30 + 3, 16)
    print("loop constexpr", out[::16].tolist())
    wrap4_kernel[(4,)](out, 2**30 + 3, 16)
    print("pid * arg", out[::16].tolist())
