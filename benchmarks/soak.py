"""Soak: hundreds of consecutive runs through the real main window (offscreen, interpreter).

Drives ``MainWindow`` as the tests do — set the parameters, Run, wait for the result, repeat,
varying BLOCK_SIZE and N a little — and measures what a long session would show:

- the GUI process's resident memory before and after (target: < 50 MB growth over 500 runs),
  and the worker's;
- the GUI process's thread count before and after;
- the worker processes before and after (exactly one);
- time per run as the user waits for it (submit -> result drawn).

The settings and history go to a temporary folder, never the user's own.

    QT_QPA_PLATFORM=offscreen PYTHONPATH=. .venv/bin/python benchmarks/soak.py --runs 500
    (--json PATH writes the numbers; --warmup N runs first, not measured)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import psutil  # noqa: E402

from app.client import worker_processes  # noqa: E402

MB = 1 << 20


_workers = worker_processes


def _snapshot(win) -> dict:
    me = psutil.Process()
    workers = _workers()
    return {
        "gui_rss_mb": me.memory_info().rss / MB,
        "gui_threads_os": me.num_threads(),
        "gui_threads_python": threading.active_count(),
        "workers": len(workers),
        "worker_pids": [p.pid for p in workers],
        "worker_rss_mb": sum(p.memory_info().rss for p in workers) / MB,
        "history_rows": win.history.count(),
        "plotted_runs": len(win.throughput.results()),
    }


def _wait(pred, timeout: float, what: str) -> None:
    from PySide6.QtTest import QTest

    deadline = time.monotonic() + timeout
    while not pred():
        if time.monotonic() > deadline:
            raise SystemExit(f"soak: timed out after {timeout:g} s waiting for {what}")
        QTest.qWait(1)


def soak(runs: int, warmup: int) -> dict:
    from PySide6.QtWidgets import QApplication

    from app.main_window import MainWindow
    from app.settings import Settings

    app = QApplication.instance() or QApplication([sys.argv[0]])
    win = MainWindow(settings=Settings.load())
    win.show()
    _wait(win.run_action.isEnabled, 120, "the worker's hello")
    win.panel.set_backend("interpreter")
    win.select_kernel("vector_add")
    blocks = (128, 256, 512, 1024)

    def one(i: int) -> tuple[float, object]:
        values = {"BLOCK_SIZE": blocks[i % len(blocks)], "N": 1000 + (i * 37) % 3000, "dtype": "fp32"}
        win.panel.set_values(values)
        n = len(win.throughput.results())
        t0 = time.perf_counter()
        if win.run() is None:
            raise SystemExit(f"soak: Run refused at run {i} ({values})")
        _wait(lambda: len(win.throughput.results()) > n and not win._busy_kinds(), 60, f"run {i}")
        r = win.throughput.results()[-1]
        if r.error is not None or not r.check.passed:
            raise SystemExit(f"soak: run {i} {values} failed: {r.error or r.check.reason}")
        return time.perf_counter() - t0, r

    for i in range(warmup):
        one(i)
    app.processEvents()
    before = _snapshot(win)
    lat: list[float] = []
    wall: list[float] = []
    t_start = time.perf_counter()
    for i in range(runs):
        dt, r = one(warmup + i)
        lat.append(dt)
        wall.append(r.wall_s)
    total = time.perf_counter() - t_start
    app.processEvents()
    after = _snapshot(win)
    win.close()
    _wait(lambda: not _workers(), 10, "the worker to exit after close")
    closed = _snapshot(win)
    return {
        "runs": runs, "warmup": warmup, "total_s": total,
        "per_run_ms": {"median": 1e3 * statistics.median(lat), "p90": 1e3 * sorted(lat)[int(0.9 * len(lat))],
                       "max": 1e3 * max(lat), "engine_median": 1e3 * statistics.median(wall)},
        "before": before, "after": after, "after_close": {"workers": closed["workers"],
                                                          "gui_threads_python": closed["gui_threads_python"]},
        "gui_rss_growth_mb": after["gui_rss_mb"] - before["gui_rss_mb"],
        "worker_rss_growth_mb": after["worker_rss_mb"] - before["worker_rss_mb"],
        "same_worker": before["worker_pids"] == after["worker_pids"],
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=500)
    p.add_argument("--warmup", type=int, default=20)
    p.add_argument("--json", metavar="PATH")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="tilescope-soak-") as home:
        for var in ("TILESCOPE_CONFIG_DIR", "TILESCOPE_DATA_DIR", "TILESCOPE_CACHE_DIR"):
            os.environ[var] = str(Path(home) / var.lower())
        res = soak(args.runs, args.warmup)
    b, a = res["before"], res["after"]
    pr = res["per_run_ms"]
    print(f"{res['runs']} runs (after {res['warmup']} warm-up) in {res['total_s']:.1f} s: "
          f"{pr['median']:.0f} ms median per run as the user waits (p90 {pr['p90']:.0f}, max {pr['max']:.0f}; "
          f"engine {pr['engine_median']:.0f} ms)")
    print(f"GUI RSS     {b['gui_rss_mb']:.1f} -> {a['gui_rss_mb']:.1f} MB ({res['gui_rss_growth_mb']:+.1f} MB)")
    print(f"worker RSS  {b['worker_rss_mb']:.1f} -> {a['worker_rss_mb']:.1f} MB ({res['worker_rss_growth_mb']:+.1f} MB)")
    print(f"GUI threads {b['gui_threads_os']} -> {a['gui_threads_os']} (OS), "
          f"{b['gui_threads_python']} -> {a['gui_threads_python']} (Python)")
    print(f"workers     {b['workers']} -> {a['workers']} (same process: {res['same_worker']}); "
          f"after close: {res['after_close']['workers']}")
    print(f"history     {b['history_rows']} -> {a['history_rows']} rows; plotted {a['plotted_runs']} runs")
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=1))
    ok = (res["gui_rss_growth_mb"] < 50 and a["workers"] == 1 and res["same_worker"]
          and res["after_close"]["workers"] == 0 and a["gui_threads_os"] <= b["gui_threads_os"] + 2)
    print("PASS" if ok else "FAIL: see the numbers above")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
