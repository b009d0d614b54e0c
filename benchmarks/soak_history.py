"""Soak of the run history: many runs stored while other processes lock the file, the disk
fills and empties, and the process writing the history (the window's) is SIGKILLed — then count
that every run is in the file, once.

A child process plays the window: it opens ``History`` and stores a run for each ``add N`` read
on stdin, answering ``ok N`` once ``add()`` returned (the run is then the window's: shown, and
it must never be lost). The parent, seeded, at random moments:

- starts a **lock holder**: another process in an exclusive transaction on the file for 0.05–1 s
  (nobody else can write); at a third of the child's starts one holding the whole file
  (``locking_mode=EXCLUSIVE``: nobody can even read) for 1.5–4 s, so those sessions open on a
  locked file;
- opens a **disk-full window** in the child (``RLIMIT_FSIZE`` lowered below the files' sizes:
  every write that grows a file fails, as on a full disk) for a few runs, then gives room back;
- **SIGKILLs** the child and starts a new one (no close, nothing flushed).

A run made while the disk is full lives in memory only until the disk has room (nowhere else
can hold it; the banner says so): the parent kills the child only when the child reports that
no run is in memory only (``status``), which is the guarantee the history gives.

At the end the parent opens the history once more (it replays the journals of killed children),
waits until everything is written, and counts: every acknowledged run present, none twice.

    PYTHONPATH=. .venv/bin/python benchmarks/soak_history.py --runs 1000 --seed 1

``--load-cost N [--keep DIR]``: what a history of N runs costs at start-up instead — fills a
scratch data folder with N runs of a real vector_add result (through ``History``), then times
``History.open`` (on the window's GUI thread) and the table's first read (``list(500)``, on a
background thread) three times each, and one ``MainWindow()`` (offscreen, no worker) up to the
History table's rows:

    QT_QPA_PLATFORM=offscreen PYTHONPATH=. .venv/bin/python benchmarks/soak_history.py --load-cost 100000
"""

from __future__ import annotations

import argparse
import json
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_CHILD = r"""
import resource, sys
from app.history import History
from kernels.data.results import RunRequest, RunResult
h = History.open(sys.argv[1], lock_wait_s=0.3)
print("open", json.dumps(h.warning), flush=True)
soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
for line in sys.stdin:
    cmd, _, arg = line.strip().partition(" ")
    if cmd == "add":
        i = int(arg)
        h.add(RunResult(RunRequest("vector_add"), "vector_add", {"i": i}, "interpreter", "CPU", notes=["x" * 300]))
        print("ok", i, flush=True)
    elif cmd == "full":
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, hard))
        print("full", flush=True)
    elif cmd == "room":
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        print("room", flush=True)
    elif cmd == "status":
        with h._lock:
            bare = len(h._unjournalled)
        print("status", h.pending(), bare, flush=True)
    elif cmd == "close":
        h.close(600)
        print("closed", flush=True)
        break
"""

_LOCKER = r"""
import sqlite3, sys, time
conn = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=30)
try:
    if sys.argv[3] == "whole-file":  # nobody else may even read (possible only when no one is connected)
        conn.execute("PRAGMA locking_mode=EXCLUSIVE")
    conn.execute("BEGIN EXCLUSIVE")
except sqlite3.Error as e:
    print("nolock", e, flush=True)
    sys.exit(0)
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
conn.execute("ROLLBACK")
"""


class Child:
    def __init__(self, db: Path) -> None:
        self.p = subprocess.Popen([sys.executable, "-c", "import json\n" + _CHILD, str(db)], cwd=ROOT,
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.opened = self._read().split(" ", 1)[1]

    def _read(self) -> str:
        line = self.p.stdout.readline()
        if not line:
            raise RuntimeError(f"the history child died (status {self.p.wait()})")
        return line.strip()

    def ask(self, cmd: str) -> str:
        self.p.stdin.write(cmd + "\n")
        self.p.stdin.flush()
        return self._read()

    def kill(self) -> None:
        self.p.send_signal(signal.SIGKILL)
        self.p.wait()


def soak(db: Path, runs: int, seed: int, log=print) -> dict:
    rng = random.Random(seed)
    lockers: list[subprocess.Popen] = []
    counts = dict(kills=0, lock_holders=0, full_windows=0, runs_while_locked=0, runs_while_full=0,
                  locked_starts=0)

    def start_locker(lo: float = 0.05, hi: float = 1.0, mode: str = "writer") -> None:
        p = subprocess.Popen([sys.executable, "-c", _LOCKER, str(db), f"{rng.uniform(lo, hi):.2f}", mode],
                             stdout=subprocess.PIPE, text=True)
        if p.stdout.readline().startswith("locked"):
            lockers.append(p)
            counts["lock_holders"] += 1

    def locked() -> bool:
        lockers[:] = [p for p in lockers if p.poll() is None]
        return bool(lockers)

    acked: list[int] = []
    child = Child(db)
    full_left = 0
    t0 = time.monotonic()
    for i in range(runs):
        roll = rng.random()
        if roll < 0.03 and not locked():
            start_locker()
        elif roll < 0.045 and full_left == 0:
            assert child.ask("full") == "full"
            full_left = rng.randint(1, 12)
            counts["full_windows"] += 1
        elif roll < 0.075 and full_left == 0:
            while True:  # the guarantee: no run in memory only when the window dies
                _, pending, bare = child.ask("status").split()
                if bare == "0":
                    break
                time.sleep(0.05)
            child.kill()
            counts["kills"] += 1
            if rng.random() < 0.3 and not locked():
                start_locker(1.5, 4.0, "whole-file")  # outlasts the new window's start
            child = Child(db)
            if "locked" in child.opened:
                counts["locked_starts"] += 1
        counts["runs_while_locked"] += locked()
        counts["runs_while_full"] += full_left > 0
        time.sleep(rng.uniform(0, 0.01))  # runs come a few ms apart at most (a sweep's points)
        answer = child.ask(f"add {i}")
        assert answer == f"ok {i}", answer
        acked.append(i)
        if full_left:
            full_left -= 1
            if full_left == 0:
                assert child.ask("room") == "room"
        if (i + 1) % 100 == 0:
            log(f"{i + 1} runs, {counts}")
    if full_left:
        child.ask("room")
    for p in lockers:
        p.wait()
    assert child.ask("close") == "closed"
    child.p.wait()
    # a last session: replays what killed children left in their journals
    from app.history import History

    h = History.open(db)
    assert h.flush(600)
    h.close()
    conn = sqlite3.connect(db)
    try:
        ok = conn.execute("PRAGMA integrity_check").fetchone()[0]
        vals = [json.loads(v)["i"] for (v,) in conn.execute("SELECT vals FROM runs")]
    finally:
        conn.close()
    left = sorted(p.name for p in db.parent.glob("history.db.pending-*"))
    return dict(runs=runs, acknowledged=len(acked), rows_in_file=len(vals), distinct=len(set(vals)),
                missing=sorted(set(acked) - set(vals))[:20], duplicates=len(vals) - len(set(vals)),
                integrity=ok, journals_left=left, seconds=round(time.monotonic() - t0, 1), seed=seed, **counts)


_WINDOW = r"""
import os, sys, time
from PySide6.QtWidgets import QApplication
app = QApplication.instance() or QApplication([])
from app.main_window import MainWindow
t0 = time.perf_counter()
win = MainWindow(autostart=False)
t1 = time.perf_counter()
win.show()
got = []
win.history_pane.reader.rowsRead.connect(lambda rows: got.append((time.perf_counter(), len(rows))))
win.history_pane.refresh()
while not got and time.perf_counter() - t1 < 600:
    app.processEvents()
    time.sleep(0.001)
print(json.dumps(dict(window_init_s=round(t1 - t0, 3), rows_shown_after_s=round(got[0][0] - t1, 3),
                      rows_shown=got[0][1], runs=win.history.count())))
win.close()
"""


def load_cost(n: int, folder: Path, log=print) -> dict:
    """Start-up cost of a history of ``n`` runs in ``folder`` (filled first if it has none)."""
    import os

    from app.history import History

    db = folder / "history.db"
    out: dict = dict(runs=n)
    if not db.exists():
        import kernels.catalog  # noqa: F401 - registers vector_add
        from kernels import engine
        from kernels.data.results import RunRequest

        r = engine.run(RunRequest("vector_add", {}, backend="interpreter", bench=False, torch_baseline=False))
        t0 = time.perf_counter()
        h = History.open(db)
        for k in range(0, n, 2000):
            h.add_many([r] * min(2000, n - k))
            assert h.flush(600)
        h.close()
        out["fill_s"] = round(time.perf_counter() - t0, 1)
    out["file_mib"] = round(db.stat().st_size / 2**20, 1)
    out["open_s"], out["list500_s"] = [], []
    for _ in range(3):
        t0 = time.perf_counter()
        h = History.open(db)
        t1 = time.perf_counter()
        h.list(limit=500)
        out["open_s"].append(round(t1 - t0, 3))
        out["list500_s"].append(round(time.perf_counter() - t1, 3))
        assert h.count() == n, h.count()
        h.close()
    log(f"{n} runs: {out}")
    env = dict(os.environ, TILESCOPE_DATA_DIR=str(folder), TILESCOPE_CONFIG_DIR=str(folder / "config"),
               TILESCOPE_CACHE_DIR=str(folder / "cache"), QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "offscreen"),
               PYTHONPATH=str(ROOT))
    w = subprocess.run([sys.executable, "-c", "import json\n" + _WINDOW], cwd=ROOT, env=env, text=True,
                       capture_output=True, timeout=900)
    out.update(json.loads(w.stdout.strip().splitlines()[-1]) if w.returncode == 0 else dict(window_error=w.stderr[-500:]))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", help="write the result here")
    ap.add_argument("--load-cost", type=int, metavar="N", help="time the start-up with a history of N runs instead")
    ap.add_argument("--keep", help="with --load-cost: the data folder to fill (or reuse), kept afterwards")
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    if args.load_cost is not None:
        with tempfile.TemporaryDirectory(prefix="tilescope-history-load-") as tmp:
            folder = Path(args.keep or tmp)
            folder.mkdir(parents=True, exist_ok=True)
            res = load_cost(args.load_cost, folder)
        print(json.dumps(res, indent=1))
        if args.json:
            Path(args.json).write_text(json.dumps(res, indent=1) + "\n")
        return 0
    with tempfile.TemporaryDirectory(prefix="tilescope-soak-history-") as tmp:
        res = soak(Path(tmp) / "history.db", args.runs, args.seed)
    print(json.dumps(res, indent=1))
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=1) + "\n")
    good = (not res["missing"] and res["duplicates"] == 0 and res["rows_in_file"] == res["acknowledged"]
            and res["integrity"] == "ok")
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
