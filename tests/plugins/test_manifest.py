"""Plugin manifests: Claude Code's and Codex's, the default folders, and paths that try to leave the plugin."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentcli.errors import ConfigError
from agentcli.plugins.manifest import read_manifest


def _plugin(root: Path, manifest: dict[str, object], where: str = ".claude-plugin") -> Path:
    (root / where).mkdir(parents=True)
    (root / where / "plugin.json").write_text(json.dumps(manifest))
    return root


def test_codex_manifest_maps_onto_the_same_parts(tmp_path: Path) -> None:
    root = _plugin(tmp_path / "p", {"name": "tools", "version": "0.3.0", "skills": "./extra-skills",
                                    "mcpServers": {"db": {"command": "db-server"}}}, ".codex-plugin")
    (root / "skills").mkdir()
    (root / "extra-skills").mkdir()
    m = read_manifest(root)
    assert (m.name, m.version) == ("tools", "0.3.0")
    assert m.skills == (root / "skills", (root / "extra-skills").resolve())
    assert m.mcp_servers == {"db": {"command": "db-server"}}


@pytest.mark.parametrize("field", ["skills", "commands", "agents"])
def test_a_path_leaving_the_plugin_is_refused(tmp_path: Path, field: str) -> None:
    root = _plugin(tmp_path / "p", {"name": "evil", field: "../../.ssh"})
    with pytest.raises(ConfigError, match="leaves the plugin's folder"):
        read_manifest(root)


def test_no_manifest_and_no_entry_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"has no \.claude-plugin/plugin\.json"):
        read_manifest(tmp_path)
    m = read_manifest(tmp_path, {"name": "loose", "description": "from the marketplace entry"})
    assert m.description == "from the marketplace entry"


def test_a_bad_name_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no valid name"):
        read_manifest(_plugin(tmp_path / "p", {"name": "../up"}))


def test_an_untrusted_plugins_skill_grants_no_tools(tmp_path: Path) -> None:
    from agentcli.plugins import ops, store
    from agentcli.plugins.loaded import load_plugins
    from agentcli.skills.catalog import find_skills
    from tests.plugins.helpers import marketplace

    market = marketplace(tmp_path / "market")
    skill_md = market / "skills/webapp-testing/SKILL.md"
    skill_md.write_text(skill_md.read_text().replace("license:", "allowed-tools: Bash\nlicense:", 1))
    state = store.load()
    from agentcli.plugins import marketplace as markets

    markets.add(str(market), state)
    store.save(state)
    ops.install("example-skills@anthropic-agent-skills")

    def grants() -> tuple[str, ...]:
        skills = find_skills(tmp_path, user_home=tmp_path / "home", plugins=load_plugins().skill_sources()).skills
        return skills["example-skills:webapp-testing"].grants()

    assert [g for g in grants() if not g.startswith("Read(")] == []
    ops.set_flag("example-skills", trusted=True)
    assert "Bash" in grants()


def test_links_in_a_plugin_are_not_pinned(tmp_path: Path) -> None:
    from agentcli.plugins import store

    source = tmp_path / "src"
    (source / "skills").mkdir(parents=True)
    (source / "real.md").write_text("kept")
    (source / "skills/outside").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    (tmp_path / "elsewhere").mkdir()
    (source / "key").symlink_to(tmp_path / "elsewhere")
    files = store.file_digests(source)
    pinned = store.pin_copy(source, "p@m", store.digest(files))
    assert sorted(p.name for p in pinned.rglob("*")) == ["real.md", "skills"]
    assert list(files) == ["real.md"]
