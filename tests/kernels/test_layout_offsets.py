"""The byte offsets the layout engine keeps of one program's access (what the Threads view's
pointer names as an element's address and sector, and fades when masked off).

What breaks if this fails: the view names the wrong address or sector for an element, or draws a
masked-off lane as if it loaded."""

from __future__ import annotations

import numpy as np
import torch
import triton
import triton.language as tl

from kernels.layout.service import layout_jit


@triton.jit
def _copy(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m), mask=m)


def test_the_sample_programs_offsets_are_each_elements_bytes_in_its_tensor_and_minus_one_masked():
    n, block = 1000, 256
    x, out = torch.randn(n), torch.empty(n)
    res = layout_jit(_copy, (triton.cdiv(n, block),), (x, out, n), {"BLOCK": block, "num_warps": 2},
                     programs="3:4")
    load = next(a for a in res.accesses if a.op == "load")
    co = load.coalescing
    assert co.sample_program == 3 and co.sample_offsets.shape == (block,)
    i = np.arange(block)
    # program 3 covers elements 768..1023 of x; 1000.. are past the end
    want = np.where(768 + i < n, (768 + i) * 4, -1)
    assert np.array_equal(co.sample_offsets, want)
    assert load.tensor == "x_ptr"
