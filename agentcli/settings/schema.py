"""The keys of agentcli's settings files and the type each must have, checked by msgspec before a value is used.

A value of the wrong type is a ConfigError naming the key and the file (exit 2, code `config`), never coerced:
`telemetry = "false"` is refused rather than read as true (`bool("false")`), `max_turns = 2.9` rather than
read as 2. In a file a boolean is `true` or `false`; strings and numbers are not booleans there (Claude Code's
settings schema refuses them too). Environment variables are strings by nature: `env_flag` reads them.

msgspec rather than pydantic: on the `-p` path msgspec costs ~6–8 ms CPU (import, layer type, check) against
pydantic's ~200 ms to import and build a model of these keys (the settings engineer's report has the figures).
Even so it is imported only when a value is not plainly of its type (`_plainly`: a list where a tuple of
strings is wanted, a float where a count is …): msgspec then accepts it or says what is wrong.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from agentcli.errors import ConfigError

if TYPE_CHECKING:
    import msgspec

_STR = str
_BOOL = bool
_COUNT = "count"  # an int ≥ 0
_SECONDS = "seconds"  # a number ≥ 0
_STRS = "strings"  # a list of strings

# file key → (section of Settings, or "" for its own fields; field; kind)
FILE_KEYS: dict[str, tuple[str, str, Any]] = {
    "model": ("model", "name", _STR),
    "provider": ("model", "provider", _STR),
    "base_url": ("model", "base_url", _STR),
    "max_tokens": ("model", "max_tokens", _COUNT),
    "request_timeout_s": ("model", "request_timeout_s", _SECONDS),
    "max_retries": ("model", "max_retries", _COUNT),
    "effort": ("model", "effort", _STR),
    "show_thinking": ("model", "show_thinking", _BOOL),
    "model_context_window": ("model", "context_window", _COUNT),
    "model_auto_compact_token_limit": ("model", "auto_compact_token_limit", _COUNT),
    "compact_model": ("model", "compact_model", _STR),
    "max_thinking_tokens": ("model", "max_thinking_tokens", _COUNT),
    "permission_mode": ("permissions", "mode", _STR),
    "max_turns": ("session", "max_turns", _COUNT),
    "max_budget_usd": ("session", "max_budget_usd", _SECONDS),
    "max_tool_calls_per_turn": ("session", "max_tool_calls_per_turn", _COUNT),
    "tool_timeout_s": ("session", "tool_timeout_s", _SECONDS),
    "subagent_max_depth": ("session", "subagent_max_depth", _COUNT),
    "subagent_max_turns": ("session", "subagent_max_turns", _COUNT),
    "max_parallel_subagents": ("session", "max_parallel_subagents", _COUNT),
    "mcp_grace_s": ("mcp", "grace_s", _SECONDS),
    "mcp_connect_timeout_s": ("mcp", "connect_timeout_s", _SECONDS),
    "mcp_tool_timeout_s": ("mcp", "tool_timeout_s", _SECONDS),
    "mcp_schema_budget": ("mcp", "schema_budget", _SECONDS),
    "mcp_sandbox": ("mcp", "sandbox", _BOOL),
    "sandbox_mode": ("sandbox", "mode", _STR),
    "sandbox_network": ("sandbox", "network", _BOOL),
    "sandbox_hooks": ("sandbox", "hooks", _BOOL),
    "sandbox_allowed_hosts": ("sandbox", "allowed_hosts", _STRS),
    "sandbox_allowed_sockets": ("sandbox", "allowed_sockets", _STRS),
    "shell_env_exclude": ("sandbox", "env_exclude", _STRS),
    "shell_env_keep": ("sandbox", "env_keep", _STRS),
    "telemetry": ("telemetry", "enabled", _BOOL),
    "telemetry_log_prompts": ("telemetry", "log_prompts", _BOOL),
    "preset": ("", "preset", _STR),
    "append_system_prompt": ("", "append_system_prompt", _STR),
}
# Tables, checked here for their shape and merged by agentcli.settings.config; `permissions` and `mcp_servers`
# are read by their own loaders (agentcli.permissions.loader, agentcli.mcp.config), `hooks` by agentcli.hooks.
TABLES: dict[str, Any] = {
    "providers": "tables",
    "prices": "tables",
    "model_overrides": "names",
    "web_search": "table",
    "sandbox": "table",
    "permissions": "table",
    "mcp_servers": "table",
    "hooks": "table",
}
KNOWN = frozenset(FILE_KEYS) | frozenset(TABLES)


def _type(kind: Any) -> Any:
    import msgspec

    if kind == _COUNT:
        return Annotated[int, msgspec.Meta(ge=0)]
    if kind == _SECONDS:
        return Annotated[float, msgspec.Meta(ge=0)]
    if kind == _STRS:
        return tuple[str, ...]
    if kind == "tables":
        return dict[str, dict[str, Any]]
    if kind == "names":
        return dict[str, Annotated[str, msgspec.Meta(min_length=1)]]
    if kind == "table":
        return dict[str, Any]
    return kind


def _layer_type() -> type[msgspec.Struct]:
    import msgspec

    spec = [(k, _type(kind) | None, None) for k, (_, _, kind) in FILE_KEYS.items()]
    spec += [(k, _type(kind) | None, None) for k, kind in TABLES.items()]
    return msgspec.defstruct("SettingsLayer", spec, frozen=True)


_LAYER: list[type[msgspec.Struct]] = []


def check(data: dict[str, Any], source: str) -> dict[str, Any]:
    """The known keys of one layer with their checked values (lists as tuples, ints as floats where a number is
    wanted); unknown keys are left out (the caller reports them). A wrong type raises ConfigError."""
    known = {k: v for k, v in data.items() if k in KNOWN}
    if all(_plainly(FILE_KEYS[k][2] if k in FILE_KEYS else TABLES[k], v) for k, v in known.items()):
        return {k: float(v) if k in FILE_KEYS and FILE_KEYS[k][2] == _SECONDS else v for k, v in known.items()}
    import msgspec

    if not _LAYER:
        _LAYER.append(_layer_type())
    try:
        layer = msgspec.convert(known, _LAYER[0], strict=True)
    except msgspec.ValidationError as err:
        raise ConfigError(_message(str(err), source), hint=f"fix the value in {source}") from err
    return {k: v for k in known if (v := getattr(layer, k)) is not None}


def _plainly(kind: Any, value: Any) -> bool:
    """True when `value` is beyond doubt of `kind` (most layers: a few scalars), so msgspec need not be imported
    to say so; anything else goes to msgspec, which accepts it or says what is wrong."""
    if kind in (_STR, _BOOL):
        return type(value) is kind
    if kind == _COUNT:
        return type(value) is int and value >= 0
    if kind == _SECONDS:
        return type(value) in (int, float) and value >= 0
    if kind == "tables":
        return type(value) is dict and all(type(v) is dict for v in value.values())
    if kind == "names":
        return type(value) is dict and all(type(v) is str and v for v in value.values())
    if kind == "table":
        return type(value) is dict
    return type(value) is tuple and all(type(v) is str for v in value)


def _message(err: str, source: str) -> str:
    """msgspec's "Expected `int | null`, got `float` - at `$.max_turns`" as "{source}: 'max_turns' must be …"."""
    what, _, where = err.rpartition(" - at `$.")
    key = where.rstrip("`").replace("[", ".").replace("]", "").replace("...", "*") if where else "?"
    return f"{source}: setting '{key}': {what.replace(' | null', '') or err}"


_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"", "0", "false", "no", "off"})


def env_flag(name: str, value: str) -> bool:
    """An environment variable as a boolean, read as Claude Code reads its own (`CLAUDE_CODE_ENABLE_TELEMETRY=1`):
    1/true/yes/on are true, 0/false/no/off and empty are false, case and spaces aside; anything else is an error
    rather than a guess."""
    word = value.strip().lower()
    if word in _TRUE:
        return True
    if word in _FALSE:
        return False
    raise ConfigError(f"environment variable {name}={value!r} is not a boolean",
                      hint="use 1/true/yes/on or 0/false/no/off")
