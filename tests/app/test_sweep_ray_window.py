"""The Sweep dialog's "Run on" choice in the real window: a sweep through a local Ray started by
the worker (the interpreter, no mock). Skipped without Ray (the cluster extra).

If this fails, choosing "every GPU of the worker's host" in the dialog runs the sweep one point at
a time anyway, loses points, or ranks differently than the engine does on one device.
"""

from __future__ import annotations

import importlib.util

import psutil
import pytest
from PySide6.QtCore import Qt
from real_window import make_window, wait_ready, wait_until

from app.events import SweepFinished

pytestmark = pytest.mark.skipif(importlib.util.find_spec("ray") is None, reason="Ray is not installed")


@pytest.fixture(scope="module")
def win(qapp, tmp_path_factory):
    w = make_window(tmp_path_factory.mktemp("home"))
    w.show()
    wait_ready(w)
    w.panel.set_backend("interpreter")
    yield w
    w.close()


def _ray_processes(pid: int) -> list[str]:
    out = []
    for p in psutil.Process(pid).children(recursive=True):
        try:
            out.append(" ".join(p.cmdline()))
        except psutil.Error:
            pass
    return [c for c in out if "ray::" in c or "raylet" in c]


def test_run_on_every_gpu_of_the_host_sweeps_through_ray_workers(qtbot, win):
    assert win.select_kernel("vector_add", {"N": 8192, "dtype": "fp32"})
    finished: list = []
    win.events.subscribe(SweepFinished, finished.append)
    dlg = win.sweep_launcher.open()
    assert dlg is not None and dlg.cluster() == ""  # one device unless chosen
    dlg.set_param(0, "BLOCK_SIZE")
    dlg.values_edit[0].setText("32, 256, 2048")
    dlg.tune_check.setChecked(True)  # the fastest re-measured, interleaved, on one Ray worker
    dlg.run_on.setCurrentIndex(dlg.run_on.findData("local"))
    qtbot.mouseClick(dlg.ok_button(), Qt.MouseButton.LeftButton)
    wait_until(lambda: finished, 300, "the sweep through Ray")
    res = finished[0].result
    assert res.error is None and res.request.cluster == "local", res.error
    assert sorted(p.values["BLOCK_SIZE"] for p in res.points) == [32, 256, 2048]
    assert all(p.result.ok and p.result.check.passed for p in res.points)
    assert any("Ray worker(s)" in n for n in res.notes), res.notes
    assert _ray_processes(win.worker.pid), "no Ray process under the worker"
    assert win.session.sweep_cluster == "local"  # the next Sweep… dialog starts on the same choice
    assert res.points[res.best].values == {"BLOCK_SIZE": 2048}  # 4 programs beat 32 and 256 under the interpreter
