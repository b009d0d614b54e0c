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
  (a user going back and forth between settings).

For each run it records: ``point_s``, click → the new point is in the plot's data (the
throughput view's Triton line holds one more point; polled every millisecond on the GUI thread, so
it is seen only once the GUI thread is free again); ``painted_s``, the same plus one synchronous
repaint of the plot; ``gui_s``, click → the result reached the window (``show_run`` called);
``show_run_ms``, the GUI thread's time inside ``show_run`` (throughput, correctness map, compile
facts), split into ``check_ms`` and ``compile_ms``; ``worker_s``, the worker's own wall time for
the run (``RunResult.wall_s``); the check (PASS/FAIL), the median and the rep count of the timing,
and the error map's shape as shipped.

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
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

#: kernel -> (values of the cold run, the three changes tried after it); full sizes (GPU)
CASES: dict[str, tuple[dict[str, Any], list[dict[str, Any]]]] = {
    "vector_add": ({"N": 1 << 26, "dtype": "fp32", "BLOCK_SIZE": 1024, "num_warps": 4},
                   [{"BLOCK_SIZE": 2048}, {"num_warps": 8}, {"BLOCK_SIZE": 4096, "num_warps": 8}]),
    "matmul": ({"M": 4096, "N": 4096, "K": 4096, "dtype": "fp16", "BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64,
                "GROUP_SIZE_M": 8, "num_warps": 8, "num_stages": 3},
               [{"num_warps": 4}, {"BLOCK_K": 32}, {"BLOCK_N": 64, "num_warps": 4}]),
    "attention": ({}, [{"BLOCK_N": 32}, {"num_warps": 8}, {"BLOCK_M": 64}]),  # the catalog's defaults
}
#: the same for ``--small`` (the interpreter runs each in about a second on a laptop core)
SMALL: dict[str, tuple[dict[str, Any], list[dict[str, Any]]]] = {
    "vector_add": ({"N": 1 << 22, "dtype": "fp32", "BLOCK_SIZE": 1 << 14, "num_warps": 4},
                   [{"BLOCK_SIZE": 1 << 15}, {"num_warps": 8}, {"BLOCK_SIZE": 1 << 16, "num_warps": 8}]),
    "matmul": ({"M": 256, "N": 256, "K": 256, "dtype": "fp16", "BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32,
                "num_warps": 4},
               [{"BLOCK_K": 64}, {"num_warps": 8}, {"BLOCK_M": 128, "num_warps": 8}]),
    "attention": ({"BATCH": 1, "HEADS": 2, "N_CTX": 256, "HEAD_DIM": 64, "BLOCK_M": 64, "BLOCK_N": 64},
                  [{"BLOCK_N": 32}, {"num_warps": 8}, {"BLOCK_M": 32}]),
}


def _isolate(fresh_cache: bool) -> str:
    """Settings and history (and with ``fresh_cache`` the cache folder) in a temporary folder."""
    home = tempfile.mkdtemp(prefix="tilescope-live-")
    dirs = ["TILESCOPE_CONFIG_DIR", "TILESCOPE_DATA_DIR"] + (["TILESCOPE_CACHE_DIR"] if fresh_cache else [])
    os.environ.update({v: os.path.join(home, v.lower()) for v in dirs})
    if "DISPLAY" not in os.environ and "WAYLAND_DISPLAY" not in os.environ:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    return home


def _until(pred, timeout: float, step_ms: int = 1) -> bool:
    """Run the event loop until ``pred()`` holds; False after ``timeout`` seconds."""
    from PySide6.QtTest import QTest

    end = time.monotonic() + timeout
    while not pred():
        if time.monotonic() > end:
            return False
        QTest.qWait(step_ms)
    return True


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


def _bench_kernel(win: Any, clock: _GuiClock, name: str, base: dict[str, Any], changes: list[dict[str, Any]],
                  backend: str, timeout: float, revisit: bool) -> list[dict[str, Any]]:
    win.select_kernel(name)
    win.set_backend(backend)
    info = win.session.infos[name]
    values = {p.name: p.default for p in info.params}
    values.update(base)
    plan: list[tuple[str, dict[str, Any]]] = [("cold", {})]
    plan += [("changed", ch) for ch in changes]
    plan += [("same", changes[-1])] * 3
    if revisit:
        plan += [("revisit", ch) for ch in changes]
    runs = []
    for i, (phase, change) in enumerate(plan):
        v = {**values, **change}
        win.panel.set_values(v)
        rec = {"kernel": name, "run": i + 1, "phase": phase, "change": change}
        rec.update(_click_run(win, clock, timeout))
        runs.append(rec)
        _print_row(rec)
    return runs


_COLS = (("kernel", 10, "{}"), ("run", 3, "{}"), ("phase", 7, "{}"), ("change", 26, "{}"),
         ("point_s", 7, "{:.3f}"), ("painted_s", 9, "{:.3f}"), ("gui_s", 6, "{:.3f}"), ("worker_s", 8, "{:.3f}"),
         ("show_run_ms", 11, "{:.1f}"), ("check_ms", 8, "{:.1f}"), ("compile_ms", 10, "{:.1f}"),
         ("check", 5, "{}"), ("median_ms", 9, "{:.4g}"), ("n_reps", 6, "{}"), ("error_map", 12, "{}"))


def _cell(rec: dict[str, Any], key: str, fmt: str) -> str:
    v = rec.get(key)
    if v is None:
        return "—"
    if key == "change":
        return ",".join(f"{k}={x}" for k, x in v.items()) or "(base)"
    if key == "error_map":
        return "×".join(map(str, v))
    return fmt.format(v)


def _print_header() -> None:
    print("  ".join(k.ljust(w) for k, w, _ in _COLS), flush=True)


def _print_row(rec: dict[str, Any]) -> None:
    line = "  ".join(_cell(rec, k, f).ljust(w) for k, w, f in _COLS)
    if rec.get("error"):
        line += f"  ERROR {rec['error']}"
    print(line, flush=True)


def _summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Per kernel and phase: the median and the largest click → point."""
    out: dict[str, Any] = {}
    for r in runs:
        if "point_s" in r:
            out.setdefault(r["kernel"], {}).setdefault(r["phase"], []).append(r["point_s"])
    return {k: {ph: {"median_s": round(statistics.median(v), 4), "max_s": round(max(v), 4), "n": len(v)}
                for ph, v in phases.items()} for k, phases in out.items()}


def _parse(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--backend", default="gpu", choices=("gpu", "interpreter", "auto"))
    ap.add_argument("--small", action="store_true", help="small sizes (for the interpreter)")
    ap.add_argument("--kernels", default="vector_add,matmul,attention",
                    help="comma-separated, from: " + ", ".join(CASES))
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds one run may take (default 300)")
    ap.add_argument("--no-revisit", action="store_true", help="skip the three runs of configs compiled before")
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
    clock = _GuiClock(win)
    cases = SMALL if args.small else CASES
    runs: list[dict[str, Any]] = []
    _print_header()
    for name in [k.strip() for k in args.kernels.split(",") if k.strip()]:
        if name not in cases:
            print(f"unknown kernel {name!r}: skipped", file=sys.stderr)
            continue
        base, changes = cases[name]
        runs += _bench_kernel(win, clock, name, base, changes, args.backend, args.timeout, not args.no_revisit)
    summary = _summary(runs)
    print("\nclick → point (s), median / max per phase:")
    for k, phases in summary.items():
        print(f"  {k:10s} " + "  ".join(f"{ph} {v['median_s']:.3f}/{v['max_s']:.3f}" for ph, v in phases.items()))
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

    return {"backend": args.backend, "small": args.small, "device": next((r["device"] for r in runs if r.get("device")), ""),
            "python": platform.python_version(), "pyside6": PySide6.__version__, "host": platform.node(),
            "qt_platform": os.environ.get("QT_QPA_PLATFORM", ""), "when": time.strftime("%Y-%m-%d %H:%M:%S"),
            "cpu_count": os.cpu_count()}


if __name__ == "__main__":
    sys.exit(main())
