"""Click to picture: a big trace in the window against ``tilescope trace`` on the same launch.

    PYTHONPATH=. .venv/bin/python benchmarks/bench_trace_window.py                  # N = 2^20, 2^21, 2^22
    PYTHONPATH=. .venv/bin/python benchmarks/bench_trace_window.py --log2 20 --repeat 2 --json out.json

For each N (vector_add, interpreter, the catalog's default BLOCK_SIZE), in one run and back to back:

- **cli**: ``python -m app trace vector_add -s N=…`` in a fresh process, wall clock from start to
  exit (imports, building the inputs, recording, the maps, the summary printed), and the times
  the tracer itself reports (``recorded … in R s; maps in D s``);
- **window**: the real main window (offscreen Qt unless QT_QPA_PLATFORM says otherwise) with its
  real worker process, already started; from ``MainWindow.trace()`` (what the Trace button calls)
  to the grid view's first paint of that trace (a Paint event of its graphics view once the
  trace is applied and painting is on again). Also: the status bar's text at the end, the
  progress texts the status strip showed on the way, and the bytes of the trace the worker
  shipped (its numpy arrays).

The ratio window / cli is the issue's measure (target ≤ 1.5). Settings, history and caches go
to a temporary folder. This machine is shared: ``--repeat`` alternates the two and keeps all.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from harness import isolated_env, wait_until  # noqa: E402

_wait = functools.partial(wait_until, step_ms=2)
_RECORDED = re.compile(r"recorded (\d+) accesses, (\d+) active lanes in ([\d.]+) s; maps in ([\d.]+) s")


def bench_cli(n: int) -> dict:
    """``tilescope trace`` in a fresh process: wall clock and the tracer's own figures."""
    cmd = [sys.executable, "-m", "app", "trace", "vector_add", "-s", f"N={n}"]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, env=isolated_env(), capture_output=True, text=True, timeout=1800)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    m = _RECORDED.search(proc.stdout)
    return {"wall_s": round(wall, 2), "record_s": float(m.group(3)) if m else None,
            "derive_s": float(m.group(4)) if m else None, "lanes": int(m.group(2)) if m else None,
            "command": " ".join(["tilescope", *cmd[3:]])}


class _Window:
    """The main window with its worker, set up once for every N."""

    def __init__(self) -> None:
        from PySide6.QtCore import QEvent, QObject
        from PySide6.QtWidgets import QApplication

        self.app = QApplication.instance() or QApplication([])
        from app.history import History
        from app.main_window import MainWindow
        from app.settings import Settings
        from kernels.data.coarse import shipped_bytes

        tmp = Path(tempfile.mkdtemp(prefix="tilescope-bench-"))
        self.win = MainWindow(settings=Settings.load(tmp / "s.json"), history=History.open(tmp / "h.db"))
        self.win.resize(1600, 1000)
        self.win.show()
        _wait(self.win.run_action.isEnabled, 180)
        self.win.panel.set_backend("interpreter")
        self.painted_at: float | None = None
        self.armed = False
        bench = self

        class PaintWatch(QObject):
            def eventFilter(self, obj, ev):  # noqa: N802 (Qt's name)
                if ev.type() == QEvent.Type.Paint and bench.armed and bench.painted_at is None:
                    bench.painted_at = time.perf_counter()
                return False

        self._watch = PaintWatch()
        self.win.grid.graphics_view().viewport().installEventFilter(self._watch)
        self.stages: list[tuple[float, str]] = []
        self.t0 = 0.0
        from app.events import StageShown

        def on_stage(e: StageShown) -> None:
            if not self.stages or self.stages[-1][1] != e.text:
                self.stages.append((round(time.perf_counter() - self.t0, 2), e.text))

        self.win.events.subscribe(StageShown, on_stage)  # every stage the controller shows
        self.shipped: list[int] = []
        self.result_at: float | None = None

        def on_result(_gen, kind, payload):
            if kind == "trace":
                self.result_at = time.perf_counter()
                self.shipped.append(shipped_bytes(payload))

        self.win.worker.result.connect(on_result)  # after the controller's own slot
        # a 10 ms tick on the GUI thread: the longest gap says how long the window could not react
        from PySide6.QtCore import QTimer

        self.ticks: list[float] = []
        self._tick = QTimer()
        self._tick.setInterval(10)
        self._tick.timeout.connect(lambda: self.ticks.append(time.perf_counter()))
        self._tick.start()

    def trace(self, n: int) -> dict:
        win = self.win
        win.select_kernel("vector_add", {"N": n})
        _wait(lambda: win.run_action.isEnabled(), 60)
        old = win.grid.trace()
        self.stages.clear()
        self.shipped.clear()
        self.painted_at = self.result_at = None
        self.ticks.clear()
        self.armed = False
        t0 = self.t0 = time.perf_counter()
        win.trace()
        _wait(lambda: win.grid.trace() is not None and win.grid.trace() is not old and not win.grid.is_loading(),
              1800)
        t_applied = time.perf_counter()
        self.armed = True
        _wait(lambda: self.painted_at is not None, 30)
        tr = win.grid.trace()
        ticks = [t for t in self.ticks if t >= t0]
        gaps = [(b - a, a - t0) for a, b in zip(ticks[:-1], ticks[1:], strict=True)]
        gap, gap_at = max(gaps) if gaps else (0.0, 0.0)
        return {"click_to_picture_s": round(self.painted_at - t0, 2), "applied_s": round(t_applied - t0, 2),
                "result_s": round(self.result_at - t0, 2) if self.result_at else None,
                "record_s": round(tr.record_s, 2), "derive_s": round(tr.derive_s, 2),
                "programs": int(tr.programs.size), "status": win.statusBar().currentMessage(),
                "progress_texts": list(self.stages),
                "gui_max_gap_ms": round(gap * 1000, 1), "gui_max_gap_at_s": round(gap_at, 2), "shipped_mb": round(sum(self.shipped) / 1e6, 1)}

    def close(self) -> None:
        self.win.close()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--log2", type=int, nargs="*", default=[20, 21, 22], help="N = 2**k for each k")
    ap.add_argument("--repeat", type=int, default=1, help="alternate window and CLI this many times per N")
    ap.add_argument("--json", metavar="PATH", help="write the figures here")
    args = ap.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    env = isolated_env()
    for k in ("TILESCOPE_CACHE_DIR", "TILESCOPE_CONFIG_DIR", "TILESCOPE_DATA_DIR"):
        os.environ[k] = env[k]
    win = _Window()
    rows = []
    try:
        for k in args.log2:
            n = 1 << k
            for rep in range(args.repeat):
                w = win.trace(n)
                c = bench_cli(n)
                row = {"N": n, "log2": k, "repeat": rep, "window": w, "cli": c,
                       "ratio": round(w["click_to_picture_s"] / c["wall_s"], 2)}
                rows.append(row)
                print(f"N=2^{k} #{rep}: window {w['click_to_picture_s']:.2f} s (applied {w['applied_s']:.2f} s, "
                      f"record {w['record_s']:.2f} s, shipped {w['shipped_mb']} MB) | cli {c['wall_s']:.2f} s "
                      f"(record {c['record_s']} s, maps {c['derive_s']} s) | ratio {row['ratio']}", flush=True)
                print(f"    status: {w['status']!r}; longest GUI-thread gap {w['gui_max_gap_ms']} ms "
                      f"at {w['gui_max_gap_at_s']} s", flush=True)
                shown = [f"{t:.2f} s {text}" for t, text in w["progress_texts"]]
                print(f"    progress: {' | '.join(shown[:3])} ... {' | '.join(shown[-4:])}", flush=True)
    finally:
        win.close()
    print()
    print("| N | window click→picture (s) | CLI wall (s) | ratio | window record (s) | CLI record (s) | shipped (MB) |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        w, c = r["window"], r["cli"]
        print(f"| 2^{r['log2']} | {w['click_to_picture_s']:.2f} | {c['wall_s']:.2f} | {r['ratio']:.2f} | "
              f"{w['record_s']:.2f} | {c['record_s']} | {w['shipped_mb']} |")
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": rows, "python": sys.version.split()[0],
                                               "cpus": os.cpu_count()}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
