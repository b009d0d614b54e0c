"""Screenshots of the grid view alone, for the docs: catalog kernels traced on the interpreter.

    env PYTHONPATH=. .venv/bin/python benchmarks/grid_screenshots.py [NAME ...]

Writes docs/screenshots/grid_<name>_<width>x<height>.png at 1366×768 and 1920×1080 (offscreen
when there is no display):

- vector_add: N=98432, BLOCK_SIZE=1024 (97 programs), program 40 pinned;
- softmax: 1823×781 (a row per program), program 900 pinned;
- matmul_all / matmul_step: 256³ in 64×64×32 tiles (16 programs, GROUP_SIZE_M=8), program 5
  pinned, all K steps / K step 2 (its A and B tiles, and its C tile as the target);
- attention: the catalog default (1×4×1000×64, 32 programs), program 13 pinned at key step 3;
- launch_order: matmul 144³ in 16-tiles (9×9 tiles of C, GROUP_SIZE_M=3), waves of 9, wave 1:
  54 tiles loaded against 90 row-major, the Triton tutorial's figure;
- window_vector_add, window_attention: the same in the whole window (``app.main_window``,
  traced by its worker), where the grid view has the middle column only.
"""

from __future__ import annotations

import sys
from pathlib import Path

from harness import ROOT, isolate_this_process, wait_until

OUT = ROOT / "docs" / "screenshots"
isolate_this_process("tilescope-grid-shots-")  # settings and history: never the user's

SIZES = ((1366, 768), (1920, 1080))
MATMUL_256 = {"M": 256, "N": 256, "K": 256, "BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32, "GROUP_SIZE_M": 8,
              "dtype": "fp16"}
CASES = {
    "vector_add": ("vector_add", {"N": 98432, "BLOCK_SIZE": 1024, "dtype": "fp32"}, "v.hover_program(40); v.pin()"),
    "softmax": ("softmax", {"M": 1823, "N": 781, "BLOCK_SIZE": 1024, "dtype": "fp32"},
                "v.hover_program(900); v.pin()"),
    "matmul_all": ("matmul", MATMUL_256, "v.hover_program(5); v.pin()"),
    "matmul_step": ("matmul", MATMUL_256, "v.hover_program(5); v.pin(); v.set_loop_step(2)"),
    "attention": ("attention", {}, "v.hover_program(13); v.pin(); v.set_loop_step(3)"),
    "launch_order": ("matmul", {"M": 144, "N": 144, "K": 144, "BLOCK_M": 16, "BLOCK_N": 16, "BLOCK_K": 16,
                                "GROUP_SIZE_M": 3, "dtype": "fp16"}, "v.set_wave_size(9); v.set_wave(1)"),
}


WINDOW_CASES = {"window_vector_add": "vector_add", "window_attention": "attention"}


def _window_shot(name: str, w: int, h: int) -> Path:
    from PySide6.QtTest import QTest

    from app.main_window import MainWindow

    def wait(pred, timeout: float = 300.0) -> None:
        wait_until(pred, timeout, f"{name}: a screenshot step")

    kernel, values, actions = CASES[WINDOW_CASES[name]]
    win = MainWindow()
    win.resize(w, h)
    win.show()
    wait(win.run_action.isEnabled)
    win.select_kernel(kernel, values)
    win.panel.set_backend("interpreter")
    win.trace()
    wait(lambda: win.grid.trace() is not None and not win.grid.is_loading() and not win._busy_kinds())
    QTest.qWait(300)
    exec(actions, {"v": win.grid})  # noqa: S102 - the fixed actions above
    QTest.qWait(400)
    path = OUT / f"grid_{name}_{w}x{h}.png"
    if not win.grab().save(str(path)):
        raise OSError(f"could not write {path}")
    win.close()
    return path


def main(names: list[str]) -> int:
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    from kernels.sources.lookup import get_spec
    from kernels.trace import trace_spec

    app = QApplication.instance() or QApplication([sys.argv[0]])
    app.setStyle("Fusion")
    from views.grid_view import GridView

    OUT.mkdir(parents=True, exist_ok=True)
    traces: dict[tuple, object] = {}
    for name in names or [*CASES, *WINDOW_CASES]:
        if name in WINDOW_CASES:
            for w, h in SIZES:
                print(f"wrote {_window_shot(name, w, h).relative_to(ROOT)}")
            continue
        kernel, values, actions = CASES[name]
        key = (kernel, tuple(sorted(values.items())))
        if key not in traces:
            traces[key] = trace_spec(get_spec(kernel), values, seed=0)
        for w, h in SIZES:
            v = GridView()
            v.resize(w, h)
            v.show()
            QTest.qWait(50)
            v.set_trace(traces[key])
            QTest.qWait(150)
            exec(actions, {"v": v})  # noqa: S102 - the fixed actions above
            QTest.qWait(300)
            path = OUT / f"grid_{name}_{w}x{h}.png"
            if not v.grab().save(str(path)):
                raise OSError(f"could not write {path}")
            print(f"wrote {path.relative_to(ROOT)}")
            v.close()
            v.deleteLater()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
