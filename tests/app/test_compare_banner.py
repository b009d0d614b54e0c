"""The "Interpreter vs GPU" banner of a launch compared on a window of programs (issue #12): it
names the programs compared, of how many, and why — a real comparison, the instrumented build
under the interpreter (``device="cpu"``).

What breaks if it fails: the user reads "agree on all elements" for a launch of which only the
first programs were compared."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6.QtCore")

import kernels.catalog  # noqa: E402,F401  (registers the bundled kernels)
from app.window.compare import summary_text  # noqa: E402
from kernels.data.trace import TraceRequest  # noqa: E402
from kernels.engine.trace_router import compare_backends  # noqa: E402


def test_the_banner_names_the_window_of_programs_compared(qapp):
    req = TraceRequest("vector_add", {"N": 4096, "BLOCK_SIZE": 256}, backend="gpu", compare=True)
    res = compare_backends(req, device="cpu", max_programs=4)
    assert res.error is None, res.error
    text = summary_text(res)
    assert text.startswith("Compared programs 0–3 of 16 only (running all of them under the interpreter "
                           "would take too long).")
    assert "agree on all 1,024 output elements" in text
    whole = compare_backends(req, device="cpu")
    assert not summary_text(whole).startswith("Compared programs")
    assert "agree on all 4,096 output elements" in summary_text(whole)
