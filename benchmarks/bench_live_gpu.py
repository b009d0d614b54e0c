"""Click → point on the throughput plot, in the real window with a real worker process.

    QT_QPA_PLATFORM=offscreen python3 benchmarks/bench_live_gpu.py --backend gpu --out live_gpu.json
    PYTHONPATH=. .venv/bin/python benchmarks/bench_live_gpu.py --backend interpreter --small --out /tmp/live.json

For each kernel (vector add N=2^26 fp32, matmul 4096³ fp16, attention at the catalog's defaults;
``--small``: sizes the interpreter runs in about a second) it opens the kernel in
``app.main_window.MainWindow`` (the worker is the real child process), sets the values and
clicks the toolbar's Run button with ``QTest.mouseClick``, then:

- ``cold``: the first run of those shapes (inputs built, references computed, the torch baseline
  timed, the configuration compiled);
- ``changed`` ×3: the same shapes and dtype with another block size or ``num_warps``; a new
  configuration is compiled by Triton on the GPU unless its disk cache has it;
- ``same`` ×3: the last configuration again (nothing new to compile);
- ``revisit`` ×3 (unless ``--no-revisit``): the three changed configurations again, compiled by now
  (a user going back and forth between settings);
- ``ahead`` ×3 (unless ``--no-ahead``): three more configurations, none of them run before, typed
  into the parameter panel's editors key by key (``QTest.keyClicks``, so the panel's
  ``valuesChanged`` fires as for a user's edit and compile ahead, ``app.window.compile_ahead``,
  schedules a ``precompile`` after its ``DEBOUNCE_MS``), then ``--think`` seconds (default 1.5: a
  user reading the screen) with the event loop running, then Run as above. On the GPU backend
  the worker compiles the configuration during that time; on the interpreter nothing is sent.

For each run it records: ``point_s``, click → the new point is in the plot's data (the
throughput view's Triton line holds one more point; polled every millisecond on the GUI thread, so
it is seen only once the GUI thread is free again); ``painted_s``, the same plus one synchronous
repaint of the plot; ``gui_s``, click → the result reached the window (``show_run`` called);
``show_run_ms``, the GUI thread's time inside ``show_run`` (throughput, correctness map, compile
facts), split into ``check_ms`` and ``compile_ms``; ``worker_s``, the worker's own wall time for
the run (``RunResult.wall_s``); the check (PASS/FAIL), the median and the rep count of the timing,
and the error map's shape as shipped. An ``ahead`` run also records ``edit`` ("typed", or
"set_values" where typing did not give the values), ``ahead_sent`` (a ``precompile`` went out for
the edit: ``CompileAhead.sent`` grew), ``ahead_sent_s`` (last keystroke → sent), ``ahead_status``
(the worker's answer: "queued", "compiling already", …), ``ahead_ready_s`` (last keystroke → the
worker's ``ping`` says nothing is compiling any more; polled every 50 ms from 50 ms after the
send, so within ~50 ms plus a round trip; a "no" is believed from 0.1 s after the send, or once a
ping saw the compile running, so a shorter compile shows as ~0.1 s after ``ahead_sent_s``) and
``ahead_compiling`` (the ``ping`` just before the click: True when the compile had not finished,
and the Run waits for it in the worker). A finished compile may have failed: the worker does not
say (the Run then compiles it itself, which shows in ``point_s``).

``--shots DIR``: after a kernel's runs, the whole window (``grab()``) with the Throughput tab
shown, in the window's default arrangement, at 1366×768 and 1920×1080:
``DIR/live_<kernel>_<w>x<h>.png``; the window's size and arrangement are put back after.

Settings and history go to a temporary folder; the cache folder (device peaks, measured once per
device) is the user's unless ``--fresh-cache``. Prints a table; ``--out`` writes it all as JSON.
Exit status 1 when a run failed, timed out or did not PASS.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from harness import isolate_this_process, poll_until

#: kernel -> (values of the cold run, the three changes tried after it, the three changes typed
#: for compile ahead: none of them run before); full sizes (GPU). Each change is applied to the
#: cold run's values. The ahead configs stay within Triton's tutorial search spaces (shared
#: memory well under an H100's 228 KiB: matmul 64×128×64 ×3 stages 72 KiB, 128×128×32 ×4 stages
#: 64 KiB, 128×128×64 ×4 stages 128 KiB)
Case = tuple[dict[str, Any], list[dict[str, Any]], list[dict[str, Any]]]
CASES: dict[str, Case] = {
    "vector_add": ({"N": 1 << 26, "dtype": "fp32", "BLOCK_SIZE": 1024, "num_warps": 4},
                   [{"BLOCK_SIZE": 2048}, {"num_warps": 8}, {"BLOCK_SIZE": 4096, "num_warps": 8}],
                   [{"BLOCK_SIZE": 512}, {"num_warps": 2}, {"BLOCK_SIZE": 8192}]),
    "matmul": ({"M": 4096, "N": 4096, "K": 4096, "dtype": "fp16", "BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64,
                "GROUP_SIZE_M": 8, "num_warps": 8, "num_stages": 3},
               [{"num_warps": 4}, {"BLOCK_K": 32}, {"BLOCK_N": 64, "num_warps": 4}],
               [{"BLOCK_M": 64, "num_warps": 4}, {"BLOCK_K": 32, "num_warps": 4, "num_stages": 4},
                {"num_stages": 4}]),
    "attention": ({}, [{"BLOCK_N": 32}, {"num_warps": 8}, {"BLOCK_M": 64}],  # the catalog's defaults
                  [{"num_stages": 2}, {"BLOCK_N": 32, "num_stages": 4}, {"BLOCK_M": 64, "BLOCK_N": 128}]),
}
#: the same for ``--small`` (the interpreter runs each in about a second on a laptop core)
SMALL: dict[str, Case] = {
    "vector_add": ({"N": 1 << 22, "dtype": "fp32", "BLOCK_SIZE": 1 << 14, "num_warps": 4},
                   [{"BLOCK_SIZE": 1 << 15}, {"num_warps": 8}, {"BLOCK_SIZE": 1 << 16, "num_warps": 8}],
                   [{"BLOCK_SIZE": 1 << 13}, {"num_warps": 2}, {"BLOCK_SIZE": 1 << 13, "num_warps": 8}]),
    "matmul": ({"M": 256, "N": 256, "K": 256, "dtype": "fp16", "BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32,
                "num_warps": 4},
               [{"BLOCK_K": 64}, {"num_warps": 8}, {"BLOCK_M": 128, "num_warps": 8}],
               [{"BLOCK_N": 128}, {"num_warps": 2}, {"BLOCK_M": 32, "BLOCK_K": 64}]),
    "attention": ({"BATCH": 1, "HEADS": 2, "N_CTX": 256, "HEAD_DIM": 64, "BLOCK_M": 64, "BLOCK_N": 64},
                  [{"BLOCK_N": 32}, {"num_warps": 8}, {"BLOCK_M": 32}],
                  [{"num_stages": 2}, {"BLOCK_N": 128}, {"BLOCK_M": 32, "BLOCK_N": 32}]),
}
#: the window sizes of ``--shots``
SHOT_SIZES = ((1366, 768), (1920, 1080))


def _isolate(fresh_cache: bool) -> str:
    """Settings and history (and with ``fresh_cache`` the cache folder) in a temporary folder."""
    return str(isolate_this_process("tilescope-live-", keep_cache=not fresh_cache))


def _until(pred, timeout: float, step_ms: int = 1) -> bool:
    """Run the event loop until ``pred()`` holds; False after ``timeout`` seconds."""
    return poll_until(pred, timeout, step_ms=step_ms)


class _GuiClock:
    """Times what the GUI thread does with a result: wraps the window's ``show_run`` and the two
    heavy views' setters (instance attributes: the controller calls them through the window)."""

    def __init__(self, win: Any) -> None:
        self.marks: dict[str, float] = {}
        self.spent: dict[str, float] = {}
        self._wrap(win, "show_run", "show_run")
        self._wrap(win.correctness, "set_check", "check")
        self._wrap(win.compile_view, "set_facts", "compile")

    def _wrap(self, obj: Any, name: str, key: str) -> None:
        inner = getattr(obj, name)

        def timed(*args: Any, **kwargs: Any) -> Any:
            t0 = time.perf_counter()
            self.marks.setdefault(key, t0)
            try:
                return inner(*args, **kwargs)
            finally:
                self.spent[key] = self.spent.get(key, 0.0) + time.perf_counter() - t0

        setattr(obj, name, timed)

    def reset(self) -> None:
        self.marks.clear()
        self.spent.clear()


def _plotted(win: Any) -> int:
    x, _ = win.throughput.triton_line.getData()
    return 0 if x is None else len(x)


def _run_button(win: Any) -> Any:
    from PySide6.QtWidgets import QToolBar

    for tb in win.findChildren(QToolBar):
        w = tb.widgetForAction(win.run_action)
        if w is not None:
            return w
    return None


def _click_run(win: Any, clock: _GuiClock, timeout: float) -> dict[str, Any]:
    """Click Run once and time the way to the plotted point; waits until the window is idle."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    if not _until(lambda: win.run_action.isEnabled() and not win._busy_kinds(), timeout):
        return {"error": f"the window did not become ready within {timeout:g} s"}
    n_results, n_points = len(win.throughput.results()), _plotted(win)
    clock.reset()
    button = _run_button(win)
    t0 = time.perf_counter()
    if button is not None:
        QTest.mouseClick(button, Qt.MouseButton.LeftButton)
    else:
        win.run_action.trigger()
    got = _until(lambda: _plotted(win) > n_points or len(win.throughput.results()) > n_results, timeout)
    t_point = time.perf_counter()
    if not got:
        win.cancel()
        _until(lambda: not win._busy_kinds(), 30)
        return {"error": f"no result within {timeout:g} s"}
    rec: dict[str, Any] = {}
    if _plotted(win) <= n_points:  # a result without a point: see whether the flush was pending
        win.throughput.flush()
    if _plotted(win) > n_points:
        rec["point_s"] = t_point - t0
        win.throughput.plot.repaint()
        rec["painted_s"] = time.perf_counter() - t0
    _until(lambda: not win._busy_kinds(), timeout)
    if "show_run" in clock.marks:
        rec["gui_s"] = clock.marks["show_run"] - t0
    for key in ("show_run", "check", "compile"):
        rec[f"{key}_ms"] = round(1e3 * clock.spent.get(key, 0.0), 1)
    results = win.throughput.results()
    if len(results) > n_results:
        rec.update(_describe(results[-1]))
    if "point_s" not in rec and "error" not in rec:
        rec["error"] = "the result has no point to plot"
    return rec


def _describe(r: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"worker_s": round(r.wall_s, 4), "device": r.device}
    if r.error is not None:
        out["error"] = f"{r.error.kind}: {r.error.message}"
    if r.check is not None:
        out["check"] = "PASS" if r.check.passed else "FAIL"
        em = r.check.error_map
        out["error_map"] = list(em.shape) if em is not None else None
        out["error_map_bytes"] = int(em.nbytes) if em is not None else 0
    if r.timing is not None:
        out["median_ms"] = r.timing.median_ms
        out["p20_ms"], out["p80_ms"], out["n_reps"] = r.timing.p20_ms, r.timing.p80_ms, r.timing.n_reps
    if r.compile is not None:
        out["asm_chars"] = sum(len(v) for v in r.compile.asm.values())
    return out


class _AheadProbe:
    """What compile ahead did for one edit: whether ``CompileAhead`` sent a ``precompile``, the
    worker's answer to it, and (through ``ping``, answered at once by the worker's reader thread)
    when the worker stopped compiling."""

    def __init__(self, win: Any) -> None:
        self.win = win
        self.ca = getattr(getattr(win, "gpu_views", None), "compile_ahead", None)
        self.answers: dict[int, tuple[float, Any]] = {}  # generation -> (when, payload)
        self.t_edit = self.sent_at = self.ready_at = 0.0
        self.n_sent = 0
        self.seen_compiling = False
        win.worker.result.connect(self._on_result)
        if self.ca is not None:  # connected after CompileAhead's own send(): runs after it
            self.ca.timer.timeout.connect(self._on_timeout)

    def _on_result(self, gen: int, kind: str, payload: Any) -> None:
        if kind in ("ping", "precompile"):
            self.answers[gen] = (time.perf_counter(), payload)

    def _on_timeout(self) -> None:
        if self.t_edit and not self.sent_at and self.sent():
            self.sent_at = time.perf_counter()

    def sent(self) -> bool:
        return self.ca is not None and len(self.ca.sent) > self.n_sent

    def before_edit(self, timeout: float) -> None:
        """Let an earlier edit's debounce end (its precompile goes out or not), then start counting."""
        if self.ca is not None:
            _until(lambda: not self.ca.timer.isActive(), timeout)
        self.n_sent = len(self.ca.sent) if self.ca is not None else 0
        self.t_edit = self.sent_at = self.ready_at = 0.0
        self.seen_compiling = False

    def ping(self, timeout: float = 10.0) -> dict | None:
        gen = self.win.worker.submit("ping")
        if not _until(lambda: gen in self.answers, timeout):
            return None
        payload = self.answers.pop(gen)[1]
        return payload if isinstance(payload, dict) else None

    def think(self, seconds: float) -> None:
        """``seconds`` from the last keystroke with the event loop running; once the precompile
        is out, a ping every 50 ms until the worker is done compiling."""
        from PySide6.QtTest import QTest

        end = self.t_edit + seconds
        while (now := time.perf_counter()) < end:
            if self.sent_at and not self.ready_at and now - self.sent_at >= 0.05:
                self._look(self.ping(min(10.0, max(0.5, end - now))))
            QTest.qWait(max(1, min(50, int(1e3 * (end - time.perf_counter())))))

    def _look(self, ans: dict | None) -> None:
        if ans is None:
            return
        if ans.get("precompiling"):
            self.seen_compiling = True
        elif self.seen_compiling or time.perf_counter() - self.sent_at >= 0.1:  # the thread had time to start
            self.ready_at = time.perf_counter()

    def record(self) -> dict[str, Any]:
        """The fields of an ``ahead`` run, from a last ping (just before the click)."""
        last = self.ping()
        sent = self.sent()
        rec: dict[str, Any] = {"ahead_sent": sent if self.ca is not None else None,
                               "ahead_compiling": None if last is None else bool(last.get("precompiling"))}
        if sent:
            gen = self.ca.sent[-1]
            rec["ahead_sent_s"] = round(self.sent_at - self.t_edit, 4) if self.sent_at else None
            status = self.answers.pop(gen, (0.0, None))[1]
            rec["ahead_status"] = status.get("status") if isinstance(status, dict) else None
            if not self.ready_at and rec["ahead_compiling"] is False:
                self.ready_at = time.perf_counter()
            rec["ahead_ready_s"] = round(self.ready_at - self.t_edit, 4) if self.ready_at else None
        return rec


def _type_values(panel: Any, values: dict[str, Any]) -> str:
    """Change the panel's editors to ``values`` as a user does: select the field's text and type
    the new one (spin boxes, text fields), pick the item (combo boxes), toggle (check boxes).
    Each keystroke goes through the editor's signal, so the panel validates and emits
    ``valuesChanged`` as it does for a user. "typed", or "set_values" when typing did not give
    ``values`` (then ``panel.set_values`` put them in)."""
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QAbstractSpinBox, QCheckBox, QComboBox, QLineEdit

    shown = panel.values()
    for k, v in values.items():
        if k in shown and shown[k] == v:
            continue
        try:
            ed = panel.editor(k)
        except KeyError:
            continue
        if isinstance(ed, (QAbstractSpinBox, QLineEdit)):
            ed.selectAll()
            QTest.keyClicks(ed, str(v))
        elif isinstance(ed, QComboBox):
            ed.setCurrentIndex(max(0, ed.findData(v)))
        elif isinstance(ed, QCheckBox):
            ed.setChecked(bool(v))
    now = panel.values()
    if all(now.get(k) == v for k, v in values.items() if k in now) and panel.is_valid():
        return "typed"
    panel.set_values(values)
    return "set_values"


def _ahead_run(win: Any, clock: _GuiClock, probe: _AheadProbe, values: dict[str, Any], think: float,
               timeout: float) -> dict[str, Any]:
    """Type ``values`` into the panel, think, click Run (see the module doc)."""
    if not _until(lambda: win.run_action.isEnabled() and not win._busy_kinds(), timeout):
        return {"error": f"the window did not become ready within {timeout:g} s"}
    probe.before_edit(timeout)
    rec: dict[str, Any] = {"edit": _type_values(win.panel, values)}
    probe.t_edit = time.perf_counter()
    probe.think(think)
    rec.update(probe.record())
    rec.update(_click_run(win, clock, timeout))
    return rec


def _settle(ms: int = 300) -> None:
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    QApplication.processEvents()
    QTest.qWait(ms)


def _shoot(win: Any, folder: Path, kernel: str) -> list[str]:
    """The whole window with the Throughput tab shown, at each of ``SHOT_SIZES``, in the window's
    default arrangement (``Docks.default_state``: at 1366×768 the panels then have the sizes of a
    window opened at that size; the 1600×1000 arrangement shrunk would squeeze the plot to a
    strip). Then the size and the arrangement of the runs come back. The paths written (with
    the grabbed size where the window did not take the size asked for)."""
    folder.mkdir(parents=True, exist_ok=True)
    size, state = win.size(), win.saveState()
    dock = win.docks.plots
    dock.show()
    dock.raise_()
    win.plot_tabs.setCurrentWidget(win.throughput)
    win.throughput.flush()
    made = []
    for w, h in SHOT_SIZES:
        win.resize(w, h)
        _settle(100)
        if not win.docks.default_state.isEmpty():
            win.restoreState(win.docks.default_state)
        win.plot_tabs.setCurrentWidget(win.throughput)
        _settle()
        path = folder / f"live_{kernel}_{w}x{h}.png"
        img = win.grab()
        img.save(str(path))
        got = (img.width(), img.height())
        made.append(str(path) + ("" if got == (w, h) else f" (grabbed {got[0]}×{got[1]})"))
    win.resize(size)
    _settle(100)
    win.restoreState(state)
    _settle(100)
    return made


def _bench_kernel(win: Any, clock: _GuiClock, probe: _AheadProbe, name: str, case: Case,
                  args: argparse.Namespace) -> list[dict[str, Any]]:
    base, changes, ahead = case
    win.select_kernel(name)
    win.set_backend(args.backend)
    info = win.session.infos[name]
    values = {p.name: p.default for p in info.params}
    values.update(base)
    plan: list[tuple[str, dict[str, Any]]] = [("cold", {})]
    plan += [("changed", ch) for ch in changes]
    plan += [("same", changes[-1])] * 3
    if not args.no_revisit:
        plan += [("revisit", ch) for ch in changes]
    if not args.no_ahead:
        plan += [("ahead", ch) for ch in ahead]
    runs = []
    for i, (phase, change) in enumerate(plan):
        v = {**values, **change}
        rec = {"kernel": name, "run": i + 1, "phase": phase, "change": change}
        if phase == "ahead":
            rec.update(_ahead_run(win, clock, probe, v, args.think, args.timeout))
        else:
            win.panel.set_values(v)  # one validation, one valuesChanged: Run follows at once
            rec.update(_click_run(win, clock, args.timeout))
        runs.append(rec)
        _print_row(rec)
    return runs


_COLS = (("kernel", 10, "{}"), ("run", 3, "{}"), ("phase", 7, "{}"), ("change", 26, "{}"),
         ("point_s", 7, "{:.3f}"), ("painted_s", 9, "{:.3f}"), ("gui_s", 6, "{:.3f}"), ("worker_s", 8, "{:.3f}"),
         ("show_run_ms", 11, "{:.1f}"), ("check_ms", 8, "{:.1f}"), ("compile_ms", 10, "{:.1f}"),
         ("check", 5, "{}"), ("median_ms", 9, "{:.4g}"), ("n_reps", 6, "{}"), ("error_map", 12, "{}"),
         ("ahead", 14, "{}"))


def _cell(rec: dict[str, Any], key: str, fmt: str) -> str:
    if key == "ahead":
        return _ahead_cell(rec)
    v = rec.get(key)
    if v is None:
        return "—"
    if key == "change":
        return ",".join(f"{k}={x}" for k, x in v.items()) or "(base)"
    if key == "error_map":
        return "×".join(map(str, v))
    return fmt.format(v)


def _ahead_cell(rec: dict[str, Any]) -> str:
    """"not sent"; "sent, done 0.84s" (ready that long after the last keystroke); "sent, busy"
    (still compiling at the click); "—" outside the ahead phase."""
    if rec.get("phase") != "ahead" or "ahead_sent" not in rec:
        return "—"
    if not rec["ahead_sent"]:
        return "not sent"
    if rec.get("ahead_compiling"):
        return "sent, busy"
    ready = rec.get("ahead_ready_s")
    return f"sent, done {ready:.2f}s" if ready is not None else "sent, done"


def _print_header() -> None:
    print("  ".join(k.ljust(w) for k, w, _ in _COLS), flush=True)


def _print_row(rec: dict[str, Any]) -> None:
    line = "  ".join(_cell(rec, k, f).ljust(w) for k, w, f in _COLS)
    if rec.get("error"):
        line += f"  ERROR {rec['error']}"
    print(line, flush=True)


def _summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Per kernel and phase: the median and the largest click → point; for ``ahead`` also how many
    precompiles were sent and how many had finished before the click."""
    out: dict[str, Any] = {}
    for r in runs:
        if "point_s" in r:
            out.setdefault(r["kernel"], {}).setdefault(r["phase"], []).append(r["point_s"])
    summary = {k: {ph: {"median_s": round(statistics.median(v), 4), "max_s": round(max(v), 4), "n": len(v)}
                   for ph, v in phases.items()} for k, phases in out.items()}
    for k, phases in summary.items():
        ahead = [r for r in runs if r["kernel"] == k and r["phase"] == "ahead"]
        if "ahead" in phases:
            phases["ahead"]["sent"] = sum(bool(r.get("ahead_sent")) for r in ahead)
            phases["ahead"]["done_before_click"] = sum(bool(r.get("ahead_sent")) and r.get("ahead_compiling") is False
                                                       for r in ahead)
    return summary


def _parse(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--backend", default="gpu", choices=("gpu", "interpreter", "auto"))
    ap.add_argument("--small", action="store_true", help="small sizes (for the interpreter)")
    ap.add_argument("--kernels", default="vector_add,matmul,attention",
                    help="comma-separated, from: " + ", ".join(CASES))
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds one run may take (default 300)")
    ap.add_argument("--no-revisit", action="store_true", help="skip the three runs of configs compiled before")
    ap.add_argument("--no-ahead", action="store_true", help="skip the three runs of configs compiled ahead")
    ap.add_argument("--think", type=float, default=1.5,
                    help="ahead phase: seconds between the last keystroke and the click (default 1.5)")
    ap.add_argument("--shots", help="after each kernel, grab the window with the throughput plot into this folder")
    ap.add_argument("--fresh-cache", action="store_true", help="a temporary cache folder (device peaks measured again)")
    ap.add_argument("--out", help="write the runs and a summary as JSON here")
    return ap.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = _parse(argv)
    home = _isolate(args.fresh_cache)
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([sys.argv[0]])
    from app.main_window import MainWindow

    win = MainWindow()
    win.worker.set_timeout(max(float(win.settings.timeout_s or 0), args.timeout))  # a cold compile may be slow
    win.resize(1600, 1000)
    win.show()
    if win.live_action.isChecked():
        win.live_action.setChecked(False)
    t_start = time.perf_counter()
    if not _until(lambda: win.run_action.isEnabled() and bool(win.session.infos), 180):
        print(f"the worker did not start within 180 s; stderr: {win.worker.stderr_tail()}", file=sys.stderr)
        win.close()
        return 2
    print(f"window and worker ready in {time.perf_counter() - t_start:.1f} s; backend {args.backend}; "
          f"settings in {home}", flush=True)
    clock, probe = _GuiClock(win), _AheadProbe(win)
    cases = SMALL if args.small else CASES
    runs: list[dict[str, Any]] = []
    _print_header()
    for name in [k.strip() for k in args.kernels.split(",") if k.strip()]:
        if name not in cases:
            print(f"unknown kernel {name!r}: skipped", file=sys.stderr)
            continue
        runs += _bench_kernel(win, clock, probe, name, cases[name], args)
        if args.shots:
            print("  " + "\n  ".join(f"wrote {p}" for p in _shoot(win, Path(args.shots), name)), flush=True)
    summary = _summary(runs)
    print("\nclick → point (s), median / max per phase:")
    for k, phases in summary.items():
        print(f"  {k:10s} " + "  ".join(f"{ph} {v['median_s']:.3f}/{v['max_s']:.3f}" for ph, v in phases.items()))
        if "ahead" in phases:
            a = phases["ahead"]
            print(f"  {'':10s} ahead: {a['sent']}/{a['n']} precompiles sent, {a['done_before_click']} done before "
                  f"the click (think {args.think:g} s)")
    report = {"meta": _meta(args, runs), "runs": runs, "summary": summary}
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(report, indent=1, default=str))
        print(f"wrote {args.out}")
    win.close()
    app.processEvents()
    bad = [r for r in runs if r.get("error") or r.get("check") not in ("PASS", None)]
    return 1 if bad else 0


def _meta(args: argparse.Namespace, runs: list[dict[str, Any]]) -> dict[str, Any]:
    import PySide6

    return {"backend": args.backend, "small": args.small, "think_s": args.think, "shots": args.shots,
            "device": next((r["device"] for r in runs if r.get("device")), ""),
            "python": platform.python_version(), "pyside6": PySide6.__version__, "host": platform.node(),
            "qt_platform": os.environ.get("QT_QPA_PLATFORM", ""), "when": time.strftime("%Y-%m-%d %H:%M:%S"),
            "cpu_count": os.cpu_count()}


if __name__ == "__main__":
    sys.exit(main())
