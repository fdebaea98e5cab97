"""Rule syntax and matching, as in Claude Code."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentcli.permissions.rules import (
    match_command,
    match_domain,
    match_path,
    parse_rule,
    split_rule_list,
    tool_matches,
)

ROOT, HOME = Path("/p"), Path("/h")


@pytest.mark.parametrize(
    ("text", "tool", "spec"),
    [
        ("Bash", "Bash", None), ("Bash()", "Bash", None), ("Bash(*)", "Bash", None),
        ("Bash(npm test *)", "Bash", "npm test *"), ("Bash(echo (a))", "Bash", "echo (a)"),
        (" Edit(src/**) ", "Edit", "src/**"), ("mcp__gh__create-pr", "mcp__gh__create-pr", None),
        ("mcp__gh__*", "mcp__gh__*", None), ("WebFetch(domain:x.com)", "WebFetch", "domain:x.com"),
    ],
)
def test_parse(text: str, tool: str, spec: str | None) -> None:
    r = parse_rule(text, "deny", "user", "/f")
    assert (r.tool, r.specifier, r.behavior, r.source, r.origin) == (tool, spec, "deny", "user", "/f")


@pytest.mark.parametrize("text", ["", "Bash(", "(x)", "Ba sh", "Bash(x", "1Bash"])
def test_parse_rejects(text: str) -> None:
    with pytest.raises(ValueError):
        parse_rule(text)


def test_split_rule_list() -> None:
    assert split_rule_list("Bash(npm test *), Edit  Read(src/a b)") == ["Bash(npm test *)", "Edit", "Read(src/a b)"]


@pytest.mark.parametrize(
    ("spec", "text", "ok"),
    [
        ("npm test", "npm test", True), ("npm test", "npm test x", False),
        ("npm test *", "npm test", True), ("npm test *", "npm test --x", True), ("npm test *", "npm testx", False),
        ("npm test*", "npm testx", True), ("git diff:*", "git diff", True), ("git diff:*", "git diff a", True),
        ("git diff:*", "git diffx", False), ("* install", "npm install", True), ("* install", "npm i", False),
        ("git * main", "git push origin main", True), ("git * main", "git push origin dev", False),
        ("git commit *", "git commit -m 'a\nb'", True),
    ],
)
def test_match_command(spec: str, text: str, ok: bool) -> None:
    assert match_command(spec, text) is ok


@pytest.mark.parametrize(
    ("spec", "path", "ok"),
    [
        ("src/**", "/p/src/a/b.py", True), ("src/**", "/p/lib/src/a.py", False), ("src", "/p/src/x", True),
        (".env", "/p/.env", True), (".env", "/p/sub/.env", True), ("./.env", "/p/sub/.env", False),
        ("*.pem", "/p/a/b/k.pem", True), ("/src/*.py", "/p/src/a.py", True), ("/src/*.py", "/p/src/a/b.py", False),
        ("//etc/**", "/etc/hosts", True), ("~/.ssh", "/h/.ssh/id_rsa", True), ("~/.ssh", "/h/.sshx", False),
        ("src/**/*.ts", "/p/src/a/b/c.ts", True), ("src/**/*.ts", "/p/src/c.ts", True),
        ("src/?.py", "/p/src/ab.py", False),
        ("src/[ab].py", "/p/src/a.py", True), ("src/[!ab].py", "/p/src/a.py", False), (".env*", "/p/.envrc", True),
    ],
)
def test_match_path(spec: str, path: str, ok: bool) -> None:
    assert match_path(spec, Path(path), ROOT, HOME) is ok


@pytest.mark.parametrize(
    ("spec", "url", "ok"),
    [
        ("domain:example.com", "https://example.com/a", True), ("domain:example.com", "https://EXAMPLE.com.", True),
        ("domain:example.com", "https://a.example.com", False), ("domain:*.example.com", "https://a.example.com", True),
        ("domain:*.example.com", "https://example.com", True),
        ("domain:*.example.com", "https://badexample.com", False),
        ("domain:example.com", "http://example.com@evil.io", False), ("domain:example.com", "example.com/x", True),
        ("domain:example.com", "http://[::1", False),
    ],
)
def test_match_domain(spec: str, url: str, ok: bool) -> None:
    assert match_domain(spec, url) is ok


def test_tool_families() -> None:
    assert tool_matches("Edit", "Write", edits_files=True)
    assert tool_matches("Edit", "NotebookEdit", edits_files=True)
    assert not tool_matches("Edit", "Read", edits_files=False)
    assert tool_matches("Read", "Grep", edits_files=False)
    assert tool_matches("mcp__gh", "mcp__gh__x", edits_files=False)
    assert not tool_matches("mcp__gh", "mcp__ghx__x", edits_files=False)
    assert tool_matches("mcp__gh__*", "mcp__gh__x", edits_files=False)
