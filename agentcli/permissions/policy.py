"""`RulePolicy`: the mode plus allow / ask / deny rules → a Verdict for each tool call.

Order: deny rules > plan mode > ask rules > allow rules > bypassPermissions > the mode's defaults. Shell
commands are split into the programs they run (agentcli.permissions.unwrap) and every one must be allowed
on its own; what cannot be parsed asks. File tools resolve `..` and symlinks; paths outside the project and
the added directories ask in every mode but bypassPermissions, unless an allow rule names them.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import field, replace
from pathlib import Path
from typing import Any

from agentcli.core.permissions import Verdict
from agentcli.core.state import SessionState
from agentcli.errors import AgentCliError
from agentcli.modes import PermissionMode
from agentcli.permissions.rules import (
    READ_TOOLS,
    Rule,
    RuleBehavior,
    match_domain,
    match_param,
    parse_rule,
    path_regex,
    tool_matches,
)
from agentcli.record import record
from agentcli.tools.base import Tool, ToolContext
from agentcli.tools.paths import note_decided

Persist = Callable[[Rule, str], None]
_Entries = tuple[re.Pattern[str], list[tuple[Rule, re.Pattern[str]]]]
PLAN_TOOLS = frozenset({"ExitPlanMode"})
_SIMPLE = re.compile(r"[\w.*?\-]+")  # a name pattern: no path, no braces or classes ripgrep reads otherwise
SCOPE_ALIASES = {"everywhere": "user", "global": "user", "this project": "local", "shared": "project"}


@record(frozen=False)
class RulePolicy:
    """Implements agentcli.core.permissions.Policy. Its `mode` is the session's (`session`, which the agent
    hands it), so it may change at any time (Shift-Tab, /mode, plan approval). `ctx` supplies the project root,
    added directories and the shell's cwd; `bind()` shares the session's live ToolContext so a `cd` in one command
    is seen by the next check."""

    ctx: ToolContext
    rules: list[Rule] = field(default_factory=list)
    persist: Persist | None = None
    home: Path = field(default_factory=Path.home)
    session: SessionState = field(default_factory=SessionState)
    _roots_key: tuple[Path, tuple[Path, ...]] | None = field(default=None, init=False, repr=False)
    _roots: list[str] = field(default_factory=list, init=False, repr=False)
    _index: dict[tuple[str, str], _Entries] | None = field(default=None, init=False, repr=False)
    _walks: dict[Any, Any] = field(default_factory=dict, init=False, repr=False)
    _denied_names: Callable[[str], bool] | None = field(default=None, init=False, repr=False)

    @property
    def mode(self) -> PermissionMode:
        return self.session.mode

    def bind(self, ctx: ToolContext) -> None:
        """Share the session's live ToolContext, and become its read-deny checks (`ctx.reads`), which the search
        tools and the sandbox use to leave out files a deny rule protects (tools never import the policy)."""
        self.ctx = ctx
        ctx.reads = self
        if ctx.decided_paths is None:  # the paths this policy decides are noted there (tools.paths.note_decided)
            ctx.decided_paths = {}

    def read_denied(self, path: str | os.PathLike[str]) -> bool:
        """Does a deny rule forbid reading `path` (absolute, or relative to the shell cwd)? A symlink is judged
        by its own path and by its target, as Read would see it. Called for every file Grep and Glob find, so
        it costs one regex match and one lstat; parent directories are taken as given (the tools search
        under a directory they have already resolved)."""
        entries = self._path_index().get(("deny", "Read"))
        if entries is None:
            return False
        combined = entries[0]
        p = os.path.normpath(os.path.join(self.ctx.shell_cwd or self.ctx.project_root, os.fspath(path)))
        if combined.fullmatch(p) is not None:
            return True
        return os.path.islink(p) and combined.fullmatch(os.path.realpath(p)) is not None

    def denied_matcher(self) -> tuple[Callable[[str], bool], dict[Any, Any]]:
        """For walks of a directory tree: whether an absolute, normalized path is protected by a Read deny rule
        (the path itself; links are the walker's business), and a cache of directory listings that lives as
        long as the rules do."""
        self._path_index()
        if self._denied_names is None:
            entries = self._path_index().get(("deny", "Read"))
            self._walks = {}
            if entries is None:
                self._denied_names = lambda p: False
            else:
                combined = entries[0]
                self._denied_names = lambda p: combined.fullmatch(p) is not None
        return self._denied_names, self._walks

    def read_denied_globs(self) -> tuple[str, ...]:
        """Deny-rule patterns that name a file at any depth of the project (`.env*`, `*.pem`), in a form
        ripgrep's `--glob '!…'` means the same way; the rest is left to `read_denied`."""
        out: list[str] = []
        for rule in self.rules:
            spec = rule.specifier
            if rule.behavior == "deny" and spec and _family_of(rule.tool) == "Read" and _SIMPLE.fullmatch(spec):
                out.append(spec)
        return tuple(dict.fromkeys(out))

    def _real_roots(self) -> list[str]:
        """Real paths of the project root (first) and added directories, recomputed only when they change."""
        key = (self.ctx.project_root, tuple(self.ctx.add_dirs))
        if key != self._roots_key:
            self._roots = [os.path.realpath(r) for r in (key[0], *key[1])]
            self._roots_key = key
            self._index = None
            self._denied_names = None
        return self._roots

    @property
    def root(self) -> Path:
        return Path(self._real_roots()[0])

    def add(self, rule: Rule) -> None:
        # (each start adds ~60 rules one by one: the text of a rule is made only when the behavior is the same)
        text, behavior = rule.text, rule.behavior
        if not any(r.behavior == behavior and r.text == text for r in self.rules):
            self.rules.append(rule)
            self._index = None
            self._denied_names = None

    def remember(self, rule: str, scope: str) -> list[str]:
        """Allow `rule` (one or more rule texts, one per line) for `scope`: session (memory only), local
        (.agentcli/settings.local.toml, "this project"), project (.agentcli/settings.toml), user (config.toml).
        Returns what the person should be told: rules that could not be saved (they still hold for the session)."""
        problems: list[str] = []
        scope = SCOPE_ALIASES.get(scope, scope)
        for line in rule.splitlines():
            if not line.strip():
                continue
            parsed = parse_rule(line, "allow", source=scope)
            if scope != "session" and self.persist is not None:
                try:
                    self.persist(parsed, scope)
                except (OSError, AgentCliError) as e:
                    # the approval still holds for this session; the loop tells the person why it was not saved
                    parsed = replace(parsed, source="session")
                    problems.append(f"could not save {parsed.text}: {e}")
            self.add(parsed)
        return problems

    def session_rules(self) -> list[str]:
        """Rules remembered for this session only: store them with the session so `--resume` restores them."""
        return [r.text for r in self.rules if r.source == "session" and r.behavior == "allow"]

    def matching(
        self, behavior: RuleBehavior, tool: Tool, args: dict[str, Any], paths: list[Path] | None = None
    ) -> Rule | None:
        """The first `behavior` rule that applies to this call (`paths`: the call's resolved paths, if known)."""
        if paths is None:
            paths = self._paths(tool, args)
        for rule in self.rules:
            if rule.behavior == behavior and self._applies(rule, tool, args, paths):
                return rule
        return None

    def check(self, tool: Tool, args: dict[str, Any]) -> Verdict:
        verdict = self._check(tool, args)
        if verdict.behavior == "ask" and verdict.by == "default" and self.ctx.skill_allowed_tools:
            verdict = self._skill_check(tool, args) or verdict
        return self._auto(tool, verdict)

    def _skill_check(self, tool: Tool, args: dict[str, Any]) -> Verdict | None:
        """The active skill's `allowed-tools` (agentcli.skills) spare a question the defaults would ask, checked
        by a policy holding them beside this one's deny and ask rules, so they never reach past either."""
        allow = []
        for text in self.ctx.skill_allowed_tools:
            try:
                allow.append(parse_rule(text, "allow", source=f"skill {self.ctx.active_skill}"))
            except ValueError:
                continue  # told when the skill was loaded; an unreadable rule grants nothing
        kept = [r for r in self.rules if r.behavior != "allow"]
        narrow = RulePolicy(self.ctx, [*kept, *allow], home=self.home, session=self.session)
        found = narrow._check(tool, args)
        return found if found.behavior == "allow" and found.by == "rule" else None

    def _auto(self, tool: Tool, verdict: Verdict) -> Verdict:
        """`auto` mode (Claude Code's sandbox auto-allow): what would ask only by default runs without a
        question when the sandbox is the wall — a command the kernel sandbox confines (writes only in the
        project, no network, execution config read-only; leaving it asks, agentcli.core.escalation), an edit
        inside the project. Rules that ask (execution config included), paths outside and deny stay as they are."""
        if self.mode != "auto" or verdict.behavior != "ask" or verdict.by != "default":
            return verdict
        if tool.name == "Bash":
            sandbox = self.ctx.sandbox
            confined = sandbox is not None and sandbox.confining and sandbox.mode == "workspace-write"
            return Verdict("allow", "sandbox", None, "confined by the sandbox") if confined else verdict
        if tool.edits_files and not tool.destructive and verdict.reason is None:
            return Verdict("allow", "mode")
        return verdict

    def _check(self, tool: Tool, args: dict[str, Any]) -> Verdict:
        if tool.name == "Bash":
            # Imported on the first Bash call: the shell parser is a large share of start-up otherwise.
            from agentcli.permissions import bashcheck

            return bashcheck.check_bash(self, tool, args)
        paths = self._paths(tool, args)
        deny = self.matching("deny", tool, args, paths)
        if deny is not None:
            return Verdict("deny", "rule", deny.text, f"denied by rule {deny.text} ({deny.source})")
        if self.mode == "plan" and not (tool.read_only or tool.name in PLAN_TOOLS):
            return Verdict("deny", "mode", None, "plan mode: only read-only tools may run until the plan is approved")
        ask = self.matching("ask", tool, args, paths)
        if ask is not None:
            return Verdict("ask", "rule", ask.text, f"rule {ask.text} ({ask.source}) asks")
        outside = [str(p) for p in paths if not self._inside(p)]
        allow = self.matching("allow", tool, args, paths)
        if allow is not None and (not outside or allow.specifier is not None):
            return Verdict("allow", "rule", allow.text)
        if self.mode == "bypassPermissions":
            return Verdict("allow", "mode")
        if outside:
            return Verdict("ask", "default", None, f"outside the project: {', '.join(outside)}")
        if tool.read_only or tool.name in PLAN_TOOLS:
            return Verdict("allow", "mode")
        if self.mode == "acceptEdits" and tool.edits_files and not tool.destructive:
            return Verdict("allow", "mode")
        return Verdict("ask", "default", None, None)

    def _applies(self, rule: Rule, tool: Tool, args: dict[str, Any], paths: list[Path]) -> bool:
        if not tool_matches(rule.tool, tool.name, tool.edits_files):
            return False
        spec = rule.specifier
        if spec is None:
            return True
        if tool.name == "Bash":
            return False  # Bash specifiers are matched per program by bashcheck
        if rule.is_path_rule or tool.edits_files or tool.name in READ_TOOLS:
            rx = path_regex(spec, self._real_roots()[0], self.home.as_posix())  # as match_path, without Paths
            return any(rx.fullmatch(p.as_posix()) is not None for p in paths)
        if tool.name in ("WebFetch", "WebSearch") and spec.startswith("domain:"):
            return match_domain(spec, str(args.get("url", "")))
        return match_param(spec, args)

    def _paths(self, tool: Tool, args: dict[str, Any]) -> list[Path]:
        """The real paths a file tool touches (Read/Edit/Write/Glob/Grep …); [] for other tools."""
        if not (tool.edits_files or tool.name in READ_TOOLS or "file_path" in args or "notebook_path" in args):
            return []
        raw = [args[k] for k in ("file_path", "notebook_path", "path") if isinstance(args.get(k), str) and args[k]]
        pattern = args.get("pattern")
        if tool.name == "Glob" and isinstance(pattern, str) and pattern.startswith(("/", "~", "..")):
            raw.append(_glob_base(pattern))
        if not raw and tool.name in READ_TOOLS:
            raw = ["."]
        found = [self.resolve(r) for r in raw]
        for r, real in zip(raw, found, strict=True):
            note_decided(self.ctx, r, real)  # the tools use an outside path only as decided here
        return found

    def resolve(self, path: str) -> Path:
        """As agentcli.tools.paths.resolve_in_project: `~` expanded, relative to the shell cwd (else the
        project root), `..` and symlinks followed."""
        expanded = os.path.expanduser(path)
        if not os.path.isabs(expanded):
            expanded = os.path.join(self.ctx.shell_cwd or self.ctx.project_root, expanded)
        return Path(os.path.realpath(expanded))

    def _inside(self, path: Path) -> bool:
        p = path.as_posix()
        return any(p == root or p.startswith(root.rstrip("/") + "/") for root in self._real_roots())

    def inside(self, path: Path) -> bool:
        return self._inside(path)

    def path_rule(self, behavior: RuleBehavior, family: str, path: Path) -> Rule | None:
        """The first `behavior` rule of a file-tool family (Read or Edit) whose path specifier matches
        `path` or one of its parents."""
        entries = self._path_index().get((behavior, family))
        if not entries:
            return None
        p = path.as_posix()
        combined, rules = entries
        if combined.fullmatch(p) is None:
            return None
        return next((rule for rule, rx in rules if rx.fullmatch(p)), None)

    def _path_index(self) -> dict[tuple[str, str], _Entries]:
        """Path rules grouped by (behavior, family), with one combined regex per group for the common miss."""
        root = self._real_roots()[0]
        if self._index is None:
            groups: dict[tuple[str, str], list[tuple[Rule, re.Pattern[str]]]] = {}
            for rule in self.rules:
                family = _family_of(rule.tool)
                if rule.specifier is not None and family is not None:
                    rx = path_regex(rule.specifier, root, self.home.as_posix())
                    groups.setdefault((rule.behavior, family), []).append((rule, rx))
            self._index = {
                k: (re.compile("|".join(f"(?:{rx.pattern})" for _, rx in v), re.S), v) for k, v in groups.items()
            }
        return self._index


def _family_of(tool: str) -> str | None:
    if tool in READ_TOOLS:
        return "Read"
    if tool in ("Edit", "Write", "MultiEdit", "NotebookEdit"):
        return "Edit"
    return None


def _glob_base(pattern: str) -> str:
    cut = len(pattern)
    for ch in "*?[{":
        i = pattern.find(ch)
        if i >= 0:
            cut = min(cut, i)
    return os.path.dirname(pattern[:cut]) or "/"
