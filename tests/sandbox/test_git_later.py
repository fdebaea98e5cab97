"""A hostile command plants what the user's own git runs after the session, under the real bubblewrap sandbox and
real git: a nested repository added as a gitlink, a `commondir` pointing at a planted directory, the hooks
directory `core.hooksPath` names, hook-runner and tool-manager files. The user's `git status` / `git commit`
afterwards must run nothing planted; the permission policy asks for the same files the sandbox keeps."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from agentcli.core.state import SessionState
from agentcli.permissions.loader import builtin_rules
from agentcli.permissions.policy import RulePolicy
from agentcli.sandbox.execconfig import NAMES
from agentcli.sandbox.spec import PROTECTED
from agentcli.tools.base import ToolContext
from agentcli.tools.write import WriteTool
from tests.sandbox.helpers import bash, context

ID = "-c user.name=a -c user.email=a@example.com"


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    return {**env, "HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1"}


def user_git(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """git as the user runs it after the session: outside any sandbox, with no overrides."""
    return subprocess.run(["git", "-c", "user.name=u", "-c", "user.email=u@example.com", *args], cwd=root,
                          env=_env(root.parent / "home"), capture_output=True, text=True, timeout=60, check=False)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = Path(os.path.realpath(tmp_path)) / "proj"
    root.mkdir()
    (root.parent / "home").mkdir()
    user_git(root, "init", "-q")
    (root / "a.py").write_text("a = 1\n")
    user_git(root, "add", "a.py")
    user_git(root, "commit", "-q", "-m", "first")
    return root


def test_a_nested_repository_added_as_a_gitlink_runs_nothing_on_the_users_git_status(root: Path) -> None:
    mark = root.parent / "MARK"
    ctx = context(root)
    out = bash(ctx, f"mkdir sub && cd sub && git init -q && git {ID} commit -q --allow-empty -m x && "
                    f"git config core.fsmonitor 'touch {mark}; false' && cd .. && git add sub 2>/dev/null; "
                    "git ls-files -s")
    assert "160000" in out.content, out.content  # the gitlink is there
    user_git(root, "status")
    assert not mark.exists(), out.content
    assert "sub" in out.content and "planted" not in user_git(root, "status").stdout


def test_a_planted_commondir_runs_nothing_on_the_users_git_status(root: Path) -> None:
    mark = root.parent / "MARK"
    ctx = context(root)
    out = bash(ctx, f"mkdir -p build && cp -r .git build/c && git --git-dir=build/c config core.fsmonitor "
                    f"'touch {mark}; false' && echo ../build/c > .git/commondir; echo done")
    assert "done" in out.content
    user_git(root, "status")
    assert not mark.exists(), out.content


@pytest.mark.parametrize("hooks", ["scripts/hooks", ".githooks"])
def test_the_directory_core_hookspath_names_stays_as_it_was(root: Path, hooks: str) -> None:
    mark = root.parent / "MARK"
    (root / hooks).mkdir(parents=True)
    (root / hooks / "pre-commit").write_text("#!/bin/sh\nexit 0\n")
    (root / hooks / "pre-commit").chmod(0o755)
    user_git(root, "config", "core.hooksPath", hooks)
    ctx = context(root)
    out = bash(ctx, f"printf '#!/bin/sh\\ntouch {mark}\\n' > {hooks}/pre-commit; "
                    f"printf '#!/bin/sh\\ntouch {mark}\\n' > {hooks}/commit-msg; chmod +x {hooks}/*; echo done")
    assert "done" in out.content
    (root / "b.py").write_text("b = 2\n")
    user_git(root, "add", "b.py")
    user_git(root, "commit", "-q", "-m", "second")
    assert not mark.exists(), out.content


def test_an_absent_hooks_directory_a_command_creates_is_removed(root: Path) -> None:
    mark = root.parent / "MARK"
    user_git(root, "config", "core.hooksPath", "tools/hooks")
    ctx = context(root)
    out = bash(ctx, f"mkdir -p tools/hooks && printf '#!/bin/sh\\ntouch {mark}\\n' > tools/hooks/pre-commit && "
                    "chmod +x tools/hooks/pre-commit; echo done")
    (root / "b.py").write_text("b = 2\n")
    user_git(root, "add", "b.py")
    user_git(root, "commit", "-q", "-m", "second")
    assert not mark.exists(), out.content


NEW = ("lefthook.yml", ".lefthook.yml", ".devcontainer/devcontainer.json", "mise.toml", ".mise.toml",
       ".bash_login", ".zlogin", ".simple-git-hooks.json")


def test_hook_runner_and_tool_manager_files_are_read_only_at_any_depth(root: Path) -> None:
    (root / "lefthook.yml").write_text("# mine\n")
    (root / "pkg").mkdir()
    (root / "pkg" / "lefthook.yml").write_text("# nested\n")
    (root / "pkg" / ".vscode").mkdir()
    (root / "pkg" / ".vscode" / "tasks.json").write_text("{}\n")
    ctx = context(root)
    writes = "; ".join(f"mkdir -p $(dirname {n}); echo 'pre-commit: {{run: evil}}' > {n}" for n in NEW)
    out = bash(ctx, f"{writes}; echo evil > pkg/lefthook.yml; echo '{{\"x\":1}}' > pkg/.vscode/tasks.json; echo done")
    assert "done" in out.content
    assert (root / "lefthook.yml").read_text() == "# mine\n"
    assert (root / "pkg" / "lefthook.yml").read_text() == "# nested\n"
    assert (root / "pkg" / ".vscode" / "tasks.json").read_text() == "{}\n"
    for name in NEW[1:]:
        assert not (root / name).exists(), (name, out.content)


def test_the_policy_asks_for_every_file_the_sandbox_keeps(root: Path) -> None:
    user_git(root, "config", "core.hooksPath", "scripts/hooks")
    ctx = ToolContext(project_root=root)
    policy = RulePolicy(ctx, builtin_rules(root), session=SessionState("acceptEdits"))
    names = [p.removesuffix("/") for p in PROTECTED] + [f"pkg/{n}/x" for n in NAMES] + ["scripts/hooks/pre-commit"]
    for name in names:
        verdict = policy.check(WriteTool(), {"file_path": str(root / name), "content": "x"})
        assert verdict.behavior in ("ask", "deny"), name  # `.envrc` is also a secret: denied
    plain = policy.check(WriteTool(), {"file_path": str(root / "src" / "b.py"), "content": "x"})
    assert plain.behavior == "allow"


def test_an_included_config_file_stays_as_it_was(root: Path) -> None:
    mark = root.parent / "MARK"
    (root / "conf").mkdir()
    (root / "conf" / "extra.inc").write_text("[user]\n\tname = u\n")
    user_git(root, "config", "include.path", "../conf/extra.inc")
    ctx = context(root)
    out = bash(ctx, f"printf '[core]\\n\\tfsmonitor = touch {mark}; false\\n' >> conf/extra.inc; echo done")
    assert "done" in out.content
    user_git(root, "status")
    assert not mark.exists(), out.content
    assert (root / "conf" / "extra.inc").read_text() == "[user]\n\tname = u\n"


def test_a_gitlinked_repository_whose_git_file_points_at_a_planted_directory_is_set_aside(root: Path) -> None:
    mark = root.parent / "MARK"
    ctx = context(root)
    out = bash(ctx, f"mkdir -p sub vendor && git init -q --separate-git-dir vendor/g sub && cd sub && "
                    f"git {ID} commit -q --allow-empty -m x && git config core.fsmonitor 'touch {mark}; false' && "
                    "cd .. && git add sub 2>/dev/null; git ls-files -s")
    assert "160000" in out.content, out.content
    user_git(root, "status")
    assert not mark.exists(), out.content
    assert (root / "sub" / ".git.agentcli-planted").exists()


def test_a_worktrees_git_file_cannot_be_repointed_at_a_planted_directory(tmp_path: Path) -> None:
    base = Path(os.path.realpath(tmp_path))
    root, home = base / "wt", base / "home"
    home.mkdir()
    root.mkdir()
    user_git(root, "init", "-q", "--separate-git-dir", str(base / "gitdir"))
    user_git(root, "commit", "-q", "--allow-empty", "-m", "first")
    mark = base / "MARK"
    ctx = context(root, home=home)
    out = bash(ctx, f"git init -q w && mv w/.git planted && git --git-dir=planted config core.fsmonitor 'touch {mark}; "
                    "false' && echo 'gitdir: planted' > .git; echo done")
    assert "done" in out.content
    user_git(root, "status")
    assert not mark.exists(), out.content
    assert (root / ".git").read_text().strip() == f"gitdir: {base}/gitdir"


def test_the_users_own_nested_repository_is_left_alone_when_a_command_adds_it(root: Path) -> None:
    (root / "tool").mkdir()
    user_git(root / "tool", "init", "-q")
    user_git(root / "tool", "commit", "-q", "--allow-empty", "-m", "x")
    user_git(root / "tool", "config", "core.fsmonitor", "/bin/true")  # a program: the user's own choice
    user_git(root / "tool", "config", "remote.origin.url", "https://example.com/tool.git")
    config = (root / "tool" / ".git" / "config").read_text()
    ctx = context(root)
    out = bash(ctx, "git add tool 2>/dev/null; git ls-files -s tool")
    assert "160000" in out.content, out.content
    assert (root / "tool" / ".git" / "config").read_text() == config
