"""What `agentcli serve` prepares once, at start, so that the first attached prompt costs what every later one
does (the warm server of issue 30): the modules every session's assembly, first turn and event stream import
on first use (the HTTP stack, every built-in tool, permissions, sandbox, skills, MCP config, the SSE response),
and the adapter and trust store of the provider the server's own settings choose.

Nothing of a session is built here: no session file, no hooks, no MCP server, no project's settings kept. What
stays is process-wide and the same for every project (imported modules, the cached CA bundle); each session
still reads its own project's settings, trust and permissions when it is opened (tests/server/test_warm.py)."""

from __future__ import annotations

import contextlib
import importlib
from pathlib import Path
from typing import Any

from agentcli.errors import AgentCliError

# Imported by a session's build or first turn only when first used (each a lazy import there); a name that no
# longer exists fails tests/server/test_warm.py, not the server.
FIRST_USE = (
    "agentcli.acp.settings", "agentcli.agents.runner", "agentcli.assembly.memory", "agentcli.assembly.served",
    "agentcli.assembly.subagents", "agentcli.assembly.tasks", "agentcli.mcp.config",
    "agentcli.permissions.gitcheck", "agentcli.permissions.loader", "agentcli.permissions.reads",
    "agentcli.permissions.shell", "agentcli.proc.gitsafe", "agentcli.proc.groups", "agentcli.providers.coalesce",
    "agentcli.providers.probe", "agentcli.providers.retry", "agentcli.sandbox", "agentcli.sandbox.sockets",
    "agentcli.session.checkpoint", "agentcli.settings.claude", "agentcli.settings.custom_commands",
    "agentcli.settings.schema", "agentcli.settings.trust", "agentcli.settings.writer", "agentcli.skills.commands",
    "agentcli.skills.discovery",
)


async def warm(flags: dict[str, Any], cwd: Path) -> None:
    from agentcli.net import preload
    from agentcli.tools.registry import BUILTIN_TOOLS, load_tool

    preload.ensure()  # httpx, httpcore, h11 (the provider's client)
    for name in FIRST_USE:
        importlib.import_module(name)
    for tool in BUILTIN_TOOLS:
        load_tool(tool)
    from agentcli.sandbox.core import pick_mechanism

    pick_mechanism()  # the platform's sandbox modules
    "localhost".encode("idna")  # the provider's connect: a host name goes through the idna codec
    import anyio

    await anyio.sleep(0)  # loads anyio's asyncio backend, which the event stream's task group (starlette) uses
    with contextlib.suppress(AgentCliError):  # not configured here: each session says so itself
        await _provider(flags, cwd)


async def _provider(flags: dict[str, Any], cwd: Path) -> None:
    """Import the adapter the server's own settings choose, and load its trust store (an https API), by making
    the provider and closing it unused; no request is sent."""
    from agentcli.assembly.models import make_provider
    from agentcli.assembly.runtime import select_provider
    from agentcli.net.tls import trust_context
    from agentcli.settings.config import load_settings

    sel = await select_provider(load_settings(cwd, flags))
    provider = make_provider(sel)
    await provider.aclose()
    url = str(sel.config.base_url or "")
    if not url or url.lower().startswith("https:"):
        trust_context()
