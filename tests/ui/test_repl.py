"""The REPL's prompt handling, driven through `Repl.submit` with a scripted provider (no terminal)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agentcli.core.events import MessageStop, TextDelta, ToolCallDelta, ToolCallEnd, ToolCallStart
from agentcli.core.interrupts import INTERRUPTED
from tests.ui.scripted import Script, ScriptedProvider, make_repl, text_reply


def request_text(provider: ScriptedProvider, i: int = -1) -> str:
    req = provider.requests[i]
    return "\n".join(m.text for m in req.messages)


def test_prompt_streams_and_status_updates(tmp_path: Path) -> None:
    provider = ScriptedProvider([text_reply("Hello **there**")])
    repl, out = make_repl(tmp_path, provider)
    asyncio.run(repl.submit("hi"))
    assert "Hello there" in out.getvalue()
    # the next request: at least the provider's 100 input tokens plus the 5 of the reply it will carry (our
    # own count of the tools and messages when the scripted provider's figure is lower)
    assert repl.agent is not None
    used = repl.agent.context_tokens()
    assert repl.status.context_tokens == used >= 105 and repl.status.context_percent == round(used / 10)


def test_shell_output_reaches_next_request(tmp_path: Path) -> None:
    provider = ScriptedProvider([text_reply("seen")])
    repl, out = make_repl(tmp_path, provider)
    (tmp_path / "marker-file.txt").write_text("x")

    async def go() -> None:
        await repl.submit("!ls")
        await repl.submit("what did ls print?")

    asyncio.run(go())
    assert "marker-file.txt" in out.getvalue()
    text = request_text(provider)
    assert "$ ls" in text and "marker-file.txt" in text and "what did ls print?" in text
    assert repl.context == []


def test_at_file_is_attached(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("secret sauce recipe")
    provider = ScriptedProvider([text_reply("ok")])
    repl, _ = make_repl(tmp_path, provider)
    asyncio.run(repl.submit("summarise @notes.md please"))
    assert "secret sauce recipe" in request_text(provider)


def test_large_paste_is_expanded(tmp_path: Path) -> None:
    provider = ScriptedProvider([text_reply("ok")])
    repl, _ = make_repl(tmp_path, provider)
    repl.pastes[1] = "line\n" * 30
    asyncio.run(repl.submit("look: [Pasted text #1 +31 lines]"))
    assert request_text(provider).count("line") == 30


def test_slash_mode_model_cost(tmp_path: Path) -> None:
    provider = ScriptedProvider([text_reply("ok")])
    repl, out = make_repl(tmp_path, provider)

    async def go() -> None:
        await repl.submit("/mode plan")
        await repl.submit("/mode")
        await repl.submit("/cost")
        await repl.submit("/nosuch")
        await repl.submit("/help")

    asyncio.run(go())
    assert repl.agent is not None and repl.agent.policy.mode == "plan"
    text = out.getvalue()
    assert "Permission mode: plan" in text and "Cost: $0.0000" in text
    assert "Unknown command /nosuch" in text and "/compact" in text and "summarise the conversation" in text
    repl.cycle_mode()
    assert repl.agent.policy.mode == "default" and repl.status.mode == "default"
    repl.cycle_mode()
    assert repl.mode == "acceptEdits"


def test_custom_command_expands(tmp_path: Path) -> None:
    folder = tmp_path / ".agentcli" / "commands"
    folder.mkdir(parents=True)
    (folder / "explain.md").write_text("Explain $ARGUMENTS simply.")
    provider = ScriptedProvider([text_reply("ok")])
    repl, _ = make_repl(tmp_path, provider)
    asyncio.run(repl.submit("/explain monads"))
    assert "Explain monads simply." in request_text(provider)


def test_cancel_keeps_partial_and_transcript_valid(tmp_path: Path) -> None:
    slow: Script = [
        TextDelta("partial answer\n\n"),
        TextDelta("more"),
        None,
        TextDelta("never"),
        MessageStop("end_turn"),
    ]
    provider = ScriptedProvider([slow, text_reply("second")])
    repl, out = make_repl(tmp_path, provider)

    async def go() -> None:
        first = asyncio.create_task(repl.submit("long task"))
        await provider.stalled.wait()
        repl.cancel_turn()
        await first
        await repl.submit("next")

    asyncio.run(go())
    text = out.getvalue()
    assert "partial answer" in text and "more" in text and "Interrupted" in text and "second" in text
    assert "never" not in text and text.count("Interrupted") == 1
    assert repl.agent is not None
    # the partial reply, then Claude Code's marker (the model reads that it was stopped), then the next prompt
    roles = [(m.role, m.text if m.role == "user" else "") for m in repl.agent.messages]
    assert roles == [("user", "long task"), ("assistant", ""), ("user", INTERRUPTED), ("user", "next"),
                     ("assistant", "")]


def test_tool_call_line(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("alpha\nbeta\n")
    call: Script = [
        ToolCallStart(0, "c1", "Read"),
        ToolCallDelta(0, '{"file_path": "a.txt"}'),
        ToolCallEnd(0),
        MessageStop("tool_use"),
    ]
    provider = ScriptedProvider([call, text_reply("done")])
    repl, out = make_repl(tmp_path, provider)
    asyncio.run(repl.submit("read a.txt"))
    text = out.getvalue()
    assert "✓ Read(a.txt)" in text and "done" in text


def test_preset_switch_keeps_this_session_approvals(tmp_path: Path) -> None:
    from agentcli.permissions.loader import load_policy

    provider = ScriptedProvider([text_reply("ok")])
    repl, out = make_repl(tmp_path, provider)
    assert repl.agent is not None
    repl.agent.policy = load_policy(tmp_path, "default", ctx=repl.agent.ctx)
    repl.agent.policy.remember("Bash(npm test:*)", "session")
    asyncio.run(repl.submit("/preset review"))
    assert "Preset review" in out.getvalue()
    assert "Bash(npm test:*)" in repl.agent.policy.session_rules()  # type: ignore[attr-defined]


def test_thinking_can_be_hidden_by_setting(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    from rich.console import Console

    from agentcli.core.events import ThinkingDelta
    from agentcli.settings.config import load_settings
    from agentcli.ui.repl import Repl

    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text("show_thinking = false\n")
    monkeypatch.setenv("AGENTCLI_HOME", str(home))
    settings = load_settings(tmp_path, {})
    assert settings.model.show_thinking is False
    out = io.StringIO()
    repl = Repl(settings, console=Console(file=out, width=80, force_terminal=False, color_system=None))
    assert repl.renderer.show_thinking is False
    repl.renderer.feed(ThinkingDelta("secret musings"))
    repl.renderer.flush()
    assert "secret musings" not in out.getvalue()


def test_help_shows_every_usage_whole(tmp_path: Path) -> None:
    """Issue 28: `/memory [edit ]` — the usage's inner brackets were taken for a style tag and vanished."""
    from agentcli.ui.slash import COMMANDS

    repl, out = make_repl(tmp_path, ScriptedProvider([]))
    asyncio.run(repl.submit("/help"))
    text = " ".join(out.getvalue().split())
    for c in COMMANDS.values():
        assert " ".join(f"/{c.name} {c.usage}".split()) in text, c.name
    assert "/memory [edit [user|project|N]]" in text


def test_slash_todos_shows_the_list_todowrite_set(tmp_path: Path) -> None:
    """Issue 28: /todos shows the todo list."""
    todos = ('{"todos": [{"content": "Write the parser", "status": "completed", "activeForm": "Writing"},'
             ' {"content": "Run the tests", "status": "in_progress", "activeForm": "Running the tests"}]}')
    call: Script = [ToolCallStart(0, "c1", "TodoWrite"), ToolCallDelta(0, todos), ToolCallEnd(0),
                    MessageStop("tool_use")]
    provider = ScriptedProvider([call, text_reply("planned")])
    repl, out = make_repl(tmp_path, provider, window=4000)  # TodoWrite's schema: over 1000 tokens, never sent
    assert repl.agent is not None
    repl.agent.registry.enabled.append("TodoWrite")

    async def go() -> None:
        await repl.submit("/todos")
        assert "No todos yet" in out.getvalue()
        await repl.submit("plan it")
        out.truncate(0)
        out.seek(0)
        await repl.submit("/todos")

    asyncio.run(go())
    text = out.getvalue()
    assert "Todos" in text and "Write the parser" in text and "Running the tests" in text


def test_switching_to_a_preset_with_unknown_tools_says_so(tmp_path: Path) -> None:
    from agentcli.paths import home

    (home() / "presets").mkdir(parents=True, exist_ok=True)
    (home() / "presets" / "odd.toml").write_text('tools = ["Read", "LS", "Frobnicate"]\n')
    provider = ScriptedProvider([text_reply("ok")])
    repl, out = make_repl(tmp_path, provider)
    asyncio.run(repl.submit("/preset odd"))
    text = out.getvalue()
    assert "agentcli has no tool named 'Frobnicate'" in text and "'LS'" not in text
    assert repl.agent is not None and repl.agent.registry.enabled[:2] == ["Read", "Glob"]
