"""Where rules come from, and where remembered ones go.

    source    file                                   written by
    builtin   (in code) secrets and agentcli's own settings
    user      $AGENTCLI_HOME/config.toml             `permissions add --scope user`, "everywhere"
    project   <root>/.agentcli/settings.toml         `permissions add --scope project` (shared, committed)
    local     <root>/.agentcli/settings.local.toml   "this project" approvals (personal, git-ignored)
    preset    the preset's [permissions]
    flag      --allowedTools / --disallowedTools
    session   approvals "for this session" (stored with the session so --resume restores them)

Each file holds `[permissions]` with `allow`, `ask`, `deny` lists (and optionally `default_mode`,
`additional_directories`, `default_deny = false` to drop the built-in secret rules).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from agentcli import paths
from agentcli.core.state import SessionState
from agentcli.errors import ConfigError
from agentcli.modes import PERMISSION_MODES, is_mode
from agentcli.permissions.policy import RulePolicy
from agentcli.permissions.rules import Rule, RuleBehavior, parse_rule, split_rule_list
from agentcli.record import record
from agentcli.sandbox.execconfig import git_followed, policy_patterns
from agentcli.tools.base import ToolContext

BEHAVIORS: tuple[RuleBehavior, ...] = ("deny", "ask", "allow")
SCOPES = ("local", "project", "user")
SECRET_PATTERNS = (".env*", "~/.ssh", "~/.aws", "~/.gnupg")
# Files that make a program run code nobody approved (agentcli.sandbox.execconfig, the one list the sandbox keeps
# read-only too): git's directory, agentcli's settings, MCP server lists, other agents' settings, hook runners,
# and what an editor, a tool manager or the user's shell runs on its own. Editing them asks in every mode; an
# allow rule does not cover them. A name without `/` matches at any depth. docs/permissions.md keeps the reasons.
EXEC_CONFIG_PATTERNS = policy_patterns()


@record
class RuleFile:
    source: str
    path: Path


def rule_files(project_root: Path) -> list[RuleFile]:
    """The settings files, lowest precedence first (precedence matters only for `default_mode`)."""
    pdir = paths.project_dir(project_root)
    return [
        RuleFile("user", paths.user_config_file()),
        RuleFile("project", pdir / "settings.toml"),
        RuleFile("local", pdir / "settings.local.toml"),
    ]


def scope_file(project_root: Path, scope: str) -> Path:
    for f in rule_files(project_root):
        if f.source == scope:
            return f.path
    raise ConfigError(f"unknown scope {scope!r}", hint="use local, project or user")


def builtin_rules(project_root: Path | None = None) -> list[Rule]:
    """Secrets are never read or written by a tool; agentcli's own settings, and what makes a later program run
    something (with what the project's repository makes git follow: its hooks directory, included files), are
    edited only with consent."""
    config = "//" + paths.user_config_file().as_posix().lstrip("/")
    out: list[Rule] = []
    for pattern in (*SECRET_PATTERNS, config):
        out += [Rule("Read", pattern, "deny", "builtin"), Rule("Edit", pattern, "deny", "builtin")]
    out += [Rule("Edit", pattern, "ask", "builtin") for pattern in EXEC_CONFIG_PATTERNS]
    followed = git_followed(Path(os.path.realpath(project_root))) if project_root is not None else []
    out += [Rule("Edit", "//" + p.as_posix().lstrip("/"), "ask", "builtin") for p in followed]
    # agentcli's own home holds what later sessions trust and run: trusted projects, presets (rules, sandbox mode),
    # subagent and command definitions, memory, sessions (their remembered approvals). Writing there asks in
    # every mode, bypassPermissions included, as Claude Code guards `.claude`.
    for place in dict.fromkeys((paths.home().as_posix(), os.path.realpath(paths.home()))):
        out.append(Rule("Edit", "//" + place.lstrip("/"), "ask", "builtin"))
    return out


def read_rules(path: Path, source: str) -> tuple[list[Rule], dict[str, Any]]:
    """The rules of one file and its whole `[permissions]` table. Invalid rules raise ConfigError."""
    if path.suffix == ".json":  # Claude Code's settings.json, its keys translated (agentcli.settings.claude)
        from agentcli.settings import claude

        return table_rules(claude.translate(claude.read_json(path))[0].get("permissions", {}), source, str(path))
    if not os.path.lexists(path):  # as writer.load says of a missing file; the writer is imported to write rules
        return table_rules({}, source, str(path))
    from agentcli.settings import writer

    return table_rules(writer.load(path).get("permissions", {}), source, str(path))


def policy_files(project_root: Path) -> list[RuleFile]:
    """Every file rules are read from, lowest precedence first: at each scope Claude Code's settings.json, then
    agentcli's own file (only the latter is written to: `rule_files`)."""
    from agentcli.settings import claude

    return [x for f in rule_files(project_root)
            for x in (RuleFile(f.source, claude.settings_file(f.source, project_root)), f)]


def table_rules(table: Any, source: str, origin: str) -> tuple[list[Rule], dict[str, Any]]:
    """The rules of one `[permissions]` table (from a file, or from `--settings`)."""
    if not isinstance(table, dict):
        raise ConfigError(f"{origin}: [permissions] must be a table")
    rules: list[Rule] = []
    for behavior in BEHAVIORS:
        items = table.get(behavior, [])
        if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
            raise ConfigError(f"{origin}: permissions.{behavior} must be a list of strings")
        for item in items:
            try:
                rules.append(parse_rule(item, behavior, source, origin))
            except ValueError as e:
                raise ConfigError(f"{origin}: {e}") from e
    return rules, table


def flag_rules(values: Iterable[str], behavior: RuleBehavior) -> list[Rule]:
    """Rules from --allowedTools / --disallowedTools values (already split or not: both work)."""
    out: list[Rule] = []
    for text in split_rule_list(" ".join(values)):
        try:
            out.append(parse_rule(text, behavior, "flag"))
        except ValueError as e:
            raise ConfigError(str(e), hint="rules look like Bash(git diff:*) or Edit(src/**)") from e
    return out


def load_policy(
    project_root: Path,
    mode: str | None = None,
    allowed_flags: Sequence[str] = (),
    disallowed_flags: Sequence[str] = (),
    add_dirs: Sequence[Path] = (),
    session_rules: Sequence[str] = (),
    *,
    preset_rules: dict[str, list[str]] | None = None,
    preset_mode: str | None = None,
    ctx: ToolContext | None = None,
    trust_project: bool = True,
    settings_table: dict[str, Any] | None = None,
    sources: tuple[str, ...] | None = None,
    fallback_mode: str = "default",
) -> RulePolicy:
    """Build the session's RulePolicy from every source. `mode` (a flag) beats the preset's mode, which
    beats `default_mode` in the settings files, which beats `fallback_mode` (the front end's own default)."""
    rules: list[Rule] = []
    file_mode: str | None = None
    extra_dirs: list[Path] = []
    use_builtin = True
    for f in policy_files(project_root):
        if sources is not None and f.source not in sources:  # --setting-sources left this file out
            continue
        found, table = read_rules(f.path, f.source)
        if f.source in ("project", "local") and not trust_project:
            # An untrusted project file (a repository may ship either) only restricts: deny and ask rules.
            found = [r for r in found if r.behavior != "allow"]
            table = {k: v for k, v in table.items() if k not in ("default_mode", "defaultMode",
                                                                 "additional_directories", "default_deny")}
        rules += found
        file_mode = _str(table.get("default_mode") or table.get("defaultMode")) or file_mode
        extra_dirs += [Path(d).expanduser() for d in table.get("additional_directories", []) if isinstance(d, str)]
        if table.get("default_deny") is False:
            use_builtin = False
    for behavior in BEHAVIORS:
        rules += [parse_rule(t, behavior, "preset") for t in (preset_rules or {}).get(behavior, [])]
    if settings_table:  # `--settings`: given on the command line, so trusted like a flag
        found, table = table_rules(settings_table, "flag", "--settings")
        rules += found
        file_mode = _str(table.get("default_mode") or table.get("defaultMode")) or file_mode
    rules += flag_rules(allowed_flags, "allow") + flag_rules(disallowed_flags, "deny")
    # a remembered approval may hold several rules, one per line (see RulePolicy.remember)
    rules += [parse_rule(line, "allow", "session") for t in session_rules for line in t.splitlines() if line.strip()]
    if use_builtin:
        rules = builtin_rules(project_root) + rules
    chosen = mode or preset_mode or file_mode or fallback_mode
    if not is_mode(chosen):
        raise ConfigError(f"unknown permission mode {chosen!r}", hint=f"use one of {', '.join(PERMISSION_MODES)}")
    if ctx is None:
        ctx = ToolContext(project_root=project_root, add_dirs=(*add_dirs, *extra_dirs))
    elif extra_dirs:  # the session's live context: the file tools must see these directories too
        ctx.add_dirs = tuple(dict.fromkeys((*ctx.add_dirs, *extra_dirs)))
    policy = RulePolicy(ctx, [], session=SessionState(chosen))
    for r in rules:
        policy.add(r)
    policy.bind(ctx)  # publishes the read-deny predicate the search tools filter with
    def persist(rule: Rule, scope: str) -> None:
        save_rule(project_root, rule.text, rule.behavior, scope)

    policy.persist = persist
    return policy


def rule_rows(policy: RulePolicy, project_root: Path) -> list[dict[str, str | None]]:
    """Every rule in force, deny first, with its source and file: what `/permissions` and
    `agentcli permissions list` show."""
    files = {f.source: str(f.path) for f in rule_files(project_root)}
    return [
        {"behavior": r.behavior, "rule": r.text, "source": r.source, "file": r.origin or files.get(r.source)}
        for b in BEHAVIORS
        for r in policy.rules
        if r.behavior == b
    ]


def _str(v: Any) -> str | None:
    return v if isinstance(v, str) and v else None


def save_rule(project_root: Path, text: str, behavior: RuleBehavior, scope: str) -> Path:
    """Add a rule to the file of `scope` (local | project | user); returns the file."""
    parse_rule(text, behavior)
    from agentcli.settings import writer

    path = scope_file(project_root, scope)
    table = writer.load(path).get("permissions", {})
    items = list(table.get(behavior, [])) if isinstance(table, dict) else []
    if text not in items:
        items.append(text)
        writer.update_table(path, "permissions", {behavior: items})
    if scope == "local":
        writer.keep_local_out_of_git(path)
    return path


def remove_rule(project_root: Path, text: str, behavior: RuleBehavior | None, scope: str) -> bool:
    """Remove a rule from the file of `scope`; True if it was there."""
    from agentcli.settings import writer

    path = scope_file(project_root, scope)
    table = writer.load(path).get("permissions", {})
    if not isinstance(table, dict):
        return False
    changes: dict[str, Any] = {}
    for b in BEHAVIORS if behavior is None else (behavior,):
        items = table.get(b, [])
        if isinstance(items, list) and text in items:
            changes[b] = [i for i in items if i != text]
    if changes:
        writer.update_table(path, "permissions", changes)
    return bool(changes)
