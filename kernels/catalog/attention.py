"""Fused attention forward, FlashAttention style (the forward pass of Triton tutorial 06).

out = softmax(q @ k^T * sm_scale [+ causal mask]) @ v for q, k, v of shape (BATCH, HEADS, N_CTX,
HEAD_DIM). The N_CTX x N_CTX score matrix is never written to memory: each program takes BLOCK_M
query rows and streams K and V in blocks of BLOCK_N, keeping a running row maximum, a running
row sum and an un-normalized output in registers (online softmax), and divides once at the end.
"""

from __future__ import annotations

import math

import torch
import triton
import triton.language as tl

from ..data.params import Param, Rule, block, dtype_param, flag, num_stages, num_warps, shape
from ..specs.spec import KernelSpec, register
from ._common import BF16_INTERPRETER_FAULT, ELEMENT_BYTES, TORCH_DTYPES, randn

__all__ = ["attention", "attn_fwd_kernel"]


@triton.jit
def attn_fwd_kernel(Q, K, V, Out, sm_scale,
                    stride_qz, stride_qh, stride_qm, stride_qd,
                    stride_kz, stride_kh, stride_kn, stride_kd,
                    stride_vz, stride_vh, stride_vn, stride_vd,
                    stride_oz, stride_oh, stride_om, stride_od,
                    H, N_CTX,
                    HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                    CAUSAL: tl.constexpr):
    start_m = tl.program_id(0)  # which block of BLOCK_M query rows
    off_hz = tl.program_id(1)  # which (batch, head) pair
    off_z = off_hz // H
    off_h = off_hz % H
    # int64 base offsets: batch * stride passes 2**31 on large inputs
    q_base = off_z.to(tl.int64) * stride_qz + off_h.to(tl.int64) * stride_qh
    k_base = off_z.to(tl.int64) * stride_kz + off_h.to(tl.int64) * stride_kh
    v_base = off_z.to(tl.int64) * stride_vz + off_h.to(tl.int64) * stride_vh
    o_base = off_z.to(tl.int64) * stride_oz + off_h.to(tl.int64) * stride_oh

    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)  # query rows of this program
    offs_n = tl.arange(0, BLOCK_N)  # key rows within a K/V block
    offs_d = tl.arange(0, HEAD_DIM)
    q_ptrs = Q + q_base + offs_m[:, None] * stride_qm + offs_d[None, :] * stride_qd
    k_ptrs = K + k_base + offs_n[:, None] * stride_kn + offs_d[None, :] * stride_kd
    v_ptrs = V + v_base + offs_n[:, None] * stride_vn + offs_d[None, :] * stride_vd

    # Running state per query row: m_i = max score so far, l_i = sum of exp(score - m_i),
    # acc = sum of exp(score - m_i) * v. Scores are kept in log2 units: exp(x) = exp2(x * log2 e),
    # and log2 e is folded into the scale so each score costs one multiply and one exp2.
    m_i = tl.full([BLOCK_M], -float("inf"), tl.float32)
    l_i = tl.full([BLOCK_M], 1.0, tl.float32)  # any value: the first block rescales it by 0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504  # 1/sqrt(HEAD_DIM) * log2(e)
    # q stays in registers for the whole loop; rows past N_CTX read zeros and are never stored
    q = tl.load(q_ptrs, mask=offs_m[:, None] < N_CTX, other=0.0)

    # Key blocks come in two kinds. Blocks that need no mask go through the first loop, which
    # has none; the few that do (the diagonal for CAUSAL, the ragged last block otherwise) go
    # through the second.
    if CAUSAL:
        # keys left of this query block are all visible; the block(s) on the diagonal need the
        # mask. Rounding down to a multiple of BLOCK_N keeps the loops on BLOCK_N boundaries when
        # BLOCK_N > BLOCK_M (when BLOCK_M is a multiple of BLOCK_N it changes nothing).
        unmasked_end = (start_m * BLOCK_M) // BLOCK_N * BLOCK_N
        masked_end = tl.minimum((start_m + 1) * BLOCK_M, N_CTX)
    else:
        unmasked_end = (N_CTX // BLOCK_N) * BLOCK_N  # whole blocks; the ragged tail is masked
        masked_end = N_CTX

    # -- loop 1: full blocks, no masks --------------------------------------------------------
    for start_n in range(0, unmasked_end, BLOCK_N):
        start_n = tl.multiple_of(start_n, BLOCK_N)
        k = tl.load(k_ptrs + start_n * stride_kn)
        qk = tl.dot(q, tl.trans(k))  # (BLOCK_M, BLOCK_N) raw scores, fp32
        m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)  # new running max
        qk = qk * qk_scale - m_ij[:, None]
        p = tl.math.exp2(qk)
        alpha = tl.math.exp2(m_i - m_ij)  # rescales what was summed under the old max
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = tl.load(v_ptrs + start_n * stride_vn)
        acc = tl.dot(p.to(v.dtype), v, acc)  # p in the input type, as tensor cores want
        m_i = m_ij

    # -- loop 2: blocks that need a mask (causal diagonal, or keys past N_CTX) ----------------
    for start_n in range(unmasked_end, masked_end, BLOCK_N):
        start_n = tl.multiple_of(start_n, BLOCK_N)
        key_ok = (start_n + offs_n) < N_CTX
        k = tl.load(k_ptrs + start_n * stride_kn, mask=key_ok[:, None], other=0.0)
        qk = tl.dot(q, tl.trans(k))
        visible = key_ok[None, :]
        if CAUSAL:
            visible = visible & (offs_m[:, None] >= start_n + offs_n[None, :])
        # -1e6 rather than -inf: a row whose keys are all hidden in this block keeps a finite
        # max, so exp2 gives 0 instead of NaN (every row saw a visible key in an earlier block)
        qk = qk * qk_scale + tl.where(visible, 0.0, -1.0e6)
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        qk = qk - m_ij[:, None]
        p = tl.math.exp2(qk)
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = tl.load(v_ptrs + start_n * stride_vn, mask=key_ok[:, None], other=0.0)
        acc = tl.dot(p.to(v.dtype), v, acc)
        m_i = m_ij

    acc = acc / l_i[:, None]  # the softmax denominator, applied once
    o_ptrs = Out + o_base + offs_m[:, None] * stride_om + offs_d[None, :] * stride_od
    tl.store(o_ptrs, acc.to(Out.dtype.element_ty), mask=offs_m[:, None] < N_CTX)


def _shape(cfg):
    return (cfg["BATCH"], cfg["HEADS"], cfg["N_CTX"], cfg["HEAD_DIM"])


def _make_inputs(cfg, device, gen):
    dt = TORCH_DTYPES[cfg["dtype"]]
    shp = _shape(cfg)
    return {
        "q": randn(shp, dt, device, gen),
        "k": randn(shp, dt, device, gen),
        "v": randn(shp, dt, device, gen),
        "out": torch.empty(shp, dtype=dt, device=device),
    }


def _sm_scale(cfg) -> float:
    return 1.0 / math.sqrt(cfg["HEAD_DIM"])


def _launch(K, t, cfg, grid):
    q, k, v, o = t["q"], t["k"], t["v"], t["out"]
    return K(attn_fwd_kernel)[grid](
        q, k, v, o, _sm_scale(cfg),
        *q.stride(), *k.stride(), *v.stride(), *o.stride(),
        cfg["HEADS"], cfg["N_CTX"],
        HEAD_DIM=cfg["HEAD_DIM"], BLOCK_M=cfg["BLOCK_M"], BLOCK_N=cfg["BLOCK_N"], CAUSAL=cfg["CAUSAL"],
        num_warps=cfg["num_warps"], num_stages=cfg["num_stages"],
    )


def _reference(t, cfg):
    """float64 softmax(q k^T * scale) v, a few (batch, head) pairs at a time to bound memory."""
    b, h, n, d = _shape(cfg)
    q, k, v = (t[name].double().reshape(b * h, n, d) for name in ("q", "k", "v"))
    out = torch.empty_like(q)
    chunk = max(1, (1 << 27) // (n * n))  # ~1 GiB of float64 scores per chunk
    hidden = None
    if cfg["CAUSAL"]:
        hidden = torch.ones(n, n, dtype=torch.bool, device=q.device).triu(1)  # key j > query i
    for s in range(0, b * h, chunk):
        scores = q[s:s + chunk] @ k[s:s + chunk].transpose(1, 2) * _sm_scale(cfg)
        if hidden is not None:
            scores.masked_fill_(hidden, float("-inf"))
        out[s:s + chunk] = torch.softmax(scores, dim=-1) @ v[s:s + chunk]
    return {"out": out.reshape(b, h, n, d)}


def _torch_op(t, cfg):
    return torch.nn.functional.scaled_dot_product_attention(
        t["q"], t["k"], t["v"], is_causal=cfg["CAUSAL"], scale=_sm_scale(cfg))


def _bytes(cfg):
    # q, k, v read once, out written once
    b, h, n, d = _shape(cfg)
    return 4 * b * h * n * d * ELEMENT_BYTES[cfg["dtype"]]


def _flops(cfg):
    # two matmuls (q k^T and p v) of 2*N*N*D each per (batch, head); causal skips half
    b, h, n, d = _shape(cfg)
    f = 4 * b * h * n * n * d
    return f // 2 if cfg["CAUSAL"] else f


def _cfg(bm, bn, warps, stages):
    return {"BLOCK_M": bm, "BLOCK_N": bn, "num_warps": warps, "num_stages": stages}


# tutorial 06's search space (BLOCK_M 64/128, BLOCK_N 32/64/128, 4 or 8 warps, 2-4 stages), minus
# the combinations it prunes (8 warps on tiles smaller than 128x128)
_AUTOTUNE = (
    _cfg(128, 64, 4, 3),
    _cfg(128, 64, 4, 4),
    _cfg(128, 64, 4, 2),
    _cfg(128, 128, 8, 3),
    _cfg(128, 128, 8, 2),
    _cfg(128, 32, 4, 4),
    _cfg(64, 64, 4, 3),
    _cfg(64, 32, 4, 4),
    _cfg(64, 128, 4, 3),
)

attention = register(KernelSpec(
    name="attention",
    title="Fused attention forward (FlashAttention)",
    summary="out = softmax(q k^T / sqrt(d)) v with online softmax over K/V blocks; optional causal mask",
    teaching=(
        "Program (i, bh) computes BLOCK_M rows of the output of one (batch, head). It keeps q in "
        "registers and streams K and V in blocks of BLOCK_N: scores = q @ k^T, a running max m and "
        "running sum l per row (old sums rescaled by exp(m_old - m_new) when the max grows), and "
        "acc += p @ v. Nothing of size N_CTX x N_CTX ever reaches memory, so the traffic is just "
        "q, k, v and out. exp2 replaces exp with log2(e) folded into the scale. Key blocks that "
        "need no mask (left of the diagonal when CAUSAL; every whole block otherwise) run in a "
        "mask-free loop; the diagonal and the ragged last block run in a second, masked loop. "
        "fp32 inputs use TF32 tensor cores in tl.dot. FLOPs: 4*B*H*N^2*D, halved when causal."
    ),
    kernels=(attn_fwd_kernel,),
    params=(
        block("BLOCK_M", 128, lo=16, hi=256, help="query rows per program (power of two, >= 16)"),
        block("BLOCK_N", 64, lo=16, hi=256, help="keys per inner-loop step (power of two, >= 16)"),
        num_warps(4),
        num_stages(3),
        shape("BATCH", 1, hi=1 << 16, help="batch size"),
        shape("HEADS", 4, hi=1 << 12, help="attention heads"),
        shape("N_CTX", 1000, hi=1 << 20, help="sequence length (queries = keys)"),
        Param("HEAD_DIM", "constexpr", 64, "size of each head's vectors", choices=(16, 32, 64, 128)),
        flag("CAUSAL", False, help="query i sees keys 0..i only"),
        dtype_param(("fp16", "bf16", "fp32"), default="fp16"),
    ),
    rules=(
        Rule("N_CTX * HEAD_DIM < 2**31",
             "N_CTX * HEAD_DIM must stay below 2**31 (int32 offsets within a head)", ("N_CTX",)),
    ),
    make_inputs=_make_inputs,
    grid_exprs=("cdiv(N_CTX, BLOCK_M)", "BATCH * HEADS"),
    launch=_launch,
    reference=_reference,
    torch_op=_torch_op,
    outputs=("out",),
    bytes_moved=_bytes,
    flops=_flops,
    metric="TFLOP/s",
    # fp32: scores and p @ v go through TF32 (10-bit mantissa) in tl.dot; fp16/bf16: p is
    # rounded to the input type before p @ v, as in every FlashAttention
    tolerances={"fp32": (2e-3, 2e-3), "fp16": (1e-2, 1e-2), "bf16": (5e-2, 5e-2)},
    autotune_configs=_AUTOTUNE,
    bench_cases=tuple(
        {"BATCH": 4, "HEADS": 32, "N_CTX": 4096, "HEAD_DIM": 64, "CAUSAL": causal, "dtype": "fp16",
         **_cfg(128, 64, 4, 3)}
        for causal in (False, True)
    ),
    interpreter_faults={"bf16": BF16_INTERPRETER_FAULT},
))
