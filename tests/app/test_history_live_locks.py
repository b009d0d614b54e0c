"""Several histories in one process keep their locks on ``history.db`` while they live, so another
process cannot take the file from under them (issue #25, "file is not a database").

POSIX advisory locks belong to the process: closing *any* descriptor of a file drops every lock
the process holds on it, those of live SQLite connections included. The old ``History.open``
read the file's header with ``open()`` while other histories' connections were live; an outside
program in ``locking_mode=EXCLUSIVE`` then got the lock those connections still believed they
held, wrote, checkpointed and deleted the write-ahead log on closing. The runs written after it
went into the deleted log, a fresh reader got "disk I/O error", the next ``History.open`` called
the file damaged and moved it aside — every run gone from the user's view.

If this fails: a backup tool (or ``sqlite3`` in a shell) run while the window is open silently
loses the runs of the session, or makes the next start say the history was damaged.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: the whole sequence runs in a child: the locks are the process's, so pytest's own must not mix in
_SEQUENCE = """
    import json, sqlite3, subprocess, sys
    from app.history import History
    from kernels.data.results import RunRequest, RunResult

    LOCKER = '''
    import sqlite3, sys
    conn = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=0.5)
    try:
        conn.execute("PRAGMA locking_mode=EXCLUSIVE")
        conn.execute("BEGIN EXCLUSIVE")
        for k in range(5):
            conn.execute("INSERT INTO runs (time, kernel, vals) VALUES (0, 'locker', ?)", ('{"i": %d}' % (900 + k),))
        conn.execute("COMMIT")
        print("committed")
    except sqlite3.Error as e:
        print("refused:", e)
    conn.close()
    '''
    db = sys.argv[1]
    out = {"acknowledged": []}

    def add(h, i):
        h.add(RunResult(RunRequest("vector_add"), "vector_add", {"i": i}, "interpreter", "CPU"))
        out["acknowledged"].append(i)

    def flush(h):
        getattr(h, "flush", lambda t: True)(300)  # the old History wrote inside add()

    hs = [History.open(db, lock_wait_s=0.2) for _ in range(3)]
    for k, h in enumerate(hs):
        add(h, k)
    for h in hs:
        flush(h)
    locker = subprocess.run([sys.executable, "-c", LOCKER, db], capture_output=True, text=True, timeout=300)
    out["locker"] = locker.stdout.strip() + locker.stderr.strip()
    for k, h in enumerate(hs):
        add(h, 10 + k)
    for h in hs:
        flush(h)
    try:  # what another program (or the user's sqlite3) reads while the window is open
        conn = sqlite3.connect(db, timeout=60)
        out["read_while_live"] = conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
        conn.close()
    except sqlite3.Error as e:
        out["read_while_live"] = f"{type(e).__name__}: {e}"
    fourth = History.open(db, lock_wait_s=0.2)
    out["fourth_warning"] = fourth.warning
    hs.append(fourth)
    for h in hs:
        flush(h)
        h.close()
    print(json.dumps(out))
"""


def test_histories_keep_their_locks_so_an_exclusive_locker_cannot_damage_the_file(tmp_path):
    db = tmp_path / "history.db"
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(_SEQUENCE), str(db)], cwd=ROOT, text=True,
                       capture_output=True, timeout=600)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout.strip().splitlines()[-1])
    locker_rows = 5 if out["locker"] == "committed" else 0
    # was: "OperationalError: disk I/O error" — the locker had deleted the log the live connections used
    assert out["read_while_live"] == 6 + locker_rows, out
    assert out["fourth_warning"] is None, out  # was: "… was damaged (SQLite: disk I/O error). It was moved to …"
    assert not list(tmp_path.glob("history.db.corrupt-*"))
    conn = sqlite3.connect(db, timeout=60)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        found = sorted(json.loads(v)["i"] for (v,) in conn.execute("SELECT vals FROM runs"))
    finally:
        conn.close()
    assert found == sorted(out["acknowledged"] + [900 + k for k in range(locker_rows)]), (found, out)
    # the histories' locks held: the outside program could not take the file while they lived
    assert out["locker"].startswith("refused: database is locked"), out
