"""Grep and Glob never reveal files a deny rule protects (issue 6): the built-in `.env*` rule, with rg and
with the pure-Python fallback, in every output mode."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from agentcli.permissions.loader import load_policy
from agentcli.permissions.policy import RulePolicy
from agentcli.tools.base import ToolContext
from agentcli.tools.glob import GlobTool
from agentcli.tools.grep import GrepOptions, GrepTool, filter_rg, rg_argv
from agentcli.tools.listing import find_rg

from .conftest import run

RG = find_rg()
KEY = "sk-planted-0123456789abcdef"


@pytest.fixture
def secrets_project(project: Path) -> Path:
    files = {
        ".env": f"API_KEY={KEY}\nDEBUG=1\n",
        "config/.env.local": f"API_KEY={KEY}\n",
        "app.py": 'import os\nAPI_KEY = os.environ["API_KEY"]\n',
        "docs/setup.md": "Put API_KEY in .env\n",
    }
    for rel, text in files.items():
        (project / rel).parent.mkdir(parents=True, exist_ok=True)
        (project / rel).write_text(text)
    os.symlink(".env", project / "settings.txt")  # a link to the secret is the secret
    return project


@pytest.fixture
def policy(secrets_project: Path, ctx: ToolContext) -> RulePolicy:
    return load_policy(secrets_project, ctx=ctx)


@pytest.fixture(params=["rg", "python"])
def grep(request: pytest.FixtureRequest) -> GrepTool:
    return GrepTool(rg_path=RG if request.param == "rg" else None)


def _assert_hidden(text: str, root: Path) -> None:
    assert KEY not in text
    for name in (".env", "config/.env.local", "settings.txt"):
        assert f"{root / name}\n" not in text + "\n" and f"{root / name}:" not in text
        assert f"{root / name}-" not in text


@pytest.mark.parametrize("mode", ["content", "files_with_matches", "count"])
def test_grep_never_shows_denied_files(grep: GrepTool, policy: RulePolicy, ctx: ToolContext, mode: str) -> None:
    for pattern in ("API_KEY", KEY, "sk-planted"):
        out = run(grep, {"pattern": pattern, "output_mode": mode, "-C": 2}, ctx)
        _assert_hidden(out.content, ctx.project_root)
    out = run(grep, {"pattern": "API_KEY", "output_mode": mode}, ctx)
    assert "app.py" in out.content and "setup.md" in out.content


def test_grep_inside_a_directory_and_with_user_globs(grep: GrepTool, policy: RulePolicy, ctx: ToolContext) -> None:
    out = run(grep, {"pattern": "API_KEY", "path": "config", "output_mode": "content"}, ctx)
    assert out.content == "No matches found."
    out = run(grep, {"pattern": "API_KEY", "glob": ".env*", "output_mode": "content"}, ctx)
    assert out.content == "No matches found."
    out = run(grep, {"pattern": ".", "-i": True, "output_mode": "files_with_matches", "glob": "*"}, ctx)
    _assert_hidden(out.content, ctx.project_root)
    assert "app.py" in out.content


def test_grep_on_the_secret_itself_is_refused(grep: GrepTool, policy: RulePolicy, ctx: ToolContext) -> None:
    for path in (".env", "settings.txt", "config/.env.local"):
        out = run(grep, {"pattern": "API_KEY", "path": path, "output_mode": "content"}, ctx)
        assert out.is_error and KEY not in out.content


def test_content_lines_keep_rg_format_after_filtering(grep: GrepTool, policy: RulePolicy, ctx: ToolContext,
                                                      secrets_project: Path) -> None:
    (secrets_project / "we:ird.txt").write_text("x\nAPI_KEY here\ny\n")
    out = run(grep, {"pattern": "API_KEY here", "output_mode": "content", "-C": 1}, ctx)
    f = secrets_project / "we:ird.txt"
    assert out.content == f"{f}-1-x\n{f}:2:API_KEY here\n{f}-3-y"
    out = run(grep, {"pattern": "API_KEY here", "output_mode": "content", "-n": False}, ctx)
    assert out.content == f"{f}:API_KEY here"
    out = run(grep, {"pattern": "API_KEY here", "output_mode": "count"}, ctx)
    assert out.content == f"{f}:1"


def test_without_a_policy_nothing_is_filtered(grep: GrepTool, secrets_project: Path) -> None:
    bare = ToolContext(project_root=secrets_project)
    assert KEY in run(grep, {"pattern": "API_KEY", "output_mode": "content"}, bare).content


def test_default_deny_off_shows_the_file(grep: GrepTool, secrets_project: Path, ctx: ToolContext) -> None:
    (secrets_project / ".agentcli").mkdir()
    (secrets_project / ".agentcli" / "settings.toml").write_text("[permissions]\ndefault_deny = false\n")
    load_policy(secrets_project, ctx=ctx)
    assert KEY in run(grep, {"pattern": "API_KEY", "output_mode": "content"}, ctx).content


@pytest.mark.parametrize("variant", ["git", "rg", "walk"])
def test_glob_never_names_denied_files(variant: str, policy: RulePolicy, ctx: ToolContext,
                                       secrets_project: Path) -> None:
    if variant == "git":
        subprocess.run(["git", "init", "-q", str(secrets_project)], check=True)
    tool = GlobTool(rg_path=RG if variant == "rg" else None)
    for pattern in ("**/*", ".env*", "**/.env*", "config/*", "*"):
        out = run(tool, {"pattern": pattern}, ctx)
        _assert_hidden(out.content, secrets_project)
    assert "app.py" in run(tool, {"pattern": "**/*"}, ctx).content


def test_policy_publishes_the_predicate_and_globs(policy: RulePolicy, ctx: ToolContext, secrets_project: Path) -> None:
    assert ctx.reads is policy
    denied = policy.read_denied
    assert denied(secrets_project / ".env") and denied(secrets_project / "config" / ".env.local")
    assert denied(Path(".env")) and denied(secrets_project / "settings.txt")
    assert not denied(secrets_project / "app.py")
    assert ".env*" in policy.read_denied_globs()
    policy.add(policy.rules[0].__class__("Read", "secrets/**", "deny", "project"))
    assert denied(secrets_project / "secrets" / "a.txt")  # live: rules added later count
    assert "secrets/**" not in policy.read_denied_globs()  # paths are left to the predicate


def test_rg_gets_the_simple_patterns_as_exclusions(secrets_project: Path) -> None:
    argv = rg_argv("rg", GrepOptions("x", mode="content", globs=("*.py",)), secrets_project, (".env*",), nul=True)
    assert argv.index("--glob=!.env*") > argv.index("--glob=*.py") and "--null" in argv


def test_filter_rg_drops_denied_groups_and_their_separators() -> None:
    lines = ["/p/.env\x001-a", "/p/.env\x002:KEY", "--", "/p/a.py\x004-b", "/p/a.py\x005:KEY", "--",
             "/p/b/.env\x001:KEY"]
    opts = GrepOptions("KEY", mode="content", before=1)
    assert filter_rg(lines, opts, lambda p: p.endswith(".env")) == ["/p/a.py-4-b", "/p/a.py:5:KEY"]
    files = GrepOptions("KEY")
    assert filter_rg(["/p/.env", "/p/a.py"], files, lambda p: p.endswith(".env")) == ["/p/a.py"]


def test_path_rules_are_filtered_from_rg_output(grep: GrepTool, secrets_project: Path, ctx: ToolContext) -> None:
    (secrets_project / ".agentcli").mkdir()
    (secrets_project / ".agentcli" / "settings.toml").write_text('[permissions]\ndeny = ["Read(private/**)"]\n')
    (secrets_project / "private").mkdir()
    (secrets_project / "private" / "keys.txt").write_text(f"API_KEY={KEY}\n")
    loaded = load_policy(secrets_project, ctx=ctx)
    assert ctx.reads is loaded
    assert "private/**" not in loaded.read_denied_globs()  # so only the output filter can catch it
    for mode in ("content", "files_with_matches", "count"):
        out = run(grep, {"pattern": "API_KEY", "output_mode": mode, "-C": 1}, ctx)
        assert KEY not in out.content and "keys.txt" not in out.content and "app.py" in out.content
    assert "keys.txt" not in run(GlobTool(rg_path=RG), {"pattern": "**/*.txt"}, ctx).content
