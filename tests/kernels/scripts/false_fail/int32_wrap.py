"""int32 products past 2**31: on the GPU an int32 product wraps negative (a ``range``/``tl.range``
loop variable times a constexpr, a program id times an argument); a loop whose bound is int64
has an int64 variable, and a ``tl.static_range`` variable is a constexpr (neither wraps). The
capture must compute the same."""
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


@triton.jit
def tl_range_kernel(out_ptr, n_rows, STRIDE: tl.constexpr, BLOCK: tl.constexpr):
    for row in tl.range(0, n_rows, step=1):  # int32, as range()
        offs = tl.arange(0, BLOCK)
        tl.store(out_ptr + row * BLOCK + offs, tl.zeros([BLOCK], tl.float32) + (row * STRIDE < 0).to(tl.float32))


@triton.jit
def int64_bound_kernel(out_ptr, n_rows, STRIDE: tl.constexpr, BLOCK: tl.constexpr):
    for row in range(0, n_rows.to(tl.int64)):  # an int64 bound: an int64 variable, no wrap
        offs = tl.arange(0, BLOCK)
        tl.store(out_ptr + row * BLOCK + offs, tl.zeros([BLOCK], tl.float32) + (row * STRIDE < 0).to(tl.float32))


@triton.jit
def static_range_kernel(out_ptr, STRIDE: tl.constexpr, BLOCK: tl.constexpr):
    for row in tl.static_range(4):  # a constexpr on the GPU: Python arithmetic, no wrap
        offs = tl.arange(0, BLOCK)
        tl.store(out_ptr + row * BLOCK + offs, tl.zeros([BLOCK], tl.float32) + tl.where(row * STRIDE < 0, 1.0, 0.0))


if __name__ == "__main__":
    out = torch.empty(4 * 16, device="cuda")
    wrap3_kernel[(1,)](out, 4, 2**30 + 3, 16)
    print("loop constexpr", out[::16].tolist())
    wrap4_kernel[(4,)](out, 2**30 + 3, 16)
    print("pid * arg", out[::16].tolist())
    tl_range_kernel[(1,)](out, 4, 2**30 + 3, 16)
    print("tl.range", out[::16].tolist())
    int64_bound_kernel[(1,)](out, 4, 2**30 + 3, 16)
    print("int64 bound", out[::16].tolist())
    static_range_kernel[(1,)](out, 2**30 + 3, 16)
    print("static_range", out[::16].tolist())
