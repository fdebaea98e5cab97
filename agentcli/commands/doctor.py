"""`agentcli doctor`: one screen to paste into a bug report — versions, sandbox (probed for real), ripgrep,
providers configured (never a key), the project and its trust state."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
import time
from pathlib import Path

from agentcli import paths
from agentcli.commands import entry, new_app, reporting_errors
from agentcli.version import __version__

TYPE_CHECKING = False
if TYPE_CHECKING:
    from agentcli.sandbox.core import Sandbox
    from agentcli.settings.sections import Settings

app = new_app("Print what a bug report needs: versions, sandbox, ripgrep, providers, trust.")


@app.command(help="Print what a bug report needs: versions, sandbox, ripgrep, providers, trust.")
def doctor() -> int:
    return reporting_errors(_report)


main = entry(app, "doctor")


def _report() -> int:
    from agentcli.settings.config import load_settings

    settings = load_settings(Path.cwd(), {})
    lines = [f"agentcli {__version__} · Python {platform.python_version()} · {sys.platform} {platform.machine()}"]
    lines += _sandbox_lines(settings)
    lines.append(f"ripgrep: {_ripgrep()}")
    lines.append(f"providers: {_providers(settings)}")
    lines += _project_lines(settings)
    lines += _source_lines(settings)
    from agentcli.mcp.health import doctor_lines

    lines += doctor_lines(settings)
    lines += agent_lines(settings)
    lines += _hook_lines(settings)
    from agentcli.skills.report import doctor_lines as skill_lines

    lines += skill_lines(settings.project_root)
    from agentcli.acp.doctor import doctor_lines as acp_lines

    lines += acp_lines() + serve_lines()
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


def _sandbox_lines(settings: Settings) -> list[str]:
    from agentcli.errors import ConfigError
    from agentcli.sandbox import for_settings

    try:
        sandbox = for_settings(settings)
    except ConfigError as err:
        return [f"sandbox: misconfigured — {err.one_line()}"]
    out = [f"sandbox: {sandbox.describe()}"]
    if sys.platform.startswith("linux"):
        out.append(f"  kernel: {platform.release()}; {_userns()}")
    binary = getattr(sandbox.mechanism, "binary", None)
    if binary:
        out.append(f"  bubblewrap: {binary} ({_version([binary, '--version'])})")
    if sandbox.confining:
        t0 = time.monotonic()
        hidden = sandbox.hidden()
        out.append(f"  secrets hidden: {len(hidden)} paths (found in {(time.monotonic() - t0) * 1000:.0f} ms, once "
                   "per session)")
        out.append(_sockets_line(sandbox))
    if sandbox.mechanism.name != "none":  # danger-full-access too: bubblewrap still gives the PID namespace
        out.append(_probe_line(sandbox, settings))
    notice = sandbox.startup_notice()
    if notice:
        out.append(f"  note: {notice}")
    return out


def _probe_line(sandbox: Sandbox, settings: Settings) -> str:
    """`true` under the sandbox, timed; the session's own probe runs first (and may give up on the mechanism)."""
    argv, env = sandbox.wrap(["true"], settings.project_root, dict(os.environ))
    if sandbox.failure:
        from agentcli.sandbox.core import DOCTOR_HINT

        line = f"  probe (true under the sandbox): FAILS — {sandbox.failure.removesuffix(DOCTOR_HINT)}"
        if settings.sandbox.hooks:
            line += ("\n  sandbox_hooks: hooks run as you instead, and a project script one runs only while you "
                     "trust it (agentcli hooks trust)")
        if settings.mcp.sandbox:
            line += "\n  mcp_sandbox: stdio servers are not started (each is one notice)"
        return line
    t0 = time.monotonic()
    proc = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    ms = (time.monotonic() - t0) * 1000
    state = "works" if proc.returncode == 0 else f"FAILS: {proc.stderr.strip()[:200]}"
    return f"  probe (true under the sandbox): {state}, {ms:.1f} ms"


def _sockets_line(sandbox) -> str:  # type: ignore[no-untyped-def]
    from agentcli.sandbox.sockets import HOW_TO_ALLOW

    allowed = sandbox.spec.allowed_sockets
    if allowed:
        return "  unix sockets reachable: " + ", ".join(str(p) for p in allowed) + " (sandbox_allowed_sockets)"
    return f"  unix sockets reachable: none but agentcli's own proxy; {HOW_TO_ALLOW}"


def _userns() -> str:
    """What decides whether bubblewrap may create namespaces here."""
    facts = []
    for name, path in (("max_user_namespaces", "/proc/sys/user/max_user_namespaces"),
                       ("apparmor_restrict_unprivileged_userns",
                        "/proc/sys/kernel/apparmor_restrict_unprivileged_userns")):
        try:
            facts.append(f"{name}={Path(path).read_text().strip()}")
        except OSError:
            continue
    facts.append("running as root" if os.geteuid() == 0 else "unprivileged")
    return ", ".join(facts)


def _version(argv: list[str]) -> str:
    try:
        return subprocess.run(argv, capture_output=True, text=True, check=False, timeout=5).stdout.strip() or "?"
    except (OSError, subprocess.TimeoutExpired):
        return "?"


def _ripgrep() -> str:
    from agentcli.proc.groups import find_rg

    rg = find_rg()
    if rg is None:
        return "not found (Grep falls back to a slower search)"
    return f"{rg} ({_version([rg, '--version']).splitlines()[0] if rg else '?'})"


def _providers(settings: Settings) -> str:
    from agentcli.settings.config import SECRET_ENV_VARS

    env = [v for v in SECRET_ENV_VARS if os.environ.get(v)]
    conf = sorted(settings.model.providers)
    parts = []
    if env:
        parts.append("keys in environment: " + ", ".join(env))
    if conf:
        parts.append("configured: " + ", ".join(conf))
    if settings.model.provider or settings.model.name:
        parts.append(f"selected: {settings.model.provider or '-'} / {settings.model.name or '-'}")
    return "; ".join(parts) or "none configured (see agentcli --help)"


def _hook_lines(settings: Settings) -> list[str]:
    if not settings.hooks.layers:
        return []
    from agentcli.hooks.setup import untrusted_scripts

    return [f"hooks: {line}" for line in untrusted_scripts(settings)]


def agent_lines(settings: Settings) -> list[str]:
    """doctor's lines on agent files and presets: tool names agentcli has no tool for, and tools an agent file
    names that its subagent cannot have in this setup (each the notice a session shows)."""
    from agentcli.agents.checks import child_tool_lines, unknown_tool_lines
    from agentcli.assembly.runtime import load_preset, tool_names
    from agentcli.errors import ConfigError

    root = settings.project_root
    lines = unknown_tool_lines(root)
    try:  # the main agent's tools in this setup (its preset, --tools): what its subagents can be given
        tools = tool_names(load_preset(settings), settings.permissions.mode, settings.tools)
    except ConfigError:
        tools = None  # a preset that does not load: the line above says so
    if tools is not None:
        lines += child_tool_lines(root, tools, settings.session.subagent_max_depth)
    return [f"agents and presets: {line}" for line in lines + _agent_model_lines(settings)]


def _agent_model_lines(settings: Settings) -> list[str]:
    """Agent files whose model no configured provider serves: their subagents could not start."""
    from agentcli.agents.definitions import load_definitions
    from agentcli.assembly import selection
    from agentcli.errors import AgentCliError

    m = settings.model
    out = []
    for d in load_definitions(settings.project_root)[0].values():
        if not d.model:
            continue
        try:
            selection.select(d.model, None, None, m.providers, request_timeout_s=m.request_timeout_s,
                             max_retries=m.max_retries, model_overrides=m.overrides)
        except AgentCliError as err:
            out.append(f"agent {d.name} ({d.path or d.source}): its subagent cannot start: {err.one_line()}")
    return out


def _project_lines(settings: Settings) -> list[str]:
    from agentcli.settings import trust

    root = settings.project_root
    own = (trust.shared_settings_file(root), trust.local_settings_file(root), *trust.claude_settings_files(root))
    if settings.untrusted:
        state = "NOT trusted: withheld " + "; ".join(settings.untrusted)
    elif not any(f.exists() for f in own):
        state = "no shared settings (nothing to trust)"
    else:
        state = "trusted (or grants nothing)"
    config = paths.user_config_file()
    return [f"project: {root}", f"  trust: {state}",
            f"config: {config} ({'present' if config.exists() else 'absent'})",
            f"home: {paths.home()}"]


def _source_lines(settings: Settings) -> list[str]:
    """Every settings source, in precedence order (lowest first), with what it contributed and why not more."""
    out = ["settings sources (lowest precedence first):"]
    for src in settings.sources:
        out.append(f"  {src.name}: {src.path} — {src.state}")
        if src.taken:
            out.append(f"    keys taken: {', '.join(src.taken)}")
        out += [f"    ignored: {key} ({why})" for key, why in src.ignored]
    return out + _mcp_json_lines(settings)


def _mcp_json_lines(settings: Settings) -> list[str]:
    """The project's `.mcp.json` (read by agentcli.mcp.config; its servers start once the project is trusted)."""
    from agentcli.mcp.config import mcp_json_servers
    from agentcli.settings import trust

    root = settings.project_root
    path = trust.mcp_json_file(root)
    found = mcp_json_servers(root)
    if found is None:
        return [f"  .mcp.json: {path} — absent"]
    if found.problem is not None:
        return [f"  .mcp.json: {path} — {found.problem}: no server starts"]
    data = found.servers
    if not isinstance(data, dict):
        return [f"  .mcp.json: {path} — not valid JSON: no server starts"]
    state = "read (trusted)" if trust.is_mcp_trusted(root) else "not trusted: no server starts until trusted"
    lines = [f"  .mcp.json: {path} — {state}"]
    return lines + ([f"    servers: {', '.join(sorted(data))}"] if data else [])


def serve_lines() -> list[str]:
    """What `agentcli serve` would run on (its HTTP stack) and the state of its token file (never the token)."""
    from importlib import metadata

    from agentcli.server.token import token_file

    stack = []
    for dist in ("starlette", "uvicorn"):
        try:
            stack.append(f"{dist} {metadata.version(dist)}")
        except metadata.PackageNotFoundError:
            stack.append(f"{dist} MISSING (serve cannot start; reinstall agentcli)")
    path = token_file()
    try:
        mode = path.stat().st_mode & 0o777
    except FileNotFoundError:
        token = f"no token yet ({path} is made on the first start)"
    except OSError as err:
        token = f"{path} cannot be read: {err.strerror}"
    else:
        token = f"token {path} (mode {mode:o}{', readable by others: refused' if mode & 0o077 else ''})"
    return [f"serve: {', '.join(stack)}; {token}"]
