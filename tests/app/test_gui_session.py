"""The window's decisions, without Qt and without a worker: what a resumed sweep skips, which
trace tensor a check belongs to, how history records become rows, which values a sweep starts
with. No Qt is imported here, so these also run where Qt is absent (the GPU host's venv)."""

from __future__ import annotations

import pytest

from app.session import (
    Session,
    history_row_from_record,
    output_tensor_index,
    parse_axis_values,
    square_fold,
    sweep_default_values,
    writer_text,
)
from kernels.data.params import Param, ValidationError, block, num_warps
from kernels.data.results import KernelInfo, RunRequest, SweepPoint
from views.demo import demo_matmul, demo_vector_add
from views.demo_results import demo_run_result, vector_add_info


def _session(*infos: KernelInfo) -> Session:
    s = Session()
    s.set_hello({"backends": {"gpu_available": False, "gpu_reason": "no CUDA", "triton_version": "3.9.0"},
                 "infos": list(infos) or [vector_add_info()], "versions": {}})
    return s


def test_a_resumed_sweep_skips_exactly_the_points_done():
    # Resume must not re-run finished points (minutes each on a big problem) nor forget any.
    s = _session()
    s.select("vector_add")
    req = s.start_sweep({"BLOCK_SIZE": 256, "N": 1000}, {"BLOCK_SIZE": [64, 128, 256]}, "interpreter")
    assert req.base == {"N": 1000} and req.axes == {"BLOCK_SIZE": [64, 128, 256]}
    assert s.resume_sweep() is None  # nothing interrupted: nothing to resume
    for b in (64, 128):
        s.sweep.add(SweepPoint({"BLOCK_SIZE": b}, demo_run_result({"BLOCK_SIZE": b}, backend="interpreter")))
    s.sweep.add(SweepPoint({"BLOCK_SIZE": 64}, demo_run_result({"BLOCK_SIZE": 64})))  # a duplicate
    s.sweep.interrupted = "the worker was killed"
    again = s.resume_sweep()
    assert again is not None and again.skip == [{"BLOCK_SIZE": 64}, {"BLOCK_SIZE": 128}]
    assert again.axes == req.axes and again.base == req.base and s.sweep.done == 2 and s.sweep.total == 3


def test_requests_carry_the_users_file_for_user_kernels():
    user = vector_add_info(origin="/home/me/k.py", name="my_add")
    s = _session(vector_add_info(), user)
    s.select("my_add")
    assert s.run_request({"N": 10}, "interpreter").user_file == "/home/me/k.py"
    assert s.trace_request({"N": 10}).user_file == "/home/me/k.py"
    s.select("vector_add")
    r = s.run_request({"N": 10}, "gpu")
    assert isinstance(r, RunRequest) and r.user_file is None and r.backend == "gpu"
    assert s.device_name.startswith("CPU") and s.triton_version == "3.9.0" and not s.gpu_available


def test_the_check_is_matched_to_the_traced_output_by_name_and_size():
    tr = demo_vector_add(1000, 256)
    i = output_tensor_index(tr, "out", 1000)
    assert i is not None and tr.tensors[i].name in ("out", "out_ptr")
    assert output_tensor_index(tr, "out", 999) is None  # a trace of another size says nothing
    assert writer_text(tr, i, 300) == "program 1 (x=1)"
    mm = demo_matmul()
    j = output_tensor_index(mm, "c", mm.tensors[2].numel)
    assert j is not None and writer_text(mm, j, 0).startswith("program 0")


def test_history_records_become_rows_with_the_kernels_metric():
    rec = {"id": 7, "time": 1.0, "kernel": "matmul", "backend": "gpu", "device": "H200",
           "values": {"M": 512, "dtype": "fp16"}, "metrics": {"ms": 0.5, "gbps": 10.0, "tflops": 123.0,
                                                              "ratio_vs_torch": 0.9},
           "check": {"passed": False}, "error": None}
    row = history_row_from_record(rec, "TFLOP/s")
    assert (row["metric"], row["metric_unit"], row["check"], row["dtype"]) == (123.0, "TFLOP/s", "fail", "fp16")
    interp = history_row_from_record({**rec, "backend": "interpreter", "error": {"message": "boom"}}, "GB/s")
    assert interp["metric"] is None and interp["metric_unit"] == "ms" and interp["error"] == "boom"


def test_sweep_defaults_and_value_parsing():
    assert sweep_default_values(block("BLOCK_SIZE", 1024), 256) == [64, 128, 256, 512, 1024]
    assert sweep_default_values(num_warps(), 4) == [1, 2, 4, 8, 16, 32]
    assert sweep_default_values(Param("CAUSAL", "flag", False), False) == [False, True]
    p = block("BLOCK_SIZE", 1024)
    assert parse_axis_values(p, "64, 128 256;256") == [64, 128, 256]
    with pytest.raises(ValidationError, match="power of two"):
        parse_axis_values(p, "64, 100")
    with pytest.raises(ValidationError, match="at least one"):
        parse_axis_values(p, "  ")
    assert square_fold(1000) == 32 and square_fold(10) == 8 and square_fold(98432) == 512


@pytest.mark.parametrize("module", ["app.session", "app.controller"])
def test_the_session_and_the_controller_import_no_qt_torch_or_triton(module):
    # both must be testable (and run) where Qt is absent, and never pull the engine into the GUI
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    code = (f"import sys, {module}; bad = [m for m in ('torch', 'triton', 'PySide6') if m in sys.modules]; "
            "print(bad); sys.exit(1 if bad else 0)")
    r = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True,
                       env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"})
    assert r.returncode == 0, r.stdout + r.stderr
