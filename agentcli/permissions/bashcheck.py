"""The Bash part of the policy: every program a command line runs is judged on its own, then combined
(deny > ask > allow). A rule naming a harmless prefix (`Bash(git status:*)`) allows only that program,
never what follows `;`, `&&`, `|`, `$(…)` or hides inside `bash -c`, `sudo`, `env`, `xargs` or `find -exec`.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from agentcli.core.permissions import Verdict
from agentcli.permissions.gitcheck import repo_problem
from agentcli.permissions.readonly import _NO_PATHS, Reads, read_only_paths
from agentcli.permissions.rules import Rule, match_command
from agentcli.permissions.ruleview import RuleView
from agentcli.permissions.scope import Scope
from agentcli.permissions.shell import ShellParseError, Word
from agentcli.permissions.unwrap import Part, analyse, join_words
from agentcli.tools.base import Tool

_DEV_FILES = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/zero", "/dev/urandom"})
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
    def of(policy: RuleView) -> _Rules:
        out = _Rules([], [], [])
        for r in policy.rules:
            if r.tool == "Bash":
                getattr(out, r.behavior).append(r)
        return out


def check_bash(policy: RuleView, tool: Tool, args: dict[str, Any]) -> Verdict:
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
    line = _Line(Scope(policy, {}), parts)
    judged: list[_Judgement] = []
    for part in parts:
        judged.append(_judge(line, rules, part, cwd))
        if part.name in ("cd", "pushd", "popd"):
            cwd = _cd_target(line.scope, part, cwd)
    return _combine(judged)


@dataclass(slots=True)
class _Line:
    """One command line: its parts, and which of them may change the file system before another reads or
    writes a path (`ln -s ~/.ssh/id k; cat k`): path checks of the others cannot be trusted then."""

    scope: Scope
    parts: list[Part]
    mutators: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.mutators = [i for i, p in enumerate(self.parts) if p.words and read_only_paths(p) is None]

    def changed_by_other(self, part: Part) -> Part | None:
        return next((self.parts[i] for i in self.mutators if self.parts[i] is not part), None)


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
    views = [part.text, part.full_text, join_words(part.words)]
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


def _judge(line: _Line, rules: _Rules, part: Part, cwd: Path | None) -> _Judgement:
    policy, scope = line.scope.policy, line.scope
    views = _views(part)
    for r in rules.deny:
        if any(match_command(r.specifier or "", v) for v in views):
            return _Judgement("deny", "rule", r.text, f"{_show(part)} is denied by rule {r.text} ({r.source})")
    protected = _protected(scope, part, cwd)
    if protected is not None:
        return protected
    ro, why_not = _read_only(scope, part, cwd)
    if ro is not None:
        denied = _denied_paths(scope, part, ro.paths, cwd)
        if denied is not None:
            return denied
    if policy.mode == "plan" and (ro is None or part.writes):
        return _Judgement("deny", "mode", None, f"plan mode: {_show(part)} may change something{why_not}")
    for r in rules.ask:
        if any(match_command(r.specifier or "", v) for v in views) or (r.specifier is None and views):
            return _Judgement("ask", "rule", r.text, f"rule {r.text} ({r.source}) asks")
    guarded = _guarded(line, part, cwd, ro)
    if guarded is not None:
        return guarded
    not_safe = ro is None or any(p is None or not policy.inside(p) for p in _ro_paths(scope, ro, cwd, part))
    allowed = _allowed(scope, rules, part, not_safe, cwd, why_not)
    if allowed.behavior != "allow":
        return allowed
    racing = line.changed_by_other(part)
    bare = allowed.rule is not None and allowed.rule == "Bash"
    if racing is not None and policy.mode != "bypassPermissions" and not bare and _uses_paths(part, ro):
        return _Judgement("ask", "default", None, f"{_show(part)} uses paths that {_show(racing)} may change first")
    for word in part.writes:
        if policy.mode == "bypassPermissions":
            break
        for path in _each(scope, word, cwd):
            rule = policy.path_rule("allow", "Edit", path) if path is not None else None
            if rule is None and not (policy.mode == "acceptEdits" and path is not None and policy.inside(path)):
                return _Judgement("ask", "default", None, f"{_show(part)} writes to {word.text}")
    return allowed


def _read_only(scope: Scope, part: Part, cwd: Path | None) -> tuple[Reads | None, str]:
    """The part's reads if it is on the read-only allowlist, with git's repository checked; else why not."""
    ro = read_only_paths(part)
    if ro is None or ro.git_dirs is None:
        return ro, ""
    where = cwd
    for d in ro.git_dirs:
        where = scope.resolve(d, where)
    if where is None:
        return None, ""
    problem = repo_problem(str(where))
    return (ro, "") if problem is None else (None, f" ({problem})")


def _ro_paths(scope: Scope, ro: Reads, cwd: Path | None, part: Part) -> list[Path | None]:
    """Every path a read-only part reads: its arguments, the trees it walks and its `<` redirections (`cat <
    /etc/passwd` reads outside as much as `cat /etc/passwd`; `< /dev/tcp/host/port` is a connection)."""
    out: list[Path | None] = []
    for w in [*ro.paths, *ro.trees, *(r for r in part.reads if r.text not in _DEV_FILES)]:
        out.extend(_each(scope, w, cwd))
    return out


def _each(scope: Scope, word: Word, cwd: Path | None) -> list[Path | None]:
    """The paths a word names, or [None] when they cannot be known."""
    found = scope.resolve_all(word, cwd)
    return [None] if found is None else list(found)


def _uses_paths(part: Part, ro: Reads | None) -> bool:
    return bool(part.writes or part.reads or part.tree_reads or (ro is not None and (ro.paths or ro.trees)))


def _guarded(line: _Line, part: Part, cwd: Path | None, ro: Reads | None) -> _Judgement | None:
    """What asks whatever rule allows the program: writes to files that configure execution and recursive reads
    that reach a protected file (in every mode), links (which make later path checks lie; not in
    bypassPermissions, where the sandbox is the wall)."""
    scope, policy = line.scope, line.scope.policy
    targets = list(part.writes)
    if ro is None and part.words:
        targets += [w for w in part.words[1:] if not w.text.startswith("-")]
    for w in targets:
        for path in scope.resolve_all(w, cwd) or []:
            hit = policy.path_rule("ask", "Edit", path)
            if hit is not None:
                return _Judgement("ask", "rule", hit.text, f"{_show(part)} changes {w.text}: rule {hit.text} asks")
    if _makes_link(part) and policy.mode != "bypassPermissions" and not _named_by_rule(policy, part):
        return _Judgement("ask", "default", None, f"{_show(part)} creates a link")
    trees = [(w, ro.only) for w in ro.trees] if ro is not None else []
    if part.tree_reads and part.words and (ro is not None or policy.mode != "bypassPermissions"):
        # in bypass mode only a reader is held back (`find -exec cat`, not `-exec rm`)
        trees += [(w, ()) for w in part.tree_reads]
    for w, only in trees:
        reached = scope.tree_problem(w, cwd, follow=part.tree_follow or (ro is not None and ro.follow),
                                     hidden=ro is None or ro.hidden or bool(part.tree_reads), only=only)
        if reached is not None:
            return _Judgement("ask", "default", None, f"{_show(part)} reads recursively and reaches {reached}")
    return None


def _makes_link(part: Part) -> bool:
    if not part.words:
        return False
    name, texts = part.name, [w.text for w in part.words[1:]]
    if name in ("ln", "link"):
        return True
    if name != "cp":
        return False
    return any(t in ("--symbolic-link", "--link") or (t[:1] == "-" and t[1:2] != "-" and ("s" in t or "l" in t))
               for t in texts)


def _named_by_rule(policy: RuleView, part: Part) -> bool:
    return any(r.behavior == "allow" and r.tool == "Bash" and _allow_matches(r, part) for r in policy.rules)


def _allowed(
    scope: Scope, rules: _Rules, part: Part, not_safe: bool, cwd: Path | None, why_not: str = ""
) -> _Judgement:
    """Allow rules, then bypass mode, then the read-only allowlist; otherwise ask."""
    policy = scope.policy
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
                outside = _outside_args(scope, r, part, cwd) if policy.mode != "bypassPermissions" else None
                if outside is not None:
                    return _Judgement("ask", "default", None, f"{_show(part)} names {outside}, outside the project or "
                                      f"known only at run time: the rule {r.text} covers arguments inside it only")
                return _Judgement("allow", "rule", r.text, None)
        if policy.mode == "bypassPermissions":
            return _Judgement("allow", "mode", None, None)
        if not_safe:
            where = why_not or ("" if read_only_paths(part) is None else " (reads outside the project)")
            return _Judgement("ask", "default", None, f"{_show(part)} needs approval{where}")
    elif policy.mode != "bypassPermissions":
        # a redirection alone (`exec 3< /etc/passwd`, then `cat <&3`) opens what a program would have read
        for w in part.reads:
            if w.text not in _DEV_FILES and any(p is None or not policy.inside(p) for p in _each(scope, w, cwd)):
                return _Judgement("ask", "default", None, f"a redirection reads {w.text} outside the project")
    return _Judgement("allow", "mode", None, None)


def _outside_args(scope: Scope, rule: Rule, part: Part, cwd: Path | None) -> str | None:
    """An argument a wildcard rule matched that names a path outside the project (`npm test --cache /x` under
    `Bash(npm test *)`), unless an Edit allow rule names it, or whose path cannot be known: a value computed at
    run time with a `/` in it, and for a program that reads the files it is given (`cat *`) any computed value
    (`cat $(echo .env)`) or relative path where the working directory is unknown (`cd -; cat .env`) — deny
    rules could not be checked against those. Such a reader may read outside the project where it is told; an
    exact rule names its arguments itself. A commit message computed by `$(cat <<EOF …)` is no path."""
    if rule.specifier is None or "*" not in rule.specifier:
        return None
    static = [replace(w, dynamic=False) for w in part.words]
    reader = read_only_paths(replace(part, privileged=False, words=static)) is not None
    policy = scope.policy
    for w in [*part.words[1:], *part.reads]:
        option = w.text.startswith("-")
        value = w.text.partition("=")[2] if option else w.text
        if w.dynamic:
            if reader or "/" in value:
                return w.text
            continue
        if not value.startswith(("/", "~")) and ".." not in value.split("/"):
            if cwd is None and reader and value and not option:
                return w.text
            continue
        if value in _DEV_FILES:
            continue
        for path in _each(scope, Word(value, tilde=value.startswith("~"), glob=w.glob), cwd):
            if path is None:
                return w.text
            if not reader and not policy.inside(path) and policy.path_rule("allow", "Edit", path) is None:
                return w.text
    return None


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


def _protected(scope: Scope, part: Part, cwd: Path | None) -> _Judgement | None:
    """Deny rules on paths (the secrets) hold for shell commands too: `cat .env` is as denied as Read(.env),
    and so are `cat .en[v]` and `cat < .en?` (wildcards are expanded first)."""
    words: list[Word] = list(part.writes) + list(part.reads)
    if part.words and part.name not in _NO_PATHS:
        args = part.words[1:]
        for i, w in enumerate(args):
            # a commit message that mentions `.env` is text, not a path
            message = i > 0 and args[i - 1].text in ("-m", "--message")
            if not (w.dynamic or message):
                words.append(_option_value(w) if w.text.startswith("-") else w)
    return _denied_paths(scope, part, words, cwd)


def _denied_paths(scope: Scope, part: Part, words: list[Word], cwd: Path | None) -> _Judgement | None:
    for w in words:
        if w.text.startswith("-"):
            continue
        paths = scope.resolve_all(w, cwd)
        for path in paths or []:
            for family in ("Read", "Edit"):
                rule = scope.policy.path_rule("deny", family, path)
                if rule is not None:
                    reason = f"{_show(part)} touches {w.text}, denied by {rule.text}"
                    return _Judgement("deny", "rule", rule.text, reason)
        if paths is None and w.glob:
            return _Judgement("ask", "default", None, f"{_show(part)}: {w.text} matches too many files to check")
    return None


def _option_value(w: Word) -> Word:
    """`--file=.env` names `.env`."""
    _, eq, value = w.text.partition("=")
    return Word(value, tilde=value.startswith("~"), glob=w.glob) if eq else w


def _cd_target(scope: Scope, part: Part, cwd: Path | None) -> Path | None:
    """Where a `cd` / `pushd` / `popd` leaves the shell; None when that depends on what the policy does not
    track (`cd -`, the directory stack: `popd`, a bare `pushd`, `pushd +1`)."""
    args = [w for w in part.words[1:] if not w.text.startswith("-") or w.text == "-"]
    if part.name == "popd" or (part.name == "pushd" and (not args or args[0].text[:1] in "+-")):
        return None
    if not args:
        return Path.home()
    if args[0].text == "-":
        return None
    found = scope.resolve_all(args[0], cwd)
    return found[0] if found is not None and len(found) == 1 else None


def _unparsed(policy: RuleView, rules: _Rules, command: str, error: str) -> Verdict:
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
