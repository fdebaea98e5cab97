"""The command line's door into the stream-json session: which flag combinations it takes."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agentcli.errors import UsageError

if TYPE_CHECKING:
    from agentcli.settings.config import Settings

PROMPT_TOOLS = ("stdio",)


def check_flags(values: dict[str, Any]) -> None:
    """As Claude Code: stream-json input needs stream-json output and takes its prompts from stdin; only the
    `stdio` permission prompt tool exists here (an MCP tool as the approver is not supported)."""
    streaming = values.get("input_format") == "stream-json"
    tool = values.get("permission_prompt_tool")
    if streaming and values.get("output_format") != "stream-json":
        raise UsageError("--input-format stream-json needs --output-format stream-json",
                         hint="add --output-format stream-json")
    if streaming and values.get("prompt") is not None:
        raise UsageError("--input-format stream-json takes its prompts from stdin, not as an argument",
                         hint="send {\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"…\"}} lines")
    if tool is not None and tool not in PROMPT_TOOLS:
        raise UsageError(f"--permission-prompt-tool {tool!r} is not supported",
                         hint="use --permission-prompt-tool stdio with --input-format stream-json")
    if values.get("replay_user_messages") and not streaming:
        raise UsageError("--replay-user-messages needs --input-format stream-json")
    if tool is not None and not streaming:
        raise UsageError("--permission-prompt-tool stdio needs --input-format stream-json",
                         hint="add --input-format stream-json --output-format stream-json")


def run_stream(settings: Settings, values: dict[str, Any]) -> int:
    check_flags(values)
    from agentcli.sdkio.session import run_stream_session

    return run_stream_session(settings, values.get("permission_prompt_tool"),
                              replay=bool(values.get("replay_user_messages")))
