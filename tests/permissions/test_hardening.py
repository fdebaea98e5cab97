"""Decisions for the holes of issue 9 (classes 1–5 and 8), and the everyday commands that must stay allowed.
Expected answers in the order default, acceptEdits, plan, bypassPermissions (A allow, Q ask, D deny)."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from agentcli.permissions import pathscan
from agentcli.permissions.gitcheck import repo_problem
from agentcli.tools.registry import load_tool
from tests.permissions.helpers import LETTER, MODES, make_policy, make_project

Rules = dict[str, tuple[str, ...]]

BASH: list[tuple[str, str]] = [
    # everyday read-only commands stay allowed
    ("ls -la --color=auto src", "AAAA"), ("head -n 20 src/a.py", "AAAA"), ("tail -5 src/a.py", "AAAA"),
    ("wc -l src/a.py", "AAAA"), ("sort -k2 -n src/a.py", "AAAA"), ("grep -rn --include='*.py' print src", "AAAA"),
    ("rg -n print", "AAAA"), ("rg --files", "AAAA"), ("git log --oneline -5", "AAAA"), ("git -C src status", "AAAA"),
    ("LANG=C sort src/a.py", "AAAA"), ("echo $((1 + 2))", "AAAA"), ("echo ${HOME:-x}", "AAAA"),
    ("date +%Y", "AAAA"), ("find src -name '*.py' -exec cat {} +", "AAAA"), ("diff -r src src", "AAAA"),
    ("cat src/*.py", "AAAA"), ("jq -r .name src/a.py", "AAAA"), ("stat -c %s src/a.py", "AAAA"),
    # 1. options and environment that write or run
    ("GIT_TRACE=/tmp/x git status", "QQDA"), ("flock /tmp/lock true", "QQDA"), ("flock lock true", "QADA"),
    ("sort --compress-program=sh src/a.py", "QQDA"), ("sort --comp=sh src/a.py", "QQDA"),
    ("sort -T /tmp src/a.py", "QQDA"), ("XDG_CONFIG_HOME=x git status", "QQDA"), ("FOO=1 ls", "QQDA"),
    ("env FOO=1 ls", "QQDA"), ("GIT_DIR=x git log", "QQDA"), ("NODE_OPTIONS=--require=x ls", "QQDA"),
    ("tree -o out.txt", "QQDA"), ("md5sum -c sums", "QQDA"), ("file -C -m x", "QQDA"), ("xxd src/a.py out", "QQDA"),
    ("jq -n 'import \"x\" as $d; $d'", "QQDA"), ("strings @opts", "QQDA"), ("hostname evil", "QQDA"),
    ("date 010101012030", "QQDA"), ("git log --show-signature", "QQDA"), ("git config --file x --list", "QQDA"),
    # 2. expansions that run code
    ("x='a[$(id)]'; echo $((x))", "QQDA"), ("(( y ))", "QQDA"), ("echo $[y]", "QQDA"), ("echo ${!x}", "QQDA"),
    ("echo ${x:y}", "QQDA"), ("echo ${a[i]}", "QQDA"), ("echo ${x@P}", "QQDA"), ("[[ -v x ]]", "QQDA"),
    ("[[ $x -eq 1 ]]", "QQDA"), ("test -v x", "QQDA"), ("[ -v x ]", "QQDA"), ("printf -v x %s y", "QQDA"),
    # 4. wildcards and redirections
    ("cat .en[v]", "DDDD"), ("cat < .en?", "DDDD"), ("exec 3< .en?", "DDDD"), ("cat .{env,x}", "DDDD"),
    ("head .e*", "DDDD"), ("echo x >> .agentcl?/settings.local.toml", "QQDQ"), ("echo x > .git/config", "QQDQ"),
    ("cp x .mcp.json", "QQDQ"), ("rm -rf .git", "QQDQ"), ("tee .vscode/tasks.json", "QQDQ"),
    # 5. recursive readers
    ("grep -r KEY .", "QQQQ"), ("grep -r KEY", "QQQQ"), ("rg --hidden KEY", "QQQQ"), ("rg -uu KEY", "QQQQ"),
    ("rg -L KEY", "QQQQ"), ("grep -rn --include='*.py' KEY .", "AAAA"), ("grep -r --include='.e*' KEY .", "QQQQ"),
    ("rg -g '*.py' KEY", "AAAA"), ("rg -g '*' KEY", "QQQQ"), ("rg -g 'src/**' --hidden KEY", "QQQQ"),
    ("git grep --no-index KEY", "QQQQ"), ("find . -exec cat {} +", "QQQQ"),
    ("find -L src -exec cat {} +", "QQQQ"), ("diff -r . src", "QQQQ"), ("find . -exec rm {} +", "QQDA"),
    ("sort --files0-from=-", "QQDA"), ("date --file=x", "QQDA"), ("date -f x", "QQDA"),
    ("git show HEAD:.env", "DDDD"), ("git show :.env", "DDDD"), ("git cat-file -p HEAD:./.env", "DDDD"),
    ("git blame --contents=.env src/a.py", "DDDD"), ("cat $'.env'", "DDDD"), ("cat .[e]nv", "DDDD"),
    ("cat {.,x}env", "DDDD"), ("echo $(<.env)", "DDDD"), ("command -p cat .env", "DDDD"),
    ("grep -f .env x", "DDDD"), ("git diff --no-index .env x", "DDDD"),
    # 8. links and races
    ("ln -s /tmp/x l", "QQDA"), ("ln -s src/a.py l", "QQDA"), ("cp -s src/a.py l", "QQDA"),
    ("ln .env h", "DDDD"),
]

RULED: list[tuple[Rules, str, str]] = [
    ({"allow": ("Bash(npm test *)",)}, "npm test --cache /tmp/elsewhere", "QQDA"),
    ({"allow": ("Bash(npm test *)",)}, "npm test -- src/a.py", "AADA"),
    ({"allow": ("Bash(npm test *)",)}, "FOO=1 npm test", "QQDA"),
    ({"allow": ("Bash(FOO=1 npm test *)",)}, "FOO=1 npm test", "AADA"),
    ({"allow": ("Bash(npm test *)", "Edit(//tmp/cache/**)")}, "npm test --cache /tmp/cache/x", "AADA"),
    ({"allow": ("Bash(git checkout *)",)}, "git checkout x && cat src/a.py", "QQDA"),
    ({"allow": ("Bash(git checkout *)",)}, "git checkout x && echo hi > out.txt", "QQDA"),
    ({"allow": ("Bash(ln *)",)}, "ln -s src/a.py l", "AADA"),
    ({"allow": ("Bash",)}, "ln -s /tmp/x l && echo hi > l", "QADA"),
    ({"allow": ("Bash(grep *)",)}, "grep -r KEY .", "QQQQ"),
    ({"allow": ("Bash(mkdir *)",)}, "mkdir -p m && ln -sf /tmp m/l", "QQDA"),
]


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = make_project(tmp_path_factory.mktemp("hardening"))
    (root / ".agentcli").mkdir()
    (root / ".agentcli" / "settings.local.toml").write_text("")
    return root


def _rows() -> list[Any]:
    rows = [pytest.param({}, cmd, expect, id=repr(cmd[:50])) for cmd, expect in BASH]
    rows += [pytest.param(rules, cmd, expect, id=f"{rules}:{cmd[:40]!r}") for rules, cmd, expect in RULED]
    return rows


@pytest.mark.parametrize(("rules", "command", "expected"), _rows())
def test_decision(root: Path, rules: Rules, command: str, expected: str) -> None:
    bash = load_tool("Bash")
    wrong = []
    for mode, letter in zip(MODES, expected, strict=True):
        verdict = make_policy(root, mode, **rules).check(bash, {"command": command})
        if verdict.behavior != LETTER[letter]:
            wrong.append(f"{mode}: expected {LETTER[letter]}, got {verdict}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize(
    ("tool", "path"),
    [("Write", ".git/config"), ("Write", ".git/hooks/pre-commit"), ("Write", "sub/.git/config"),
     ("Write", ".mcp.json"), ("Write", ".claude/settings.json"), ("Edit", ".vscode/tasks.json"),
     ("Write", ".husky/pre-commit"), ("Write", ".pre-commit-config.yaml")],
)
def test_execution_configuring_files_ask_in_every_mode(root: Path, tool: str, path: str) -> None:
    args: dict[str, Any] = {"file_path": path, "content": "x", "old_string": "a", "new_string": "b"}
    for mode in MODES:
        verdict = make_policy(root, mode, allow=("Edit", "Write")).check(load_tool(tool), args)
        assert verdict.behavior == ("deny" if mode == "plan" else "ask"), (mode, verdict)


def _git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


@pytest.mark.parametrize(
    ("config", "safe"),
    [
        ("[core]\n\tbare = false\n\tfilemode = true\n[remote \"origin\"]\n\turl = x\n", True),
        ("[core]\n\tfsmonitor = true\n", True),
        ("[core]\n\tfsmonitor = ./run.sh\n", False),
        ("[core]\n\tpager = sh -c x\n", False),
        ("[diff]\n\texternal = x\n", False),
        ("[diff \"pdf\"]\n\ttextconv = x\n", False),
        ("[filter \"a\"]\n\tclean = x\n", False),
        ("[include]\n\tpath = ../x\n", False),
        ("[core]\n\tsshCommand = x\n", False),
        ("[core.x]\n\tworktree = /\n", False),
        ("[core]  fsmonitor = x\n", False),
    ],
)
def test_repository_configuration(tmp_path: Path, config: str, safe: bool) -> None:
    _git("init", "-q", str(tmp_path / "r"), cwd=tmp_path)
    (tmp_path / "r" / ".git" / "config").write_text(config)
    (tmp_path / "r" / "d").mkdir()
    assert (repo_problem(str(tmp_path / "r" / "d")) is None) == safe


def test_git_finds_bare_repositories_gitdir_files_and_hooks(tmp_path: Path) -> None:
    _git("init", "-q", "--bare", str(tmp_path / "bare"), cwd=tmp_path)
    assert repo_problem(str(tmp_path / "bare")) is None
    (tmp_path / "bare" / "config").write_text("[core]\n\tfsmonitor = x\n")
    assert repo_problem(str(tmp_path / "bare" / "refs")) is not None
    (tmp_path / "w").mkdir()
    (tmp_path / "w" / ".git").write_text("gitdir: ../bare\n")
    assert repo_problem(str(tmp_path / "w")) is not None
    _git("init", "-q", str(tmp_path / "h"), cwd=tmp_path)
    assert repo_problem(str(tmp_path / "h")) is None
    (tmp_path / "h" / ".git" / "hooks" / "post-index-change").write_text("#!/bin/sh\n")
    assert "post-index-change" in (repo_problem(str(tmp_path / "h")) or "")


def test_wildcards_expand_as_bash_does(tmp_path: Path) -> None:
    for name in (".env", "a.py", "b.py", ".agentcli/x"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    cwd = str(tmp_path)
    assert pathscan.expand("*", cwd) is not None and f"{cwd}/.env" not in (pathscan.expand("*", cwd) or [])
    assert pathscan.expand(".en[v]", cwd) == [f"{cwd}/.env"]
    assert pathscan.expand(".e*", cwd) == [f"{cwd}/.env"]
    assert pathscan.expand(".agentcl?/x", cwd) == [f"{cwd}/.agentcli/x"]
    assert sorted(pathscan.expand("{a,b}.py", cwd) or []) == [f"{cwd}/a.py", f"{cwd}/b.py"]
    assert pathscan.expand("nothing*", cwd) == [f"{cwd}/nothing*"]


def test_a_hooks_path_is_checked_for_the_hooks_git_status_runs(tmp_path: Path) -> None:
    _git("init", "-q", str(tmp_path / "r"), cwd=tmp_path)
    with (tmp_path / "r" / ".git" / "config").open("a") as f:
        f.write("[core]\n\thooksPath = .husky/_\n")
    (tmp_path / "r" / ".husky" / "_").mkdir(parents=True)
    (tmp_path / "r" / ".husky" / "_" / "pre-commit").write_text("#!/bin/sh\n")
    assert repo_problem(str(tmp_path / "r")) is None
    (tmp_path / "r" / ".husky" / "_" / "post-index-change").write_text("#!/bin/sh\n")
    assert repo_problem(str(tmp_path / "r")) is not None
