"""Screenshots of the Threads view alone, for the docs: catalog kernels compiled for sm_90 on the
CPU by the layout engine (no GPU), the coalescing numbers from the interpreter's addresses of
program 0.

    env PYTHONPATH=. .venv/bin/python benchmarks/threads_screenshots.py [CASE ...]

Writes docs/screenshots/threads/<case>_<width>x<height>.png at 1366×768 and 1920×1080:

- vector_add_w2, _w4, _w8: the load of x at num_warps 2, 4 and 8 (BLOCK_SIZE 1024);
- softmax: the load of a row (the catalog default);
- matmul_a, matmul_b, matmul_acc: the tl.dot's A and B operands (in shared memory on sm_90, read
  by wgmma: drawn by bank) and its accumulator (the MMA v3 layout), the catalog default;
- matmul_acc_zoom, matmul_a_zoom, matmul_b_zoom: the same zoomed in on their top-left cells
  (``ZOOM``: rows × columns in view), where every cell is labelled;
- matmul_128x256_acc(_zoom): a big tile, the accumulator of 128×256×64 blocks at 8 warps, whole
  and zoomed in.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "screenshots" / "threads"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

SIZES = ((1366, 768), (1920, 1080))
#: case -> (kernel, values, which access: (op, index among that op's accesses))
CASES = {
    "vector_add_w2": ("vector_add", {"num_warps": 2}, ("load", 0)),
    "vector_add_w4": ("vector_add", {"num_warps": 4}, ("load", 0)),
    "vector_add_w8": ("vector_add", {"num_warps": 8}, ("load", 0)),
    "softmax": ("softmax", {}, ("load", 0)),
    "matmul_a": ("matmul", {}, ("dot_a", 0)),
    "matmul_b": ("matmul", {}, ("dot_b", 0)),
    "matmul_acc": ("matmul", {}, ("accumulator", 0)),
    "matmul_acc_zoom": ("matmul", {}, ("accumulator", 0)),
    "matmul_a_zoom": ("matmul", {}, ("dot_a", 0)),
    "matmul_b_zoom": ("matmul", {}, ("dot_b", 0)),
    "matmul_128x256_acc": ("matmul", {"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64, "num_warps": 8},
                           ("accumulator", 0)),
    "matmul_128x256_acc_zoom": ("matmul", {"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64, "num_warps": 8},
                                ("accumulator", 0)),
}
#: case -> (rows, columns) from the top-left corner in view: what a wheel zoom shows
ZOOM = {"matmul_acc_zoom": (16, 32), "matmul_a_zoom": (16, 32), "matmul_b_zoom": (8, 32),
        "matmul_128x256_acc_zoom": (24, 48)}


def layouts(names: list[str]) -> dict[str, tuple]:
    """case -> (LayoutResult, index of the access drawn), each kernel compiled once per values."""
    from kernels.layout.service import layout_spec
    from kernels.sources.lookup import get_spec

    made: dict[tuple, object] = {}
    out = {}
    for case in names:
        kernel, values, (op, k) = CASES[case]
        key = (kernel, tuple(sorted(values.items())))
        if key not in made:
            made[key] = layout_spec(get_spec(kernel, None), values, "sm_90", programs="0:1")
        res = made[key]
        index = [a.index for a in res.accesses if a.op == op][k]
        out[case] = (res, index)
    return out


def main(argv: list[str]) -> int:
    names = argv or list(CASES)
    found = layouts(names)
    from PySide6.QtWidgets import QApplication

    from views.threads_view import ThreadsView

    app = QApplication.instance() or QApplication([])
    OUT.mkdir(parents=True, exist_ok=True)
    for case in names:
        res, index = found[case]
        for w, h in SIZES:
            view = ThreadsView()
            view.setWindowTitle(f"Threads — {res.kernel}")
            view.resize(w, h)
            view.show()
            view.set_result(res, index)
            for _ in range(10):
                app.processEvents()
            if case in ZOOM:
                from PySide6.QtCore import QRectF

                rows, cols = ZOOM[case]
                view.canvas.vb.setRange(QRectF(0, 0, cols, rows), padding=0)
                for _ in range(10):
                    app.processEvents()
            path = OUT / f"{case}_{w}x{h}.png"
            view.grab().save(str(path))
            a = res.accesses[index]
            print(f"{path.relative_to(ROOT)}: {a.op} {a.tensor} line {a.line} {a.layout.describe()[:90]}")
            view.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
