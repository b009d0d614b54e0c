"""Interpreter vs GPU, bounded (issue #12), on the CPU with the instrumented build under the
interpreter (``device="cpu"``): a big launch is compared on a window of programs — the
interpreter runs those only, the elements they wrote are compared and nothing else, the answer
names the window, and Cancel stops it between programs.

What breaks if these fail: the compare of a big launch runs for hours under the interpreter,
claims differences in elements the interpreter never computed (every element outside the window
would "differ"), misses a real difference inside the window, or cannot be cancelled.
"""

from __future__ import annotations

import numpy as np

import kernels.catalog  # noqa: F401  (registers the bundled kernels)
from kernels.data.trace import TraceRequest
from kernels.engine import trace_router as serve
from kernels.gpu_trace import bounded

VALUES = {"N": 4096, "BLOCK_SIZE": 256}  # 16 programs of 256 elements


def _request() -> TraceRequest:
    return TraceRequest("vector_add", dict(VALUES), backend="gpu", compare=True)


def _changed_on_device(monkeypatch, elements: list[int]) -> None:
    """TEST INPUT: the "GPU" run's output changed at ``elements`` (a deliberate difference)."""
    real = serve._on_device

    def changed(spec, request, device):
        outs, cfg = real(spec, request, device)
        outs["out"] = outs["out"].copy()
        outs["out"][elements] += 1.0
        return outs, cfg
    monkeypatch.setattr(serve, "_on_device", changed)


def test_a_difference_inside_the_window_is_found_and_one_outside_is_not_claimed(monkeypatch):
    _changed_on_device(monkeypatch, [2 * 256 + 7, 10 * 256 + 3])  # programs 2 (inside) and 10 (outside)
    res = serve.compare_backends(_request(), device="cpu", max_programs=4)
    assert res.error is None, res.error
    assert res.compared == "0–3" and res.n_programs == 16 and res.n_compared == 4 and res.why_window == "programs"
    (out,) = res.outputs
    assert out.n_elements == 4 * 256  # what programs 0–3 wrote, nothing else
    assert out.n_differ == 1 and res.programs.tolist() == [2]


def test_the_whole_launch_is_compared_when_it_is_small_enough(monkeypatch):
    _changed_on_device(monkeypatch, [10 * 256 + 3])
    res = serve.compare_backends(_request(), device="cpu")
    assert res.error is None and res.compared == "" and res.n_compared == 16
    assert res.outputs[0].n_elements == 4096 and res.programs.tolist() == [10]


def test_the_requests_window_is_the_one_compared():
    req = _request()
    req.window = "8:12"
    res = serve.compare_backends(req, device="cpu")
    assert res.error is None and res.compared == "8–11" and res.why_window == "window"
    assert res.outputs[0].n_elements == 4 * 256 and res.n_differ == 0


def test_the_time_budget_stops_the_interpreter_after_the_programs_that_ran():
    res = serve.compare_backends(_request(), device="cpu", budget_s=0.0)
    assert res.error is None and res.why_window == "time"
    assert res.compared == "0" and res.n_compared == 1 and res.outputs[0].n_elements == 256


def test_cancel_stops_the_interpreter_between_programs():
    polls = []

    def cancel() -> bool:
        polls.append(1)
        return len(polls) > 6  # a few stages and programs in

    res = serve.compare_backends(_request(), device="cpu", cancel=cancel)
    assert res.error is not None and res.error.kind == "cancelled"
    assert len(polls) == 7  # nothing ran after it said so


def test_the_limit_follows_the_measured_interpreter_speed():
    # docs/benchmarks/trace.md: the plain interpreter runs ~1000 vector-add programs a second
    assert bounded.COMPARE_MAX_PROGRAMS == int(bounded.COMPARE_BUDGET_S * bounded.INTERPRETER_PROGRAMS_PER_S)
    assert 10_000 <= bounded.COMPARE_MAX_PROGRAMS <= 40_000


def test_window_text_names_runs_of_programs():
    w = bounded.InterpreterWindow({}, np.array([0, 1, 2, 3, 7, 9, 10], np.int32), 20)
    assert w.windowed and w.text() == "0–3, 7, 9–10"
