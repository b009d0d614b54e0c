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


def test_the_window_exits_with_the_message_before_qt_aborts(monkeypatch, capsys):
    # breaks if the check did not stop the start (Qt would abort with its one-library message)
    from app import qt_system_libs as q

    monkeypatch.setenv("QT_QPA_PLATFORM", "xcb")
    monkeypatch.setattr(q, "missing_packages", lambda: ["libxcb-icccm4"])
    with pytest.raises(SystemExit) as e:
        q.exit_if_missing()
    assert e.value.code == 1
    assert "sudo apt-get install -y libxcb-icccm4" in capsys.readouterr().err
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")
    q.exit_if_missing()  # offscreen: no check, no exit


@pytest.mark.skipif(not missing_packages(), reason="this machine has every library the xcb plugin needs")
def test_tilescope_on_this_machine_names_what_is_missing(tmp_path):
    # breaks if `tilescope` on a machine without the libraries showed Qt's abort instead of one
    # message naming every package (this machine lacks some: the real path is exercised)
    import sys

    env = {k: v for k, v in os.environ.items() if k != "QT_QPA_PLATFORM"}
    env.update(HOME=str(tmp_path), DISPLAY=":97")
    out = subprocess.run([sys.executable, "-m", "app.gui"], cwd=Path(__file__).resolve().parents[2], env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 1, out
    assert "sudo apt-get install -y " + " ".join(missing_packages()) in out.stderr
    assert "Could not load the Qt platform plugin" not in out.stderr


def test_the_readme_first_command_installs_every_package():
    # breaks if the README's first command forgot a package the start-up check would ask for
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    first = readme.split("```bash", 1)[1].split("```", 1)[0]
    apt = next(ln for ln in first.splitlines() if "apt-get install" in ln).split()
    assert set(XCB_LIBRARIES.values()) <= set(apt), sorted(set(XCB_LIBRARIES.values()) - set(apt))
