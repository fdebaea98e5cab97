"""The one writer of config files: atomic, TOML that reads back, the rest of the file kept."""

from __future__ import annotations

import os
import stat
import tomllib
from pathlib import Path

import pytest

from agentcli.errors import ConfigError
from agentcli.settings import writer


def test_roundtrip_of_every_type(tmp_path: Path) -> None:
    data = {
        "model": "m", "n": 3, "x": 1.5, "on": True, "list": ["a", 'q"uote', "back\\slash", "tab\t", "del\x7f"],
        "providers": {"local": {"base_url": "http://127.0.0.1:1", "key with space": "v"}},
        "permissions": {"allow": [f"Bash(cmd{i} *)" for i in range(8)], "deny": []},
    }
    f = tmp_path / "c.toml"
    writer.write(f, data)
    assert tomllib.loads(f.read_text()) == data


def test_update_table_keeps_the_rest(tmp_path: Path) -> None:
    f = tmp_path / "config.toml"
    f.write_text('# my config\nmodel = "x"  # keep me\n\n[permissions]\nallow = ["Read"]\n\n[providers.a]\nkey = "k"\n')
    writer.update_table(f, "permissions", {"allow": ["Read", "Bash(ls *)"], "deny": ["Bash(rm:*)"]})
    text = f.read_text()
    assert text.startswith('# my config\nmodel = "x"  # keep me\n')
    assert tomllib.loads(text) == {
        "model": "x",
        "permissions": {"allow": ["Read", "Bash(ls *)"], "deny": ["Bash(rm:*)"]},
        "providers": {"a": {"key": "k"}},
    }


def test_update_table_appends_or_rewrites(tmp_path: Path) -> None:
    f = tmp_path / "a.toml"
    f.write_text('model = "x"')
    writer.update_table(f, "permissions", {"allow": ["Read"]})
    assert tomllib.loads(f.read_text()) == {"model": "x", "permissions": {"allow": ["Read"]}}
    g = tmp_path / "b.toml"
    g.write_text('permissions.allow = ["Read"]\nmodel = "y"\n')  # dotted keys: rewritten whole
    writer.update_table(g, "permissions", {"deny": ["Bash"]})
    assert tomllib.loads(g.read_text()) == {"permissions": {"allow": ["Read"], "deny": ["Bash"]}, "model": "y"}
    new = tmp_path / "sub" / "dir" / "n.toml"
    writer.update_table(new, "permissions", {"ask": ["Edit"]})
    assert tomllib.loads(new.read_text()) == {"permissions": {"ask": ["Edit"]}}


def test_atomic_write_modes_and_no_leftovers(tmp_path: Path) -> None:
    f = tmp_path / "secret.toml"
    writer.write(f, {"a": 1})
    assert stat.S_IMODE(f.stat().st_mode) == 0o600
    os.chmod(f, 0o640)
    writer.update_table(f, "t", {"a": 2})
    assert stat.S_IMODE(f.stat().st_mode) == 0o640 and tomllib.loads(f.read_text()) == {"a": 1, "t": {"a": 2}}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["secret.toml"]


def test_a_failed_write_leaves_the_old_file(tmp_path: Path) -> None:
    f = tmp_path / "c.toml"
    writer.write(f, {"a": 1})
    with pytest.raises(TypeError):
        writer.write(f, {"a": object()})
    assert f.read_text() == "a = 1\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.toml"]


def test_load_errors(tmp_path: Path) -> None:
    assert writer.load(tmp_path / "missing.toml") == {}
    bad = tmp_path / "bad.toml"
    bad.write_text("a = [")
    with pytest.raises(ConfigError, match=r"bad\.toml"):
        writer.load(bad)
