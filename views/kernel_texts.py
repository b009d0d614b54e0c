"""The catalog kernels' titles and summaries, translated where the window shows them.

The catalog (``kernels/catalog``) writes its texts in English and must not import Qt; the views
show them through ``kernel_text``, which looks each one up in the context ``Kernels``. The words
are marked here for pyside6-lupdate, exactly as the catalog spells them
(``tests/views/test_kernel_texts.py`` fails when a catalog text has no entry here, so a changed
title cannot silently fall back to English). A user's own kernel has no entry: its words are shown
as written.
"""

from __future__ import annotations

from .words import QT_TRANSLATE_NOOP, translate

__all__ = ["KERNEL_TEXTS", "kernel_text"]

KERNEL_TEXTS = (
    QT_TRANSLATE_NOOP("Kernels", "Fused attention forward (FlashAttention)"),
    QT_TRANSLATE_NOOP("Kernels", "out = softmax(q k^T / sqrt(d)) v with online softmax over K/V blocks; "
                                 "optional causal mask"),
    QT_TRANSLATE_NOOP("Kernels", "Vector add"),
    QT_TRANSLATE_NOOP("Kernels", "out = x + y, one block of BLOCK_SIZE elements per program"),
    QT_TRANSLATE_NOOP("Kernels", "Vector mul"),
    QT_TRANSLATE_NOOP("Kernels", "out = x * y, the tutorials' first exercise"),
    QT_TRANSLATE_NOOP("Kernels", "GELU (erf or tanh approximation)"),
    QT_TRANSLATE_NOOP("Kernels", "out = gelu(x), elementwise; APPROX_TANH picks the tanh form over the exact erf form"),
    QT_TRANSLATE_NOOP("Kernels", "LayerNorm forward"),
    QT_TRANSLATE_NOOP("Kernels", "y = (x - mean) / sqrt(var + eps) * weight + bias over each row; also writes "
                                 "mean, rstd"),
    QT_TRANSLATE_NOOP("Kernels", "Matrix multiplication (tiled, grouped order)"),
    QT_TRANSLATE_NOOP("Kernels", "C = A @ B: one BLOCK_M x BLOCK_N tile of C per program, a K loop, fp32 accumulator"),
    QT_TRANSLATE_NOOP("Kernels", "Softmax (fused, one row per program)"),
    QT_TRANSLATE_NOOP("Kernels", "y = softmax(x) over each row of an (M, N) matrix; a whole row per program"),
    QT_TRANSLATE_NOOP("Kernels", "Softmax (looped, online max and sum)"),
    QT_TRANSLATE_NOOP("Kernels", "y = softmax(x) over rows of any width, in chunks of BLOCK_SIZE with an online "
                                 "max/sum"),
)


def kernel_text(text: str) -> str:
    """``text`` (a catalog kernel's title or summary) in the window's language."""
    return translate("Kernels", text) if text else text
