"""The status line after a trace: the whole wait from the click to the picture, not the
recorder's share of it (a 4-million-element trace once said "traced in 2.08 s" after a minute).
Plain Python: the controller with the fake view and worker of ``test_controller``."""

from __future__ import annotations

import dataclasses

import pytest
from test_controller import GRIDLESS, FakeView, FakeWorker
from worker_env import worker_env

from app.controller import Controller
from app.history import History
from app.session import Session
from app.settings import Settings
from app.trace_clock import TraceClock
from kernels.data.coarse import MAX_CELLS, WindowTraceRequest
from kernels.data.trace import TraceResult
from views.demo import demo_vector_add
from views.demo_results import vector_add_info


@pytest.fixture
def setup(tmp_path):
    view, worker = FakeView(), FakeWorker()
    c = Controller(view, worker, Session(), Settings.load(tmp_path / "settings.json"), History.in_memory())
    view.follow(c.events)
    c.on_hello({"backends": {"gpu_available": False}, "infos": [vector_add_info(), GRIDLESS], "versions": {}})
    now = [100.0]
    c.trace_clock = TraceClock(lambda: now[0])
    return c, view, worker, now


def test_the_status_gives_the_time_from_the_click_to_the_picture(setup):
    # breaks if the status line reported only the recording (the reply's trip, the maps and the
    # drawing left out), or if the window asked the worker for a trace it cannot draw
    c, view, worker, now = setup
    view.values.update(N=1000, BLOCK_SIZE=256)
    gen = c.trace()
    req = worker.sent[-1][2]
    assert isinstance(req, WindowTraceRequest) and req.max_cells == MAX_CELLS and req.values["N"] == 1000
    tr = dataclasses.replace(demo_vector_add(1000, 256), record_s=1.5)
    now[0] = 106.0  # the answer arrives (the client stamps the request's generation on its copy)
    c.on_result(gen, "trace", TraceResult(request=dataclasses.replace(req, generation=gen), trace=tr))
    now[0] = 107.25  # the grid has drawn it
    c.on_trace_drawn(tr)
    assert view.statuses[-1] == "traced all 4 programs (3,000 elements) in 7.25 s (recording 1.50 s)"
    # the same trace drawn again later (back to its kernel): no new wait to report, the recording's
    c.show_trace(tr)
    now[0] = 300.0
    c.on_trace_drawn(tr)
    assert view.statuses[-1] == "traced all 4 programs in 1.50 s"


def test_a_superseded_trace_does_not_lend_its_click_time(setup):
    # breaks if the second of two traces reported the first click's time
    c, view, worker, now = setup
    view.values.update(N=1000, BLOCK_SIZE=256)
    first = c.trace()
    now[0] = 110.0
    second = c.trace()
    req = worker.sent[-1][2]
    tr = demo_vector_add(1000, 256)
    now[0] = 112.0
    c.on_result(first, "trace", TraceResult(request=dataclasses.replace(req, generation=first), trace=tr))
    c.on_result(second, "trace", TraceResult(request=dataclasses.replace(req, generation=second), trace=tr))
    now[0] = 113.0
    c.on_trace_drawn(tr)
    assert "in 3.00 s" in view.statuses[-1]


@pytest.mark.slow
def test_the_real_worker_ships_a_big_trace_reduced_and_the_cli_request_whole(tmp_path):
    # breaks if the worker ignored the window's request and sent every lane and map across the
    # pipe (what made a 4-million-element trace take a minute to appear), or if it reduced what
    # the CLI asked for (its --npz must have every element)
    from app.client import WorkerClient
    from kernels.data.coarse import CoarseTrace, shipped_bytes, window_request
    from kernels.data.trace import TraceRequest

    env = worker_env(tmp_path)
    req = TraceRequest(kernel="vector_add", values={"N": 1 << 16, "BLOCK_SIZE": 1024})
    with WorkerClient(env=env) as client:
        whole = client.call("trace", req, timeout=300)
        pipe_bytes = _pipe_size(client)
        reduced = client.call("trace", window_request(req, 1 << 10), timeout=300)
    assert whole.error is None and reduced.error is None
    assert not isinstance(whole.trace, CoarseTrace) and whole.trace.tensors[0].numel == 1 << 16
    assert isinstance(reduced.trace, CoarseTrace) and all(t.numel <= 1 << 10 for t in reduced.trace.tensors)
    assert shipped_bytes(reduced.trace) < 200_000 < shipped_bytes(whole.trace)
    # the reply pipe is widened (Linux): 1 MiB steps, not 64 KiB hand-overs with a niced worker
    assert pipe_bytes in (None, 1 << 20)


def _pipe_size(client) -> int | None:
    try:
        import fcntl

        return fcntl.fcntl(client._proc.popen.stdout.fileno(), getattr(fcntl, "F_GETPIPE_SZ", 1032))
    except (ImportError, OSError, AttributeError):
        return None
