"""Settings: if these fail, the app forgets the user's window, kernel and values, or refuses to start."""

from __future__ import annotations

import json

import pytest

from app import settings as settings_mod
from app.paths import cache_dir, config_dir, data_dir, settings_path
from app.settings import DEFAULT_TIMEOUT_S, Settings


@pytest.fixture(autouse=True)
def _user_dirs(tmp_path, monkeypatch):
    """Never touch the user's real settings."""
    monkeypatch.setenv("TILESCOPE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("TILESCOPE_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("TILESCOPE_CACHE_DIR", str(tmp_path / "cache"))


def test_paths_follow_env_then_xdg(tmp_path, monkeypatch):
    assert settings_path() == tmp_path / "config" / "settings.json"
    assert data_dir() == tmp_path / "data" and data_dir().is_dir()
    assert cache_dir() == tmp_path / "cache"
    monkeypatch.delenv("TILESCOPE_CONFIG_DIR")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert config_dir(create=False) == tmp_path / "xdg" / "tilescope"
    monkeypatch.setenv("XDG_CONFIG_HOME", "relative/ignored")  # XDG: relative paths are invalid
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert config_dir(create=False) == tmp_path / "home" / ".config" / "tilescope"


def test_defaults_when_no_file():
    s = Settings.load()
    assert s.warning is None and s.timeout_s == DEFAULT_TIMEOUT_S and s.live is False
    assert s.last_kernel is None and s.values_for("vector_add") == {}
    assert not settings_path().exists()  # loading alone writes nothing


def test_round_trip():
    s = Settings.load()
    s.window_geometry_bytes = b"\x01\xd9\xd0\xcb\x00\x03geometry"
    s.window_state_bytes = b"\x00\x00\x00\xffstate"
    s.remember("vector_add", {"N": 98432, "BLOCK_SIZE": 1024, "dtype": "fp16"})
    s.remember("softmax", {"M": 1823, "N": 781})
    s.timeout_s = 30
    s.live = True
    path = s.save()
    assert path == settings_path()
    back = Settings.load()
    assert back.warning is None
    assert back.window_geometry_bytes == b"\x01\xd9\xd0\xcb\x00\x03geometry"
    assert back.window_state_bytes == b"\x00\x00\x00\xffstate"
    assert back.last_kernel == "softmax"
    assert back.values_for("vector_add") == {"N": 98432, "BLOCK_SIZE": 1024, "dtype": "fp16"}
    assert back.timeout_s == 30.0 and back.live is True
    assert back == s  # every stored field survived
    # no temp files left next to it
    assert sorted(p.name for p in path.parent.iterdir()) == ["settings.json"]


def test_unknown_keys_are_kept():
    p = settings_path()
    p.write_text(json.dumps({"live": True, "future_option": {"x": 1}}))
    s = Settings.load()
    s.timeout_s = 5
    s.save()
    data = json.loads(p.read_text())
    assert data["future_option"] == {"x": 1} and data["live"] is True and data["timeout_s"] == 5


@pytest.mark.parametrize("content, why", [
    (b'{"live": true, "timeout_s": 3', "not valid JSON"),
    (b"[1, 2, 3]", "not an object"),
    (b"\xff\xfe\x00garbage", "cannot be read"),
])
def test_corrupt_file_is_backed_up_and_defaults_used(content, why):
    p = settings_path()
    p.write_bytes(content)
    s = Settings.load()
    assert s.timeout_s == DEFAULT_TIMEOUT_S and s.live is False
    assert s.warning is not None and why in s.warning and "default settings" in s.warning
    backups = list(p.parent.glob("settings.json.corrupt-*"))
    assert len(backups) == 1 and backups[0].read_bytes() == content
    assert backups[0].name in s.warning
    s.save()  # saving afterwards repairs the file
    assert Settings.load().warning is None


def test_wrong_types_fall_back_per_field():
    settings_path().write_text(json.dumps({
        "timeout_s": "soon", "live": True, "last_kernel": "softmax", "window_geometry": "not base64!!",
        "values": {"vector_add": {"N": 5}},
    }))
    s = Settings.load()
    assert s.timeout_s == DEFAULT_TIMEOUT_S and s.window_geometry == ""
    assert s.live is True and s.last_kernel == "softmax" and s.values_for("vector_add") == {"N": 5}
    assert "timeout_s" in s.warning and "window_geometry" in s.warning and "live" not in s.warning


def test_crash_during_save_keeps_the_old_file(monkeypatch):
    s = Settings.load()
    s.last_kernel = "vector_add"
    s.save()
    s.last_kernel = "softmax"

    def boom(src, dst):
        raise OSError("disk full")

    with monkeypatch.context() as m, pytest.raises(OSError, match="disk full"):
        m.setattr(settings_mod.os, "replace", boom)
        s.save()
    assert json.loads(settings_path().read_text())["last_kernel"] == "vector_add"
    assert sorted(x.name for x in settings_path().parent.iterdir()) == ["settings.json"]
