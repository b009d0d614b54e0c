"""The window's decisions without a worker: what a resumed sweep skips, which trace tensor a
check belongs to, how history records become rows, what the sweep dialog accepts — and that the
Qt adapter delivers the worker's callbacks on the GUI thread."""

from __future__ import annotations

import os
import threading

import pytest
from PySide6.QtCore import Qt

from app.dialogs import SweepDialog, parse_axis_values
from app.main_window import MessageBanner, square_fold
from app.session import (
    Session,
    history_row_from_record,
    output_tensor_index,
    sweep_default_values,
    writer_text,
)
from kernels.params import Param, ValidationError, block, num_warps
from kernels.results import KernelInfo, RunRequest, SweepPoint
from views.demo import demo_matmul, demo_vector_add
from views.demo_results import demo_run_result, matmul_info, vector_add_info


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


def test_sweep_dialog_refuses_bad_values_and_builds_two_axes(qtbot):
    dlg = SweepDialog(matmul_info(), {"BLOCK_M": 64, "BLOCK_N": 64, "M": 512}, None)
    qtbot.addWidget(dlg)
    assert dlg.param_combo[0].currentText() == "BLOCK_M" and dlg.ok_button().isEnabled()
    dlg.values_edit[0].selectAll()
    qtbot.keyClicks(dlg.values_edit[0], "32, 48")
    assert not dlg.ok_button().isEnabled() and "power of two" in dlg.message.text()
    dlg.values_edit[0].selectAll()
    qtbot.keyClicks(dlg.values_edit[0], "32, 64")
    qtbot.mouseClick(dlg.second, Qt.MouseButton.LeftButton)
    dlg.set_param(1, "BLOCK_M")
    assert not dlg.ok_button().isEnabled() and "chosen twice" in dlg.message.text()
    dlg.set_param(1, "num_warps")
    dlg.values_edit[1].selectAll()
    qtbot.keyClicks(dlg.values_edit[1], "4, 8")
    assert dlg.ok_button().isEnabled() and "4 points" in dlg.message.text()
    with qtbot.waitSignal(dlg.accepted, timeout=1000):
        qtbot.mouseClick(dlg.ok_button(), Qt.MouseButton.LeftButton)
    assert dlg.axes() == {"BLOCK_M": [32, 64], "num_warps": [4, 8]}


def test_banner_shows_actions_and_hides_by_topic(qtbot):
    b = MessageBanner()
    qtbot.addWidget(b)
    clicked = []
    b.show_message("sweep stopped", "error", topic="sweep", details="trace", actions=[("Resume sweep",
                                                                                       lambda: clicked.append(1))])
    assert b.button_labels() == ["Resume sweep", "Details…"] and b.level() == "error"
    qtbot.mouseClick(b.button("Resume sweep"), Qt.MouseButton.LeftButton)
    assert clicked == [1]
    b.clear("run")
    assert b.topic() == "sweep"
    b.clear("sweep")
    assert b.topic() == "" and b.button("Resume sweep") is None


def test_qt_worker_delivers_callbacks_on_the_gui_thread(qtbot):
    # Widgets may only be touched on the GUI thread; the client calls back on its own thread.
    from app.qt_worker import QtWorker

    w = QtWorker()
    seen: dict[str, object] = {}
    main = threading.main_thread()
    w.hello.connect(lambda h: seen.setdefault("hello", (threading.current_thread() is main, h)))
    w.result.connect(lambda g, k, p: seen.setdefault("result", (threading.current_thread() is main, g, k, p)))
    try:
        with qtbot.waitSignal(w.hello, timeout=60000):
            w.start()
        on_main, hello = seen["hello"]
        assert on_main and {i.name for i in hello["infos"]} >= {"vector_add", "matmul"}
        with qtbot.waitSignal(w.result, timeout=30000):
            gen = w.submit("infos")
        on_main, g, kind, payload = seen["result"]
        assert on_main and g == gen and kind == "infos" and any(i.name == "softmax" for i in payload)
        assert w.pending() == {}
        pid = w.pid
    finally:
        w.close()
    assert w.state == "stopped" and pid is not None
    with pytest.raises(ProcessLookupError):  # close() waited for it and reaped it
        os.kill(pid, 0)


def test_damaged_settings_and_history_are_reported_at_start(qtbot, tmp_path):
    # A corrupt file must not stop the app, and the user must be told what happened to it.
    from app.history import History
    from app.main_window import MainWindow
    from app.settings import Settings

    (tmp_path / "settings.json").write_text("{not json")
    (tmp_path / "history.db").write_bytes(b"garbage, not sqlite")
    w = MainWindow(settings=Settings.load(tmp_path / "settings.json"),
                   history=History.open(tmp_path / "history.db"), autostart=False)
    qtbot.addWidget(w)
    w.show()
    text = w.banner.text()
    assert w.banner.level() == "warning" and "settings" in text and "history" in text and "moved" in text
    assert not w.run_action.isEnabled() and "starting worker" in w.stage_text()
    w.close()
