"""The window opening a plain Triton script: time from "open" to the first trace drawn, and a
screenshot of it (docs/screenshots/plain_script_<w>x<h>.png).

    python benchmarks/plain_script_window.py SCRIPT.py [--size 1366x768] [--no-shot]

Opens SCRIPT (its launches captured in the worker), selects its first launch, traces it, and
waits until the grid view has drawn the trace. Prints the seconds from the open request to the
trace on screen, measured here, in the real window with a real worker process. Settings and
history go to a temporary folder.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from harness import ROOT, isolate_this_process, wait_until

isolate_this_process("tilescope-plain-")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("script")
    ap.add_argument("--size", default="1366x768")
    ap.add_argument("--no-shot", action="store_true")
    ap.add_argument("--backend", default="interpreter")
    args = ap.parse_args()
    w, h = (int(v) for v in args.size.split("x"))

    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([sys.argv[0]])
    app.setStyle("Fusion")
    from app.main_window import MainWindow

    def wait(pred, timeout: float = 120.0) -> None:
        wait_until(pred, timeout, "the window", step_ms=10)

    win = MainWindow()
    win.resize(w, h)
    win.show()
    wait(win.run_action.isEnabled)
    stem = Path(args.script).stem
    t0 = time.perf_counter()
    win.open_kernel_file(os.path.abspath(args.script))
    wait(lambda: any(k.startswith(stem + ".") for k in win.session.infos) and not win._busy_kinds())
    t_open = time.perf_counter() - t0
    first = next(k for k in win.session.infos if k.startswith(stem + "."))
    win.select_kernel(first)
    win.panel.set_backend(args.backend)
    win.trace()
    wait(lambda: win.grid.trace() is not None and win.grid.trace().kernel == first and not win._busy_kinds()
         and not win.grid.is_loading())
    t_trace = time.perf_counter() - t0
    print(f"{stem}: captured and listed in {t_open:.2f} s; first trace drawn {t_trace:.2f} s after open")
    if not args.no_shot:
        win.grid.hover_program(1)
        win.grid.pin()
        QTest.qWait(400)
        out = ROOT / "docs" / "screenshots" / f"plain_script_{w}x{h}.png"
        out.parent.mkdir(parents=True, exist_ok=True)
        win.grab().save(str(out))
        print(f"wrote {out.relative_to(ROOT)}")
    win.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
