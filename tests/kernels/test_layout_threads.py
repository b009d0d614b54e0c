"""Which warp, lane and register hold each element, read from the compiled kernel.

The expected maps are written here by hand from the layouts' definitions (a blocked layout's
sizePerThread / threadsPerWarp / warpsPerCTA; the wgmma accumulator fragment of the PTX ISA), not
taken from Triton. What breaks if these fail: the Threads view and ``tilescope layout`` put
elements in the wrong warp or lane, and every coalescing number built on the map is wrong."""

from __future__ import annotations

import numpy as np
import pytest

from kernels.layout.service import layout_spec
from kernels.layout.threads import apply_bases, nvmma_offsets, shared_offsets, swizzled_offsets
from kernels.layout.ttgir import shared_linear_exposed, to_linear
from kernels.sources.lookup import get_spec


def _access(result, op):
    return next(a for a in result.accesses if a.op == op)


def test_vector_add_block_is_held_as_its_blocked_layout_says():
    # 1024 fp32 at 4 warps: Triton picks sizePerThread=[4] (128-bit vectors); 32 lanes x 4 = 128
    # consecutive elements per warp, 4 warps cover 512, the second 512 go to registers 4..7
    res = layout_spec(get_spec("vector_add"), {"BLOCK_SIZE": 1024, "num_warps": 4}, "sm_90", coalescing=False)
    load = _access(res, "load")
    assert load.layout.kind == "blocked"
    assert load.layout.params["size_per_thread"] == [4] and load.layout.params["warps_per_cta"] == [4]
    assert load.vector_bits == 128  # ld.global.v4.b32 in the PTX
    i = np.arange(1024)
    t = load.threads
    assert np.array_equal(t.warp, (i % 512) // 128)
    assert np.array_equal(t.lane, (i % 128) // 4)
    assert np.array_equal(t.register, i % 4 + 4 * (i // 512))
    assert t.n_holders.min() == t.n_holders.max() == 1
    assert t.holders(513) == [(0, 0, 5)]


def test_wgmma_accumulator_fragment_matches_the_ptx_isa_figure():
    # sm_90 fp16 matmul, 64x64 tile, 4 warps: wgmma m64nNk16, each warp owns 16 rows; in a row pair
    # (r, r+8) lane = 4 * (r % 8) + (c % 8) // 2 holds 2 adjacent columns, 4 registers per 8 columns
    res = layout_spec(get_spec("matmul"), {"M": 128, "N": 128, "K": 64, "dtype": "fp16"}, "sm_90",
                      coalescing=False)
    acc = _access(res, "accumulator")
    assert acc.layout.kind == "mma" and acc.layout.params["version"][0] == 3
    r, c = np.indices((64, 64))
    t = acc.threads
    assert np.array_equal(t.warp, r // 16)
    assert np.array_equal(t.lane, (r % 8) * 4 + (c % 8) // 2)
    assert np.array_equal(t.register, c % 2 + 2 * ((r % 16) // 8) + 4 * (c // 8))


def test_numpy_evaluation_of_the_bases_equals_triton_apply():
    # the thread map XORs Triton's bases with numpy; Triton's own LinearLayout.apply must agree
    from triton._C.libtriton import linear_layout

    res = layout_spec(get_spec("matmul"), {"M": 128, "N": 128, "K": 64, "dtype": "fp16"}, "sm_80",
                      coalescing=False)
    acc = _access(res, "accumulator")
    lin = to_linear(_gluon_layout(acc), acc.shape)
    ll = linear_layout.LinearLayout.from_bases(
        [("register", lin.reg_bases), ("lane", lin.lane_bases), ("warp", lin.warp_bases)], ["dim0", "dim1"],
        list(acc.shape), False)
    for w, ln, reg in [(0, 0, 0), (1, 5, 3), (3, 31, 31), (2, 17, 9)]:
        got = ll.apply({"register": reg, "lane": ln, "warp": w})
        flat = got["dim0"] * acc.shape[1] + got["dim1"]
        assert acc.threads.element_of[w, ln, reg] == flat
    regs = apply_bases(lin.reg_bases, 1 << len(lin.reg_bases), 2)
    assert [list(regs[k]) for k in range(4)] == [list(ll.apply({"register": k, "lane": 0, "warp": 0}).values())
                                                 for k in range(4)]


def _gluon_layout(access):
    """The Gluon layout object of a compiled access (rebuilt from its parameters)."""
    import triton.experimental.gluon.language as gl

    p = access.layout.params
    return gl.NVMMADistributedLayout(version=p["version"], warps_per_cta=p["warps_per_cta"],
                                     instr_shape=p["instr_shape"])


@pytest.mark.skipif(not shared_linear_exposed(), reason="this Triton's to_linear_layout cannot take a shared layout")
@pytest.mark.parametrize("shape", [(64, 32), (32, 64), (128, 64), (16, 256)])
def test_shared_swizzle_formulas_equal_triton_linear_layouts(shape):
    # Triton 3.6 aborts on to_linear_layout(shared): there Tilescope uses these formulas, so they
    # must give what Triton 3.9's linear layouts give
    import triton.experimental.gluon.language as gl

    for vec, per_phase, max_phase, order in [(8, 1, 8, [1, 0]), (4, 2, 4, [1, 0]), (1, 1, 1, [1, 0]),
                                             (8, 1, 8, [0, 1])]:
        want = shared_offsets(to_linear(gl.SwizzledSharedLayout(vec, per_phase, max_phase, order), shape), shape)
        assert np.array_equal(swizzled_offsets(shape, vec, per_phase, max_phase, order), want)
    for swizzle in (0, 32, 64, 128):
        for bits in (16, 32):
            for transposed in (False, True):
                contig = (shape[0] if transposed else shape[1]) * bits // 8
                if swizzle and (contig < swizzle or contig % swizzle):
                    continue
                layout = gl.NVMMASharedLayout(swizzle, bits, rank=2, transposed=transposed)
                want = shared_offsets(to_linear(layout, shape), shape)
                assert np.array_equal(nvmma_offsets(shape, swizzle, bits, transposed), want)
