"""Where rules come from and where remembered ones go."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from agentcli import paths
from agentcli.errors import ConfigError
from agentcli.permissions.loader import load_policy
from agentcli.tools.registry import load_tool
from tests.permissions.helpers import make_project


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return make_project(tmp_path)


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_every_source_with_its_origin(root: Path) -> None:
    write(paths.user_config_file(), '[permissions]\nallow = ["Bash(make *)"]\ndefault_mode = "acceptEdits"\n')
    write(root / ".agentcli/settings.toml", '[permissions]\ndeny = ["Bash(git push:*)"]\n')
    write(root / ".agentcli/settings.local.toml", '[permissions]\nask = ["Bash(make deploy *)"]\n')
    policy = load_policy(
        root, allowed_flags=["Bash(npm", "test", "*)", "Edit"], disallowed_flags=["WebFetch"],
        session_rules=["Bash(ls *)"],
        preset_rules={"allow": ["Bash(cargo *)"]},
    )
    got = {(r.text, r.behavior, r.source) for r in policy.rules if r.source != "builtin"}
    assert got == {
        ("Bash(make *)", "allow", "user"), ("Bash(git push:*)", "deny", "project"),
        ("Bash(make deploy *)", "ask", "local"), ("Bash(npm test *)", "allow", "flag"), ("Edit", "allow", "flag"),
        ("WebFetch", "deny", "flag"), ("Bash(ls *)", "allow", "session"), ("Bash(cargo *)", "allow", "preset"),
    }
    origin = next(r.origin for r in policy.rules if r.source == "project")
    assert origin == str(root / ".agentcli/settings.toml")
    assert policy.mode == "acceptEdits"
    bash = load_tool("Bash")
    assert policy.check(bash, {"command": "make deploy prod"}).behavior == "ask"  # ask beats allow
    assert policy.check(bash, {"command": "make build"}).behavior == "allow"


def test_mode_precedence(root: Path) -> None:
    write(root / ".agentcli/settings.toml", '[permissions]\ndefault_mode = "acceptEdits"\n')
    assert load_policy(root).mode == "acceptEdits"
    assert load_policy(root, preset_mode="plan").mode == "plan"
    assert load_policy(root, mode="default", preset_mode="plan").mode == "default"
    with pytest.raises(ConfigError):
        load_policy(root, mode="yolo")


def test_invalid_rules_name_their_file(root: Path) -> None:
    write(root / ".agentcli/settings.toml", '[permissions]\nallow = ["Bash(npm"]\n')
    with pytest.raises(ConfigError, match=r"settings\.toml"):
        load_policy(root)


def test_default_deny_can_be_switched_off(root: Path) -> None:
    assert load_policy(root).check(load_tool("Read"), {"file_path": ".env"}).behavior == "deny"
    write(paths.user_config_file(), "[permissions]\ndefault_deny = false\n")
    assert load_policy(root).check(load_tool("Read"), {"file_path": ".env"}).behavior == "allow"


@pytest.mark.parametrize(
    ("scope", "file"),
    [("local", ".agentcli/settings.local.toml"), ("project", ".agentcli/settings.toml"), ("user", None)],
)
def test_remember_lands_in_the_right_file(root: Path, scope: str, file: str | None) -> None:
    policy = load_policy(root)
    policy.remember("Bash(npm test *)\nBash(make *)", scope)
    target = root / file if file else paths.user_config_file()
    assert tomllib.loads(target.read_text())["permissions"]["allow"] == ["Bash(npm test *)", "Bash(make *)"]
    assert policy.check(load_tool("Bash"), {"command": "npm test"}).behavior == "allow"
    fresh = load_policy(root)  # a new session sees it
    assert fresh.check(load_tool("Bash"), {"command": "make all"}).behavior == "allow"
    if scope == "local":
        assert "settings.local.toml" in (root / ".agentcli/.gitignore").read_text().splitlines()


def test_session_rules_live_only_in_memory_and_come_back_on_resume(root: Path) -> None:
    policy = load_policy(root)
    policy.remember("Bash(npm test *)", "session")
    assert not (root / ".agentcli").exists()
    assert policy.session_rules() == ["Bash(npm test *)"]
    assert load_policy(root).check(load_tool("Bash"), {"command": "npm test"}).behavior == "ask"
    resumed = load_policy(root, session_rules=policy.session_rules())
    assert resumed.check(load_tool("Bash"), {"command": "npm test"}).behavior == "allow"


def test_mode_changes_mid_session(root: Path) -> None:
    policy = load_policy(root)
    edit = load_tool("Write")
    args = {"file_path": "src/n.py", "content": "x"}
    assert policy.check(edit, args).behavior == "ask"
    policy.session.mode = "acceptEdits"  # the session's state, which the agent changes (Agent.set_mode)
    assert policy.check(edit, args).behavior == "allow"
    policy.session.mode = "plan"
    assert policy.check(edit, args).behavior == "deny"


def test_bind_follows_the_shell_cwd(root: Path) -> None:
    from agentcli.tools.base import ToolContext

    policy = load_policy(root)
    ctx = ToolContext(project_root=root, shell_cwd=root / "src")
    policy.bind(ctx)
    bash = load_tool("Bash")
    assert policy.check(bash, {"command": "cat a.py"}).behavior == "allow"
    ctx.shell_cwd = root.parent
    assert policy.check(bash, {"command": "cat proj/src/a.py"}).behavior == "allow"
    assert policy.check(bash, {"command": "cat outside/x"}).behavior == "ask"



def test_a_rule_that_cannot_be_saved_still_holds_for_the_session(root: Path) -> None:
    policy = load_policy(root)
    (root / ".agentcli").write_text("not a directory")
    problems = policy.remember("Bash(make *)", "local")
    assert policy.check(load_tool("Bash"), {"command": "make"}).behavior == "allow"
    assert policy.session_rules() == ["Bash(make *)"]
    assert len(problems) == 1 and "could not save Bash(make *)" in problems[0]


def test_additional_directories_reach_the_live_context(root: Path) -> None:
    from agentcli.tools.base import ToolContext

    other = root.parent / "outside"
    write(root / ".agentcli/settings.toml", f'[permissions]\nadditional_directories = ["{other}"]\n')
    ctx = ToolContext(project_root=root)
    policy = load_policy(root, mode="acceptEdits", ctx=ctx)
    assert ctx.add_dirs == (other,)
    assert policy.check(load_tool("Write"), {"file_path": str(other / "n"), "content": "x"}).behavior == "allow"
