"""The engine: run one kernel configuration, sweep a grid of them, benchmark the catalog.

``run`` (``engine.run``), ``sweep`` (``engine.sweep``) and ``bench_all``
(``engine.catalog_bench``) all start at ``kernels.run.prepare.prepare``; memory planning is in
``kernels.run.memory``, spec lookup in ``kernels.sources.lookup``.
"""

from __future__ import annotations

from typing import Any

import torch
import triton

from ..data.backends import GPU, INTERPRETER
from ..run import backends
from ..run.memory import AllocationGuard, InputPlan, check_trace_size, plan_inputs
from ..sources.lookup import get_spec, infos, load_catalog
from .catalog_bench import bench_all, median_ratio
from .run import run
from .sweep import sweep

__all__ = [
    "AllocationGuard",
    "InputPlan",
    "bench_all",
    "check_trace_size",
    "describe_backends",
    "get_spec",
    "infos",
    "load_catalog",
    "median_ratio",
    "plan_inputs",
    "run",
    "sweep",
]


def describe_backends() -> dict[str, Any]:
    """What can run here: GPU available (and why not), device name, versions, bf16 probe."""
    ok, why = backends.gpu_status()
    probe = backends.bf16_probe()
    return {
        "gpu_available": ok,
        "gpu_reason": why,
        "device_name": torch.cuda.get_device_name() if ok else None,
        "default": GPU if ok else INTERPRETER,
        "triton_version": triton.__version__,
        "torch_version": torch.__version__,
        "interpreter_bf16_ok": probe.ok,
        "interpreter_bf16_detail": probe.detail,
    }
