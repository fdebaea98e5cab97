"""SDK MCP servers (`"type": "sdk"`) over an injected control channel: the `mcp_message` callable is a fake
standing in for agentcli's SDK channel, and behind it the real SDK's own server side (`create_sdk_mcp_server`
with `@tool` functions, served by the SDK's bridge), so the only thing faked is the stdin/stdout hop."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from claude_agent_sdk import create_sdk_mcp_server, tool
from claude_agent_sdk._internal.sdk_mcp_bridge import SdkMcpBridge

from agentcli.errors import ConfigError, UsageError
from agentcli.mcp import config as mcp_config
from agentcli.mcp.config import McpConfig, ServerConfig, load, parse_entry
from agentcli.mcp.connection import Connection, ToolCallError
from agentcli.mcp.control import handlers
from agentcli.mcp.manager import McpManager
from agentcli.mcp.sdk_transport import MAX_REPLY_CHARS, SdkReplyError, check_reply
from agentcli.mcp.status import mcp_status

Tamper = Callable[[dict[str, Any], dict[str, Any]], Awaitable[dict[str, Any]]]


@tool("add", "Add two numbers", {"a": float, "b": float})
async def add(args: dict[str, Any]) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": f"Sum: {args['a'] + args['b']:g}"}]}


@tool("explode", "Always fails", {})
async def explode(args: dict[str, Any]) -> dict[str, Any]:
    raise RuntimeError("the calculator caught fire")


@tool("slow", "Waits until released", {})
async def slow(args: dict[str, Any]) -> dict[str, Any]:
    await asyncio.Event().wait()
    return {"content": []}


class LegacySdk:
    """The SDK over an `mcp` 1.x server: the 2026 `server/discover` probe is a method it does not know."""

    def __init__(self, inner: FakeSdk) -> None:
        self.inner = inner
        self.methods: list[str] = []

    async def request(self, subtype: str, payload: dict[str, Any]) -> dict[str, Any]:
        message = payload["message"]
        self.methods.append(str(message.get("method")))
        if message.get("method") == "server/discover":
            return {"mcp_response": {"jsonrpc": "2.0", "id": message["id"],
                                     "error": {"code": -32601, "message": "Method not found"}}}
        return await self.inner.request(subtype, payload)


class FakeSdk:
    """What the SDK does with `mcp_message`: route the JSON-RPC message to the named in-process server and answer
    `{"mcp_response": …}`. `tamper(message, reply)` rewrites the reply to a `tools/call`, as a hostile or broken
    application could."""

    def __init__(self, **servers: Any) -> None:
        self.bridges = {name: SdkMcpBridge(name, cfg["instance"]) for name, cfg in servers.items()}
        self.seen: list[tuple[str, dict[str, Any]]] = []
        self.tamper: Tamper | None = None

    async def request(self, subtype: str, payload: dict[str, Any]) -> dict[str, Any]:
        assert subtype == "mcp_message"
        name, message = payload["server_name"], payload["message"]
        json.dumps(payload)  # what travels must be plain JSON
        self.seen.append((name, message))
        bridge = self.bridges.get(name)
        if bridge is None:
            raise RuntimeError(f"Server '{name}' not found")
        reply = await bridge.handle(message) or {"jsonrpc": "2.0", "result": {}}
        if self.tamper is not None and message.get("method") == "tools/call":
            return await self.tamper(message, {"mcp_response": reply})
        return {"mcp_response": reply}

    async def aclose(self) -> None:
        for bridge in self.bridges.values():
            await bridge.aclose()


def sdk_cfg(name: str = "calc") -> ServerConfig:
    return ServerConfig(name, "sdk", "flag", "--mcp-config")


async def connected(sdk: FakeSdk | None, tmp_path: Path, name: str = "calc") -> Connection:
    events: list[tuple[str, str | None]] = []
    conn = Connection(sdk_cfg(name), tmp_path, tmp_path / "log", 10.0, lambda k, t: events.append((k, t)),
                      lambda: sdk.request if sdk else None)
    conn.start()
    await asyncio.wait_for(conn.settled.wait(), 10)
    return conn


def calculator() -> FakeSdk:
    return FakeSdk(calc=create_sdk_mcp_server("calculator", tools=[add, explode, slow]))


def test_lists_and_calls_tools_over_the_control_channel(tmp_path: Path) -> None:
    async def main() -> None:
        sdk = calculator()
        conn = await connected(sdk, tmp_path)
        try:
            assert conn.status == "connected", conn.error
            assert [t["name"] for t in conn.tools] == ["add", "explode", "slow"]
            assert conn.tools[0]["inputSchema"]["properties"] == {"a": {"type": "number"}, "b": {"type": "number"}}
            result = await conn.call("add", {"a": 2, "b": 40}, 10)
            assert result["content"] == [{"type": "text", "text": "Sum: 42"}] and not result.get("isError")
            failed = await conn.call("explode", {}, 10)
            assert failed["isError"] and "caught fire" in failed["content"][0]["text"]
            both = await asyncio.gather(conn.call("add", {"a": 1, "b": 1}, 10), conn.call("add", {"a": 3, "b": 4}, 10))
            assert [r["content"][0]["text"] for r in both] == ["Sum: 2", "Sum: 7"]  # answers matched by id
        finally:
            await conn.close()
            await sdk.aclose()
        assert {name for name, _ in sdk.seen} == {"calc"}
        methods = [m.get("method") for _, m in sdk.seen]
        assert "tools/list" in methods and methods.count("tools/call") == 4

    asyncio.run(main())


def hostile(reply: Callable[[dict[str, Any], dict[str, Any]], Any]) -> Tamper:
    async def tamper(message: dict[str, Any], good: dict[str, Any]) -> dict[str, Any]:
        return reply(message, good)  # type: ignore[no-any-return]
    return tamper


HOSTILE: dict[str, Callable[[dict[str, Any], dict[str, Any]], Any]] = {
    "wrong id": lambda m, g: {"mcp_response": {**g["mcp_response"], "id": 9999}},
    "id of another type": lambda m, g: {"mcp_response": {**g["mcp_response"], "id": str(m["id"])}},
    "huge": lambda m, g: {"mcp_response": {**g["mcp_response"], "result": {
        "content": [{"type": "text", "text": "x" * (MAX_REPLY_CHARS + 1)}]}}},
    "not JSON-RPC": lambda m, g: {"mcp_response": "Sum: 42"},
    "no mcp_response": lambda m, g: {"answer": 42},
    "not an object": lambda m, g: ["mcp_response"],
    "a request instead": lambda m, g: {"mcp_response": {"jsonrpc": "2.0", "id": m["id"], "method": "sampling/x"}},
    "bad envelope": lambda m, g: {"mcp_response": {"jsonrpc": "1.0", "id": m["id"], "result": {}}},
}


def test_a_reply_that_is_not_a_tool_result_is_a_tool_error(tmp_path: Path) -> None:
    """Well-formed JSON-RPC, right id, but not MCP's `tools/call` result (a stdio server could send it too)."""
    async def main() -> None:
        sdk = calculator()
        conn = await connected(sdk, tmp_path)
        sdk.tamper = hostile(lambda m, g: {"mcp_response": {"jsonrpc": "2.0", "id": m["id"],
                                                            "result": {"content": "not a list"}}})
        try:
            with pytest.raises(ToolCallError, match=r"^MCP server 'calc' answered with something that is not a"):
                await conn.call("add", {"a": 2, "b": 40}, 10)
        finally:
            await conn.close()
            await sdk.aclose()

    asyncio.run(main())


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_a_hostile_reply_is_a_tool_error_and_the_server_stays_usable(tmp_path: Path, kind: str) -> None:
    async def main() -> None:
        sdk = calculator()
        conn = await connected(sdk, tmp_path)
        try:
            sdk.tamper = hostile(HOSTILE[kind])
            with pytest.raises(ToolCallError, match="MCP server 'calc' returned an error: the SDK"):
                await conn.call("add", {"a": 2, "b": 40}, 10)
            sdk.tamper = None
            assert (await conn.call("add", {"a": 1, "b": 2}, 10))["content"][0]["text"] == "Sum: 3"
            assert conn.status == "connected"
        finally:
            await conn.close()
            await sdk.aclose()

    asyncio.run(main())


def test_an_sdk_without_server_discover_is_asked_with_initialize(tmp_path: Path) -> None:
    async def main() -> None:
        sdk = calculator()
        legacy = LegacySdk(sdk)
        conn = Connection(sdk_cfg(), tmp_path, tmp_path / "log", 10.0, lambda k, t: None, lambda: legacy.request)
        conn.start()
        await asyncio.wait_for(conn.settled.wait(), 10)
        try:
            assert conn.status == "connected", conn.error
            assert legacy.methods[:2] == ["server/discover", "initialize"]
            assert (await conn.call("add", {"a": 1, "b": 2}, 10))["content"][0]["text"] == "Sum: 3"
        finally:
            await conn.close()
            await sdk.aclose()

    asyncio.run(main())


def test_control_errors_and_timeouts_are_tool_errors(tmp_path: Path) -> None:
    async def main() -> None:
        sdk = calculator()
        conn = await connected(sdk, tmp_path)

        async def refuse(message: dict[str, Any], good: dict[str, Any]) -> dict[str, Any]:
            raise RuntimeError("Stream closed\n" + "detail " * 200)
        try:
            sdk.tamper = refuse
            with pytest.raises(ToolCallError) as err:
                await conn.call("add", {"a": 2, "b": 40}, 10)
            assert "returned an error: Stream closed detail" in str(err.value) and "\n" not in str(err.value)
            assert len(str(err.value)) < 400
            sdk.tamper = None
            with pytest.raises(ToolCallError, match="did not answer within"):
                await conn.call("slow", {}, 0.3)
            assert (await conn.call("add", {"a": 0, "b": 0}, 10))["content"][0]["text"] == "Sum: 0"
        finally:
            await conn.close()
            await sdk.aclose()

    asyncio.run(main())


def test_an_unknown_server_name_fails_the_connection_not_the_run(tmp_path: Path) -> None:
    async def main() -> None:
        sdk = calculator()
        conn = await connected(sdk, tmp_path, name="other")
        await sdk.aclose()
        assert conn.status == "failed" and "not found" in (conn.error or "")

    asyncio.run(main())


def test_without_an_sdk_the_server_is_failed_with_a_notice(tmp_path: Path) -> None:
    """Plain `-p` or the REPL with an sdk server in --mcp-config: a notice and a failed server, nothing else."""
    async def main() -> None:
        manager = McpManager(McpConfig(servers={"calc": sdk_cfg()}), tmp_path, grace_s=30)
        manager.start()
        await manager.refresh()
        try:
            assert manager.servers() == [("calc", "failed")]
            notices = [text for _, text in manager.notices()]
            assert len(notices) == 1 and "MCP server 'calc' failed:" in notices[0]
            assert "no SDK drives this run" in notices[0] and "log:" not in notices[0]
            assert manager.tools() == []
            assert "not connected" in str(manager.lookup("mcp__calc__add"))
        finally:
            await manager.aclose()

    asyncio.run(main())


def test_the_manager_routes_calls_through_an_attached_sdk(tmp_path: Path) -> None:
    async def main() -> None:
        sdk = calculator()
        manager = McpManager(McpConfig(servers={"calc": sdk_cfg()}), tmp_path, grace_s=30)
        manager.start()
        manager.attach_sdk(sdk.request)
        await manager.refresh()
        try:
            assert manager.servers() == [("calc", "connected")]
            names = [t.name for t in manager.tools()]
            assert names == ["mcp__calc__add", "mcp__calc__explode", "mcp__calc__slow"]
        finally:
            await manager.aclose()
            await sdk.aclose()

    asyncio.run(main())


def test_the_first_request_waits_for_sdk_servers_beyond_the_grace(tmp_path: Path) -> None:
    """The application's own tools are there on its first turn, even when loading `mcp` outlasts the grace."""
    async def main() -> None:
        sdk = calculator()
        manager = McpManager(McpConfig(servers={"calc": sdk_cfg()}), tmp_path, grace_s=0)
        manager.attach_sdk(sdk.request)
        manager.start()
        await manager.refresh()
        try:
            assert manager.servers() == [("calc", "connected")]
            assert [t.name for t in manager.tools()][:1] == ["mcp__calc__add"]
        finally:
            await manager.aclose()
            await sdk.aclose()

    asyncio.run(main())


def test_mcp_status_in_claude_codes_shape(tmp_path: Path) -> None:
    async def main() -> None:
        sdk = calculator()
        secret = "tok-0123456789abcdef"
        servers = {"calc": sdk_cfg(), "gone": sdk_cfg("gone"),
                   "web": ServerConfig("web", "http", "user", "config.toml", url="http://127.0.0.1:9/mcp?key=" + secret,
                                       headers={"Authorization": secret}),
                   "cmd": ServerConfig("cmd", "stdio", "local", "x", command=str(tmp_path / "missing"),
                                       args=("--token", secret, "--api-key=sk-proj-AbC123dEf456GhI789jKl0",
                                             "--db", "postgres://app:s3cr3t-pw@db:5432/x"), env={"TOKEN": secret})}
        untrusted = {"repo": ServerConfig("repo", "stdio", "project", ".mcp.json", command="srv")}
        manager = McpManager(McpConfig(servers=servers, untrusted=untrusted), tmp_path, grace_s=30)
        manager.attach_sdk(sdk.request)
        manager.start()
        await manager.refresh()
        try:
            report = mcp_status(manager)
        finally:
            await manager.aclose()
            await sdk.aclose()
        assert secret not in json.dumps(report)
        by_name = {s["name"]: s for s in report["mcpServers"]}
        calc = by_name["calc"]
        assert calc["status"] == "connected" and calc["scope"] == "dynamic"
        assert calc["config"] == {"type": "sdk", "name": "calc"}
        assert calc["serverInfo"] == {"name": "calculator", "version": "1.0.0"}
        assert [t["name"] for t in calc["tools"]] == ["add", "explode", "slow"]
        assert by_name["gone"]["status"] == "failed" and "not found" in by_name["gone"]["error"]
        assert by_name["cmd"]["status"] == "failed" and by_name["cmd"]["config"]["args"] == [
            "--token", "[REDACTED]", "--api-key=[REDACTED]", "--db", "postgres://app:[REDACTED]@db:5432/x"]
        assert by_name["web"]["config"] == {"type": "http", "url": "http://127.0.0.1:9/mcp"}
        assert by_name["repo"]["status"] == "disabled" and "not trusted" in by_name["repo"]["error"]
        assert by_name["repo"]["scope"] == "project"

    asyncio.run(main())


def test_mcp_toggle_and_reconnect(tmp_path: Path) -> None:
    async def main() -> None:
        sdk = calculator()
        manager = McpManager(McpConfig(servers={"calc": sdk_cfg()}), tmp_path, grace_s=30)
        manager.attach_sdk(sdk.request)
        manager.start()
        await manager.refresh()
        control = handlers(lambda: manager)
        try:
            assert await control["mcp_toggle"]({"serverName": "calc", "enabled": False}) == {}
            assert manager.servers() == [("calc", "disabled")] and manager.tools() == []
            assert "'calc' is disabled" in str(manager.lookup("mcp__calc__add"))
            assert (await control["mcp_status"]({}))["mcpServers"][0]["status"] == "disabled"
            await control["mcp_toggle"]({"serverName": "calc", "enabled": True})
            assert manager.servers() == [("calc", "connected")] and len(manager.tools()) == 3
            await control["mcp_reconnect"]({"serverName": "calc"})
            assert manager.servers() == [("calc", "connected")]
            conn = manager.connections["calc"]
            assert (await conn.call("add", {"a": 1, "b": 1}, 10))["content"][0]["text"] == "Sum: 2"
            for bad in ({"serverName": "nope", "enabled": True}, {"serverName": "calc", "enabled": "no"}, {}):
                with pytest.raises(UsageError):
                    await control["mcp_toggle"](bad)
            with pytest.raises(UsageError, match="'nope' not found"):
                await control["mcp_reconnect"]({"serverName": "nope"})
        finally:
            await manager.aclose()
            await sdk.aclose()
        assert await handlers(lambda: None)["mcp_status"]({}) == {"mcpServers": []}

    asyncio.run(main())


def test_servers_declared_by_name_start_before_and_after_the_others(tmp_path: Path) -> None:
    """`initialize.sdkMcpServers`: names declared while the manager boots, and after it has booted."""
    async def main() -> None:
        sdk = FakeSdk(**{name: create_sdk_mcp_server(name, tools=[add]) for name in ("calc", "early", "late")})
        manager = McpManager(McpConfig(servers={"calc": sdk_cfg()}), tmp_path, grace_s=30)
        manager.attach_sdk(sdk.request)
        manager.start()
        manager.declare_sdk(["early", "calc"])
        await manager.refresh()
        try:
            assert sorted(manager.servers()) == [("calc", "connected"), ("early", "connected")]
            manager.declare_sdk(["late"])
            assert manager._boot is not None
            await manager._boot  # the second boot: only what was not started yet
            await asyncio.wait_for(manager.connections["late"].settled.wait(), 10)
            assert sorted(manager.servers()) == [("calc", "connected"), ("early", "connected"),
                                                 ("late", "connected")]
            assert "mcp__late__add" in [t.name for t in manager.tools()]
            assert manager.config.servers["late"].origin == "initialize"
        finally:
            await manager.aclose()
            await sdk.aclose()

    asyncio.run(main())


def test_only_the_sdk_itself_may_declare_an_sdk_server(tmp_path: Path) -> None:
    entry = {"type": "sdk", "name": "calculator"}
    cfg = parse_entry("calc", entry, "flag", "--mcp-config", {})
    assert (cfg.name, cfg.transport) == ("calc", "sdk") and "Claude Agent SDK" in cfg.target
    for scope in ("project", "user", "local"):
        with pytest.raises(ConfigError, match="only accepted from --mcp-config"):
            parse_entry("calc", entry, scope, ".mcp.json", {})
    (tmp_path / mcp_config.MCP_JSON).write_text(json.dumps({"mcpServers": {"calc": entry}}))
    flag = json.dumps({"mcpServers": {"calc2": entry}})
    loaded = load(tmp_path, [flag])
    assert list(loaded.servers) == ["calc2"]
    assert any("only accepted from --mcp-config" in p for p in loaded.problems)


def test_check_reply_accepts_only_the_answer_to_its_request() -> None:
    ok = check_reply({"mcp_response": {"jsonrpc": "2.0", "id": 3, "result": {"tools": []}}}, 3)
    assert ok.id == 3
    err = check_reply({"mcp_response": {"jsonrpc": "2.0", "id": None, "error": {"code": -1, "message": "no"}}}, 3)
    assert err.id == 3  # `"id": null` means "could not tell": it can only be ours
    for bad in ({"mcp_response": {"jsonrpc": "2.0", "id": 4, "result": {}}},
                {"mcp_response": {"jsonrpc": "2.0", "id": True, "result": {}}},
                {"mcp_response": {"jsonrpc": "2.0", "method": "notifications/x"}},
                {"mcp_response": {"jsonrpc": "2.0", "id": 3, "result": {"x": float("nan")}}},
                {"mcp_response": {"jsonrpc": "2.0", "id": 3, "result": {"x": {1, 2}}}}):
        with pytest.raises(SdkReplyError):
            check_reply(bad, 3)


def test_a_call_the_sdk_never_answers_is_given_up_when_it_times_out(tmp_path: Path) -> None:
    """An SDK that neither answers a tools/call nor heeds its cancellation: the wait for its control response is
    cancelled with the call (so the channel tells the SDK), not held until the session ends."""
    async def main() -> None:
        sdk = calculator()
        conn = await connected(sdk, tmp_path)
        waits: list[str] = []
        given_up = asyncio.Event()

        async def never(message: dict[str, Any], good: dict[str, Any]) -> dict[str, Any]:
            waits.append("waiting")
            try:
                await asyncio.Event().wait()
            finally:
                waits.append("given up")
                given_up.set()
            return good

        try:
            sdk.tamper = never
            with pytest.raises(ToolCallError, match=r"did not answer within 0.3 s"):
                await conn.call("add", {"a": 1, "b": 2}, 0.3)
            with contextlib.suppress(TimeoutError):  # the cancellation notice travels on a task of its own
                await asyncio.wait_for(given_up.wait(), 5)
            assert waits == ["waiting", "given up"]
            assert any(m.get("method") == "notifications/cancelled" for _, m in sdk.seen)
            sdk.tamper = None
            assert (await conn.call("add", {"a": 1, "b": 2}, 10))["content"][0]["text"] == "Sum: 3"
        finally:
            await conn.close()
            await sdk.aclose()

    asyncio.run(main())


def test_tools_whose_names_meet_once_made_safe_stay_distinct_tools(tmp_path: Path) -> None:
    """`get.time` beside `get_time`, and two long names alike in their first 55 characters: each is offered
    under a name of its own (none silently shadowed), each call reaches its own tool, and names stay within
    every provider's 64 characters."""
    long_a, long_b = "fetch_the_repository_contents_for_a_given_path_and_ref_version_one", \
        "fetch_the_repository_contents_for_a_given_path_and_ref_version_two"
    made = [tool(n, f"the {n} tool", {})(_answer_with(n)) for n in ("get.time", "get_time", long_a, long_b)]

    async def main() -> None:
        sdk = FakeSdk(calc=create_sdk_mcp_server("calculator", tools=made))
        manager = McpManager(McpConfig(servers={"calc": sdk_cfg()}), tmp_path, grace_s=30)
        manager.start()
        manager.attach_sdk(sdk.request)
        await manager.refresh()
        try:
            tools = manager.tools()
            names = [t.name for t in tools]
            assert len(set(names)) == 4 and all(len(n) <= 64 for n in names), names
            assert names[0] == "mcp__calc__get_time" and names[1].startswith("mcp__calc__get_time_")
            for t in tools:
                result = await t.conn.call(t.remote_name, {}, 10)
                assert result["content"][0]["text"] == f"I am {t.remote_name}"
        finally:
            await manager.aclose()
            await sdk.aclose()

    asyncio.run(main())


def _answer_with(name: str) -> Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]:
    async def answer(args: dict[str, Any]) -> dict[str, Any]:
        return {"content": [{"type": "text", "text": f"I am {name}"}]}

    return answer
