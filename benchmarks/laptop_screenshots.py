"""The window at a laptop's and a desktop's screen size, as a first start opens it: vector add
2^22, matmul, softmax 1823×781 with program 900 pinned, attention, and a docked lesson.

    xvfb-run -a -s "-screen 0 1366x768x24" env QT_QPA_PLATFORM=xcb python benchmarks/laptop_screenshots.py OUT_DIR
    xvfb-run -a -s "-screen 0 1920x1080x24" env QT_QPA_PLATFORM=xcb python benchmarks/laptop_screenshots.py OUT_DIR

Each kernel is traced under the Triton interpreter by the window's own worker (settings, history
and caches in a fresh temporary folder). Files: ``OUT_DIR/laptop_<scene>_<W>x<H>.png``.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "app")]

SCENES = [  # (scene, kernel, values, after the trace)
    ("vector_add_2p22", "vector_add", {"N": 4194304}, None),
    ("matmul", "matmul", None, None),
    ("softmax_1823x781_pin900", "softmax", {"M": 1823, "N": 781}, "pin900"),
    ("attention", "attention", None, None),
    ("lesson_docked", "vector_add", None, "lesson"),
]


def main() -> int:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    out.mkdir(parents=True, exist_ok=True)
    home = Path(tempfile.mkdtemp(prefix="tilescope-shots-"))
    for var in ("TILESCOPE_CACHE_DIR", "TILESCOPE_CONFIG_DIR", "TILESCOPE_DATA_DIR"):
        os.environ[var] = str(home / var.lower())
    from PySide6.QtCore import QCoreApplication, QEvent
    from PySide6.QtWidgets import QApplication

    app = QApplication([])
    from real_window import make_window, wait_ready, wait_until

    win = make_window(home)
    win.show()
    wait_ready(win)
    win.set_backend("interpreter")
    size = win.screen().size()
    tag = f"{size.width()}x{size.height()}"
    for scene, kernel, values, then in SCENES:
        assert win.select_kernel(kernel, values)
        if then != "lesson":
            t = time.perf_counter()
            win.trace()
            wait_until(lambda: win.grid.trace() is not None and not win.grid.is_loading() and not win._busy_kinds(),
                       600, f"the trace of {kernel}")
            print(f"{scene}: traced in {time.perf_counter() - t:.1f} s", flush=True)
        if then == "pin900":
            win.grid.hover_program(900)
            win.grid.pin()
        if then == "lesson":
            win.docks.lessons.show()
            win.docks.lessons.raise_()
        for _ in range(20):
            app.processEvents()
            # widgets a panel dropped (deleteLater) go at the event loop's next turn: this script
            # turns it by hand, so they would still be drawn under the new ones
            QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        g = win.frameGeometry()
        path = out / f"laptop_{scene}_{tag}.png"
        win.grab().save(str(path))
        print(f"{path.name}: window {g.width()}x{g.height()}, grid {win.grid.width()}x{win.grid.height()}", flush=True)
    win.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
