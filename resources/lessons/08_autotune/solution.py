"""Lesson 8: autotune.

The check calls launch(x, out, **meta) once per candidate in CONFIGS, where meta is that
config's values (for example BLOCK_SIZE=64, num_warps=2, num_stages=3), just as
@triton.autotune calls a kernel. x holds 200 float32 values, out is filled with NaN and should
become 0.5 * x. Every candidate must be correct; the check then exports the decorator.
"""

import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, out_ptr, n_elements, scale, BLOCK_SIZE: tl.constexpr):
    lanes = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    ok = lanes < n_elements
    tl.store(out_ptr + lanes, scale * tl.load(x_ptr + lanes, mask=ok), mask=ok)


CONFIGS = [  # the candidates: the constexprs they set, and launch options (ignored by the interpreter)
    triton.Config({"BLOCK_SIZE": 32}, num_warps=1),
    triton.Config({"BLOCK_SIZE": 64}, num_warps=2),
    triton.Config({"BLOCK_SIZE": 128}, num_warps=4),
]
KEY = ["n_elements"]  # re-tune when these arguments change


def launch(x, out, **meta):
    n_elements = x.numel()

    def grid(META):  # starter: grid = (triton.cdiv(n_elements, 64),)
        return (triton.cdiv(n_elements, META["BLOCK_SIZE"]),)  # starter:

    scale_kernel[grid](x, out, n_elements, 0.5, **meta)
