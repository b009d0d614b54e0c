"""The bundled kernels. Importing this package registers every spec in ``kernels.specs.spec.REGISTRY``.

attention: fused attention forward (FlashAttention style); elementwise: vector add and mul;
gelu: GELU, erf or tanh form; layernorm: LayerNorm forward; matmul: tiled matmul in grouped
order; softmax: row softmax, fused (one block per row) and looped (online max and sum).
"""

from . import attention, elementwise, gelu, layernorm, matmul, softmax

__all__ = ["attention", "elementwise", "gelu", "layernorm", "matmul", "softmax"]
