"""SweepTable: every point of a sweep in one table, ranked, with its compile facts.

Ranked points come first, group by group (points of other shapes or dtypes are other problems,
each with its own winner), fastest first, with their p20–p80 spread, how much slower than the
winner, and whether that is within the noise. Then the points without a time: failed ones with
their error, pruned ones with the reason they were skipped before compiling. A column per swept
parameter; registers, spills, shared memory and occupancy when the runs report them (GPU),
the estimate made before compiling when there is one. Headers sort; clicking a row emits the
point's values so the window can load them into the parameter panel.

Above the table: the verdicts, the pace (configs per minute) and what was pruned; below it, two
buttons that save the sweep's exports (an ``@triton.autotune`` decorator, a
``torch.library.triton_op`` module) to a file. The rows come from ``views.sweep_data``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import (
    QT_TRANSLATE_NOOP,
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableView,
    QWidget,
)

from kernels.data.results import SweepPoint, SweepResult

from . import theme
from .layout import column, row
from .preview import preview
from .sweep_data import TableRow, is_interpreter, point_values, ranking_of, table_rows
from .words import translate

__all__ = ["EXPORT_KINDS", "SweepTable"]

#: export name -> (button text, file name, file filter)
EXPORT_KINDS = {
    "autotune": (QT_TRANSLATE_NOOP("SweepTable", "Save @triton.autotune…"), "autotune_configs.py", "Python (*.py)"),
    "triton_op": (QT_TRANSLATE_NOOP("SweepTable", "Save triton_op module…"), "tuned_op.py", "Python (*.py)"),
}
_SORT = Qt.ItemDataRole.UserRole + 1
_REFRESH_MS = 100  # a table of a few hundred rows is rebuilt at most ten times a second
_Index = QModelIndex | QPersistentModelIndex


def _num(v: float | None, digits: int = 4) -> str:
    return "-" if v is None else f"{v:.{digits}g}"


class _Columns:
    """The columns a sweep's rows fill: (title, text of a row, sort key of a row)."""

    def __init__(self, names: list[str], rows: list[TableRow], metric: str, interp: bool, grouped: bool) -> None:
        facts = set().union(*(r.facts for r in rows)) if rows else set()
        cols: list[tuple[str, Any, Any]] = [(translate("SweepTable", "rank"), lambda r: "" if r.rank is None else str(r.rank),
                                             lambda r: (r.rank is None, r.rank or 0))]
        if grouped:
            cols.append((translate("SweepTable", "group"), lambda r: r.group, lambda r: r.group))
        for n in names:
            cols.append((n, lambda r, n=n: str(r.values.get(n, "")), lambda r, n=n: _key(r.values.get(n))))
        cols += [(translate("SweepTable", "median ms"), lambda r: _num(r.median_ms), lambda r: _opt(r.median_ms)),
                 ("p20–p80 ms", lambda r: "-" if r.p20_ms is None else f"{r.p20_ms:.4g}–{r.p80_ms:.4g}",
                  lambda r: _opt(r.p20_ms)),
                 (translate("SweepTable", "reps"), lambda r: f"{r.n_reps}{' ↻' if r.remeasured else ''}" if r.n_reps else "-",
                  lambda r: r.n_reps),
                 (translate("SweepTable", "× best"), lambda r: "-" if r.ratio_to_best is None else f"{r.ratio_to_best:.2f}×",
                  lambda r: _opt(r.ratio_to_best))]
        if not interp:
            cols.append((metric, lambda r: _num(r.figure), lambda r: _opt(r.figure)))
        for key, title, digits in (("regs", translate("SweepTable", "regs"), 0),
                                   ("spills", translate("SweepTable", "spills"), 0),
                                   ("shared", translate("SweepTable", "shared B"), 0),
                                   ("occupancy", translate("SweepTable", "occupancy %"), 0),
                                   ("compile_s", translate("SweepTable", "compile s"), 2),
                                   ("est_shared_bytes", translate("SweepTable", "est. shared B"), 0)):
            if key in facts:
                cols.append((title, lambda r, k=key, d=digits: _fact(r.facts.get(k), d),
                             lambda r, k=key: _opt(r.facts.get(k))))
        if "limiter" in facts:
            cols.append((translate("SweepTable", "limited by"), lambda r: r.facts.get("limiter", ""), lambda r: r.facts.get("limiter", "")))
        cols.append((translate("SweepTable", "note"), lambda r: r.note, lambda r: r.note))
        self.titles = [c[0] for c in cols]
        self.text = [c[1] for c in cols]
        self.sort = [c[2] for c in cols]


def _key(v: Any) -> Any:
    return (0, v, "") if isinstance(v, (int, float)) and not isinstance(v, bool) else (1, 0, str(v))


def _opt(v: Any) -> Any:
    return (v is None, v if v is not None else 0)


def _fact(v: Any, digits: int) -> str:
    if v is None:
        return "-"
    return f"{v:,.{digits}f}" if isinstance(v, float) else f"{v:,}"


class _Model(QAbstractTableModel):
    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.rows: list[TableRow] = []
        self.cols = _Columns([], [], "GB/s", False, False)

    def set_rows(self, rows: list[TableRow], cols: _Columns) -> None:
        self.beginResetModel()
        self.rows, self.cols = rows, cols
        self.endResetModel()

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: N802, B008 (Qt's API)
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: N802, B008 (Qt's API)
        return 0 if parent.isValid() else len(self.cols.titles)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:  # noqa: N802
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return self.cols.titles[section]
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        r = self.rows[index.row()]
        c = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self.cols.text[c](r)
        if role == _SORT:
            return _SortKey(self.cols.sort[c](r))
        if role == Qt.ItemDataRole.ToolTipRole and self.cols.titles[c] == "note":
            return r.note or None
        if role == Qt.ItemDataRole.ForegroundRole:
            if r.state == "failed":
                return QBrush(QColor(theme.FAIL))
            if r.state in ("pruned", "untimed"):
                return QBrush(QColor("#777777"))
        if role == Qt.ItemDataRole.BackgroundRole and r.rank is not None:
            if r.rank == 1:
                return QBrush(theme.qcolor(theme.PASS, 60))
            if r.within_noise:
                return QBrush(QColor("#fff4c2"))
        if role == Qt.ItemDataRole.FontRole and r.rank == 1:
            f = QFont()
            f.setBold(True)
            return f
        return None


class _SortKey:
    """Wraps a Python sort key so Qt's proxy compares it with Python's ``<``."""

    def __init__(self, key: Any) -> None:
        self.key = key

    def __lt__(self, other: _SortKey) -> bool:
        try:
            return self.key < other.key
        except TypeError:
            return str(self.key) < str(other.key)


class _Proxy(QSortFilterProxyModel):
    def lessThan(self, a: _Index, b: _Index) -> bool:  # noqa: N802 (Qt's name)
        return bool(self.sourceModel().data(a, _SORT) < self.sourceModel().data(b, _SORT))


class SweepTable(QWidget):
    """The ranked points of a sweep. Signals: pointClicked(dict) — every value of the clicked
    row's point; exportSaved(str kind, str path) — an export was written."""

    pointClicked = Signal(dict)
    exportSaved = Signal(str, str)

    def __init__(self, metric: str = "GB/s", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._metric = metric
        self._names: list[str] = []
        self._data_names: list[str] = []
        self._points: list[SweepPoint] = []
        self._result: SweepResult | None = None
        self._timer = QTimer(self)  # points streaming in share a refresh
        self._timer.setSingleShot(True)
        self._timer.setInterval(_REFRESH_MS)
        self._timer.timeout.connect(self._refresh)

        self.summary = QLabel(self.tr("No sweep yet."), self)
        self.summary.setObjectName("sweep_table_summary")
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.model = _Model(self)
        self.proxy = _Proxy(self)
        self.proxy.setSourceModel(self.model)
        self.view = QTableView(self)
        self.view.setObjectName("sweep_table")
        self.view.setMinimumSize(60, 40)  # a small dock must not push the window's minimum size up
        self.view.setModel(self.proxy)
        self.view.setSortingEnabled(True)
        self.view.sortByColumn(-1, Qt.SortOrder.AscendingOrder)  # the model's order: ranked first
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.setAlternatingRowColors(False)
        self.view.verticalHeader().hide()
        self.view.verticalHeader().setDefaultSectionSize(self.view.fontMetrics().height() + 6)
        self.view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.view.horizontalHeader().setStretchLastSection(True)
        self.view.clicked.connect(self._on_clicked)
        self.export_buttons: dict[str, QPushButton] = {}
        for kind, (text, _file, _filter) in EXPORT_KINDS.items():
            b = QPushButton(theme.icon("export"), self.tr(text), self)
            b.setObjectName(f"export_{kind}")
            b.setEnabled(False)
            b.clicked.connect(lambda _c=False, k=kind: self._choose_export(k))
            self.export_buttons[kind] = b
        self.export_note = QLabel("", self)
        self.export_note.setObjectName("export_note")
        column(self, self.summary, (self.view, 1),
               row(*self.export_buttons.values(), (self.export_note, 1)))

    # -- public API ----------------------------------------------------------------------------
    def set_metric(self, metric: str) -> None:
        self._metric = metric
        self._refresh()

    def clear(self) -> None:
        self.begin([])

    def begin(self, names: list[str], data_names: list[str] | None = None) -> None:
        """A new sweep over ``names``; ``data_names`` (its shapes, dtypes, flags) group the ranking."""
        self._names, self._data_names = list(names), list(data_names or [])
        self._points, self._result = [], None
        self.export_note.setText("")
        self._refresh()

    def add_point(self, point: SweepPoint) -> None:
        """One more point of the running sweep (shown within ``_REFRESH_MS``, or at ``flush``)."""
        self._points.append(point)
        if not self._timer.isActive():
            self._timer.start()

    def flush(self) -> None:
        """Show the points added so far now."""
        if self._timer.isActive():
            self._timer.stop()
            self._refresh()

    def set_result(self, result: SweepResult, points: list[SweepPoint] | None = None) -> None:
        """The finished sweep (``points``: all of them when the result holds only a resumed part)."""
        self._names = result.names or list(result.request.axes) or self._names
        self._points = list(points if points is not None else result.points)
        self._result = result
        self._refresh()

    def rows(self) -> list[TableRow]:
        """The rows in the order shown (after any sort by a header)."""
        self.flush()
        return [self.model.rows[self.proxy.mapToSource(self.proxy.index(i, 0)).row()]
                for i in range(self.proxy.rowCount())]

    def column_titles(self) -> list[str]:
        return list(self.model.cols.titles)

    def text(self, row_: int, title: str) -> str:
        """What row ``row_`` (as shown) says under ``title``."""
        return str(self.proxy.index(row_, self.model.cols.titles.index(title)).data())

    def exports(self) -> dict[str, str]:
        return dict(self._result.exports) if self._result is not None else {}

    def save_export(self, kind: str, path: str | Path) -> Path:
        """Write the sweep's ``kind`` export ("autotune" or "triton_op") to ``path``."""
        text = self.exports().get(kind)
        if not text:
            raise ValueError(f"this sweep has no {kind} export (a tune sweep with a passing point makes one)")
        out = Path(path)
        out.write_text(text, encoding="utf-8")
        self.export_note.setText(self.tr("saved {what} to {path}").format(what=kind, path=out))
        self.exportSaved.emit(kind, str(out))
        return out

    # -- internals -----------------------------------------------------------------------------
    def _refresh(self) -> None:
        self._timer.stop()
        interp = is_interpreter(self._points)
        ranking = ranking_of(self._result, self._points, self._data_names)
        rows = table_rows(self._points, ranking, self._metric, interp)
        cols = _Columns(self._names, rows, self._metric, interp, any(e.group for e in ranking))
        widths_known = self.model.cols.titles == cols.titles
        self.model.set_rows(rows, cols)
        if not widths_known:
            self.view.resizeColumnsToContents()
        for kind, b in self.export_buttons.items():
            b.setEnabled(bool(self.exports().get(kind)))
            b.setToolTip(self.tr("Write the sweep's {kind} export to a file").format(kind=kind) if b.isEnabled()
                         else self.tr("A tune sweep with a passing point makes this export"))
        self.summary.setText(self._summary_text(interp))

    def _summary_text(self, interp: bool) -> str:
        if not self._names and not self._points:
            return self.tr("No sweep yet.")
        res = self._result
        n = len(self._points)
        pruned = sum(1 for p in self._points if p.pruned)
        failed = sum(1 for r in self.model.rows if r.state == "failed")
        parts = [self.tr("{n} points").format(n=n)]
        if pruned:
            parts.append(self.tr("{n} pruned before compiling").format(n=pruned))
        if failed:
            parts.append(self.tr("{n} failed").format(n=failed))
        if res is not None and res.filtered:
            parts.append(self.tr("{n} removed by constraints").format(n=res.filtered))
        total = res.phases.get("total", 0.0) if res is not None else 0.0
        if total > 0:
            parts.append(self.tr("{rate:.0f} configs/minute").format(rate=60.0 * (n - pruned) / total))
        lines = [" · ".join(parts) + (" · " + self.tr("interpreter wall clock, not GPU speed") if interp else "")]
        if res is not None:
            lines += res.verdicts
        elif n:
            lines.append(self.tr("running… (ranked by first measurements until the sweep ends)"))
        return "\n".join(lines)

    def _on_clicked(self, index: QModelIndex) -> None:
        if not index.isValid():
            return
        r = self.model.rows[self.proxy.mapToSource(index).row()]
        self.pointClicked.emit(point_values(self._points[r.index]))

    def _choose_export(self, kind: str) -> None:
        _text, file, filt = EXPORT_KINDS[kind]
        path, _ = QFileDialog.getSaveFileName(self, self.tr("Save export"), file, filt)
        if path:
            try:
                self.save_export(kind, path)
            except OSError as e:
                self.export_note.setText(self.tr("could not save: {why}").format(why=e.strerror or e))


def _demo() -> QWidget:  # pragma: no cover - manual preview
    from .sweep_demo import demo_sweep_tune

    w = SweepTable("TFLOP/s")
    w.set_result(demo_sweep_tune())
    w.resize(1100, 560)
    return w


if __name__ == "__main__":  # pragma: no cover
    preview(_demo)
