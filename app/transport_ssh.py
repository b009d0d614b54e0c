"""The worker on another host, over OpenSSH. No Qt, no torch.

The worker already speaks its framed protocol over stdin and stdout (``app.protocol``), so a
remote worker is the same boot line run by ``ssh``: the local child is the ``ssh`` process, its
pipes carry the frames, and everything ``app.client`` does with a local worker — timeouts,
cancels, restarts after a crash, reloading the user's files — works unchanged. What differs:

- the command (``Remote.command``): ``ssh -o BatchMode=yes … HOST exec env TILESCOPE_…=… PYTHON -c
  BOOT`` — the remote interpreter and checkout default to this one's paths (a shared home, or
  ``ssh localhost``); ``TILESCOPE_*`` variables set here are passed along;
- the versions (``Remote.check_hello``): the worker's hello names the fingerprint of the types that
  cross the pipe (``kernels.data.wire``) and its numpy; a remote checkout whose types differ
  cannot talk to this window, and the client gives up with a sentence that says so instead of
  failing later on an unpicklable answer;
- how an end reads (``Remote.describe_exit``): ssh exits 255 when the connection fails or drops —
  said as a lost connection to the host, which the client then restarts like a crashed worker.

The remote worker ends when its stdin closes (``app.worker``), which is what sshd does to it
when the connection goes: a killed ``ssh`` leaves nothing running on the host.
"""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from kernels.data.wire import wire_version

from .worker_process import describe_exit, worker_command

__all__ = ["Remote", "SSH_OPTIONS", "parse_remote", "remote_of"]

_ROOT = str(Path(__file__).resolve().parents[1])
#: never ask for a password on a pipe nobody reads; notice a dead link within ~45 s
SSH_OPTIONS = ("-o", "BatchMode=yes", "-o", "ServerAliveInterval=15", "-o", "ServerAliveCountMax=3",
               "-T")
#: ssh's own status for "the connection failed or was lost"
_SSH_FAILED = 255


@dataclass(frozen=True)
class Remote:
    """Where a worker runs over ssh. ``host``: ``user@host`` or an alias of ``~/.ssh/config``;
    ``python``/``root``: the remote interpreter and checkout ("" = the same paths as here);
    ``options``: more ssh arguments (``-p 2222``, ``-i key``, ``-F config``)."""

    host: str
    python: str = ""
    root: str = ""
    options: tuple[str, ...] = field(default_factory=tuple)
    ssh: str = "ssh"

    def command(self, nice: int = 0, env: Mapping[str, str] | None = None) -> list[str]:
        """The local command line that starts the worker on the host."""
        python = self.python or sys.executable
        boot = worker_command(python, nice)
        if self.root and self.root != _ROOT:
            boot[-1] = boot[-1].replace(repr(_ROOT), repr(self.root))
        env = os.environ if env is None else env
        passed = [f"{k}={v}" for k, v in sorted(env.items()) if k.startswith("TILESCOPE_")]
        return self.command_for("env", "PYTHONUNBUFFERED=1", *passed, *boot)

    def command_for(self, *argv: str) -> list[str]:
        """The local command line that runs ``argv`` on the host (quoted for its shell)."""
        return [self.ssh, *SSH_OPTIONS, *self.options, self.host, "exec " + " ".join(shlex.quote(a) for a in argv)]

    def describe_exit(self, rc: int | None) -> str:
        """How the ssh process ended, for the client's crash message."""
        if rc == _SSH_FAILED:
            return f"lost its ssh connection to {self.host} (ssh exited with status 255)"
        return f"on {self.host} (over ssh) {describe_exit(rc)}"

    def check_hello(self, hello: object) -> str | None:
        """Why the remote worker cannot serve this window (None: it can)."""
        versions = hello.get("versions", {}) if isinstance(hello, dict) else {}
        theirs = versions.get("tilescope_wire", "")
        ours = wire_version()
        if theirs != ours:
            return (f"The worker on {self.host} runs a different Tilescope (its data types {theirs or 'unknown'}, "
                    f"this window's {ours}): update the checkout there ({self.root or _ROOT}) to this one's "
                    "version, or point --remote-root at a matching one.")
        import numpy

        there = str(versions.get("numpy", ""))
        if there.split(".")[0] != numpy.__version__.split(".")[0]:
            return (f"The worker on {self.host} has numpy {there or 'unknown'} and this window numpy "
                    f"{numpy.__version__}: arrays cannot cross between numpy 1 and 2; install the same major "
                    "version on both sides.")
        return None


def parse_remote(text: str, python: str = "", root: str = "", options: Sequence[str] = ()) -> Remote | None:
    """``--remote`` / the settings' field: "user@host" (an ssh alias too; ``host:port`` is
    read as ``-p port``). Empty text: None (the worker runs here)."""
    text = (text or "").strip()
    if not text:
        return None
    opts = list(options)
    host = text
    if text.count(":") == 1 and text.rsplit(":", 1)[1].isdigit():
        host, port = text.rsplit(":", 1)
        opts = ["-p", port, *opts]
    if host.startswith("-") or not host or any(c.isspace() for c in host):
        raise ValueError(f"not an ssh host: {text!r} (user@host, host or host:port)")
    return Remote(host, python=python, root=root, options=tuple(opts))


def remote_of(settings: object) -> Remote | None:
    """The settings' remote worker (``remote``, ``remote_python``, ``remote_root``), or None when
    the worker runs here or the field cannot be read as a host."""
    try:
        return parse_remote(getattr(settings, "remote", ""), getattr(settings, "remote_python", ""),
                            getattr(settings, "remote_root", ""))
    except ValueError:
        return None
