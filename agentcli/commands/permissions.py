"""`agentcli permissions …`: list the rules in force (with where each came from), add, remove, check.

    agentcli permissions list [--json]
    agentcli permissions add RULE [--allow|--ask|--deny] [--scope local|project|user]
    agentcli permissions rm RULE [--scope local|project|user]
    agentcli permissions check TOOL [ARG]      e.g. check Bash "git status; rm -rf ~", check Read .env
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any, Literal

import typer

from agentcli.commands import DirectoryOption, JsonFlag, entry, new_app, project_root, reporting_errors
from agentcli.errors import UsageError
from agentcli.permissions import loader
from agentcli.permissions.rules import RuleBehavior, parse_rule

_ARG_KEY = {"Bash": "command", "WebFetch": "url", "Glob": "path", "Grep": "path"}

app = new_app("Show and edit permission rules.")
Scope = Literal["local", "project", "user"]
RuleArgument = Annotated[str, typer.Argument(
    metavar="RULE", help="e.g. 'Bash(npm test *)', 'Edit(src/**)', 'WebFetch(domain:example.com)'")]
ScopeOption = Annotated[Scope | None, typer.Option(
    show_default=False, help="local: this project, only you (default for add); project: shared; user: everywhere")]


def _switch(name: str) -> Any:
    return typer.Option(f"--{name}", metavar="", help=f"a rule that says {name}")


def _behavior(allow: bool, ask: bool, deny: bool) -> RuleBehavior | None:
    """--allow, --ask and --deny exclude each other (as argparse's mutually exclusive group did)."""
    given: tuple[tuple[RuleBehavior, bool], ...] = (("allow", allow), ("ask", ask), ("deny", deny))
    chosen = [b for b, on in given if on]
    if len(chosen) > 1:
        raise typer.BadParameter("choose one of --allow, --ask, --deny", param_hint="--" + chosen[1])
    return chosen[0] if chosen else None


@app.callback()
def _options(ctx: typer.Context, directory: DirectoryOption = None) -> None:
    ctx.obj = project_root(directory)


@app.command("list", help="every rule in force, with its source")
def list_(ctx: typer.Context, as_json: JsonFlag = False) -> int:
    return reporting_errors(lambda: _cmd_list(ctx.obj, as_json))


@app.command("add", help="add a rule")
def add(ctx: typer.Context, rule: RuleArgument, allow: Annotated[bool, _switch("allow")] = False,
        ask: Annotated[bool, _switch("ask")] = False, deny: Annotated[bool, _switch("deny")] = False,
        scope: ScopeOption = None) -> int:
    behavior = _behavior(allow, ask, deny)
    return reporting_errors(lambda: _cmd_add(ctx.obj, rule, behavior, scope))


@app.command("rm", help="remove a rule")
def rm(ctx: typer.Context, rule: RuleArgument, allow: Annotated[bool, _switch("allow")] = False,
       ask: Annotated[bool, _switch("ask")] = False, deny: Annotated[bool, _switch("deny")] = False,
       scope: ScopeOption = None) -> int:
    behavior = _behavior(allow, ask, deny)
    return reporting_errors(lambda: _cmd_rm(ctx.obj, rule, behavior, scope))


@app.command("trust", help="trust this project's shared .agentcli/settings.toml as it is now (shows what it grants)")
def trust_(ctx: typer.Context) -> int:
    return reporting_errors(lambda: _cmd_trust(ctx.obj))


@app.command("check", help="what the policy decides for one tool call")
def check(ctx: typer.Context, tool: Annotated[str, typer.Argument(metavar="TOOL", help="a built-in tool")],
          arg: Annotated[str | None, typer.Argument(metavar="ARG", show_default=False,
                                                    help="the command, path or URL")] = None,
          mode: Annotated[str | None, typer.Option(metavar="MODE", show_default=False,
                                                   help="permission mode to check under")] = None) -> int:
    return reporting_errors(lambda: _cmd_check(ctx.obj, tool, arg, mode))


main = entry(app, "permissions")


def _cmd_list(root: Path, as_json: bool) -> int:
    policy = loader.load_policy(root)
    rows = loader.rule_rows(policy, root)
    if as_json:
        sys.stdout.write(json.dumps({"mode": policy.mode, "rules": rows}, indent=2) + "\n")
        return 0
    sys.stdout.write(f"mode: {policy.mode}\n")
    width = max((len(r.text) for r in policy.rules), default=10)
    for r in rows:
        where = f"  {r['file']}" if r["file"] else ""
        sys.stdout.write(f"{r['behavior']:<6} {r['rule']:<{width}}  {r['source']}{where}\n")
    return 0


def _pin_hook_scripts(root: Path) -> None:
    """The project files its hooks run are trusted with it (agentcli.hooks.scripts)."""
    from agentcli.hooks.setup import pin_scripts
    from agentcli.settings.config import load_settings

    pin_scripts(load_settings(root, {}))


def _cmd_trust(root: Path) -> int:
    from agentcli.settings import trust

    files = [f for f in (trust.shared_settings_file(root), trust.local_settings_file(root), trust.mcp_json_file(root),
                         *trust.claude_settings_files(root)) if f.is_file()]
    presets = trust.untrusted_presets(root)
    if not files and not presets and not trust.presets_dir(root).is_dir():
        sys.stdout.write(f"{trust.shared_settings_file(root)} does not exist: nothing to trust.\n")
        return 0
    found = [g for f in files if f.name != ".mcp.json" for g in trust.grants(trust.read_settings(f))] + presets
    if trust.mcp_json_file(root).is_file():
        from agentcli.mcp.config import describe, load

        found += describe(load(root).untrusted.values())
    trust.trust(root)
    _pin_hook_scripts(root)
    what = "\n".join(f"  - {trust.printable(g)}" for g in dict.fromkeys(found)) or "  (nothing that needs trust)"
    names = " and ".join(str(p) for p in files) or str(trust.presets_dir(root))
    if trust.presets_dir(root).is_dir() and files:
        names += f" and {trust.presets_dir(root)}"
    sys.stdout.write(f"Trusted {names} as it is now. It grants:\n{what}\nChanging the file asks again.\n")
    return 0


def _cmd_add(root: Path, text: str, given: RuleBehavior | None, scope: Scope | None) -> int:
    behavior: RuleBehavior = given or "allow"
    try:
        rule = parse_rule(text, behavior)
    except ValueError as e:
        raise UsageError(str(e)) from e
    path = loader.save_rule(root, rule.text, behavior, scope or "local")
    sys.stdout.write(f"added {behavior} {rule.text} to {path}\n")
    return 0


def _cmd_rm(root: Path, given: str, behavior: RuleBehavior | None, scope: Scope | None) -> int:
    try:
        text = parse_rule(given).text
    except ValueError as e:
        raise UsageError(str(e)) from e
    scopes = [scope] if scope else list(loader.SCOPES)
    removed = [str(loader.scope_file(root, s)) for s in scopes if loader.remove_rule(root, text, behavior, s)]
    if not removed:
        sys.stderr.write(f"agentcli: no rule {text} in {', '.join(scopes)}\n")
        return 1
    for f in removed:
        sys.stdout.write(f"removed {text} from {f}\n")
    return 0


def _cmd_check(root: Path, name: str, arg: str | None, mode: str | None) -> int:
    from agentcli.tools.registry import BUILTIN_TOOLS, load_tool

    if name not in BUILTIN_TOOLS:
        raise UsageError(f"unknown tool {name!r}", hint=f"one of {', '.join(BUILTIN_TOOLS)}")
    tool = load_tool(name)
    args: dict[str, Any] = {}
    if arg is not None:
        args[_ARG_KEY.get(name, "file_path")] = arg
    policy = loader.load_policy(root, mode=mode)
    v = policy.check(tool, args)
    detail = "".join(f" ({x})" for x in (v.rule, v.reason) if x)
    sys.stdout.write(f"{v.behavior} by {v.by}{detail}\n")
    return 0
