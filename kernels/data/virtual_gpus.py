"""The virtual GPUs a plain script may be told it runs on, on a machine without one.

Without a GPU, Tilescope runs a CUDA script's launches under Triton's interpreter and answers its
device checks (capability, SM count, shared memory, ``x.is_cuda``) as the chosen GPU would
(``kernels.script.virtual_gpu``). Which one: ``tilescope open|run|trace … --virtual-gpu sm_100``,
the window's setting, else ``$TILESCOPE_VIRTUAL_GPU`` (``ENV_VAR``), else ``DEFAULT``. The choice
travels to the worker, which runs the script, as ``ENV_VAR`` in its environment
(``worker_env``; over ssh too: ``TILESCOPE_*`` variables are passed). The figures are the
vendors' published ones, nothing measured. GUI-safe: standard library only.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["DEFAULT", "ENV_VAR", "VIRTUAL_GPUS", "VirtualGPU", "chosen_gpu", "normalize", "worker_env"]

#: the environment variable that picks the virtual GPU (a key of ``VIRTUAL_GPUS``)
ENV_VAR = "TILESCOPE_VIRTUAL_GPU"
#: the project's H200
DEFAULT = "sm_90"


@dataclass(frozen=True)
class VirtualGPU:
    """What a script is told about the GPU it does not have (the vendor's published figures)."""

    arch: str  # "sm_90"
    name: str
    capability: tuple[int, int]
    multiprocessor_count: int
    max_shared_mem: int  # bytes of shared memory per block, opt-in
    max_num_regs: int  # 32-bit registers per SM
    total_memory: int  # bytes
    sm_clock_rate: int  # kHz
    mem_clock_rate: int  # kHz
    mem_bus_width: int  # bits
    warp_size: int = 32
    l2_cache_size: int = 0

    def driver_properties(self) -> dict[str, Any]:
        """What ``driver.active.utils.get_device_properties`` returns (Triton's keys)."""
        return {"name": self.display_name, "max_shared_mem": self.max_shared_mem, "max_num_regs": self.max_num_regs,
                "multiprocessor_count": self.multiprocessor_count, "warpSize": self.warp_size,
                "sm_clock_rate": self.sm_clock_rate, "mem_clock_rate": self.mem_clock_rate,
                "mem_bus_width": self.mem_bus_width}

    @property
    def display_name(self) -> str:
        return f"{self.name} (virtual: no GPU here)"

    @property
    def cc(self) -> int:
        return self.capability[0] * 10 + self.capability[1]

    @property
    def label(self) -> str:
        """One line for a chooser: ``sm_90 — NVIDIA H200, 132 SMs``."""
        return f"{self.arch} — {self.name}, {self.multiprocessor_count} SMs"


#: the GPUs a script may be told it runs on; sm_90 (the project's H200) by default
VIRTUAL_GPUS: dict[str, VirtualGPU] = {g.arch: g for g in (
    VirtualGPU("sm_80", "NVIDIA A100-SXM4-80GB", (8, 0), 108, 166912, 65536, 80 << 30, 1410000, 1593000, 5120,
               l2_cache_size=40 << 20),
    VirtualGPU("sm_89", "NVIDIA L40S", (8, 9), 142, 101376, 65536, 48 << 30, 2520000, 9001000, 384,
               l2_cache_size=96 << 20),
    VirtualGPU("sm_90", "NVIDIA H200", (9, 0), 132, 232448, 65536, 141 << 30, 1980000, 2619000, 6144,
               l2_cache_size=50 << 20),
    VirtualGPU("sm_100", "NVIDIA B200", (10, 0), 148, 232448, 65536, 180 << 30, 1965000, 3996000, 8192,
               l2_cache_size=126 << 20),
)}


def normalize(arch: str) -> str:
    """The key of ``VIRTUAL_GPUS`` that ``arch`` names (``"sm_100"``, ``"100"``, ``"10.0"``, any
    case); ValueError naming the choices when none."""
    key = arch.strip().lower()
    key = key if key.startswith("sm_") else f"sm_{key.replace('.', '')}"
    if key not in VIRTUAL_GPUS:
        raise ValueError(f"no virtual GPU {arch.strip()!r}: choose one of {', '.join(VIRTUAL_GPUS)}")
    return key


def chosen_gpu(arch: str | None = None, environ: Mapping[str, str] | None = None) -> VirtualGPU:
    """The virtual GPU named by ``arch``, else by ``$TILESCOPE_VIRTUAL_GPU``, else sm_90."""
    env = os.environ if environ is None else environ
    text = arch or env.get(ENV_VAR) or DEFAULT
    try:
        return VIRTUAL_GPUS[normalize(text)]
    except ValueError as e:
        raise ValueError(f"{e} ({'--virtual-gpu' if arch else ENV_VAR})") from None


def worker_env(arch: str | None, base: Mapping[str, str] | None = None) -> dict[str, str] | None:
    """The environment a worker that runs scripts is started with, for the virtual GPU ``arch``
    (None or "": the environment as it is, returned as None so the caller's default applies)."""
    if not arch:
        return None
    env = dict(os.environ if base is None else base)
    env[ENV_VAR] = normalize(arch)
    return env
