"""Tutorial 04's pattern: seeded dropout with tl.rand (Philox), the same mask for the same seed."""
import torch
import triton
import triton.language as tl

DEVICE = triton.runtime.driver.active.get_active_torch_device()


@triton.jit
def seeded_dropout_kernel(x_ptr, out_ptr, n, p, seed, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    keep = tl.rand(seed, offs) > p
    tl.store(out_ptr + offs, tl.where(keep, x / (1 - p), 0.0), mask=mask)


def seeded_dropout(x, p, seed):
    out = torch.empty_like(x)
    n = x.numel()
    seeded_dropout_kernel[(triton.cdiv(n, 256),)](x, out, n, p, seed, BLOCK_SIZE=256)
    return out


x = torch.randn(1000, device=DEVICE)
a, b = seeded_dropout(x, 0.5, 123), seeded_dropout(x, 0.5, 123)
assert torch.equal(a, b)
kept = (a != 0).float().mean().item()
assert 0.4 < kept < 0.6, kept
print(f"kept {kept:.3f}")
