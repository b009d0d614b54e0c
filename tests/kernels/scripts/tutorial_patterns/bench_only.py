"""Tutorial 06's shape: the script's only launches are inside its perf_report benchmark."""
import torch
import triton
import triton.language as tl

DEVICE = triton.runtime.driver.active.get_active_torch_device()


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 0.5, mask=mask)


def scale(x):
    out = torch.empty_like(x)
    scale_kernel[(triton.cdiv(x.numel(), 128),)](x, out, x.numel(), BLOCK=128)
    return out


@triton.testing.perf_report(triton.testing.Benchmark(
    x_names=["N"], x_vals=[300, 3000], line_arg="provider", line_vals=["triton", "torch"],
    line_names=["Triton", "Torch"], ylabel="ms", plot_name="scale", args={"dtype": torch.float32}))
def bench_scale(N, provider, dtype):
    x = torch.randn(N, device=DEVICE, dtype=dtype)
    fn = (lambda: scale(x)) if provider == "triton" else (lambda: x * 0.5)
    return triton.testing.do_bench(fn)


if __name__ == "__main__":
    bench_scale.run(print_data=True, show_plots=False)
