"""The kernel sandbox every process agentcli starts for the agent runs under (Bash, background jobs, `!cmd`;
hooks and MCP stdio servers use the same API).

    from agentcli.sandbox import for_settings
    sb = for_settings(settings)                  # once per session
    argv, env = sb.wrap(["bash", "-c", cmd], cwd, env)

`Sandbox` (agentcli.sandbox.core) holds what may be touched (`SandboxSpec`) and one mechanism: bubblewrap on
Linux, Seatbelt on macOS, or `none`, which says so. Modes use Codex's names: read-only, workspace-write,
danger-full-access. See docs/sandbox.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agentcli.sandbox.spec import DEFAULT_MODE, MODES

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from agentcli.sandbox.core import Sandbox
    from agentcli.settings.sections import Settings

__all__ = ["DEFAULT_MODE", "MODES", "for_settings", "wrap_command"]


def for_settings(
    settings: Settings,
    *,
    preset_mode: str | None = None,
    read_denied: Callable[[str], bool] | None = None,
    current_permission_mode: Callable[[], str] | None = None,
) -> Sandbox:
    """The session's sandbox: the mode from the settings (else the preset's, else workspace-write), the
    platform's mechanism, and the paths it protects."""
    from agentcli.sandbox.core import Sandbox
    from agentcli.sandbox.spec import spec_from_settings

    spec = spec_from_settings(settings, preset_mode=preset_mode, read_denied=read_denied)
    return Sandbox(spec, current_permission_mode=current_permission_mode)


def wrap_command(
    settings: Settings, argv: list[str], cwd: Path, env: dict[str, str]
) -> tuple[list[str], dict[str, str]]:
    """One-shot form for callers without a session sandbox (MCP stdio servers): `argv` and a cleaned `env` to
    start the process with, confined as the settings say. Raises `SandboxRefused` (agentcli.sandbox.core) when the
    mechanism turns out not to work here: the caller says so and does not start the process, rather than run it
    unconfined unsaid."""
    from agentcli.sandbox.core import SandboxRefused
    from agentcli.sandbox.env import child_env

    sandbox = for_settings(settings)
    wrapped = sandbox.wrap(argv, cwd, child_env(env, settings))
    if sandbox.broken:
        raise SandboxRefused(sandbox.broken)
    return wrapped


def __getattr__(name: str) -> Any:
    """`MODES` and `DEFAULT_MODE` live in agentcli.sandbox.spec (below this module, so spec need not import it
    back); they are still offered here, loaded on first use."""
    if name in ("MODES", "DEFAULT_MODE"):
        from agentcli.sandbox import spec

        return getattr(spec, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
