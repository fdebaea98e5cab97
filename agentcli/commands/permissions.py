"""`agentcli permissions …`: list the rules in force (with where each came from), add, remove, check.

    agentcli permissions list [--json]
    agentcli permissions add RULE [--allow|--ask|--deny] [--scope local|project|user]
    agentcli permissions rm RULE [--scope local|project|user]
    agentcli permissions check TOOL [ARG]      e.g. check Bash "git status; rm -rf ~", check Read .env
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agentcli import paths
from agentcli.commands import reporting_errors
from agentcli.errors import UsageError
from agentcli.permissions import loader
from agentcli.permissions.rules import RuleBehavior, parse_rule

_ARG_KEY = {"Bash": "command", "WebFetch": "url", "Glob": "path", "Grep": "path"}


def main(argv: list[str]) -> int:
    ns = _parser().parse_args(argv)
    root = paths.find_project_root(Path(ns.directory) if ns.directory else Path.cwd())
    handler: Callable[[argparse.Namespace, Path], int] = getattr(sys.modules[__name__], f"_cmd_{ns.command}")
    return reporting_errors(lambda: handler(ns, root))


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="agentcli permissions", description="Show and edit permission rules.")
    p.add_argument("-C", "--directory", help="the project directory (default: the current one)")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    a = sub.add_parser("list", help="every rule in force, with its source")
    a.add_argument("--json", action="store_true", help="one JSON object")
    for name, text in (("add", "add a rule"), ("rm", "remove a rule")):
        c = sub.add_parser(name, help=text)
        c.add_argument("rule", help="e.g. 'Bash(npm test *)', 'Edit(src/**)', 'WebFetch(domain:example.com)'")
        group = c.add_mutually_exclusive_group()
        for b in ("allow", "ask", "deny"):
            group.add_argument(f"--{b}", dest="behavior", action="store_const", const=b)
        c.add_argument("--scope", choices=loader.SCOPES, default=None,
                       help="local: this project, only you (default for add); project: shared; user: everywhere")
    sub.add_parser("trust", help="trust this project's shared .agentcli/settings.toml as it is now (shows what "
                                 "it grants)")
    k = sub.add_parser("check", help="what the policy decides for one tool call")
    k.add_argument("tool")
    k.add_argument("arg", nargs="?", default=None, help="the command, path or URL")
    k.add_argument("--mode", default=None, help="permission mode to check under")
    return p


def _cmd_list(ns: argparse.Namespace, root: Path) -> int:
    policy = loader.load_policy(root)
    rows = loader.rule_rows(policy, root)
    if ns.json:
        sys.stdout.write(json.dumps({"mode": policy.mode, "rules": rows}, indent=2) + "\n")
        return 0
    sys.stdout.write(f"mode: {policy.mode}\n")
    width = max((len(r.text) for r in policy.rules), default=10)
    for r in rows:
        where = f"  {r['file']}" if r["file"] else ""
        sys.stdout.write(f"{r['behavior']:<6} {r['rule']:<{width}}  {r['source']}{where}\n")
    return 0


def _cmd_trust(ns: argparse.Namespace, root: Path) -> int:
    from agentcli.settings import trust, writer

    path = trust.shared_settings_file(root)
    mcp_json = trust.mcp_json_file(root)
    if not path.is_file() and not mcp_json.is_file():
        sys.stdout.write(f"{path} does not exist: nothing to trust.\n")
        return 0
    found = trust.grants(writer.load(path)) if path.is_file() else []
    if mcp_json.is_file():
        from agentcli.mcp.config import describe, load

        found += describe(load(root).untrusted.values())
    trust.trust(root)
    what = "\n".join(f"  - {g}" for g in found) or "  (nothing that needs trust)"
    names = " and ".join(str(p) for p in (path, mcp_json) if p.is_file())
    sys.stdout.write(f"Trusted {names} as it is now. It grants:\n{what}\nChanging the file asks again.\n")
    return 0


def _cmd_add(ns: argparse.Namespace, root: Path) -> int:
    behavior: RuleBehavior = ns.behavior or "allow"
    try:
        rule = parse_rule(ns.rule, behavior)
    except ValueError as e:
        raise UsageError(str(e)) from e
    scope = ns.scope or "local"
    path = loader.save_rule(root, rule.text, behavior, scope)
    sys.stdout.write(f"added {behavior} {rule.text} to {path}\n")
    return 0


def _cmd_rm(ns: argparse.Namespace, root: Path) -> int:
    try:
        text = parse_rule(ns.rule).text
    except ValueError as e:
        raise UsageError(str(e)) from e
    removed = [
        str(loader.scope_file(root, s)) for s in ([ns.scope] if ns.scope else loader.SCOPES)
        if loader.remove_rule(root, text, ns.behavior, s)
    ]
    if not removed:
        sys.stderr.write(f"agentcli: no rule {text} in {', '.join((ns.scope and [ns.scope]) or loader.SCOPES)}\n")
        return 1
    for f in removed:
        sys.stdout.write(f"removed {text} from {f}\n")
    return 0


def _cmd_check(ns: argparse.Namespace, root: Path) -> int:
    from agentcli.tools.registry import BUILTIN_TOOLS, load_tool

    if ns.tool not in BUILTIN_TOOLS:
        raise UsageError(f"unknown tool {ns.tool!r}", hint=f"one of {', '.join(BUILTIN_TOOLS)}")
    tool = load_tool(ns.tool)
    args: dict[str, Any] = {}
    if ns.arg is not None:
        args[_ARG_KEY.get(ns.tool, "file_path")] = ns.arg
    policy = loader.load_policy(root, mode=ns.mode)
    v = policy.check(tool, args)
    detail = "".join(f" ({x})" for x in (v.rule, v.reason) if x)
    sys.stdout.write(f"{v.behavior} by {v.by}{detail}\n")
    return 0
