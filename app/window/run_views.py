"""What a run shows: its point in the throughput plot, its check in the correctness panel, its
compile facts in the Compile tab — and all three emptied when another kernel is shown.

``RunViews`` follows ``RunShown`` and ``KernelShown`` (``app.events``); a click on a throughput
point hands that run's configuration to ``offer(what, kernel, values, backend)`` (the controller
shows it with a button that loads it)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kernels.data.backends import is_interpreter
from views.compile_view import CompileView
from views.correctness_view import CorrectnessView
from views.throughput_view import ThroughputView
from views.words import translate

from ..events import KernelShown, RunShown, WindowEvents
from .links import CheckTraceLink

__all__ = ["RunViews"]


class RunViews:
    def __init__(self, throughput: ThroughputView, correctness: CorrectnessView, compile_view: CompileView,
                 check_link: CheckTraceLink, events: WindowEvents,
                 offer: Callable[[str, str, dict[str, Any], str], Any]) -> None:
        self.throughput, self.correctness, self.compile_view = throughput, correctness, compile_view
        self._link, self._offer = check_link, offer
        self._checked: tuple[str, dict[str, Any], str] | None = None  # (kernel, values, backend) of the check shown
        throughput.pointClicked.connect(self._on_throughput_point)
        events.subscribe(KernelShown, self._on_kernel)
        events.subscribe(RunShown, self._on_run)

    def _on_kernel(self, e: KernelShown) -> None:
        if not e.new:
            return
        self.throughput.clear()
        self.throughput.set_metric(e.info.metric)
        self.correctness.set_check(None)
        self._checked = None
        self.correctness.set_programs_for_elements(None)
        self.compile_view.set_facts(None, translate("MainWindow", "No run yet."))

    def on_values(self, kernel: str | None, values: dict[str, Any], backend: str) -> None:
        """The panel's configuration now: the check shown is marked stale unless it is of these
        values (on the same kernel and backend)."""
        ran = self._checked
        if ran is None:
            return
        r_kernel, r_values, r_backend = ran
        common = set(r_values) & set(values)
        same = (kernel == r_kernel and backend == r_backend
                and all(str(r_values[k]) == str(values[k]) for k in common))
        self.correctness.set_stale(not same)

    def _on_run(self, e: RunShown) -> None:
        r = e.result
        self.throughput.add_result(r)
        self.correctness.set_check(r.check)
        self._checked = (r.kernel, dict(r.values), r.backend) if r.check is not None else None
        if is_interpreter(r.backend):
            self.compile_view.set_facts(None)
        else:
            self.compile_view.set_facts(r.compile, None if r.compile is not None else
                                        translate("MainWindow", "No compile facts: {why}").format(
                                            why=r.error.message if r.error else translate("MainWindow", "none reported")))
        self._link.update()

    def _on_throughput_point(self, index: int) -> None:
        results = self.throughput.results()
        if 0 <= index < len(results):
            r = results[index]
            self._offer(translate("MainWindow", "Run {n}").format(n=index + 1), r.kernel, r.values, r.backend)
