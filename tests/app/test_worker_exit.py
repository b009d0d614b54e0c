"""A reply stream that breaks: the process's own end explains it, or the stream is to blame."""

from __future__ import annotations

import subprocess
import sys

from app.worker_process import describe_exit, msg_end_is_death


def test_a_stream_broken_by_the_process_ending_is_told_as_that_end():
    # breaks if a worker killed while it wrote a large reply were reported as a broken stream
    # instead of "killed by SIGKILL" (the kill tests' trace case on CI, with 2.5 MB frames)
    p = subprocess.Popen([sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"])
    assert msg_end_is_death(p, wait_s=10.0)
    assert describe_exit(p.returncode).startswith("was killed by SIGKILL")


def test_a_stream_broken_while_the_process_lives_is_the_streams_fault():
    p = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        assert not msg_end_is_death(p, wait_s=0.2)
    finally:
        p.kill()
        p.wait()
