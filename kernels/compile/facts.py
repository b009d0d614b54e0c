"""Facts from a compiled kernel, and how many of its programs fit on one SM.

``kernel[grid](...)`` returns Triton's ``CompiledKernel``: its ``n_regs`` / ``n_spills`` (set
once the binary is loaded on the device), ``metadata`` (shared memory, num_warps, num_stages) and
``asm`` (ttir, ttgir, llir, ptx and the cubin, which ``cuobjdump`` turns into SASS).

Occupancy follows the CUDA occupancy calculator's rules (``cuda_occupancy.h``):
  registers  each warp gets ``n_regs * 32`` registers rounded up to the 256-register allocation
             unit; the register file is split over 4 sub-partitions, so an SM holds
             ``4 * floor(regs_per_sm / 4 / regs_per_warp)`` warps, i.e. that many // num_warps
             programs; a program whose ``regs_per_warp * roundup(num_warps, 4)`` exceeds the
             per-block limit cannot launch at all;
  shared     ``floor(shared_per_sm / (shared + 1 KiB reserved per block))``;
  warps      ``floor(max_warps_per_sm / num_warps)``;
  blocks     the hardware's cap on resident blocks per SM (32 on sm_90).
The smallest wins; waves = programs / (SMs * programs per SM).

Compiling for a chosen GPU on a machine without one (``compile_for_target``,
``compile_jit_for_target``) lives in ``kernels.compile.target``, which builds on this module.
"""

from __future__ import annotations

import hashlib
import math
import os
import re
import shutil
import subprocess
import tempfile
import threading
from dataclasses import dataclass
from typing import Any

from ..data.errors import first_line
from ..data.results import CompileFacts
from ..run.device import DeviceLimits

__all__ = ["ASM_KINDS", "Occupancy", "add_occupancy", "asm_texts", "compile_facts", "kernel_facts", "occupancy",
           "registers_from_cubin", "resource_usage", "waves"]

#: the IR texts shipped to the GUI, in pipeline order
ASM_KINDS = ("ttir", "ttgir", "llir", "ptx", "sass")


@dataclass(frozen=True)
class Occupancy:
    programs_per_sm: int
    limiter: str  # "warps" | "blocks" | "registers" | "shared memory"
    by_limit: dict[str, int]  # programs per SM allowed by each limit on its own
    warps_pct: float  # resident warps / max warps per SM, in percent


def _round_up(x: int, unit: int) -> int:
    return -(-x // unit) * unit


def occupancy(n_regs: int | None, num_warps: int, shared_bytes: int | None,
              limits: DeviceLimits) -> Occupancy:
    """Programs (thread blocks) of one kernel resident per SM, and what limits them.

    ``n_regs`` None (not known) leaves registers out of the estimate."""
    by: dict[str, int] = {
        "warps": limits.max_warps_per_sm // num_warps,
        "blocks": limits.max_blocks_per_sm,
    }
    if n_regs:
        regs_per_warp = _round_up(n_regs * limits.warp_size, limits.reg_alloc_unit)
        per_block = regs_per_warp * _round_up(num_warps, limits.reg_sub_partitions)
        if per_block > limits.regs_per_block or per_block > limits.regs_per_sm:
            by["registers"] = 0
        else:
            per_partition = limits.regs_per_sm // limits.reg_sub_partitions
            warps_fit = (per_partition // regs_per_warp) * limits.reg_sub_partitions
            by["registers"] = warps_fit // num_warps
    smem = int(shared_bytes or 0)
    if smem > limits.shared_per_block:
        by["shared memory"] = 0
    else:
        by["shared memory"] = limits.shared_per_sm // (smem + limits.shared_reserved_per_block) \
            if smem + limits.shared_reserved_per_block > 0 else limits.max_blocks_per_sm
    # ties go to the first in this order: "warps" is the natural cap, so a resource is named
    # only when it binds strictly earlier
    order = ["warps", "blocks", "registers", "shared memory"]
    best = min(by.values())
    limiter = next(k for k in order if k in by and by[k] == best)
    pct = 100.0 * best * num_warps / limits.max_warps_per_sm
    return Occupancy(programs_per_sm=best, limiter=limiter, by_limit=by, warps_pct=pct)


def waves(n_programs: int, n_sms: int, programs_per_sm: int) -> float | None:
    """How many times the whole GPU fills up with programs: programs / (SMs * per SM)."""
    if programs_per_sm <= 0 or n_sms <= 0:
        return None
    return n_programs / (n_sms * programs_per_sm)


def asm_texts(ck: Any, want_sass: bool = True) -> tuple[dict[str, str], list[str]]:
    """The IR texts of a CompiledKernel, and notes about what is missing."""
    asm = getattr(ck, "asm", None) or {}
    out: dict[str, str] = {}
    notes: list[str] = []
    for kind in ASM_KINDS[:-1]:
        text = asm.get(kind) if hasattr(asm, "get") else None
        if isinstance(text, str):
            out[kind] = text
    if want_sass:
        cubin = asm.get("cubin") if hasattr(asm, "get") else None
        if not isinstance(cubin, (bytes, bytearray)):
            notes.append("SASS omitted: the compiled kernel has no cubin")
        else:
            sass, why = _sass(bytes(cubin), getattr(ck, "name", None))
            if sass:
                out["sass"] = sass
            else:
                notes.append(f"SASS omitted: {why}")
    return out, notes


_ENCODING = re.compile(r"^\s*/\* 0x[0-9a-f]+ \*/\s*$")
_INSTR = re.compile(r"^\s*(/\*[0-9a-f]+\*/)\s*(.*?;)\s*(/\* 0x[0-9a-f]+ \*/)?\s*$")


def _cuobjdump() -> str | None:
    """Triton's bundled cuobjdump (or one on PATH)."""
    try:
        from triton import knobs

        path = knobs.nvidia.cuobjdump.path
        if path and os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    except Exception:  # noqa: BLE001 - the knob's name differs across Triton versions
        pass
    return shutil.which("cuobjdump")


def _run_cuobjdump(option: str, cubin: bytes) -> tuple[str | None, str]:
    """(stdout, "") of ``cuobjdump <option>`` on a cubin, or (None, why it failed)."""
    tool = _cuobjdump()
    if tool is None:
        return None, "cuobjdump not found (neither Triton's bundled one nor on PATH)"
    try:
        with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
            f.write(cubin)
            f.flush()
            done = subprocess.run([tool, option, f.name], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError) as e:
        return None, f"cuobjdump failed: {first_line(str(e))}"
    if done.returncode != 0:
        return None, f"cuobjdump failed: {first_line(done.stderr) or done.returncode}"
    return done.stdout, ""


#: SASS texts by the cubin's digest: a cuobjdump process takes about half a second, more than the
#: rest of a live run; the compile ahead (``engine.precompile``) fills it before the Run
_SASS_KEPT: dict[bytes, str] = {}
_SASS_KEPT_MAX = 64
_SASS_LOCK = threading.Lock()


def _sass(cubin: bytes, name: str | None) -> tuple[str, str]:
    """SASS text of a cubin via ``cuobjdump -sass``, without the hex encodings; or ("", why).
    Kept per cubin (``_SASS_KEPT``): the same binary is disassembled once per process."""
    key = hashlib.blake2b(cubin, digest_size=16).digest()
    with _SASS_LOCK:
        kept = _SASS_KEPT.get(key)
    if kept is not None:
        return kept, ""
    text, why = _disassemble(cubin)
    if text:
        with _SASS_LOCK:
            _SASS_KEPT[key] = text
            while len(_SASS_KEPT) > _SASS_KEPT_MAX:
                _SASS_KEPT.pop(next(iter(_SASS_KEPT)))
    return text, why


def _disassemble(cubin: bytes) -> tuple[str, str]:
    out, why = _run_cuobjdump("-sass", cubin)
    if out is None:
        return "", why
    lines = []
    for line in out.splitlines():
        if _ENCODING.match(line):
            continue
        m = _INSTR.match(line)
        lines.append(f"{m.group(1)}  {m.group(2)}" if m else line.strip())
    text = "\n".join(lines).strip()
    if not any(_INSTR.match(ln) for ln in out.splitlines()):
        return "", "cuobjdump printed no instructions"
    return text + "\n", ""


def resource_usage(cubin: bytes) -> dict[str, int] | None:
    """The cubin's resource usage from ``cuobjdump -res-usage`` (works without a GPU):
    ``{"REG": registers per thread, "LOCAL": local memory bytes per thread, "STACK": ...,
    "SHARED": static shared bytes, ...}`` of its (first) kernel; None when it cannot be read."""
    out, _ = _run_cuobjdump("-res-usage", cubin)
    m = re.search(r"Function [^\n]*:\s*\n([^\n]*)", out or "")
    usage = {k: int(v) for k, v in re.findall(r"\b([A-Z]+):(\d+)", m.group(1))} if m else {}
    return usage if "REG" in usage else None


def registers_from_cubin(cubin: bytes) -> int | None:
    """Registers per thread from ``cuobjdump -res-usage`` (works without a GPU), or None."""
    usage = resource_usage(cubin)
    return usage["REG"] if usage else None


def kernel_facts(ck: Any, keep_asm: bool = True) -> tuple[CompileFacts, list[str]]:
    """CompileFacts of a CompiledKernel without the occupancy (``add_occupancy``), plus notes.

    ``n_regs`` / ``n_spills`` come from the loaded binary after a launch; a kernel compiled but
    never loaded (no GPU) has them read from its cubin instead: registers and local memory per
    thread, spills = local bytes / 4 as Triton's driver computes them."""
    notes: list[str] = []
    md = getattr(ck, "metadata", None)
    num_warps = int(getattr(md, "num_warps", 0) or 0)
    num_stages = int(getattr(md, "num_stages", 0) or 0)
    shared = getattr(md, "shared", None)
    # n_regs / n_spills exist only after the binary was loaded on a device (the first launch)
    n_regs = getattr(ck, "n_regs", None)
    n_spills = getattr(ck, "n_spills", None)
    if n_regs is None:  # compiled but never loaded (no GPU): ask the cubin itself
        asm = getattr(ck, "asm", None) or {}
        cubin = asm.get("cubin") if hasattr(asm, "get") else None
        usage = resource_usage(bytes(cubin)) if isinstance(cubin, (bytes, bytearray)) else None
        if usage is not None:
            n_regs = usage["REG"]
            if n_spills is None and "LOCAL" in usage:
                # ptxas keeps spills in the stack frame (STACK), not LOCAL: a matmul spilling 9 KB
                # per thread reads LOCAL:0 STACK:9064; the driver's local size counts both
                n_spills = (usage["LOCAL"] + usage.get("STACK", 0)) // 4
            notes.append("registers and spills read from the cubin (cuobjdump -res-usage)")
    facts = CompileFacts(
        n_regs=int(n_regs) if n_regs is not None else None,
        n_spills=int(n_spills) if n_spills is not None else None,
        shared_bytes=int(shared) if shared is not None else None,
        num_warps=num_warps, num_stages=num_stages,
    )
    if n_spills:
        notes.append(f"{n_spills} registers spilled to local memory: slower loads and stores")
    if keep_asm:
        facts.asm, asm_notes = asm_texts(ck)
        notes.extend(asm_notes)
    return facts, notes


def add_occupancy(facts: CompileFacts, n_programs: int, limits: DeviceLimits | None) -> list[str]:
    """Fill ``facts``' occupancy and waves for ``n_programs`` programs on a GPU with ``limits``;
    returns notes for the user."""
    notes: list[str] = []
    facts.n_programs = int(n_programs)
    num_warps = facts.num_warps
    if limits is not None and num_warps > 0:
        occ = occupancy(facts.n_regs, num_warps, facts.shared_bytes, limits)
        facts.programs_per_sm = occ.programs_per_sm
        facts.occupancy_limiter = occ.limiter
        facts.occupancy_warps_pct = occ.warps_pct
        facts.n_sms = limits.n_sms
        facts.waves = waves(n_programs, limits.n_sms, occ.programs_per_sm)
        if facts.n_regs is None:
            notes.append("register count unknown: occupancy ignores registers")
        if occ.programs_per_sm == 0:
            notes.append(f"occupancy: not even one program fits on an SM ({occ.limiter})")
        elif facts.waves is not None and n_programs > 0:
            tail = facts.waves - math.floor(facts.waves)
            if facts.waves > 1 and 0 < tail < 0.5:
                notes.append(f"{facts.waves:.2f} waves: the last wave keeps only {tail:.0%} of the GPU busy")
    return notes


def compile_facts(ck: Any, n_programs: int, limits: DeviceLimits | None,
                  keep_asm: bool = True) -> tuple[CompileFacts, list[str]]:
    """CompileFacts from what ``kernel[grid](...)`` returned, plus notes for the user."""
    facts, notes = kernel_facts(ck, keep_asm)
    notes.extend(add_occupancy(facts, n_programs, limits))
    return facts, notes
