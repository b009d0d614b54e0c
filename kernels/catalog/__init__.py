"""The bundled kernels. Importing this package registers every spec in ``kernels.spec.REGISTRY``."""

from . import elementwise  # noqa: F401  (vector add, vector mul)

__all__ = ["elementwise"]
