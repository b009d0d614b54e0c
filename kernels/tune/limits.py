"""Will a config fit? Estimates made before compiling, and the reason to skip one that cannot.

- **Shared memory**: the spec's own ``shared_memory(cfg) -> bytes`` when it has one; else, for a
  matmul-like kernel (BLOCK_M, BLOCK_N and BLOCK_K), the pipelined A and B tiles:
  ``(BLOCK_M*BLOCK_K + BLOCK_K*BLOCK_N) * itemsize * num_stages``. Compared with the device's
  per-block limit (opt-in shared memory).
- **Registers**: a BLOCK_M x BLOCK_N fp32 accumulator is spread over ``32 * num_warps`` threads;
  more than ``maxnreg`` (or the 255 a thread may have) for the accumulator alone means heavy
  spilling.
- **Block size**: no tensor of a program may have more than 2**20 elements (Triton's
  ``TRITON_MAX_TENSOR_NUMEL``), and a program has at most 1024 threads.

Pure Python: ``kernels.run.device`` imports nothing heavy at module level.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..run.device import DeviceLimits, limits_for_capability

__all__ = ["ITEMSIZE", "MAX_TENSOR_NUMEL", "Fit", "check_fit", "limits_for_target", "shared_memory_estimate"]

#: triton.language.core.TRITON_MAX_TENSOR_NUMEL
MAX_TENSOR_NUMEL = 1 << 20
MAX_THREADS_PER_BLOCK = 1024
ITEMSIZE = {"fp32": 4, "fp16": 2, "bf16": 2, "fp8": 1, "fp64": 8, "int8": 1, "int32": 4}
#: Triton's defaults for launch options the spec does not set
DEFAULT_WARPS, DEFAULT_STAGES = 4, 3

_NAMED = {"h200": (9, 0, 132), "h100": (9, 0, 132), "gh200": (9, 0, 132), "a100": (8, 0, 108),
          "l40s": (8, 9, 142), "l4": (8, 9, 58), "a10": (8, 6, 72), "rtx4090": (8, 9, 128),
          "b200": (10, 0, 148), "v100": (7, 0, 80), "t4": (7, 5, 40)}


@dataclass(frozen=True)
class Fit:
    reason: str = ""  # why the config cannot fit ("" = it may)
    estimate: dict[str, int] = field(default_factory=dict)  # "shared_bytes", "regs_per_thread"
    how: str = ""  # how the shared memory was estimated


def limits_for_target(target: str) -> DeviceLimits:
    """Limits of a named GPU or compute capability: "sm_90", "90", "9.0", "H100", "A100"…
    Raises ValueError for a name it does not know."""
    t = target.strip().lower().replace("nvidia", "").replace(" ", "").replace("-", "")
    if t in _NAMED:
        major, minor, sms = _NAMED[t]
        return limits_for_capability(major, minor, sms)
    m = re.fullmatch(r"(?:sm_?|cc)?(\d+)(?:\.(\d))?", t)
    if m is None:
        raise ValueError(f"unknown target {target!r}: give a compute capability such as sm_90 or 8.0, "
                         f"or one of {', '.join(sorted(_NAMED))}")
    major, minor = (int(m.group(1)), int(m.group(2))) if m.group(2) else divmod(int(m.group(1)), 10)
    return limits_for_capability(major, minor, 132)


def _int(cfg: Mapping[str, Any], name: str, default: int) -> int:
    v = cfg.get(name)
    return v if isinstance(v, int) and not isinstance(v, bool) and v > 0 else default


def shared_memory_estimate(spec: Any, cfg: Mapping[str, Any]) -> tuple[int | None, str]:
    """(bytes of shared memory one program needs, how it was estimated); (None, why) when
    there is no estimate. ``spec.shared_memory(cfg)`` wins when the spec provides one."""
    fn: Callable[[dict], int] | None = getattr(spec, "shared_memory", None)
    if callable(fn):
        return int(fn(dict(cfg))), f"{getattr(spec, 'name', 'the spec')}'s shared_memory()"
    if all(isinstance(cfg.get(n), int) for n in ("BLOCK_M", "BLOCK_N", "BLOCK_K")):
        dtype = str(cfg.get("dtype", "fp32"))
        item = ITEMSIZE.get(dtype, 4)
        stages = _int(cfg, "num_stages", DEFAULT_STAGES)
        m, n, k = cfg["BLOCK_M"], cfg["BLOCK_N"], cfg["BLOCK_K"]
        return ((m * k + k * n) * item * stages,
                f"(BLOCK_M*BLOCK_K + BLOCK_K*BLOCK_N) x {item} B ({dtype}) x {stages} stages")
    return None, "no estimate (the spec has no shared_memory() and is not matmul-like)"


def _tiles(cfg: Mapping[str, Any]) -> list[tuple[str, int]]:
    """The block sizes and the 2-D tiles they make, as (label, elements)."""
    blocks = {k: v for k, v in cfg.items() if k.startswith("BLOCK") and isinstance(v, int)
              and not isinstance(v, bool)}
    out = [(k, v) for k, v in blocks.items()]
    for a, b in (("BLOCK_M", "BLOCK_N"), ("BLOCK_M", "BLOCK_K"), ("BLOCK_K", "BLOCK_N")):
        if a in blocks and b in blocks:
            out.append((f"{a} x {b}", blocks[a] * blocks[b]))
    return out


def check_fit(spec: Any, cfg: Mapping[str, Any], limits: DeviceLimits | None) -> Fit:
    """Why ``cfg`` cannot run (block size always; shared memory and registers against
    ``limits`` when given), with the estimates made on the way."""
    estimate: dict[str, int] = {}
    for label, numel in _tiles(cfg):
        if numel > MAX_TENSOR_NUMEL:
            return Fit(f"block too large: {label} = {numel:,} elements, more than Triton's "
                       f"{MAX_TENSOR_NUMEL:,} per tensor", estimate)
    warps = _int(cfg, "num_warps", DEFAULT_WARPS)
    if warps * 32 > MAX_THREADS_PER_BLOCK:
        return Fit(f"num_warps={warps} is {warps * 32} threads, more than {MAX_THREADS_PER_BLOCK} per program",
                   estimate)
    try:
        shared, how = shared_memory_estimate(spec, cfg)
    except Exception as e:  # noqa: BLE001 - a broken estimate prunes nothing
        shared, how = None, f"the spec's shared_memory() failed: {type(e).__name__}: {e}"
    if shared is not None:
        estimate["shared_bytes"] = shared
    acc = cfg.get("BLOCK_M", 0) * cfg.get("BLOCK_N", 0) if all(
        isinstance(cfg.get(n), int) for n in ("BLOCK_M", "BLOCK_N")) else 0
    if acc:
        estimate["regs_per_thread"] = math.ceil(acc / (32 * warps))
    if limits is None:
        return Fit("", estimate, how)
    if shared is not None and shared > limits.shared_per_block:
        return Fit(f"shared memory: needs about {shared:,} B ({how}), the device allows "
                   f"{limits.shared_per_block:,} B per program", estimate, how)
    cap = _int(cfg, "maxnreg", limits.max_regs_per_thread)
    if acc and estimate["regs_per_thread"] > cap:
        return Fit(f"registers: the {cfg['BLOCK_M']}x{cfg['BLOCK_N']} fp32 accumulator alone needs "
                   f"{estimate['regs_per_thread']} registers per thread over {warps} warps, more than {cap}: "
                   "it would spill", estimate, how)
    return Fit("", estimate, how)
