"""`agentcli mcp …`: configure MCP servers as Claude Code's `claude mcp` does.

    agentcli mcp add NAME [--scope local|project|user] [-e KEY=VALUE]… -- COMMAND [ARG…]   (stdio)
    agentcli mcp add NAME --transport http|sse [-H "Name: value"]… URL
    agentcli mcp add-json NAME '{"command": …}' [--scope …]
    agentcli mcp list [--json]      agentcli mcp get NAME      agentcli mcp remove NAME [--scope …]

Scopes: local (default: .agentcli/settings.local.toml, yours, this project), project (.mcp.json, shared with the
repository; others must trust it), user (~/.agentcli/config.toml, every project). Nothing here connects.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from agentcli import paths
from agentcli.atomicfile import atomic_write
from agentcli.commands import reporting_errors
from agentcli.errors import UsageError
from agentcli.mcp import config
from agentcli.settings import writer

SCOPES = ("local", "project", "user")


def main(argv: list[str]) -> int:
    # `add NAME [options] -- COMMAND --its-flags`: what follows `--` is the server's command line, untouched.
    command: list[str] = []
    if "--" in argv:
        cut = argv.index("--")
        argv, command = argv[:cut], argv[cut + 1:]
    parser = _parser()
    ns, extra = parser.parse_known_args(argv)
    if extra and (ns.command != "add" or any(e.startswith("-") for e in extra)):
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    ns.target = [*getattr(ns, "target", []), *extra, *command]
    root = paths.find_project_root(Path(ns.directory) if ns.directory else Path.cwd())
    handlers = {"add": _add, "add-json": _add_json, "list": _list, "get": _get, "remove": _remove}
    return reporting_errors(lambda: handlers[ns.command](ns, root))


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="agentcli mcp", description="Configure MCP servers.")
    p.add_argument("-C", "--directory", help="the project directory (default: the current one)")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    a = sub.add_parser("add", help="add a server: NAME -- COMMAND [ARG…], or NAME --transport http URL")
    a.add_argument("name")
    a.add_argument("target", nargs="*", help="the URL, or after --: the command and its arguments")
    a.add_argument("-t", "--transport", choices=("stdio", "http", "sse"), default="stdio")
    a.add_argument("-s", "--scope", choices=SCOPES, default="local")
    a.add_argument("-e", "--env", action="append", default=[], metavar="KEY=VALUE")
    a.add_argument("-H", "--header", action="append", default=[], metavar="'NAME: VALUE'")
    j = sub.add_parser("add-json", help="add a server from its JSON entry")
    j.add_argument("name")
    j.add_argument("json")
    j.add_argument("-s", "--scope", choices=SCOPES, default="local")
    ls = sub.add_parser("list", help="every configured server and where it is configured")
    ls.add_argument("--json", action="store_true")
    g = sub.add_parser("get", help="one server's configuration")
    g.add_argument("name")
    r = sub.add_parser("remove", help="remove a server")
    r.add_argument("name")
    r.add_argument("-s", "--scope", choices=SCOPES)
    return p


def _add(ns: argparse.Namespace, root: Path) -> int:
    target = list(ns.target)
    if not target:
        raise UsageError("agentcli mcp add needs a command or a URL", hint="agentcli mcp add NAME -- npx my-server")
    entry: dict[str, Any]
    if ns.transport == "stdio":
        entry = {"command": target[0], "args": target[1:]}
        if ns.env:
            entry["env"] = dict(_pair(e, "=", "-e KEY=VALUE") for e in ns.env)
    else:
        if len(target) != 1:
            raise UsageError("an http or sse server takes one URL")
        entry = {"type": ns.transport, "url": target[0]}
        if ns.header:
            entry["headers"] = dict(_pair(h, ":", "-H 'Name: value'") for h in ns.header)
    return _save(root, ns.name, entry, ns.scope)


def _add_json(ns: argparse.Namespace, root: Path) -> int:
    try:
        entry = json.loads(ns.json)
    except ValueError as err:
        raise UsageError(f"not valid JSON: {err}") from err
    return _save(root, ns.name, entry, ns.scope)


def _pair(text: str, sep: str, form: str) -> tuple[str, str]:
    key, found, value = text.partition(sep)
    if not found or not key.strip():
        raise UsageError(f"expected {form}, got {text!r}")
    return key.strip(), value.strip()


def _save(root: Path, name: str, entry: Any, scope: str) -> int:
    # Checked as it will be read (unexpanded: variables may be set only where the server runs).
    config.parse_entry(name, entry, scope, "(new)", _Placeholders())
    if scope == "project":
        from agentcli.settings import trust

        trusted = trust.is_mcp_trusted(root)  # before the edit: what was there, the user had trusted (or none)
        data = _read_mcp_json(root)
        data.setdefault("mcpServers", {})[name] = entry
        atomic_write(root / config.MCP_JSON, json.dumps(data, indent=2) + "\n", new_mode=0o644)
        if trusted:
            trust.trust(root)  # the user's own addition needs no second question
    else:
        path = _toml_file(root, scope)
        data = writer.load(path)
        servers = data.setdefault("mcp_servers", {})
        servers[name] = entry
        writer.write(path, data)
    sys.stdout.write(f"Added MCP server '{name}' ({scope}: {_where(root, scope)})\n")
    return 0


class _Placeholders(dict[str, str]):
    """Every variable is "set" while checking an entry being added."""

    def get(self, key: str, default: Any = None) -> str:
        return f"${{{key}}}"


def _read_mcp_json(root: Path) -> dict[str, Any]:
    path = root / config.MCP_JSON
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as err:
        raise UsageError(f"cannot read {path}: {err}") from err
    return data if isinstance(data, dict) else {}


def _toml_file(root: Path, scope: str) -> Path:
    return paths.user_config_file() if scope == "user" else paths.project_dir(root) / "settings.local.toml"


def _where(root: Path, scope: str) -> Path:
    return root / config.MCP_JSON if scope == "project" else _toml_file(root, scope)


def _raw_entries(root: Path) -> list[tuple[str, str, dict[str, Any]]]:
    """(scope, name, raw entry) for every layer, lowest first."""
    out: list[tuple[str, str, dict[str, Any]]] = []
    for scope in ("user", "project", "local"):
        if scope == "project":
            servers = _read_mcp_json(root).get("mcpServers")
        else:
            servers = writer.load(_toml_file(root, scope)).get("mcp_servers")
        if isinstance(servers, dict):
            out += [(scope, str(n), e) for n, e in servers.items() if isinstance(e, dict)]
    return out


def _list(ns: argparse.Namespace, root: Path) -> int:
    from agentcli.settings import trust

    trusted = trust.is_mcp_trusted(root)
    rows = []
    for scope, name, entry in _raw_entries(root):
        target = " ".join([str(entry.get("command", "")), *map(str, entry.get("args", []))]).strip() or \
            config.safe_url(str(entry.get("url", "")))
        note = " (not trusted: starts after agentcli permissions trust)" if scope == "project" and not trusted else ""
        rows.append({"name": name, "scope": scope, "target": target, "trusted": scope != "project" or trusted})
        if not ns.json:
            sys.stdout.write(f"{name}  [{scope}]  {target}{note}\n")
    if ns.json:
        sys.stdout.write(json.dumps(rows, indent=1) + "\n")
    elif not rows:
        sys.stdout.write("No MCP servers configured. Add one: agentcli mcp add NAME -- COMMAND [ARG…]\n")
    return 0


def _get(ns: argparse.Namespace, root: Path) -> int:
    found = [(s, e) for s, n, e in _raw_entries(root) if n == ns.name]
    if not found:
        raise UsageError(f"no MCP server named '{ns.name}'", hint="agentcli mcp list shows them")
    scope, entry = found[-1]
    shown = dict(entry)
    if isinstance(shown.get("headers"), dict):  # header values are often credentials
        shown["headers"] = {k: "…" for k in shown["headers"]}
    sys.stdout.write(json.dumps({"name": ns.name, "scope": scope, **shown}, indent=2) + "\n")
    return 0


def _remove(ns: argparse.Namespace, root: Path) -> int:
    scopes = [ns.scope] if ns.scope else [s for s, n, _ in _raw_entries(root) if n == ns.name]
    removed = False
    for scope in dict.fromkeys(scopes):
        if scope == "project":
            data = _read_mcp_json(root)
            if ns.name in data.get("mcpServers", {}):
                del data["mcpServers"][ns.name]
                atomic_write(root / config.MCP_JSON, json.dumps(data, indent=2) + "\n", new_mode=0o644)
                removed = True
        else:
            path = _toml_file(root, scope)
            data = writer.load(path)
            if ns.name in data.get("mcp_servers", {}):
                del data["mcp_servers"][ns.name]
                writer.write(path, data)
                removed = True
    if not removed:
        raise UsageError(f"no MCP server named '{ns.name}'" + (f" in scope {ns.scope}" if ns.scope else ""))
    sys.stdout.write(f"Removed MCP server '{ns.name}'\n")
    return 0
