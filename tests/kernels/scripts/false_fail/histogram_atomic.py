"""An atomic histogram: every program adds its elements' counts into one shared output."""
import torch
import triton
import triton.language as tl


@triton.jit
def hist_kernel(x_ptr, hist_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    tl.atomic_add(hist_ptr + x, 1, mask=mask)


def histogram(x, nbins=16):
    hist = torch.zeros(nbins, dtype=torch.int32, device=x.device)
    n = x.numel()
    BLOCK = 256
    hist_kernel[(triton.cdiv(n, BLOCK),)](x, hist, n, BLOCK)
    return hist


if __name__ == "__main__":
    x = torch.randint(0, 16, (4096,), device="cuda", dtype=torch.int32)
    print(histogram(x))
