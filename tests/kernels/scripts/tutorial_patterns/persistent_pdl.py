"""Tutorials 09 and 11's patterns: a persistent grid (one program per SM, tiles strided by the
number of programs) and programmatic dependent launch (gdc_wait / gdc_launch_dependents)."""
import torch
import triton
import triton.language as tl

DEVICE = triton.runtime.driver.active.get_active_torch_device()
NUM_SMS = torch.cuda.get_device_properties("cuda").multi_processor_count
PDL = torch.cuda.get_device_capability()[0] >= 9


@triton.jit
def persistent_add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr, NUM_PROGRAMS: tl.constexpr,
                          USE_GDC: tl.constexpr):
    if USE_GDC:
        tl.extra.cuda.gdc_wait()
    n_tiles = tl.cdiv(n, BLOCK)
    for tile in tl.range(tl.program_id(0), n_tiles, NUM_PROGRAMS):
        offs = tile * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)
    if USE_GDC:
        tl.extra.cuda.gdc_launch_dependents()


def persistent_add(x, y):
    out = torch.empty_like(x)
    n = x.numel()
    programs = min(NUM_SMS, triton.cdiv(n, 128))
    persistent_add_kernel[(programs,)](x, y, out, n, BLOCK=128, NUM_PROGRAMS=programs, USE_GDC=PDL,
                                       launch_pdl=PDL)
    return out


x, y = torch.randn(50_000, device=DEVICE), torch.randn(50_000, device=DEVICE)
assert torch.equal(persistent_add(x, y), x + y)
print(f"persistent add over {NUM_SMS} SMs, PDL {PDL}")
