"""A 3-axis tune sweep run from the window, and screenshots of the tuning views.

    python benchmarks/sweep_window.py [--size 1366x768] [--kernel matmul] [--no-shot]

In the real window with a real worker process (the interpreter unless --backend gpu): selects
the kernel at small sizes, runs it at a few sizes (points for the roofline), opens the Sweep dialog,
adds a third parameter and a constraint, runs the sweep and waits for its ranking; then saves
docs/screenshots/sweep_heatmap.png, sweep_table.png and sweep_roofline.png, the window at
``--size`` laid out for tuning (the plot panel given the right column and most of the width; the
other right-hand and bottom panels hidden). Prints the sweep's wall time from the
dialog's OK to the ranking on screen. Settings and history go to a temporary folder.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from harness import ROOT, fill_sweep_dialog, isolate_this_process, wait_until

#: kernel -> (fixed values, the three axes, a constraint, the runs made before the sweep)
CASES = {
    "matmul": ({"M": 64, "N": 64, "K": 64, "dtype": "fp16"},
               {"BLOCK_M": "16, 32, 64", "BLOCK_N": "16, 32, 64", "BLOCK_K": "16, 32"}, "BLOCK_M * BLOCK_N <= 2048",
               [{"M": n, "N": n, "K": n} for n in (32, 64, 128)]),
    "vector_add": ({"N": 4096}, {"BLOCK_SIZE": "64, 128, 256, 512", "N": "1024, 4096", "dtype": "fp32, fp16"},
                   "BLOCK_SIZE <= N", [{"N": 4096}]),
}


def _until(pred, timeout: float = 600.0) -> None:
    """Run the event loop until ``pred()`` holds (the script ends after ``timeout`` seconds)."""
    wait_until(pred, timeout, "a sweep-window step", step_ms=10)


def _parse() -> argparse.Namespace:
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", default="1366x768")
    ap.add_argument("--kernel", default="matmul", choices=sorted(CASES))
    ap.add_argument("--backend", default="interpreter")
    ap.add_argument("--no-shot", action="store_true")
    ap.add_argument("--out", default=str(ROOT / "docs" / "screenshots"))
    return ap.parse_args()


def main() -> int:
    args = _parse()
    isolate_this_process("tilescope-sweep-window-")
    w, h = map(int, args.size.split("x"))
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([sys.argv[0]])
    app.setStyle("Fusion")
    from app.main_window import MainWindow

    win = MainWindow()
    win.resize(w, h)
    win.show()
    _until(win.run_action.isEnabled, 120)
    base, axes, where, runs = CASES[args.kernel]
    win.select_kernel(args.kernel)
    win.set_backend(args.backend)
    win.panel.set_values(base)
    for size in runs:  # runs of other sizes: points of other intensities on the roofline
        n_runs = win.history.count()
        win.panel.set_values(size)
        win.run()
        _until(lambda: win.history.count() > n_runs and not win._busy_kinds())
    win.panel.set_values(base)

    dlg = win.open_sweep_dialog()
    assert dlg is not None
    fill_sweep_dialog(dlg, axes)
    QTest.keyClicks(dlg.where_edit, where)
    print(f"dialog: {dlg.message.text()}")
    t0 = time.perf_counter()
    QTest.mouseClick(dlg.ok_button(), Qt.MouseButton.LeftButton)
    _until(lambda: win.session.sweep is not None and win.session.sweep.finished)
    tabs = win.sweep_tabs
    _until(lambda: tabs.table.summary.text().count("winner") > 0, 30)
    wall = time.perf_counter() - t0
    s = win.session.sweep
    print(f"{args.kernel}: {s.done} points ({len(s.request.axes)} axes, where {where!r}) on {args.backend}: "
          f"{wall:.1f} s from OK to the ranking on screen; {60 * s.done / wall:.1f} configs/minute")
    print(tabs.table.summary.text())
    if not args.no_shot:
        _shots(win, tabs, Path(args.out), app, (w, h))
    win.close()
    return 0


def _shots(win, tabs, out: Path, app, size: tuple[int, int]) -> None:
    """The window with the plot panel given most of its width, one shot per tuning tab."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    # a tuning layout: the plot panel gets the right column to itself and most of the width (the
    # lessons panel, tabbed under History, would also widen the window past 1366 with its minimum)
    for name in ("lessons", "history", "compile", "source", "correctness"):
        dock = getattr(win.docks, name, None)
        if dock is not None:
            dock.hide()
    for _ in range(2):
        win.resize(*size)
        QTest.qWait(50)
    win.resizeDocks([win.docks.plots], [int(win.width() * 0.66)], Qt.Orientation.Horizontal)
    print(f"window {win.width()}x{win.height()}")
    out.mkdir(parents=True, exist_ok=True)
    for key, name in (("heatmap", "sweep_heatmap"), ("table", "sweep_table"), ("roofline", "sweep_roofline")):
        tabs.show(key)
        QTest.qWait(300)
        app.processEvents()
        path = out / f"{name}.png"
        win.grab().save(str(path))
        print(f"saved {path}")


if __name__ == "__main__":
    sys.exit(main())
