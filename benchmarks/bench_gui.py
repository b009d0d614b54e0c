"""How fast the window comes up, and whether the event loop stays responsive while work runs.

    PYTHONPATH=. .venv/bin/python benchmarks/bench_gui.py startup [--repeat 5]
    PYTHONPATH=. .venv/bin/python benchmarks/bench_gui.py stall      # 4096-program trace, 24-point sweep
    PYTHONPATH=. .venv/bin/python benchmarks/bench_gui.py live       # throughput plot, 1000 points
    PYTHONPATH=. .venv/bin/python benchmarks/bench_gui.py all [--json]

- startup: wall time from launching a fresh ``python`` process to the first paint of the main
  window (through ``app.main_window.main``, as ``python -m app`` runs it). Target < 1.5 s.
  Compiled modules are cached as on a user's machine; one launch before the measured ones
  fills that cache and is reported apart.
- stall: a QTimer fires every 10 ms on the GUI thread and records the largest gap between two
  ticks while (a) a 4096-program vector-add trace runs in the worker and is then drawn, and (b) a
  24-point sweep streams its points in. A gap is the longest time the window could not react to
  the user. Target < 50 ms. Read it against what the machine does to an idle window: the same
  probe runs 5 s with nothing to do before and after, and each phase reports the hypervisor's
  steal (/proc/stat) and the GUI thread's own CPU time between two ticks (``max_busy_ms``: work
  the app held the loop with, apart from waiting to be scheduled). The grid view prepares a trace on a worker thread and applies it in
  steps on the GUI thread: the longest step is reported apart, and so is the longest sweep
  ``add_point``.
- live: 1000 runs added to the throughput plot one per event-loop turn, each followed by a full
  repaint (a worst case); time per add (mean, p99, max), and the time of one repaint of the plot
  (median of 5) at 250 and 1000 points. Then the same 1000 streamed in one every 4 ms with the
  view's own coalesced redraws, as the window feeds it: frames per second, the probe's longest
  gap and the GUI thread's longest busy stretch, and the delay until the last result is drawn.

Qt runs offscreen unless QT_QPA_PLATFORM says otherwise; settings, history and caches go to a
temporary folder, never the user's.
"""

from __future__ import annotations

import argparse
import functools
import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from harness import isolated_env, wait_until  # noqa: E402

_wait = functools.partial(wait_until, step_ms=5)


# ---------------------------------------------------------------------------------------------
# startup


def _startup_child() -> None:
    """Runs in the fresh process: open the window the way ``python -m app`` does, note the time
    of its first paint, close it (which stops the worker) and print the times as JSON."""
    t_launch = float(os.environ["TILESCOPE_BENCH_T0"])
    t_main = time.time()
    from PySide6.QtCore import QEvent, QObject, QTimer
    from PySide6.QtWidgets import QApplication, QWidget

    app = QApplication(sys.argv[:1])
    t_qt = time.time()
    import app.gui as gui
    import app.main_window as mw

    t_import = time.time()
    marks: dict[str, float] = {}

    class FirstPaint(QObject):
        def eventFilter(self, obj, ev):  # noqa: N802 (Qt's name)
            if (not marks and ev.type() == QEvent.Type.Paint and isinstance(obj, QWidget)
                    and isinstance(obj.window(), mw.MainWindow)):
                marks["paint"] = time.time()
                QTimer.singleShot(0, lambda: [w.close() for w in app.topLevelWidgets()
                                              if isinstance(w, mw.MainWindow)])
            return False

    f = FirstPaint()
    app.installEventFilter(f)
    gui.main([])
    print(json.dumps({
        "first_paint_s": marks["paint"] - t_launch,
        "python_start_s": t_main - t_launch,
        "qapplication_s": t_qt - t_main,
        "import_window_s": t_import - t_qt,
        "build_show_paint_s": marks["paint"] - t_import,
    }))


def bench_startup(repeat: int = 5) -> dict:
    runs = []
    env = isolated_env()
    # As a user's machine does: Python caches the compiled modules (this project's CI and sandbox
    # set PYTHONDONTWRITEBYTECODE, which made every launch recompile its modules, a cost no user
    # pays: docs/benchmarks/gui.md). The
    # first launch writes the cache and is reported apart ("cold").
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    cold = None
    for k in range(repeat + 1):
        env["TILESCOPE_BENCH_T0"] = repr(time.time())
        out = subprocess.run([sys.executable, __file__, "_startup_child"], env=env, capture_output=True,
                             text=True, timeout=120)
        if out.returncode != 0:
            raise SystemExit(f"startup child failed:\n{out.stderr[-3000:]}")
        run = json.loads(out.stdout.strip().splitlines()[-1])
        if k == 0:
            cold = run["first_paint_s"]
        else:
            runs.append(run)
    firsts = [r["first_paint_s"] for r in runs]
    return {
        "first_paint_median_s": statistics.median(firsts),
        "first_paint_max_s": max(firsts),
        "cold_first_paint_s": cold,
        "runs": runs,
        "target_s": 1.5,
        "platform": os.environ.get("QT_QPA_PLATFORM", "offscreen"),
    }


# ---------------------------------------------------------------------------------------------
# stall probe


class _Probe:
    """A 10 ms QTimer on the GUI thread; ``max_gap_ms`` is the longest time between two ticks.

    With ``why=True`` a watchdog thread samples the GUI thread's Python stack every 5 ms while a
    tick is more than 30 ms late, so a long gap can be blamed on the code that held the thread."""

    def __init__(self, why: bool = False) -> None:
        import threading

        from PySide6.QtCore import QTimer

        self.gaps: list[float] = []
        self.busy: list[float] = []  # the GUI thread's CPU time within each gap
        self._last: float | None = None
        self._last_cpu = 0.0
        self.timer = QTimer()
        self.timer.setInterval(10)
        self.timer.timeout.connect(self._tick)
        self.why = why
        self.samples: dict[str, int] = {}
        self._main = threading.main_thread().ident
        self._stop = threading.Event()
        self._watch: threading.Thread | None = None

    def _tick(self) -> None:
        now, cpu = time.perf_counter(), time.thread_time()
        if self._last is not None:
            self.gaps.append((now - self._last) * 1000)
            self.busy.append((cpu - self._last_cpu) * 1000)
        self._last, self._last_cpu = now, cpu

    def _watchdog(self) -> None:
        import traceback

        while not self._stop.wait(0.005):
            last = self._last
            if last is None or time.perf_counter() - last < 0.030:
                continue
            frame = sys._current_frames().get(self._main)
            if frame is None:
                continue
            stack = traceback.extract_stack(frame)
            ours = [f"{Path(f.filename).parent.name}/{Path(f.filename).name}:{f.lineno} {f.name}"
                    for f in stack if "bench_gui" not in f.filename][-4:]
            key = " <- ".join(reversed(ours)) or "(in Qt, no Python frame)"
            self.samples[key] = self.samples.get(key, 0) + 1

    def start(self) -> None:
        import threading

        self.gaps, self.busy, self._last, self.samples = [], [], None, {}
        self.timer.start()
        if self.why:
            self._stop.clear()
            self._watch = threading.Thread(target=self._watchdog, daemon=True)
            self._watch.start()

    def stop(self) -> dict:
        self.timer.stop()
        if self._watch is not None:
            self._stop.set()
            self._watch.join()
            self._watch = None
        g = sorted(self.gaps)
        worst = max(range(len(self.gaps)), key=self.gaps.__getitem__) if g else None
        out = {"max_gap_ms": round(g[-1], 1) if g else None,
               "p99_gap_ms": round(g[int(0.99 * (len(g) - 1))], 1) if g else None,
               "gaps_over_50ms": sum(1 for x in g if x > 50),
               "ticks": len(g),
               # the longest the GUI thread itself computed between two ticks: work the app put
               # on the event loop, apart from the time the process waited to be scheduled
               "max_busy_ms": round(max(self.busy), 1) if self.busy else None,
               "busy_in_max_gap_ms": round(self.busy[worst], 1) if worst is not None else None}
        if self.why:
            top = sorted(self.samples.items(), key=lambda kv: -kv[1])[:12]
            out["late_tick_stacks"] = [f"{n * 5:>4} ms  {k}" for k, n in top]
        return out


def _cpu_ticks() -> tuple[int, int] | None:
    """(steal, total) jiffies of all CPUs from /proc/stat, or None off Linux."""
    try:
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    return (fields[7] if len(fields) > 7 else 0), sum(fields[:8])


def _steal_pct(before: tuple[int, int] | None) -> float | None:
    """The share of CPU time the hypervisor took from this (virtual) machine since ``before``:
    while it is high, any process here is descheduled for tens of ms at a time."""
    after = _cpu_ticks()
    if before is None or after is None or after[1] == before[1]:
        return None
    return round(100.0 * (after[0] - before[0]) / (after[1] - before[1]), 1)


def _idle_floor(probe: _Probe, seconds: float) -> dict:
    """The same probe with nothing to do: the gaps the machine itself causes (timer wake-up
    latency, other processes, a virtual CPU being descheduled), to read the others against."""
    t0 = _cpu_ticks()
    probe.start()
    end = time.perf_counter() + seconds
    _wait(lambda: time.perf_counter() > end, seconds + 5)
    return {**probe.stop(), "seconds": seconds, "steal_pct": _steal_pct(t0)}


def bench_stall(why: bool = False) -> dict:
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])  # noqa: F841
    from app.history import History
    from app.main_window import MainWindow
    from app.settings import Settings

    tmp = Path(tempfile.mkdtemp(prefix="tilescope-bench-"))
    win = MainWindow(settings=Settings.load(tmp / "s.json"), history=History.open(tmp / "h.db"))
    win.resize(1600, 1000)
    win.show()
    _wait(win.run_action.isEnabled, 120)
    win.panel.set_backend("interpreter")
    out: dict = {}

    # time the GUI-thread drawing separately
    draw: dict[str, list[float]] = {"apply_step": [], "add_point": [], "sweep_redraw": []}

    def timed(obj, name, key):
        orig = getattr(obj, name)

        def wrapper(*a, **k):
            t = time.perf_counter()
            try:
                return orig(*a, **k)
            finally:
                draw[key].append((time.perf_counter() - t) * 1000)
        setattr(obj, name, wrapper)

    # one step of applying a prepared trace (the step timer holds the bound method: re-wire it)
    win.grid._step_timer.timeout.disconnect()
    timed(win.grid, "_next_step", "apply_step")
    win.grid._step_timer.timeout.connect(lambda: win.grid._next_step())
    timed(win.sweep_view, "add_point", "add_point")
    timed(win.sweep_view, "flush", "sweep_redraw")  # the coalesced redraw (at most ~30 Hz)
    probe = _Probe(why)

    out["idle_before"] = _idle_floor(probe, 5.0)

    # (a) a 4096-program trace
    win.select_kernel("vector_add", {"BLOCK_SIZE": 64, "N": 64 * 4096})
    ticks = _cpu_ticks()
    probe.start()
    t0 = time.perf_counter()
    win.trace()
    _wait(lambda: win.grid.trace() is not None and win.grid.trace().n_programs == 4096, 600)
    t_done = time.perf_counter() - t0
    _wait(lambda: False if time.perf_counter() - t0 < t_done + 0.3 else True, 5)  # a few frames after
    out["trace_4096"] = {**probe.stop(), "steal_pct": _steal_pct(ticks), "request_to_drawn_s": round(t_done, 2),
                         "apply_step_max_ms": round(max(draw["apply_step"]), 1),
                         "apply_steps": len(draw["apply_step"])}

    # (b) a 24-point sweep (6 block sizes x 4 sizes)
    win.select_kernel("vector_add", {"BLOCK_SIZE": 256, "N": 1000})
    ticks = _cpu_ticks()
    probe.start()
    t0 = time.perf_counter()
    win.start_sweep({"BLOCK_SIZE": [32, 64, 128, 256, 512, 1024], "N": [1000, 2000, 4000, 8000]})
    _wait(lambda: win.session.sweep is not None and win.session.sweep.finished, 600)
    t_done = time.perf_counter() - t0
    _wait(lambda: False if time.perf_counter() - t0 < t_done + 0.3 else True, 5)
    pts = draw["add_point"]
    out["sweep_24"] = {**probe.stop(), "steal_pct": _steal_pct(ticks), "points": win.session.sweep.done,
                       "wall_s": round(t_done, 2),
                       "add_point_max_ms": round(max(pts), 1) if pts else None,
                       "add_point_mean_ms": round(statistics.mean(pts), 2) if pts else None,
                       "redraw_max_ms": round(max(draw["sweep_redraw"]), 1) if draw["sweep_redraw"] else None,
                       "redraws": len(draw["sweep_redraw"])}
    out["idle_after"] = _idle_floor(probe, 5.0)
    win.close()
    out["target_max_gap_ms"] = 50
    return out


# ---------------------------------------------------------------------------------------------
# live plot


def bench_live(n: int = 1000) -> dict:
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])
    from views.demo_results import demo_run_results
    from views.throughput_view import ThroughputView

    view = ThroughputView("GB/s")
    view.resize(700, 420)
    view.show()
    # as the window does once its first frame is up (app.window.startup.freeze_startup_objects):
    # what exists now is out of the collector's reach, the runs added below are not
    gc.freeze()
    results = demo_run_results(n)
    per_add: list[float] = []
    repaint: dict[int, float] = {}
    for k, r in enumerate(results, 1):
        t = time.perf_counter()
        view.add_result(r)
        view.flush()
        view.plot.viewport().repaint()  # the paint a timer-driven redraw would do, made synchronous
        app.processEvents()
        per_add.append((time.perf_counter() - t) * 1000)
        if k in (250, 1000):
            one = []
            for _ in range(5):
                t = time.perf_counter()
                view.plot.viewport().repaint()
                one.append((time.perf_counter() - t) * 1000)
            repaint[k] = round(statistics.median(one), 1)
    last100 = sorted(per_add[-100:])
    view.close()
    return {"points": n, "mean_ms": round(statistics.mean(per_add), 2),
            "p99_ms": round(sorted(per_add)[int(0.99 * (n - 1))], 2), "max_ms": round(max(per_add), 1),
            "last_100_median_ms": round(last100[len(last100) // 2], 2),
            "repaint_ms_at_250": repaint.get(250), "repaint_ms_at_1000": repaint.get(1000),
            "stream": _bench_live_stream(results)}


def _bench_live_stream(results: list, every_ms: int = 4) -> dict:
    """The way the window feeds the plot: results arrive on the event loop (here one every
    ``every_ms``, faster than any real run stream), the view coalesces its redraws. Reports the
    frames it drew per second of streaming, the probe's longest gap and the GUI thread's longest
    busy stretch, and how long after the last result the plot showed it."""
    from PySide6.QtCore import QTimer

    from views.throughput_view import ThroughputView

    view = ThroughputView("GB/s")
    view.resize(700, 420)
    view.show()
    frames: list[float] = []
    orig_paint = view.plot.paintEvent

    def paint(ev):  # noqa: ANN001
        out = orig_paint(ev)
        frames.append(time.perf_counter())
        return out

    view.plot.paintEvent = paint
    feed = iter(results)
    state = {"done": None, "last": 0.0}

    def push() -> None:
        r = next(feed, None)
        if r is None:
            timer.stop()
            state["done"] = time.perf_counter()
            return
        view.add_result(r)
        state["last"] = time.perf_counter()

    timer = QTimer()
    timer.setInterval(every_ms)
    timer.timeout.connect(push)
    probe = _Probe()
    probe.start()
    t0 = time.perf_counter()
    timer.start()
    _wait(lambda: state["done"] is not None, 120)
    _wait(lambda: frames and frames[-1] > state["last"] and not view._timer.isActive(), 10)
    shown_after = frames[-1] - state["last"]
    end = time.perf_counter() + 0.2
    _wait(lambda: time.perf_counter() > end, 5)
    p = probe.stop()
    stream_s = state["done"] - t0
    n_frames = sum(1 for f in frames if f <= state["done"])
    view.close()
    return {"results": len(results), "stream_s": round(stream_s, 2),
            "frames_per_s": round(n_frames / stream_s, 1), "max_gap_ms": p["max_gap_ms"],
            "max_busy_ms": p["max_busy_ms"], "last_result_shown_after_ms": round(shown_after * 1000, 1)}


# ---------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["_startup_child"]:
        _startup_child()
        return 0
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("what", choices=("startup", "stall", "live", "all"))
    p.add_argument("--repeat", type=int, default=5, help="startup runs (default 5)")
    p.add_argument("--json", action="store_true")
    p.add_argument("--why", action="store_true",
                   help="stall: sample the GUI thread's stack while a tick is late, print the top stacks")
    args = p.parse_args(argv)
    env = isolated_env()
    for k in ("TILESCOPE_CACHE_DIR", "TILESCOPE_CONFIG_DIR", "TILESCOPE_DATA_DIR", "QT_QPA_PLATFORM"):
        os.environ[k] = env[k]
    res = {}
    if args.what in ("startup", "all"):
        res["startup"] = bench_startup(args.repeat)
    # stall before live: the live part leaves a thousand results and two plots behind (and
    # freezes them), which a window built after them in this process would pay for
    if args.what in ("stall", "all"):
        res["stall"] = bench_stall(args.why)
    if args.what in ("live", "all"):
        res["live"] = bench_live()
    if args.json:
        print(json.dumps(res, indent=1))
        return 0
    if "startup" in res:
        s = res["startup"]
        print(f"startup: first paint median {s['first_paint_median_s']:.2f} s, max {s['first_paint_max_s']:.2f} s "
              f"over {len(s['runs'])} launches (target {s['target_s']} s, {s['platform']}); the launch before "
              f"them, compiling the modules: {s['cold_first_paint_s']:.2f} s")
        r = s["runs"][0]
        print("  first run: " + ", ".join(f"{k} {v:.3f}" for k, v in r.items()))
    if "live" in res:
        v = res["live"]
        print(f"live plot: {v['points']} adds, each with a full repaint: mean {v['mean_ms']} ms, "
              f"p99 {v['p99_ms']} ms, max {v['max_ms']} ms (last 100 median {v['last_100_median_ms']} ms); "
              f"one repaint at 250 points {v['repaint_ms_at_250']} ms, at 1000 {v['repaint_ms_at_1000']} ms")
        w = v["stream"]
        print(f"live plot, streamed ({w['results']} results in {w['stream_s']} s, redraws coalesced as in "
              f"the window): {w['frames_per_s']} frames/s, max gap {w['max_gap_ms']} ms, GUI thread busy "
              f"at most {w['max_busy_ms']} ms, last result on screen {w['last_result_shown_after_ms']} ms after it came")
    if "stall" in res:
        st = res["stall"]
        a, b = st["trace_4096"], st["sweep_24"]

        def head(r: dict) -> str:
            return (f"max gap {r['max_gap_ms']} ms (p99 {r['p99_gap_ms']} ms, {r['gaps_over_50ms']} over 50 ms); "
                    f"GUI thread busy at most {r['max_busy_ms']} ms at a stretch "
                    f"({r['busy_in_max_gap_ms']} ms of the longest gap); steal {r['steal_pct']} %")
        for name in ("idle_before", "idle_after"):
            print(f"stall, idle window ({st[name]['seconds']:.0f} s, nothing running): {head(st[name])}")
        print(f"stall, 4096-program trace: {head(a)}; longest grid apply step {a['apply_step_max_ms']} ms "
              f"of {a['apply_steps']}; request to drawn {a['request_to_drawn_s']} s")
        print(f"stall, 24-point sweep: {head(b)}; add_point mean {b['add_point_mean_ms']} ms, max "
              f"{b['add_point_max_ms']} ms; {b['redraws']} redraws, longest {b['redraw_max_ms']} ms; {b['wall_s']} s")
        for name, r in (("trace", a), ("sweep", b)):
            for line in r.get("late_tick_stacks", []):
                print(f"  late tick ({name}): {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
