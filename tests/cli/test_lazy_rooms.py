"""A start in a project with no skills, plugins, custom commands, MCP servers or agent files imports none of the
modules that read them (issue 25, speed: agentcli.settings.extensions looks first, where each loader looks), nor
the subagent runner before a Task call, the compactor before a compaction, the settings writer before a rule is
written, the checkpoint store while its index is warm, or the local-server probe when its cache answers (here: a
loopback server that is not probed). With any of them there, the same modules load and say what they said."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agentcli import paths
from agentcli.assembly.runtime import build
from agentcli.core.permissions import DenyingApprover
from agentcli.llm.messages import Message
from agentcli.settings import extensions
from agentcli.settings.config import load_settings
from tests.cli.helpers import ANTHROPIC, agentcli, git_repo, imported_modules, in_process_project, provider_env
from tests.fakes.server import FakeLLM, Reply

LAZY = (
    "agentcli.plugins.loaded", "agentcli.plugins.parts", "agentcli.skills.attach", "agentcli.skills.discovery",
    "agentcli.skills.index", "agentcli.skills.commands", "agentcli.settings.custom_commands", "agentcli.mcp.config",
    "agentcli.agents.definitions", "agentcli.agents.runner", "agentcli.assembly.subagents",
    "agentcli.core.compactor", "agentcli.settings.writer", "agentcli.providers.probe",
)

SKILL = "---\nname: demo\ndescription: a demo skill\n---\nDo the demo.\n"
AGENT = "---\nname: reviewer\ndescription: reviews code\n---\nReview the code.\n"
MCP_JSON = '{"mcpServers": {"repo": {"command": "true"}}}'


def test_a_bare_project_imports_no_extension_room(tmp_path: Path, fake_llm: FakeLLM) -> None:
    """The second run finds the checkpoint index the first one warmed: no checkpoint store is made."""
    proj = git_repo(tmp_path / "proj", {"README.md": "x\n"})
    runs = []
    for _ in range(2):
        fake_llm.push(Reply(text="done"))
        runs.append(imported_modules(["-p", "hi", "--model", ANTHROPIC], proj, provider_env(fake_llm, ANTHROPIC)))
    assert "agentcli.assembly.tasks" in runs[0]  # the Task tool is there, its runner is not
    assert sorted(set(LAZY) & runs[0]) == []
    assert "agentcli.session.checkpoint" in runs[0]  # the project's first session warms its checkpoints
    assert sorted({*LAZY, "agentcli.session.checkpoint"} & runs[1]) == []


def test_each_room_loads_and_speaks_when_something_is_there(tmp_path: Path, fake_llm: FakeLLM) -> None:
    """An untrusted project's skill and .mcp.json are still told of; its command and agent file are read."""
    fake_llm.push(Reply(text="done"))
    proj = git_repo(tmp_path / "proj", {".claude/skills/demo/SKILL.md": SKILL, ".claude/commands/hi.md": "Say hi\n",
                                        ".claude/agents/reviewer.md": AGENT, ".mcp.json": MCP_JSON})
    env = {**provider_env(fake_llm, ANTHROPIC), "PYTHONPROFILEIMPORTTIME": "1"}
    run = agentcli(["-p", "hi", "--model", ANTHROPIC, "--output-format", "stream-json", "--verbose"], proj, env)
    assert run.status == 0, run.stderr
    imported = {line.split("|")[-1].strip() for line in run.stderr.splitlines() if line.startswith("import time:")}
    assert {"agentcli.skills.attach", "agentcli.settings.custom_commands", "agentcli.agents.definitions",
            "agentcli.mcp.config"} <= imported
    assert "agentcli.agents.runner" not in imported  # no Task call was made
    assert "This project's skills (demo) are not trusted" in run.stdout
    assert "MCP servers of this project not started until you trust it: repo" in run.stdout
    assert '"reviewer"' in run.stdout and '"hi"' in run.stdout  # system/init: its agents and slash commands


def test_a_command_written_mid_session_runs(tmp_path: Path, fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch
                                           ) -> None:
    """No command folder at the start: `/name` looks again (agentcli.skills.commands reads them at each prompt)."""
    proj, settings = in_process_project(tmp_path, fake_llm, monkeypatch, {"README.md": "x\n"})

    async def scenario() -> tuple[str, str]:
        built = await build(settings, DenyingApprover())
        try:
            before = (await built.agent.registry.attach(Message.user("/later now"))).text
            (proj / ".claude" / "commands").mkdir(parents=True)
            (proj / ".claude" / "commands" / "later.md").write_text("Do it $ARGUMENTS\n")
            return before, (await built.agent.registry.attach(Message.user("/later now"))).text
        finally:
            await built.agent.aclose()

    assert asyncio.run(scenario()) == ("/later now", "Do it now")


def _folders(root: Path) -> list[Path]:
    return [*(f for _, f in extensions.user_skill_folders()), *(f for _, f in extensions.project_skill_folders(root)),
            *(f for _, f in extensions.command_dirs(root)), *(f for _, f in extensions.definition_dirs(root))]


@pytest.mark.parametrize("n", range(14))
def test_every_place_a_loader_looks_is_seen(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, n: int) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    root = tmp_path / "proj"
    checks = (extensions.skills_present, extensions.commands_present, extensions.agent_files_present)
    assert not any(check(root) for check in checks)
    folder = _folders(root)[n]
    folder.mkdir(parents=True)
    assert sum(check(root) for check in checks) == 1, folder


def test_every_place_an_mcp_server_is_configured_is_seen(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = git_repo(tmp_path / "proj", {"README.md": "x\n"})
    configured = lambda **flags: extensions.mcp_configured(load_settings(root, flags))  # noqa: E731
    assert not configured()
    paths.user_config_file().parent.mkdir(parents=True, exist_ok=True)
    paths.user_config_file().write_text('model = "m"\n')
    assert not configured()
    assert configured(setting_sources=("project",))  # the user's file is read for servers whatever it holds
    assert configured(mcp_config=('{"mcpServers": {}}',))
    project = paths.project_dir(root) / "settings.toml"
    project.parent.mkdir()
    project.write_text('[mcp_servers.repo]\ncommand = "true"\n')  # withheld (untrusted), still told of
    assert configured() and not configured(strict_mcp_config=True)
    project.unlink()
    paths.user_config_file().write_text('[mcp_servers.mine]\ncommand = "true"\n')
    assert configured()
    paths.user_config_file().unlink()
    (root / ".mcp.json").write_text("not json")  # its problem is told
    assert configured()
