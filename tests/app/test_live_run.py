"""The worker's live cache, as the window uses it: ``run`` requests reuse the inputs, other
requests release them, and what crosses the pipe for a large output is what a screen can show.

What breaks if these fail: every click rebuilds the inputs (seconds at GPU sizes), a sweep or a
trace finds the GPU memory still held by the last run's inputs, or a run of a large output sends
the window megabytes of error map to decode and colour on its GUI thread."""

from __future__ import annotations

import io
import os
import time
from pathlib import Path

import numpy as np
import pytest

from app.protocol import Request, read_frame
from app.worker import Server
from kernels.data.results import RunRequest
from kernels.sources.lookup import get_spec


class _Replies:
    """The worker's reply frames, written to a file (a pipe would need a reader thread)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        self._read_at = 0

    def new(self) -> list[tuple[int, object]]:
        """(frame bytes, message) of each reply written since the last call."""
        out = []
        with open(self.path, "rb") as f:
            f.seek(self._read_at)
            while True:
                start = f.tell()
                msg = read_frame(f)
                if msg is None:
                    break
                out.append((f.tell() - start, msg))
            self._read_at = f.tell()
        return out

    def result(self) -> tuple[int, object]:
        finals = [(n, m) for n, m in self.new() if m.kind in ("result", "error")]
        assert len(finals) == 1, finals
        return finals[0]


@pytest.fixture
def server(tmp_path):
    replies = _Replies(tmp_path / "replies.bin")
    srv = Server(io.BytesIO(b""), replies.fd)
    yield srv, replies
    os.close(replies.fd)


def _run(srv: Server, replies: _Replies, rid: int, **values) -> tuple[int, object]:
    srv._handle(Request(rid, rid, "run", RunRequest("vector_add", values, backend="interpreter")))
    n, msg = replies.result()
    assert msg.kind == "result", msg.payload
    return n, msg.payload


def test_runs_reuse_inputs_and_other_requests_release_them(server, monkeypatch):
    srv, replies = server
    spec = get_spec("vector_add")
    builds = []
    make = spec.make_inputs
    monkeypatch.setattr(spec, "make_inputs", lambda cfg, dev, gen: (builds.append(dev) if str(dev) != "meta" else None,
                                                                     make(cfg, dev, gen))[1])
    _, r1 = _run(srv, replies, 1, N=5000, BLOCK_SIZE=256)
    _, r2 = _run(srv, replies, 2, N=5000, BLOCK_SIZE=512, num_warps=8)
    assert r1.check.passed and r2.check.passed and r2.values["BLOCK_SIZE"] == 512
    assert len(builds) == 1 and srv.state.live_cache.tensors is not None  # the second click built nothing
    srv._handle(Request(3, 3, "infos"))
    assert replies.result()[1].kind == "result" and srv.state.live_cache.tensors is not None
    # a request of another kind (here a file that does not load) gets the memory back first
    srv._handle(Request(4, 4, "load_file", "/nonexistent/kernel_file.py"))
    assert replies.result()[1].kind == "error"
    assert srv.state.live_cache.tensors is None and srv.state.live_cache.refs is None
    _, r5 = _run(srv, replies, 5, N=5000, BLOCK_SIZE=256)
    assert r5.check.passed and len(builds) == 2


def test_a_large_output_crosses_the_pipe_as_a_small_reply(server):
    srv, replies = server
    n_bytes, r = _run(srv, replies, 1, N=1 << 20, BLOCK_SIZE=1 << 16)
    assert r.check.passed and r.check.n_elements == 1 << 20
    # 4 MiB of output: its map is 2^18 block maxima (1 MiB); the whole reply stays near that
    assert r.check.error_map.shape == (1 << 18,) and r.check.error_map_stride == (4,)
    assert n_bytes < (1 << 20) + (64 << 10), n_bytes
    assert np.isfinite(r.check.error_map).all() and float(r.check.error_map.max()) < 1e-5
    # the repeated run answers the same way
    n2, r2 = _run(srv, replies, 2, N=1 << 20, BLOCK_SIZE=1 << 15)
    assert r2.check.passed and n2 < (1 << 20) + (64 << 10)


def test_the_window_plots_repeated_runs_and_draws_a_screen_sized_map(qtbot, tmp_path):
    pytest.importorskip("pytestqt")
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    from app.history import History
    from app.main_window import MainWindow
    from app.settings import Settings

    win = MainWindow(settings=Settings.load(tmp_path / "settings.json"), history=History.open(tmp_path / "h.db"))
    qtbot.addWidget(win)
    win.show()
    try:
        _wait(lambda: win.run_action.isEnabled() and bool(win.session.infos), 90)
        win.select_kernel("vector_add")
        win.set_backend("interpreter")
        for k, bs in enumerate((1 << 14, 1 << 15), start=1):
            win.panel.set_values({"N": 1 << 20, "BLOCK_SIZE": bs})
            qtbot.mouseClick(win.toolbar.widgetForAction(win.run_action), Qt.MouseButton.LeftButton)
            _wait(lambda k=k: _plotted(win) == k, 120)
            _wait(lambda: not win._busy_kinds(), 60)
        results = win.throughput.results()
        assert [r.values["BLOCK_SIZE"] for r in results] == [1 << 14, 1 << 15]
        assert all(r.check.passed for r in results)
        # the correctness map drawn is the worker's 2^18 cells, folded: not the 2^20 outputs
        img = win.correctness.error_image()
        assert img is not None and img.size < (1 << 18) + 4096
    finally:
        win.close()
        QTest.qWait(10)


def _plotted(win) -> int:
    x, _ = win.throughput.triton_line.getData()
    return 0 if x is None else len(x)


def _wait(pred, timeout: float) -> None:
    from PySide6.QtTest import QTest

    end = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < end, f"timed out after {timeout:g} s"
        QTest.qWait(20)
