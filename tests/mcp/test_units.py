"""Pure pieces: result conversion, schema deferral and search, prompt arguments, resource mentions."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentcli import paths
from agentcli.llm.messages import ImageBlock
from agentcli.mcp.mentions import mentions, missing_arguments, prompt_arguments, prompt_text
from agentcli.mcp.search import SEARCH_TOOL, DeferredTools, schema_tokens
from agentcli.mcp.tool import believed_read_only, object_schema, result_output


@dataclass
class T:
    name: str
    description: str = "does things"
    input_schema: dict[str, Any] = field(default_factory=lambda: {"type": "object"})
    read_only: bool = False


def test_result_output_text_images_resources_and_errors() -> None:
    result = {"content": [
        {"type": "text", "text": "hello"},
        {"type": "image", "mimeType": "image/png", "data": "iVBOR"},
        {"type": "resource", "resource": {"uri": "file:///a.txt", "text": "inside"}},
        {"type": "resource_link", "uri": "file:///b", "name": "b"},
        {"type": "audio", "mimeType": "audio/wav", "data": "x"},
    ], "isError": True}
    out = result_output(result, 10_000, images_ok=True)
    assert out.is_error
    assert out.metadata["attachments"] == [ImageBlock("image/png", "iVBOR")]
    assert "hello" in out.content and "[resource file:///a.txt]\ninside" in out.content
    assert "[resource: file:///b b]" in out.content and "audio/wav (not supported)" in out.content
    text_only = result_output(result, 10_000, images_ok=False)
    assert "attachments" not in text_only.metadata and "not shown to this model" in text_only.content
    assert result_output({"content": [], "structuredContent": {"a": 1}}, 100, False).content == '{"a": 1}'
    assert "truncated" in result_output({"content": [{"type": "text", "text": "x" * 500}]}, 100, False).content


def test_annotations_and_schema_guards() -> None:
    ro = {"readOnlyHint": True}
    assert believed_read_only(ro, True)
    assert not believed_read_only(ro, False)
    assert not believed_read_only({**ro, "openWorldHint": True}, True)
    assert not believed_read_only({**ro, "destructiveHint": True}, True)
    assert not believed_read_only("read-only please", True)
    assert object_schema({"type": "string"}) == {"type": "object", "properties": {}}
    assert object_schema(None) == {"type": "object", "properties": {}}


def test_deferral_under_and_over_budget() -> None:
    tools = [T(f"mcp__s__t{i}", "word " * 100) for i in range(10)]
    cost = sum(schema_tokens(t) for t in tools)
    assert DeferredTools(1.0, lambda: cost + 1, 1).offer(tools) == tools  # fits: nothing deferred
    deferred = DeferredTools(1.0, lambda: cost // 2, 1)
    offered = deferred.offer(tools)
    assert [t.name for t in offered] == [SEARCH_TOOL]
    deferred.load(["mcp__s__t3"])
    assert [t.name for t in deferred.offer(tools)] == ["mcp__s__t3", SEARCH_TOOL]
    assert DeferredTools(0.1, lambda: None, 10_000_000).limit() == 1_000_000  # unknown window: the default


def test_search_ranks_names_before_descriptions() -> None:
    tools = [T("mcp__gh__create_issue", "Create an issue"), T("mcp__gh__list_prs", "List pull requests"),
             T("mcp__jira__search", "Search issues in jira")]
    deferred = DeferredTools(0.0, lambda: 1, 1)
    search: Any = deferred.offer(tools)[0]
    assert [t.name for t in search.find("jira issue", 5)] == ["mcp__gh__create_issue", "mcp__jira__search"]
    assert search.find("create issue", 1)[0].name == "mcp__gh__create_issue"
    assert [t.name for t in search.find("select:mcp__gh__list_prs", 5)] == ["mcp__gh__list_prs"]
    assert search.find("nothing-matches", 5) == []
    assert "mcp__jira__search" in search.description


def test_prompt_arguments() -> None:
    prompt = {"arguments": [{"name": "city", "required": True}, {"name": "state"}]}
    assert prompt_arguments(prompt, "Paris") == {"city": "Paris"}
    assert prompt_arguments(prompt, 'state=TX "San Antonio"') == {"state": "TX", "city": "San Antonio"}
    assert prompt_arguments(prompt, "New York NY extra") == {"city": "New", "state": "York NY extra"}
    assert missing_arguments(prompt, {}) == ["city"]
    assert prompt_text({"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}},
                                     {"role": "assistant", "content": {"type": "text", "text": "yo"}}]}) \
        == "hi\n\n(assistant) yo"


def test_mentions_only_name_configured_servers() -> None:
    text = "read @docs:file:///a.md, and @other:x and mail@docs:y and @docs:file:///a.md"
    assert mentions(text, {"docs"}) == [("docs", "file:///a.md")]


def test_elicitation_form_fields_and_typed_answers() -> None:
    import pytest

    from agentcli.mcp.elicit import form_fields, parse

    request = {"message": "m", "requestedSchema": {"type": "object", "required": ["n"], "properties": {
        "n": {"type": "integer", "title": "How many"}, "ok": {"type": "boolean", "default": True},
        "size": {"type": "string", "enum": ["S", "M"]}, "w": {"type": "number"}}}}
    fields = form_fields(request)
    assert fields is not None
    n, ok, size, w = fields
    assert n.prompt() == "How many: " and ok.default == "true" and size.prompt() == "size [S/M] (optional): "
    assert parse(n, " 3 ") == 3 and parse(ok, "no") is False and parse(size, "M") == "M" and parse(w, "2.5") == 2.5
    for asked, bad in ((n, "x"), (ok, "maybe"), (size, "XL"), (w, "?")):
        with pytest.raises(ValueError):
            parse(asked, bad)
    assert form_fields({"mode": "url", "url": "https://x"}) is None
    assert form_fields({"requestedSchema": {"properties": {"o": {"type": "object"}}}}) is None


def test_first_refresh_waits_as_the_front_end_asks(tmp_path: Path) -> None:
    """The REPL (grace 0) never waits for a server; a headless run (no grace) waits until MCP_TIMEOUT, then gives
    the silent server up with one notice."""
    import asyncio
    import sys
    import time

    from agentcli.mcp.config import McpConfig, ServerConfig
    from agentcli.mcp.manager import McpManager

    silent = ServerConfig("silent", "stdio", "flag", "test", sys.executable,
                          (str(Path(__file__).parent / "servers" / "silent.py"),))

    async def first_refresh(grace: float | None) -> tuple[float, dict[str, str], list[str]]:
        manager = McpManager(McpConfig(servers={"silent": silent}), tmp_path, grace_s=grace,
                             environ={"MCP_TIMEOUT": "1500"})
        manager.start()
        t0 = time.monotonic()
        try:
            await manager.refresh()
            return time.monotonic() - t0, dict(manager.servers()), [n for _, n in manager.notices()]
        finally:
            await manager.aclose()

    took, servers, notices = asyncio.run(first_refresh(0.0))
    assert took < 1.0 and servers["silent"] == "pending" and not notices
    took, servers, notices = asyncio.run(first_refresh(None))
    assert 1.5 <= took < 1.5 + 15
    assert servers["silent"] == "failed"
    assert notices == ["MCP server 'silent' failed: did not connect within 1.5 s (MCP_TIMEOUT) "
                       f"(log: {paths.home() / 'logs' / 'mcp' / 'silent.log'})"]


def test_a_long_mcp_tool_timeout_is_not_cut_by_the_runner() -> None:
    """MCP_TOOL_TIMEOUT above the session's tool timeout (15 min here): the runner's outer bound follows the
    tool's own, instead of cutting the call at the session's 600 s + 5."""
    from types import SimpleNamespace

    from agentcli.core.toolrun import OUTER_MARGIN_S, outer_bound_s
    from agentcli.mcp.config import ServerConfig
    from agentcli.mcp.limits import resolve
    from agentcli.mcp.tool import McpTool
    from agentcli.tools.base import ToolContext

    limits = resolve({"MCP_TOOL_TIMEOUT": "900000"}, 30.0, 120.0)
    conn: Any = SimpleNamespace(cfg=ServerConfig("slow", "stdio", "user", "test", command="x"))
    tool = McpTool(conn, {"name": "wait"}, limits.tool_timeout_s)
    ctx = ToolContext(project_root=Path.cwd(), tool_timeout_s=600.0)
    assert outer_bound_s(tool, ctx) == 900.0 + OUTER_MARGIN_S
    short: Any = SimpleNamespace(cfg=ServerConfig("quick", "stdio", "user", "test", command="x", timeout_s=2.0))
    assert outer_bound_s(McpTool(short, {"name": "now"}, 900.0), ctx) == 600.0 + OUTER_MARGIN_S
    assert outer_bound_s(T("Bash"), ctx) == 600.0 + OUTER_MARGIN_S  # type: ignore[arg-type]
