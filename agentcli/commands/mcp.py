"""`agentcli mcp …`: configure MCP servers as Claude Code's `claude mcp` does.

    agentcli mcp add NAME [--scope local|project|user] [-e KEY=VALUE]… -- COMMAND [ARG…]   (stdio)
    agentcli mcp add NAME --transport http|sse [-H "Name: value"]… URL
    agentcli mcp add-json NAME '{"command": …}' [--scope …]
    agentcli mcp list [--json]      agentcli mcp get NAME      agentcli mcp remove NAME [--scope …]
    agentcli mcp login NAME [--no-browser]      agentcli mcp logout NAME     (OAuth of an http/sse server)

Scopes: local (default: .agentcli/settings.local.toml, yours, this project), project (.mcp.json, shared with the
repository; others must trust it), user (~/.agentcli/config.toml, every project). Only `list` connects: it checks
each server that would start here (agentcli.mcp.health).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Literal

import typer

from agentcli import paths
from agentcli.commands import DirectoryOption, JsonFlag, new_app, project_root, reporting_errors
from agentcli.commands import entry as command_entry
from agentcli.errors import UsageError
from agentcli.mcp import config
from agentcli.settings import writer

SCOPES = ("local", "project", "user")


# Handlers take an argparse.Namespace, as they did before the typer tree; the commands below build it.
app = new_app("Configure MCP servers.")
Scope = Literal["local", "project", "user"]
ScopeOption = Annotated[Scope, typer.Option("-s", "--scope", help="local (default), project (.mcp.json) or user")]
NameArg = Annotated[str, typer.Argument(metavar="NAME", help="the server's name")]


def _call(ctx: typer.Context, handler: Callable[[argparse.Namespace, Path], int], **given: Any) -> int:
    return reporting_errors(lambda: handler(argparse.Namespace(**given), ctx.obj))


@app.callback()
def _options(ctx: typer.Context, directory: DirectoryOption = None) -> None:
    ctx.obj = project_root(directory)


@app.command("add", help="add a server: NAME -- COMMAND [ARG…], or NAME --transport http URL")
def add(ctx: typer.Context, name: NameArg,
        target: Annotated[list[str] | None, typer.Argument(
            metavar="[-- COMMAND ARG…] | URL", show_default=False,
            help="the URL, or after --: the command and its arguments")] = None,
        transport: Annotated[Literal["stdio", "http", "sse"], typer.Option("-t", "--transport")] = "stdio",
        scope: ScopeOption = "local",
        env: Annotated[list[str] | None, typer.Option("-e", "--env", metavar="KEY=VALUE", show_default=False,
                                                      help="an environment variable (repeatable)")] = None,
        header: Annotated[list[str] | None, typer.Option("-H", "--header", metavar="'NAME: VALUE'",
                                                         show_default=False, help="an HTTP header (repeatable)")
                          ] = None) -> int:
    return _call(ctx, _add, name=name, target=target or [], transport=transport, scope=scope, env=env or [],
                 header=header or [])


@app.command("add-json", help="add a server from its JSON entry")
def add_json(ctx: typer.Context, name: NameArg, text: Annotated[str, typer.Argument(metavar="JSON")],
             scope: ScopeOption = "local") -> int:
    return _call(ctx, _add_json, name=name, json=text, scope=scope)


@app.command("list", help="every configured server, where it is configured, and whether it connects")
def list_(ctx: typer.Context, as_json: JsonFlag = False) -> int:
    return _call(ctx, _list, json=as_json)


@app.command("get", help="one server's configuration")
def get(ctx: typer.Context, name: NameArg) -> int:
    return _call(ctx, _get, name=name)


@app.command("remove", help="remove a server")
def remove(ctx: typer.Context, name: NameArg,
           scope: Annotated[Scope | None, typer.Option("-s", "--scope", show_default=False)] = None) -> int:
    return _call(ctx, _remove, name=name, scope=scope)


@app.command("login", help="log in to an http/sse server that asks for OAuth (opens the authorization page)")
def login(ctx: typer.Context, name: NameArg,
          no_browser: Annotated[bool, typer.Option("--no-browser", help="only print the page's URL")] = False,
          timeout: Annotated[float, typer.Option("--timeout", metavar="SECONDS",
                                                 help="how long to wait for the browser")] = 300.0) -> int:
    return _call(ctx, _login, name=name, browser=not no_browser, timeout=timeout)


@app.command("logout", help="forget what an OAuth login stored for a server")
def logout(ctx: typer.Context, name: NameArg) -> int:
    return _call(ctx, _logout, name=name)


main = command_entry(app, "mcp")


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
        data = _read_mcp_json(root)
        servers = data.get("mcpServers")
        data["mcpServers"] = {**(servers if isinstance(servers, dict) else {}), name: entry}
        writer.write_json(root / config.MCP_JSON, data)  # the user's own addition needs no second question
    else:
        writer.update_table(_toml_file(root, scope), "mcp_servers", {name: entry})
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

    trusted = {"project": trust.is_mcp_trusted(root), "local": trust.is_trusted(root)}
    health = _health(root)
    rows = []
    for scope, name, entry in [*_raw_entries(root), *_claude_entries(root)]:
        target = " ".join([str(entry.get("command", "")), *map(str, entry.get("args", []))]).strip() or \
            config.safe_url(str(entry.get("url", "")))
        target, ok = trust.printable(target), trusted.get(scope, True)
        note = "" if ok else " (not trusted: starts after agentcli permissions trust)"
        found = health.get((name, scope.removeprefix("claude-")))
        row: dict[str, Any] = {"name": name, "scope": scope, "target": target, "trusted": ok}
        if found is not None:
            row |= {"status": found.status, "detail": found.detail}
            mark = "✓" if found.status == "connected" else "✗"
            note += f"  {mark} {found.status} ({trust.printable(found.detail)})"
        rows.append(row)
        if not ns.json:
            sys.stdout.write(f"{name}  [{scope}]  {target}{note}\n")
    if ns.json:
        sys.stdout.write(json.dumps(rows, indent=1) + "\n")
    elif not rows:
        sys.stdout.write("No MCP servers configured. Add one: agentcli mcp add NAME -- COMMAND [ARG…]\n")
    return 0


def _claude_entries(root: Path) -> list[tuple[str, str, dict[str, Any]]]:
    """Claude Code's `~/.claude.json` servers (its user ones, this project's): agentcli starts them too."""
    from agentcli.settings import claude

    out = []
    for origin, table in claude.mcp_servers(root):
        scope = "claude-local" if "(project " in origin else "claude-user"
        out += [(scope, name, entry) for name, entry in table.items() if isinstance(entry, dict)]
    return out


def _health(root: Path) -> dict[tuple[str, str], Any]:
    """(name, scope) → agentcli.mcp.health.Health of each server that would start here (Claude Code's `mcp list`
    checks them too); a configuration that cannot load is reported by the list as it stands."""
    import asyncio

    from agentcli.mcp.health import Health, check
    from agentcli.settings import claude
    from agentcli.settings.config import load_settings

    loaded = config.load(root)
    config.add_claude_servers(loaded, claude.mcp_servers(root))
    out: dict[tuple[str, str], Any] = {}
    if loaded.servers:
        found = asyncio.run(check(loaded, load_settings(root, {})))
        out = {(name, loaded.servers[name].scope): h for name, h in found.items() if name in loaded.servers}
    for scope, name, _ in _raw_entries(root):
        if name in loaded.invalid and name not in loaded.servers:
            out[(name, scope)] = Health("invalid", loaded.invalid[name])
    return out


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
            servers = data.get("mcpServers")
            if isinstance(servers, dict) and ns.name in servers:
                del servers[ns.name]
                writer.write_json(root / config.MCP_JSON, data)
                removed = True
        else:
            removed = writer.remove_key(_toml_file(root, scope), "mcp_servers", ns.name) or removed
    if not removed:
        raise UsageError(f"no MCP server named '{ns.name}'" + (f" in scope {ns.scope}" if ns.scope else ""))
    sys.stdout.write(f"Removed MCP server '{ns.name}'\n")
    return 0


def _server(root: Path, name: str) -> config.ServerConfig:
    """The server `name` as a session here would start it (every layer, Claude Code's files, trust)."""
    from agentcli.settings import claude

    loaded = config.load(root)
    config.add_claude_servers(loaded, claude.mcp_servers(root))
    found = loaded.servers.get(name)
    if found is not None:
        return found
    if name in loaded.untrusted:
        raise UsageError(f"MCP server '{name}' is not trusted yet", hint="agentcli permissions trust")
    if name in loaded.invalid:
        raise UsageError(f"MCP server '{name}' cannot be used: {loaded.invalid[name]}")
    raise UsageError(f"no MCP server named '{name}'", hint="agentcli mcp list shows them")


def _login(ns: argparse.Namespace, root: Path) -> int:
    import asyncio

    from agentcli.mcp.manager import McpManager

    cfg = _server(root, ns.name)
    manager = McpManager(config.McpConfig(servers={cfg.name: cfg}), root)

    def say(text: str) -> None:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()

    async def run() -> str:
        try:
            return await manager.login(cfg.name, say, browser=ns.browser, timeout_s=ns.timeout)
        finally:
            await manager.aclose()

    say(asyncio.run(run()))
    return 0


def _logout(ns: argparse.Namespace, root: Path) -> int:
    from agentcli.mcp import oauth_store

    cfg = _server(root, ns.name)
    gone = oauth_store.forget(cfg)
    sys.stdout.write(f"Logged out of MCP server '{cfg.name}'\n" if gone else
                     f"MCP server '{cfg.name}' had no stored login\n")
    return 0
