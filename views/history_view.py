"""HistoryView: every run so far, as a sortable table; reload one, compare two, export all.

Rows are plain dicts (see ``history_row`` for the keys; it builds one from a RunResult), so the
app's SQLite history can hand them over as they are stored. The view never reads or writes the
history itself: it emits ``reloadRequested``, ``compareRequested`` and ``exportRequested`` and the
app answers (``show_comparison`` for a compare).
"""

from __future__ import annotations

import datetime as _dt
import math
from typing import Any

from PySide6.QtCore import (
    QT_TRANSLATE_NOOP,
    QAbstractTableModel,
    QItemSelectionModel,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtGui import QBrush, QColor, QFont, QPainter
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableView,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from kernels.data.backends import NAMES as BACKEND_NAMES
from kernels.data.backends import is_interpreter

from . import theme
from .history_rows import history_row
from .i18n import translate
from .layout import column, row
from .preview import preview
from .word_filter import WordFilterProxy

__all__ = ["COLUMNS", "CompareDialog", "HistoryView", "history_row", "varying_parameters"]

SORT_ROLE = Qt.ItemDataRole.UserRole + 1
ID_ROLE = Qt.ItemDataRole.UserRole + 2
#: (key, header) of the table's columns: what a run gave first (its time and throughput), then the
#: parameters (those that differ between runs first), and what is the same for most runs last
COLUMNS: tuple[tuple[str, str], ...] = (
    ("ms", "ms"), ("spread", "p20–p80"), ("metric", QT_TRANSLATE_NOOP("HistoryView", "Metric")),
    ("params", QT_TRANSLATE_NOOP("HistoryView", "Parameters")), ("check", QT_TRANSLATE_NOOP("HistoryView", "Check")),
    ("kernel", QT_TRANSLATE_NOOP("HistoryView", "Kernel")),
    ("ratio_vs_torch", QT_TRANSLATE_NOOP("HistoryView", "vs torch")),
    ("clock", QT_TRANSLATE_NOOP("HistoryView", "SM clock")),
    ("backend", QT_TRANSLATE_NOOP("HistoryView", "Backend")), ("dtype", "dtype"),
    ("time", QT_TRANSLATE_NOOP("HistoryView", "Time")),
)
_COL = {key: c for c, (key, _) in enumerate(COLUMNS)}
#: the widest the parameters column starts (it elides on the right, where the unchanged ones are)
PARAMS_MAX_WIDTH = 300
#: words of the table's cells (the backend's and the check's), shown translated
CELL_WORDS = (QT_TRANSLATE_NOOP("HistoryView", "gpu"), QT_TRANSLATE_NOOP("HistoryView", "interpreter"),
              QT_TRANSLATE_NOOP("HistoryView", "pass"), QT_TRANSLATE_NOOP("HistoryView", "FAIL"),
              QT_TRANSLATE_NOOP("HistoryView", "error"))


def _tr(text: str) -> str:
    """``text`` (a word of ``COLUMNS`` or ``CELL_WORDS``) in the user's language."""
    return translate("HistoryView", text)


def _num(v: Any) -> float | None:
    if isinstance(v, bool) or v is None:
        return None
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return f if math.isfinite(f) else None


def _fmt_num(v: Any, digits: int = 4) -> str:
    f = _num(v)
    if f is None:
        return "—"
    if abs(f) >= 1000:
        return f"{f:,.0f}"
    return f"{f:.{digits}g}"


def _fmt_time(v: Any) -> str:
    f = _num(v)
    if f is None:
        return str(v or "")
    return _dt.datetime.fromtimestamp(f).strftime("%Y-%m-%d %H:%M:%S")


#: a spread this wide (p80 − p20 over the median) fills the spread column's bar
SPREAD_FULL = 0.10


def spread_fraction(row: dict[str, Any]) -> float | None:
    """(p80 − p20) / median of a row's timing, or None without one."""
    ms, lo, hi = _num(row.get("ms")), _num(row.get("p20_ms")), _num(row.get("p80_ms"))
    if not ms or lo is None or hi is None:
        return None
    return max(0.0, hi - lo) / ms


def _clock_text(row: dict[str, Any]) -> str:
    """The SM clock a GPU run was timed at ("1665 MHz *" when throttled); "?" when unknown."""
    c = row.get("clocks")
    if not isinstance(c, dict):
        return "—"
    if not c.get("source"):
        return "—" if is_interpreter(row.get("backend")) else "?"
    return f"{c.get('sm_mhz')} MHz" + (" *" if c.get("throttled") else "")


def _clocks_tip(row: dict[str, Any]) -> str:
    c = row.get("clocks")
    if not isinstance(c, dict):
        return ""
    if not c.get("source"):
        return c.get("note") or translate("HistoryView", "clocks unknown")
    parts = [f"SM {c.get('sm_mhz')}/{c.get('sm_max_mhz') or '?'} MHz",
             translate("HistoryView", "memory {mem} MHz").format(mem=c.get("mem_mhz"))]
    if c.get("temp_c") is not None:
        parts.append(f"{c['temp_c']} °C")
    if c.get("power_w") is not None:
        parts.append(f"{c['power_w']:.0f} W")
    text = translate("HistoryView", "clocks: ") + " · ".join(parts)
    if c.get("throttled"):
        text += "\n" + translate("HistoryView", "throttled: {why}").format(why=c.get("note") or "")
    return text


def _params_text(row: dict[str, Any], varying: tuple[str, ...] = ()) -> str:
    """``k=v`` of the row's parameters; those named in ``varying`` (the ones that differ between
    runs of this kernel) first, then " · " and the rest, so what changed is never elided away."""
    vals = {k: v for k, v in (row.get("values") or {}).items() if k != "dtype"}
    first = [f"{k}={vals[k]}" for k in varying if k in vals]
    rest = [f"{k}={v}" for k, v in vals.items() if k not in varying]
    if first and rest:
        return " ".join(first) + " · " + " ".join(rest)
    return " ".join(first or rest)


def varying_parameters(rows: list[dict[str, Any]]) -> dict[str, tuple[str, ...]]:
    """For each kernel, the parameters (dtype aside) whose value is not the same in all its rows."""
    seen: dict[str, dict[str, set[str]]] = {}
    for r in rows:
        per = seen.setdefault(str(r.get("kernel", "")), {})
        for k, v in (r.get("values") or {}).items():
            per.setdefault(k, set()).add(repr(v))
    return {kern: tuple(k for k, vs in per.items() if len(vs) > 1 and k != "dtype") for kern, per in seen.items()}


class _HistoryModel(QAbstractTableModel):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.rows: list[dict[str, Any]] = []
        self.varying: dict[str, tuple[str, ...]] = {}

    def set_rows(self, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Take ``rows``; returns the rows new to the table (all of them after a reset).

        When they are the rows shown plus new ones (the usual refresh after a
        run) only the new rows are inserted and the rows gone removed, so the sorting proxy
        places a handful of rows instead of re-sorting all of them (each comparison is a Python
        ``data`` call: a full re-sort of 500 rows took ~30 ms)."""
        new = [dict(r) for r in rows]
        varying, self.varying = self.varying, varying_parameters(new)
        if varying != self.varying and self.rows:  # the parameters shown first changed: every row's cell did
            col = _COL["params"]
            self.dataChanged.emit(self.index(0, col), self.index(len(self.rows) - 1, col))
        new_ids = [r.get("id") for r in new]
        old_at = {r.get("id"): i for i, r in enumerate(self.rows)}
        if (None in new_ids or None in old_at or len(set(new_ids)) != len(new_ids)
                or len(old_at) != len(self.rows)):
            self._reset(new)
            return new
        new_by_id = dict(zip(new_ids, new, strict=True))
        kept = [i for i in new_ids if i in old_at]
        if any(self.rows[old_at[i]] != new_by_id[i] for i in kept):
            self._reset(new)  # a row changed: simplest to start over
            return new
        kept_set = set(kept)
        for i in sorted((old_at[k] for k in old_at if k not in kept_set), reverse=True):
            self.beginRemoveRows(QModelIndex(), i, i)
            del self.rows[i]
            self.endRemoveRows()
        added = [r for r in new if r["id"] not in kept_set]
        if added:
            n = len(self.rows)
            self.beginInsertRows(QModelIndex(), n, n + len(added) - 1)
            self.rows.extend(added)
            self.endInsertRows()
        return added

    def _reset(self, rows: list[dict[str, Any]]) -> None:
        self.beginResetModel()
        self.rows = rows
        self.endResetModel()

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return _tr(COLUMNS[section][1])
        return None

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        row = self.rows[index.row()]
        key = COLUMNS[index.column()][0]
        if role == ID_ROLE:
            return row.get("id")
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(row, key, self.varying)
        if role == SORT_ROLE:
            if key in ("time", "ms", "metric", "ratio_vs_torch"):
                f = _num(row.get(key))
                return f if f is not None else -math.inf
            if key == "spread":
                f = spread_fraction(row)
                return f if f is not None else -math.inf
            if key == "clock":
                f = _num((row.get("clocks") or {}).get("sm_mhz")) if isinstance(row.get("clocks"), dict) else None
                return f if f is not None else -math.inf
            return self._display(row, key, self.varying)
        if role == Qt.ItemDataRole.ToolTipRole:
            lines = [translate("HistoryView", "run #{id} on {device}").format(id=row.get("id"),
                                                                              device=row.get("device", "?")),
                     _params_text(row, self.varying.get(str(row.get("kernel", "")), ()))]
            if _num(row.get("p20_ms")) is not None and _num(row.get("ms")) is not None:
                lines.append(translate("HistoryView", "median {ms} ms, p20–p80 {lo}–{hi} ms").format(
                    ms=_fmt_num(row.get("ms")), lo=_fmt_num(row.get("p20_ms")), hi=_fmt_num(row.get("p80_ms"))))
            lines.append(_clocks_tip(row))
            if row.get("error"):
                lines.append(translate("HistoryView", "error: {message}").format(message=row["error"]))
            return "\n".join(x for x in lines if x)
        if role == Qt.ItemDataRole.ForegroundRole and key == "check":
            c = row.get("check")
            if c in ("pass", True):
                return QBrush(QColor(theme.PASS))
            if c in ("fail", False) or row.get("error"):
                return QBrush(QColor(theme.FAIL))
        if role == Qt.ItemDataRole.ForegroundRole and key == "clock" and (row.get("clocks") or {}).get("throttled"):
            return QBrush(QColor(theme.ACCENT_WARN))
        if role == Qt.ItemDataRole.TextAlignmentRole and key in ("ms", "metric", "ratio_vs_torch", "spread", "clock"):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    @staticmethod
    def _display(row: dict[str, Any], key: str, varying: dict[str, tuple[str, ...]] | None = None) -> str:
        if key == "time":
            return _fmt_time(row.get("time"))
        if key == "params":
            return _params_text(row, (varying or {}).get(str(row.get("kernel", "")), ()))
        if key == "ms":
            return _fmt_num(row.get("ms"))
        if key == "spread":
            f = spread_fraction(row)
            return "—" if f is None else f"±{50 * f:.1f}%"
        if key == "clock":
            return _clock_text(row)
        if key == "metric":
            if row.get("metric") is None:
                return translate("HistoryView", "— (interpreter)") if is_interpreter(row.get("backend")) else "—"
            return f"{_fmt_num(row.get('metric'))} {row.get('metric_unit', '')}".strip()
        if key == "ratio_vs_torch":
            f = _num(row.get("ratio_vs_torch"))
            return "—" if f is None else f"{f:.2f}×"
        if key == "check":
            if row.get("error"):
                return _tr("error")
            c = row.get("check")
            word = {True: "pass", False: "FAIL", "pass": "pass", "fail": "FAIL"}.get(c)
            return _tr(word) if word else str(c or "—")
        if key == "backend" and row.get(key) in BACKEND_NAMES:
            return _tr(row[key])
        return str(row.get(key, ""))


class _SpreadDelegate(QStyledItemDelegate):
    """The spread column: a bar as wide as the run's p20–p80 spread (SPREAD_FULL fills it), the
    ±% over it — a noisy run stands out down the column."""

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex) -> None:
        super().paint(painter, option, index)
        row_id = index.data(ID_ROLE)
        model = index.model()
        src = model.sourceModel() if hasattr(model, "sourceModel") else model
        row = next((r for r in getattr(src, "rows", []) if r.get("id") == row_id), None)
        f = spread_fraction(row) if row is not None else None
        if f is None:
            return
        r = option.rect.adjusted(3, option.rect.height() - 6, -3, -2)
        painter.save()
        painter.fillRect(r.adjusted(0, 0, -int(r.width() * (1 - min(1.0, f / SPREAD_FULL))), 0),
                         QColor(theme.ACCENT_WARN if f > SPREAD_FULL / 2 else theme.TRITON))
        painter.restore()


class CompareDialog(QDialog):
    """Two runs side by side: configuration then metrics; rows that differ are highlighted."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Compare runs"))
        self.table = QTableWidget(0, 4, self)
        self.table.setHorizontalHeaderLabels(["", "A", "B", self.tr("difference")])
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.summary = QLabel("", self)
        self.summary.setWordWrap(True)
        close = QPushButton(self.tr("Close"), self)
        close.clicked.connect(self.close)
        lay = QVBoxLayout(self)
        lay.addWidget(self.summary)
        lay.addWidget(self.table, 1)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(close)
        lay.addLayout(row)
        self.resize(600, 520)
        self._differing: list[str] = []

    def set_runs(self, a: dict[str, Any], b: dict[str, Any]) -> None:
        run = self.tr("run #{id}")
        self.table.setHorizontalHeaderLabels(["", run.format(id=a.get("id", "A")), run.format(id=b.get("id", "B")),
                                              self.tr("difference")])
        va, vb = a.get("values") or {}, b.get("values") or {}
        names = list(va) + [k for k in vb if k not in va]
        rows: list[tuple[str, Any, Any, bool]] = [
            ("kernel", a.get("kernel"), b.get("kernel"), False),
            ("backend", a.get("backend"), b.get("backend"), False),
            ("device", a.get("device"), b.get("device"), False),
            ("time", _fmt_time(a.get("time")), _fmt_time(b.get("time")), False),
        ]
        rows += [(n, va.get(n, "—"), vb.get(n, "—"), False) for n in names]
        rows += [
            ("ms", a.get("ms"), b.get("ms"), True),
            (self.tr("metric ({unit})").format(unit=a.get("metric_unit", "")), a.get("metric"), b.get("metric"), True),
            ("vs torch", a.get("ratio_vs_torch"), b.get("ratio_vs_torch"), True),
            ("check", a.get("check") or "—", b.get("check") or "—", False),
            ("error", a.get("error") or "", b.get("error") or "", False),
        ]
        self.table.setRowCount(0)
        self._differing = []
        diff_brush = QBrush(QColor("#fff1b8"))
        bold = QFont()
        bold.setBold(True)
        for name, x, y, numeric in rows:
            if name == "error" and not x and not y:
                continue
            r = self.table.rowCount()
            self.table.insertRow(r)
            sx = _fmt_num(x) if numeric else str(x)
            sy = _fmt_num(y) if numeric else str(y)
            diff = ""
            if numeric:
                fx, fy = _num(x), _num(y)
                if fx is not None and fy is not None and fx != 0:
                    diff = f"{100 * (fy - fx) / abs(fx):+.1f}%"
            differs = sx != sy and name != "time"
            label = self._row_label(name) if name not in names else name
            cells = [QTableWidgetItem(label), QTableWidgetItem(sx), QTableWidgetItem(sy), QTableWidgetItem(diff)]
            for c, it in enumerate(cells):
                if differs:
                    it.setBackground(diff_brush)
                    if c:
                        it.setFont(bold)
                self.table.setItem(r, c, it)
            if differs:
                self._differing.append(name)
        params_changed = [n for n in self._differing if n in names]
        what = ", ".join(params_changed) if params_changed else self.tr("no parameter")
        self.summary.setText(self.tr("Run #{a} vs run #{b}: {what} changed. Highlighted rows differ; the "
                                     "difference column is B relative to A.").format(a=a.get("id"), b=b.get("id"),
                                                                                   what=what))

    def _row_label(self, name: str) -> str:
        """The first column's words for the rows every comparison has (their keys stay English)."""
        words = {"kernel": self.tr("kernel"), "backend": self.tr("backend"), "device": self.tr("device"),
                 "time": self.tr("time"), "vs torch": self.tr("vs torch"), "check": self.tr("check"),
                 "error": self.tr("error")}
        return words.get(name, name)

    def differing(self) -> list[str]:
        """Names of the rows that differ between the two runs (time excluded)."""
        return list(self._differing)


class HistoryView(QWidget):
    """Table of past runs.

    Signals:
      reloadRequested(int run_id): put that run's configuration back (Reload button, double-click).
      compareRequested(int id_a, int id_b): two rows selected and Compare pressed (older first).
      exportRequested(str path, str fmt): the user chose a file; fmt is "csv" or "json".
    """

    reloadRequested = Signal(int)
    compareRequested = Signal(int, int)
    exportRequested = Signal(str, str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        theme.configure()
        self._model = _HistoryModel(self)
        self._proxy = WordFilterProxy(self)
        self._proxy.setSortRole(SORT_ROLE)
        self._proxy.setSourceModel(self._model)
        self._dialog: CompareDialog | None = None

        self.filter_edit = QLineEdit(self)
        self.filter_edit.setPlaceholderText(self.tr("Filter runs (kernel, parameters, backend…)"))
        self.filter_edit.setClearButtonEnabled(True)
        self.filter_edit.textChanged.connect(self._proxy.set_query)
        self.table = QTableView(self)
        self.table.setModel(self._proxy)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(_COL["time"], Qt.SortOrder.DescendingOrder)  # newest first
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        self.table.verticalHeader().hide()
        self.table.setWordWrap(False)  # one line per run; the tooltip has the full parameters
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        hh = self.table.horizontalHeader()
        # Columns fit their contents, measured here from the text of the rows *added* (see
        # _fit_columns), not by Qt's ResizeToContents: that measures through Python data()
        # calls on every change — ~0.6 s per refresh at 500 rows over all rows, still 20–30 ms
        # with the precision cut to 40 rows — and a refresh comes with every run.
        hh.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        hh.setStretchLastSection(True)
        self._widths = [0] * len(COLUMNS)
        self._spread_delegate = _SpreadDelegate(self.table)
        self.table.setItemDelegateForColumn(_COL["spread"], self._spread_delegate)
        self.table.selectionModel().selectionChanged.connect(self._update_buttons)
        self.table.doubleClicked.connect(self._on_double_click)

        self.reload_button = QPushButton(theme.icon("reload"), self.tr("Reload run"), self)
        self.reload_button.setToolTip(self.tr("Put the selected run's configuration back in the parameter panel"))
        self.reload_button.clicked.connect(self._on_reload)
        self.compare_button = QPushButton(theme.icon("compare"), self.tr("Compare"), self)
        self.compare_button.setToolTip(self.tr("Select two runs to compare them side by side"))
        self.compare_button.clicked.connect(self._on_compare)
        self.export_button = QPushButton(theme.icon("export"), self.tr("Export…"), self)
        self.export_button.setToolTip(self.tr("Save the whole history as CSV or JSON"))
        self.export_button.clicked.connect(self._choose_export)
        self.count_label = QLabel("", self)

        column(self, self.filter_edit, (self.table, 1),
               row((self.count_label, 1), self.reload_button, self.compare_button, self.export_button))
        self._update_buttons()

    # -- public API ----------------------------------------------------------------------------
    def set_rows(self, rows: list[dict[str, Any]]) -> None:
        """Replace the table's rows (dicts with the keys ``history_row`` documents). Rows
        already shown keep their place and the selection; only new ones are measured."""
        self._fit_columns(self._model.set_rows(rows))
        n = len(rows)
        self.count_label.setText((self.tr("{n} run") if n == 1 else self.tr("{n} runs")).format(n=n))
        self._update_buttons()

    def rows(self) -> list[dict[str, Any]]:
        return [dict(r) for r in self._model.rows]

    def row_count(self) -> int:
        """Rows visible under the current filter."""
        return self._proxy.rowCount()

    def selected_ids(self) -> list[int]:
        """Run ids of the selected rows, in table order."""
        rows = sorted({i.row() for i in self.table.selectionModel().selectedRows()})
        return [int(self._proxy.index(r, 0).data(ID_ROLE)) for r in rows]

    def select_ids(self, ids: list[int]) -> None:
        """Select the rows of these run ids (as a user's ctrl-clicks would)."""
        sm = self.table.selectionModel()
        sm.clearSelection()
        for r in range(self._proxy.rowCount()):
            if self._proxy.index(r, 0).data(ID_ROLE) in ids:
                sm.select(self._proxy.index(r, 0), QItemSelectionModel.SelectionFlag.Select
                          | QItemSelectionModel.SelectionFlag.Rows)

    def show_comparison(self, a: dict[str, Any], b: dict[str, Any]) -> CompareDialog:
        """Open (or refresh) the side-by-side comparison of two rows; returns the dialog."""
        if self._dialog is None:
            self._dialog = CompareDialog(self)
        self._dialog.set_runs(a, b)
        self._dialog.show()
        self._dialog.raise_()
        return self._dialog

    def row_for(self, run_id: int) -> dict[str, Any] | None:
        return next((dict(r) for r in self._model.rows if r.get("id") == run_id), None)

    def closeEvent(self, event: Any) -> None:  # the comparison belongs to this panel: close it too
        if self._dialog is not None:
            self._dialog.close()
        super().closeEvent(event)

    # -- internals -----------------------------------------------------------------------------
    def _fit_columns(self, rows: list[dict[str, Any]]) -> None:
        """Widen the columns to the text of ``rows`` (never narrow them: a column that jumped
        back and forth as runs arrive would be harder to read than a wide one)."""
        fm, hfm = self.table.fontMetrics(), self.table.horizontalHeader().fontMetrics()
        hh = self.table.horizontalHeader()
        pad = 2 * self.table.style().pixelMetric(self.table.style().PixelMetric.PM_FocusFrameHMargin) + 12
        varying = self._model.varying
        for c, (key, header) in enumerate(COLUMNS):
            w = max([self._widths[c], hfm.horizontalAdvance(_tr(header)) + pad + 14]  # + the sort arrow
                    + [fm.horizontalAdvance(_HistoryModel._display(r, key, varying)) + pad for r in rows])
            if key == "params":  # at most this wide: what differs comes first, the rest may elide
                w = min(w, PARAMS_MAX_WIDTH)
            if w != self._widths[c]:
                self._widths[c] = w
                hh.resizeSection(c, w)

    def _update_buttons(self, *_: Any) -> None:
        n = len(self.table.selectionModel().selectedRows())
        self.reload_button.setEnabled(n == 1)
        self.compare_button.setEnabled(n == 2)
        self.export_button.setEnabled(bool(self._model.rows))

    def _on_reload(self) -> None:
        ids = self.selected_ids()
        if len(ids) == 1:
            self.reloadRequested.emit(ids[0])

    def _on_double_click(self, index: QModelIndex) -> None:
        rid = index.siblingAtColumn(0).data(ID_ROLE)
        if rid is not None:
            self.reloadRequested.emit(int(rid))

    def _on_compare(self) -> None:
        ids = self.selected_ids()
        if len(ids) == 2:
            a, b = sorted(ids)
            self.compareRequested.emit(a, b)

    def _choose_export(self) -> None:
        path, chosen = QFileDialog.getSaveFileName(self, self.tr("Export history"), "tilescope-history.csv",
                                                   self.tr("CSV table (*.csv);;JSON (*.json)"))
        if not path:
            return
        fmt = "json" if (path.lower().endswith(".json") or "json" in chosen.lower()) else "csv"
        if not path.lower().endswith("." + fmt):
            path += "." + fmt
        self.exportRequested.emit(path, fmt)


def _demo() -> QWidget:  # pragma: no cover - manual preview
    from .demo_results import demo_history_rows

    w = HistoryView()
    rows = demo_history_rows(8)
    w.set_rows(rows)
    by_id = {r["id"]: r for r in rows}
    w.compareRequested.connect(lambda a, b: w.show_comparison(by_id[a], by_id[b]))
    w.reloadRequested.connect(lambda i: print("reloadRequested", i))
    w.exportRequested.connect(lambda p, f: print("exportRequested", p, f))
    w.resize(900, 360)
    return w


if __name__ == "__main__":  # pragma: no cover
    preview(_demo)
