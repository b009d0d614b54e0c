"""The virtual GPU in the window (issue #23): ``tilescope --virtual-gpu`` for one session, and
Run ▸ Virtual GPU…, which keeps the choice in the settings, restarts the worker with it and opens
the shown script again, whose device checks are then answered as the chosen GPU.

What breaks if these fail: a learner without a GPU cannot see a script that picks its grid or its
path by the GPU (tutorial 09's ``NUM_SMS``) as on another GPU from the window, or the choice is
kept but the running worker still answers as the old one until the window is restarted.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from real_window import make_window, wait_ready, wait_until

import app.window.settings as window_settings
from app.events import StatusShown, WorkerShown
from app.gui import main as gui_main
from kernels.data.virtual_gpus import ENV_VAR, VIRTUAL_GPUS

SCRIPT = str(Path(__file__).resolve().parents[1] / "kernels" / "scripts" / "tutorial_patterns" / "device_checks.py")


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    return tmp_path_factory.mktemp("virtual-gpu-home")


@pytest.fixture(scope="module")
def win(qapp, home):
    mp = pytest.MonkeyPatch()
    mp.delenv(ENV_VAR, raising=False)  # the window's choice alone decides
    w = make_window(home, virtual_gpu="sm_100")  # as `tilescope --virtual-gpu sm_100`
    w.show()
    wait_ready(w)
    yield w
    w.close()
    mp.undo()


def _open_and_wait(win, words: str) -> None:
    win.open_kernel_file(SCRIPT)
    wait_until(lambda: win.banner.topic() == "file" and words in win.banner.text(), 120,
               f"the script's summary naming {words!r}")


def test_the_session_option_reaches_the_worker_and_not_the_settings(win, home):
    assert win.worker.client._env[ENV_VAR] == "sm_100"
    assert win.virtual_gpu.arch() == "sm_100" and "sm_100" in win.actions.virtual_gpu_action.text()
    _open_and_wait(win, "answered by a virtual sm_100 (NVIDIA B200, 148 SMs")
    assert win.settings.virtual_gpu == ""  # --virtual-gpu is this session's only


def test_choosing_sm_80_restarts_the_worker_and_reopens_the_script(win, home, monkeypatch):
    asked = []

    def get_item(_parent, _title, _label, labels, current, _editable):
        asked.append((list(labels), current))
        return VIRTUAL_GPUS["sm_80"].label, True

    monkeypatch.setattr(window_settings.QInputDialog, "getItem", staticmethod(get_item))
    pid = win.worker.pid
    said = []
    win.events.subscribe(StatusShown, lambda e: said.append(e.text))
    win.banner.clear("file")
    win.actions.virtual_gpu_action.trigger()
    # the chooser offered every virtual GPU, the current one (this session's sm_100) preselected
    assert asked == [([g.label for g in VIRTUAL_GPUS.values()], list(VIRTUAL_GPUS).index("sm_100"))]
    assert json.loads((home / "settings.json").read_text())["virtual_gpu"] == "sm_80"  # saved at once
    assert win.worker.client._env[ENV_VAR] == "sm_80" and win.worker.pid != pid
    # the shown script was opened again in the new worker: its device checks see an A100
    wait_until(lambda: win.banner.topic() == "file" and "answered by a virtual sm_80 (NVIDIA A100" in win.banner.text(),
               120, "the re-opened script's summary")
    assert "108 SMs" in win.banner.text()
    # the status bar said the worker restarts on it, then (its hello) that it answers
    assert any(t.startswith("restarting the worker on a virtual sm_80") for t in said)
    assert any("answered by a virtual sm_80" in t for t in said)
    assert "sm_80" in win.actions.virtual_gpu_action.text() and win.actions.virtual_gpu_action.isEnabled()
    wait_until(lambda: not win._busy_kinds(), 60, "the window to be idle")
    assert win.run_action.isEnabled()


def test_with_a_gpu_the_item_is_off_and_says_the_real_gpu_answers(win):
    a = win.actions.virtual_gpu_action
    win.events.publish(WorkerShown(True, "", "NVIDIA H100 80GB HBM3", "3.6.0", "NVIDIA H100 80GB HBM3"))
    assert not a.isEnabled() and "real GPU" in a.text() and "NVIDIA H100 80GB HBM3" in a.toolTip()
    win.events.publish(WorkerShown(False, "no CUDA", "CPU (Triton interpreter)", "3.6.0", None))
    assert a.isEnabled() and "sm_80" in a.text()


def test_a_virtual_gpu_that_does_not_exist_stops_the_gui_with_one_line(capsys):
    with pytest.raises(SystemExit) as e:
        gui_main(["--virtual-gpu", "sm_75"])
    assert e.value.code == 2
    assert "no virtual GPU 'sm_75': choose one of sm_80, sm_89, sm_90, sm_100" in capsys.readouterr().err
