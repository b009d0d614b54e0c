"""Tilescope's Qt widgets: they draw plain data (numpy arrays, dataclasses) and emit signals.

No torch and no triton here, not even indirectly: the GUI process must start fast and survive
without them. Each widget module is runnable alone with demo data (``python -m views.grid_view``;
the traces in ``views.demo`` are recordings of real kernels). Submodules are not imported here so
that importing one widget does not pull in the others.
"""

__all__: list[str] = []
