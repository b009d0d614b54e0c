"""Qt's system libraries, checked before the window opens — standard library only.

PySide6's wheels carry Qt itself but not the X11/xcb libraries its ``xcb`` platform plugin links
to. On a fresh Linux machine Qt then aborts while creating the application ("Could not load the
Qt platform plugin "xcb" … xcb-cursor0 or libxcb-cursor0 is needed"), naming one library at a
time: a user installs it and meets the next. ``missing_packages()`` tries every library the
plugin needs (the list below is ``ldd`` of ``PySide6/Qt/plugins/platforms/libqxcb.so`` and of
``libQt6XcbQpa.so.6``, less Qt's own; a test checks it against ``ldd`` on the machine it runs
on) and ``startup_message()`` names all the missing packages in one install command.

Only where the window would use xcb: Linux, and ``QT_QPA_PLATFORM`` unset or ``xcb`` (a Wayland
session with ``QT_QPA_PLATFORM`` unset still falls back to xcb when Wayland fails, so it is
checked too). ``offscreen``, ``wayland``, ``vnc`` and the like skip the check.
"""

from __future__ import annotations

import ctypes
import os
import sys
from collections.abc import Callable, Mapping

__all__ = ["XCB_LIBRARIES", "exit_if_missing", "missing_packages", "needs_xcb", "startup_message"]

#: soname -> Debian/Ubuntu package that provides it (the names are the same on Ubuntu 22.04/24.04,
#: but for glib, which 24.04 calls libglib2.0-0t64)
XCB_LIBRARIES: dict[str, str] = {
    "libxcb-cursor.so.0": "libxcb-cursor0",
    "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-image.so.0": "libxcb-image0",
    "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-util.so.1": "libxcb-util1",
    "libxcb-randr.so.0": "libxcb-randr0",
    "libxcb-shape.so.0": "libxcb-shape0",
    "libxcb-shm.so.0": "libxcb-shm0",
    "libxcb-sync.so.1": "libxcb-sync1",
    "libxcb-xfixes.so.0": "libxcb-xfixes0",
    "libxcb-xkb.so.1": "libxcb-xkb1",
    "libxcb-render.so.0": "libxcb-render0",
    "libxcb.so.1": "libxcb1",
    "libX11-xcb.so.1": "libx11-xcb1",
    "libX11.so.6": "libx11-6",
    "libxkbcommon.so.0": "libxkbcommon0",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
    "libGL.so.1": "libgl1",
    "libEGL.so.1": "libegl1",
    "libGLX.so.0": "libglx0",
    "libGLdispatch.so.0": "libglvnd0",
    "libfontconfig.so.1": "libfontconfig1",
    "libfreetype.so.6": "libfreetype6",
    "libdbus-1.so.3": "libdbus-1-3",
    "libglib-2.0.so.0": "libglib2.0-0",
}


def needs_xcb(environ: Mapping[str, str] | None = None, platform: str | None = None) -> bool:
    """Whether Qt would (or might fall back to) the xcb platform plugin here."""
    env = os.environ if environ is None else environ
    if not (platform or sys.platform).startswith("linux"):
        return False
    chosen = env.get("QT_QPA_PLATFORM", "").strip().split(":")[0].split(";")[0].lower()
    return chosen in ("", "xcb")


def _loads(soname: str) -> bool:
    try:
        ctypes.CDLL(soname)
    except OSError:
        return False
    return True


def missing_packages(loads: Callable[[str], bool] = _loads) -> list[str]:
    """The packages whose libraries the xcb plugin needs and the dynamic loader cannot find, in
    the table's order (each once)."""
    out: list[str] = []
    for soname, package in XCB_LIBRARIES.items():
        if package not in out and not loads(soname):
            out.append(package)
    return out


def startup_message(missing: list[str]) -> str:
    """The one message printed instead of Qt's abort ('' when nothing is missing)."""
    if not missing:
        return ""
    return ("error: the window needs system libraries that are not installed: " + ", ".join(missing) + ".\n"
            "Install them (Debian/Ubuntu) and start again:\n"
            "    sudo apt-get install -y " + " ".join(missing) + "\n"
            "(Ubuntu 24.04 names libglib2.0-0 libglib2.0-0t64.) Without a display, the command line works "
            "as it is: tilescope list, run, trace …; QT_QPA_PLATFORM=offscreen opens the window off screen.")


def exit_if_missing() -> None:
    """Where the window would use xcb and a library it needs is missing: print
    ``startup_message`` and exit with status 1 (before Qt is imported, which aborts instead)."""
    if not needs_xcb():
        return
    missing = missing_packages()
    if missing:
        print(startup_message(missing), file=sys.stderr)
        raise SystemExit(1)
