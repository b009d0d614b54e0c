"""Screenshots and timings of the real window tracing on the GPU, with the Timeline tab.

Opens the real ``MainWindow`` (offscreen), starts its real worker, and for each case picks the
kernel, types the values, chooses the backend and presses Trace as a user would; once the grid has
drawn the trace it grabs the window (``window.grab()``) at each size, with the plot tabs on
Throughput (the grid in the middle) and on Timeline. Prints, per case: the time from Trace to the
grid drawn, and the recorder's own times (compile, launch, kernel on CUDA events, deriving maps).

    # the H200 (python3.12, PySide6 installed; the worker imports torch/triton, CUDA):
    QT_QPA_PLATFORM=offscreen python3.12 benchmarks/gpu_window_shots.py --out shots
    # here (no GPU): the interpreter, smaller cases, no timeline
    QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/gpu_window_shots.py --backend interpreter --out shots

Cases on the GPU: vector_add N=2^20 (BLOCK 1024) and matmul 4096³ fp16; under the interpreter:
vector_add N=2^16 and matmul 256³ fp16 (the replay is ~a thousand times slower). Files:
``<kernel>_<W>x<H>_grid.png`` and ``<kernel>_<W>x<H>_timeline.png`` in ``--out``.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harness import wait_until  # noqa: E402

CASES = {
    "gpu": [("vector_add", {"N": 1 << 20, "BLOCK_SIZE": 1024}),
            ("matmul", {"M": 4096, "N": 4096, "K": 4096, "dtype": "fp16"})],
    "interpreter": [("vector_add", {"N": 1 << 16, "BLOCK_SIZE": 1024}),
                    ("matmul", {"M": 256, "N": 256, "K": 256, "dtype": "fp16"})],
}
SIZES = ((1366, 768), (1920, 1080))


def settle(ms: int = 400) -> None:
    from PySide6.QtTest import QTest

    QTest.qWait(ms)


def trace_case(win, backend: str, kernel: str, values: dict, timeout: float) -> tuple[float, object]:
    """Pick ``kernel`` with ``values`` on ``backend`` and press Trace; (seconds to drawn, the answer)."""
    from app.events import TraceAnswered

    answers: list = []

    def answered(e: TraceAnswered) -> None:
        answers.append(e.result)

    win.events.subscribe(TraceAnswered, answered)
    try:
        assert win.select_kernel(kernel), f"no kernel {kernel}"
        wait_until(lambda: win.panel.kernel() is not None and win.panel.kernel().name == kernel, 30, "the kernel")
        win.set_param_values(values)
        win.set_backend(backend)
        if win.panel.backend() != backend:
            raise SystemExit(f"the window cannot use the {backend} backend here: {win.session.gpu_reason}")
        win.window_edit.clear()
        t0 = time.perf_counter()
        assert win.trace() is not None, "Trace was not possible"
        wait_until(lambda: answers, timeout, f"the trace of {kernel}")
        res = answers[-1]
        if res.error is not None:
            raise SystemExit(f"{kernel}: {res.error.message}")
        wait_until(lambda: win.grid.trace() is res.trace and not win.grid.is_loading(), timeout, "the grid drawn")
        return time.perf_counter() - t0, res
    finally:
        win.events.unsubscribe(TraceAnswered, answered)


def shoot(win, out: Path, kernel: str) -> list[Path]:
    tabs, timeline = win.plot_tabs, win.gpu_views.timeline.stack
    made = []
    for w, h in SIZES:
        win.resize(w, h)
        settle()
        tabs.setCurrentIndex(0)
        settle()
        for what, tab in (("grid", 0), ("timeline", tabs.indexOf(timeline))):
            tabs.setCurrentIndex(tab)
            settle(600)
            path = out / f"{kernel}_{w}x{h}_{what}.png"
            win.grab().save(str(path))
            made.append(path)
    return made


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="folder for the PNG files")
    ap.add_argument("--backend", choices=("gpu", "interpreter"), default="gpu")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds per trace")
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])
    with tempfile.TemporaryDirectory() as tmp:
        for var in ("TILESCOPE_CONFIG_DIR", "TILESCOPE_DATA_DIR", "TILESCOPE_CACHE_DIR"):
            os.environ.setdefault(var, str(Path(tmp) / var.lower()))
        from app.history import History
        from app.main_window import MainWindow
        from app.settings import Settings

        win = MainWindow(settings=Settings.load(Path(tmp) / "settings.json"), history=History.open(Path(tmp) / "h.db"))
        win.resize(*SIZES[0])
        t0 = time.perf_counter()
        win.show()
        wait_until(lambda: win.run_action.isEnabled(), 180, "the worker's hello")
        print(f"worker ready in {time.perf_counter() - t0:.1f} s; device: {win.session.device_name}; "
              f"GPU: {win.session.gpu_available} {win.session.gpu_reason}")
        for kernel, values in CASES[args.backend]:
            seconds, res = trace_case(win, args.backend, kernel, values, args.timeout)
            tr, info, tl = res.trace, getattr(res, "info", None), getattr(res, "timeline", None)
            line = f"{kernel} {values}: Trace → drawn {seconds:.2f} s ({tr.n_programs:,} programs; recorded in {tr.record_s:.2f} s)"
            if info is not None:
                kms = f"{info.kernel_ms:.2f} ms" if info.kernel_ms is not None else "-"
                line += (f"; GPU recorder: compile {info.compile_s:.2f} s, launch {info.launch_s:.3f} s, kernel {kms}, "
                         f"maps {info.derive_s:.2f} s, shadow {info.shadow_bytes / 2**20:.0f} MiB, strides "
                         f"{info.map_strides}")
            print(line)
            if tl is not None:
                print("  " + "\n  ".join(tl.summary_lines()))
            for path in shoot(win, out, kernel):
                print(f"  wrote {path}")
        win.close()
        app.processEvents()
    return 0


if __name__ == "__main__":
    sys.exit(main())
