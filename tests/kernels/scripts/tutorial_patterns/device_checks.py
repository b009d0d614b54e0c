"""The 1-hour course's add, with the device checks scripts make before they launch."""
import torch
import triton
import triton.language as tl

DEVICE = triton.runtime.driver.active.get_active_torch_device()
assert torch.cuda.is_available(), "this script needs a GPU"
assert triton.runtime.driver.active.get_current_target().backend == "cuda"
MAJOR, MINOR = torch.cuda.get_device_capability()
SMS = torch.cuda.get_device_properties(0).multi_processor_count


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


def add(x: torch.Tensor, y: torch.Tensor):
    assert x.is_cuda and y.is_cuda
    assert x.device.type == "cuda" and x.device == y.device == DEVICE
    out = torch.empty_like(x)
    n = out.numel()
    add_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK_SIZE"]),)](x, y, out, n, BLOCK_SIZE=256)
    return out


x = torch.rand(1000, device="cuda")
y = torch.rand(1000, device=DEVICE)
start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
start.record()
z = add(x, y)
end.record()
torch.cuda.synchronize()
print(f"sm_{MAJOR}{MINOR}, {SMS} SMs, {start.elapsed_time(end):.3f} ms, max error {(z - (x + y)).abs().max().item()}")
assert torch.equal(z, x + y)
