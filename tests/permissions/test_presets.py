"""Presets: the built-in ones, user and project ones, and the commands that show them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentcli import paths
from agentcli.commands import presets as presets_cmd
from agentcli.errors import ConfigError
from agentcli.settings import trust
from agentcli.settings.presets import builtin_dir, list_presets, load_preset
from agentcli.tools.registry import BUILTIN_TOOLS, load_tool


def test_builtins_exist_and_name_real_tools() -> None:
    names = {p.name for p in list_presets()}
    assert {"coding", "readonly", "minimal", "plan", "review"} <= names
    for p in list_presets():
        assert p.source == "builtin" and p.path is not None and p.path.parent == builtin_dir()
        assert set(p.tools) <= set(BUILTIN_TOOLS), p.name


def test_readonly_offers_only_read_only_tools() -> None:
    p = load_preset("readonly")
    assert p.tools and all(load_tool(t).read_only for t in p.tools)


def test_plan_preset() -> None:
    p = load_preset("plan")
    assert p.permission_mode == "plan" and "ExitPlanMode" in p.tools


def test_user_and_project_presets_take_precedence(tmp_path: Path) -> None:
    user = paths.home() / "presets"
    user.mkdir(parents=True)
    (user / "readonly.toml").write_text('tools = ["Read"]\ndescription = "mine"\n')
    (user / "mine.toml").write_text('tools = ["Read", "Bash"]\nmodel = "m"\n[permissions]\nallow = ["Bash(ls *)"]\n')
    proj = tmp_path / "proj"
    (proj / ".agentcli" / "presets").mkdir(parents=True)
    (proj / ".agentcli" / "presets" / "mine.toml").write_text('tools = ["Grep"]\npermission_mode = "acceptEdits"\n')
    assert load_preset("mine", proj).source == "user"  # a project's presets wait until it is trusted
    trust.trust(proj)
    assert load_preset("readonly", proj).source == "user"
    mine = load_preset("mine", proj)
    assert (mine.source, mine.tools, mine.permission_mode) == ("project", ("Grep",), "acceptEdits")
    assert load_preset("mine").rules()["allow"] == ["Bash(ls *)"] and load_preset("mine").model == "m"
    by_name = {p.name: p.source for p in list_presets(proj)}
    assert by_name["mine"] == "project" and by_name["readonly"] == "user" and by_name["coding"] == "builtin"


@pytest.mark.parametrize(
    ("name", "text"),
    [("nope", None), ("../etc", None), ("bad", "tools = 3"), ("bad", 'tools = []\npermission_mode = "x"'),
     ("bad", 'tools = []\n[permissions]\nallow = "Bash"')],
)
def test_errors(name: str, text: str | None) -> None:
    if text is not None:
        d = paths.home() / "presets"
        d.mkdir(parents=True)
        (d / f"{name}.toml").write_text(text)
    with pytest.raises(ConfigError):
        load_preset(name)


def test_presets_command(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert presets_cmd.main(["-C", str(tmp_path), "list"]) == 0
    out = capsys.readouterr().out
    assert "readonly" in out and "builtin" in out
    assert presets_cmd.main(["-C", str(tmp_path), "show", "review", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["permissions"]["deny"] == ["Edit", "Write"]
    assert presets_cmd.main(["-C", str(tmp_path), "show", "nope"]) == 2
    assert "no preset named" in capsys.readouterr().err
