"""The advisor's rules: each reads ``Gathered`` facts and returns findings with their evidence.

A rule is a plain function ``(Gathered) -> list[Finding]`` registered in ``RULE_FUNCTIONS``; it
never compiles or runs anything itself (``kernels.advisor.trial`` tries the proposals). The
thresholds are named constants here, and each finding's ``evidence`` holds the numbers it was
decided on, so a user can check the reasoning.

- ``spills``: registers spilled to local memory (the cubin's stack frame, its STL/LDL by line);
- ``occupancy``: registers or shared memory hold the programs per SM down, and by how much;
- ``warps``: too few warps for the block: each thread holds many elements (a softmax row at one
  warp);
- ``tail``: the last wave of programs leaves most of the GPU idle (the grid formula and the
  occupancy; on a GPU the measured timeline: the SMs' busy share);
- ``uncoalesced``: a global access moves more 32-byte sectors than its bytes need (layout engine);
- ``vector_width``: a block too small for its threads: narrow or duplicated accesses, few bytes in
  flight (vector add at BLOCK_SIZE 64);
- ``masked_lanes``: lanes switched off by masks (the interpreter trace);
- ``l2_reuse``: a matmul-like grid whose program order makes it read so many A and B panels per
  wave that the launch falls under the ridge (memory-bound) where a grouped order would not
  (tutorial 03's grouped order, by its GROUP_SIZE_M / BLOCK_M / BLOCK_N / M / N / K names);
- ``roofline``: on a GPU, the run's position against the measured copy and matmul roofs.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ..compile.facts import occupancy
from ..data.advice import Finding, Proposal
from . import words as W
from .gather import Gathered

__all__ = ["L2_BYTES", "RULE_FUNCTIONS", "block_params", "grouped_wave_tiles", "measured_tail", "run_rules",
           "tail_efficiency"]

#: L2 bytes by compute capability major (A100 40 MB, H100/H200 50 MB, B200 126 MB; data sheets)
L2_BYTES = {8: 40 << 20, 9: 50 << 20, 10: 126 << 20, 12: 96 << 20}

#: spill bytes per thread from which a spill finding is high
SPILL_HIGH_BYTES = 64
#: resident warps (% of the SM's maximum) under which an occupancy limiter is worth a finding
OCCUPANCY_LOW_PCT = 25.0
#: elements one thread holds in one access from which the warps finding is medium / high
ELEMENTS_MEDIUM, ELEMENTS_HIGH = 32, 256
#: the tail: efficiency (programs / slots the waves take) under which it is medium / high
TAIL_MEDIUM, TAIL_HIGH = 0.8, 0.6
#: sector efficiency (ideal / actual) under which an access is high / medium, and the share of
#: the traced sectors it must move to matter
COALESCED_HIGH, COALESCED_MEDIUM, COALESCED_SHARE = 0.5, 0.8, 0.2
#: masked lanes (fraction of the launch's) from which the finding is low / medium
MASKED_LOW, MASKED_MEDIUM = 0.1, 0.25
#: the roof (%) under which a timed run is a medium finding
ROOF_MEDIUM_PCT = 50.0


def block_params(g: Gathered) -> list[str]:
    """The spec's block sizes: constexpr parameters named BLOCK*."""
    return [n for n in g.param("constexpr") if n.upper().startswith("BLOCK")]


def _num_warps(g: Gathered) -> int:
    return int(g.facts.num_warps or g.cfg.get("num_warps", 4))


# ---------------------------------------------------------------------------------------------
# spills and occupancy


def spills(g: Gathered) -> list[Finding]:
    sass = g.facts.asm.get("sass", "")
    n_sass = sum(1 for ln in sass.splitlines() if " STL" in ln or " LDL" in ln)
    per_thread = max(g.stack_bytes, 4 * int(g.facts.n_spills or 0))
    if not n_sass and not per_thread:
        return []
    line, on_line = -1, 0
    if g.spills:
        line, on_line = max(g.spills.items(), key=lambda kv: (kv[1], -kv[0]))
    nw = _num_warps(g)
    blocks = sorted(block_params(g), key=lambda n: -int(g.cfg[n]))
    changes: dict[str, Any] = {}
    alternatives: list[dict[str, Any]] = []
    if nw < 8 and "num_warps" in g.cfg:
        changes = {"num_warps": nw * 2}
    for b in blocks[:2]:
        if int(g.cfg[b]) >= 32:
            if changes:
                alternatives.append({b: int(g.cfg[b]) // 2})
            else:
                changes = {b: int(g.cfg[b]) // 2}
    if "num_warps" in changes and alternatives:
        alternatives.append({**changes, **alternatives[0]})  # both: more threads, and fewer values each
    w = W.Words().add("title", W.SPILLS_TITLE, bytes=f"{per_thread:,}")
    w.add("detail", W.SPILLS_DETAIL, registers=g.facts.n_regs, n=f"{n_sass:,}")
    if line >= 0:
        w.add("detail", W.SPILLS_DETAIL_LINE, n=f"{on_line:,}", line=line)
    if "num_warps" in changes:
        w.add("proposal", W.SPILLS_MORE_WARPS, old=nw, new=changes["num_warps"])
    else:
        w.add("proposal", W.SPILLS_SMALLER, changes=", ".join(f"{k} {g.cfg[k]} -> {v}" for k, v in changes.items()))
    evidence = {"spill_bytes_per_thread": per_thread, "spill_instructions": n_sass, "registers": g.facts.n_regs}
    if line >= 0:
        evidence["spill_instructions_on_line"] = on_line
    return [Finding(
        rule="spills", severity="high" if per_thread >= SPILL_HIGH_BYTES else "medium", title=w.text("title"),
        detail=w.text("detail"), evidence=evidence, line=line, shows="source", words=w.parts,
        proposal=Proposal(w.text("proposal"), "launch" if changes else "suggestion", changes, tuple(alternatives)))]


def occupancy_finding(g: Gathered) -> list[Finding]:
    f = g.facts
    limiter, pps = f.occupancy_limiter, f.programs_per_sm
    if pps is None or limiter not in ("registers", "shared memory"):
        return []
    pct = f.occupancy_warps_pct or 0.0
    if pps > 0 and pct >= OCCUPANCY_LOW_PCT:
        return []
    nw = _num_warps(g)
    evidence: dict[str, Any] = {"programs_per_sm": pps, "limiter": limiter, "warps_pct": round(pct, 1),
                                "registers": f.n_regs, "shared_bytes": f.shared_bytes}
    proposal = None
    w = W.Words()
    if pps == 0:
        w.add("title", W.OCC_NONE, limiter=limiter)
    else:
        w.add("title", W.OCC_ONE if pps == 1 else W.OCC_SOME, limiter=limiter, n=pps, pct=f"{pct:.0f}")
    w.add("detail", W.OCC_DETAIL, limiter=limiter)
    if limiter == "shared memory":
        stages = int(g.cfg.get("num_stages", f.num_stages or 1))
        per_program = g.limits.shared_per_sm // (pps + 1) - g.limits.shared_reserved_per_block
        evidence["shared_for_one_more"] = per_program
        if stages > 2 and "num_stages" in g.cfg:
            w.add("proposal", W.OCC_STAGES, old=stages, new=stages - 1)
            proposal = Proposal(w.text("proposal"), "launch", {"num_stages": stages - 1})
        w.add("detail", W.OCC_LIFT_SHARED, bytes=f"{per_program:,}", n=pps + 1)
    else:
        regs = f.n_regs or 0
        need = next((r for r in range(regs - 1, 15, -1)
                     if occupancy(r, nw, f.shared_bytes, g.limits).programs_per_sm > pps), None)
        evidence["registers_for_one_more"] = need
        if need:
            w.add("detail", W.OCC_LIFT_REGS, registers=need, n=pps + 1)
        else:
            w.add("detail", W.OCC_LIFT_NONE)
        blocks = sorted(block_params(g), key=lambda n: -int(g.cfg[n]))
        smaller = [{b: int(g.cfg[b]) // 2} for b in blocks[:2] if int(g.cfg[b]) >= 32]
        if nw < 8 and "num_warps" in g.cfg:
            w.add("proposal", W.OCC_WARPS, old=nw, new=nw * 2)
            proposal = Proposal(w.text("proposal"), "launch", {"num_warps": nw * 2}, tuple(smaller))
        elif smaller:
            (b, v), = smaller[0].items()
            w.add("proposal", W.OCC_BLOCK, param=b, old=g.cfg[b], new=v)
            proposal = Proposal(w.text("proposal"), "launch", smaller[0], tuple(smaller[1:]))
    return [Finding(
        rule="occupancy", severity="high" if pps == 0 else "medium", title=w.text("title"), detail=w.text("detail"),
        evidence=evidence, shows="compile", proposal=proposal, words=w.parts)]


def _largest_register_access(g: Gathered) -> Any:
    if g.layout is None:
        return None
    held = [a for a in g.layout.accesses if a.op in ("load", "store") and a.threads is not None and a.shape]
    return max(held, key=lambda a: a.threads.n_registers, default=None)


def warps(g: Gathered) -> list[Finding]:
    a = _largest_register_access(g)
    nw = _num_warps(g)
    if a is None or "num_warps" not in g.cfg:
        return []
    if any(x.op in ("dot_a", "dot_b", "accumulator") for x in g.layout.accesses):
        return []  # tiles feeding tl.dot are meant to be large per thread (the occupancy rule covers them)
    per_thread = a.threads.n_registers
    if per_thread < ELEMENTS_MEDIUM or nw >= 16:
        return []
    target = nw
    while target < 16 and per_thread * nw / target > 16:
        target *= 2
    evidence = {"elements_per_thread": per_thread, "num_warps": nw, "block": "x".join(map(str, a.shape)),
                "programs_per_sm": g.facts.programs_per_sm, "limiter": g.facts.occupancy_limiter,
                "warps_pct": round(g.facts.occupancy_warps_pct or 0.0, 1)}
    w = W.Words().add("title", W.WARPS_ONE if nw == 1 else W.WARPS_SOME, warps=nw, block=evidence["block"],
                      n=per_thread)
    w.add("detail", W.WARPS_DETAIL, n=per_thread, line=a.line, pct=f"{evidence['warps_pct']:.0f}",
          limiter=g.facts.occupancy_limiter)
    w.add("proposal", W.WARPS_PROPOSAL, old=nw, new=target)
    return [Finding(
        rule="warps", severity="high" if per_thread >= ELEMENTS_HIGH else "medium", title=w.text("title"),
        detail=w.text("detail"), evidence=evidence, line=a.line, shows="threads", access=a.index, words=w.parts,
        proposal=Proposal(w.text("proposal"), "launch", {"num_warps": target},
                          tuple({"num_warps": w} for w in (target // 2, target * 2) if nw < w <= 16 and w != target)))]


# ---------------------------------------------------------------------------------------------
# the grid


def tail_efficiency(n_programs: int, n_sms: int, programs_per_sm: int) -> tuple[float, float]:
    """(waves, efficiency): waves = programs / (SMs x programs per SM); efficiency = waves /
    ceil(waves), the share of the slots the waves take that programs fill."""
    slots = max(1, n_sms * max(1, programs_per_sm))
    w = n_programs / slots
    return w, (w / math.ceil(w) if w > 0 else 1.0)


def _grid_of(g: Gathered, cfg: dict[str, Any]) -> int:
    grid = g.spec.grid(cfg) or (0,)
    return int(math.prod(grid))


def measured_tail(tl: Any) -> dict[str, float]:
    """From a GPU timeline (``kernels.data.gpu_trace.Timeline``): ``sm_busy`` = SM-time some
    program ran (each SM's intervals merged) over SMs x span; ``tail_share`` = the time after the
    last program started (nothing left to dispatch) over the span; ``tail_busy`` = the SMs' busy
    share during that tail."""
    span = float(tl.span_ns)
    t0 = float(tl.start_ns.min()) if tl.n_programs else 0.0
    tail_start = float(tl.start_ns.max()) if tl.n_programs else 0.0
    busy = tail_busy = 0.0
    for sm in np.unique(tl.sm):
        sel = tl.sm == sm
        order = np.argsort(tl.start_ns[sel], kind="stable")
        starts, ends = tl.start_ns[sel][order].astype(float), tl.end_ns[sel][order].astype(float)
        cur_s, cur_e = starts[0], ends[0]
        for a, b in [*zip(starts[1:], ends[1:], strict=True), (math.inf, math.inf)]:
            if a > cur_e:  # a gap: close the merged interval
                busy += cur_e - cur_s
                tail_busy += max(0.0, cur_e - max(cur_s, tail_start))
                cur_s, cur_e = a, b
            else:
                cur_e = max(cur_e, b)
    end = t0 + span
    return {"sm_busy": busy / (tl.n_sms * span) if span else 1.0,
            "tail_share": (end - tail_start) / span if span else 0.0,
            "tail_busy": tail_busy / (tl.n_sms * (end - tail_start)) if end > tail_start else 1.0}


def tail(g: Gathered) -> list[Finding]:
    pps = g.facts.programs_per_sm or 0
    n, sms = g.n_programs, g.limits.n_sms
    if pps <= 0 or n <= 0:
        return []
    waves, eff = tail_efficiency(n, sms, pps)
    measured = measured_tail(g.timeline) if g.timeline is not None and g.timeline.n_programs else None
    if measured is not None:  # the GPU's own schedule decides, not the formula
        eff = measured["sm_busy"]
    if waves <= 1.0 or eff >= TAIL_MEDIUM:
        return []  # one wave has no last wave: idle SMs there are a small grid (the measured busy share too)
    last = waves - math.floor(waves) or 1.0
    candidates = []
    for b in block_params(g):
        if int(g.cfg[b]) >= 32:
            cfg = {**g.cfg, b: int(g.cfg[b]) // 2}
            if _grid_of(g, cfg) > n:
                candidates.append({b: int(g.cfg[b]) // 2})
    if len(candidates) >= 2:
        candidates.append({k: v for c in candidates[:2] for k, v in c.items()})
    w = W.Words()
    if candidates:
        w.add("proposal", W.TAIL_SMALLER,
              options=" / ".join(", ".join(f"{k} -> {v}" for k, v in c.items()) for c in candidates[:3]))
        proposal = Proposal(w.text("proposal"), "launch", candidates[0], tuple(candidates[1:3]))
    else:
        proposal = Proposal(w.add("proposal", W.TAIL_SPLIT).text("proposal"))
    w.add("detail", W.TAIL_DETAIL, n=f"{n:,}", sms=sms, pps=pps)
    evidence: dict[str, Any] = {"programs": n, "sms": sms, "programs_per_sm": pps, "waves": round(waves, 3),
                                "last_wave_full": round(last, 3), "efficiency": round(eff, 3)}
    if measured is None:
        w.add("title", W.TAIL_FORMULA, waves=f"{waves:.2f}", pct=f"{100 * last:.0f}")
        w.add("detail", W.TAIL_HOW_FORMULA, waves=math.ceil(waves), last=f"{100 * last:.0f}",
              idle=f"{100 * (1 - eff):.0f}")
    else:
        evidence.update({k: round(v, 3) for k, v in measured.items()})
        share = f"{100 * measured['tail_share']:.0f}"
        w.add("title", W.TAIL_MEASURED, busy=f"{100 * eff:.0f}", share=share)
        w.add("detail", W.TAIL_HOW_MEASURED, share=share, busy=f"{100 * measured['tail_busy']:.0f}",
              waves=f"{waves:.2f}")
    return [Finding(
        rule="tail", severity="high" if eff < TAIL_HIGH else "medium", title=w.text("title"),
        detail=w.text("detail"), evidence=evidence, shows="timeline", needs_gpu=measured is not None,
        proposal=proposal, words=w.parts)]


def _panels(num_pid_m: int, num_pid_n: int, group: int, per_wave: int) -> tuple[np.ndarray, np.ndarray]:
    """Distinct rows and columns of tiles each wave touches (int64 [waves] each) under tutorial
    03's grouped order with GROUP_SIZE_M ``group`` (1 = row-major)."""
    pid = np.arange(num_pid_m * num_pid_n, dtype=np.int64)
    in_group = group * num_pid_n
    first = (pid // in_group) * group
    size = np.minimum(num_pid_m - first, group)
    rows = first + (pid % in_group) % size
    cols = (pid % in_group) // size
    wave = pid // per_wave
    n_waves = int(wave[-1]) + 1 if pid.size else 0
    r = np.bincount(np.unique(wave * num_pid_m + rows) // num_pid_m, minlength=n_waves)
    c = np.bincount(np.unique(wave * num_pid_n + cols) // num_pid_n, minlength=n_waves)
    return r.astype(np.int64), c.astype(np.int64)


def grouped_wave_tiles(num_pid_m: int, num_pid_n: int, group: int, per_wave: int, wave: int = 0) -> tuple[int, int]:
    """(distinct rows of tiles, distinct columns of tiles) the programs of ``wave`` (``per_wave``
    programs each) touch under Triton tutorial 03's grouped order with GROUP_SIZE_M ``group``
    (1 = row-major): the A row panels and B column panels that wave must bring through L2."""
    r, c = _panels(num_pid_m, num_pid_n, group, per_wave)
    return int(r[wave]), int(c[wave])


def _esize(g: Gathered) -> int:
    return {"fp16": 2, "bf16": 2, "fp32": 4, "fp8": 1}.get(str(g.cfg.get("dtype", "fp32")), 4)


#: dense peak FLOP/s by compute capability major and math (data sheets: A100, H100 SXM, B200), and
#: memory bandwidth (bytes/s); the ridge = peak / bandwidth. H100's figures for sm_90 (the H200's
#: bandwidth is higher: its ridge lower, so a launch compute-bound here is compute-bound there)
_PEAKS = {8: {"tensor": 312e12, "tf32": 156e12, "fma": 19.5e12, "bw": 2.0e12},
          9: {"tensor": 989e12, "tf32": 495e12, "fma": 67e12, "bw": 3.35e12},
          10: {"tensor": 2250e12, "tf32": 1100e12, "fma": 80e12, "bw": 8.0e12}}


def _ridge(g: Gathered) -> float:
    from ..compile.target import parse_target

    peaks = _PEAKS.get(parse_target(g.target) // 10, _PEAKS[9])
    dtype = str(g.cfg.get("dtype", "fp32"))
    math_kind = "tensor" if dtype in ("fp16", "bf16", "fp8") else ("tf32" if g.cfg.get("TF32", True) else "fma")
    return peaks[math_kind] / peaks["bw"]


def l2_reuse(g: Gathered) -> list[Finding]:
    """Bytes the launch must bring from DRAM in its program order, each wave's A and B panels read
    once (L2 serves the rest of the wave) and nothing kept from one wave to the next, against the
    FLOPs: below the target's ridge the order makes the launch memory-bound, and a grouped order
    that needs far fewer bytes is proposed."""
    need = ("GROUP_SIZE_M", "BLOCK_M", "BLOCK_N", "M", "N", "K")
    if not all(k in g.cfg for k in need) or not g.facts.programs_per_sm:
        return []
    bm, bn, group = int(g.cfg["BLOCK_M"]), int(g.cfg["BLOCK_N"]), int(g.cfg["GROUP_SIZE_M"])
    m, n, k = int(g.cfg["M"]), int(g.cfg["N"]), int(g.cfg["K"])
    pm, pn = -(-m // bm), -(-n // bn)
    per_wave = g.limits.n_sms * g.facts.programs_per_sm
    panel = k * _esize(g)

    def launch_bytes(gs: int) -> tuple[int, int, int, int]:
        r, c = _panels(pm, pn, gs, per_wave)
        return int(((r * bm + c * bn) * panel).sum()) + m * n * _esize(g), int(r[0]), int(c[0]), \
            int((r[0] * bm + c[0] * bn) * panel)

    now, rows, cols, wave_now = launch_bytes(group)
    flops = 2 * m * n * k
    ridge = _ridge(g)
    if flops / now >= ridge:
        return []  # compute-bound in this order already: its loads hide behind the math
    best = min((launch_bytes(gs)[0], gs) for gs in sorted({1, 2, 4, 8, 16, 32, 64}) if gs <= max(1, pm))
    if best[0] > 0.6 * now:
        return []
    from ..compile.target import parse_target

    l2 = L2_BYTES.get(parse_target(g.target) // 10, 50 << 20)
    gb = 2**30
    w = W.Words().add("title", W.L2_TITLE, order="row-major" if group == 1 else f"GROUP_SIZE_M={group}",
                      gb=f"{now / gb:.1f}", fpb=f"{flops / now:.0f}", ridge=f"{ridge:.0f}")
    w.add("detail", W.L2_DETAIL, per_wave=per_wave, rows=rows, cols=cols, mb=f"{wave_now / 2**20:.0f}",
          l2=f"{l2 / 2**20:.0f}", group=best[1], gb=f"{best[0] / gb:.1f}", fpb=f"{flops / best[0]:.0f}")
    w.add("proposal", W.L2_PROPOSAL, old=group, new=best[1])
    return [Finding(
        rule="l2_reuse", severity="high" if flops / best[0] >= ridge or best[0] <= 0.4 * now else "medium",
        title=w.text("title"), detail=w.text("detail"), words=w.parts,
        evidence={"per_wave": per_wave, "a_panels": rows, "b_panels": cols, "wave_mb": round(wave_now / 2**20, 1),
                  "l2_mb": round(l2 / 2**20, 1), "launch_gb": round(now / gb, 2), "grouped_gb": round(best[0] / gb, 2),
                  "flop_per_byte": round(flops / now, 1), "ridge": round(ridge, 1), "group": group},
        shows="grid", proposal=Proposal(w.text("proposal"), "launch", {"GROUP_SIZE_M": best[1]}))]


# ---------------------------------------------------------------------------------------------
# inside a program


def _lane_stride(a: Any) -> int | None:
    """Bytes between the elements lanes 0 and 1 of warp 0 hold in register 0 (the sample
    program's addresses); None when unknown or masked."""
    c = a.coalescing
    offs = getattr(c, "sample_offsets", None)
    if offs is None or offs.size == 0 or a.threads is None:
        return None
    e = a.threads.element_of
    flat = offs.reshape(-1)
    if e.shape[1] < 2 or flat.size <= max(int(e[0, 0, 0]), int(e[0, 1, 0])):
        return None
    x0, x1 = int(flat[e[0, 0, 0]]), int(flat[e[0, 1, 0]])
    return None if x0 < 0 or x1 < 0 else x1 - x0


_BYTES = {"float16": 2, "bfloat16": 2, "float32": 4, "float64": 8, "int8": 1, "uint8": 1, "int16": 2, "int32": 4,
          "int64": 8}


def _block_efficiency(a: Any) -> float | None:
    """Ideal / distinct 32-byte sectors of the sample program's whole block: near 1 when the
    block is contiguous and only each instruction is narrow (the next instructions of the warp
    take the rest of a sector from L1), small when the block itself is scattered."""
    offs = getattr(a.coalescing, "sample_offsets", None)
    if offs is None or offs.size == 0:
        return None
    live = np.unique(offs[offs >= 0])
    if live.size == 0:
        return None
    esize = _BYTES.get(a.dtype, 4)
    return float(-(-live.size * esize // 32)) / float(np.unique(live // 32).size)


def _lane_vector_bytes(a: Any) -> int | None:
    """Bytes lane 0 of warp 0 holds at consecutive addresses from its first register on (the
    layout's vector per lane: 8 fp16 = 16); None when unknown or masked."""
    offs = getattr(a.coalescing, "sample_offsets", None)
    if offs is None or offs.size == 0 or a.threads is None:
        return None
    esize, regs, flat = _BYTES.get(a.dtype, 4), a.threads.element_of[0, 0], offs.reshape(-1)
    if flat.size <= int(regs.max()) or int(flat[regs[0]]) < 0:
        return None
    run = 1
    while run < regs.size and int(flat[regs[run]]) == int(flat[regs[0]]) + run * esize:
        run += 1
    return run * esize


def _misaligned(a: Any, stride: int | None, scattered: bool) -> int | None:
    """The lane's vector bytes when the layout already coalesces ``a`` (lanes contiguous, each
    continuing where the last ended, the block contiguous) and only the load is narrower than
    it: Triton could not prove the addresses aligned (LayerNorm's fp16 rows of 1000: 16-bit
    loads, 128-bit at 1008). None otherwise."""
    vec = _lane_vector_bytes(a)
    if scattered or vec is None or stride != vec or not a.vector_bits:
        return None
    return vec if a.vector_bits < 8 * min(vec, 16) else None


def uncoalesced(g: Gathered) -> list[Finding]:
    if g.layout is None:
        return []
    measured = [a for a in g.layout.accesses if a.coalescing is not None and a.coalescing.sectors]
    total = sum(a.coalescing.sectors for a in measured)
    out = []
    for a in measured:
        c = a.coalescing
        share = c.sectors / total if total else 0.0
        if c.efficiency >= COALESCED_MEDIUM or share < COALESCED_SHARE:
            continue
        stride = _lane_stride(a)
        block_eff = _block_efficiency(a)
        scattered = block_eff is None or block_eff < COALESCED_HIGH
        w = W.Words().add("title", W.UNCO_TITLE, line=a.line, op=a.op, tensor=a.tensor or "a tensor",
                          spr=f"{c.sectors_per_request:.1f}", ideal=f"{c.ideal_sectors / max(1, c.requests):.1f}")
        w.add("detail", W.UNCO_DETAIL, pct=f"{100 * c.efficiency:.0f}", bytes=f"{c.wasted_bytes:,}", n=c.n_programs,
              share=f"{100 * share:.0f}")
        if stride not in (None, 0):
            w.add("detail", W.UNCO_STRIDE, stride=f"{stride:,}")
        if not scattered:
            w.add("detail", W.UNCO_CONTIGUOUS, pct=f"{100 * block_eff:.0f}", bits=a.vector_bits)
        vec = _misaligned(a, stride, scattered)
        if vec is not None:  # the layout is right; the alignment Triton could not prove is not
            w.add("proposal", W.UNCO_ALIGN, line=a.line, vec=vec, bits=a.vector_bits,
                  k=16 // _BYTES.get(a.dtype, 4))
        else:
            w.add("proposal", W.UNCO_PROPOSAL, line=a.line)
        out.append(Finding(
            rule="uncoalesced", severity="high" if c.efficiency < COALESCED_HIGH and scattered else "medium",
            title=w.text("title"), detail=w.text("detail"), words=w.parts,
            evidence={"sectors_per_request": round(c.sectors_per_request, 2),
                      "ideal_per_request": round(c.ideal_sectors / max(1, c.requests), 2),
                      "efficiency": round(c.efficiency, 3), "share_of_sectors": round(share, 3),
                      "lane_stride_bytes": stride, "programs_traced": c.n_programs, "misaligned_vector_bytes": vec,
                      "block_efficiency": round(block_eff, 3) if block_eff is not None else None},
            line=a.line, shows="threads", access=a.index, proposal=Proposal(w.text("proposal"))))
    return out


def vector_width(g: Gathered) -> list[Finding]:
    if g.layout is None:
        return []
    nw = _num_warps(g)
    threads = nw * g.layout.threads_per_warp
    out = []
    for a in g.layout.accesses:
        if a.op not in ("load", "store") or a.threads is None or not a.shape or not a.vector_bits:
            continue
        numel = math.prod(a.shape)
        bits = {"float16": 16, "bfloat16": 16, "float32": 32, "float64": 64}.get(a.dtype, 32)
        if numel >= threads * 128 // bits or a.coalescing is None or a.coalescing.efficiency < COALESCED_MEDIUM:
            continue
        param = next((b for b in block_params(g) if int(g.cfg[b]) == a.shape[-1]), None)
        want = threads * 128 // bits * 2
        dup = float((a.threads.n_holders > 1).mean()) if a.threads.n_holders.size else 0.0
        w = W.Words().add("title", W.VEC_TITLE, line=a.line, n=numel, threads=threads, bits=a.vector_bits)
        w.add("detail", W.VEC_DETAIL, bits=a.vector_bits)
        if dup:
            w.add("detail", W.VEC_DETAIL_DUP, pct=f"{100 * dup:.0f}")
        w.add("detail", W.VEC_DETAIL_FLIGHT, pps=g.facts.programs_per_sm,
              bytes=f"{(g.facts.programs_per_sm or 0) * numel * bits // 8:,}")
        if param:
            w.add("proposal", W.VEC_LARGER, param=param, old=g.cfg[param], new=want)
            proposal = Proposal(w.text("proposal"), "launch", {param: want}, ({param: want // 2}, {param: want * 2}))
        else:
            proposal = Proposal(w.add("proposal", W.VEC_AT_LEAST, line=a.line, n=threads * 128 // bits).text("proposal"))
        out.append(Finding(
            rule="vector_width", severity="high" if numel < threads else "medium",
            title=w.text("title"), detail=w.text("detail"), words=w.parts,
            evidence={"elements": numel, "threads": threads, "vector_bits": a.vector_bits,
                      "duplicated": round(dup, 3), "programs_per_sm": g.facts.programs_per_sm},
            line=a.line, shows="threads", access=a.index, proposal=proposal))
        break  # one per kernel: the same block size drives every access
    return out


def masked_lanes(g: Gathered) -> list[Finding]:
    m = g.masks
    if m is None or not m.by_line:
        return []
    frac = m.launch_fraction()
    if frac < MASKED_LOW:
        return []
    line = max(m.by_line.items(), key=lambda kv: kv[1][1])[0]
    w = W.Words().add("title", W.MASK_TITLE, pct=f"{100 * frac:.0f}")
    w.add("detail", W.MASK_DETAIL, n=m.programs, total=f"{m.total:,}", line=line, lanes=f"{m.by_line[line][1]:,}")
    w.add("proposal", W.MASK_PROPOSAL)
    return [Finding(
        rule="masked_lanes", severity="medium" if frac >= MASKED_MEDIUM else "low", title=w.text("title"),
        detail=w.text("detail"), words=w.parts,
        evidence={"masked_fraction": round(frac, 3), "programs_sampled": m.programs, "programs": m.total},
        line=line, shows="grid", proposal=Proposal(w.text("proposal")))]


def roofline(g: Gathered) -> list[Finding]:
    r = g.run
    met = getattr(r, "metrics", None)
    if r is None or met is None or getattr(r, "error", None) is not None:
        return []
    flops, nbytes = met.flops or 0, met.bytes_moved or 0
    ridge = (met.peak_tflops * 1e12) / (met.peak_gbps * 1e9) if met.peak_tflops and met.peak_gbps else None
    compute = ridge is not None and nbytes and flops / nbytes > ridge
    pct = met.pct_peak_flops if compute else met.pct_peak_bw
    if pct is None:
        return []
    w = W.Words().add("title", W.ROOF_COMPUTE if compute else W.ROOF_MEMORY, pct=f"{pct:.0f}")
    if ridge:
        w.add("detail", W.ROOF_RIDGE, fpb=f"{flops / max(1, nbytes):.1f}", ridge=f"{ridge:.0f}")
    else:
        w.add("detail", W.ROOF_NO_RIDGE)
    w.add("detail", W.ROOF_SOURCE, source=met.peak_source)
    return [Finding(
        rule="roofline", severity="medium" if pct < ROOF_MEDIUM_PCT else "info", needs_gpu=True,
        title=w.text("title"), detail=w.text("detail"), words=w.parts,
        evidence={"pct_of_roof": round(pct, 1), "flop_per_byte": round(flops / max(1, nbytes), 2),
                  "ridge": round(ridge, 1) if ridge else None, "gbps": met.gbps, "tflops": met.tflops},
        shows="compile")]


RULE_FUNCTIONS: dict[str, Callable[[Gathered], list[Finding]]] = {
    "spills": spills, "uncoalesced": uncoalesced, "occupancy": occupancy_finding, "warps": warps, "tail": tail,
    "l2_reuse": l2_reuse, "vector_width": vector_width, "masked_lanes": masked_lanes, "roofline": roofline,
}


def _valid(g: Gathered, changes: dict[str, Any]) -> bool:
    """The spec accepts ``changes`` at the current values (softmax's BLOCK_SIZE must cover N)."""
    try:
        g.spec.config({**g.cfg, **changes})
    except Exception:  # noqa: BLE001 - ValidationError: the change is not offered
        return False
    return True


def _keep_valid(g: Gathered, f: Finding) -> Finding:
    """``f`` with the launch changes the spec refuses taken out of its proposal (none left: a
    suggestion)."""
    p = f.proposal
    if p is None or p.kind != "launch":
        return f
    ok = [c for c in (p.changes, *p.alternatives) if c and _valid(g, c)]
    if not ok:
        f.proposal = Proposal(p.text, "suggestion")
    elif ok[0] is not p.changes or len(ok) != 1 + len(p.alternatives):
        f.proposal = Proposal(p.text, "launch", ok[0], tuple(ok[1:]))
    return f


def run_rules(g: Gathered) -> list[Finding]:
    """Every rule's findings (a rule that fails is skipped and named in ``g.not_checked``); a
    proposed launch change the spec refuses is dropped from the proposal."""
    out: list[Finding] = []
    for name, rule in RULE_FUNCTIONS.items():
        try:
            out.extend(_keep_valid(g, f) for f in rule(g))
        except Exception as e:  # noqa: BLE001 - one rule failing leaves the others
            g.not_checked.append(f"rule {name}: {type(e).__name__}: {e}")
    return out
