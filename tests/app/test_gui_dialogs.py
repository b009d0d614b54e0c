"""The window's Qt parts that need no kernel run: the sweep dialog, the message banner, the
damaged-files warning at start, and the Qt adapter delivering the worker's callbacks on the GUI
thread."""

from __future__ import annotations

import os
import threading

import pytest

pytest.importorskip("PySide6.QtWidgets")
pytest.importorskip("pytestqt")

from PySide6.QtCore import Qt  # noqa: E402

from app.window.dialogs import SweepDialog  # noqa: E402
from app.window.widgets import MessageBanner  # noqa: E402
from views.demo_results import matmul_info  # noqa: E402


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
