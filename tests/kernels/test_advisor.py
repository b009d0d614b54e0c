"""The advisor's rules on small cases with known answers, on the CPU: each compiles for sm_90 here
(no GPU), samples programs on the interpreter and must name the true cause first, at its line.

What breaks if these fail: ``tilescope why`` and the window's Advice card blame the wrong thing
(or nothing) for a kernel whose slowness is known."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from kernels.advisor.gather import Gathered, spill_lines, target_limits
from kernels.advisor.rules import grouped_wave_tiles, l2_reuse, tail_efficiency
from kernels.advisor.service import advise, why
from kernels.compile.target import compile_for_target
from kernels.data.advice import WhyRequest
from kernels.sources.lookup import get_spec

ROOT = Path(__file__).resolve().parents[2]
VARIANTS = str(ROOT / "benchmarks" / "advisor_variants.py")


def _line_of(module_file: Path, text: str) -> int:
    lines = module_file.read_text().splitlines()
    return next(i for i, ln in enumerate(lines, 1) if text in ln)


def test_a_column_walk_copy_is_blamed_on_its_load_first():
    spec = get_spec("column_copy", VARIANTS)
    a = advise(spec, {}, "sm_90", programs=2)
    first = a.first
    assert first is not None and first.rule == "uncoalesced" and first.severity == "high"
    assert first.line == _line_of(ROOT / "benchmarks" / "advisor_variants.py", "v = tl.load(")
    assert first.evidence["sectors_per_request"] == 32.0 and first.evidence["ideal_per_request"] == 4.0
    assert first.evidence["lane_stride_bytes"] == 4 * 1024  # a row of 1024 fp32 between neighbouring lanes
    # a code change at the line, which this kernel's own source makes with BY_ROWS: measurable
    assert first.proposal.kind == "variant" and first.proposal.changes == {"BY_ROWS": True}
    assert first.status == "not tried"
    fixed = advise(spec, {"BY_ROWS": True}, "sm_90", programs=2)
    assert not [f for f in fixed.findings if f.rule == "uncoalesced"]


def test_vector_add_at_block_64_is_narrow_and_the_proposal_checks_out_on_the_target():
    a = advise(get_spec("vector_add"), {"BLOCK_SIZE": 64, "N": 1 << 16}, "sm_90", try_changes=True, programs=2)
    first = a.first
    assert first.rule == "vector_width" and first.severity == "high"
    assert first.evidence["elements"] == 64 and first.evidence["threads"] == 128
    assert first.line == _line_of(ROOT / "kernels" / "catalog" / "elementwise.py", "x = tl.load(")
    assert first.proposal.kind == "launch" and first.proposal.changes == {"BLOCK_SIZE": 1024}
    # no GPU: the proposal was compiled for sm_90 and the rule no longer fires there
    assert first.status == "checked" and first.trial.after == {"resolved": True} and not first.trial.measured
    assert any("needs GPU timing" in n for n in a.not_checked)


def test_softmax_at_one_warp_blames_the_warps_first():
    a = advise(get_spec("softmax"), {"num_warps": 1, "M": 64, "N": 4096, "BLOCK_SIZE": 4096}, "sm_90", programs=2)
    first = a.first
    # medium: the H200 measured 1.12x between 1 warp and 4 on this shape (docs/benchmarks/advisor.md)
    assert first.rule == "warps" and first.severity == "medium"
    assert first.evidence["elements_per_thread"] == 128
    assert first.proposal.changes == {"num_warps": 8}


def test_masked_lanes_are_counted_from_the_trace_at_the_load_line():
    # N = 600 in a block of 1024: 424 of every row's 1024 lanes are masked off
    a = advise(get_spec("softmax"), {"M": 64, "N": 600, "BLOCK_SIZE": 1024}, "sm_90", programs=2)
    masked = next(f for f in a.findings if f.rule == "masked_lanes")
    assert masked.evidence["masked_fraction"] == pytest.approx(424 / 1024, abs=1e-3)
    assert masked.severity == "medium" and masked.line in (
        _line_of(ROOT / "kernels" / "catalog" / "softmax.py", "x = tl.load(row_in + cols"),
        _line_of(ROOT / "kernels" / "catalog" / "softmax.py", "tl.store(row_out"))


def test_a_grid_of_133_programs_on_132_sms_has_a_heavy_tail():
    # 7 x 19 tiles of 128 x 256 at 8 warps: 144 KB of shared memory, one program per SM
    vals = {"M": 896, "N": 4864, "K": 64, "BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64, "num_warps": 8,
            "num_stages": 3}
    a = advise(get_spec("matmul"), vals, "sm_90", programs=1)
    tail = next(f for f in a.findings if f.rule == "tail")
    assert tail.evidence["programs"] == 133 and tail.evidence["programs_per_sm"] == 1
    assert tail.evidence["efficiency"] == pytest.approx(133 / 264, abs=1e-3)
    assert tail.severity == "high" and a.first.rule == "tail"
    assert tail.proposal.kind == "launch"
    assert tail_efficiency(264, 132, 1) == (2.0, 1.0)


def test_spills_are_found_in_the_cubin_and_tied_to_the_dot_line():
    # 256 x 128 fp32 tiles with exact (FMA) products at 4 warps: 256 accumulator values per thread
    vals = {"dtype": "fp32", "TF32": False, "BLOCK_M": 256, "BLOCK_N": 128, "BLOCK_K": 32, "num_warps": 4,
            "M": 256, "N": 128, "K": 64}
    a = advise(get_spec("matmul"), vals, "sm_90", programs=1)
    first = a.first
    assert first.rule == "spills" and first.severity == "high"
    assert first.evidence["spill_bytes_per_thread"] > 1024 and first.evidence["spill_instructions"] > 100
    assert first.line == _line_of(ROOT / "kernels" / "catalog" / "matmul.py", 'input_precision="ieee"')
    assert a.facts["spills"] == first.evidence["spill_bytes_per_thread"] // 4  # the compile facts agree
    assert first.proposal.changes == {"num_warps": 8}


def test_spill_lines_count_each_stl_and_ldl_under_the_kernels_own_line():
    text = "\n".join([
        '\t//## File "/x/kern.py", line 10',
        "  STL [R1+0x4], R2 ;",
        '\t//## File "/venv/triton/language/standard.py", line 43',
        "  LDL R3, [R1+0x4] ;",  # Triton's own helper: counts under the kernel's line before it
        '\t//## File "/x/kern.py", line 12',
        "  LDL.64 R4, [R1+0x8] ;",
        "  FFMA R5, R4, R4, R5 ;",
    ])
    assert spill_lines(text, "/somewhere/kern.py") == {10: 2, 12: 1}


def test_the_grouped_order_formula_matches_the_traced_tiles_per_wave():
    """The L2 rule counts panels per wave by tutorial 03's formula; the grid view counts the
    distinct tiles each wave really loads from a trace. Both on a 6 x 6 tile matmul, waves of 9."""
    from kernels.data.maps import wave_loads
    from kernels.trace.service import trace_spec

    for group in (1, 3):
        tr = trace_spec(get_spec("matmul"), {"M": 96, "N": 96, "K": 16, "BLOCK_M": 16, "BLOCK_N": 16,
                                             "BLOCK_K": 16, "GROUP_SIZE_M": group, "dtype": "fp32"})
        traced = wave_loads(tr, 9)
        a_col, b_col = (next(i for i, n in enumerate(traced.tensors) if n in (x, f"{x}_ptr")) for x in "ab")
        assert traced.n_waves == 4
        for w in range(traced.n_waves):
            rows, cols = grouped_wave_tiles(6, 6, group, 9, w)
            assert (rows, cols) == (int(traced.tiles[w, a_col]), int(traced.tiles[w, b_col]))


def _l2_finding(vals: dict) -> list:
    spec = get_spec("matmul")
    cfg = spec.config(vals)
    limits = target_limits("sm_90")
    facts, _ = compile_for_target(spec, cfg, "sm_90", keep_asm=False, limits=limits)
    return l2_reuse(Gathered(spec=spec, cfg=cfg, target="sm_90", facts=facts, limits=limits,
                             n_programs=facts.n_programs))


def test_row_major_order_is_blamed_only_where_it_makes_the_launch_memory_bound():
    # 128 x 128 tiles at 8192^3 fp16: even row-major, ~500 FLOP per byte from DRAM, over the sm_90
    # ridge (~295): compute-bound, no finding (the H200 measured 1.855 ms row-major, 1.846 grouped)
    assert _l2_finding({"M": 8192, "N": 8192, "K": 8192, "GROUP_SIZE_M": 1, "BLOCK_M": 128, "BLOCK_N": 128,
                        "BLOCK_K": 64, "num_warps": 8, "num_stages": 3}) == []
    # 16 x 16 tiles: a row-major wave spans every column panel of B -> under the ridge
    vals = {"M": 8192, "N": 8192, "K": 8192, "GROUP_SIZE_M": 1, "BLOCK_M": 16, "BLOCK_N": 16, "BLOCK_K": 16,
            "num_warps": 1, "num_stages": 2}
    (f,) = _l2_finding(vals)
    assert f.severity == "high" and f.evidence["b_panels"] == 512  # 8192 / 16: every column of tiles
    assert f.evidence["flop_per_byte"] < f.evidence["ridge"]
    assert f.evidence["grouped_gb"] < 0.4 * f.evidence["launch_gb"]
    assert _l2_finding({**vals, "GROUP_SIZE_M": f.proposal.changes["GROUP_SIZE_M"]}) == []


@pytest.mark.parametrize("name", ["vector_add", "vector_mul", "gelu", "layernorm", "softmax", "softmax_looped",
                                  "matmul", "attention"])
def test_catalog_kernels_at_their_defaults_raise_no_high_finding(name):
    a = advise(get_spec(name), {}, "sm_90", programs=2)
    assert a.error is None
    assert not a.high(), [f"{f.rule}: {f.title}" for f in a.high()]


def test_a_bad_value_comes_back_as_an_error_not_an_exception():
    a = why(WhyRequest(kernel="vector_add", values={"BLOCK_SIZE": "banana"}))
    assert a.error is not None and a.findings == []
    assert np.isfinite(tail_efficiency(1, 132, 1)[1])


def test_the_mini_sweep_measures_the_candidates_against_the_current_values():
    """The GPU path of a trial (kernels.advisor.trial.measure) through the engine's real tune
    sweep, here on the interpreter (wall-clock times, which only a GPU makes meaningful): the
    trial is marked measured, and its times are the sweep's for the current values and the
    fastest passing candidate."""
    from kernels.advisor.gather import gather
    from kernels.advisor.rules import vector_width
    from kernels.advisor.trial import candidates, measure
    from kernels.engine.sweep import sweep

    g = gather(get_spec("vector_add"), {"BLOCK_SIZE": 64, "N": 4096}, "sm_90", programs=1)
    (f,) = vector_width(g)
    seen = []

    def recording_sweep(req):
        res = sweep(req)
        seen.append(res)
        return res

    t = measure(g, f, recording_sweep, backend="interpreter")
    assert t.measured and t.passed and t.backend == "interpreter"
    times = {p.values["BLOCK_SIZE"]: p.timing.median_ms for p in seen[0].points if p.result.ok}
    assert set(times) == {64, *(c["BLOCK_SIZE"] for c in candidates(f))}
    assert t.current_ms == times[64]
    assert t.proposed_ms == min(v for k, v in times.items() if k != 64)
    assert t.changes["BLOCK_SIZE"] in {c["BLOCK_SIZE"] for c in candidates(f)}
    assert t.gain == pytest.approx(t.current_ms / t.proposed_ms)


def test_the_measured_timeline_decides_the_tail_on_a_gpu():
    """133 programs of 1 µs on 132 SMs, the 133rd after the first on SM 0: the SMs are busy
    133 / 264 of the span, and the whole second half is the tail (a schedule of known answer)."""
    from kernels.advisor.rules import measured_tail, tail
    from kernels.data.gpu_trace import Timeline

    sm = np.r_[np.arange(132), 0].astype(np.int32)
    start = np.r_[np.zeros(132), 1000].astype(np.int64)
    tl = Timeline(grid=(133, 1, 1), sm=sm, start_ns=start, end_ns=start + 1000, n_sms=132, programs_per_sm=1)
    m = measured_tail(tl)
    assert m["sm_busy"] == pytest.approx(133 / 264) and m["tail_share"] == pytest.approx(0.5)
    assert m["tail_busy"] == pytest.approx(1 / 132)
    # the same grid on the GPU with a balanced schedule: no tail finding, whatever the formula says
    vals = {"M": 896, "N": 4864, "K": 64, "BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64, "num_warps": 8,
            "num_stages": 3}
    spec = get_spec("matmul")
    cfg = spec.config(vals)
    limits = target_limits("sm_90")
    facts, _ = compile_for_target(spec, cfg, "sm_90", keep_asm=False, limits=limits)
    g = Gathered(spec=spec, cfg=cfg, target="sm_90", facts=facts, limits=limits, n_programs=133, timeline=tl)
    (f,) = tail(g)
    assert f.severity == "high" and f.needs_gpu and f.evidence["sm_busy"] == pytest.approx(133 / 264, abs=1e-3)
    even = Timeline(grid=(133, 1, 1), sm=sm, start_ns=np.zeros(133, np.int64), end_ns=np.full(133, 1000, np.int64),
                    n_sms=132, programs_per_sm=1)  # SM 0 ran two at once: nothing idled
    assert tail(Gathered(spec=spec, cfg=cfg, target="sm_90", facts=facts, limits=limits, n_programs=133,
                         timeline=even)) == []


def test_the_roofline_finding_places_a_timed_run_against_the_right_roof():
    """What a GPU run's metrics say (a RunResult built by hand with the numbers a run carries): a
    vector add at 1.2 TB/s of a 4.8 TB/s copy roof is memory-bound at 25 %; a matmul of 2 TFLOP
    over 100 MB at 600 of 800 TFLOP/s is compute-bound at 75 %."""
    from kernels.advisor.rules import roofline
    from kernels.data.results import Metrics, RunRequest, RunResult

    spec = get_spec("vector_add")
    facts, _ = compile_for_target(spec, {}, "sm_90", keep_asm=False)
    g = Gathered(spec=spec, cfg=spec.config({}), target="sm_90", facts=facts, limits=target_limits("sm_90"),
                 n_programs=facts.n_programs)

    def run(**metrics):
        return RunResult(request=RunRequest("x"), kernel="x", values={}, backend="gpu", device="H200",
                         metrics=Metrics(**metrics, peak_source="measured"))

    g.run = run(bytes_moved=3 << 30, flops=1 << 30, gbps=1200.0, peak_gbps=4800.0, peak_tflops=800.0,
                pct_peak_bw=25.0)
    (f,) = roofline(g)
    assert f.title.startswith("memory-bound at 25%") and f.severity == "medium" and f.needs_gpu
    g.run = run(bytes_moved=100 << 20, flops=2 * 10**12, tflops=600.0, peak_gbps=4800.0, peak_tflops=800.0,
                pct_peak_flops=75.0)
    (f,) = roofline(g)
    assert f.title.startswith("compute-bound at 75%") and f.severity == "info"
