"""The plot tabs on the right: Throughput, and Sweep — the sweep plot, built after the first frame
(its two plots cost a tenth of a second or more that the window's first appearance need not wait
for); the tuning tabs (``sweep_tabs``) and the Timeline (``timeline_dock``) add theirs.

``PlotTabs`` follows ``SweepStarted``, ``SweepPointAdded`` and ``KernelShown`` (``app.events``);
``sweepPointClicked(dict)`` carries a clicked sweep point's values."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QLabel, QTabWidget, QWidget

from views.sweep_view import SweepView
from views.throughput_view import ThroughputView
from views.words import translate

from ..events import KernelShown, SweepPointAdded, SweepStarted, WindowEvents
from .exports import export_image

__all__ = ["PlotTabs"]


class PlotTabs(QObject):
    """``tabs`` is the tab widget; ``metric()`` the shown kernel's metric (None: no kernel)."""

    sweepPointClicked = Signal(object)

    def __init__(self, throughput: ThroughputView, events: WindowEvents, metric: Callable[[], str | None],
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.throughput, self._metric = throughput, metric
        self._sweep_view: SweepView | None = None
        self.tabs = QTabWidget()
        self.tabs.setObjectName("plot_tabs")
        self.tabs.addTab(throughput, translate("MainWindow", "Throughput"))
        self._sweep_placeholder = QLabel(translate(
            "MainWindow", "Run a sweep (Sweep…) to see throughput against the swept parameters."))
        self._sweep_placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._sweep_placeholder.setWordWrap(True)  # one long line would set the right column's width
        self.tabs.addTab(self._sweep_placeholder, translate("MainWindow", "Sweep"))
        self.tabs.currentChanged.connect(lambda i: self.sweep_view if i == 1 else None)
        events.subscribe(KernelShown, self._on_kernel)
        events.subscribe(SweepStarted, self._on_sweep_started)
        events.subscribe(SweepPointAdded, self._on_point)

    @property
    def sweep_view(self) -> SweepView:
        """The sweep plot, built on first use (or right after the first frame)."""
        if self._sweep_view is None:
            view = SweepView()
            view.pointClicked.connect(lambda values: self.sweepPointClicked.emit(values))
            metric = self._metric()
            if metric is not None:
                view.set_metric(metric)
            current = self.tabs.currentIndex()
            self.tabs.blockSignals(True)
            self.tabs.removeTab(1)
            self.tabs.insertTab(1, view, translate("MainWindow", "Sweep"))
            self.tabs.setCurrentIndex(current)
            self.tabs.blockSignals(False)
            self._sweep_placeholder.deleteLater()
            self._sweep_view = view
        return self._sweep_view

    def best_point(self) -> tuple[int, ...] | None:
        return self.sweep_view.best_index()

    def _on_kernel(self, e: KernelShown) -> None:
        if e.new:
            self.sweep_view.clear()
            self.sweep_view.set_metric(e.info.metric)

    def _on_sweep_started(self, e: SweepStarted) -> None:
        if not e.resumed:
            self.sweep_view.clear()
            self.sweep_view.set_metric(e.info.metric)
        self.tabs.setCurrentWidget(self.sweep_view)

    def _on_point(self, e: SweepPointAdded) -> None:
        if len(e.axes) <= 2:  # more: the Heatmap and Ranking tabs only (app.window.sweep_tabs)
            self.sweep_view.add_point(e.point, e.axes)

    def export(self, parent: QWidget, report: Callable[[str], object]) -> None:
        """Export plot…: the plot of the tab shown as PNG / SVG."""
        view = self.tabs.currentWidget()
        name = "sweep" if view is self.sweep_view else "throughput"
        export_image(parent, translate("MainWindow", "Export plot"), f"{name}.png", view.export,
                     translate("MainWindow", "plot"), report)
