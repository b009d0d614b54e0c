"""The real window (offscreen) with its worker on a real sshd on localhost, the interpreter backend.

If these fail, ``tilescope --remote user@host`` gives a window that cannot run, trace or sweep on
the server, or a dropped connection leaves it without a worker, says nothing, or loses what the
user typed.
"""

from __future__ import annotations

import os
import signal

import numpy as np
import psutil
import pytest
from local_sshd import LocalSshd, sshd_binary
from real_window import make_window, wait_ready, wait_until

from app.qt_worker import QtWorker

pytestmark = pytest.mark.skipif(sshd_binary() is None, reason="OpenSSH's sshd is not installed")


@pytest.fixture(scope="module")
def win(qapp, tmp_path_factory):
    server = LocalSshd.start(tmp_path_factory.mktemp("sshd"))
    w = make_window(tmp_path_factory.mktemp("home"), worker=QtWorker(remote=server.remote()))
    w.show()
    wait_ready(w)
    w.panel.set_backend("interpreter")
    yield w
    w.close()
    server.stop()


def test_the_window_runs_and_traces_with_its_worker_over_ssh(win):
    assert psutil.Process(win.worker.pid).name() == "ssh"  # the window's child is the ssh client
    assert win.select_kernel("vector_add", {"BLOCK_SIZE": 256, "N": 1000})
    win.run()
    wait_until(lambda: len(win.throughput.results()) == 1, 120, "the run's result")
    r = win.throughput.results()[0]
    assert r.error is None and r.check.passed and win.correctness.badge.text() == "PASS"
    win.trace()
    wait_until(lambda: win.grid.trace() is not None and not win.grid.is_loading(), 120, "the trace")
    assert win.grid.trace().grid == (4, 1, 1)  # N=1000 in blocks of 256: four programs recorded


def test_a_killed_connection_mid_sweep_is_said_the_points_kept_and_the_next_run_works(win):
    win.select_kernel("vector_add")
    win.panel.set_values({"N": 8192, "dtype": "fp32"})
    killed: list[int] = []
    client = win.worker.client
    forward = client.on_point
    read: list[object] = []

    # the connection is cut on the client's reader thread as the second point is read: cut from the
    # window's slot instead, a GUI thread lagging on a loaded machine saw the second point only
    # after ssh had carried every point, and the sweep finished whole (no Resume to offer)
    def kill_on_second(gen, point):
        read.append(point)
        if len(read) == 2 and not killed:
            killed.append(win.worker.pid)
            os.kill(win.worker.pid, signal.SIGKILL)  # the ssh client: the connection drops
        forward(gen, point)

    client.on_point = kill_on_second
    try:
        # largest blocks first: under the interpreter they are the fastest points, so the four
        # left after the kill take seconds — ssh had carried all six into the pipe before a lagging
        # reader thread read the second, and the sweep finished whole (soak on a loaded machine)
        assert win.start_sweep({"BLOCK_SIZE": [512, 256, 128, 64, 32, 16]}) is not None
        wait_until(lambda: win.banner.button("Resume sweep") is not None, 120, "the Resume offer")
    finally:
        client.on_point = forward
    assert killed and "ssh" in win.banner.text() and "127.0.0.1" in win.banner.text()
    # the points that crossed before the connection dropped are kept (ssh may have carried one
    # more after the kill: it finished on the server before the link went)
    done = win.session.sweep.done
    assert 2 <= done < 6 and f"The {done} finished points are kept; {6 - done} remain." in win.banner.text()
    assert int(np.isfinite(win.sweep_view.curve_data()["y"]).sum()) == done
    wait_until(lambda: win.state_label.text() == "worker: ready", 120, "a new connection")
    assert win.worker.pid != killed[0]
    # what the user typed is still there, and the next run goes through the new connection
    assert win.panel.values()["N"] == 8192
    n = len(win.throughput.results())
    win.panel.set_values({"BLOCK_SIZE": 1024})
    win.run()
    wait_until(lambda: len(win.throughput.results()) == n + 1, 120, "the run after reconnecting")
    r = win.throughput.results()[-1]
    assert r.error is None and r.check.passed and r.values["N"] == 8192 and r.values["BLOCK_SIZE"] == 1024
