"""Trusting a project's own files.

A cloned repository controls every file in it, including the ones that configure agentcli: the shared
`.agentcli/settings.toml`, a committed `.agentcli/settings.local.toml` (git-ignored by agentcli, but nothing stops
a repository from shipping one), `.mcp.json` and `.agentcli/presets/*.toml`. Any of them could allow commands,
widen the file tools' reach, turn off the secret protections, run hooks or MCP servers, or send your requests (and
API key) to another server. So what they grant takes effect only once the user has trusted those exact files:
their SHA-256 digests are recorded in `$AGENTCLI_HOME/trusted.json`, keyed by the project's real path, where no
repository can write. A changed file asks again. Deny and ask rules always apply, trusted or not; a settings file
that grants nothing (limits, timeouts, the choice among the user's own models) needs no trust.

What a settings file grants is decided by an allowlist (`SAFE_KEYS`): a key agentcli does not know to be
harmless counts as a grant, so a setting added later is withheld until someone decides otherwise. agentcli's own
edits of a file the user had trusted keep it trusted (`keeping`), and never extend trust to the other files.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from agentcli import paths

# Settings a project file may set untrusted: limits, timeouts and display, the choice among the user's own
# models and providers (their base URLs and keys stay the user's), and exclusions that only narrow. Not the
# budget (`max_budget_usd`, `prices`): a repository must not raise what the user agreed to spend.
SAFE_KEYS = frozenset({
    "model", "compact_model", "max_turns", "max_tool_calls_per_turn", "max_tokens",
    "request_timeout_s", "tool_timeout_s", "max_retries", "effort", "show_thinking", "model_context_window",
    "model_auto_compact_token_limit", "mcp_grace_s", "mcp_connect_timeout_s", "mcp_tool_timeout_s",
    "mcp_schema_budget", "subagent_max_depth", "subagent_max_turns", "max_parallel_subagents",
    "shell_env_exclude", "max_thinking_tokens",
})
SAFE_MODES = ("default", "plan")
RISKY_MODES = ("acceptEdits", "bypassPermissions", "auto")
SETTINGS = "settings.toml"
LOCAL = "settings.local.toml"


def shared_settings_file(root: Path) -> Path:
    return paths.project_dir(root) / SETTINGS


def local_settings_file(root: Path) -> Path:
    return paths.project_dir(root) / LOCAL


def claude_settings_files(root: Path) -> tuple[Path, Path]:
    """Claude Code's shared and local project settings (agentcli.settings.claude), trusted as agentcli's are."""
    return root / ".claude" / "settings.json", root / ".claude" / "settings.local.json"


def mcp_json_file(root: Path) -> Path:
    return root / ".mcp.json"


def presets_dir(root: Path) -> Path:
    return paths.project_dir(root) / "presets"


def _trust_file() -> Path:
    return paths.home() / "trusted.json"


def grants(data: dict[str, Any]) -> list[str]:
    """What a project settings table would grant, in words; empty when it grants nothing that needs trust."""
    out: list[str] = []
    for key, value in data.items():
        out.extend(key_grants(key, value))
    return list(dict.fromkeys(printable(g) for g in out))


def printable(text: str) -> str:
    """`text` as the trust question prints it: what the repository wrote must not be able to redraw the
    question, hide part of a command or add lines of its own."""
    from agentcli.visible import one_line

    return one_line(text)


def key_grants(key: str, value: Any) -> list[str]:
    """What one top-level key of a project settings file grants (empty: harmless)."""
    if key in SAFE_KEYS or value is None:
        return []
    if key == "permissions":
        return _permission_grants(value)
    if key == "permission_mode":
        return [] if value in SAFE_MODES else [f"start in {value} mode"]
    if key in ("mcp_sandbox", "sandbox_hooks"):
        return [] if value is True else [f"set {key} = {value!r} (run those commands outside the sandbox)"]
    if key == "telemetry":  # a repository must not turn on the export of the session's data
        return [] if value is False else ["turn on telemetry export"]
    if key == "telemetry_log_prompts":
        return [] if value is False else ["export your prompts and tool output with telemetry"]
    if key == "preset":
        return [] if _builtin_preset(value) else [f"use the preset {value!r}"]
    if key == "providers":
        return ["configure providers " + ", ".join(sorted(str(p) for p in value))] if value else []
    if key == "mcp_servers":
        return ["start MCP servers " + ", ".join(sorted(str(s) for s in value))] if value else []
    if key == "hooks":
        return [f"run the hook command {c!r}" for c in _hook_commands(value)]
    if key == "web_search":
        return [f"send your web searches to {value!r}"] if value else []
    return [f"set {key} = {value!r}"]


def _permission_grants(perms: Any) -> list[str]:
    if not isinstance(perms, dict):
        return ["(a permissions table agentcli cannot read)"]
    out: list[str] = []
    allow = perms.get("allow")
    if allow:
        out.append("allow " + (", ".join(str(a) for a in allow) if isinstance(allow, list) else repr(allow)))
    mode = perms.get("default_mode") or perms.get("defaultMode")
    if mode and mode not in SAFE_MODES:
        out.append(f"start in {mode} mode")
    dirs = perms.get("additional_directories")
    if dirs:
        out.append("let file tools use " + (", ".join(str(d) for d in dirs) if isinstance(dirs, list) else str(dirs)))
    if perms.get("default_deny") is False:
        out.append("turn off the built-in protection of secrets (.env, ~/.ssh, ~/.aws)")
    return out


def _builtin_preset(name: Any) -> bool:
    return isinstance(name, str) and name.isidentifier() and (paths.builtin_presets_dir() / f"{name}.toml").is_file()


def _hook_commands(hooks: Any) -> list[str]:
    """Every command a `hooks` table would run, however malformed the rest of it is (it runs nothing untrusted)."""
    if not isinstance(hooks, dict):
        return ["(a hooks table agentcli cannot read)"] if hooks is not None else []
    found: list[str] = []
    for groups in hooks.values():
        for group in groups if isinstance(groups, list) else [groups]:
            inner = group.get("hooks") if isinstance(group, dict) else None
            for hook in inner if isinstance(inner, list) else [inner]:
                command = hook.get("command") if isinstance(hook, dict) else None
                found.append(command if isinstance(command, str) else "(an unreadable hook)")
    return list(dict.fromkeys(found))


def _key(root: Path, path: Path) -> str:
    """Where a file's digest is recorded: the shared settings file under the project's real path (as before),
    every other file under `<real path>::<name>`."""
    real = str(root.resolve())
    if path == shared_settings_file(root):
        return real
    return f"{real}::{path.relative_to(root).as_posix() if path != presets_dir(root) else 'presets'}"


# What a project file that exists but cannot be read as a regular file hashes to: never a recorded digest, so the
# file is never taken as pinned (a repository's FIFO would otherwise hang the read, or count as absent).
UNREADABLE = "unreadable"
MAX_TRUSTED_BYTES = 16 * 1024 * 1024  # a hook's script, a settings file, a preset: bigger is not read


def _digest(path: Path) -> str | None:
    """The file's SHA-256; for the presets folder, of every `*.toml` in it with its name; None when absent;
    `UNREADABLE` when it is there but not a readable regular file of at most `MAX_TRUSTED_BYTES` (a FIFO, a
    device, a link to one, unreadable): read without blocking (agentcli.settings.projectfiles)."""
    from agentcli.settings.projectfiles import read_regular

    def content(f: Path) -> bytes | None:
        data = read_regular(f, MAX_TRUSTED_BYTES + 1)
        return data if data is not None and len(data) <= MAX_TRUSTED_BYTES else None

    try:
        if not path.exists():
            return UNREADABLE if path.is_symlink() else None  # a dangling link is there, and says nothing
        if path.is_dir():
            h = hashlib.sha256()
            files = sorted(path.glob("*.toml"))
            if not files:
                return None
            for f in files:
                data = content(f)
                if data is None:
                    return UNREADABLE
                h.update(f.name.encode() + b"\0" + data + b"\0")
            return h.hexdigest()
    except OSError:
        return UNREADABLE
    data = content(path)
    return UNREADABLE if data is None else hashlib.sha256(data).hexdigest()


def _load() -> dict[str, str]:
    try:
        data = json.loads(_trust_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def pinned(root: Path, path: Path) -> bool:
    """Is `path` (one of the project's own files) absent, or unchanged since the user trusted it?"""
    digest = _digest(path)
    return digest is None or _load().get(_key(root, path)) == digest


def _settings_ok(root: Path, path: Path) -> bool:
    if pinned(root, path):
        return True
    return not grants(read_settings(path))


def read_settings(path: Path) -> dict[str, Any]:
    """A project settings file as agentcli's keys: TOML as it is, Claude Code's JSON translated."""
    if path.suffix == ".json":
        from agentcli.settings import claude

        return claude.translate(claude.read_json(path))[0]
    from agentcli.settings.tomlfile import read_toml

    return read_toml(path)


def is_trusted(root: Path) -> bool:
    """May the project's settings files grant what they say? True when each of them is absent, unchanged
    since the user trusted it, or grants nothing."""
    files = (shared_settings_file(root), local_settings_file(root), *claude_settings_files(root))
    return all(_settings_ok(root, f) for f in files)


def is_mcp_trusted(root: Path) -> bool:
    """May the project's own MCP servers (.mcp.json, `[mcp_servers]` in its settings files) start? Only when
    .mcp.json is absent or unchanged since the user trusted it, and the settings files are trusted."""
    return pinned(root, mcp_json_file(root)) and is_trusted(root)


def presets_trusted(root: Path) -> bool:
    """May the project's own presets (`.agentcli/presets/*.toml`) be used? Each names tools, a permission mode,
    allow rules and a sandbox mode, so all of them are trusted together, as they are now."""
    return pinned(root, presets_dir(root))


def _files(root: Path) -> tuple[Path, ...]:
    return (shared_settings_file(root), local_settings_file(root), mcp_json_file(root), presets_dir(root),
            *claude_settings_files(root))


def _script_key(root: Path, path: Path) -> str:
    """A hook script's digest has keys of its own: pinning a script never vouches for a settings file, even one
    a hook command happens to name."""
    return f"{root.resolve()}::hook-script::{path.relative_to(root).as_posix()}"


def script_pinned(root: Path, path: Path) -> bool:
    """Is `path` (a project file a hook runs, agentcli.hooks.scripts) absent, or unchanged since it was pinned?"""
    digest = _digest(path)
    return digest is None or _load().get(_script_key(root, path)) == digest


def pin(root: Path, files: list[Path]) -> list[Path]:
    """Record these project files a hook runs as trusted as they are now; `script_pinned` then holds while they
    stay so. Returns those that cannot be: there, but not a readable regular file (a FIFO, a device)."""
    _record(root, tuple(files), _script_key)
    return [f for f in files if _digest(f) == UNREADABLE]


def trust(root: Path) -> None:
    """Record every one of the project's own files as it is now as trusted."""
    _record(root, _files(root))


def _record(root: Path, files: tuple[Path, ...], key: Callable[[Path, Path], str] | None = None) -> None:
    from agentcli.atomicfile import atomic_write

    found = {(key or _key)(root, f): d for f in files if (d := _digest(f)) not in (None, UNREADABLE)}
    if not found:
        return
    data = _load()
    if all(data.get(k) == v for k, v in found.items()):
        return
    data.update(found)
    atomic_write(_trust_file(), json.dumps(data, indent=1, sort_keys=True) + "\n", new_mode=0o600)


@contextlib.contextmanager
def keeping(path: Path) -> Iterator[None]:
    """agentcli edits one of a project's own files for the user (an approval remembered for the project,
    `permissions add`, `mcp add`, `hooks import`): if the file was trusted before (or did not exist), its new
    content is trusted too. Only that file: the user's edit vouches for nothing else in the project."""
    root = _project_of(path)
    # A settings file that granted nothing was as good as trusted: what agentcli adds for the user stays so.
    before = root is not None and (_settings_ok(root, path) if path.suffix != ".json" or path.parent.name == ".claude"
                                   else pinned(root, path))
    yield
    if root is not None and before:
        _record(root, (path,))


def _project_of(path: Path) -> Path | None:
    """The project root whose own file `path` is, or None (the user's config, anything else)."""
    if path.name == ".mcp.json":
        return path.parent
    if path.parent.name == ".agentcli" and path.name in (SETTINGS, LOCAL):
        return path.parent.parent
    if path.parent.name == ".claude" and path.name in ("settings.json", "settings.local.json"):
        return path.parent.parent
    return None


def untrusted_grants(root: Path, data: dict[str, Any]) -> list[str]:
    """The grants of a project settings table `data` that are withheld because the project is not trusted."""
    found = grants(data)
    return found if found and not is_trusted(root) else []


def withhold(data: dict[str, Any]) -> dict[str, Any]:
    """`data` minus every key that grants something (the permissions table stays: the policy loader keeps its
    deny and ask rules and drops the rest)."""
    return {k: v for k, v in data.items() if k == "permissions" or not key_grants(k, v)}


def untrusted_presets(root: Path) -> list[str]:
    """The trust question's line about the project's presets, when they are present and not trusted."""
    if presets_trusted(root):
        return []
    names = sorted(f.stem for f in presets_dir(root).glob("*.toml"))
    return [f"use its own presets {', '.join(names)} (tools, permission mode, rules, sandbox)"]
