"""Reading a small JSON file that may be damaged in any way, without ever raising anything but
``FileNotFoundError`` (none there) or ``DamagedFile`` (a sentence saying why).

What it survives: a directory, a pipe, a socket or a device in the file's place (a pipe would
block a plain ``read`` forever); a file of gigabytes (not read: refused by its size); bytes that
are not UTF-8; JSON nested past Python's recursion limit (``RecursionError`` from the decoder);
integers past Python's 4,300-digit limit (``ValueError``); NaN and infinities are left to the
caller's field checks. Used for the settings (``app.settings``) and the lesson progress
(``kernels.lessons.progress``).

Standard library only (GUI-safe).
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

__all__ = ["DamagedFile", "read_json_file", "size_text"]


class DamagedFile(Exception):
    """The file is there but cannot be used. ``why`` completes "The file F …"; ``movable``: it is a
    regular file that may be kept aside; ``huge``: too large to copy (move it instead)."""

    def __init__(self, why: str, movable: bool = True, huge: bool = False) -> None:
        super().__init__(why)
        self.why, self.movable, self.huge = why, movable, huge


def size_text(n: int) -> str:
    for unit, k in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << k:
            return f"{n / (1 << k):.1f} {unit}"
    return f"{n} bytes"


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a pipe"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a file"


def read_json_file(p: Path, max_bytes: int) -> Any:
    """The JSON value in ``p``. Raises ``FileNotFoundError`` when there is none, ``DamagedFile``
    for anything else that keeps it from being read."""
    try:
        st = os.stat(p)
    except (FileNotFoundError, NotADirectoryError) as e:
        raise FileNotFoundError(str(e)) from None
    except (OSError, ValueError) as e:
        raise DamagedFile(f"cannot be read ({type(e).__name__}: {e})", movable=False) from None
    if not stat.S_ISREG(st.st_mode):
        raise DamagedFile(f"is not a regular file (it is {_kind(st.st_mode)})", movable=False)
    if st.st_size > max_bytes:
        raise DamagedFile(f"is {size_text(st.st_size)}, far larger than such a file ever is; it was not read",
                          huge=True)
    try:
        # O_NONBLOCK: had it been swapped for a pipe since the stat, the open would not wait for a writer
        fd = os.open(p, os.O_RDONLY | os.O_NONBLOCK)
        with os.fdopen(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                raise DamagedFile("is not a regular file", movable=False)
            raw = f.read(max_bytes + 1)
    except OSError as e:
        raise DamagedFile(f"cannot be read ({type(e).__name__}: {e})", movable=False) from None
    if len(raw) > max_bytes:
        raise DamagedFile(f"is larger than {size_text(max_bytes)}; it was not read", huge=True)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise DamagedFile(f"cannot be read as text (byte {e.start} is not UTF-8)") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise DamagedFile(f"is not valid JSON (line {e.lineno}, column {e.colno}: {e.msg})") from None
    except RecursionError:
        raise DamagedFile("is nested too deeply to be read") from None
    except (ValueError, OverflowError, MemoryError) as e:  # e.g. an integer past 4,300 digits
        raise DamagedFile(f"cannot be read as JSON ({type(e).__name__}: {str(e)[:120]})") from None
