"""Tutorials 06 and 09's pattern: host descriptors made with a placeholder block, each autotune
config's pre_hook setting the blocks from its constexprs; here the output is written transposed,
so its block is [BN, BM], and at the first config BM == BN."""
import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

DEVICE = triton.runtime.driver.active.get_active_torch_device()


def set_blocks(nargs):
    nargs["x_desc"].block_shape = [nargs["BM"], nargs["BN"]]
    nargs["yt_desc"].block_shape = [nargs["BN"], nargs["BM"]]


@triton.autotune([triton.Config({"BM": 32, "BN": 32}, pre_hook=set_blocks),
                  triton.Config({"BM": 16, "BN": 64}, pre_hook=set_blocks)], key=["M", "N"])
@triton.jit
def transpose_kernel(x_desc, yt_desc, M, N, BM: tl.constexpr, BN: tl.constexpr):
    pm, pn = tl.program_id(0), tl.program_id(1)
    tile = x_desc.load([pm * BM, pn * BN])
    yt_desc.store([pn * BN, pm * BM], tl.trans(tile))


def transpose(x):
    M, N = x.shape
    yt = torch.empty((N, M), device=x.device, dtype=x.dtype)
    dummy = [16, 16]
    grid = lambda meta: (triton.cdiv(M, meta["BM"]), triton.cdiv(N, meta["BN"]))  # noqa: E731
    transpose_kernel[grid](TensorDescriptor.from_tensor(x, dummy), TensorDescriptor.from_tensor(yt, dummy), M, N)
    return yt


x = torch.randn(64, 128, device=DEVICE, dtype=torch.float16)
assert torch.equal(transpose(x), x.T)
print("transpose matches")
