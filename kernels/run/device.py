"""Device facts (name, SMs, memory, per-SM limits) and measured peaks, cached per device.

The limits feed the occupancy estimate in ``kernels.compile.facts``; the peaks turn GB/s and TFLOP/s
into "% of what this device actually reaches": a device-to-device copy (bytes read + written)
and a large bf16 matmul, each timed with ``triton.testing.do_bench``. Measuring takes a few
seconds, so it happens once per device and is cached in a JSON file in the user's cache
directory (``$TILESCOPE_CACHE_DIR`` overrides it).
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..data.backends import GPU, INTERPRETER

__all__ = [
    "CPU_NAME",
    "DeviceFacts",
    "DeviceLimits",
    "Peaks",
    "cache_dir",
    "device_facts",
    "capability_entry",
    "limits_for_capability",
    "reference_gpu",
    "measure_peaks",
    "peaks",
]

CPU_NAME = "CPU (Triton interpreter)"


@dataclass(frozen=True)
class DeviceLimits:
    """Per-SM limits used by the occupancy estimate. Defaults are an H100/H200 (sm_90)."""

    n_sms: int = 132
    regs_per_sm: int = 65536
    regs_per_block: int = 65536
    reg_alloc_unit: int = 256  # registers are given to a warp in chunks of 256
    reg_sub_partitions: int = 4  # the register file is split over 4 schedulers' partitions
    max_regs_per_thread: int = 255
    shared_per_sm: int = 233472  # 228 KiB
    shared_per_block: int = 232448  # 227 KiB opt-in
    shared_reserved_per_block: int = 1024  # the driver keeps 1 KiB per block (sm_80 and later)
    max_warps_per_sm: int = 64
    max_blocks_per_sm: int = 32
    warp_size: int = 32


# (major, minor) -> (shared per SM, shared per block opt-in, max warps per SM, max blocks per SM),
# from the CUDA C Programming Guide's "compute capabilities" table.
_CC_TABLE: dict[tuple[int, int], tuple[int, int, int, int]] = {
    (7, 0): (98304, 98304, 64, 32),
    (7, 2): (98304, 98304, 64, 32),
    (7, 5): (65536, 65536, 32, 16),
    (8, 0): (167936, 166912, 64, 32),
    (8, 6): (102400, 101376, 48, 16),
    (8, 7): (167936, 166912, 48, 16),
    (8, 9): (102400, 101376, 48, 24),
    (9, 0): (233472, 232448, 64, 32),
    (10, 0): (233472, 232448, 64, 32),
    (10, 3): (233472, 232448, 64, 32),
    (12, 0): (102400, 101376, 48, 32),
    (12, 1): (102400, 101376, 48, 32),
}

#: one well-known GPU of each compute capability, (name, SMs): the SM count that waves use when
#: facts are computed for a target on a machine without that GPU (an SM count is a property of
#: the product, not of the architecture: an L4 and an RTX 4090 are both sm_89)
_REFERENCE_GPUS: dict[tuple[int, int], tuple[str, int]] = {
    (7, 0): ("Tesla V100", 80),
    (7, 2): ("Jetson AGX Xavier", 8),
    (7, 5): ("Tesla T4", 40),
    (8, 0): ("A100", 108),
    (8, 6): ("GeForce RTX 3090", 82),
    (8, 7): ("Jetson AGX Orin", 16),
    (8, 9): ("GeForce RTX 4090", 128),
    (9, 0): ("H100 SXM / H200", 132),
    (10, 0): ("B200", 148),
    (12, 0): ("GeForce RTX 5090", 170),
    (12, 1): ("GB10 (DGX Spark)", 48),
}


def capability_entry(major: int, minor: int) -> tuple[int, int]:
    """The row of the limits table used for a compute capability: its own, else the nearest
    older one (the same major first), else the oldest."""
    key = (major, minor)
    if key in _CC_TABLE:
        return key
    older = [k for k in _CC_TABLE if k <= key]
    same = [k for k in older if k[0] == major]
    return max(same) if same else max(older) if older else min(_CC_TABLE)


def limits_for_capability(major: int, minor: int, n_sms: int) -> DeviceLimits:
    """Limits for a compute capability when the driver does not report them (a capability not
    in the table gets the row of ``capability_entry``)."""
    smem_sm, smem_blk, warps, blocks = _CC_TABLE[capability_entry(major, minor)]
    return DeviceLimits(n_sms=n_sms, shared_per_sm=smem_sm, shared_per_block=smem_blk,
                        max_warps_per_sm=warps, max_blocks_per_sm=blocks,
                        shared_reserved_per_block=1024 if major >= 8 else 0)


def reference_gpu(major: int, minor: int) -> tuple[str, int] | None:
    """(name, SMs) of a well-known GPU of this compute capability, else of the nearest older one
    of the same major (sm_103 gets the B200), else None."""
    same = [k for k in _REFERENCE_GPUS if k[0] == major and k <= (major, minor)]
    return _REFERENCE_GPUS[max(same)] if same else None


@dataclass
class DeviceFacts:
    name: str
    backend: str  # a name in kernels.data.backends
    capability: tuple[int, int] | None = None
    total_memory: int | None = None  # bytes
    limits: DeviceLimits | None = None
    sm_clock_khz: int | None = None
    mem_clock_khz: int | None = None
    mem_bus_width: int | None = None
    source: str = ""  # where the limits came from

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        return d


_FACTS: dict[int, DeviceFacts] = {}


def device_facts(backend: str = GPU, index: int | None = None) -> DeviceFacts:
    """Facts about the current CUDA device (``backend=GPU``) or the CPU interpreter."""
    if backend != GPU:
        return DeviceFacts(name=CPU_NAME, backend=INTERPRETER, source="no GPU: the Triton interpreter")
    import torch

    idx = torch.cuda.current_device() if index is None else index
    if idx in _FACTS:
        return _FACTS[idx]
    p = torch.cuda.get_device_properties(idx)
    n_sms = int(p.multi_processor_count)
    base = limits_for_capability(p.major, p.minor, n_sms)
    over: dict[str, Any] = {}
    source = f"torch device properties + compute capability {p.major}.{p.minor} table"
    # torch reports some limits directly (newer versions); prefer what the device says
    if getattr(p, "regs_per_multiprocessor", None):
        over["regs_per_sm"] = int(p.regs_per_multiprocessor)
    if getattr(p, "shared_memory_per_multiprocessor", None):
        over["shared_per_sm"] = int(p.shared_memory_per_multiprocessor)
    if getattr(p, "shared_memory_per_block_optin", None):
        over["shared_per_block"] = int(p.shared_memory_per_block_optin)
    if getattr(p, "max_threads_per_multi_processor", None):
        over["max_warps_per_sm"] = int(p.max_threads_per_multi_processor) // int(getattr(p, "warp_size", 32) or 32)
    if getattr(p, "warp_size", None):
        over["warp_size"] = int(p.warp_size)
    clocks: dict[str, Any] = {}
    try:  # triton's driver utils know the opt-in shared memory and register limits too
        import triton

        tp = triton.runtime.driver.active.utils.get_device_properties(idx)
        if tp.get("max_shared_mem"):
            over["shared_per_block"] = int(tp["max_shared_mem"])
        if tp.get("max_num_regs"):
            over["regs_per_block"] = int(tp["max_num_regs"])
        clocks = {"sm_clock_khz": tp.get("sm_clock_rate"), "mem_clock_khz": tp.get("mem_clock_rate"),
                  "mem_bus_width": tp.get("mem_bus_width")}
        source += " + triton driver utils"
    except Exception:  # noqa: BLE001 - optional detail
        pass
    limits = DeviceLimits(**{**asdict(base), **over})
    facts = DeviceFacts(name=p.name, backend=GPU, capability=(p.major, p.minor),
                        total_memory=int(p.total_memory), limits=limits, source=source, **clocks)
    _FACTS[idx] = facts
    return facts


# ---------------------------------------------------------------------------------------------
# measured peaks


@dataclass
class Peaks:
    device: str
    copy_gbps: float  # device-to-device copy, bytes read + written per second / 1e9
    matmul_tflops: float  # bf16 matmul, 2*n^3 / s / 1e12
    copy_bytes: int
    matmul_n: int
    measured_at: str
    torch_version: str = ""
    triton_version: str = ""
    method: str = "triton.testing.do_bench median (CUDA events, L2 flushed)"
    extra: dict[str, Any] = field(default_factory=dict)


def cache_dir() -> Path:
    """``$TILESCOPE_CACHE_DIR``, else ``$XDG_CACHE_HOME/tilescope``, else ``~/.cache/tilescope``."""
    env = os.environ.get("TILESCOPE_CACHE_DIR")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return Path(xdg) / "tilescope" if xdg else Path.home() / ".cache" / "tilescope"


def _peaks_file() -> Path:
    return cache_dir() / "device_peaks.json"


def _device_key(index: int) -> str:
    import torch

    p = torch.cuda.get_device_properties(index)
    uuid = str(getattr(p, "uuid", "") or "")
    return f"{p.name}|{uuid}" if uuid else p.name


def measure_peaks(index: int | None = None, copy_bytes: int = 1 << 30, matmul_n: int = 8192) -> Peaks:
    """Measure copy bandwidth and bf16 matmul rate on the CUDA device now (a few seconds)."""
    import torch
    import triton
    import triton.testing

    idx = torch.cuda.current_device() if index is None else index
    dev = torch.device("cuda", idx)

    def copy_ms() -> float:
        src = torch.empty(copy_bytes // 4, dtype=torch.float32, device=dev).fill_(1.0)
        dst = torch.empty_like(src)
        return triton.testing.do_bench(lambda: dst.copy_(src), warmup=25, rep=200, return_mode="median")

    def matmul_ms() -> float:
        a = torch.randn(matmul_n, matmul_n, device=dev, dtype=torch.bfloat16)
        b = torch.randn(matmul_n, matmul_n, device=dev, dtype=torch.bfloat16)
        return triton.testing.do_bench(lambda: a @ b, warmup=25, rep=200, return_mode="median")

    with torch.cuda.device(idx):
        copy_t, mm_ms = copy_ms(), matmul_ms()  # each frees its tensors on return
        torch.cuda.empty_cache()
    return Peaks(
        device=torch.cuda.get_device_name(idx),
        copy_gbps=2 * copy_bytes / copy_t / 1e6,
        matmul_tflops=2 * matmul_n**3 / mm_ms / 1e9,
        copy_bytes=copy_bytes, matmul_n=matmul_n,
        measured_at=time.strftime("%Y-%m-%d %H:%M:%S"),
        torch_version=torch.__version__, triton_version=triton.__version__,
        extra={"copy_ms": copy_t, "matmul_ms": mm_ms},
    )


_PEAKS: dict[str, Peaks] = {}


def peaks(index: int | None = None, refresh: bool = False) -> Peaks | None:
    """The device's measured peaks: from memory, else the cache file, else measured now and
    saved. None when no CUDA device is present."""
    import torch

    if not torch.cuda.is_available():
        return None
    idx = torch.cuda.current_device() if index is None else index
    key = _device_key(idx)
    if not refresh and key in _PEAKS:
        return _PEAKS[key]
    path = _peaks_file()
    stored: dict[str, Any] = {}
    try:
        stored = json.loads(path.read_text())
    except (OSError, ValueError):
        stored = {}
    if not refresh and isinstance(stored.get(key), dict):
        try:
            _PEAKS[key] = Peaks(**stored[key])
            return _PEAKS[key]
        except TypeError:  # an older file layout: measure again
            pass
    p = measure_peaks(idx)
    _PEAKS[key] = p
    stored[key] = asdict(p)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(stored, indent=2))
        tmp.replace(path)
    except OSError:  # a read-only home still gets the numbers for this process
        pass
    return p
