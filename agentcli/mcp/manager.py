"""Every configured MCP server of a session, as one source of tools for the registry.

Start-up never waits: `start()` schedules a background task that imports the SDK in a worker thread and connects
all servers in parallel. The loop calls `refresh()` before each request. The first one waits, as Claude Code does:
a headless run (`grace_s` None) for every server to connect or fail, each bounded by MCP_TIMEOUT (a server still
silent then is given up, with one notice); the REPL (`grace_s` 0) not at all, its servers' tools arriving when they
are ready; an explicit grace for that long. Later refreshes wait only for a re-list a change notification started.
A server that fails becomes one notice line, and calling one of its tools an error the model reads.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import importlib
import os
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentcli import paths
from agentcli.llm.messages import ContentBlock
from agentcli.mcp.config import McpConfig, ServerConfig
from agentcli.mcp.limits import resolve
from agentcli.mcp.search import SEARCH_TOOL, DeferredTools
from agentcli.tools.base import Tool

if TYPE_CHECKING:
    from agentcli.mcp.connection import Connection, Elicit
    from agentcli.mcp.sdk_transport import SdkRequest
    from agentcli.mcp.spawn import Wrap

DEFAULT_WINDOW = 128_000
REFRESH_WAIT_S = 2.0
SETTLE_MARGIN_S = 0.5  # past a server's own connect deadline, for its transport to report the timeout
SDK_LOAD_WAIT_S = 60.0  # at most this for the `mcp` import before any server starts (~1 s idle, ~4 s at load 18)


class McpManager:
    """Implements agentcli.tools.base.ToolSource."""

    def __init__(self, config: McpConfig, cwd: Path, *, grace_s: float | None = None,
                 connect_timeout_s: float = 30.0, tool_timeout_s: float = 120.0, budget: float = 0.10,
                 window: Callable[[], int | None] = lambda: None, wrap: Wrap | None = None,
                 sandbox_all: bool = False, environ: Mapping[str, str] | None = None) -> None:
        self.config = config
        self.cwd = cwd
        self.grace_s = grace_s  # None: wait for every server (headless); 0: never wait (the REPL)
        self.limits = resolve(os.environ if environ is None else environ, connect_timeout_s, tool_timeout_s)
        self.connect_timeout_s = self.limits.connect_timeout_s
        self.tool_timeout_s = self.limits.tool_timeout_s
        self.connections: dict[str, Connection] = {}
        self.deferred = DeferredTools(budget, window, DEFAULT_WINDOW)
        self.accepts_images: Callable[[], bool] = lambda: False  # does the session's model take images?
        self.wrap = wrap
        self.sandbox_all = sandbox_all
        # Where the Claude Agent SDK's control channel is found when one drives this run (asked at connect time).
        self.sdk: Callable[[], SdkRequest | None] = lambda: None
        # How a server's question (`elicitation/create`) reaches the user: the REPL sets it; None: nobody can
        # answer (a headless run), so the server is told "decline" and the user sees one notice.
        self.elicitor: Elicit | None = None
        self._notices: list[tuple[str, str]] = [("warning", p) for p in (*config.problems, *self.limits.problems)]
        self._started = 0.0
        self._launched: float | None = None  # when the first servers' connections started (the SDK loaded)
        self._boot: asyncio.Task[None] | None = None
        self._first_refresh = True
        self._skipped: dict[str, str] = {}  # servers that could not be started → why (their notice is out)
        self._tools_cache: tuple[tuple[int, ...], list[Tool]] | None = None
        if config.untrusted:
            names = ", ".join(sorted(config.untrusted))
            self._notices.append(("warning", f"MCP servers of this project not started until you trust it: {names} "
                                             "(agentcli permissions trust)"))

    # ---- life cycle ---------------------------------------------------------------------------------------

    def attach_sdk(self, request: SdkRequest) -> None:
        """Route `"type": "sdk"` servers over the SDK's control channel (`request("mcp_message", …)`). Attach
        right after `build()`: servers connect in a task that asks for the channel once the `mcp` package has
        loaded in a worker thread; one connecting without it fails with a notice (`/mcp reconnect` retries)."""
        self.sdk = lambda: request

    def start(self, delay_s: float = 0.0) -> None:
        """Connect every server in the background, after `delay_s` (the REPL lets its prompt draw first: the
        SDK import and three server processes would otherwise compete with it for the CPU)."""
        if self._boot is None and self.config.servers:
            self._started = time.monotonic() + delay_s
            self._boot = asyncio.create_task(self._start_all(delay_s), name="mcp:boot")

    async def _start_all(self, delay_s: float) -> None:
        if delay_s > 0:
            await asyncio.sleep(delay_s)
        try:
            # The SDK takes most of a second to import: never on the thread that draws the prompt.
            mod = await asyncio.to_thread(_import_connection)
        except Exception as err:
            self._notices.append(("warning", f"MCP unavailable: cannot load the mcp package ({err})"))
            return
        # Until none is left: servers declared while this runs (the SDK's `initialize`) are started too.
        while todo := self._unstarted():
            for cfg in todo:
                try:
                    run_cfg = await self._confined(cfg)
                except Exception as err:  # a sandbox that cannot start this server: one line, the others go on
                    self._notices.append(("warning", f"MCP server '{cfg.name}' not started: sandbox: {err}"))
                    self._skipped[cfg.name] = f"not started: sandbox: {err}"
                    continue
                conn: Connection = mod.Connection(run_cfg, self.cwd, log_file(cfg.name), self.connect_timeout_s,
                                                  self._event_handler(cfg), lambda: self.sdk())
                if run_cfg is not cfg and self.wrap is not None:  # sandboxed: it may be wrapped again
                    from agentcli.mcp.spawn import sandboxed

                    conn.rewrap = functools.partial(sandboxed, cfg, self.cwd, self.wrap)
                conn.elicit = self._elicit
                conn.timeout_source = self.limits.connect_source()
                self.connections[cfg.name] = conn
                conn.start()
            if self._launched is None:
                self._launched = time.monotonic()

    def _unstarted(self) -> list[ServerConfig]:
        return [c for n, c in self.config.servers.items() if n not in self.connections and n not in self._skipped]

    def declare_sdk(self, names: list[str]) -> None:
        """Servers of the Claude Agent SDK application announced by name (`initialize.sdkMcpServers`, as the
        TypeScript SDK sends them) rather than in `--mcp-config`: started like any configured `sdk` server."""
        added = [n for n in names if n not in self.config.servers]
        for name in added:
            self.config.servers[name] = ServerConfig(name, "sdk", "flag", "initialize")
        if not added:
            return
        if self._boot is None:
            self.start()
        elif self._boot.done():
            self._boot = asyncio.create_task(self._start_all(0.0), name="mcp:boot")

    async def _confined(self, cfg: ServerConfig) -> ServerConfig:
        wanted = cfg.sandbox if cfg.sandbox is not None else self.sandbox_all
        if cfg.transport != "stdio" or not wanted or self.wrap is None:
            return cfg
        from agentcli.mcp.spawn import sandboxed

        return await asyncio.to_thread(sandboxed, cfg, self.cwd, self.wrap)

    async def _elicit(self, server: str, request: dict[str, Any]) -> dict[str, Any]:
        if self.elicitor is not None:
            return await self.elicitor(server, request)
        from agentcli.visible import one_line

        asked = one_line(" ".join(str(request.get("message", "")).split()))[:200]
        self._notices.append(("warning", f"MCP server '{server}' asked for input ({asked!r}); declined: nobody can "
                                         "answer in a non-interactive run"))
        return {"action": "decline"}

    def _event_handler(self, cfg: ServerConfig) -> Callable[[str, str | None], None]:
        def on_event(kind: str, text: str | None) -> None:
            conn = self.connections.get(cfg.name)
            if kind == "failed":
                tail = conn.stderr_tail() if conn is not None else ""
                said = f"; its stderr ended: {tail}" if tail else ""
                where = f" (log: {log_file(cfg.name)})" if cfg.transport == "stdio" else ""
                self._notices.append(("warning", f"MCP server '{cfg.name}' failed: {text}{said}{where}"))
            elif kind == "connected" and conn is not None and not self._first_refresh:
                self._notices.append(("info", f"MCP server '{cfg.name}' connected ({len(conn.tools)} tools)"))
            elif kind == "tools" and conn is not None:
                self._notices.append(("info", f"MCP server '{cfg.name}' changed its tools ({len(conn.tools)} now)"))
            elif kind == "needs-auth" or kind == "warning":
                self._notices.append(("warning", f"MCP server '{cfg.name}' {text}"))
            elif kind == "withheld":  # not the user's to fix: shown in verbose runs and stream-json
                self._notices.append(("info", f"MCP server '{cfg.name}': tools not offered: {text} (they run only "
                                              "as tasks, which agentcli does not support)"))
        return on_event

    async def refresh(self) -> None:
        """Before a request: the first waits for servers still connecting (see the module docstring), later ones
        for re-lists in flight (bounded)."""
        if self._boot is None:
            return
        if self._first_refresh:
            if self.grace_s is None:
                await self._wait_connected()
            else:
                left = self._started + self.grace_s - time.monotonic()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._settle(), max(0.0, left))
            # The SDK application's own servers answer as fast as it does: worth waiting for (its first turn
            # expects their tools), bounded by the connect timeout; under load the `mcp` import alone can take
            # longer than the grace.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._settle("sdk"), self.connect_timeout_s)
            self._first_refresh = False
            slow = [n for n, status in self.servers() if status == "pending"]
            if self.grace_s is None:
                self._give_up(slow)
            elif self.grace_s > 0:
                self._notices += [("warning", f"MCP server '{n}' is still connecting after {self.grace_s:g} s; "
                                              "going on without it (its tools appear when it is ready)")
                                  for n in slow]
            return
        await asyncio.gather(*(c.wait_refreshed(REFRESH_WAIT_S) for c in self.connections.values()))

    async def _wait_connected(self) -> None:
        """Until every server has connected or failed: each has MCP_TIMEOUT from its start (after the SDK has
        loaded), and the wait never runs past that by more than a margin."""
        assert self._boot is not None
        bound = self.connect_timeout_s + SETTLE_MARGIN_S
        with contextlib.suppress(TimeoutError):
            # Loading the SDK is agentcli's own start-up, not the servers' time: on a loaded machine it can take
            # longer than a small MCP_TIMEOUT, and no server has been started yet.
            await asyncio.wait_for(asyncio.shield(self._boot), max(bound, SDK_LOAD_WAIT_S))
        if self._launched is None:  # the SDK did not even load in that time: nothing to wait for
            return
        left = self._launched + bound - time.monotonic()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._settle(), max(0.0, left))

    def _give_up(self, names: list[str]) -> None:
        """Servers a headless run waited for in vain: failed now (one notice each), their connect stopped."""
        why = f"did not connect within {self.connect_timeout_s:g} s{self.limits.connect_source()}"
        for name in names:
            conn = self.connections.get(name)
            if conn is not None:
                conn.give_up(why)
            else:  # never started (the SDK import itself did not finish)
                self._notices.append(("warning", f"MCP server '{name}' failed: {why}"))
                self._skipped[name] = why

    async def _settle(self, transport: str | None = None) -> None:
        """Until every server (of `transport`) has connected or failed."""
        assert self._boot is not None
        if transport is not None and all(c.transport != transport for c in self.config.servers.values()):
            return
        await asyncio.shield(self._boot)
        await asyncio.gather(*(c.settled.wait() for c in self.connections.values()
                               if transport is None or c.cfg.transport == transport))

    async def reconnect(self, name: str | None = None) -> list[str]:
        """Restart one server (or every failed one); returns the names restarted."""
        targets = [c for n, c in self.connections.items() if (n == name if name else c.status == "failed")]
        for conn in targets:
            await conn.close()
            conn.start()
        await asyncio.gather(*(asyncio.wait_for(c.settled.wait(), self.connect_timeout_s) for c in targets),
                             return_exceptions=True)
        return [c.cfg.name for c in targets]

    async def login(self, name: str, announce: Callable[[str], None], *, browser: bool = True,
                    timeout_s: float = 300.0) -> str:
        """`/mcp login NAME`: the server's OAuth login (agentcli.mcp.oauth), then the server reconnects with it.
        Returns what to tell the user; McpAuthError (or a ConfigError) says why it could not be done."""
        from agentcli.errors import McpAuthError

        cfg = self.config.servers.get(name)
        if cfg is None:
            why = "is not trusted yet (agentcli permissions trust)" if name in self.config.untrusted else \
                "is not configured"
            raise McpAuthError(f"MCP server '{name}' {why}")
        mod = await asyncio.to_thread(_import_connection)
        from agentcli.mcp import oauth, oauth_store

        count = await oauth.login(cfg, announce, lambda c, auth: mod.probe(c, self.cwd, auth), browser=browser,
                                  timeout_s=timeout_s)
        if name in self.connections:
            await self.reconnect(name)
        if not oauth_store.logged_in(cfg):
            return f"MCP server '{name}' did not ask for a login: it connects as it is ({count} tools)"
        return f"Logged in to MCP server '{name}' ({count} tools)"

    async def set_enabled(self, name: str, enabled: bool) -> None:
        """Disable a server (disconnected, its tools gone) or enable it again (it reconnects). KeyError for a
        server that is not running in this session."""
        conn = self.connections.get(name)
        if conn is None:
            raise KeyError(name)
        if not enabled:
            await conn.disable()
        elif conn.status == "disabled":
            await self.reconnect(name)

    async def aclose(self) -> None:
        if self._boot is not None and not self._boot.done():
            self._boot.cancel()
            with contextlib.suppress(BaseException):
                await self._boot
        await asyncio.gather(*(c.close() for c in self.connections.values()), return_exceptions=True)

    # ---- what the registry asks ---------------------------------------------------------------------------

    def all_tools(self) -> list[Tool]:
        """Every tool of every connected server (cached until a server's tool list changes)."""
        key = tuple(id(c.tools) for c in self.connections.values())
        if self._tools_cache is None or self._tools_cache[0] != key:
            from agentcli.mcp.tool import McpTool

            seen: set[str] = set()
            out: list[Tool] = []
            for conn in self.connections.values():
                for info in conn.tools:
                    tool = McpTool(conn, info, self.tool_timeout_s, self.limits.max_output_chars)
                    if tool.name in seen:  # `a.b` beside `a_b`: the second keeps its own, distinct name
                        tool = McpTool(conn, info, self.tool_timeout_s, self.limits.max_output_chars,
                                       unique=True)
                    if tool.name not in seen:  # (a server listing one name twice offers it once)
                        seen.add(tool.name)
                        out.append(tool)
            self._tools_cache = (key, out)
        return self._tools_cache[1]

    def tools(self) -> list[Tool]:
        """What the model is offered this turn: every MCP tool, or, past the schema budget, the ones it has
        loaded plus the search tool that loads the others."""
        return self.deferred.offer(self.all_tools())

    def lookup(self, name: str) -> Tool | str | None:
        """For a call to a tool not offered this turn: the tool (deferred: loaded now), or why it cannot run."""
        if not name.startswith("mcp__"):
            return None
        for tool in self.all_tools():
            if tool.name == name:
                self.deferred.load([name])
                return tool
        server = name[5:].split("__", 1)[0]
        conn = self.connections.get(server)
        if conn is not None and conn.status != "connected":
            return conn.unavailable()
        if server in self.config.untrusted:
            return f"MCP server '{server}' was not started: the project's MCP servers are not trusted."
        if server in self.config.servers and conn is None:
            return f"MCP server '{server}' is still connecting; try again shortly."
        return None

    async def attachments(self, text: str) -> list[ContentBlock]:
        if "@" not in text or not self.connections:
            return []
        from agentcli.mcp.mentions import resource_blocks

        return await resource_blocks(self.connections, text, self.accepts_images())

    async def expand(self, text: str) -> str | None:
        """`/mcp__server__prompt args` → what that server prompt asks (`prompts/get`), as Claude Code runs MCP
        prompts in every mode; None for any other text."""
        if not text.startswith("/mcp__"):
            return None
        from agentcli.mcp.mentions import expand_prompt

        return await expand_prompt(text, self.prompts(), self._state_of)

    def _state_of(self, server: str) -> str | None:
        """Why a configured server offers no prompts now (None: no such server)."""
        conn = self.connections.get(server)
        if conn is not None:
            return conn.unavailable() if conn.status != "connected" else f"MCP server '{server}' has no such prompt"
        if server in self.config.untrusted:
            return f"MCP server '{server}' was not started: the project's MCP servers are not trusted"
        if server in self.config.servers:
            return f"MCP server '{server}' is not connected"
        return None

    def notices(self) -> list[tuple[str, str]]:
        out, self._notices = self._notices, []
        return out

    def skipped(self, name: str) -> str | None:
        """Why a server was never started (its notice is out already), or None."""
        return self._skipped.get(name)

    def servers(self) -> list[tuple[str, str]]:
        """(name, status) for every configured server, in Claude Code's vocabulary plus `untrusted`."""
        out = [(n, c.status) for n, c in self.connections.items()]
        out += [(n, "failed" if n in self._skipped else "pending") for n in self.config.servers
                if n not in self.connections]
        out += [(n, "untrusted") for n in self.config.untrusted]
        return out

    def status_lines(self) -> list[str]:
        """/mcp: one line per server with what it runs, its state and its tools."""
        lines: list[str] = []
        for name, status in self.servers():
            conn = self.connections.get(name)
            cfg = self.config.servers.get(name) or self.config.untrusted.get(name)
            target = f" — {cfg.transport}: {cfg.target}" if cfg else ""
            detail = f", {len(conn.tools)} tools" if conn is not None and status == "connected" else ""
            error = f": {conn.error}" if conn is not None and conn.error and status in ("failed", "needs-auth") \
                else f": {self._skipped[name]}" if conn is None and name in self._skipped else ""
            lines.append(f"{name} [{status}{detail}{error}]{target}")
        return lines

    def prompts(self) -> list[tuple[str, Connection, dict[str, Any]]]:
        """(`mcp__server__prompt`, connection, prompt) for every prompt of every connected server."""
        from agentcli.mcp.tool import tool_name

        return [(tool_name(n, str(p.get("name", ""))), c, p) for n, c in self.connections.items() for p in c.prompts]


def log_file(name: str) -> Path:
    """Where a stdio server's stderr goes (never onto the screen)."""
    return paths.home() / "logs" / "mcp" / f"{name}.log"


__all__ = ["SEARCH_TOOL", "McpManager", "log_file"]


def _import_connection() -> Any:
    """The SDK imports httpx and anyio: the HTTP stack is imported first, by the one gate, so this thread never
    imports those packages beside another one (see net/preload.py)."""
    from agentcli.net.preload import ensure

    ensure()
    return importlib.import_module("agentcli.mcp.connection")
