"""A CUDA script run without a GPU: its CUDA tensors and device lookups served on the CPU.

Scripts are written for a GPU: ``torch.randn(n, device='cuda')``, ``x.cuda()``,
``DEVICE = triton.runtime.driver.active.get_active_torch_device()``,
``driver.active.utils.get_device_properties(DEVICE.index)``, ``torch.cuda.synchronize()``. Inside
``cuda_on_cpu()`` tensors asked for on CUDA are made on the CPU (where the interpreter runs the
kernels), and Triton's active driver is a stand-in that reports the CPU as the torch device and,
for device properties, the facts of the GPU named by ``target`` (an H200, sm_90, by default) —
the script's own occupancy arithmetic then runs on the numbers of a real GPU, and the notes say
which. Given the script's path, its device checks (``x.is_cuda``, ``torch.cuda.get_device_capability()``,
``torch.cuda.Event``, …) are answered by the virtual GPU of ``virtual_gpu`` (sm_90 unless
``--virtual-gpu`` or ``TILESCOPE_VIRTUAL_GPU`` names another), whose properties the driver
stand-in reports then.
Everything is put back on exit.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import torch

__all__ = ["cuda_on_cpu", "EMULATED_GPU", "EMULATED_TARGET"]

#: the architecture ``kernel.warmup`` compiles for without a GPU (its registers and shared memory)
EMULATED_TARGET = "sm_90"

#: the GPU whose properties a script sees without one (the project's H200; kernels.run.device has more)
EMULATED_GPU = {
    "name": "NVIDIA H200 (emulated: no GPU here)",
    "capability": 90,
    "multiprocessor_count": 132,
    "max_shared_mem": 232448,
    "max_num_regs": 65536,
    "warpSize": 32,
    "sm_clock_rate": 1980000,
    "mem_clock_rate": 2619000,
    "mem_bus_width": 6144,
}


def _cpu(device: Any) -> Any:
    if isinstance(device, (str, torch.device)):
        try:
            d = torch.device(device)
        except (RuntimeError, TypeError):
            return device
        if d.type == "cuda":
            return torch.device("cpu")
    elif isinstance(device, int):  # torch.randn(n, device=0)
        return torch.device("cpu")
    return device


class _CudaToCpu(torch.overrides.TorchFunctionMode):
    def __torch_function__(self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None) -> Any:
        kwargs = dict(kwargs or {})
        name = getattr(func, "__name__", "")
        if "device" in kwargs:
            kwargs["device"] = _cpu(kwargs["device"])
        if name == "cuda" and args and isinstance(args[0], torch.Tensor):
            return args[0]
        if name == "to" and args and isinstance(args[0], torch.Tensor):
            args = (args[0],) + tuple(_cpu(a) for a in args[1:])
        return func(*args, **kwargs)


class _Utils:
    def __init__(self, gpu: Any = None) -> None:
        self.gpu = gpu

    def get_device_properties(self, device: Any = None) -> dict[str, Any]:
        return self.gpu.driver_properties() if self.gpu is not None else dict(EMULATED_GPU)


class _StandInDriver:
    """What ``triton.runtime.driver.active`` answers while a CUDA script runs on the CPU."""

    def __init__(self, gpu: Any = None) -> None:
        self.gpu = gpu  # a virtual_gpu.VirtualGPU (None: EMULATED_GPU)
        self.utils = _Utils(gpu)

    def get_active_torch_device(self) -> torch.device:
        # with the virtual GPU, what the script's tensors say they are on (``x.device == DEVICE``
        # holds); ``device=DEVICE`` is served on the CPU all the same
        return torch.device("cuda", 0) if self.gpu is not None else torch.device("cpu")

    def get_current_device(self) -> int:
        return 0

    def set_current_device(self, device: Any) -> None:
        pass

    def get_current_stream(self, device: Any = None) -> int:
        return 0

    def get_current_target(self) -> Any:
        from triton.backends.compiler import GPUTarget

        cc = self.gpu.cc if self.gpu is not None else EMULATED_GPU["capability"]
        return GPUTarget("cuda", cc, EMULATED_GPU["warpSize"])

    def get_device_interface(self) -> Any:
        return torch.cuda

    def get_benchmarker(self) -> Any:
        from triton.testing import do_bench

        return do_bench

    def is_active(self) -> bool:
        return True


@contextlib.contextmanager
def cuda_on_cpu(script: str | None = None) -> Iterator[Any]:
    """CUDA served on the CPU; with ``script`` (its path), that script's device checks answered
    by the virtual GPU too (``virtual_gpu``: ``x.is_cuda``, capability, properties, events),
    whose session (what it asked) is yielded; else None."""
    import triton.runtime

    from .virtual_gpu import virtual_gpu

    cfg = triton.runtime.driver  # the DriverConfig object (it shadows the module of that name)
    saved_active = cfg.__dict__.get("_active")
    saved_cuda = {name: getattr(torch.cuda, name) for name in ("synchronize", "current_device", "set_device",
                                                              "empty_cache", "get_device_name")}
    # torch.set_default_device("cuda") in the script: the CPU instead, and undone before the mode
    # below leaves (its device mode sits above ours on torch's stack, which unwinds in order)
    saved_default = torch.set_default_device
    saved_ctx = getattr(torch._GLOBAL_DEVICE_CONTEXT, "device_context", None)
    torch.set_default_device = lambda device: saved_default(_cpu(device))
    try:
        with (virtual_gpu(script) if script else contextlib.nullcontext()) as session:
            cfg._active = _StandInDriver(session.gpu if session is not None else None)
            if session is None:
                torch.cuda.synchronize = lambda *a, **k: None
                torch.cuda.current_device = lambda: 0
                torch.cuda.set_device = lambda *a, **k: None
                torch.cuda.empty_cache = lambda: None
                torch.cuda.get_device_name = lambda *a, **k: EMULATED_GPU["name"]
            with _CudaToCpu():
                try:
                    yield session
                finally:
                    if getattr(torch._GLOBAL_DEVICE_CONTEXT, "device_context", None) is not saved_ctx:
                        saved_default(None if saved_ctx is None else saved_ctx.device)
    finally:
        torch.set_default_device = saved_default
        cfg._active = saved_active
        for name, fn in saved_cuda.items():
            setattr(torch.cuda, name, fn)
