"""Soak: hundreds of consecutive requests through the real main window (offscreen, interpreter),
mixing runs, sweeps, traces and worker kills. On demand, not in CI (minutes).

Drives ``MainWindow`` as the tests do and measures what a long session would show:

- the GUI process's resident memory before and after (target: < 50 MB growth over 500
  requests), and the worker's;
- the GUI process's thread count before and after, and after the window closed;
- worker processes: exactly one while the window is up (a new one after each kill), none after
  it closed — found by an environment tag, so a forked or orphaned one is counted too;
- time per request as the user waits for it (submit -> result drawn), by kind.

The mix (``--mix``, the default): of every 50 requests, one kills the worker (SIGKILL while a
large run is running: the window must say so and the next request work), 5 are sweeps (three
BLOCK_SIZE points), 7 are traces (vector_add, 16 programs) and the rest runs with BLOCK_SIZE
and N varying. ``--runs-only`` is the older soak of plain runs.

The settings and history go to a temporary folder, never the user's own.

    QT_QPA_PLATFORM=offscreen PYTHONPATH=. .venv/bin/python benchmarks/soak.py --requests 500
    (--json PATH writes the numbers; --warmup N requests first, not measured)
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import signal
import statistics
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
TAG_VAR = "TILESCOPE_FAULT_TAG"
TAG = os.environ.setdefault(TAG_VAR, f"soak-{uuid.uuid4().hex}")  # the worker and what it forks inherit it

import psutil  # noqa: E402
from harness import wait_until  # noqa: E402

MB = 1 << 20
_wait = functools.partial(wait_until, step_ms=1)


def tagged() -> list[psutil.Process]:
    """Live processes carrying this soak's tag (workers, and anything they forked or orphaned)."""
    out = []
    for p in psutil.process_iter(["status"]):
        try:
            if p.pid != os.getpid() and p.info["status"] != psutil.STATUS_ZOMBIE and p.environ().get(TAG_VAR) == TAG:
                out.append(p)
        except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess, OSError):
            pass
    return out


def _snapshot(win) -> dict:
    me = psutil.Process()
    workers = tagged()
    rss = 0
    for p in workers:
        try:
            rss += p.memory_info().rss
        except psutil.NoSuchProcess:
            pass
    return {
        "gui_rss_mb": me.memory_info().rss / MB,
        "gui_threads_os": me.num_threads(),
        "gui_threads_python": threading.active_count(),
        "gui_thread_names": sorted(t.name for t in threading.enumerate()),
        "workers": len(workers),
        "worker_pids": sorted(p.pid for p in workers),
        "worker_rss_mb": rss / MB,
        "history_rows": win.history.count(),
        "plotted_runs": len(win.throughput.results()),
    }


class Driver:
    """One kind of request each, as the learner makes it, waiting for what the window shows."""

    def __init__(self, win) -> None:
        self.win = win
        self.blocks = (128, 256, 512, 1024)

    def idle(self) -> None:
        if self.win.session.kernel != "vector_add":
            self.win.select_kernel("vector_add")
        _wait(lambda: not self.win._busy_kinds() and not self.win.is_drawing() and self.win.controller.ready,
              120, "the window to be idle")

    def run(self, i: int) -> None:
        w = self.win
        values = {"BLOCK_SIZE": self.blocks[i % len(self.blocks)], "N": 1000 + (i * 37) % 3000, "dtype": "fp32"}
        w.panel.set_values(values)
        n = len(w.throughput.results())
        if w.run() is None:
            raise SystemExit(f"soak: Run refused at {i} ({values})")
        _wait(lambda: len(w.throughput.results()) > n and not w._busy_kinds(), 60, f"run {i}")
        r = w.throughput.results()[-1]
        if r.error is not None or not r.check.passed:
            raise SystemExit(f"soak: run {i} {values} failed: {r.error or r.check.reason}")

    def sweep(self, i: int) -> None:
        w = self.win
        w.panel.set_values({"N": 2048, "dtype": "fp32"})
        if w.start_sweep({"BLOCK_SIZE": [128, 256, 512]}) is None:
            raise SystemExit(f"soak: Sweep refused at {i}")
        _wait(lambda: w.session.sweep is not None and w.session.sweep.finished and not w._busy_kinds(), 120,
              f"sweep {i}")
        if not all(p.result.ok for p in w.session.sweep.points):
            raise SystemExit(f"soak: a point of sweep {i} failed")

    def trace(self, i: int) -> None:
        w = self.win
        w.panel.set_values({"N": 2048, "BLOCK_SIZE": 128, "dtype": "fp32"})
        before = w.session.trace
        if w.trace() is None:
            raise SystemExit(f"soak: Trace refused at {i}")
        _wait(lambda: w.session.trace is not before and not w._busy_kinds() and not w.is_drawing(), 120,
              f"trace {i}")

    def kill(self, i: int) -> None:
        """SIGKILL the worker while a large run runs: the banner says so, a fresh worker follows."""
        w = self.win
        w.panel.set_values({"N": 1 << 20, "BLOCK_SIZE": 128, "dtype": "fp32"})  # 8192 programs: seconds
        pid = w.worker.pid
        w.run()
        _wait(lambda: w.stage_text().startswith("running"), 60, f"kill {i}: the run to be running")
        os.kill(pid, signal.SIGKILL)
        _wait(lambda: "SIGKILL" in w.banner.text() and w.worker.pid not in (None, pid)
              and w.state_label.text().endswith("ready") and not w._busy_kinds(), 120, f"kill {i}: the restart")


def _kind(i: int, mix: bool) -> str:
    if not mix:
        return "run"
    k = i % 50
    if k == 25:
        return "kill"
    if k in (5, 15, 30, 40, 45):
        return "sweep"
    if k % 7 == 3:
        return "trace"
    return "run"


def soak(requests: int, warmup: int, mix: bool) -> dict:
    from PySide6.QtWidgets import QApplication

    from app.main_window import MainWindow
    from app.settings import Settings

    app = QApplication.instance() or QApplication([sys.argv[0]])
    win = MainWindow(settings=Settings.load())
    win.show()
    _wait(win.run_action.isEnabled, 120, "the worker's hello")
    win.panel.set_backend("interpreter")
    d = Driver(win)
    d.idle()
    for i in range(warmup):
        d.run(i)
    app.processEvents()
    before = _snapshot(win)
    lat: dict[str, list[float]] = {}
    t_start = time.perf_counter()
    for i in range(requests):
        kind = _kind(i, mix)
        d.idle()
        t0 = time.perf_counter()
        getattr(d, kind)(warmup + i)
        lat.setdefault(kind, []).append(time.perf_counter() - t0)
    total = time.perf_counter() - t_start
    d.idle()
    app.processEvents()
    after = _snapshot(win)
    win.close()
    _wait(lambda: not tagged(), 15, "every worker (and anything it forked) to exit after close")
    app.processEvents()
    closed = _snapshot(win)
    return {
        "requests": requests, "warmup": warmup, "mix": mix, "total_s": total,
        "counts": {k: len(v) for k, v in lat.items()},
        "ms": {k: {"median": 1e3 * statistics.median(v), "p90": 1e3 * sorted(v)[int(0.9 * (len(v) - 1))],
                   "max": 1e3 * max(v)} for k, v in lat.items()},
        "before": before, "after": after,
        "after_close": {"workers": closed["workers"], "gui_threads_python": closed["gui_threads_python"],
                        "gui_threads_os": closed["gui_threads_os"], "gui_thread_names": closed["gui_thread_names"]},
        "gui_rss_growth_mb": after["gui_rss_mb"] - before["gui_rss_mb"],
        "worker_rss_growth_mb": after["worker_rss_mb"] - before["worker_rss_mb"],
        "restarts": win.worker.client.restarts if win.worker.client is not None else 0,
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--requests", "--runs", type=int, default=500, dest="requests")
    p.add_argument("--warmup", type=int, default=20)
    p.add_argument("--runs-only", action="store_true", help="plain runs only (the older soak)")
    p.add_argument("--json", metavar="PATH")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="tilescope-soak-") as home:
        for var in ("TILESCOPE_CONFIG_DIR", "TILESCOPE_DATA_DIR", "TILESCOPE_CACHE_DIR"):
            os.environ[var] = str(Path(home) / var.lower())
        res = soak(args.requests, args.warmup, not args.runs_only)
    b, a, c = res["before"], res["after"], res["after_close"]
    print(f"{res['requests']} requests (after {res['warmup']} warm-up runs) in {res['total_s']:.1f} s: "
          + ", ".join(f"{n} {k}s" for k, n in res["counts"].items()))
    for k, m in res["ms"].items():
        print(f"  {k:<6} {m['median']:7.0f} ms median, p90 {m['p90']:.0f}, max {m['max']:.0f} (as the user waits)")
    print(f"GUI RSS     {b['gui_rss_mb']:.1f} -> {a['gui_rss_mb']:.1f} MB ({res['gui_rss_growth_mb']:+.1f} MB)")
    print(f"worker RSS  {b['worker_rss_mb']:.1f} -> {a['worker_rss_mb']:.1f} MB ({res['worker_rss_growth_mb']:+.1f} MB)")
    print(f"GUI threads {b['gui_threads_os']} -> {a['gui_threads_os']} -> {c['gui_threads_os']} after close (OS), "
          f"{b['gui_threads_python']} -> {a['gui_threads_python']} -> {c['gui_threads_python']} (Python)")
    print(f"            new Python threads: {sorted(set(a['gui_thread_names']) - set(b['gui_thread_names'])) or 'none'}; "
          f"left after close: {c['gui_thread_names']}")
    print(f"workers     {b['workers']} -> {a['workers']} ({res['restarts']} restarts); after close: {c['workers']}")
    print(f"history     {b['history_rows']} -> {a['history_rows']} rows; plotted {a['plotted_runs']} runs")
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=1))
    ok = (res["gui_rss_growth_mb"] < 50 and a["workers"] == 1 and c["workers"] == 0
          and a["gui_threads_os"] <= b["gui_threads_os"] + 2)
    print("PASS" if ok else "FAIL: see the numbers above")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
