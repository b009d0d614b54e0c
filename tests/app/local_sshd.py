"""A real OpenSSH server on localhost for the remote-worker tests (imported as ``real_window`` is).

``LocalSshd.start(folder)`` generates a host key and a client key in ``folder``, writes an sshd
config that accepts only that key for the current user on a free high port, starts ``sshd -D``
and waits until it answers. ``remote()`` is the ``app.transport_ssh.Remote`` that reaches it. The
tests skip when ``sshd`` or ``ssh`` is not installed (``.ci/run`` installs openssh-server).
"""

from __future__ import annotations

import getpass
import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

from app.transport_ssh import Remote

__all__ = ["LocalSshd", "sshd_binary"]


def sshd_binary() -> str | None:
    """The sshd executable, or None (not installed)."""
    for p in (shutil.which("sshd"), "/usr/sbin/sshd", "/usr/local/sbin/sshd"):
        if p and os.access(p, os.X_OK):
            return p
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LocalSshd:
    def __init__(self, folder: Path, proc: subprocess.Popen, port: int, key: Path) -> None:
        self.folder, self.proc, self.port, self.key = folder, proc, port, key

    @classmethod
    def start(cls, folder: Path, timeout_s: float = 30.0) -> LocalSshd:
        sshd = sshd_binary()
        if sshd is None or shutil.which("ssh") is None:
            raise FileNotFoundError("sshd or ssh is not installed")
        folder.mkdir(parents=True, exist_ok=True)
        os.chmod(folder, 0o700)
        host_key, key = folder / "host_ed25519", folder / "client_ed25519"
        for k in (host_key, key):
            subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(k)], check=True)
        auth = folder / "authorized_keys"
        auth.write_text(Path(f"{key}.pub").read_text())
        os.chmod(auth, 0o600)
        if os.geteuid() == 0:
            Path("/run/sshd").mkdir(exist_ok=True)  # sshd's privilege separation folder
        port = _free_port()
        config = folder / "sshd_config"
        config.write_text("\n".join([
            f"Port {port}", "ListenAddress 127.0.0.1", f"HostKey {host_key}", f"AuthorizedKeysFile {auth}",
            "PasswordAuthentication no", "KbdInteractiveAuthentication no", "PubkeyAuthentication yes",
            "PermitRootLogin prohibit-password", "UsePAM no", "StrictModes no", f"PidFile {folder / 'sshd.pid'}",
            f"AllowUsers {getpass.getuser()}", "LogLevel ERROR", ""]))
        proc = subprocess.Popen([sshd, "-D", "-e", "-f", str(config)], stdout=subprocess.DEVNULL,
                                stderr=open(folder / "sshd.log", "wb"))  # noqa: SIM115
        server = cls(folder, proc, port, key)
        deadline = time.monotonic() + timeout_s
        while True:  # answered once a login works, not merely once the port is open
            probe = subprocess.run(server.remote().command_for("true"), capture_output=True, timeout=timeout_s)
            if probe.returncode == 0:
                return server
            if proc.poll() is not None or time.monotonic() > deadline:
                server.stop()
                raise RuntimeError(f"sshd did not come up: {probe.stderr.decode(errors='replace')} "
                                   f"{(folder / 'sshd.log').read_text(errors='replace')}")
            time.sleep(0.2)

    def remote(self, **kw) -> Remote:
        """The Remote that logs in to this server as the current user with the generated key."""
        opts = ("-p", str(self.port), "-i", str(self.key), "-o", "IdentitiesOnly=yes",
                "-o", "StrictHostKeyChecking=no", "-o", f"UserKnownHostsFile={self.folder / 'known_hosts'}",
                "-o", "LogLevel=ERROR")
        return Remote(f"{getpass.getuser()}@127.0.0.1", options=opts, **kw)

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
