"""The Bash part of the policy: every program a command line runs is judged on its own, then combined
(deny > ask > allow). A rule naming a harmless prefix (`Bash(git status:*)`) allows only that program,
never what follows `;`, `&&`, `|`, `$(…)` or hides inside `bash -c`, `sudo`, `env`, `xargs` or `find -exec`.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentcli.core.permissions import Verdict
from agentcli.permissions.readonly import _NO_PATHS, read_only_paths
from agentcli.permissions.rules import Rule, match_command
from agentcli.permissions.shell import ShellParseError, Word
from agentcli.permissions.unwrap import Part, analyse
from agentcli.tools.base import Tool

if TYPE_CHECKING:
    from agentcli.permissions.policy import RulePolicy

_Cache = dict[str, Path]
_CRUDE_SPLIT = re.compile(r"\$\(|[;&|()\n`]")


@dataclass(frozen=True, slots=True)
class _Judgement:
    behavior: str
    by: str
    rule: str | None
    reason: str | None


@dataclass(slots=True)
class _Rules:
    allow: list[Rule]
    ask: list[Rule]
    deny: list[Rule]

    @staticmethod
    def of(policy: RulePolicy) -> _Rules:
        out = _Rules([], [], [])
        for r in policy.rules:
            if r.tool == "Bash":
                getattr(out, r.behavior).append(r)
        return out


def check_bash(policy: RulePolicy, tool: Tool, args: dict[str, Any]) -> Verdict:
    command = args.get("command")
    if not isinstance(command, str) or not command.strip():
        return Verdict("ask", "default", None, "empty or missing command")
    rules = _Rules.of(policy)
    bare_deny = next((r for r in rules.deny if r.specifier is None), None)
    if bare_deny is not None:
        return Verdict("deny", "rule", bare_deny.text, f"denied by rule {bare_deny.text} ({bare_deny.source})")
    try:
        parts = analyse(command)
    except ShellParseError as e:
        return _unparsed(policy, rules, command, str(e))
    cwd: Path | None = Path(os.path.realpath(policy.ctx.shell_cwd or policy.ctx.project_root))
    cache: _Cache = {}
    judged: list[_Judgement] = []
    for part in parts:
        judged.append(_judge(policy, rules, part, cwd, cache))
        if part.name in ("cd", "pushd"):
            cwd = _cd_target(part, cwd, cache)
    return _combine(judged)


def _combine(judged: list[_Judgement]) -> Verdict:
    for j in judged:
        if j.behavior == "deny":
            return Verdict("deny", j.by, j.rule, j.reason)
    asks = [j for j in judged if j.behavior == "ask"]
    if asks:
        by_rule = next((j for j in asks if j.by == "rule"), None)
        reason = "; ".join(dict.fromkeys(j.reason for j in asks if j.reason))
        if by_rule is not None:
            return Verdict("ask", "rule", by_rule.rule, reason)
        return Verdict("ask", "default", None, reason)
    by_rule = next((j for j in judged if j.by == "rule"), None)
    if by_rule is not None:
        return Verdict("allow", "rule", by_rule.rule)
    return Verdict("allow", "mode")


def _views(part: Part) -> list[str]:
    """Texts deny and ask rules are matched against: the program, as written, and by base name."""
    if not part.words:
        return []
    views = [part.text, part.full_text]
    head = part.words[0].text
    if "/" in head:
        views.append(" ".join([os.path.basename(head), *(w.text for w in part.words[1:])]))
    return views


def _show(part: Part) -> str:
    """How a part is named in reasons: the program, and the command it hides in when wrapped."""
    if not part.words:
        return "redirection"
    text, full = part.text, part.full_text
    return f"`{text}`" if text == full else f"`{text}` (in `{full}`)"


def _judge(policy: RulePolicy, rules: _Rules, part: Part, cwd: Path | None, cache: _Cache) -> _Judgement:
    views = _views(part)
    for r in rules.deny:
        if any(match_command(r.specifier or "", v) for v in views):
            return _Judgement("deny", "rule", r.text, f"{_show(part)} is denied by rule {r.text} ({r.source})")
    protected = _protected(policy, part, cwd, cache)
    if protected is not None:
        return protected
    writes = [_resolve(cache, w, cwd) for w in part.writes]
    ro = read_only_paths(part)
    ro_paths = [] if ro is None else [_resolve(cache, w, cwd) for w in ro]
    not_safe = ro is None or any(p is None or not policy.inside(p) for p in ro_paths)
    if policy.mode == "plan" and (ro is None or part.writes):
        return _Judgement("deny", "mode", None, f"plan mode: {_show(part)} may change something")
    for r in rules.ask:
        if any(match_command(r.specifier or "", v) for v in views) or (r.specifier is None and views):
            return _Judgement("ask", "rule", r.text, f"rule {r.text} ({r.source}) asks")
    for w in writes:
        hit = policy.path_rule("ask", "Edit", w) if w is not None else None
        if hit is not None:
            return _Judgement("ask", "rule", hit.text, f"rule {hit.text} ({hit.source}) asks")
    allowed = _allowed(policy, rules, part, not_safe)
    if allowed.behavior != "allow":
        return allowed
    for word, path in zip(part.writes, writes, strict=True):
        if policy.mode == "bypassPermissions":
            break
        rule = policy.path_rule("allow", "Edit", path) if path is not None else None
        if rule is None and not (policy.mode == "acceptEdits" and path is not None and policy.inside(path)):
            return _Judgement("ask", "default", None, f"{_show(part)} writes to {word.text}")
    return allowed


def _allowed(policy: RulePolicy, rules: _Rules, part: Part, not_safe: bool) -> _Judgement:
    """Allow rules, then bypass mode, then the read-only allowlist; otherwise ask."""
    if part.opaque:
        bare = next((r for r in rules.allow if r.specifier is None), None)
        if bare is not None:
            return _Judgement("allow", "rule", bare.text, None)
        if policy.mode == "bypassPermissions":
            return _Judgement("allow", "mode", None, None)
        return _Judgement("ask", "default", None, f"{_show(part)}: {part.opaque}")
    if part.words:
        for r in rules.allow:
            if _allow_matches(r, part):
                return _Judgement("allow", "rule", r.text, None)
        if policy.mode == "bypassPermissions":
            return _Judgement("allow", "mode", None, None)
        if not_safe:
            where = "" if read_only_paths(part) is None else " (reads outside the project)"
            return _Judgement("ask", "default", None, f"{_show(part)} needs approval{where}")
    return _Judgement("allow", "mode", None, None)


def _allow_matches(rule: Rule, part: Part) -> bool:
    spec = rule.specifier
    if spec is None:
        return True
    if part.privileged:
        return match_command(spec, part.full_text)  # `sudo` must be named by the rule itself
    exact = "*" not in spec
    if match_command(spec, part.text) and not (exact and part.fed):
        return True  # `xargs rm` runs rm with arguments from stdin: only a prefix rule (`rm *`) covers that
    return exact and spec == part.full_text


def _protected(policy: RulePolicy, part: Part, cwd: Path | None, cache: _Cache) -> _Judgement | None:
    """Deny rules on paths (the secrets) hold for shell commands too: `cat .env` is as denied as Read(.env)."""
    words: list[Word] = list(part.writes) + list(part.reads)
    if part.words and part.name not in _NO_PATHS:
        args = part.words[1:]
        for i, w in enumerate(args):
            # a commit message that mentions `.env` is text, not a path
            message = i > 0 and args[i - 1].text in ("-m", "--message")
            if not (w.dynamic or w.text.startswith("-") or message):
                words.append(w)
    for w in words:
        path = _resolve(cache, w, cwd)
        if path is None:
            continue
        for family in ("Read", "Edit"):
            rule = policy.path_rule("deny", family, path)
            if rule is not None:
                return _Judgement("deny", "rule", rule.text, f"{_show(part)} touches {w.text}, denied by {rule.text}")
    return None


def _resolve(cache: _Cache, word: Word, cwd: Path | None) -> Path | None:
    """The real path a word names (relative to the tracked cwd), or None when it cannot be known.
    `cache` lives for one decision only: the file system may change between calls."""
    if word.dynamic:
        return None
    text = os.path.expanduser(word.text) if word.tilde else word.text
    if not os.path.isabs(text):
        if cwd is None:
            return None
        text = os.path.join(cwd, text)
    found = cache.get(text)
    if found is None:
        found = cache[text] = Path(_realpath(cache, text))
    return found


def _realpath(cache: _Cache, text: str) -> str:
    """os.path.realpath, with the real parent directory shared by sibling paths (`ls a/x a/y …`)."""
    head, tail = os.path.split(text)
    if tail in ("", ".", "..") or not head:
        return os.path.realpath(text)
    key = head + "/"
    parent = cache.get(key)
    if parent is None:
        parent = cache[key] = Path(os.path.realpath(head))
    candidate = os.path.join(parent, tail)
    return os.path.realpath(candidate) if os.path.islink(candidate) else candidate


def _cd_target(part: Part, cwd: Path | None, cache: _Cache) -> Path | None:
    args = [w for w in part.words[1:] if not w.text.startswith("-")]
    if not args:
        return Path.home()
    if args[0].text == "-":
        return None
    return _resolve(cache, args[0], cwd)


def _unparsed(policy: RulePolicy, rules: _Rules, command: str, error: str) -> Verdict:
    """A command we cannot follow: deny rules are still tried on its rough pieces; it never runs by a
    prefix rule, only by an exact one, a bare `Bash` rule or bypass mode."""
    pieces = [" ".join(p.split()) for p in _CRUDE_SPLIT.split(command)]
    for r in rules.deny:
        if any(match_command(r.specifier or "", p) for p in pieces if p):
            return Verdict("deny", "rule", r.text, f"denied by rule {r.text} ({r.source})")
    if policy.mode == "plan":
        return Verdict("deny", "mode", None, f"plan mode: cannot verify the command is read-only ({error})")
    for r in rules.ask:
        if r.specifier is None or any(match_command(r.specifier, p) for p in pieces if p):
            return Verdict("ask", "rule", r.text, f"rule {r.text} ({r.source}) asks")
    for r in rules.allow:
        if r.specifier is None or r.specifier == command.strip():
            return Verdict("allow", "rule", r.text)
    if policy.mode == "bypassPermissions":
        return Verdict("allow", "mode")
    return Verdict("ask", "default", None, f"the command could not be analysed ({error})")
