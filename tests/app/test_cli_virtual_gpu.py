"""``--virtual-gpu`` on the command line: the worker that runs the user's script answers its device
checks as the chosen GPU (open, run and trace), a wrong name is one error line, and the window's
setting keeps only a name the worker knows.

What breaks if these fail: a script that chooses its grid or its path by the GPU it finds
(tutorial 09's ``NUM_SMS``, tutorial 10's sm_100 check) cannot be opened as on another GPU from the
command line, or ``--virtual-gpu`` reaches the command's own process but not its worker.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.cli import main
from app.settings import Settings
from kernels.data.virtual_gpus import ENV_VAR, VIRTUAL_GPUS, chosen_gpu, normalize, worker_env

SCRIPTS = Path(__file__).resolve().parents[1] / "kernels" / "scripts" / "tutorial_patterns"


def test_open_answers_the_scripts_device_checks_as_the_chosen_gpu(capsys, monkeypatch):
    monkeypatch.delenv(ENV_VAR, raising=False)
    code = main(["open", str(SCRIPTS / "device_checks.py"), "-b", "interpreter", "--virtual-gpu", "sm_100", "--log"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "sm_100, 148 SMs" in out  # what the script printed from get_device_capability / properties
    assert "answered by a virtual sm_100 (NVIDIA B200, 148 SMs" in out


def test_run_and_trace_re_run_the_script_on_the_chosen_gpu(capsys, monkeypatch):
    """persistent_pdl.py takes one program per SM and uses PDL from sm_90 on: on a virtual A100
    its launch has 108 programs and no PDL, and a re-run there checks against that launch."""
    monkeypatch.delenv(ENV_VAR, raising=False)
    script = str(SCRIPTS / "persistent_pdl.py")
    code = main(["run", "--file", script, "-b", "interpreter", "--virtual-gpu", "sm_80", "--no-bench", "--json"])
    r = json.loads(capsys.readouterr().out)
    assert code == 0 and r["check"]["passed"]
    assert r["grid"][0] == 108 and r["values"]["NUM_PROGRAMS"] == 108 and r["values"]["USE_GDC"] is False
    code = main(["trace", "--file", script, "--virtual-gpu", "sm_89", "--json", "-"])
    t = json.loads(capsys.readouterr().out)
    assert code == 0 and t["grid"][0] == VIRTUAL_GPUS["sm_89"].multiprocessor_count == 142


def test_a_virtual_gpu_that_does_not_exist_is_one_error_line(capsys):
    code = main(["open", str(SCRIPTS / "device_checks.py"), "--virtual-gpu", "sm_75"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert "no virtual GPU 'sm_75': choose one of sm_80, sm_89, sm_90, sm_100" in err


def test_names_and_the_workers_environment():
    assert normalize("SM_100") == normalize("100") == normalize("10.0") == "sm_100"
    with pytest.raises(ValueError, match="sm_75"):
        normalize("sm_75")
    assert worker_env(None) is None and worker_env("") is None  # the client's default: this environment
    env = worker_env("90", {"PATH": "/bin", ENV_VAR: "sm_80"})
    assert env == {"PATH": "/bin", ENV_VAR: "sm_90"}  # the option wins over the variable
    assert chosen_gpu(environ={}).arch == "sm_90" and chosen_gpu(environ={ENV_VAR: "sm_89"}).arch == "sm_89"
    with pytest.raises(ValueError, match=ENV_VAR):
        chosen_gpu(environ={ENV_VAR: "volta"})


def test_the_settings_keep_a_known_virtual_gpu_only(tmp_path):
    path = tmp_path / "settings.json"
    s = Settings.load(path)
    assert s.virtual_gpu == ""
    s.virtual_gpu = "sm_100"
    s.save(path)
    assert Settings.load(path).virtual_gpu == "sm_100"
    path.write_text(json.dumps({"version": 1, "virtual_gpu": "sm_75"}))
    bad = Settings.load(path)
    assert bad.virtual_gpu == "" and "virtual_gpu" in (bad.warning or "")
