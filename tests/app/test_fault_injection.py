"""Fault injection on the command line: hostile kernel files (generated from the templates in
``tests/app/hostile``), unwritable outputs and a worker killed mid-sweep, each through ``python -m
app`` as a user types it. Each case asserts a clear message (one ``error:`` line), a clean exit
status, no process left behind, and — where there is one — the finished part of the work kept.

The commands run as subprocesses, a few at a time (``cli_runs``): each with a user file starts a
worker (torch + triton, ~3 s), and a file that hangs, exits or forks at import must not take the
test process with it.

If these fail: a kernel file's import runs in the CLI's own process again (a hang no ``--timeout``
stops, an ``os._exit`` that ends the command without a word, a fork that prints the result twice,
prints that break ``--json``), a forked child outlives the command, or a killed sweep loses the
points it finished.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest
from hostile import TAG_VAR, kernel_name, tagged, write

ROOT = Path(__file__).resolve().parents[2]
BASE = ["-b", "interpreter", "--no-torch"]
SIZE = {"spec": ["-s", "N=1000"], "script": []}  # a script's sizes are its wrapper's (n here)


@dataclass
class Ran:
    argv: list[str]
    code: int
    out: str
    err: str
    wall: float
    strays: list[int]

    @property
    def err_lines(self) -> list[str]:
        return [ln for ln in self.err.splitlines() if ln.strip()]

    def one_error(self, *words: str) -> str:
        """The single ``error:`` line, which holds every word."""
        errs = [ln for ln in self.err_lines if ln.startswith("error:")]
        assert len(errs) == 1, (self.code, self.err[-3000:])
        assert all(w in errs[0] for w in words), errs[0]
        return errs[0]


def cli(argv: list[str], timeout: float = 90) -> Ran:
    tag = uuid.uuid4().hex
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONUNBUFFERED="1", **{TAG_VAR: tag})
    t0 = time.monotonic()
    p = subprocess.Popen([sys.executable, "-m", "app", *argv], cwd=ROOT, env=env, text=True,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, 9)
        for pid in tagged(tag):
            os.kill(pid, 9)
        out, err = p.communicate()
        return Ran(argv, -999, out, err + f"\n[test] the command hung for {timeout:g} s", time.monotonic() - t0, [])
    wall = time.monotonic() - t0
    # what the command started and left behind, once it ended (a moment for its exit to land)
    time.sleep(0.2)
    strays = tagged(tag)
    for pid in strays:  # never leave them to the next test
        try:
            os.kill(pid, 9)
        except ProcessLookupError:
            pass
    return Ran(argv, p.returncode, out, err, wall, strays)


def _cases(tmp: Path) -> dict[str, list[str]]:
    def f(kind: str, behaviour: str, **kw) -> str:
        return str(write(tmp, kind, behaviour, **kw))

    cases: dict[str, list[str]] = {}
    for kind in ("spec", "script"):
        run = ["run", "--file"]
        base = [*BASE, *SIZE[kind]]
        cases[f"{kind}-hang"] = [*run, f(kind, "hang"), *base, "--timeout", "3"]
        cases[f"{kind}-exit-run"] = [*run, f(kind, "exit"), *base]
        cases[f"{kind}-sys_exit"] = [*run, f(kind, "sys_exit"), *base]
        cases[f"{kind}-raise"] = [*run, f(kind, "raise"), *base]
        cases[f"{kind}-fork"] = [*run, f(kind, "fork"), *base]
        cases[f"{kind}-noisy-json"] = [*run, f(kind, "noisy"), *base, "--json"]
        cases[f"{kind}-self_delete"] = [*run, f(kind, "self_delete"), *base]
        cases[f"{kind}-kill_self"] = [*run, f(kind, "kill_self"), *base]
        cases[f"{kind}-stop_self"] = [*run, f(kind, "stop_self"), *base, "--timeout", "3"]
    cases["spec-fork_sleep"] = ["run", "--file", f("spec", "fork_sleep"), *BASE, *SIZE["spec"], "--timeout", "60"]
    cases["spec-exit-trace"] = ["trace", "--file", f("spec", "exit", filename="spec_exit_t.py"), "-s", "N=1000"]
    cases["spec-raise_after_2-open"] = ["open", f("script", "raise_after_2", n_calls=4), "-b", "interpreter"]
    cases["sweep-killed"] = ["sweep", "--file", f("spec", "kill_at_block_128"), "-p", "BLOCK_SIZE=32,64,128,256",
                             "-b", "interpreter", "--no-torch", "-s", "N=1000", "--timeout", "60"]
    cases["list-collide"] = ["list", "--file", f("spec", "good", name="vector_add", filename="collide.py")]
    cases["list-good"] = ["list", "--file", f("spec", "good")]
    return cases


@pytest.fixture(scope="module")
def cli_runs(tmp_path_factory) -> dict[str, Ran]:
    """Every command of this file, four at a time (each waits mostly on its worker's start)."""
    tmp = tmp_path_factory.mktemp("hostile-cli")
    cases = _cases(tmp)
    with ThreadPoolExecutor(4) as pool:
        futures = {k: pool.submit(cli, argv) for k, argv in cases.items()}
        return {k: fut.result() for k, fut in futures.items()}


KINDS = ("spec", "script")


# ---------------------------------------------------------------------------------------------
# a user file is imported in a worker only, under the timeout


@pytest.mark.parametrize("kind", KINDS)
def test_a_file_whose_import_never_returns_is_stopped_by_the_timeout(cli_runs, kind):
    r = cli_runs[f"{kind}-hang"]
    assert r.code == 1, r.err
    r.one_error("did not finish within 3 s", f"{kind}_hang.py")
    assert r.out == "" and r.wall < 40 and not r.strays


def test_the_cli_never_imports_a_user_file_itself(tmp_path, capsys):
    from app.cli import main
    from kernels.specs.spec import REGISTRY

    path = write(tmp_path, "spec", "good", name="hostile_in_process")
    assert main(["list", "--file", str(path)]) == 0
    assert "hostile_in_process" in capsys.readouterr().out  # listed: the worker loaded it
    assert "hostile_in_process" not in REGISTRY.names()  # ... and this process never did
    assert not [m for m in sys.modules if m.startswith("tilescope_user_spec_good")]


@pytest.mark.parametrize("case", ["spec-exit-run", "script-exit-run", "spec-exit-trace"])
def test_os_exit_at_import_is_one_error_line_not_a_silent_exit_3(cli_runs, case):
    r = cli_runs[case]
    assert r.code == 1, (r.code, r.err)
    r.one_error("exited with status 3", "exit")
    assert not r.strays


@pytest.mark.parametrize("kind", KINDS)
def test_sys_exit_or_an_exception_at_import_is_a_user_file_error(cli_runs, kind):
    r = cli_runs[f"{kind}-sys_exit"]
    assert r.code == 2
    line = r.one_error("4")
    assert "SystemExit" in line or "exited with status 4" in line, line
    r = cli_runs[f"{kind}-raise"]
    assert r.code == 2
    r.one_error("RuntimeError: hostile: raised at import")


@pytest.mark.parametrize("kind", KINDS)
def test_a_file_that_forks_at_import_prints_the_result_once_and_leaves_nothing(cli_runs, kind):
    r = cli_runs[f"{kind}-fork"]
    assert r.code == 0, r.err
    assert r.out.count("correctness") == 1, r.out
    assert not r.strays
    if kind == "spec":  # the child sleeps 300 s at import: ended when the load returns
        r = cli_runs["spec-fork_sleep"]
        assert r.code == 0, r.err
        assert r.out.count("correctness") == 1 and not r.strays, (r.out, r.strays)


@pytest.mark.parametrize("kind", KINDS)
def test_prints_of_a_kernel_file_never_reach_the_json(cli_runs, kind):
    # print(), a JSON-looking print, os.write(1, …) and 200 000 lines, all at import
    r = cli_runs[f"{kind}-noisy-json"]
    assert r.code == 0, r.err[-2000:]
    data = json.loads(r.out)
    assert data["kernel"] == kernel_name(kind, Path(f"{kind}_noisy.py")) and data["check"]["passed"]


@pytest.mark.parametrize("kind", KINDS)
def test_a_file_that_deletes_itself_runs_or_says_why(cli_runs, kind):
    r = cli_runs[f"{kind}-self_delete"]
    assert r.code == 0, r.err
    assert "Traceback" not in r.err and "PASS" in r.out


@pytest.mark.parametrize("kind", KINDS)
def test_a_worker_killed_or_stopped_at_import_is_a_clear_error(cli_runs, kind):
    r = cli_runs[f"{kind}-kill_self"]
    assert r.code == 1
    r.one_error("killed by SIGKILL")
    assert not r.strays
    r = cli_runs[f"{kind}-stop_self"]  # SIGSTOP: it never answers; the timeout ends it
    assert r.code == 1
    r.one_error("did not finish within 3 s")
    assert not r.strays


def test_a_script_that_raises_after_two_launches_keeps_them(cli_runs):
    r = cli_runs["spec-raise_after_2-open"]
    assert r.code == 0, r.err
    assert "2 launch(es) captured" in r.out and "hostile: launch 3 refused" in r.out


def test_sigkill_mid_sweep_prints_the_points_already_finished(cli_runs):
    r = cli_runs["sweep-killed"]
    assert r.code == 1, (r.code, r.out, r.err)
    r.one_error("killed by SIGKILL")
    rows = [ln.split() for ln in r.out.splitlines() if ln[:3] in ("32 ", "64 ")]
    assert [row[:2] for row in rows] == [["32", "pass"], ["64", "pass"]], r.out
    assert "stopped:" in r.out and not r.strays


def test_list_refuses_a_file_whose_kernel_takes_a_catalog_name(cli_runs):
    r = cli_runs["list-collide"]
    assert r.code == 2 and r.out == ""
    r.one_error("'vector_add'", "already loaded")
    r = cli_runs["list-good"]
    assert r.code == 0 and "hostile_add" in r.out and "vector_add" in r.out


# ---------------------------------------------------------------------------------------------
# outputs that cannot be written


@pytest.fixture
def not_a_dir(tmp_path) -> Path:
    f = tmp_path / "a_file"
    f.write_text("not a folder")
    return f


@pytest.mark.parametrize("option", ["--png", "--npz", "--json"])
def test_trace_refuses_an_unwritable_output_before_the_work(option, not_a_dir, tmp_path, capsys, monkeypatch):
    from app.cli import main
    from kernels import trace as tracer

    calls: list = []
    monkeypatch.setattr(tracer, "trace", lambda *a, **k: calls.append(a) or pytest.fail("traced anyway"))
    for target in (not_a_dir / "out.x", tmp_path / "no" / "such" / "dir" / "out.x", tmp_path):
        code = main(["trace", "vector_add", "-s", "N=1000", option, str(target)])
        err = capsys.readouterr().err.strip().splitlines()
        assert code == 2 and len(err) == 1 and err[0].startswith("error: ") and str(target) in err[0], err
        assert option in err[0]
    assert not calls


def test_open_refuses_a_reproducer_folder_it_cannot_write_before_running_the_script(not_a_dir, tmp_path, capsys):
    from app.cli import main

    script = write(tmp_path, "script", "good")
    for target in (not_a_dir, not_a_dir / "sub"):
        code = main(["open", str(script), "--reproducer", str(target)])
        err = capsys.readouterr().err.strip().splitlines()
        assert code == 2 and len(err) == 1 and "--reproducer" in err[0] and "not a folder" in err[0], err


def test_a_trace_whose_file_fails_mid_write_is_kept_and_the_message_says_where(tmp_path, capsys, monkeypatch):
    import numpy as np

    from app.cli import main

    def full_disk(*_a, **_k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(np, "savez_compressed", full_disk)
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    target = tmp_path / "out.npz"
    code = main(["trace", "vector_add", "-s", "N=1000", "--npz", str(target), "--json", str(tmp_path / "t.json")])
    cap = capsys.readouterr()
    err = [ln for ln in cap.err.splitlines() if ln.startswith("error:")]
    assert code == 1 and len(err) == 1 and "No space left on device" in err[0], cap.err
    kept = err[0].split("kept in ")[-1].rstrip(")").split()[0].rstrip(";,.")
    assert Path(kept).exists() and kept.endswith(".pkl"), err[0]
    assert (tmp_path / "t.json").exists()  # the other outputs were still written
    assert "programs" in cap.out  # and the summary printed
