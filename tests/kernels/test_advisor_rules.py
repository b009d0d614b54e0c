"""More of the advisor's rules on cases with known answers (CPU, compiled for sm_90 or on facts
built by hand): the occupancy limiter and what lifts it, a single wave that has no tail, a code
suggestion measured through the kernel's own fixed variant, and the CPU-side sample taken apart
from the GPU's facts giving the same findings.

What breaks if these fail: the card proposes a change that cannot lift occupancy, blames a
small grid's idle SMs on a "tail", offers a flag that computes something else as a fix, or the
device benchmark's pooled samples rank differently from ``tilescope why``."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from kernels.advisor.gather import Gathered, gather, sample, target_limits
from kernels.advisor.rules import occupancy_finding, tail, uncoalesced
from kernels.advisor.service import advise
from kernels.advisor.trial import _same_function
from kernels.advisor.words import UNCO_ALIGN, UNCO_PROPOSAL
from kernels.compile.facts import occupancy
from kernels.data.gpu_trace import Timeline
from kernels.data.results import CompileFacts
from kernels.sources.lookup import get_spec

ROOT = Path(__file__).resolve().parents[2]
VARIANTS = str(ROOT / "benchmarks" / "advisor_variants.py")


def _gathered(spec_name: str, values: dict, n_programs: int = 1024, **facts) -> Gathered:
    spec = get_spec(spec_name)
    f = CompileFacts(**{"n_spills": 0, "shared_bytes": 0, "num_stages": 3, **facts})
    return Gathered(spec=spec, cfg=spec.config(values), target="sm_90", facts=f, limits=target_limits("sm_90"),
                    n_programs=n_programs)


def test_registers_holding_the_sm_to_two_programs_name_the_count_that_fits_three():
    # 255 registers x 128 threads: two programs per SM (12 % of its warps)
    g = _gathered("matmul", {"num_warps": 4}, n_regs=255, num_warps=4, programs_per_sm=2,
                  occupancy_limiter="registers", occupancy_warps_pct=12.5)
    (f,) = occupancy_finding(g)
    assert f.severity == "medium" and f.evidence["limiter"] == "registers"
    need = f.evidence["registers_for_one_more"]
    lim = target_limits("sm_90")
    assert occupancy(need, 4, 0, lim).programs_per_sm == 3 and occupancy(need + 1, 4, 0, lim).programs_per_sm == 2
    assert f.proposal.changes == {"num_warps": 8}
    assert f.words["title"][0][1] == {"limiter": "registers", "n": "2", "pct": "12"}


def test_shared_memory_holding_the_sm_to_one_program_proposes_a_stage_fewer():
    g = _gathered("matmul", {"num_warps": 8, "num_stages": 3}, n_regs=128, num_warps=8, shared_bytes=147456,
                  programs_per_sm=1, occupancy_limiter="shared memory", occupancy_warps_pct=12.5)
    (f,) = occupancy_finding(g)
    lim = target_limits("sm_90")
    assert f.evidence["shared_for_one_more"] == lim.shared_per_sm // 2 - lim.shared_reserved_per_block
    assert f.proposal.changes == {"num_stages": 2}


def test_a_grid_under_one_wave_has_no_tail_even_with_idle_sms_measured():
    # 64 programs of 1 µs on 132 SMs: 68 SMs idle the whole launch, but there is no last wave
    tl = Timeline(grid=(64, 1, 1), sm=np.arange(64, dtype=np.int32), start_ns=np.zeros(64, np.int64),
                  end_ns=np.full(64, 1000, np.int64), n_sms=132, programs_per_sm=1)
    g = _gathered("matmul", {}, n_programs=64, n_regs=128, num_warps=4, programs_per_sm=1,
                  occupancy_limiter="registers", occupancy_warps_pct=6.0)
    g.timeline = tl
    assert tail(g) == []
    g.n_programs = 133  # one program past a wave: now the measured schedule decides
    g.timeline = Timeline(grid=(133, 1, 1), sm=np.r_[np.arange(132), 0].astype(np.int32),
                          start_ns=np.r_[np.zeros(132), 1000].astype(np.int64),
                          end_ns=np.r_[np.full(132, 1000), 2000].astype(np.int64), n_sms=132, programs_per_sm=1)
    (f,) = tail(g)
    assert f.needs_gpu and f.severity == "high"


def test_a_column_walk_is_offered_its_own_by_rows_variant_and_it_checks_out():
    a = advise(get_spec("column_copy", VARIANTS), {"M": 512, "N": 512, "BLOCK": 512}, "sm_90", try_changes=True,
               programs=1)
    unco = [f for f in a.findings if f.rule == "uncoalesced"]
    assert len(unco) == 2 and a.first.rule == "uncoalesced"  # the load and the store
    for f in unco:
        assert f.proposal.kind == "variant" and f.proposal.changes == {"BY_ROWS": True}
        assert f.status == "checked" and f.trial.after == {"resolved": True}
        assert f.proposal.text.endswith("the same reference)") and f"line {f.line}" in f.proposal.text
        # lanes a row apart: the layout is at fault, not the alignment
        assert f.words["proposal"][0][0] == UNCO_PROPOSAL and f.evidence["misaligned_vector_bytes"] is None
    assert unco[0].trial is not unco[1].trial and unco[0].trial.before == unco[0].evidence


def test_a_flag_that_changes_what_is_computed_is_not_a_fix():
    gelu = get_spec("gelu")
    assert not _same_function(gelu, gelu.config({"N": 4096}), gelu.config({"N": 4096, "APPROX_TANH": True}))
    copy = get_spec("column_copy", VARIANTS)
    vals = {"M": 64, "N": 64, "BLOCK": 64}
    assert _same_function(copy, copy.config(vals), copy.config({**vals, "BY_ROWS": True}))


def test_a_sample_taken_elsewhere_gives_the_findings_of_a_whole_gather():
    spec = get_spec("vector_add")
    vals = {"BLOCK_SIZE": 64, "N": 4096}
    s = sample(spec, vals, "sm_90", programs=1)
    apart = advise(spec, vals, "sm_90", programs=1, sampled=s)
    whole = advise(spec, vals, "sm_90", programs=1)
    assert [(f.rule, f.title, f.line) for f in apart.findings] == [(f.rule, f.title, f.line) for f in whole.findings]
    assert apart.first.rule == "vector_width"


def _row_loads(n_cols: int) -> tuple[list, dict]:
    """LayerNorm's three row loads (fp16, 1024-column block, 4 warps) at ``n_cols`` columns,
    compiled for sm_90, and the uncoalesced findings by tensor."""
    spec = get_spec("layernorm")
    g = gather(spec, {"N": n_cols, "M": 4}, "sm_90", programs=1)
    loads = [a for a in g.layout.accesses if a.op == "load" and a.tensor in ("X", "W", "B")]
    return loads, {a.tensor: f for f in uncoalesced(g) for a in loads if a.line == f.line}


def test_a_contiguous_row_is_coalesced_when_its_loads_are_128_bits_and_not_when_they_are_16():
    # The same layout both times: each thread 8 consecutive fp16, neighbouring lanes 16 bytes
    # apart. Rows of 1008 (a multiple of 16): Triton proves the row 16-byte aligned and issues one
    # ld.global.v4.b32 per thread: 32 lanes x 16 B = 512 B, 16 sectors a request, ideal 16.
    loads, found = _row_loads(1008)
    assert len(loads) == 3 and not found
    for a in loads:
        assert a.vector_bits == 128 and a.threads.element_of.shape[2] == 8
        c = a.coalescing
        # one request per warp (the last warp's 16 masked columns leave it 15 sectors)
        assert c.requests == 4 and c.sectors == c.ideal_sectors and list(c.per_instruction_sectors) == [16, 16, 16, 15]
    # Rows of 1000 (the catalog's default): the row stride and N are not multiples of 16, so the
    # loads are scalar ld.global.b16 (ncu on the H200: 15.9 sectors a request,
    # docs/benchmarks/layout.md): each instruction asks for 64 bytes (2 sectors) and spans 16.
    loads, found = _row_loads(1000)
    assert sorted(found) == ["B", "W", "X"]
    for a in loads:
        assert a.vector_bits == 16 and a.threads.element_of.shape[2] == 8
        f = found[a.tensor]
        assert f.evidence["ideal_per_request"] == 2.0 and 15.0 < f.evidence["sectors_per_request"] <= 16.0
        assert f.evidence["lane_stride_bytes"] == 16
        # the block itself is contiguous (every sector of it used): medium, not high
        assert f.severity == "medium" and f.evidence["block_efficiency"] == 1.0
        # the lanes already walk the row: the proposal is alignment (rows padded to 8 fp16 =
        # 16 bytes, or a stride Triton can prove), not "let consecutive lanes walk the
        # contiguous dimension"
        assert f.evidence["misaligned_vector_bytes"] == 16
        assert "let consecutive lanes" not in f.proposal.text and "already walk the contiguous" in f.proposal.text
        assert "pad the rows (their stride) to a multiple of 8 elements (16 bytes)" in f.proposal.text
        assert "16-bit" in f.proposal.text and "tl.multiple_of" in f.proposal.text
        assert [t for t, _v in f.words["proposal"]] == [UNCO_ALIGN]
