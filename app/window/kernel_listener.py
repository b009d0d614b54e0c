"""A controller listener (``app.controller.SweepListener``) that follows only the kernel shown:
sweeps and runs are ignored. The Compile tab's target chooser (``compile_target``) and the
per-kernel traces (``kernel_traces``) are such listeners."""

from __future__ import annotations

from typing import Any

from kernels.data.results import KernelInfo, RunResult

__all__ = ["KernelShownListener"]


class KernelShownListener:
    """Subclasses say what a newly shown kernel does (``kernel_shown``); every other event of
    ``Controller.listeners`` does nothing."""

    def kernel_shown(self, info: KernelInfo) -> None:
        pass

    def run_shown(self, r: RunResult) -> None:
        pass

    def sweep_started(self, *_: Any) -> None:
        pass

    def sweep_point(self, *_: Any) -> None:
        pass

    def sweep_finished(self, *_: Any) -> None:
        pass
