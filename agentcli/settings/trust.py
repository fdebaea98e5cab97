"""Trusting a project's shared settings.

`.agentcli/settings.toml` is committed with the repository, so a cloned repo could use it to allow commands,
widen the file tools' reach, turn off the secret protections, or send your requests (and API key) to another
server. Such grants take effect only once the user has trusted that exact file (its SHA-256 is recorded in
`$AGENTCLI_HOME/trusted.json`); changing the file asks again. Deny and ask rules always apply, trusted or not.
`settings.local.toml` is the user's own and needs no trust, unless it may have come with the project: git
tracks it (committed to the repository), or the project is no git work tree (an unpacked archive) and agentcli
did not write the file. Then its grants (hooks, allow rules, MCP servers …) wait for the same trust, given to that
exact file; agentcli's own writes to it (approvals "for this project") keep it the user's. The project's
`.mcp.json` (MCP servers, which run code or receive data) is trusted the same way, together with the shared file:
one question, one record each.
"""

from __future__ import annotations

import functools
import hashlib
import json
import subprocess
from pathlib import Path
from typing import Any

from agentcli import paths

# Config keys in the shared file that route traffic, change what the model is told, or send the session's data
# off the machine (telemetry: a repository must not turn on the export of prompts and tool contents).
RISKY_CONFIG_KEYS = ("base_url", "provider", "append_system_prompt", "sandbox_mode", "sandbox_network",
                     "sandbox_allowed_hosts", "shell_env_keep", "sandbox", "model_overrides", "telemetry",
                     "telemetry_log_prompts")
RISKY_MODES = ("acceptEdits", "bypassPermissions")


def shared_settings_file(root: Path) -> Path:
    return paths.project_dir(root) / "settings.toml"


def _trust_file() -> Path:
    return paths.home() / "trusted.json"


def grants(data: dict[str, Any]) -> list[str]:
    """What a shared settings table would grant, in words; empty when it grants nothing that needs trust."""
    out: list[str] = []
    perms = data.get("permissions")
    if isinstance(perms, dict):
        allow = perms.get("allow")
        if isinstance(allow, list) and allow:
            out.append("allow " + ", ".join(str(a) for a in allow))
        mode = perms.get("default_mode") or perms.get("defaultMode")
        if mode in RISKY_MODES:
            out.append(f"start in {mode} mode")
        dirs = perms.get("additional_directories")
        if isinstance(dirs, list) and dirs:
            out.append("let file tools use " + ", ".join(str(d) for d in dirs))
        if perms.get("default_deny") is False:
            out.append("turn off the built-in protection of secrets (.env, ~/.ssh, ~/.aws)")
    out.extend(f"set {key} = {data[key]!r}" for key in RISKY_CONFIG_KEYS if data.get(key))
    providers = data.get("providers")
    if isinstance(providers, dict) and providers:
        out.append("configure providers " + ", ".join(sorted(str(p) for p in providers)))
    servers = data.get("mcp_servers")
    if isinstance(servers, dict) and servers:
        out.append("start MCP servers " + ", ".join(sorted(str(s) for s in servers)))
    out.extend(f"run the hook command {c!r}" for c in _hook_commands(data.get("hooks")))
    if data.get("web_search"):
        out.append(f"send your web searches to {data['web_search']!r}")
    return out


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


def local_settings_file(root: Path) -> Path:
    return paths.project_dir(root) / "settings.local.toml"


def _local_key(root: Path) -> str:
    return f"{root.resolve()}::settings.local.toml"


def local_needs_trust(root: Path) -> bool:
    """Whether the project's settings.local.toml may have come with the project rather than from the user, and
    has not been trusted as it is now: then only its restrictions apply, as for an untrusted shared file. It
    is the user's own when agentcli wrote it (`record_local`), when the user trusted it, or when git says it is
    not tracked; a file git tracks (a clone) or in a directory that is no git work tree (a downloaded archive)
    is not."""
    digest = _digest(local_settings_file(root))
    if digest is None or _load().get(_local_key(root)) == digest:
        return False
    return _came_with_project(str(root), digest)


def record_local(root: Path) -> None:
    """The local file as it is now is the user's own (agentcli just wrote it for them)."""
    from agentcli.atomicfile import atomic_write

    digest = _digest(local_settings_file(root))
    data = _load()
    if digest is None or data.get(_local_key(root)) == digest:
        return
    data[_local_key(root)] = digest
    atomic_write(_trust_file(), json.dumps(data, indent=1, sort_keys=True) + "\n", new_mode=0o600)


def local_is_own(root: Path) -> bool:
    """Whether the local file is the user's as it is now: absent, granting nothing, or not needing trust."""
    from agentcli.settings.config import read_toml

    path = local_settings_file(root)
    if not path.is_file():
        return True
    try:
        if not grants(read_toml(path)):
            return True
    except Exception:  # unreadable TOML: the write that follows reports it
        return True
    return not local_needs_trust(root)


@functools.lru_cache(maxsize=8)
def _came_with_project(root: str, digest: str) -> bool:
    """Whether `.agentcli/settings.local.toml` in `root` may be the project's rather than the user's: git tracks
    it, or `root` is no git work tree. (`digest`: the file's, so an edit asks again.) The repository's own
    configuration runs nothing here (no fsmonitor; ls-files runs no hooks)."""
    rel = local_settings_file(Path(root)).relative_to(root).as_posix()
    try:
        done = subprocess.run(["git", "-c", "core.fsmonitor=false", "-C", root, "ls-files", "--error-unmatch",
                               "--", rel], capture_output=True, timeout=10, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return True  # no git to ask: it may have come with the files
    return done.returncode != 1  # 1: a work tree that does not track it; 0: tracked; else no work tree / refused


def mcp_json_file(root: Path) -> Path:
    return root / ".mcp.json"


def _mcp_key(root: Path) -> str:
    return f"{root.resolve()}::.mcp.json"


def is_mcp_trusted(root: Path) -> bool:
    """May the project's own MCP servers (.mcp.json, `[mcp_servers]` in the shared file) start? Only when both
    files are absent or unchanged since the user trusted them."""
    digest = _digest(mcp_json_file(root))
    json_ok = digest is None or _load().get(_mcp_key(root)) == digest
    return json_ok and is_trusted(root)


def _digest(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def _load() -> dict[str, str]:
    try:
        data = json.loads(_trust_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def is_trusted(root: Path) -> bool:
    """True when the shared file is absent, unchanged since the user trusted it, or grants nothing."""
    digest = _digest(shared_settings_file(root))
    return digest is None or _load().get(str(root.resolve())) == digest


def trust(root: Path) -> None:
    """Record the shared file as it is now as trusted for this project."""
    from agentcli.atomicfile import atomic_write

    digest = _digest(shared_settings_file(root))
    mcp_digest = _digest(mcp_json_file(root))
    local_digest = _digest(local_settings_file(root))
    if digest is None and mcp_digest is None and local_digest is None:
        return
    data = _load()
    if digest is not None:
        data[str(root.resolve())] = digest
    if mcp_digest is not None:
        data[_mcp_key(root)] = mcp_digest
    if local_digest is not None:
        data[_local_key(root)] = local_digest
    atomic_write(_trust_file(), json.dumps(data, indent=1, sort_keys=True) + "\n", new_mode=0o600)


def untrusted_grants(root: Path, data: dict[str, Any]) -> list[str]:
    """The grants of the shared file `data` that are withheld because the project is not trusted."""
    found = grants(data)
    return found if found and not is_trusted(root) else []
