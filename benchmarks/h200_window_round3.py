"""The real window on the H200 (round 3): what the user waits for, in one process, ≤ ``--limit`` s.

    QT_QPA_PLATFORM=offscreen python3 benchmarks/h200_window_round3.py --out $OUT --limit 150
    QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/h200_window_round3.py --cpu --out /tmp/w3

The real ``MainWindow`` with its real worker process (offscreen Qt), driven by the methods its
buttons call; every wait is on a real event of the window and bounded by the time left:

1. ``first_sweep`` (issue #28): a fresh ``TRITON_CACHE_DIR`` and fresh settings / history / cache
   folders; the window opened at 1366×768; worker ready; the user sets up (matmul M=N=K=4096 fp16,
   the Sweep dialog opened and filled: BLOCK_M 64,128 × BLOCK_N 64,128 × BLOCK_K 32,64 ×
   num_warps 4,8 = 16 configs, a tune sweep) within ``THINK_S`` of the ready; then the dialog's OK
   is clicked and timed to the window's ``SweepFinished`` handled (the Heatmap tab fed its ranking)
   and to the Ranking tab's first paint of it. Then the same again (a repeat). PNG: the Ranking.
2. ``trace_<kernel>`` (issue #24), vector add N=2^26 fp32 (catalog default BLOCK_SIZE) and matmul
   4096³ fp16 on the GPU backend: Run (to the plotted point), 1 s, Trace (``MainWindow.trace``, what
   the button calls) timed to the grid view's first paint of that trace, then Trace again (warm);
   the status bar and stage texts, the recorder's own times. PNGs at 1366×768 and 1920×1080.
3. ``softmax_pin900`` (softmax 1823×781 traced, program 900 pinned as a hover + pin does) and
   ``attention`` (catalog default) if time is left. PNG of each at 1366×768.

``--cpu``: the same steps under the interpreter at small sizes (vector add 2^16, matmul 128³, a
4-config sweep at 64³ fp32 without launch options, softmax 64×781 with program 40 pinned, attention
N_CTX 256, 1 head; default limit 600 s), to check the script. ``DIR/window_round3.json`` is written after every step (and by the watchdog, which ends
the process at ``--limit``); ``DIR/window_round3.tar`` holds that JSON and every PNG, rewritten
after each step. PNGs are saved with 256 colours (Pillow if present, else Qt's).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import tarfile
import tempfile
import threading
import time
import traceback
from pathlib import Path
from typing import Any

T_START = time.perf_counter()
sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import fill_sweep_dialog, isolate_this_process, poll_until  # noqa: E402

THINK_S = 3.0  # the user setting up the first sweep, from the worker's ready to the OK click
SIZES = ((1366, 768), (1920, 1080))
GPU = {
    "sweep": ({"M": 4096, "N": 4096, "K": 4096, "dtype": "fp16"},
              {"BLOCK_M": "64, 128", "BLOCK_N": "64, 128", "BLOCK_K": "32, 64", "num_warps": "4, 8"}),
    "traces": [("vector_add_2p26", "vector_add", {"N": 1 << 26, "dtype": "fp32"}),
               ("matmul_4096_fp16", "matmul", {"M": 4096, "N": 4096, "K": 4096, "dtype": "fp16"})],
    "softmax": ({"M": 1823, "N": 781}, 900),
    "attention": None,  # the catalog's defaults
}
CPU = {
    "sweep": ({"M": 64, "N": 64, "K": 64, "dtype": "fp32"}, {"BLOCK_M": "16, 32", "BLOCK_N": "16, 32", "BLOCK_K": "16"}),
    "traces": [("vector_add_2p16", "vector_add", {"N": 1 << 16, "dtype": "fp32"}),
               ("matmul_128_fp16", "matmul", {"M": 128, "N": 128, "K": 128, "dtype": "fp16"})],
    "softmax": ({"M": 64, "N": 781}, 40),
    "attention": {"N_CTX": 256, "HEADS": 1},
}
#: a step starts only with this many seconds left (GPU; the --cpu run scales them)
NEEDS_S = {"first_sweep": 20.0, "trace": 14.0, "softmax_pin": 8.0, "attention": 8.0}
MARGIN_S = 4.0  # kept for closing the window and the last save

R: dict[str, Any] = {"started": time.strftime("%Y-%m-%d %H:%M:%S"), "steps": {}, "skipped": {}, "notes": []}
OUT = Path(".")
LIMIT = 150.0
_LOCK = threading.RLock()


class StepFailed(Exception):
    pass


def left() -> float:
    return LIMIT - (time.perf_counter() - T_START)


def say(msg: str) -> None:
    print(f"[{time.perf_counter() - T_START:6.1f} s] {msg}", flush=True)


def save() -> None:
    """The JSON (atomically), then the tar of it and every PNG (atomically). Never raises."""
    with _LOCK:
        try:
            R["elapsed_s"] = round(time.perf_counter() - T_START, 2)
            for attempt in range(3):  # the watchdog's save may meet the main thread changing R
                try:
                    text = json.dumps(R, indent=1, default=str)
                    break
                except RuntimeError:
                    if attempt == 2:
                        raise
                    time.sleep(0.05)
            tmp = OUT / "window_round3.json.tmp"
            tmp.write_text(text)
            tmp.replace(OUT / "window_round3.json")
            ttmp = OUT / "window_round3.tar.tmp"
            with tarfile.open(ttmp, "w") as tar:
                tar.add(OUT / "window_round3.json", arcname="window_round3.json")
                for png in sorted(OUT.glob("*.png")):
                    tar.add(png, arcname=png.name)
            ttmp.replace(OUT / "window_round3.tar")
        except Exception as e:  # noqa: BLE001 - a save that fails must not end the run
            print(f"save failed: {type(e).__name__}: {e}", flush=True)


def watchdog(worker_pid: Any) -> None:
    """At ``LIMIT`` - 1 s: say so, save, kill the worker process this script started, exit."""
    def fire() -> None:
        R["notes"].append(f"stopped by the watchdog at {time.perf_counter() - T_START:.1f} s")
        say(R["notes"][-1])
        save()
        pid = worker_pid()
        if pid:
            for kill in (os.killpg, os.kill):
                try:
                    kill(pid, signal.SIGKILL)
                except OSError:
                    pass
        os._exit(3)

    t = threading.Timer(max(1.0, left() - 1.0), fire)
    t.daemon = True
    t.start()


def wait(pred: Any, timeout: float, what: str) -> float:
    """Turn the event loop until ``pred()``; the seconds it took. Raises StepFailed after
    ``timeout`` or when the time left (less the margin) runs out."""
    t = time.perf_counter()
    budget = min(timeout, left() - MARGIN_S)
    if budget <= 0 or not poll_until(pred, budget, step_ms=2):
        raise StepFailed(f"no {what} within {budget:.1f} s")
    return time.perf_counter() - t


def pause(seconds: float) -> None:
    from PySide6.QtTest import QTest

    end = time.perf_counter() + max(0.0, min(seconds, left() - MARGIN_S))
    while time.perf_counter() < end:
        QTest.qWait(10)


def shoot(win: Any, name: str) -> dict[str, Any]:
    """The window grabbed into ``OUT/name.png`` with 256 colours; its size and bytes."""
    from PySide6.QtCore import QCoreApplication, QEvent, Qt
    from PySide6.QtGui import QImage
    from PySide6.QtWidgets import QApplication

    for _ in range(5):
        QApplication.processEvents()
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    pause(0.3)  # the maps are fitted again 80 ms after a size settles
    img = win.grab().toImage()
    path = OUT / f"{name}.png"
    try:
        from PIL import Image

        tmp = OUT / f"{name}.full.tmp.png"
        img.save(str(tmp))
        with Image.open(tmp) as im:
            im.convert("RGB").quantize(colors=256, method=Image.Quantize.FASTOCTREE).save(path, optimize=True)
        tmp.unlink()
    except ImportError:
        flags = Qt.ImageConversionFlag.ThresholdDither | Qt.ImageConversionFlag.AvoidDither
        img.convertToFormat(QImage.Format.Format_Indexed8, flags).save(str(path))
    return {"png": path.name, "grabbed": [img.width(), img.height()], "bytes": path.stat().st_size}


def resize(win: Any, w: int, h: int) -> list[int]:
    from PySide6.QtWidgets import QApplication

    win.resize(w, h)
    for _ in range(3):
        QApplication.processEvents()
    pause(0.2)
    return [win.width(), win.height()]


def texts(win: Any) -> dict[str, str]:
    return {"status_bar": win.statusBar().currentMessage(), "stage": win.stage_text()}


class Watch:
    """What the window shows, with times: the grid's paints, the stages, the status lines, trace
    answers, sweep points and finishes, the worker's errors."""

    def __init__(self, win: Any) -> None:
        from PySide6.QtCore import QEvent, QObject

        from app.events import StageShown, StatusShown, SweepFinished, SweepPointAdded, TraceAnswered

        self.win, self.t0 = win, time.perf_counter()
        self.log: list[tuple[float, str]] = []
        self.answers: list[Any] = []
        self.points: list[float] = []
        self.finished: list[tuple[float, Any]] = []
        self.errors: list[str] = []
        self.paint_armed: dict[Any, float | None] = {}
        watch = self

        class PaintWatch(QObject):
            def eventFilter(self, obj: Any, ev: Any) -> bool:  # noqa: N802 (Qt's name)
                if ev.type() == QEvent.Type.Paint and obj in watch.paint_armed and watch.paint_armed[obj] is None:
                    watch.paint_armed[obj] = time.perf_counter()
                return False

        self._paint = PaintWatch()
        ev = win.events
        ev.subscribe(StageShown, lambda e: self._note(f"stage: {e.text}"))
        ev.subscribe(StatusShown, lambda e: self._note(f"status: {e.text}"))
        ev.subscribe(TraceAnswered, lambda e: self.answers.append((time.perf_counter(), e.result)))
        ev.subscribe(SweepPointAdded, lambda e: self.points.append(time.perf_counter()))
        ev.subscribe(SweepFinished, lambda e: self.finished.append((time.perf_counter(), e.result)))
        win.worker.error.connect(lambda gen, kind, err: self.errors.append(f"{kind}: {getattr(err, 'message', err)}"))

    def _note(self, text: str) -> None:
        if not self.log or self.log[-1][1] != text:
            self.log.append((round(time.perf_counter() - self.t0, 3), text))

    def start(self) -> float:
        self.t0 = time.perf_counter()
        self.log, self.answers, self.points, self.finished, self.errors = [], [], [], [], []
        return self.t0

    def arm(self, widget: Any) -> None:
        widget.installEventFilter(self._paint)
        self.paint_armed[widget] = None


def ready(win: Any) -> bool:
    return win.run_action.isEnabled() and not win._busy_kinds()


def one_sweep(win: Any, w: Watch, axes: dict[str, str], click_at: float | None) -> dict[str, Any]:
    """Open the dialog, fill it, (wait until ``click_at``), click OK; time to the ranking."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    wait(lambda: ready(win), 60, "window ready for the sweep")
    dlg = win.open_sweep_dialog()
    if dlg is None:
        raise StepFailed("the Sweep dialog did not open")
    fill_sweep_dialog(dlg, axes)
    out: dict[str, Any] = {"dialog": dlg.message.text(), "ok_enabled": dlg.ok_button().isEnabled(),
                           "mode": dlg.mode(), "axes": {k: list(v) for k, v in dlg.axes().items()}}
    if not out["ok_enabled"]:
        dlg.reject()
        raise StepFailed(f"the dialog refuses the sweep: {out['dialog']}")
    if click_at is not None:
        pause(click_at - time.perf_counter())
    table = win.sweep_tabs.table  # the Ranking tab's view (built now if not yet: before the click)
    t0 = w.start()
    QTest.mouseClick(dlg.ok_button(), Qt.MouseButton.LeftButton)
    wait(lambda: w.finished or w.errors, 600, "SweepFinished")
    t_fin, res = w.finished[0] if w.finished else (time.perf_counter(), None)
    out["click_to_finished_s"] = round(t_fin - t0, 3)
    out["first_point_s"] = round(w.points[0] - t0, 3) if w.points else None
    out["points_streamed"] = len(w.points)
    if res is None:
        out["errors"] = list(w.errors)
        raise StepFailed(f"the sweep failed: {w.errors}")
    w.arm(table.view.viewport())
    win.sweep_tabs.show("table")  # the user looks at the Ranking
    wait(lambda: w.paint_armed[table.view.viewport()] is not None, 10, "the Ranking's paint")
    out["click_to_ranking_painted_s"] = round(w.paint_armed[table.view.viewport()] - t0, 3)
    best = res.points[res.best] if res.best is not None else None
    out.update(n_points=len(res.points), n_ok=sum(1 for p in res.points if p.result.ok),
               error=res.error.message if res.error else None, phases=dict(res.phases),
               winner={**best.values} if best else None,
               winner_ms=best.timing.median_ms if best and best.timing else None,
               verdicts=list(res.verdicts), ranking_summary=table.summary.text(), rows_shown=len(table.rows()),
               progress=list(w.log), worker_errors=list(w.errors), **texts(win))
    return out


def step_first_sweep(win: Any, w: Watch, cfg: dict, backend: str, t_ready: float, got: dict) -> None:
    shape, axes = cfg["sweep"]
    win.select_kernel("matmul")
    wait(lambda: win.panel.kernel() is not None and win.panel.kernel().name == "matmul", 20, "the matmul panel")
    win.set_backend(backend)
    win.set_param_values(shape)
    got["values"] = dict(win.panel.values())
    got["backend"] = win.panel.backend()
    got["think_s"] = THINK_S
    got["first"] = one_sweep(win, w, axes, t_ready + THINK_S)
    got["first"]["clicked_after_ready_s"] = round(w.t0 - t_ready, 3)
    say(f"first sweep: click → finished {got['first']['click_to_finished_s']} s, → Ranking painted "
        f"{got['first']['click_to_ranking_painted_s']} s; {got['first']['n_ok']}/{got['first']['n_points']} ok")
    got["first"]["shot"] = shoot(win, "sweep_ranking_1366x768")
    save()
    got["repeat"] = one_sweep(win, w, axes, None)
    say(f"repeat sweep: click → finished {got['repeat']['click_to_finished_s']} s")


def _plotted(win: Any) -> int:
    x, _ = win.throughput.triton_line.getData()
    return 0 if x is None else len(x)


def run_point(win: Any, w: Watch) -> dict[str, Any]:
    wait(lambda: ready(win), 60, "window ready for Run")
    n, n_res = _plotted(win), len(win.throughput.results())
    t0 = w.start()
    win.run()
    wait(lambda: _plotted(win) > n or len(win.throughput.results()) > n_res or w.errors, 120, "the Run's point")
    out: dict[str, Any] = {"click_to_point_s": round(time.perf_counter() - t0, 3), "worker_errors": list(w.errors)}
    results = win.throughput.results()
    if len(results) > n_res:
        r = results[-1]
        out.update(worker_s=round(r.wall_s, 3), device=r.device, median_ms=r.timing.median_ms if r.timing else None,
                   check=(r.check.passed if r.check is not None else None),
                   error=(f"{r.error.kind}: {r.error.message}" if r.error is not None else None))
    wait(lambda: not win._busy_kinds(), 60, "the Run's end")
    return out


def trace_once(win: Any, w: Watch) -> dict[str, Any]:
    """``MainWindow.trace()`` to the grid view's first paint of the new trace (bench_trace_window)."""
    wait(lambda: ready(win), 60, "window ready for Trace")
    old = win.grid.trace()
    viewport = win.grid.graphics_view().viewport()
    t0 = w.start()
    if win.trace() is None:
        raise StepFailed(f"Trace was not possible: {win.trace_window()}")
    wait(lambda: (win.grid.trace() is not None and win.grid.trace() is not old and not win.grid.is_loading())
         or any(getattr(a, "error", None) is not None for _, a in w.answers) or w.errors, 300, "the trace drawn")
    failed = [a.error for _, a in w.answers if getattr(a, "error", None) is not None]
    if failed or w.errors:
        raise StepFailed(f"the trace failed: {[f'{e.kind}: {e.message}' for e in failed] + w.errors}")
    t_applied = time.perf_counter()
    w.arm(viewport)
    wait(lambda: w.paint_armed[viewport] is not None, 20, "the grid's first paint")
    tr = win.grid.trace()
    out: dict[str, Any] = {"click_to_picture_s": round(w.paint_armed[viewport] - t0, 3),
                           "applied_s": round(t_applied - t0, 3),
                           "answered_s": round(w.answers[-1][0] - t0, 3) if w.answers else None,
                           "programs": int(tr.n_programs), "record_s": round(tr.record_s, 3),
                           "derive_s": round(tr.derive_s, 3), "programs_field": win.window_edit.text(),
                           **texts(win)}
    res = w.answers[-1][1] if w.answers else None
    info = getattr(res, "info", None)
    if info is not None:
        out["recorder"] = {k: getattr(info, k, None) for k in ("compile_s", "launch_s", "kernel_ms", "derive_s",
                                                               "passes", "notes", "shadow_bytes")}
    wait(lambda: not win._busy_kinds(), 30, "the window idle after the trace")
    out["progress"] = list(w.log)
    out["after_idle"] = texts(win)
    return out


def pick(win: Any, kernel: str, values: dict | None, backend: str) -> dict[str, Any]:
    wait(lambda: ready(win), 60, "window ready")
    win.select_kernel(kernel)
    wait(lambda: win.panel.kernel() is not None and win.panel.kernel().name == kernel, 20, f"the {kernel} panel")
    if values:
        win.set_param_values(values)
    win.set_backend(backend)
    win.window_edit.clear()  # Programs: all
    win.plot_tabs.setCurrentWidget(win.throughput)  # the user clicks the Throughput tab (the sweep left Ranking)
    if win.panel.backend() != backend:
        raise StepFailed(f"the window cannot use {backend} here: {win.session.gpu_reason}")
    return {"values": dict(win.panel.values()), "backend": win.panel.backend()}


def step_trace(win: Any, w: Watch, name: str, kernel: str, values: dict, backend: str, got: dict) -> None:
    got.update(pick(win, kernel, values, backend))
    got["run"] = run_point(win, w)
    say(f"{name} run: point in {got['run']['click_to_point_s']} s")
    save()
    pause(1.0)  # the user reads the point, then presses Trace
    got["trace_cold"] = trace_once(win, w)
    say(f"{name} trace cold: click → picture {got['trace_cold']['click_to_picture_s']} s; "
        f"status {got['trace_cold']['status_bar']!r}")
    save()
    got["trace_warm"] = trace_once(win, w)
    say(f"{name} trace warm: click → picture {got['trace_warm']['click_to_picture_s']} s")
    save()
    got["shots"] = []
    for sw, sh in SIZES:
        size = resize(win, sw, sh)
        got["shots"].append({"asked": [sw, sh], "window": size, **shoot(win, f"{name}_{sw}x{sh}")})
        save()
    resize(win, *SIZES[0])


def step_softmax(win: Any, w: Watch, cfg: dict, backend: str, got: dict) -> None:
    values, program = cfg["softmax"]
    got.update(pick(win, "softmax", values, backend))
    got["trace"] = trace_once(win, w)
    win.grid.hover_program(program)  # what the mouse over program N and a click do
    got["pinned"] = bool(win.grid.pin())
    got["selected_program"] = win.grid.selected_program()
    got["window"] = resize(win, *SIZES[0])
    got["shot"] = shoot(win, f"softmax_pin{program}_1366x768")
    say(f"softmax pinned {got['selected_program']}: trace {got['trace']['click_to_picture_s']} s")


def step_attention(win: Any, w: Watch, cfg: dict, backend: str, got: dict) -> None:
    got.update(pick(win, "attention", cfg["attention"], backend))
    got["trace"] = trace_once(win, w)
    got["window"] = resize(win, *SIZES[0])
    got["shot"] = shoot(win, "attention_1366x768")
    say(f"attention: trace {got['trace']['click_to_picture_s']} s")


def run_step(name: str, needs: float, fn: Any, *a: Any) -> None:
    if left() < needs + MARGIN_S:
        R["skipped"][name] = f"{left():.1f} s left, {needs:.0f} s needed"
        say(f"{name} skipped: {R['skipped'][name]}")
        save()
        return
    got: dict[str, Any] = R["steps"].setdefault(name, {})
    t = time.perf_counter()
    try:
        fn(*a, got)
    except Exception as e:  # noqa: BLE001 - recorded; the next step still runs
        got["error"] = f"{type(e).__name__}: {e}"
        got["traceback"] = traceback.format_exc()[-2500:]
        say(f"{name} failed: {got['error']}")
    got["step_s"] = round(time.perf_counter() - t, 2)
    save()


def main() -> int:
    global OUT, LIMIT
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--limit", type=float, help="hard limit of the whole script (s; default 150, --cpu 600)")
    ap.add_argument("--cpu", action="store_true", help="the interpreter at small sizes (checks the script)")
    args = ap.parse_args()
    OUT, LIMIT = Path(args.out), args.limit or (600.0 if args.cpu else 150.0)
    OUT.mkdir(parents=True, exist_ok=True)
    for old in (*OUT.glob("*.png"), OUT / "window_round3.json", OUT / "window_round3.tar"):
        old.unlink(missing_ok=True)
    cfg, backend = (CPU, "interpreter") if args.cpu else (GPU, "gpu")
    scale = 2.0 if args.cpu else 1.0
    home = isolate_this_process("tilescope-window-round3-")  # settings, history, caches: fresh
    os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp(prefix="tilescope-window-round3-triton-")
    R.update(cpu=args.cpu, limit_s=LIMIT, home=str(home), triton_cache=os.environ["TRITON_CACHE_DIR"],
             python=sys.version.split()[0], cpus=os.cpu_count(), qpa=os.environ.get("QT_QPA_PLATFORM"))
    win_ref: list[Any] = []
    watchdog(lambda: win_ref[0].worker.pid if win_ref else None)
    save()
    try:
        from PySide6.QtWidgets import QApplication

        app = QApplication.instance() or QApplication([sys.argv[0]])
        from app.main_window import MainWindow

        R["imports_s"] = round(time.perf_counter() - T_START, 2)
        win = MainWindow()
        win_ref.append(win)
        win.resize(*SIZES[0])
        t_show = time.perf_counter()
        win.show()
        w = Watch(win)
        wait(lambda: win.run_action.isEnabled(), 120, "the worker's hello")
        t_ready = time.perf_counter()
        R["window"] = {"show_to_ready_s": round(t_ready - t_show, 2), "size": [win.width(), win.height()],
                       "device": win.session.device_name, "gpu_available": win.session.gpu_available,
                       "gpu_reason": win.session.gpu_reason, "worker_pid": win.worker.pid,
                       "versions": (win.worker.client.hello or {}).get("versions") if win.worker.client else None,
                       **texts(win)}
        say(f"worker ready in {R['window']['show_to_ready_s']} s on {R['window']['device']}")
        save()
    except Exception as e:  # noqa: BLE001
        R["error"] = f"{type(e).__name__}: {e}"
        R["traceback"] = traceback.format_exc()[-2500:]
        say(f"the window did not start: {R['error']}")
        save()
        return 1
    if not args.cpu and not win.session.gpu_available:
        R["notes"].append(f"no GPU in the worker: {win.session.gpu_reason}")
    run_step("first_sweep", NEEDS_S["first_sweep"] * scale, step_first_sweep, win, w, cfg, backend, t_ready)
    for name, kernel, values in cfg["traces"]:
        run_step(f"trace_{name}", NEEDS_S["trace"] * scale, step_trace, win, w, name, kernel, values, backend)
    run_step("softmax_pin", NEEDS_S["softmax_pin"] * scale, step_softmax, win, w, cfg, backend)
    run_step("attention", NEEDS_S["attention"] * scale, step_attention, win, w, cfg, backend)
    try:
        win.close()
        app.processEvents()
    except Exception as e:  # noqa: BLE001
        R["notes"].append(f"closing: {type(e).__name__}: {e}")
    R["total_s"] = round(time.perf_counter() - T_START, 2)
    save()
    say(f"done; {OUT / 'window_round3.json'} and {OUT / 'window_round3.tar'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
