"""Issue 18, acceptance 4: the real Claude Agent SDK from PyPI drives agentcli (`cli_path`) against the fake LLM;
an in-process SDK MCP server (`@tool` + `create_sdk_mcp_server`) is offered to the model, the model calls it, the
Python function runs in the test's own process, and the model's next request carries its result."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from claude_agent_sdk import (
    AssistantMessage,
    ClaudeAgentOptions,
    ClaudeSDKClient,
    PermissionResultAllow,
    ResultMessage,
    SystemMessage,
    ToolPermissionContext,
    ToolUseBlock,
    create_sdk_mcp_server,
    query,
    tool,
)

from tests.cli.helpers import provider_env
from tests.fakes.script import Reply, ToolCall
from tests.fakes.server import FakeLLM
from tests.mcp.conftest import TIME_SERVER, require
from tests.mcp.test_acceptance_e2e import results, text
from tests.sdk.helpers import MODEL, Sdk, make_sdk, user


class Calculator:
    """Tools whose calls the test can see: they run here, in the SDK application's process."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

        @tool("add", "Add two numbers", {"a": float, "b": float})
        async def add(args: dict[str, Any]) -> dict[str, Any]:
            self.calls.append(args)
            return {"content": [{"type": "text", "text": f"Sum: {args['a'] + args['b']:g}"}]}

        @tool("divide", "Divide a by b", {"a": float, "b": float})
        async def divide(args: dict[str, Any]) -> dict[str, Any]:
            self.calls.append(args)
            return {"content": [{"type": "text", "text": f"Quotient: {args['a'] / args['b']:g}"}]}

        self.server = create_sdk_mcp_server("calculator", version="2.0.0", tools=[add, divide])


def options(tmp_path: Path, fake: FakeLLM, grace: float | None = None, **kw: Any) -> ClaudeAgentOptions:
    """With the default grace, the first request waits for SDK servers (only); `grace` for other servers."""
    files = {"README.md": "x\n"}
    if grace is not None:
        files[".agentcli/settings.local.toml"] = f"mcp_grace_s = {grace}\n"
    return make_sdk(tmp_path, fake, files).options(**kw)


def offered(fake: FakeLLM, index: int) -> dict[str, Any]:
    return {t["name"]: t for t in fake.requests[index].body.get("tools", [])}


def test_query_calls_an_in_process_sdk_tool(tmp_path: Path, fake_llm: FakeLLM) -> None:
    calc = Calculator()
    fake_llm.push(Reply(tool_calls=[ToolCall("mcp__calc__add", {"a": 2, "b": 40}, id="t1"),
                                    ToolCall("mcp__calc__divide", {"a": 1, "b": 0}, id="t2")]),
                  Reply(text="2 + 40 = 42"))
    opts = options(tmp_path, fake_llm, mcp_servers={"calc": calc.server},
                   allowed_tools=["mcp__calc__add", "mcp__calc__divide"])

    async def main() -> list[Any]:
        return [m async for m in query(prompt="what is 2 + 40?", options=opts)]

    messages = asyncio.run(main())
    assert calc.calls == [{"a": 2, "b": 40}, {"a": 1, "b": 0}]
    tools = offered(fake_llm, 0)
    assert tools["mcp__calc__add"]["input_schema"]["properties"] == {"a": {"type": "number"},
                                                                    "b": {"type": "number"}}
    assert tools["mcp__calc__add"]["description"] == "Add two numbers"
    got = results(fake_llm.requests)
    assert text(got["t1"]) == "Sum: 42" and not got["t1"].get("is_error")
    assert got["t2"]["is_error"] and "division by zero" in text(got["t2"])  # the tool raised: the model reads it
    init = next(m for m in messages if isinstance(m, SystemMessage) and m.subtype == "init")
    assert {"name": "calc", "status": "connected"} in init.data["mcp_servers"]
    assert {"mcp__calc__add", "mcp__calc__divide"} <= set(init.data["tools"])
    uses = [b.name for m in messages if isinstance(m, AssistantMessage) for b in m.content
            if isinstance(b, ToolUseBlock)]
    assert uses == ["mcp__calc__add", "mcp__calc__divide"]
    result = messages[-1]
    assert isinstance(result, ResultMessage) and result.result == "2 + 40 = 42" and not result.is_error


def test_client_session_asks_can_use_tool_and_keeps_the_sdk_server_beside_a_stdio_one(
        tmp_path: Path, fake_llm: FakeLLM) -> None:
    calc = Calculator()
    time_server = str(require(TIME_SERVER))
    fake_llm.push(Reply(tool_calls=[ToolCall("mcp__calc__add", {"a": 1, "b": 2}, id="a1")]), Reply(text="three"),
                  Reply(tool_calls=[ToolCall("mcp__calc__add", {"a": 3, "b": 4}, id="a2"),
                                    ToolCall("mcp__time__get_current_time", {"timezone": "UTC"}, id="z1")]),
                  Reply(text="seven"))
    asked: list[tuple[str, dict[str, Any]]] = []

    async def can_use_tool(name: str, args: dict[str, Any], ctx: ToolPermissionContext) -> Any:
        """Not pre-allowed, the SDK tool asks the application, whose answer rewrites its input."""
        asked.append((name, args))
        if name == "mcp__calc__add" and args["a"] == 3:
            return PermissionResultAllow(updated_input={**args, "b": 100})
        return PermissionResultAllow()

    opts = options(tmp_path, fake_llm, 60, mcp_servers={"calc": calc.server, "time": {"command": time_server}},
                   can_use_tool=can_use_tool)

    async def main() -> tuple[list[str], dict[str, Any]]:
        answers: list[str] = []
        async with ClaudeSDKClient(opts) as client:
            for prompt in ("1 + 2?", "3 + 4, and the time?"):
                await client.query(prompt)
                answers += [m.result or "" async for m in client.receive_response() if isinstance(m, ResultMessage)]
            status = await client.get_mcp_status()
            await client.toggle_mcp_server("calc", False)
            off = await client.get_mcp_status()
            await client.reconnect_mcp_server("calc")
            back = await client.get_mcp_status()
            try:
                await client.reconnect_mcp_server("nope")
            except Exception as err:  # the SDK raises the error answer as a plain Exception
                assert "not found" in str(err)
            else:
                raise AssertionError("an unknown server was reconnected")
        states = [{s["name"]: s["status"] for s in st["mcpServers"]}["calc"] for st in (off, back)]
        assert states == ["disabled", "connected"]
        return answers, dict(status)

    answers, status = asyncio.run(main())
    assert answers == ["three", "seven"]
    assert [a for a in asked if a[0] == "mcp__calc__add"] == [("mcp__calc__add", {"a": 1, "b": 2}),
                                                              ("mcp__calc__add", {"a": 3, "b": 4})]
    assert calc.calls == [{"a": 1, "b": 2}, {"a": 3, "b": 100}]
    got = results(fake_llm.requests)
    assert text(got["a2"]).endswith("Sum: 103") and '"timezone": "UTC"' in text(got["z1"])
    servers = {s["name"]: s for s in status["mcpServers"]}
    assert servers["calc"] == {
        "name": "calc", "status": "connected", "serverInfo": {"name": "calculator", "version": "2.0.0"},
        "config": {"type": "sdk", "name": "calc"}, "scope": "dynamic",
        "tools": [{"name": "add", "description": "Add two numbers"},
                  {"name": "divide", "description": "Divide a by b"}]}
    assert servers["time"]["status"] == "connected" and servers["time"]["config"]["type"] == "stdio"
    assert "get_current_time" in [t["name"] for t in servers["time"]["tools"]]
    json.dumps(status)


Answer = Callable[[dict[str, Any], Callable[[dict[str, Any]], Awaitable[dict[str, Any] | None]]], Any]


def drive_by_hand(sdk: Sdk, server: Any, init: dict[str, Any], prompt: str, *flags: str,
                  answer: Answer | None = None) -> list[dict[str, Any]]:
    """agentcli in stream-json mode, driven as an SDK would: `initialize` (plus `init`), one user message, and
    every `mcp_message` answered by the Python SDK's own server side for `server` — or by `answer(response
    line's request, handle)`, which returns the whole `control_response.response` to send. All stdout lines."""
    from claude_agent_sdk._internal.sdk_mcp_bridge import SdkMcpBridge

    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and not k.endswith("_BASE_URL")}
    env.update(provider_env(sdk.fake, MODEL))

    async def main() -> list[dict[str, Any]]:
        bridge = SdkMcpBridge("calc", server)
        proc = await asyncio.create_subprocess_exec(
            str(sdk.cli), "--output-format", "stream-json", "--input-format", "stream-json", "--verbose",
            "--model", MODEL, *flags, cwd=sdk.proj, env=env, stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL, limit=1 << 24)
        assert proc.stdin is not None and proc.stdout is not None

        def send(obj: dict[str, Any]) -> None:
            assert proc.stdin is not None
            proc.stdin.write((json.dumps(obj) + "\n").encode())

        async def reply(req_id: str, request: dict[str, Any]) -> None:
            if answer is not None:
                response = await answer(request, bridge.handle)
            else:
                response = {"subtype": "success", "response": {
                    "mcp_response": await bridge.handle(request["message"]) or {"jsonrpc": "2.0", "result": {}}}}
            send({"type": "control_response", "response": {**response, "request_id": req_id}})

        send({"type": "control_request", "request_id": "init",
              "request": {"subtype": "initialize", "hooks": None, **init}})
        lines: list[dict[str, Any]] = []
        tasks: list[asyncio.Task[None]] = []
        async for raw_line in proc.stdout:
            line = json.loads(raw_line)
            lines.append(line)
            if line.get("type") == "control_response" and line["response"]["request_id"] == "init":
                send(user(prompt))
            elif line.get("type") == "control_request" and line["request"]["subtype"] == "mcp_message":
                assert line["request"]["server_name"] == "calc"
                tasks.append(asyncio.create_task(reply(line["request_id"], line["request"])))
            elif line.get("type") == "result":
                proc.stdin.close()
        await proc.wait()
        await asyncio.gather(*tasks)
        await bridge.aclose()
        return lines

    return asyncio.run(main())


def test_servers_announced_in_initialize_as_the_typescript_sdk_does(tmp_path: Path, fake_llm: FakeLLM) -> None:
    """The TypeScript SDK names its in-process servers in `initialize.sdkMcpServers` instead of `--mcp-config`."""
    calc = Calculator()
    fake_llm.push(Reply(tool_calls=[ToolCall("mcp__calc__add", {"a": 2, "b": 3}, id="t1")]), Reply(text="five"))
    lines = drive_by_hand(make_sdk(tmp_path, fake_llm), calc.server["instance"],
                          {"sdkMcpServers": ["calc", "bad__name"]}, "2 + 3?", "--allowedTools", "mcp__calc__add")
    assert calc.calls == [{"a": 2, "b": 3}]
    assert text(results(fake_llm.requests)["t1"]) == "Sum: 5"
    init = next(ln for ln in lines if ln.get("subtype") == "init")
    assert init["mcp_servers"] == [{"name": "calc", "status": "connected"}]
    assert lines[-1]["type"] == "result" and lines[-1]["result"] == "five"
    warned = [ln for ln in lines if ln.get("type") == "system" and "bad__name" in json.dumps(ln)]
    assert warned, lines


def test_hostile_answers_to_tool_calls_are_tool_errors(tmp_path: Path, fake_llm: FakeLLM) -> None:
    """Through the real process and channel: a wrong id, an mcp_response that is not JSON-RPC, an error answer, a
    reply too large to believe. Each is one tool error the model reads; the run finishes normally."""
    calc = Calculator()
    calls = [ToolCall("mcp__calc__add", {"a": i, "b": 0}, id=f"h{i}") for i in range(4)]
    fake_llm.push(Reply(tool_calls=calls), Reply(text="survived"))

    async def answer(request: dict[str, Any], handle: Any) -> dict[str, Any]:
        message = request["message"]
        good = await handle(message) or {"jsonrpc": "2.0", "result": {}}
        if message.get("method") != "tools/call":
            return {"subtype": "success", "response": {"mcp_response": good}}
        bad = [{"mcp_response": {**good, "id": 12345}}, {"mcp_response": "Sum: 0"}, None,
               {"mcp_response": {**good, "result": {"content": [{"type": "text", "text": "x" * (17 << 20)}]}}}]
        which = bad[int(message["params"]["arguments"]["a"])]
        if which is None:
            return {"subtype": "error", "error": "the application refused"}
        return {"subtype": "success", "response": which}

    flags = ("--allowedTools", "mcp__calc__add", "--mcp-config",
             json.dumps({"mcpServers": {"calc": {"type": "sdk", "name": "calculator"}}}))
    lines = drive_by_hand(make_sdk(tmp_path, fake_llm), calc.server["instance"], {}, "add", *flags, answer=answer)
    assert lines[-1]["type"] == "result" and lines[-1]["result"] == "survived"
    got = results(fake_llm.requests)
    assert all(got[c.id or ""]["is_error"] for c in calls)
    assert "answered request" in text(got["h0"]) and "with the id 12345" in text(got["h0"])
    assert "not a JSON-RPC object" in text(got["h1"])
    assert "the application refused" in text(got["h2"])
    assert "too large" in text(got["h3"])


def test_interrupt_cancels_a_running_sdk_tool(tmp_path: Path, fake_llm: FakeLLM) -> None:
    """`interrupt()` while an SDK tool runs: the turn stops and the application's function is cancelled (the MCP
    client's `notifications/cancelled` reaches the server through the control channel)."""
    fake_llm.push(Reply(tool_calls=[ToolCall("mcp__slow__wait", {}, id="w1")]), Reply(text="not reached"))

    async def main() -> list[Any]:
        started, cancelled = asyncio.Event(), asyncio.Event()

        @tool("wait", "Waits forever", {})
        async def wait(args: dict[str, Any]) -> dict[str, Any]:
            started.set()
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                cancelled.set()
                raise
            return {"content": []}

        server = create_sdk_mcp_server("slow", tools=[wait])
        opts = options(tmp_path, fake_llm, mcp_servers={"slow": server}, allowed_tools=["mcp__slow__wait"])
        async with ClaudeSDKClient(opts) as client:
            await client.query("wait")
            await asyncio.wait_for(started.wait(), 60)
            await client.interrupt()
            messages = [m async for m in client.receive_response()]
            await asyncio.wait_for(cancelled.wait(), 30)
        return messages

    messages = asyncio.run(main())
    result = messages[-1]
    assert isinstance(result, ResultMessage) and result.subtype == "error_during_execution"
    assert len(fake_llm.requests) == 1  # the model was not asked again
