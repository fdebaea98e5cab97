"""Permission rules in Claude Code's syntax: `Tool` or `Tool(specifier)`.

    Bash(npm run build)        exactly this command (normalized: one space between words)
    Bash(npm test *)           `*` matches anything; a trailing ` *` also matches nothing (`npm test`)
    Bash(git diff:*)           legacy prefix form: `git diff` alone or followed by arguments
    Edit(src/**)  Read(.env)   gitignore-style paths: `//abs`, `~/home`, `/project-root`, `./rel` or `rel`
                               (a pattern without `/` matches that name at any depth; a directory its contents)
    WebFetch(domain:x.com)     the URL's host (`*.x.com` for subdomains)
    mcp__server / mcp__server__tool / mcp__server__*
    Tool(param:value)          any other tool: a glob over one argument

`Edit` rules cover every tool that edits files (Edit, Write, NotebookEdit …); `Read` rules every tool that
reads them (Read, Glob, Grep, LS).
"""

from __future__ import annotations

import fnmatch
import functools
import re
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from agentcli.record import record

RuleBehavior = Literal["allow", "ask", "deny"]
READ_TOOLS = frozenset({"Read", "Glob", "Grep", "LS", "NotebookRead"})
_NAME = re.compile(r"[A-Za-z_][\w.\-]*\*?")


@record
class Rule:
    """One rule and where it came from: `source` is builtin | user | project | local | flag | preset | session;
    `origin` the file it was read from, if any."""

    tool: str
    specifier: str | None
    behavior: RuleBehavior
    source: str = "session"
    origin: str | None = None

    @property
    def text(self) -> str:
        return self.tool if self.specifier is None else f"{self.tool}({self.specifier})"

    @property
    def is_path_rule(self) -> bool:
        return self.tool in ("Read", "Edit", "Write", "Glob", "Grep", "NotebookEdit", "MultiEdit", "LS")


def parse_rule(text: str, behavior: RuleBehavior = "allow", source: str = "session", origin: str | None = None) -> Rule:
    """Parse `Tool` or `Tool(specifier)`. Raises ValueError with a readable message."""
    text = text.strip()
    name, paren, rest = text.partition("(")
    name = name.strip()
    if not _NAME.fullmatch(name):
        raise ValueError(f"invalid rule {text!r}: expected Tool or Tool(specifier)")
    spec: str | None = None
    if paren:
        if not rest.endswith(")"):
            raise ValueError(f"invalid rule {text!r}: missing ')'")
        spec = rest[:-1].strip()
        if spec in ("", "*"):
            spec = None
    return Rule(name, spec, behavior, source, origin)


def split_rule_list(value: str) -> list[str]:
    """Split a flag value like `"Bash(git diff:*) Edit, Read"` on commas/spaces outside parentheses."""
    out: list[str] = []
    depth, cur = 0, list[str]()
    for ch in value:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
        if depth == 0 and ch in ", \t\n":
            if cur:
                out.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    if cur:
        out.append("".join(cur))
    return out


def tool_matches(rule_tool: str, name: str, edits_files: bool) -> bool:
    """Does a rule naming `rule_tool` apply to the tool `name`?"""
    if rule_tool == name:
        return True
    if rule_tool == "Edit":
        return edits_files
    if rule_tool == "Read":
        return name in READ_TOOLS
    if rule_tool.startswith("mcp__") and name.startswith("mcp__"):
        if rule_tool.endswith("__*"):
            return name.startswith(rule_tool[:-1])
        return rule_tool.count("__") == 1 and name.startswith(rule_tool + "__")
    return False


@functools.lru_cache(maxsize=1024)
def _command_regex(spec: str) -> re.Pattern[str] | None:
    if spec.endswith(":*"):
        return re.compile(re.escape(spec[:-2]) + r"(?: .*)?", re.S)
    if "*" not in spec:
        return None
    if spec.endswith(" *") and spec.count("*") == 1:
        return re.compile(re.escape(spec[:-2]) + r"(?: .*)?", re.S)
    return re.compile(".*".join(re.escape(piece) for piece in spec.split("*")), re.S)


def match_command(spec: str, text: str) -> bool:
    """Does a Bash specifier match one normalized command text?"""
    rx = _command_regex(spec)
    return text == spec if rx is None else rx.fullmatch(text) is not None


def _glob_regex(pattern: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        c = pattern[i]
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[" and "]" in pattern[i + 2 :]:
            end = pattern.index("]", i + 2)
            body = pattern[i + 1 : end]
            out.append("[" + ("^" + body[1:] if body.startswith("!") else body).replace("\\", "\\\\") + "]")
            i = end
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


@functools.lru_cache(maxsize=1024)
@functools.lru_cache(maxsize=1024)
def path_regex(spec: str, root: str, home: str) -> re.Pattern[str]:
    """Compile a path specifier into a regex over absolute POSIX paths (remembered: every rule is checked against
    every call, and the translation, not `re`'s own cache, is the cost)."""
    if spec.startswith("//"):
        base = "/" + spec[2:].lstrip("/")
    elif spec == "~" or spec.startswith("~/"):
        base = home.rstrip("/") + spec[1:]
    elif spec.startswith("/"):
        base = root.rstrip("/") + spec
    elif spec.startswith("./"):
        base = root.rstrip("/") + spec[1:]
    elif "/" in spec.rstrip("/"):
        base = root.rstrip("/") + "/" + spec
    else:
        base = root.rstrip("/") + "/**/" + spec
    base = base.rstrip("/") or "/"
    # a matched directory covers everything inside it (gitignore)
    return re.compile(path_pattern_source(base), re.S)


def path_pattern_source(absolute_glob: str) -> str:
    return _glob_regex(absolute_glob) + ("(?:/.*)?" if absolute_glob != "/" else ".*")


def match_path(spec: str, path: Path, root: Path, home: Path) -> bool:
    """Does a path specifier match `path` or one of its parent directories (gitignore: a matched directory
    covers everything inside)?"""
    return path_regex(spec, root.as_posix(), home.as_posix()).fullmatch(path.as_posix()) is not None


def match_domain(spec: str, url: str) -> bool:
    """`domain:example.com` (exact host) or `domain:*.example.com` (subdomains and the domain itself)."""
    if not spec.startswith("domain:"):
        return fnmatch.fnmatchcase(url, spec)
    want = spec[len("domain:") :].lower().rstrip(".")
    try:
        host = (urlsplit(url if "://" in url else "//" + url).hostname or "").rstrip(".")
    except ValueError:
        return False
    if want.startswith("*."):
        return host == want[2:] or host.endswith(want[1:])
    return host == want


def match_param(spec: str, args: dict[str, Any]) -> bool:
    """`Tool(param:value)`: the glob `value` over the string form of argument `param`."""
    key, colon, pattern = spec.partition(":")
    if not colon or key not in args:
        return False
    value = args[key]
    return isinstance(value, str | int | float) and fnmatch.fnmatchcase(str(value), pattern)
