"""The tuning views in the window's plot tabs: Heatmap, Ranking and Roofline.

``SweepTabs`` adds three tabs beside Throughput and Sweep and follows the controller's events
(``app.events``: ``SweepStarted``, ``SweepPointAdded``, ``SweepFinished``, ``RunShown``,
``KernelShown``): a sweep starting lays out the
heatmap and the table, each point lands in all three views, the finished sweep brings the
engine's ranking, verdicts and exports, and every run shown joins the roofline. Clicking a cell,
a row or a point loads that point's values into the parameter panel (``load_point``: the
controller's).

Each view is built the first time it is needed (its tab shown, or a sweep starting): a pyqtgraph
plot costs a tenth of a second or more that the window's first frame need not wait for. Until
then a placeholder holds the tab, and what the view would have been told is kept to replay.

A sweep of more than two parameters (or a tune sweep) brings the Heatmap tab to the front; the
Sweep tab's curve and heatmap keep one or two parameters.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QLabel, QTabWidget, QWidget

from kernels.data.results import KernelInfo, RunResult, SweepPoint, SweepRequest, SweepResult
from views.roofline_view import RooflineView
from views.sweep_heatmap import SweepHeatmap
from views.sweep_table import SweepTable
from views.sweep_view import SweepView

from ..events import KernelShown, RunShown, SweepFinished, SweepPointAdded, SweepStarted, WindowEvents

__all__ = ["SweepTabs"]

_DATA_KINDS = ("shape", "dtype", "flag")


class SweepTabs(QObject):
    """Heatmap, Ranking and Roofline tabs of ``tabs``; ``sweep_view()`` is the Sweep tab's plot
    (its empty text names these tabs for a sweep of more than two parameters)."""

    def __init__(self, tabs: QTabWidget, events: WindowEvents, load_point: Callable[[dict[str, Any]], Any],
                 sweep_view: Callable[[], SweepView], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._load_point, self._sweep_view = load_point, sweep_view
        self.tabs = tabs
        self._built: dict[str, QWidget] = {}
        self._holders: dict[str, QLabel] = {}
        for key, title, text in (
                ("heatmap", self.tr("Heatmap"), self.tr("Sweep three or more parameters (Sweep…, Add a parameter) "
                                                        "to see any two of them here.")),
                ("table", self.tr("Ranking"), self.tr("Run a sweep to rank its points.")),
                ("roofline", self.tr("Roofline"), self.tr("Run the kernel to place it on the roofline."))):
            holder = QLabel(text)
            holder.setAlignment(Qt.AlignmentFlag.AlignCenter)
            holder.setWordWrap(True)
            self._holders[key] = holder
            self.tabs.addTab(holder, title)
        self.tabs.currentChanged.connect(self._on_tab)
        # what the views are told, kept to replay into a view built later
        self._metric = "GB/s"
        self._names: list[str] = []
        self._axes: dict[str, list[Any]] = {}
        self._data_names: list[str] = []
        self._points: list[SweepPoint] = []
        self._result: SweepResult | None = None
        self._runs: list[RunResult] = []
        self._empty_text: str | None = None
        events.subscribe(SweepStarted, lambda e: None if e.resumed else self.sweep_started(e.request, e.info))
        events.subscribe(SweepPointAdded, lambda e: self.sweep_point(e.point))
        events.subscribe(SweepFinished, lambda e: self.sweep_finished(e.result, list(e.points)))
        events.subscribe(RunShown, lambda e: self.run_shown(e.result))
        events.subscribe(KernelShown, lambda e: self.kernel_shown(e.info) if e.new else None)

    # -- the views -----------------------------------------------------------------------------
    @property
    def heatmap(self) -> SweepHeatmap:
        return self._view("heatmap")  # type: ignore[return-value]

    @property
    def table(self) -> SweepTable:
        return self._view("table")  # type: ignore[return-value]

    @property
    def roofline(self) -> RooflineView:
        return self._view("roofline")  # type: ignore[return-value]

    def _view(self, key: str) -> QWidget:
        view = self._built.get(key)
        if view is not None:
            return view
        view = {"heatmap": lambda: SweepHeatmap(self._metric), "table": lambda: SweepTable(self._metric),
                "roofline": RooflineView}[key]()
        view.pointClicked.connect(self._load_point)  # type: ignore[attr-defined]
        self._built[key] = view
        self._replay(key)
        holder = self._holders.pop(key)
        i = self.tabs.indexOf(holder)
        current = self.tabs.currentIndex()
        self.tabs.blockSignals(True)
        self.tabs.removeTab(i)
        self.tabs.insertTab(i, view, self._title(key))
        self.tabs.setCurrentIndex(current)
        self.tabs.blockSignals(False)
        holder.deleteLater()
        return view

    def _title(self, key: str) -> str:
        return {"heatmap": self.tr("Heatmap"), "table": self.tr("Ranking"), "roofline": self.tr("Roofline")}[key]

    def _replay(self, key: str) -> None:
        if key == "heatmap":
            self.heatmap.begin(self._names, self._axes)
            self._feed(self.heatmap)
        elif key == "table":
            self.table.begin(self._names, self._data_names)
            self._feed(self.table)
        else:
            self.roofline.set_runs(self._runs)
            self.roofline.set_sweep(self._points, self._best())

    def _feed(self, view: SweepHeatmap | SweepTable) -> None:
        if self._result is not None:
            view.set_result(self._result, self._points)
        else:
            for p in self._points:
                view.add_point(p)

    def _best(self) -> int | None:
        res = self._result
        if res is None or res.best is None:
            return None
        values = res.points[res.best].values
        return next((i for i, p in enumerate(self._points) if p.values == values), None)

    def _on_tab(self, index: int) -> None:
        for key, holder in list(self._holders.items()):
            if self.tabs.widget(index) is holder:
                self._view(key)

    def show(self, key: str) -> None:
        """Bring a tuning view's tab to the front ("heatmap", "table", "roofline")."""
        self.tabs.setCurrentWidget(self._view(key))

    # -- the controller's events ---------------------------------------------------------------------------
    def sweep_started(self, request: SweepRequest, info: KernelInfo) -> None:
        names = list(request.axes) + [k for c in request.configs for k in c if k not in request.axes]
        self._names = list(dict.fromkeys(names))
        self._axes = {k: list(v) for k, v in request.axes.items()}
        params = {p.name: p for p in info.params}
        self._data_names = [n for n in self._names if n in params and params[n].kind in _DATA_KINDS]
        self._metric = info.metric
        self._points, self._result = [], None
        for key in self._built:
            self._set_metric(key)
            self._replay(key)
        self._sweep_view_note(self.tr("This sweep has {n} parameters: see the Heatmap (any two of them) and "
                                      "Ranking tabs.").format(n=len(self._names)) if len(self._names) > 2 else None)
        if len(self._names) > 2 or request.mode == "tune":
            self.show("heatmap")

    def sweep_point(self, point: SweepPoint) -> None:
        self._points.append(point)
        if "heatmap" in self._built:
            self.heatmap.add_point(point)
        if "table" in self._built:
            self.table.add_point(point)
        if "roofline" in self._built:
            self.roofline.add_sweep_point(point)

    def sweep_finished(self, result: SweepResult, points: list[SweepPoint]) -> None:
        """``points``: every point streamed (a resumed sweep's earlier ones too). The result's own
        carry the re-measurements and are in its ranking's order: they win where they exist."""
        if len(result.points) == len(points):
            self._points = list(result.points)
        else:
            final = {repr(p.values): p for p in result.points}
            self._points = [final.get(repr(p.values), p) for p in points]
        self._result = result
        for key in self._built:
            if key == "roofline":
                self.roofline.set_sweep(self._points, self._best())
            else:
                self._built[key].set_result(result, self._points)  # type: ignore[attr-defined]

    def run_shown(self, r: RunResult) -> None:
        self._runs.append(r)
        if "roofline" in self._built:
            self.roofline.add_run(r)

    def kernel_shown(self, info: KernelInfo) -> None:
        self._metric = info.metric
        self._names, self._axes, self._data_names = [], {}, []
        self._points, self._result, self._runs = [], None, []
        for key in self._built:
            self._set_metric(key)
            self._replay(key)
        self._sweep_view_note(None)

    def _sweep_view_note(self, text: str | None) -> None:
        """What the Sweep tab says while it has nothing to draw (None: its own words)."""
        empty = self._sweep_view().empty
        if self._empty_text is None:
            self._empty_text = empty.text()
        empty.setText(text or self._empty_text)

    def _set_metric(self, key: str) -> None:
        view = self._built[key]
        if hasattr(view, "set_metric"):
            view.set_metric(self._metric)
