"""MCP server configuration, Claude Code-compatible, from every place a user keeps it.

Layers, lowest first (a later one replaces a server of the same name): `[mcp_servers.NAME]` in the user's
config.toml; the project's `.mcp.json` and `[mcp_servers.NAME]` in `.agentcli/settings.toml` (both shared with the
repository: they start nothing until the user trusts them); `.agentcli/settings.local.toml` (trusted the same way:
a repository can ship one too); then `--mcp-config`
(a file or a JSON string, repeatable). `--strict-mcp-config` keeps only the `--mcp-config` servers.

An entry is `{command, args, env, cwd}` (stdio), `{type: "http"|"sse", url, headers, bearer_token_env_var}`, or
`{type: "sdk", name}`: a server inside the Claude Agent SDK application driving agentcli, reached over its control
channel by its key (the SDK routes by key; `name` is the server's own). Only `--mcp-config` may declare one: that
is where the SDK puts it.
`${VAR}` and `${VAR:-default}` are expanded in command, args, env, cwd, url and headers. A file the repository
chose may not expand agentcli's own provider keys, so a hostile `.mcp.json` cannot send them to its server.
No `mcp` import here: this module decides whether the SDK is needed at all.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import field
from pathlib import Path
from typing import Any

from agentcli import paths
from agentcli.errors import ConfigError
from agentcli.record import record

MCP_JSON = ".mcp.json"
SHARED_SCOPES = frozenset({"project"})  # chosen by the repository, not by the user
# No "__": it separates server and tool in `mcp__server__tool`, so a name like "a__b" could pose as server "a".
NAME_RE = re.compile(r"[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*")
MAX_NAME = 40
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
TRANSPORTS = {"stdio": "stdio", "http": "http", "streamable-http": "http", "streamable_http": "http", "sse": "sse",
              "sdk": "sdk"}
SDK_SCOPES = frozenset({"flag"})


@record
class ServerConfig:
    """One server, expanded and checked. `scope`: user | project | local | flag; `origin` names the file."""

    name: str
    transport: str
    scope: str
    origin: str
    command: str = ""
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict, repr=False)  # may hold tokens: out of any repr
    cwd: str | None = None
    url: str = ""
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)  # may hold tokens: out of any repr
    timeout_s: float | None = None
    trust_annotations: bool = True
    variables: tuple[str, ...] = ()
    sandbox: bool | None = None  # stdio: run under agentcli's kernel sandbox (None: the `mcp_sandbox` setting)

    @property
    def target(self) -> str:
        """What it runs or where it connects, safe to show (no query string, no credentials)."""
        if self.transport == "stdio":
            return " ".join((self.command, *self.args))
        if self.transport == "sdk":
            return "in-process server of the Claude Agent SDK application"
        return safe_url(self.url)

    def secrets(self) -> list[str]:
        """Values that must not reach a log, a notice or the session file."""
        values = [*self.headers.values(), *self.env.values()]
        return [v for v in values if len(v) >= 8]


@record(frozen=False)
class McpConfig:
    """Every configured server that may start, the ones withheld until the project is trusted, and one line
    per entry that could not be used."""

    servers: dict[str, ServerConfig] = field(default_factory=dict)
    untrusted: dict[str, ServerConfig] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    invalid: dict[str, str] = field(default_factory=dict)  # name → why its entry could not be used


def safe_url(url: str) -> str:
    from agentcli.redact import public_url

    return public_url(url)


def expand(text: str, environ: Mapping[str, str], forbidden: Iterable[str], used: list[str]) -> str:
    """`${VAR}` / `${VAR:-default}` from `environ`. An unset variable without a default, or one in
    `forbidden`, is a ConfigError (a server configured with a hole in it would fail in stranger ways)."""
    blocked = set(forbidden)

    def sub(m: re.Match[str]) -> str:
        var, default = m.group(1), m.group(2)
        used.append(var)
        if var in blocked:
            raise ConfigError(f"may not use ${{{var}}}: a project file cannot read agentcli's provider keys")
        value = environ.get(var)
        if value is None or (value == "" and default is not None):
            if default is None:
                raise ConfigError(f"environment variable {var} is not set")
            return default
        return value

    return _VAR.sub(sub, text)


def parse_entry(name: str, raw: Any, scope: str, origin: str, environ: Mapping[str, str]) -> ServerConfig:
    """One `mcpServers` entry → ServerConfig; a ConfigError says what is wrong with it."""
    if not isinstance(raw, dict):
        raise ConfigError("an entry must be a table/object")
    if not NAME_RE.fullmatch(name) or len(name) > MAX_NAME:
        raise ConfigError(f"invalid server name {name!r}: use letters, digits, '-' and single '_' (at most "
                          f"{MAX_NAME} characters)")
    from agentcli.settings.config import SECRET_ENV_VARS

    forbidden = SECRET_ENV_VARS if scope in SHARED_SCOPES else ()
    used: list[str] = []

    def x(value: Any, what: str) -> str:
        if not isinstance(value, str | int | float) or isinstance(value, bool):
            raise ConfigError(f"'{what}' must be a string")
        return expand(str(value), environ, forbidden, used)

    kind = str(raw.get("type") or raw.get("transport") or ("stdio" if "command" in raw else "http"))
    transport = TRANSPORTS.get(kind)
    if transport is None:
        raise ConfigError(f"unknown type {kind!r} (stdio, http, sse or sdk)")
    timeout = raw.get("timeout")
    timeout_s = float(timeout) / 1000 if isinstance(timeout, int | float) and timeout > 0 else None
    sandbox = raw.get("sandbox")
    common: dict[str, Any] = {"timeout_s": timeout_s, "trust_annotations": _trust_annotations(raw, scope),
                              "sandbox": sandbox if isinstance(sandbox, bool) else None}
    if transport == "sdk":
        return _sdk_entry(name, raw, scope, origin, common)
    if transport == "stdio":
        if not raw.get("command"):
            raise ConfigError("a stdio server needs 'command'")
        args = raw.get("args") or []
        env = raw.get("env") or {}
        if not isinstance(args, list) or not isinstance(env, dict):
            raise ConfigError("'args' must be a list and 'env' a table/object")
        cwd = x(raw["cwd"], "cwd") if raw.get("cwd") else None
        return ServerConfig(name, "stdio", scope, origin, x(raw["command"], "command"),
                            tuple(x(a, "args") for a in args), {str(k): x(v, f"env.{k}") for k, v in env.items()},
                            cwd, variables=tuple(dict.fromkeys(used)), **common)
    url = x(raw.get("url") or "", "url")
    if not url.startswith(("http://", "https://")):
        raise ConfigError(f"'{'url'}' must be an http:// or https:// URL")
    headers_raw = raw.get("headers") or {}
    if not isinstance(headers_raw, dict):
        raise ConfigError("'headers' must be a table/object")
    headers = {str(k): x(v, f"headers.{k}") for k, v in headers_raw.items()}
    token_var = raw.get("bearer_token_env_var")
    if token_var:
        headers["Authorization"] = "Bearer " + x("${" + str(token_var) + "}", "bearer_token_env_var")
    return ServerConfig(name, transport, scope, origin, url=url, headers=headers,
                        variables=tuple(dict.fromkeys(used)), **common)


def _sdk_entry(name: str, raw: dict[str, Any], scope: str, origin: str, common: dict[str, Any]) -> ServerConfig:
    """An SDK server is code of the application that started agentcli: only that application (through
    `--mcp-config`) may declare one, never a file a repository or another tool wrote."""
    if scope not in SDK_SCOPES:
        raise ConfigError("type 'sdk' is only accepted from --mcp-config (the Claude Agent SDK passes it)")
    return ServerConfig(name, "sdk", scope, origin, **common)


def _trust_annotations(raw: dict[str, Any], scope: str) -> bool:
    """A server's own claim that a tool is read-only lets the model call it without asking. Believed by default
    for servers the user configured; for servers a repository configured only when the user's own config says
    so (trusting a project starts its servers; it does not make their claims true)."""
    value = raw.get("trust_annotations")
    if scope in SHARED_SCOPES:
        return False
    return value is not False


def parse_servers(data: Any, scope: str, origin: str, environ: Mapping[str, str], out: McpConfig,
                  into: dict[str, ServerConfig]) -> None:
    """A `{name: entry}` mapping into `into`; each bad entry becomes one line in `out.problems`."""
    if not isinstance(data, dict):
        if data is not None:
            out.problems.append(f"{origin}: MCP servers must be a table/object of named servers")
        return
    for name, raw in data.items():
        if isinstance(raw, dict) and raw.get("enabled") is False:
            into.pop(str(name), None)
            continue
        try:
            into[str(name)] = parse_entry(str(name), raw, scope, origin, environ)
        except ConfigError as err:
            out.problems.append(f"MCP server '{name}' ({origin}): {err.message}")
            out.invalid[str(name)] = err.message
            into.pop(str(name), None)


def read_json_config(value: str) -> tuple[Any, str]:
    """`--mcp-config` value: a JSON string or a file holding `{"mcpServers": {...}}`."""
    if value.lstrip().startswith("{"):
        text, origin = value, "--mcp-config"
    else:
        path = Path(value).expanduser()
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as err:
            raise ConfigError(f"--mcp-config {value}: {err.strerror or err}", code="mcp_config") from err
        origin = str(path)
    try:
        data = json.loads(text)
    except ValueError as err:
        raise ConfigError(f"{origin}: not valid JSON: {err}", code="mcp_config") from err
    if not isinstance(data, dict):
        raise ConfigError(f"{origin}: expected an object with \"mcpServers\"", code="mcp_config")
    return data.get("mcpServers", data.get("mcp_servers")), origin


@record
class McpJson:
    """The project's `.mcp.json` as read: its `mcpServers` (None when it has none), where it is, and why it could
    not be used (None when it could)."""

    servers: Any
    origin: str
    problem: str | None = None


def mcp_json_servers(root: Path) -> McpJson | None:
    """The project's `.mcp.json`; None when there is none. A repository decides what that path is: a FIFO, a
    device, a link or a huge file is a problem said, never a read that blocks the start (agentcli.settings.tomlfile)."""
    from agentcli.settings.tomlfile import read_bytes

    path = root / MCP_JSON
    try:
        raw = read_bytes(path)
    except ConfigError:
        return McpJson(None, str(path), "is not a readable regular file of at most 1 MiB")
    if raw is None:
        return None
    try:
        data = json.loads(raw)
    except ValueError:
        return McpJson(None, str(path), "is not valid JSON")
    return McpJson(data.get("mcpServers") if isinstance(data, dict) else None, str(path))


def load(root: Path, flag_configs: Iterable[str] = (), strict: bool = False,
         environ: Mapping[str, str] | None = None) -> McpConfig:
    """Every server of every layer (see the module docstring). Cheap when nothing is configured: three small
    file reads, no JSON schema, no SDK."""
    from agentcli.settings import trust
    from agentcli.settings.config import read_toml

    env = os.environ if environ is None else environ
    out = McpConfig()
    merged: dict[str, ServerConfig] = {}
    if not strict:
        parse_servers(read_toml(paths.user_config_file()).get("mcp_servers"), "user",
                      str(paths.user_config_file()), env, out, merged)
        shared: dict[str, ServerConfig] = {}
        found = mcp_json_servers(root)
        if found is not None:
            if found.problem is not None:
                out.problems.append(f"{found.origin} {found.problem}; its servers were not started")
            else:
                parse_servers(found.servers, "project", found.origin, env, out, shared)
        settings_file = trust.shared_settings_file(root)
        parse_servers(read_toml(settings_file).get("mcp_servers"), "project", str(settings_file), env, out, shared)
        if shared and not trust.is_mcp_trusted(root):
            out.untrusted.update(shared)
        else:
            merged.update(shared)
        local = trust.local_settings_file(root)
        # A repository may ship this file too: untrusted, it may only switch servers off (`enabled = false`).
        trial = dict(merged)
        parse_servers(read_toml(local).get("mcp_servers"), "local", str(local), env, out, trial)
        added = {n: s for n, s in trial.items() if merged.get(n) is not s}
        if added and not trust.is_trusted(root):
            out.untrusted.update(added)
            trial = {n: s for n, s in merged.items() if n in trial}
        merged = trial
    for value in flag_configs:
        data, origin = read_json_config(value)
        parse_servers(data, "flag", origin, env, out, merged)
    for name in merged:
        out.untrusted.pop(name, None)
    out.servers = merged
    return out


def add_source(out: McpConfig, data: Any, *, scope: str, origin: str, trusted: bool,
               environ: Mapping[str, str] | None = None) -> None:
    """Servers from one more place a user keeps them (Claude Code's `~/.claude.json`: its `mcpServers`, its
    per-project entries), as a layer above those already in `out`. `data` is a `{name: entry}` mapping; `scope` is
    Claude Code's (user, project, local: a `project` source is the repository's, so it may not expand provider keys
    and its annotations are not believed); `origin` names the file in notices. A trusted source's servers may start
    (replacing one of the same name); an untrusted one's wait in `out.untrusted` (a server already allowed keeps
    its place) until the user trusts them. A bad entry is one line in `out.problems`, never an exception."""
    env = os.environ if environ is None else environ
    found: dict[str, ServerConfig] = {}
    parse_servers(data, scope, origin, env, out, found)
    if trusted:
        out.servers.update(found)
        for name in found:
            out.untrusted.pop(name, None)
    else:
        out.untrusted.update({n: s for n, s in found.items() if n not in out.servers})


def add_claude_servers(out: McpConfig, sources: Iterable[tuple[str, Any]]) -> None:
    """Claude Code's `~/.claude.json` servers (agentcli.settings.claude.mcp_servers: its top-level `mcpServers`,
    then this project's entry), as Claude Code uses them: the user wrote them (`claude mcp add`), in the user's
    own home, so they start as the user's own config does; the project's entry is Claude Code's "local" scope."""
    for origin, table in sources:
        add_source(out, table, scope="local" if "(project " in origin else "user", origin=origin, trusted=True)


def describe(servers: Iterable[ServerConfig]) -> list[str]:
    """What starting these servers would do, in words (the trust question shows it)."""
    out: list[str] = []
    for s in servers:
        what = f"run {s.target}" if s.transport == "stdio" else f"connect to {s.target} ({s.transport})"
        reads = f", reading ${{{'}, ${'.join(s.variables)}}}" if s.variables else ""
        out.append(f"start MCP server '{s.name}': {what}{reads} ({s.origin})")
    return out
