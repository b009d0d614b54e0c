"""The virtual GPU a CUDA script sees on a CPU-only machine: its device checks answered as a GPU's.

Scripts check the device in many ways before they launch — ``assert x.is_cuda``,
``x.device.type == "cuda"``, ``torch.cuda.is_available()``, ``torch.cuda.get_device_capability()``,
``torch.cuda.get_device_properties(0).multi_processor_count``, ``torch.cuda.Event`` timing,
``torch.cuda.synchronize()``. Inside ``virtual_gpu()`` each answers as it would on the chosen GPU
(``kernels.data.virtual_gpus``: an H200, sm_90, by default; ``--virtual-gpu sm_100``,
``TILESCOPE_VIRTUAL_GPU=sm_100`` or ``virtual_gpu(script, "sm_100")`` for another), while the
tensors stay on the CPU, where the interpreter runs the kernels (``cuda_on_cpu`` serves
``device='cuda'`` there).

- ``Tensor.is_cuda`` and ``Tensor.device`` say CUDA only to the script's own code (frames of files
  in the script's folder) while ``device='cuda'`` is served on the CPU (``cuda_on_cpu``'s torch
  function mode: not inside an autograd ``backward``, which the engine runs without modes): torch,
  Triton and Tilescope go on seeing CPU tensors.
- ``torch.cuda.is_available()`` is true for the script's code the same way; the getters that would
  raise without CUDA (capability, properties, device count, streams, events, memory statistics)
  answer for the virtual GPU to anyone.
- Triton's cuBLAS binding (``nvidia.cublas.CublasLt``, tutorial 09's reference) multiplies with
  torch on the CPU.
- ``torch.cuda.Event(enable_timing=True)`` records host time: ``elapsed_time`` is real wall-clock
  milliseconds of the CPU's interpreter, which mean nothing about a GPU (the notes say so).

``asked`` lists what the script asked (``capability at 08-grouped-gemm.py:43``), so a script that
then launches nothing can be told which answer may have turned it away (``lacking``). Everything
is put back on exit.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import torch

from ..data.virtual_gpus import ENV_VAR, VIRTUAL_GPUS, VirtualGPU, chosen_gpu

__all__ = ["VIRTUAL_GPUS", "VirtualGPU", "chosen_gpu", "virtual_gpu", "ENV_VAR", "lacking", "after_error"]


@dataclass
class _Properties:
    """``torch.cuda.get_device_properties(i)`` of the virtual GPU (torch's attribute names)."""

    name: str
    major: int
    minor: int
    multi_processor_count: int
    total_memory: int
    max_threads_per_multi_processor: int = 2048
    regs_per_multiprocessor: int = 65536
    warp_size: int = 32
    L2_cache_size: int = 0
    shared_memory_per_block_optin: int = 0
    uuid: str = "virtual"
    is_integrated: bool = False
    is_multi_gpu_board: bool = False
    gcnArchName: str = ""


class _Event:
    """``torch.cuda.Event``: host time between records (the CPU runs the kernels in order)."""

    def __init__(self, enable_timing: bool = False, blocking: bool = False, interprocess: bool = False) -> None:
        self.enable_timing = enable_timing
        self.t: float | None = None

    def record(self, stream: Any = None) -> None:
        self.t = time.perf_counter()

    def synchronize(self) -> None:
        pass

    def wait(self, stream: Any = None) -> None:
        pass

    def query(self) -> bool:
        return True

    def elapsed_time(self, end: _Event) -> float:
        if self.t is None or end.t is None:
            raise RuntimeError("Both events must be recorded before calculating elapsed time.")
        return (end.t - self.t) * 1000.0


class _Stream:
    """``torch.cuda.Stream`` / ``current_stream()``: the CPU has one queue, in order."""

    device = torch.device("cpu")
    cuda_stream = 0
    stream_id = 0

    def __init__(self, device: Any = None, priority: int = 0, **kwargs: Any) -> None:
        pass

    def synchronize(self) -> None:
        pass

    def wait_stream(self, other: Any) -> None:
        pass

    def wait_event(self, event: Any) -> None:
        pass

    def record_event(self, event: Any = None) -> _Event:
        event = event or _Event()
        event.record()
        return event

    def query(self) -> bool:
        return True

    def __enter__(self) -> _Stream:
        return self

    def __exit__(self, *exc: Any) -> None:
        pass


@dataclass
class _Session:
    gpu: VirtualGPU
    folder: str
    asked: list[str] = field(default_factory=list)  # "capability at file.py:12", once each

    def from_script(self, depth: int) -> bool:
        """Is the caller ``depth`` frames up code of the script (a file in its folder)?"""
        try:
            f = sys._getframe(depth + 1)
        except ValueError:
            return False
        return os.path.dirname(os.path.realpath(f.f_code.co_filename)) == self.folder

    def note(self, what: str, depth: int) -> None:
        try:
            f = sys._getframe(depth + 1)
        except ValueError:
            return
        if os.path.dirname(os.path.realpath(f.f_code.co_filename)) != self.folder:
            return
        text = f"{what} at {os.path.basename(f.f_code.co_filename)}:{f.f_lineno}"
        if text not in self.asked:
            self.asked.append(text)


def _tensor_patches(s: _Session) -> dict[str, Any]:
    real_is_cuda = torch._C.TensorBase.is_cuda
    real_device = torch._C.TensorBase.device
    cuda0 = torch.device("cuda", 0)

    # only where ``device='cuda'`` is served on the CPU (a torch function mode is on): the autograd
    # engine runs a backward without modes, and a CUDA device there would reach torch's allocator
    mode_on = torch._C._is_torch_function_mode_enabled

    def is_cuda(self: torch.Tensor) -> bool:
        if real_device.__get__(self).type == "cpu" and mode_on() and s.from_script(1):
            return True
        return real_is_cuda.__get__(self)

    def device(self: torch.Tensor) -> torch.device:
        d = real_device.__get__(self)
        if d.type == "cpu" and mode_on() and s.from_script(1):
            return cuda0
        return d

    return {"is_cuda": property(is_cuda), "device": property(device)}


def _cuda_patches(s: _Session) -> dict[str, Any]:
    g = s.gpu
    real_available = torch.cuda.is_available

    def is_available() -> bool:
        if s.from_script(1):
            s.note("torch.cuda.is_available()", 1)
            return True
        return real_available()

    def capability(device: Any = None) -> tuple[int, int]:
        s.note("the GPU's capability", 1)
        return g.capability

    def properties(device: Any = None) -> _Properties:
        s.note("the GPU's properties", 1)
        return _Properties(g.display_name, g.capability[0], g.capability[1], g.multiprocessor_count, g.total_memory,
                           regs_per_multiprocessor=g.max_num_regs, L2_cache_size=g.l2_cache_size,
                           shared_memory_per_block_optin=g.max_shared_mem)

    def nothing(*a: Any, **k: Any) -> None:
        return None

    def zero(*a: Any, **k: Any) -> int:
        return 0

    return {
        "is_available": is_available, "get_device_capability": capability, "get_device_properties": properties,
        "get_device_name": lambda *a, **k: g.display_name, "device_count": lambda: 1, "is_initialized": lambda: True,
        "current_device": lambda: 0, "set_device": nothing, "synchronize": nothing, "empty_cache": nothing,
        "init": nothing, "manual_seed": nothing, "manual_seed_all": nothing, "is_bf16_supported": lambda *a, **k: True,
        "get_arch_list": lambda: [g.arch], "Event": _Event, "Stream": _Stream, "current_stream": lambda *a: _Stream(),
        "default_stream": lambda *a: _Stream(), "stream": lambda s_=None: contextlib.nullcontext(s_),
        "memory_allocated": zero, "max_memory_allocated": zero, "memory_reserved": zero, "max_memory_reserved": zero,
        "reset_peak_memory_stats": nothing, "reset_max_memory_allocated": nothing,
        "mem_get_info": lambda *a: (g.total_memory, g.total_memory),
    }


class _TorchBlas:
    """Triton's ``nvidia.cublas.CublasLt(workspace)`` without CUDA: ``matmul(a, b, c)`` computes
    ``c = a @ b.T`` (the binding's contract: ``b`` is N×K) with torch on the CPU, in float32."""

    def __init__(self, workspace: Any = None) -> None:
        pass

    def matmul(self, a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> None:
        c.copy_((a.float() @ b.float().T).to(c.dtype))


def _blas_patches() -> list[tuple[Any, str, Any]]:
    """(object, name, stand-in) for the cuBLAS binding a script may build (tutorial 09)."""
    try:
        from triton._C.libtriton import nvidia
    except ImportError:
        return []
    blas = getattr(nvidia, "cublas", None)
    return [(blas, "CublasLt", _TorchBlas)] if blas is not None and hasattr(blas, "CublasLt") else []


@contextlib.contextmanager
def virtual_gpu(script: str, arch: str | None = None) -> Iterator[_Session]:
    """Answer the device checks of the script at ``script`` (and files beside it) as the virtual
    GPU ``arch`` would (``chosen_gpu``). Yields the session: ``.gpu``, ``.asked``."""
    s = _Session(chosen_gpu(arch), os.path.dirname(os.path.realpath(script)))
    tensor_saved = {k: torch.Tensor.__dict__.get(k) for k in ("is_cuda", "device")}
    cuda = _cuda_patches(s)
    cuda_saved = {k: torch.cuda.__dict__.get(k, _MISSING) for k in cuda}
    blas = [(obj, name, getattr(obj, name), new) for obj, name, new in _blas_patches()]
    try:
        for obj, name, _, new in blas:
            setattr(obj, name, new)
        for k, v in _tensor_patches(s).items():
            setattr(torch.Tensor, k, v)
        for k, v in cuda.items():
            setattr(torch.cuda, k, v)
        yield s
    finally:
        for obj, name, old, _ in blas:
            setattr(obj, name, old)
        for k, v in tensor_saved.items():
            if v is None:
                with contextlib.suppress(AttributeError):
                    delattr(torch.Tensor, k)
            else:
                setattr(torch.Tensor, k, v)
        for k, v in cuda_saved.items():
            if v is _MISSING:
                with contextlib.suppress(AttributeError):
                    delattr(torch.cuda, k)
            else:
                setattr(torch.cuda, k, v)


_MISSING = object()


def _another(g: VirtualGPU) -> str:
    """How to choose another virtual GPU (the next newer one): the option and the variable."""
    others = [a for a in VIRTUAL_GPUS if a != g.arch]
    newer = [a for a in others if VIRTUAL_GPUS[a].cc > g.cc]
    arch = (newer or others)[0]
    return f"--virtual-gpu {arch} ({ENV_VAR}={arch})"


def lacking(session: _Session, last_printed: str = "") -> str:
    """One line for a script that launched nothing after asking the virtual GPU what it is: which
    answer may have turned it away (the last thing it asked, with its line) and how to choose
    another GPU."""
    g = session.gpu
    said = f"; it printed: {last_printed.strip()[:160]}" if last_printed.strip() else ""
    return (f"it launched no Triton kernel after asking {session.asked[-1]} — the virtual GPU is {g.arch} "
            f"({g.name}); to open it as on another GPU: {_another(g)}; one of {', '.join(VIRTUAL_GPUS)}{said}")


def after_error(session: _Session) -> str:
    """What to add to the error of a script that raised before its first launch, having asked the
    virtual GPU what it is (``raise RuntimeError("requires a Blackwell GPU")``)."""
    g = session.gpu
    return f" (it had asked {session.asked[-1]}: the virtual GPU is {g.arch}, {g.name}; another: {_another(g)})"
