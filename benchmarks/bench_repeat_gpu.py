"""The same configuration clicked six times: does the window show the same number each time?

    QT_QPA_PLATFORM=offscreen python3 benchmarks/bench_repeat_gpu.py --out repeat.json
    QT_QPA_PLATFORM=offscreen python3 benchmarks/bench_repeat_gpu.py --root /tmp/before --out before.json

Issue 22's measurement, in the real window (``app.main_window.MainWindow``, the real worker
process) on the GPU backend. For each case (attention at the catalog's defaults, matmul 1024³
and 4096³ fp16, vector add 2^26 and 2^16 fp32) it selects the kernel, sets the values, clicks
Run once (cold: compile, inputs, the torch baseline), then clicks Run six times back to back
(the next click as soon as the window is idle again) and six times with a 2-second pause before
each click (the event loop running: a person reading the screen). Per click it records the
median, p20/p80 and rep count of the Triton timing, torch's median, the ratio shown ("vs
torch"), the clocks when the result carries them (``RunResult.clocks``), and click → the new
point is in the plot's data (``point_s``, polled every ms on the GUI thread).

Per case and mode it prints max/min of the six medians, the ratio's range (max/min) and the
largest click → point. ``--root`` runs another checkout's window (the code before a change),
with this same driver. Exit status 1 when a click failed or a check did not pass.
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

#: name -> (kernel, values)
CASES: dict[str, tuple[str, dict[str, Any]]] = {
    "attention": ("attention", {}),
    "matmul 1024³ fp16": ("matmul", {"M": 1024, "N": 1024, "K": 1024, "dtype": "fp16"}),
    "matmul 4096³ fp16": ("matmul", {"M": 4096, "N": 4096, "K": 4096, "dtype": "fp16"}),
    "vector add 2^26": ("vector_add", {"N": 1 << 26, "dtype": "fp32"}),
    "vector add 2^16": ("vector_add", {"N": 1 << 16, "dtype": "fp32"}),
}
#: interpreter sizes (``--backend interpreter``: a CPU smoke test of this driver)
SMALL: dict[str, dict[str, Any]] = {
    "attention": {"BATCH": 1, "HEADS": 1, "N_CTX": 128, "HEAD_DIM": 64, "BLOCK_M": 64, "BLOCK_N": 64},
    "matmul 1024³ fp16": {"M": 64, "N": 64, "K": 64, "BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 32},
    "matmul 4096³ fp16": {"M": 128, "N": 128, "K": 64, "BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32},
    "vector add 2^26": {"N": 1 << 14, "BLOCK_SIZE": 1024},
    "vector add 2^16": {"N": 1 << 12, "BLOCK_SIZE": 1024},
}


def _until(pred, timeout: float, step_ms: int = 1) -> bool:
    from PySide6.QtTest import QTest

    end = time.monotonic() + timeout
    while not pred():
        if time.monotonic() > end:
            return False
        QTest.qWait(step_ms)
    return True


def _plotted(win: Any) -> int:
    x, _ = win.throughput.triton_line.getData()
    return 0 if x is None else len(x)


def _idle(win: Any) -> bool:
    busy = getattr(win, "_busy_kinds", None)
    return win.run_action.isEnabled() and not (busy() if busy else False)


def _click(win: Any, timeout: float) -> dict[str, Any]:
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QToolBar

    if not _until(lambda: _idle(win), timeout):
        return {"error": "window not ready"}
    n_res, n_pts = len(win.throughput.results()), _plotted(win)
    button = None
    for tb in win.findChildren(QToolBar):
        button = tb.widgetForAction(win.run_action) or button
    t0 = time.perf_counter()
    if button is not None:
        QTest.mouseClick(button, Qt.MouseButton.LeftButton)
    else:
        win.run_action.trigger()
    got = _until(lambda: _plotted(win) > n_pts or len(win.throughput.results()) > n_res, timeout)
    t1 = time.perf_counter()
    if not got:
        return {"error": f"no result within {timeout:g} s"}
    rec: dict[str, Any] = {}
    if _plotted(win) <= n_pts:
        win.throughput.flush()
    if _plotted(win) > n_pts:
        rec["point_s"] = round(t1 - t0, 4)
    _until(lambda: _idle(win), timeout)
    res = win.throughput.results()
    if len(res) > n_res:
        rec.update(_describe(res[-1]))
    return rec


def _describe(r: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"worker_s": round(r.wall_s, 4), "device": r.device}
    if r.error is not None:
        out["error"] = f"{r.error.kind}: {r.error.message}"
    if r.check is not None:
        out["check"] = "PASS" if r.check.passed else "FAIL"
    if r.timing is not None:
        out.update(median_ms=r.timing.median_ms, p20_ms=r.timing.p20_ms, p80_ms=r.timing.p80_ms,
                   n_reps=r.timing.n_reps, method=r.timing.method)
    m = r.metrics
    if m is not None:
        out["torch_ms"] = m.torch_timing.median_ms if m.torch_timing else None
        out["ratio"] = m.ratio_vs_torch
        out["tflops"], out["gbps"] = m.tflops, m.gbps
        out["pct_peak"] = m.pct_peak_flops if m.tflops else m.pct_peak_bw
        out["peak_source"] = getattr(m, "peak_source", "")
    c = getattr(r, "clocks", None)
    if c is not None:
        out["clocks"] = {k: getattr(c, k, None) for k in ("sm_mhz", "sm_start_mhz", "mem_mhz", "temp_c", "power_w",
                                                          "warm_s", "steady", "throttled", "note")}
    return out


def _spread(vals: list[float]) -> float | None:
    vals = [v for v in vals if v]
    return round(max(vals) / min(vals), 4) if len(vals) >= 2 else None


def _case(win: Any, name: str, kernel: str, values: dict[str, Any], args: argparse.Namespace) -> dict[str, Any]:
    from PySide6.QtTest import QTest

    win.select_kernel(kernel)
    win.set_backend(args.backend)
    if args.backend == "interpreter":
        values = {**values, **SMALL[name]}
    info = win.session.infos[kernel]
    v = {p.name: p.default for p in info.params}
    v.update(values)
    win.panel.set_values(v)
    out: dict[str, Any] = {"case": name, "values": values, "cold": _click(win, args.timeout)}
    print(f"{name}: cold {out['cold'].get('point_s')} s", flush=True)
    for mode, pause in (("back_to_back", 0.0), ("pauses", args.pause)):
        clicks = []
        for _ in range(args.n):
            if pause:
                QTest.qWait(int(pause * 1e3))
            clicks.append(_click(win, args.timeout))
        meds = [c.get("median_ms") for c in clicks]
        ratios = [c.get("ratio") for c in clicks]
        pts = [c["point_s"] for c in clicks if "point_s" in c]
        out[mode] = {"clicks": clicks, "median_max_over_min": _spread(meds), "ratio_max_over_min": _spread(ratios),
                     "medians_ms": meds, "ratios": ratios, "point_s_max": max(pts) if pts else None,
                     "point_s_median": statistics.median(pts) if pts else None}
        print(f"  {mode:12s} medians {min(m for m in meds if m):.4g}–{max(m for m in meds if m):.4g} ms "
              f"max/min {out[mode]['median_max_over_min']}  ratio {min(r for r in ratios if r):.3f}–"
              f"{max(r for r in ratios if r):.3f} (max/min {out[mode]['ratio_max_over_min']})  "
              f"click→point max {out[mode]['point_s_max']} s", flush=True)
    out["tooltip_last"] = _tooltip(win)
    if args.shots and name in args.shot_cases.split(","):
        slug = "".join(ch if ch.isalnum() else "_" for ch in name).strip("_")
        path = Path(args.shots) / f"repeat_{slug}.png"
        path.parent.mkdir(parents=True, exist_ok=True)
        win.throughput.flush()
        win.throughput.grab().save(str(path))
        out["shot"] = str(path)
    return out


def _tooltip(win: Any) -> str:
    n = len(win.throughput.results())
    try:
        return win.throughput.tooltip_for(n - 1) if n else ""
    except Exception as e:  # noqa: BLE001 - an older window without the same tooltip
        return f"(no tooltip: {e})"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", default=str(Path(__file__).resolve().parents[1]), help="the checkout whose window runs")
    ap.add_argument("--cases", default=",".join(CASES), help="comma-separated, from: " + ", ".join(CASES))
    ap.add_argument("--backend", default="gpu", choices=("gpu", "interpreter"))
    ap.add_argument("--n", type=int, default=6)
    ap.add_argument("--pause", type=float, default=2.0)
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--out")
    ap.add_argument("--shots", help="grab the throughput plot after the cases named in --shot-cases into this folder")
    ap.add_argument("--shot-cases", default="matmul 4096³ fp16,vector add 2^16")
    args = ap.parse_args(argv)
    root = str(Path(args.root).resolve())
    sys.path.insert(0, root)
    os.chdir(root)  # the worker process starts from the checkout it belongs to
    home = tempfile.mkdtemp(prefix="tilescope-repeat-")
    os.environ.update({v: os.path.join(home, v.lower()) for v in ("TILESCOPE_CONFIG_DIR", "TILESCOPE_DATA_DIR")})
    os.environ["PYTHONPATH"] = root + os.pathsep + os.environ.get("PYTHONPATH", "")
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([sys.argv[0]])
    from app.main_window import MainWindow

    win = MainWindow()
    win.worker.set_timeout(max(float(win.settings.timeout_s or 0), args.timeout))
    win.resize(1600, 1000)
    win.show()
    if getattr(win, "live_action", None) is not None and win.live_action.isChecked():
        win.live_action.setChecked(False)
    if not _until(lambda: win.run_action.isEnabled() and bool(win.session.infos), 180):
        print("the worker did not start", file=sys.stderr)
        return 2
    print(f"window ready; root {root}", flush=True)
    results = []
    for name in [c.strip() for c in args.cases.split(",") if c.strip()]:
        kernel, values = CASES[name]
        results.append(_case(win, name, kernel, values, args))
    import PySide6

    report = {"meta": {"root": root, "when": time.strftime("%Y-%m-%d %H:%M:%S"), "pyside6": PySide6.__version__,
                       "python": platform.python_version(), "n": args.n, "pause_s": args.pause},
              "cases": results}
    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=1, default=str))
    win.close()
    app.processEvents()
    bad = [c for r in results for m in ("back_to_back", "pauses") for c in r[m]["clicks"]
           if c.get("error") or c.get("check") not in ("PASS", None)]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
