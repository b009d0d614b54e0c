"""The window while the run history cannot be written: a run made while another program holds
the history's lock is shown at once, the banner says it is not saved yet, and once the lock is
gone the run is written and the banner goes — the window never waits on the lock.

If this fails: runs made while a backup tool holds history.db vanish without a word, or the
window freezes seconds per run waiting for the lock.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys

import pytest

pytest.importorskip("PySide6.QtWidgets")

from real_window import make_window, wait_ready, wait_until  # noqa: E402

_LOCKER = """
import sqlite3, sys, time
conn = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=60)
conn.execute("BEGIN EXCLUSIVE")
conn.execute("INSERT INTO runs (time, kernel) VALUES (0, 'uncommitted')")
print("locked", flush=True)
time.sleep(600)
"""


@pytest.mark.timeout(1200)  # deadlines of minutes: a worker start and a run on a loaded machine
def test_a_run_made_while_the_history_is_locked_is_said_on_the_banner_and_saved_after(qapp, tmp_path):
    w = make_window(tmp_path)
    w.show()
    try:
        wait_ready(w)
        w.panel.set_backend("interpreter")
        w.select_kernel("vector_add")
        w.panel.set_values({"N": 1000, "BLOCK_SIZE": 256, "dtype": "fp32"})
        locker = subprocess.Popen([sys.executable, "-c", _LOCKER, str(tmp_path / "history.db")],
                                  stdout=subprocess.PIPE, text=True)
        try:
            assert locker.stdout.readline().strip() == "locked"
            n = len(w.throughput.results())
            assert w.run() is not None
            wait_until(lambda: len(w.throughput.results()) == n + 1, 600, "the run")
            assert w.throughput.results()[-1].check.passed
            # generous deadlines: the writer's first try waits a quarter second for the lock
            wait_until(lambda: w.banner.topic() == "history_save", 600, "the banner about the unsaved run")
            text = w.banner.text()
            assert "1 run(s) are not saved yet" in text and "locked" in text, text
            assert w.history.count() == 1  # shown in the history all the same
        finally:
            locker.kill()
            locker.wait()
        wait_until(lambda: w.banner.topic() != "history_save", 600, "the banner to go once the run is saved")
    finally:
        w.close()
    conn = sqlite3.connect(tmp_path / "history.db", timeout=60)
    try:
        rows = [(k, json.loads(v)) for k, v in conn.execute("SELECT kernel, vals FROM runs")]
    finally:
        conn.close()
    assert [k for k, _ in rows] == ["vector_add"] and rows[0][1]["N"] == 1000
