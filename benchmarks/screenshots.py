"""Screenshots of the real window for the docs, driven end to end against a real worker.

    xvfb-run -a -s "-screen 0 1600x1000x24" env PYTHONPATH=. .venv/bin/python benchmarks/screenshots.py

(without a display it falls back to Qt's offscreen platform, which draws the same widgets).
Writes docs/screenshots/{vector_add,softmax,matmul,sweep}.png, each the whole 1600×1000 window:

- vector_add: BLOCK_SIZE 256, N 1000 run and traced, program 1 pinned (its elements lit in x, y
  and out), the correctness check and the run in the throughput plot;
- softmax: 96 rows of 120 (BLOCK_SIZE 128: 8 masked lanes per row) traced, program 40 (row 40)
  pinned;
- matmul: 128×128×128 in 32-tiles traced, program 5 pinned at step 1 of the K loop (the A and B
  tiles it reads in that iteration lit);
- sweep: vector add (N 8192, traced at BLOCK_SIZE 512: 16 programs) swept over BLOCK_SIZE
  64…4096 (interpreter wall clock per point).

Settings and history go to a temporary folder, never the user's.
"""

from __future__ import annotations

import sys

from harness import ROOT, isolate_this_process, wait_until

OUT = ROOT / "docs" / "screenshots"
isolate_this_process("tilescope-shots-")


def main() -> int:
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([sys.argv[0]])
    app.setStyle("Fusion")
    from app.main_window import MainWindow

    def wait(pred, timeout: float = 300.0) -> None:
        wait_until(pred, timeout, "a screenshot step")

    def settle(ms: int = 400) -> None:
        QTest.qWait(ms)

    def shot(name: str) -> None:
        # the history table is refilled off the GUI thread, at most twice a second
        wait(lambda: win.history_view.row_count() == min(win.history.count(), 500) and not win.grid.is_loading())
        settle()
        OUT.mkdir(parents=True, exist_ok=True)
        path = OUT / f"{name}.png"
        if not win.grab().save(str(path)):
            raise OSError(f"could not write {path}")
        print(f"wrote {path.relative_to(ROOT)}")

    def run_and_trace(kernel: str, values: dict) -> None:
        win.select_kernel(kernel, values)
        win.panel.set_backend("interpreter")
        n = len(win.throughput.results())
        win.run()
        wait(lambda: len(win.throughput.results()) > n)
        win.trace()
        wait(lambda: win.grid.trace() is not None and win.grid.trace().kernel == kernel
             and not win._busy_kinds())
        win.plot_tabs.setCurrentWidget(win.throughput)

    win = MainWindow()
    win.resize(1600, 1000)
    win.move(0, 0)
    win.show()
    wait(win.run_action.isEnabled)

    # vector add: a second run with other values first, so the throughput plot has a line
    win.select_kernel("vector_add", {"BLOCK_SIZE": 128, "N": 1000})
    win.panel.set_backend("interpreter")
    win.run()
    wait(lambda: len(win.throughput.results()) == 1)
    run_and_trace("vector_add", {"BLOCK_SIZE": 256, "N": 1000, "dtype": "fp32"})
    win.grid.hover_program(1)
    win.grid.pin()
    shot("vector_add")
    win.grid.unpin()

    run_and_trace("softmax", {"M": 96, "N": 120, "BLOCK_SIZE": 128, "dtype": "fp32"})
    win.grid.hover_program(40)
    win.grid.pin()
    shot("softmax")
    win.grid.unpin()

    run_and_trace("matmul", {"M": 128, "N": 128, "K": 128, "BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 32,
                             "GROUP_SIZE_M": 2, "dtype": "fp32"})
    win.grid.hover_program(5)
    win.grid.pin()
    win.grid.set_loop_step(1)
    shot("matmul")
    win.grid.unpin()

    run_and_trace("vector_add", {"BLOCK_SIZE": 512, "N": 8192, "dtype": "fp32"})
    win.start_sweep({"BLOCK_SIZE": [64, 128, 256, 512, 1024, 2048, 4096]})
    wait(lambda: win.session.sweep is not None and win.session.sweep.finished)
    shot("sweep")

    win.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
