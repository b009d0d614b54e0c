"""The start-up check for Qt's system libraries: on a machine without them the user gets one
message naming every package to install, instead of Qt's abort naming one library at a time."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from app.qt_system_libs import XCB_LIBRARIES, missing_packages, needs_xcb, startup_message


def test_every_missing_library_is_named_in_one_install_command():
    # breaks if a user on a fresh machine had to install the libraries one abort at a time
    gone = {"libxcb-cursor.so.0", "libxcb-icccm.so.4", "libxcb-keysyms.so.1"}
    missing = missing_packages(lambda soname: soname not in gone)
    assert missing == ["libxcb-cursor0", "libxcb-icccm4", "libxcb-keysyms1"]
    msg = startup_message(missing)
    assert "sudo apt-get install -y libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1" in msg
    assert startup_message([]) == ""
    assert missing_packages(lambda soname: True) == []


def test_only_the_xcb_platform_is_checked():
    # breaks if the check refused an offscreen or Wayland window, or skipped the default X11 one
    assert needs_xcb({}, "linux")
    assert needs_xcb({"QT_QPA_PLATFORM": "xcb"}, "linux")
    assert not needs_xcb({"QT_QPA_PLATFORM": "offscreen"}, "linux")
    assert not needs_xcb({"QT_QPA_PLATFORM": "wayland"}, "linux")
    assert not needs_xcb({}, "darwin")


def _ldd_system_libs(path: Path) -> set[str]:
    out = subprocess.run(["ldd", str(path)], capture_output=True, text=True, check=False).stdout
    names = set()
    for line in out.splitlines():
        m = re.match(r"\s*(\S+\.so[.\d]*)\s+=>\s*(\S+)", line)
        if m and "PySide6" not in m.group(2):
            names.add(m.group(1))
    return names


@pytest.mark.skipif(shutil.which("ldd") is None, reason="needs ldd (Linux)")
def test_the_table_covers_what_the_xcb_plugin_links_to():
    # breaks if a PySide6 release links the xcb plugin to a library the table does not know, so
    # that a user would again meet Qt's abort for it
    import PySide6

    qt = Path(os.path.dirname(PySide6.__file__)) / "Qt"
    plugin = qt / "plugins" / "platforms" / "libqxcb.so"
    if not plugin.exists():
        pytest.skip("this PySide6 has no xcb plugin")
    needed = _ldd_system_libs(plugin) | _ldd_system_libs(qt / "lib" / "libQt6XcbQpa.so.6")
    basic = {"libc.so.6", "libm.so.6", "libstdc++.so.6", "libgcc_s.so.1", "libpthread.so.0", "libdl.so.2"}
    xcb_related = {n for n in needed - basic if re.match(r"lib(xcb|X11|xkb|GL|EGL|fontconfig|freetype|dbus|glib)", n)}
    assert xcb_related, needed
    assert xcb_related <= set(XCB_LIBRARIES), sorted(xcb_related - set(XCB_LIBRARIES))
