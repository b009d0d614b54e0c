"""The window at a laptop's and a desktop's screen size, as a first start opens it: vector add
2^22, matmul, softmax 1823×781 with program 900 pinned, attention, layernorm, matmul 512³ with
the launch order open, and a docked lesson, in English or in Chinese.

    xvfb-run -a -s "-screen 0 1366x768x24" env QT_QPA_PLATFORM=xcb python benchmarks/laptop_screenshots.py OUT_DIR
    xvfb-run -a -s "-screen 0 1920x1080x24" env QT_QPA_PLATFORM=xcb python benchmarks/laptop_screenshots.py OUT_DIR
    ... laptop_screenshots.py OUT_DIR --lang zh_CN --matmul 768 --only matmul,attention

Each kernel is traced under the Triton interpreter by the window's own worker (settings, history
and caches in a fresh temporary folder). Files: ``OUT_DIR/laptop_<scene>_<W>x<H>[_zh_CN].png``,
saved with a palette of 256 colours (a third of the size; the maps' ramps and the text survive).
``--matmul N``: the matmul scene's M = N = K (default 768, the largest size whose trace takes
under a minute on the interpreter here; the catalog default is 512).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "app")]


def scenes(matmul: int) -> list[tuple[str, str, dict | None, str | None]]:
    """(scene, kernel, values, what to do after the trace)."""
    return [
        ("vector_add_2p22", "vector_add", {"N": 1 << 22}, None),
        (f"matmul_{matmul}", "matmul", {"M": matmul, "N": matmul, "K": matmul}, None),
        ("softmax_1823x781_pin900", "softmax", {"M": 1823, "N": 781}, "pin900"),
        ("attention", "attention", None, None),
        ("layernorm", "layernorm", None, None),
        ("matmul_512_launch_order", "matmul", {"M": 512, "N": 512, "K": 512}, "launch"),
        ("lesson_docked", "vector_add", None, "lesson"),
    ]


def save_small(image, path: Path) -> None:
    """``image`` (a QImage) as a PNG of 256 colours."""
    from PIL import Image

    tmp = path.with_suffix(".full.png")
    image.save(str(tmp))
    with Image.open(tmp) as im:
        im.convert("RGB").quantize(colors=256, method=Image.Quantize.FASTOCTREE).save(path, optimize=True)
    tmp.unlink()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", nargs="?", default=".")
    ap.add_argument("--lang", default="en", choices=("en", "zh_CN"))
    ap.add_argument("--matmul", type=int, default=768, help="M = N = K of the matmul scene")
    ap.add_argument("--only", default="", help="comma-separated scene names (prefixes) to take")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    home = Path(tempfile.mkdtemp(prefix="tilescope-shots-"))
    for var in ("TILESCOPE_CACHE_DIR", "TILESCOPE_CONFIG_DIR", "TILESCOPE_DATA_DIR"):
        os.environ[var] = str(home / var.lower())
    from PySide6.QtCore import QCoreApplication, QEvent
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    app = QApplication([])
    from real_window import make_window, wait_ready, wait_until

    from views.i18n import install_translator

    install_translator(app, args.lang)
    win = make_window(home)
    win.show()
    wait_ready(win)
    win.set_backend("interpreter")
    size = win.screen().size()
    tag = f"{size.width()}x{size.height()}" + ("" if args.lang == "en" else f"_{args.lang}")
    wanted = [w for w in args.only.split(",") if w]
    for scene, kernel, values, then in scenes(args.matmul):
        if wanted and not any(scene.startswith(w) for w in wanted):
            continue
        assert win.select_kernel(kernel, values)
        if then != "lesson":
            t = time.perf_counter()
            win.trace()
            wait_until(lambda: win.grid.trace() is not None and not win.grid.is_loading() and not win._busy_kinds(),
                       900, f"the trace of {kernel}")
            print(f"{scene}: traced in {time.perf_counter() - t:.1f} s", flush=True)
        if then == "pin900":
            win.grid.hover_program(900)
            win.grid.pin()
        if then == "launch":
            win.grid.show_launch_order(True)
        if then == "lesson":
            win.docks.lessons.show()
            win.docks.lessons.raise_()
            win.lessons.select_lesson(win.lessons.lesson_names()[0])
        for _ in range(20):
            app.processEvents()
            # widgets a panel dropped (deleteLater) go at the event loop's next turn: this script
            # turns it by hand, so they would still be drawn under the new ones
            QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        QTest.qWait(300)  # the maps are fitted again 80 ms after a size settles
        g = win.frameGeometry()
        path = out / f"laptop_{scene}_{tag}.png"
        save_small(win.grab().toImage(), path)
        print(f"{path.name}: window {g.width()}x{g.height()}, grid {win.grid.width()}x{win.grid.height()}", flush=True)
        if then == "lesson":
            win.docks.history.raise_()
        if then == "launch":
            win.grid.show_launch_order(False)
    win.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
