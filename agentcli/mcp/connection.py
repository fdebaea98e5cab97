"""One MCP server's connection, held open by a background task for the whole session.

The task connects (bounded by the connect timeout), lists tools and prompts, then waits: change notifications
(`notifications/tools/list_changed` through the message handler on 2025-era connections, a
`subscriptions/listen` stream on 2026-era ones) re-list in the background. Any failure becomes `status =
"failed"` with one readable `error`; nothing here raises into the session. Imported in a worker thread by the
manager (the SDK takes most of a second to import), never at start-up.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

import anyio
import anyio.abc
import httpx2
import mcp_types as types
from mcp import Client
from mcp.client.context import ClientRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types.jsonrpc import CONNECTION_CLOSED

from agentcli.mcp.config import ServerConfig
from agentcli.mcp.oauth import NeedsLogin, session_auth
from agentcli.mcp.oauth_store import secrets as login_secrets
from agentcli.mcp.oauth_store import unusable as oauth_unusable
from agentcli.mcp.spawn import open_transport
from agentcli.redact import redact
from agentcli.version import __version__
from agentcli.visible import one_line

if TYPE_CHECKING:
    from agentcli.mcp.sdk_transport import SdkRequest

CLOSE_TIMEOUT_S = 3.0
TAIL_BYTES = 4096
TAIL_LINES = 5
TAIL_CHARS = 400


Elicit = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]


async def _decline(server: str, request: dict[str, Any]) -> dict[str, Any]:
    return {"action": "decline"}


class ToolCallError(Exception):
    """A tool call that did not produce a result (server gone, timed out, protocol error); its text is
    what the model reads."""


class Connection:
    """Status is pending → connected | failed (failed again after a reconnect that fails); disabled on request."""

    def __init__(self, cfg: ServerConfig, cwd: Path, log_path: Path, connect_timeout_s: float,
                 on_event: Callable[[str, str | None], None],
                 sdk: Callable[[], SdkRequest | None] = lambda: None) -> None:
        self.cfg = cfg
        self.sdk = sdk  # the SDK's control channel, asked for when an `sdk` server connects
        self.cwd = cwd
        self.log_path = log_path
        self.connect_timeout_s = connect_timeout_s
        self.on_event = on_event  # (kind, text): "connected" | "failed" | "tools" | "warning" | "withheld"
        self.status = "pending"
        self.error: str | None = None
        self.tools: list[dict[str, Any]] = []
        self.prompts: list[dict[str, Any]] = []
        self.instructions: str | None = None
        self.server_info: dict[str, str] | None = None  # the server's own name and version, once connected
        self.changes = 0  # tool-list refreshes after a list_changed notification
        self.timeout_source = ""  # " (MCP_TIMEOUT)" when the connect timeout came from there
        self.withheld: list[str] = []  # tools listed but not offered (agentcli.mcp.connection._offerable)
        # (server, `elicitation/create` params) → an ElicitResult as a dict; the manager's (decline by default)
        self.elicit: Elicit = _decline
        self.client: Client | None = None
        self.settled = asyncio.Event()
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._refresh: asyncio.Task[None] | None = None
        self._started = 0.0
        self._dirty = False
        self._gave_up = False
        self._log_start = 0  # where this start's part of the log file begins
        self._refused = False  # the server answered 401 and OAuth may be used for it: a login is what it needs
        # A sandboxed stdio server's command line, wrapped anew (agentcli.mcp.spawn.sandboxed); used once per start
        # when the sandbox gave up before the server ran (a path it covers vanished in that moment).
        self.rewrap: Callable[[], ServerConfig] | None = None
        self._rewrapped = False

    async def _on_response(self, response: httpx2.Response) -> None:
        if response.status_code == 401 and oauth_unusable(self.cfg) is None:
            self._refused = True

    def start(self) -> None:
        self.status, self.error, self._started, self._gave_up = "pending", None, time.monotonic(), False
        self._refused = False
        self._rewrapped = False
        self.settled.clear()
        self._stop.clear()
        self._task = asyncio.create_task(self._run(), name=f"mcp:{self.cfg.name}")

    async def _run(self) -> None:
        log: TextIO | None = None
        try:
            self.log_path.parent.mkdir(parents=True, exist_ok=True)
            log = self.log_path.open("a", encoding="utf-8", errors="replace")
            log.write(f"--- {time.strftime('%Y-%m-%d %H:%M:%S')} starting {self.cfg.name}\n")
            log.flush()
            self._log_start = log.tell()
            try:
                await self._serve(log, "auto")
            except Exception as err:
                if await self._wrap_again(log):
                    await self._serve(log, "auto")
                    return
                # Some 2025-era HTTP servers answer the 2026 `server/discover` probe with an HTTP error
                # instead of a JSON-RPC one, which the SDK does not take as "legacy": ask them the old way.
                if self.cfg.transport in ("stdio", "sdk") or self.status != "pending" or \
                        isinstance(err, TimeoutError) or self._refused or _raised(err, NeedsLogin):
                    raise
                log.write(f"discover failed ({describe_error(err, self.cfg)}); retrying with initialize\n")
                await self._serve(log, "auto")
        except Exception as err:  # every failure is one line for the user and an error for the model
            if self._gave_up:
                pass
            elif self._refused or _raised(err, NeedsLogin):
                self._needs_login()
            else:
                self._fail(describe_error(err, self.cfg))
        finally:
            self.client = None
            if self.status == "connected" and not self._stop.is_set():
                self._fail("the connection closed")
            self.settled.set()
            if log is not None:
                log.close()

    async def _serve(self, log: TextIO, mode: str) -> None:
        auth = session_auth(self.cfg) if self.cfg.transport in ("http", "sse") else None  # a stored OAuth login
        transport = open_transport(self.cfg, self.cwd, log, self.sdk(), auth=auth, on_response=self._on_response)
        client = Client(transport, message_handler=self._on_message,
                        list_roots_callback=self._roots, elicitation_callback=self._elicit, cache=None, mode=mode,
                        client_info=types.Implementation(name="agentcli", version=__version__))
        # One scope for connect and serve: a deadline while connecting, none after (anyio scopes must nest).
        with anyio.CancelScope(deadline=anyio.current_time() + self.connect_timeout_s) as scope:
            async with client, anyio.create_task_group() as tg:
                if self._modern(client):
                    # Subscribed before the first listing: a 2026-era server publishes changes to live
                    # subscriptions only, so one made between a listing and a later subscription would be lost.
                    await tg.start(self._listen, client)
                await self._list(client)
                scope.deadline = math.inf
                self.client, self.instructions = client, client.instructions
                info = client.server_info
                self.server_info = {"name": info.name, "version": info.version} if info else None
                self.status = "connected"
                self.settled.set()
                if self._dirty:  # a change notification arrived while connecting
                    self._refresh = asyncio.get_running_loop().create_task(self._relist())
                self.on_event("connected", None)
                await self._stop.wait()
                tg.cancel_scope.cancel()
        if scope.cancelled_caught and self.status == "pending":
            raise TimeoutError(f"did not connect within {self.connect_timeout_s:g} s{self.timeout_source}")

    async def _wrap_again(self, log: TextIO) -> bool:
        """Whether the server's sandbox gave up before the server ran (agentcli.sandbox.started): then its command
        line is wrapped anew (masking what exists now) for one more launch, this start."""
        if self.rewrap is None or self._rewrapped or self.status != "pending" or self._gave_up:
            return False
        from agentcli.sandbox.started import refused_before_start

        log.flush()
        try:
            with self.log_path.open("rb") as f:
                f.seek(self._log_start)
                said = f.read(TAIL_BYTES).decode("utf-8", "replace")
        except OSError:
            return False
        if not refused_before_start(said):
            return False
        self._rewrapped = True
        self.cfg = await asyncio.to_thread(self.rewrap)
        log.write("the sandbox gave up before the server ran (a path it covers vanished); starting it again\n")
        log.flush()
        self._log_start = log.tell()
        return True

    def _modern(self, client: Client) -> bool:
        caps = client.server_capabilities
        wants = bool(caps.tools and caps.tools.list_changed) or bool(caps.prompts and caps.prompts.list_changed)
        return wants and (client.protocol_version or "") >= "2026"

    async def _listen(self, client: Client, *, task_status: anyio.abc.TaskStatus[None]) -> None:
        """2026-era servers send changes on a `subscriptions/listen` stream, not as loose notifications."""
        started = False
        try:
            async with client.listen(tools_list_changed=True, prompts_list_changed=True) as sub:
                task_status.started()
                started = True
                async for _event in sub:
                    self._changed()
        except Exception:  # a server that cannot listen simply sends no changes
            if not started:
                task_status.started()

    async def _list(self, client: Client) -> None:
        caps = client.server_capabilities
        tools: list[dict[str, Any]] = []
        cursor: str | None = None
        for _ in range(100):
            page = await client.list_tools(cursor=cursor)
            tools += [t.model_dump(by_alias=True, exclude_none=True, mode="json") for t in page.tools]
            cursor = page.next_cursor
            if not cursor:
                break
        tools = self._offerable(tools)
        prompts: list[dict[str, Any]] = []
        if caps.prompts is not None:
            with contextlib.suppress(MCPError):
                listed = await client.list_prompts()
                prompts = [p.model_dump(by_alias=True, exclude_none=True, mode="json") for p in listed.prompts]
        self.tools, self.prompts = tools, prompts

    def _offerable(self, tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The tools agentcli can call: not those that only run as a task (`execution.taskSupport: required`,
        2025-11-25), a capability agentcli does not implement; each withheld tool is said once."""
        withheld = [str(t.get("name")) for t in tools if (t.get("execution") or {}).get("taskSupport") == "required"]
        new = [n for n in withheld if n not in self.withheld]
        if new:
            self.withheld += new
            self.on_event("withheld", ", ".join(new))
        return [t for t in tools if str(t.get("name")) not in withheld]

    async def _elicit(self, context: ClientRequestContext,
                      params: types.ElicitRequestParams) -> types.ElicitResult:
        """A server asks the user for input (`elicitation/create`): the front end's answer, or a decline."""
        request = params.model_dump(by_alias=True, exclude_none=True, mode="json")
        try:
            answer = await self.elicit(self.cfg.name, request)
            return types.ElicitResult.model_validate(answer)
        except Exception:  # a broken answer is a cancel, never a failed session
            return types.ElicitResult(action="cancel")

    async def _on_message(self, message: Any) -> None:
        method = getattr(message, "method", None)
        if method in ("notifications/tools/list_changed", "notifications/prompts/list_changed"):
            self._changed()

    def _changed(self) -> None:
        """A list changed (a loose notification, or an event of the `listen` stream; the SDK hands a 2026-era
        event to both): one re-list, tracked, so the next request waits for it (`wait_refreshed`)."""
        if self.client is None or (self._refresh is not None and not self._refresh.done()):
            self._dirty = True  # one more re-list when this one ends (or once connected): a burst costs two
            return
        # Re-list outside the dispatcher's task: a request sent from inside its handler would wait on itself.
        self._refresh = asyncio.get_running_loop().create_task(self._relist())

    async def _relist(self) -> None:
        client = self.client
        if client is None:
            self._dirty = True
            return
        before = [t.get("name") for t in self.tools]
        for _ in range(3):
            self._dirty = False
            try:
                await self._list(client)
            except Exception as err:
                self.on_event("warning", f"could not re-list its tools: {describe_error(err, self.cfg)}")
                return
            if not self._dirty:
                break
        self.changes += 1
        if [t.get("name") for t in self.tools] != before:
            self.on_event("tools", None)

    async def _roots(self, context: ClientRequestContext) -> types.ListRootsResult:
        root = types.Root.model_validate({"uri": self.cwd.resolve().as_uri(), "name": self.cwd.name})
        return types.ListRootsResult(roots=[root])

    def _lost(self, error: str) -> None:
        if self.status == "connected":
            # A server that refused its token (revoked, or expired early) ends the connection: a login is what
            # it needs, not a restart.
            if self._refused:
                self._needs_login()
            else:
                self._fail(error)
        self._stop.set()

    def give_up(self, why: str) -> None:
        """A connect that took too long for the run waiting on it: failed now, its attempt stopped."""
        if self.status != "pending":
            return
        self._gave_up = True
        self._fail(why)
        task = self._task
        if task is not None and not task.done():
            task.cancel()

    def stderr_tail(self) -> str:
        """The last lines a stdio server wrote to its stderr since it was started (secrets redacted), for the
        notice that says it failed; "" when it wrote none."""
        if self.cfg.transport != "stdio":
            return ""
        try:
            with self.log_path.open("rb") as f:
                f.seek(max(self._log_start, f.seek(0, 2) - TAIL_BYTES))
                raw = f.read(TAIL_BYTES)
        except OSError:
            return ""
        from agentcli.sandbox.started import STDERR_MARK

        lines = [" ".join(ln.split()) for ln in raw.decode("utf-8", "replace").splitlines()]
        text = " | ".join([ln for ln in lines if ln and ln != STDERR_MARK][-TAIL_LINES:])
        text = one_line(redact(text, self.cfg.secrets()))  # a server's bytes must not act on the terminal
        return text if len(text) <= TAIL_CHARS else "…" + text[-TAIL_CHARS:]

    def _needs_login(self) -> None:
        """Claude Code's `needs-auth`: the server wants an OAuth login this connection cannot do; the user can."""
        name = self.cfg.name
        self.status, self.tools, self.prompts = "needs-auth", [], []
        self.error = f"needs authentication: run `agentcli mcp login {name}` (or /mcp login {name} in the REPL)"
        self.settled.set()
        self.on_event("needs-auth", self.error)

    def _fail(self, error: str) -> None:
        self.status, self.error, self.tools, self.prompts = "failed", error, [], []
        self.settled.set()
        self.on_event("failed", error)

    async def wait_refreshed(self, timeout_s: float) -> None:
        """Let a re-list that a notification started finish, so the next turn sees the new tools."""
        task = self._refresh
        if task is not None and not task.done():
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(task), timeout_s)

    async def call(self, name: str, args: dict[str, Any], timeout_s: float) -> dict[str, Any]:
        """`tools/call` → the result as a dict (wire shape); ToolCallError with a readable message otherwise."""
        client = self.client
        if client is None:
            raise ToolCallError(self.unavailable())
        try:
            with anyio.fail_after(timeout_s):
                result = await client.call_tool(name, args)
        except TimeoutError as err:
            raise ToolCallError(f"MCP server '{self.cfg.name}' did not answer within {timeout_s:g} s") from err
        except MCPError as err:
            if err.error.code != CONNECTION_CLOSED:
                raise ToolCallError(f"MCP server '{self.cfg.name}' returned an error: {err.error.message}") from err
            self._lost("the server closed the connection (exited?)")
            raise ToolCallError(self.unavailable()) from err
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, OSError) as err:
            self._lost(f"disconnected ({type(err).__name__})")
            raise ToolCallError(self.unavailable()) from err
        except ValueError as err:  # pydantic's ValidationError: an answer that is not a tools/call result
            raise ToolCallError(f"MCP server '{self.cfg.name}' answered with something that is not a tool "
                                "result") from err
        return result.model_dump(by_alias=True, exclude_none=True, mode="json")

    async def get_prompt(self, name: str, args: dict[str, str], timeout_s: float) -> dict[str, Any]:
        client = self.client
        if client is None:
            raise ToolCallError(self.unavailable())
        with anyio.fail_after(timeout_s):
            result = await client.get_prompt(name, args)
        return result.model_dump(by_alias=True, exclude_none=True, mode="json")

    async def read_resource(self, uri: str, timeout_s: float) -> dict[str, Any]:
        client = self.client
        if client is None:
            raise ToolCallError(self.unavailable())
        with anyio.fail_after(timeout_s):
            result = await client.read_resource(uri)
        return result.model_dump(by_alias=True, exclude_none=True, mode="json")

    async def disable(self) -> None:
        """Disconnect and offer nothing until started again (`mcp_toggle` of the Claude Agent SDK)."""
        await self.close()
        self.status, self.error, self.tools, self.prompts = "disabled", None, [], []
        self.settled.set()

    def unavailable(self) -> str:
        if self.status == "disabled":
            return f"MCP server '{self.cfg.name}' is disabled; its tools cannot run."
        if self.status == "pending":
            return f"MCP server '{self.cfg.name}' is still connecting; try again shortly."
        if self.status == "needs-auth":
            return (f"MCP server '{self.cfg.name}' needs the user to log in (agentcli mcp login {self.cfg.name}); "
                    "its tools cannot run until then.")
        return f"MCP server '{self.cfg.name}' is not connected ({self.error or 'stopped'}); its tools cannot run."

    async def close(self) -> None:
        self._stop.set()
        task = self._task
        if task is not None and not task.done():
            try:
                await asyncio.wait_for(asyncio.shield(task), CLOSE_TIMEOUT_S)
            except (TimeoutError, asyncio.CancelledError):
                task.cancel()
            except Exception:  # closing must never fail the session's end
                pass


def _raised(err: BaseException, kind: type[BaseException]) -> bool:
    """Whether `kind` is `err`, inside its exception groups, or what caused it."""
    seen: set[int] = set()
    todo: list[BaseException | None] = [err]
    while todo:
        e = todo.pop()
        if e is None or id(e) in seen:
            continue
        seen.add(id(e))
        if isinstance(e, kind):
            return True
        if isinstance(e, BaseExceptionGroup):
            todo += list(e.exceptions)
        todo += [e.__cause__, e.__context__]
    return False


async def probe(cfg: ServerConfig, cwd: Path, auth: httpx2.Auth) -> int:
    """Connect once with `auth` (a login in progress: the SDK runs its flow on the server's 401), list the tools,
    disconnect: how many tools the server offers."""
    import io

    client = Client(open_transport(cfg, cwd, io.StringIO(), auth=auth), cache=None,
                    client_info=types.Implementation(name="agentcli", version=__version__))
    async with client:
        count = 0
        cursor: str | None = None
        for _ in range(100):
            page = await client.list_tools(cursor=cursor)
            count += len(page.tools)
            cursor = page.next_cursor
            if not cursor:
                break
        return count


def describe_error(err: BaseException, cfg: ServerConfig) -> str:
    """One line for an exception out of the SDK; never a URL's query string or a header value."""
    if isinstance(err, BaseExceptionGroup):
        inner = err.exceptions[0] if err.exceptions else err
        return describe_error(inner, cfg)
    if isinstance(err, FileNotFoundError) and cfg.transport == "stdio":
        return f"command not found: {cfg.command}"
    if isinstance(err, PermissionError) and cfg.transport == "stdio":
        return f"command not executable: {cfg.command}"
    if isinstance(err, TimeoutError):
        return str(err) or "timed out"
    text = err.error.message if isinstance(err, MCPError) else (str(err) or type(err).__name__)
    if cfg.url:
        text = text.replace(cfg.url, cfg.target)
    text = one_line(redact(text, [*cfg.secrets(), *login_secrets(cfg)]))
    return " ".join(text.split())[:300]
